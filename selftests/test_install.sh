#!/bin/bash
# make install into a DESTDIR, then make install and dkms install (with
# Debian's dkms) for the running kernel, for real: the guest's root is the
# host's, read-only, so a private mount namespace puts writable overlays
# over /lib/modules, /usr/local, /usr/src, /var/lib/dkms and /etc, and
# make install, modprobe, dkms install and the uninstalls run there as
# they would on a machine.  KTAP on stdout.
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

nodkms=
command -v dkms > /dev/null || nodkms="dkms is not installed (make deps)"
[ -e "/lib/modules/$K/build" ] || nodkms="no headers for $K (/lib/modules/$K/build)"
# make check: dkms compiling the module in the guest (minutes under TCG)
# covers dkms.conf and its rules, the same on every kernel; the module
# for this kernel's headers was built on the host by make
skipdkms=
[ -n "${PERFREGS_MATRIX_FIRST:-}" ] &&
	skipdkms="dkms install ran on $PERFREGS_MATRIX_FIRST; the module for this kernel's headers is built on the host by make"
# and make install on the real root: its two depmod runs read every
# module of the kernel, 80 to 105 s each under TCG on 6.12 (measured
# 2026-12-03), and the steps are the same on every kernel; the DESTDIR
# install above and every other test's insmod cover this kernel's module
skipinst=
[ -n "${PERFREGS_MATRIX_FIRST:-}" ] &&
	skipinst="make install on the real root ran on $PERFREGS_MATRIX_FIRST (depmod takes minutes under TCG)"
if [ -n "$nodkms" ]; then
	for t in real_root_make_install real_root_dkms_install; do
		n=$((n + 1))
		echo "ok $n $t # SKIP $nodkms"
	done
	exit $failed
fi
# --- on a (writable copy of the) real root ---------------------------------
# The steps run in one shell inside the namespace; each prints "step: ok"
# or "step: FAILED ..." and the results are read back here.
real_root() {
	set -u
	modprobe overlay 2>/dev/null
	for d in /lib/modules /usr/local /usr/src /var/lib/dkms /etc; do
		mkdir -p "$T/ov$d/up" "$T/ov$d/work"
		mount -t overlay overlay -o "lowerdir=$d,upperdir=$T/ov$d/up,workdir=$T/ov$d/work" "$d" ||
			{ echo "setup: FAILED overlay on $d"; return; }
	done
	echo "setup: ok"
	lsmod | grep -q '^perfregs ' && rmmod perfregs
	# make install: the module under extra/, depmod, modprobe finds it
	if [ -n "$skipinst" ]; then
		echo "install: skip $skipinst"
	elif make -s install BUILD="$B" KVER="$K" >"$T/ri.log" 2>&1 &&
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
	# dkms install: builds for this kernel, installs, depmod; then remove
	if [ -n "$skipdkms" ]; then
		echo "dkms: skip $skipdkms"
	elif make -s dkms-install BUILD="$B" >"$T/rd.log" 2>&1 &&
	   dkms status perfregs 2>/dev/null | grep -q "installed" &&
	   case "$(modinfo -n perfregs 2>/dev/null)" in /lib/modules/"$K"/updates/dkms/perfregs.ko*) true ;; *) false ;; esac &&
	   modprobe perfregs && [ -c /dev/perfregs ] && modprobe -r perfregs &&
	   make -s dkms-uninstall BUILD="$B" >>"$T/rd.log" 2>&1 &&
	   ! modinfo perfregs >/dev/null 2>&1 && [ ! -e /usr/src/perfregs-1.0 ]; then
		echo "dkms: ok $(dkms --version 2>/dev/null)"
	else
		echo "dkms: FAILED $(tail -4 "$T/rd.log" | tr '\n' ' ') status=$(dkms status 2>&1 | tr '\n' ' ') modinfo=$(modinfo -n perfregs 2>&1)"
		modprobe -r perfregs 2>/dev/null
	fi
}
loaded=0
lsmod | grep -q '^perfregs ' && loaded=1
export -f real_root
export T B K skipdkms skipinst
unshare -m --propagation private bash -c real_root > "$T/real.log" 2>&1
[ $loaded = 1 ] && ! lsmod | grep -q '^perfregs ' && insmod "$B/kmod/$K/module/perfregs.ko"
setup=$(sed -n 's/^setup: //p' "$T/real.log")
for t in install dkms; do
	name=real_root_make_install
	[ $t = dkms ] && name=real_root_dkms_install
	line=$(sed -n "s/^$t: //p" "$T/real.log")
	case "$setup/$line" in
	ok/ok*)	res ok "$name" "${line#ok }" ;;
	ok/skip*) n=$((n + 1)); echo "ok $n $name # SKIP ${line#skip }" ;;
	ok/*)	res "not ok" "$name" "${line:-no result: $(tail -3 "$T/real.log" | tr '\n' ' ')}" ;;
	*)	res "not ok" "$name" "no writable root: $setup $(tail -3 "$T/real.log" | tr '\n' ' ')" ;;
	esac
done
rm -rf "$T"
exit $failed
