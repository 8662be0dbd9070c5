#!/bin/bash
# Install every Debian package perfregs needs to build and test.
# Idempotent: when everything is present it only checks and returns.
#   tools/deps.sh           install what is missing (needs root)
#   tools/deps.sh --check   install nothing: print one line naming what is
#                           missing and exit 1, or exit 0 silently
set -euo pipefail
check_only=
case "${1:-}" in
--check) check_only=1 ;;
"") ;;
*) echo "usage: tools/deps.sh [--check]" >&2; exit 2 ;;
esac

want=(qemu-system-x86 qemu-utils busybox-static cpio gcc-multilib libelf-dev
      libdw-dev libdebuginfod-dev debuginfod elfutils linux-source-6.1
      linux-image-amd64 linux-headers-amd64
      linux-image-rt-amd64 linux-headers-rt-amd64
      linux-perf kmod xz-utils python3 clang lld libclang-rt-14-dev dkms
      flex bison bc libssl-dev chromium protobuf-c-compiler libprotobuf-c-dev
      zlib1g-dev golang-github-google-pprof-dev golang-go libiberty-dev strace nodejs)

# The newest 6.12 kernel from bookworm-backports/updates for which the
# unsigned images and the headers of both flavours (generic and
# PREEMPT_RT) are in the archive.
versions_612() {	# image|headers FLAVOUR
	apt-cache search --names-only "^linux-$1-6\.12\.[0-9]+\+deb12-$2\$" |
		sed -n "s/^linux-$1-\(6\.12\.[0-9]*+deb12\)-$2 .*/\1/p" | sort -u
}
newest_612() {
	comm -12 <(versions_612 image amd64-unsigned) <(versions_612 headers amd64) |
		comm -12 - <(versions_612 image rt-amd64-unsigned) |
		comm -12 - <(versions_612 headers rt-amd64) | sort -V | tail -n1
}

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

# The 6.12 packages for version $1: both flavours' unsigned images and
# headers.
pkgs_612() {
	echo "linux-image-$1-amd64-unsigned linux-headers-$1-amd64" \
	     "linux-image-$1-rt-amd64-unsigned linux-headers-$1-rt-amd64"
}

# A 6.12 version installed with all four, headers unpacked: print it.
have_612() {
	local v
	for v in $(dpkg-query -W -f='${Package}\n' 'linux-image-6.12.*+deb12-amd64-unsigned' 2>/dev/null |
		   sed -n 's/^linux-image-\(.*\)-amd64-unsigned$/\1/p'); do
		# shellcheck disable=SC2046 # one package name per word
		if [ -z "$(missing $(pkgs_612 "$v"))" ] &&
		   [ -d "/usr/src/linux-headers-$v-amd64" ] &&
		   [ -d "/usr/src/linux-headers-$v-rt-amd64" ]; then
			echo "$v"
			return 0
		fi
	done
	return 1
}

need=$(missing "${want[@]}")
if [ -z "$need" ] && have_612 >/dev/null; then
	[ -n "$check_only" ] || echo "deps: all packages present"
	exit 0
fi
if [ -n "$check_only" ] || [ "$(id -u)" != 0 ]; then
	k=
	if ! have_612 >/dev/null; then
		v=$(newest_612 2>/dev/null || true)
		if [ -n "$v" ]; then
			# shellcheck disable=SC2046
			k=$(missing $(pkgs_612 "$v"))
		else
			k=$(pkgs_612 '6.12.*+deb12')
		fi
	fi
	set -f		# the 6.12 patterns in $k are names, not globs
	# shellcheck disable=SC2086,SC2116 # the echo squeezes the blanks
	echo "perfregs: missing packages: $(echo $need $k); run 'make deps' as root first (e.g. sudo make deps)" >&2
	exit 1
fi

export DEBIAN_FRONTEND=noninteractive
echo "deps: apt-get update"
apt-get update -q >/dev/null
v=$(newest_612)
if [ -z "$v" ]; then
	echo "deps: no 6.12 kernel in the archive with both flavours (amd64, rt-amd64) and their headers" >&2
	echo "deps: enable bookworm-updates/bookworm-backports in /etc/apt/sources.list" >&2
	exit 1
fi
# shellcheck disable=SC2046
pkgs=$(missing "${want[@]}" $(pkgs_612 "$v"))
echo "deps: installing" $pkgs
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $pkgs >/dev/null
echo "deps: done"
