#!/bin/bash
# Kernel lockdown (LOCKDOWN_PERF) forbids kernel registers: a session
# that may record them is refused with EPERM, a user-mode one is not.
# Lockdown cannot be lifted once raised, so this runs in a guest of its
# own, last (tools/check.sh): load the module, raise lockdown, try both.
# KTAP lines; usage: selftests/lockdown.sh [BUILD_DIR]
set -u
B=${1:-build}
echo "TAP version 13"
echo "# lockdown on $(uname -r)"
mountpoint -q /sys/kernel/security || mount -t securityfs securityfs /sys/kernel/security 2>/dev/null
if [ ! -w /sys/kernel/security/lockdown ]; then
	echo "ok - lockdown refuses kernel registers # SKIP no lockdown LSM in this kernel"
	exit 0
fi
insmod "$B/kmod/$(uname -r)/module/perfregs.ko" || { echo "not ok - insmod"; exit 1; }
if ! echo confidentiality > /sys/kernel/security/lockdown; then
	echo "ok - lockdown refuses kernel registers # SKIP cannot raise lockdown"
	exit 0
fi
echo "# lockdown: $(cat /sys/kernel/security/lockdown)"
out=$("$B/perfregs-dump" -q --summary -d 1 -e cpu-clock -a 2>&1)
rc=$?
if [ $rc -eq 2 ] && printf '%s' "$out" | grep -q "lockdown"; then
	echo "ok - lockdown refuses a session with kernel registers (exit 2, says why)"
else
	echo "not ok - lockdown refuses a session with kernel registers: exit $rc"
	printf '%s\n' "$out" | sed 's/^/# /' | head -5
fi
out=$("$B/perfregs-dump" -q --summary -d 1 -e cpu-clock:u -a 2>&1)
rc=$?
if [ $rc -eq 0 ]; then
	echo "ok - lockdown still allows a user-mode session"
else
	echo "not ok - lockdown still allows a user-mode session: exit $rc"
	printf '%s\n' "$out" | sed 's/^/# /' | head -5
fi
rmmod perfregs && echo "ok - rmmod under lockdown" || echo "not ok - rmmod under lockdown"
