#!/bin/bash
# Build the perfregs debug kernel from Debian's linux-source-6.1:
# x86_64_defconfig + kvm_guest.config + debug.config (KASAN, lockdep,
# UBSAN, kmemleak, fault injection...).  Built once and cached under
# BUILD/debug-kernel/<key>, keyed by the source package version and the
# config fragment; prints nothing but progress, and the release string
# on the last line.
# usage: tools/debug-kernel/build.sh [BUILD_DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${1:-$here/../../build}
B=$(mkdir -p "$B" && cd "$B" && pwd)
tar=/usr/src/linux-source-6.1.tar.xz
[ -r "$tar" ] || { echo "debug-kernel: $tar missing: run 'make deps'" >&2; exit 1; }
for t in flex bison bc; do
	command -v $t >/dev/null || { echo "debug-kernel: $t missing: run 'make deps'" >&2; exit 1; }
done
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %Y "$tar")
key=$( (echo "$srcver"; cat "$here/debug.config" "$here/build.sh") | sha256sum | cut -c1-12)
top=$B/debug-kernel
dir=$top/$key
src=$dir/src
obj=$dir/obj
if [ -f "$dir/done" ]; then
	cat "$dir/done"
	exit 0
fi
# a different key: drop the old trees, they are large
for d in "$top"/*/; do
	[ -d "$d" ] && [ "$d" != "$dir/" ] && rm -rf "$d"
done
mkdir -p "$dir"
start=$(date +%s)
if [ ! -f "$src/Makefile" ]; then
	echo "debug-kernel: extracting $tar"
	rm -rf "$src" && mkdir -p "$src"
	tar -xJf "$tar" -C "$src" --strip-components=1
fi
mkdir -p "$obj"
echo "debug-kernel: configuring in $obj"
make -s -C "$src" O="$obj" x86_64_defconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	"$src/kernel/configs/kvm_guest.config" "$here/debug.config" >/dev/null
make -s -C "$src" O="$obj" olddefconfig >/dev/null
# every option asked for must have survived
bad=0
while IFS= read -r line; do
	case "$line" in
	CONFIG_*=*)
		grep -qxF "$line" "$obj/.config" || { echo "debug-kernel: $line did not stick" >&2; bad=1; } ;;
	"# CONFIG_"*" is not set")
		opt=${line#\# }; opt=${opt%% *}
		grep -q "^$opt=" "$obj/.config" && { echo "debug-kernel: $opt still set" >&2; bad=1; } ;;
	esac
done < "$here/debug.config"
[ $bad = 0 ] || exit 1
jobs=$(( $(nproc) + 1 ))
echo "debug-kernel: building with -j$jobs (about 40 min on 2 cores)"
make -s -C "$src" O="$obj" -j"$jobs" bzImage modules >"$dir/build.log" 2>&1 ||
	{ tail -40 "$dir/build.log" >&2; echo "debug-kernel: build failed, log in $dir/build.log" >&2; exit 1; }
rel=$(make -s -C "$src" O="$obj" kernelrelease)
echo "debug-kernel: built $rel in $(( $(date +%s) - start )) s"
ln -sfn "$key" "$top/current"
echo "$rel" > "$dir/done"
echo "$rel"
