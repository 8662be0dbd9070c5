#!/bin/bash
# DKMS on the host, natively, in trees of its own: make dkms-install's
# sources (DESTDIR: copied only), then Debian's dkms builds and installs
# them for a kernel of the matrix with dkms.conf's rules, and removes
# them again, without touching the system's /var/lib/dkms, /usr/src or
# /lib/modules (--dkmstree, --sourcetree, --installtree, --no-depmod).
# The module it built is kept in BUILD/dkms/built/KVER/perfregs.ko: the
# guest's test_install.sh loads it.  (dkms compiling in the guest took
# three minutes under TCG; the compiler and the headers are the same
# here, and the module's load is what the guest checks.)
# KTAP lines.  usage: tests/dkms_check.sh BUILD_DIR
set -u
B=$(realpath -m "${1:-build}")
D=$B/dkms
what="dkms builds, installs and removes the module for"
if ! command -v dkms >/dev/null; then
	echo "ok - $what the matrix's first kernel # SKIP dkms is not installed (make deps)"
	exit 0
fi
K=$(tools/kvers.sh | head -n1)
if [ -z "$K" ]; then
	echo "ok - $what the matrix's first kernel # SKIP no kernel headers (make deps)"
	exit 0
fi
rm -rf "$D/root" "$D/tree" "$D/inst" "$D/built/$K"
mkdir -p "$D/tree" "$D/inst/$K" "$D/built/$K"
trees=(--dkmstree "$D/tree" --sourcetree "$D/root/usr/src" --installtree "$D/inst" --no-depmod)
bad=""
log=$D/dkms.log
ko=$D/inst/$K/updates/dkms/perfregs.ko
if ! make -s dkms-install DESTDIR="$D/root" > "$log" 2>&1; then
	bad="$bad [make dkms-install DESTDIR: $(tail -2 "$log" | tr '\n' ' ')]"
elif ! dkms install -m perfregs -v 1.0 -k "$K" "${trees[@]}" >> "$log" 2>&1; then
	bad="$bad [dkms install: $(tail -3 "$log" | tr '\n' ' ')]"
elif ! dkms status -m perfregs "${trees[@]}" 2>/dev/null | grep -q "$K.*: installed"; then
	bad="$bad [dkms status: $(dkms status "${trees[@]}" 2>&1 | tr '\n' ' ')]"
elif [ ! -f "$ko" ]; then
	bad="$bad [no $ko]"
elif [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$K" ]; then
	bad="$bad [vermagic $(modinfo -F vermagic "$ko"), not for $K]"
else
	cp "$ko" "$D/built/$K/perfregs.ko"
	if ! dkms remove -m perfregs -v 1.0 -k "$K" "${trees[@]}" >> "$log" 2>&1 ||
	   [ -e "$ko" ] ||
	   ! make -s dkms-uninstall DESTDIR="$D/root" >> "$log" 2>&1 ||
	   [ -e "$D/root/usr/src/perfregs-1.0" ]; then
		bad="$bad [removal left: $(find "$D/inst" "$D/root" -type f | head -3 | tr '\n' ' ')]"
	fi
fi
if [ -z "$bad" ]; then
	echo "ok - $what $K, in trees of its own; kept for the guest to load"
else
	echo "not ok - $what $K:$bad"
	rm -f "$D/built/$K/perfregs.ko"
	exit 1
fi
