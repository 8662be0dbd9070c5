#!/bin/bash
# make install into a DESTDIR, then make install for the running kernel,
# for real: the guest's root is the host's, read-only, so a private mount
# namespace puts writable overlays over this kernel's /lib/modules,
# /usr/local, /usr/src and /etc, and make install, modprobe and make
# uninstall run there as they would on a machine.  And the module that
# Debian's dkms built from make dkms-install's sources (on the host,
# natively: tests/dkms_check.sh) loads here.  KTAP on stdout.
set -u
B=${PERFREGS_BUILD:-build}
case $B in /*) ;; *) B=$PWD/$B ;; esac
K=$(uname -r)
T=$(mktemp -d)
n=0 failed=0
res() {	# ok|not ok, name, detail
	n=$((n + 1))
	[ "$1" = ok ] || failed=1
	echo "$1 $n $2"
	[ -n "${3:-}" ] && echo "# $2: $3"
}
echo "TAP version 13"
echo "1..3"

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

# the module dkms built (tests/dkms_check.sh, a host test of make check:
# for the first kernel of the matrix)
dkmsko=$B/dkms/built/$K/perfregs.ko

# --- on a (writable copy of the) real root ---------------------------------
# The steps run in one shell inside the namespace; each prints "step: ok"
# or "step: FAILED ..." and the results are read back here.
real_root() {
	set -u
	modprobe overlay 2>/dev/null
	# This kernel's module tree as depmod and modprobe see it, without
	# its 4,000 modules: depmod -a read and (6.12) unpacked every one,
	# 80 to 105 s under TCG each time, for an index that only
	# perfregs.ko (which needs no other module) has to be in.  The
	# builtin lists stay, and build/.
	local kt=/lib/modules/$K
	mkdir -p "$T/kmods"
	for f in modules.builtin modules.builtin.modinfo modules.builtin.alias.bin; do
		[ -e "$kt/$f" ] && cp "$kt/$f" "$T/kmods/"
	done
	: > "$T/kmods/modules.order"
	[ -e "$kt/build" ] && ln -s "$(readlink -f "$kt/build")" "$T/kmods/build"
	for d in "$kt" /usr/local /usr/src /etc; do
		lower=$d
		[ "$d" = "$kt" ] && lower=$T/kmods
		mkdir -p "$T/ov$d/up" "$T/ov$d/work"
		mount -t overlay overlay -o "lowerdir=$lower,upperdir=$T/ov$d/up,workdir=$T/ov$d/work" "$d" ||
			{ echo "setup: FAILED overlay on $d"; return; }
	done
	echo "setup: ok"
	lsmod | grep -q '^perfregs ' && rmmod perfregs
	t0=$SECONDS
	# make install: the module under extra/, depmod, modprobe finds it
	if make -s install BUILD="$B" KVER="$K" >"$T/ri.log" 2>&1 &&
	   [ "$(modinfo -n perfregs 2>/dev/null)" = "/lib/modules/$K/extra/perfregs.ko" ] &&
	   modprobe perfregs && [ -c /dev/perfregs ] &&
	   [ "$(stat -c %a /dev/perfregs)" = 666 ] &&
	   /usr/local/bin/perfregs-dump --version >/dev/null &&
	   [ -f /usr/local/share/man/man1/perfregs-dump.1 ] &&
	   modprobe -r perfregs &&
	   make -s uninstall BUILD="$B" KVER="$K" >>"$T/ri.log" 2>&1 &&
	   ! modinfo perfregs >/dev/null 2>&1 && [ ! -e /usr/local/bin/perfregs-dump ] &&
	   [ ! -e /etc/udev/rules.d/60-perfregs.rules ]; then
		echo "install: ok module in extra/ found by modprobe, tool, man page, udev rule; all gone after uninstall"
	else
		echo "install: FAILED $(tail -3 "$T/ri.log" | tr '\n' ' ') modinfo=$(modinfo -n perfregs 2>&1)"
		modprobe -r perfregs 2>/dev/null
	fi
	echo "time: make install and uninstall took $((SECONDS - t0)) s"
}
loaded=0
lsmod | grep -q '^perfregs ' && loaded=1
export -f real_root
export T B K
unshare -m --propagation private bash -c real_root > "$T/real.log" 2>&1
[ $loaded = 1 ] && ! lsmod | grep -q '^perfregs ' && insmod "$B/kmod/$K/module/perfregs.ko"
setup=$(sed -n 's/^setup: //p' "$T/real.log")
sed -n 's/^time: /# /p' "$T/real.log"
line=$(sed -n "s/^install: //p" "$T/real.log")
case "$setup/$line" in
ok/ok*)	res ok real_root_make_install "${line#ok }" ;;
ok/*)	res "not ok" real_root_make_install "${line:-no result: $(tail -3 "$T/real.log" | tr '\n' ' ')}" ;;
*)	res "not ok" real_root_make_install "no writable root: $setup $(tail -3 "$T/real.log" | tr '\n' ' ')" ;;
esac

# the module dkms built: it loads, makes the device, and goes
if [ ! -f "$dkmsko" ]; then
	n=$((n + 1))
	echo "ok $n dkms_module_loads # SKIP no module dkms built for $K ($dkmsko: the host tests build the first kernel's)"
else
	lsmod | grep -q '^perfregs ' && rmmod perfregs
	if insmod "$dkmsko" && [ -c /dev/perfregs ] &&
	   [ "$(cat /sys/module/perfregs/srcversion)" = "$(modinfo -F srcversion "$dkmsko")" ] &&
	   rmmod perfregs; then
		res ok dkms_module_loads "$(modinfo -F vermagic "$dkmsko" | cut -d' ' -f1): /dev/perfregs made, unloaded"
	else
		res "not ok" dkms_module_loads "$(dmesg | tail -3 | tr '\n' ' ')"
		rmmod perfregs 2>/dev/null
	fi
	[ $loaded = 1 ] && insmod "$B/kmod/$K/module/perfregs.ko"
fi
rm -rf "$T"
exit $failed
