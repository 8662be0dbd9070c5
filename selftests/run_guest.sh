#!/bin/bash
# Run the perfregs selftests inside a guest (tools/vm/run starts it):
# load the module built for the running kernel, run every test binary
# and test script, check the kernel log after every single test (at each
# result line a test program prints), unload the module.
#
# Output is KTAP: each test program prints its own plan and results;
# the lines this script adds for its own checks are "ok - ..." and
# "not ok - ...".  usage: selftests/run_guest.sh [BUILD_DIR [FIRST_KVER]]
# FIRST_KVER: make check ran the whole suite on that kernel already;
# tests whose coverage does not depend on the kernel (dkms building the
# module in the guest) say so and skip (PERFREGS_MATRIX_FIRST).
# ("Call Trace" alone is no failure: sysrq-l backtraces print them.)
set -u
B=${1:-build}
KVER=$(uname -r)
export PERFREGS_KO="$B/kmod/$KVER/module/perfregs.ko"
export PERFREGS_BUILD="$B"
export PATH="$B:$PATH"
[ -n "${2:-}" ] && [ "$2" != "$KVER" ] && export PERFREGS_MATRIX_FIRST="$2"
. "$(dirname "$0")/klog.sh"	# BAD, klog_bad, klog_kernel_races

echo "TAP version 13"
echo "# perfregs selftests on $KVER"
# KVM, as udev loads it at boot on a machine with SVM or VMX (test_xregs
# samples a task in KVM_RUN; it skips with the reason where it cannot)
modprobe -q kvm_amd 2>/dev/null || modprobe -q kvm_intel 2>/dev/null
echo "# /dev/kvm: $([ -e /dev/kvm ] && echo yes || echo "no ($(dmesg | grep -m1 -oE 'kvm[_a-z]*: .*(support|requires)[^.]*'))")"
if insmod "$PERFREGS_KO"; then
	echo "ok - insmod $PERFREGS_KO"
else
	echo "not ok - insmod $PERFREGS_KO"
	exit 1
fi

# PERFREGS_LOAD_VCPU (tools/flaky.py --load vcpu): a busy loop on the
# last vCPU for the whole run, as another program would keep it busy
load_pid=
if [ -n "${PERFREGS_LOAD_VCPU:-}" ]; then
	taskset -c "$(($(nproc) - 1))" sh -c 'while :; do :; done' &
	load_pid=$!
	echo "# a busy loop on CPU $(($(nproc) - 1)) for the whole run (PERFREGS_LOAD_VCPU)"
fi

# The kernel log as it is written, into a file (kmsg_follow.py): every
# record is seen, and a record overwritten before it was read is a
# line that fails the check.  (A bookmark that counted dmesg's lines
# stopped moving once the printk buffer was full, which the host's
# unclaimed NMIs fill within minutes: two lines each, 40 a second, 800
# during test_entry; a WARNING after that went unseen.)  klog_sync
# writes a marker into the log and waits until the copy has it, so
# that the copy holds all that was logged before it: a deadline in
# seconds, the marker written again every 2 s (the first one may come
# before the copier has opened /dev/kmsg, and was never seen: 200 s of
# a loop bounded by its turns), read from KLOG.sync by the shell itself
# (not a grep of the whole copy at each turn, slow under emulation with
# the tests' spinners on both vCPUs).  The copier runs at nice -10:
# light, and not starved by them.
KLOG=$(mktemp /tmp/perfregs-klog.XXXXXX)
nice -n -10 "$(dirname "$0")/kmsg_follow.py" "$KLOG" &
klog_pid=$!
klog_mark=0 klog_seq=0
klog_sync() {
	local s='' end=$((SECONDS + 60)) next=0
	klog_seq=$((klog_seq + 1))
	while [ "$SECONDS" -lt "$end" ]; do
		if [ "$SECONDS" -ge "$next" ]; then
			echo "perfregs-klog-sync $klog_seq" > /dev/kmsg
			next=$((SECONDS + 2))
		fi
		read -r s 2>/dev/null < "$KLOG.sync"
		[ "$s" = "$klog_seq" ] && return 0
		sleep 0.02
	done
	echo "perfregs-klog: the kernel log copy did not catch up in 60 s" >> "$KLOG"
}
klog_sync	# the copier is up
# Is the kernel log clean since the last look?  Prints what is not.
klog_clean() {
	local new first lines
	klog_sync
	lines=$(wc -l < "$KLOG")	# complete lines only
	new=$(head -n "$lines" "$KLOG" | tail -n +"$((klog_mark + 1))")
	klog_mark=$lines
	printf '%s\n' "$new" | klog_kernel_races | sed 's/^/# the kernel'"'"'s own race, not perfregs'"'"': /'
	first=$(printf '%s\n' "$new" | klog_bad | head -n1)
	if [ -n "$first" ]; then
		# 60 lines from just before the first bad one: the report and
		# its trace, not what came before it (a fuzzer's segfaults)
		printf '%s\n' "$new" | awk -v first="$first" '
			{ l[NR] = $0 }
			!f && $0 == first { f = NR }
			END { s = f > 5 ? f - 5 : 1
			      for (i = s; i < s + 60 && i <= NR; i++) print "# dmesg: " l[i] }'
		return 1
	fi
	return 0
}
check_klog() {
	if klog_clean; then
		echo "ok - kernel log clean after $1"
	else
		echo "not ok - kernel log clean after $1"
	fi
}

for t in "$B"/selftests/test_* selftests/test_*.py selftests/test_*.sh; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	# PERFREGS_SUITE_ONLY: these tests only, the others skipped with
	# PERFREGS_SUITE_WHY (run_debug.sh on the KMSAN kernel)
	if [ -n "${PERFREGS_SUITE_ONLY:-}" ] && [[ " $PERFREGS_SUITE_ONLY " != *" $name "* ]]; then
		echo "ok - $name # SKIP ${PERFREGS_SUITE_WHY:-not in PERFREGS_SUITE_ONLY}"
		continue
	fi
	echo "# ---- $name"
	t0=$SECONDS
	# the loop runs in this shell (klog_mark moves on); $! is the test
	while IFS= read -r line; do
		printf '%s\n' "$line"
		case "$line" in
		"ok "*|"not ok "*)
			klog_clean || echo "not ok - kernel log clean after $name: ${line#* * }"
			;;
		esac
	done < <("$t" 2>&1)
	wait $!
	rc=$?
	# 0 pass, 1 fail, 4 skip: the harness reports those itself.
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 1 ] && [ "$rc" -ne 4 ]; then
		echo "not ok - $name ended abnormally (status $rc)"
	fi
	check_klog "$name"
	echo "# $name took $((SECONDS - t0)) s"
done

[ -n "$load_pid" ] && kill "$load_pid"
lsmod | grep -q '^perfregs ' || insmod "$PERFREGS_KO"
if rmmod perfregs; then
	echo "ok - rmmod perfregs at the end"
else
	echo "not ok - rmmod perfregs at the end"
fi
check_klog "rmmod"
kill "$klog_pid" 2>/dev/null
rm -f "$KLOG" "$KLOG.sync"
