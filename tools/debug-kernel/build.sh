#!/bin/bash
# Build a perfregs debug kernel from Debian's linux-source-6.1:
# x86_64_defconfig + kvm_guest.config + common.config + FLAVOUR.config.
#   kasan  KASAN, lockdep, UBSAN, kmemleak, fault injection (gcc)
#   kcsan  KCSAN data races, lockdep (gcc)
#   kmsan  KMSAN uninitialized memory (clang, as KMSAN requires)
# Built once and cached under BUILD/debug-kernel/FLAVOUR/<key>, keyed by
# the source package version, the config fragments, the compiler and
# this script; BUILD/debug-kernel/FLAVOUR/current points at the newest.
# The source is extracted once for every flavour (BUILD/debug-kernel/src).
# Prints nothing but progress, and the release string on the last line.
# usage: tools/debug-kernel/build.sh [BUILD_DIR [FLAVOUR]]   (default kasan)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
B=${1:-$here/../../build}
B=$(mkdir -p "$B" && cd "$B" && pwd)
flavour=${2:-kasan}
[ -f "$here/$flavour.config" ] ||
	{ echo "debug-kernel: no flavour '$flavour' (kasan, kcsan or kmsan)" >&2; exit 2; }
case $flavour in
kmsan) cc=clang ;;
*) cc=gcc ;;
esac
tar=/usr/src/linux-source-6.1.tar.xz
[ -r "$tar" ] || { echo "debug-kernel: $tar missing: run 'make deps'" >&2; exit 1; }
for t in flex bison bc $cc; do
	command -v $t >/dev/null || { echo "debug-kernel: $t missing: run 'make deps'" >&2; exit 1; }
done
srcver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null || stat -c %Y "$tar")
key=$( (echo "$srcver"; $cc --version | head -n1
	cat "$here/common.config" "$here/$flavour.config" "$here/build.sh") |
	sha256sum | cut -c1-12)
top=$B/debug-kernel
dir=$top/$flavour/$key
obj=$dir/obj
if [ -f "$dir/done" ]; then
	ln -sfn "$key" "$top/$flavour/current"
	cat "$dir/done"
	exit 0
fi
# a different key: drop this flavour's old trees, they are large
for d in "$top/$flavour"/*/; do
	[ -d "$d" ] && [ "$d" != "$dir/" ] && rm -rf "$d"
done
# the source, once for all flavours (out-of-tree builds leave it clean)
srckey=$(echo "$srcver" | sha256sum | cut -c1-12)
src=$top/src/$srckey
if [ ! -f "$src/.extracted" ]; then
	echo "debug-kernel: extracting $tar"
	rm -rf "$top/src" && mkdir -p "$src"
	tar -xJf "$tar" -C "$src" --strip-components=1
	touch "$src/.extracted"
fi
# KMSAN gets KASAN's larger stacks (thread and IRQ stacks 32 KiB,
# exception stacks 8 KiB): its instrumentation makes frames larger
# (google/kmsan issue 97).  (They did not cure the KMSAN guest's boot
# crash, "IRQ stack guard page was hit": that was a fault recursing
# under 5-level paging, see tools/soak.sh.)  Nothing changes for the
# other flavours (KASAN has them already, KCSAN neither).
stk=$src/arch/x86/include/asm/page_64_types.h
sed -i 's/^#ifdef CONFIG_KASAN$/#if defined(CONFIG_KASAN) || defined(CONFIG_KMSAN)/' "$stk"
grep -q '^#if defined(CONFIG_KASAN) || defined(CONFIG_KMSAN)$' "$stk" ||
	{ echo "debug-kernel: cannot give KMSAN larger stacks in $stk" >&2; exit 1; }
mkdir -p "$obj"
start=$(date +%s)
kmake=(make -s -C "$src" O="$obj" CC="$cc")
echo "debug-kernel: configuring $flavour in $obj"
"${kmake[@]}" x86_64_defconfig >/dev/null
"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
	"$src/kernel/configs/kvm_guest.config" "$here/common.config" \
	"$here/$flavour.config" >/dev/null
"${kmake[@]}" olddefconfig >/dev/null
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
done < <(cat "$here/common.config" "$here/$flavour.config")
[ $bad = 0 ] || exit 1
jobs=$(( $(nproc) + 1 ))
echo "debug-kernel: building $flavour with $cc -j$jobs (30 to 60 min on 2 cores)"
"${kmake[@]}" -j"$jobs" bzImage modules >"$dir/build.log" 2>&1 ||
	{ tail -40 "$dir/build.log" >&2; echo "debug-kernel: build failed, log in $dir/build.log" >&2; exit 1; }
rel=$("${kmake[@]}" kernelrelease)
echo "debug-kernel: built $rel in $(( $(date +%s) - start )) s"
echo "$cc" > "$dir/cc"
echo "$rel" > "$dir/done"
ln -sfn "$key" "$top/$flavour/current"
echo "$rel"
