#!/bin/bash
# make install (into a DESTDIR) and a DKMS build with Debian's dkms, in
# the guest, for the running kernel.  The guest's root is read-only, so
# dkms works in private trees (--sourcetree/--dkmstree) and the module
# it built is loaded by hand.  KTAP on stdout.
set -u
B=${PERFREGS_BUILD:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
K=$(uname -r)
T=$(mktemp -d)
n=0
res() {	# ok|not ok, name, detail
	n=$((n + 1))
	echo "$1 $n $2"
	[ -n "${3:-}" ] && echo "# $2: $3"
}
echo "TAP version 13"
echo "1..2"

if make -s install DESTDIR="$T/inst" KVER="$K" BUILD="$B" > "$T/inst.log" 2>&1 &&
   [ -f "$T/inst/lib/modules/$K/extra/perfregs.ko" ] &&
   [ -x "$T/inst/usr/local/bin/perfregs-dump" ] &&
   [ -f "$T/inst/usr/local/share/man/man1/perfregs-dump.1" ] &&
   [ -f "$T/inst/usr/local/include/linux/perfregs.h" ] &&
   [ -f "$T/inst/etc/udev/rules.d/60-perfregs.rules" ] &&
   make -s uninstall DESTDIR="$T/inst" KVER="$K" BUILD="$B" >> "$T/inst.log" 2>&1 &&
   [ -z "$(find "$T/inst" -type f)" ]; then
	res ok "make_install_uninstall" "module, tool, man page, header and udev rule in, then out"
else
	res "not ok" "make_install_uninstall" "$(tail -3 "$T/inst.log" | tr '\n' ' ')"
fi

if ! command -v dkms > /dev/null; then
	echo "ok $((n + 1)) dkms_build_and_load # SKIP dkms is not installed (make deps)"
	exit 0
fi
make -s dkms-install DESTDIR="$T/src" > "$T/dkms.log" 2>&1
mv "$T/src/usr/src" "$T/sources"
mkdir -p "$T/dkms"
# dkms compresses the module like the kernel's own (6.12: .ko.xz)
if dkms build -m perfregs -v 1.0 -k "$K" --sourcetree "$T/sources" --dkmstree "$T/dkms" \
	>> "$T/dkms.log" 2>&1 &&
   ko=$(ls "$T/dkms/perfregs/1.0/$K/x86_64/module/"perfregs.ko* 2>/dev/null | head -1) &&
   [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$K" ]; then
	loaded=0
	lsmod | grep -q '^perfregs ' && loaded=1 && rmmod perfregs
	if insmod "$ko" && [ -c /dev/perfregs ] && rmmod perfregs; then
		res ok "dkms_build_and_load" "dkms built perfregs.ko for $K; it loads and unloads"
	else
		res "not ok" "dkms_build_and_load" "the dkms-built module did not load"
	fi
	[ $loaded = 1 ] && insmod "$B/kmod/$K/module/perfregs.ko"
else
	res "not ok" "dkms_build_and_load" "$(tail -5 "$T/dkms.log" | tr '\n' ' ') $(ls -R "$T/dkms" | tail -5 | tr '\n' ' ')"
fi
rm -rf "$T"
