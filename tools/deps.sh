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
      libdw-dev elfutils linux-source-6.1 linux-image-amd64 linux-headers-amd64
      linux-perf kmod xz-utils python3 clang lld libclang-rt-14-dev dkms
      flex bison bc libssl-dev chromium protobuf-c-compiler libprotobuf-c-dev
      zlib1g-dev golang-github-google-pprof-dev golang-go)

# The newest 6.12 kernel from bookworm-backports/updates for which both the
# unsigned image and the matching headers are in the archive.
newest_612() {
	local img hdr v
	img=$(apt-cache search --names-only '^linux-image-6\.12\.[0-9]+\+deb12-amd64-unsigned$' |
	      sed -n 's/^linux-image-\(6\.12\.[0-9]*+deb12\)-amd64-unsigned .*/\1/p')
	hdr=$(apt-cache search --names-only '^linux-headers-6\.12\.[0-9]+\+deb12-amd64$' |
	      sed -n 's/^linux-headers-\(6\.12\.[0-9]*+deb12\)-amd64 .*/\1/p')
	comm -12 <(sort -u <<<"$img") <(sort -u <<<"$hdr") | sort -V | tail -n1
}

missing() {
	local p
	for p in "$@"; do
		dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$' || echo "$p"
	done
}

have_612=$(dpkg-query -W -f='${Package}\n' 'linux-image-6.12.*+deb12-amd64-unsigned' 2>/dev/null |
	   grep -c . || true)

need=$(missing "${want[@]}")
if [ -z "$need" ] && [ "$have_612" -gt 0 ] &&
   ls /usr/src/linux-headers-6.12.*+deb12-amd64 >/dev/null 2>&1; then
	[ -n "$check_only" ] || echo "deps: all packages present"
	exit 0
fi
if [ -n "$check_only" ] || [ "$(id -u)" != 0 ]; then
	k=
	if [ "$have_612" -eq 0 ] ||
	   ! ls /usr/src/linux-headers-6.12.*+deb12-amd64 >/dev/null 2>&1; then
		v=$(newest_612 2>/dev/null || true)
		if [ -n "$v" ]; then
			k=$(missing "linux-image-$v-amd64-unsigned" "linux-headers-$v-amd64")
		else
			k="linux-image-6.12.*+deb12-amd64-unsigned linux-headers-6.12.*+deb12-amd64"
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
	echo "deps: no linux-image-6.12.*+deb12-amd64-unsigned with matching headers in the archive" >&2
	echo "deps: enable bookworm-updates/bookworm-backports in /etc/apt/sources.list" >&2
	exit 1
fi
pkgs=$(missing "${want[@]}" "linux-image-$v-amd64-unsigned" "linux-headers-$v-amd64")
echo "deps: installing" $pkgs
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $pkgs >/dev/null
echo "deps: done"
