#!/bin/bash
# make demo's guest side (tools/demo_guest.py), on the first kernel of
# make check: the four magic-register workloads sampled and judged as a
# new user sees them.  It loads and unloads the module itself, so the
# suite's module goes out for it and comes back.  KTAP on stdout.
set -u
B=${PERFREGS_BUILD:-build}
echo "TAP version 13"
echo "1..1"
if [ -n "${PERFREGS_MATRIX_FIRST:-}" ]; then
	echo "ok 1 demo # SKIP make demo ran on $PERFREGS_MATRIX_FIRST; it boots one kernel"
	exit 0
fi
loaded=0
lsmod | grep -q '^perfregs ' && loaded=1 && rmmod perfregs
out=$(cd "$(dirname "$0")/.." && PERFREGS_BUILD=$B python3 tools/demo_guest.py "$B" 2>&1)
rc=$?
[ $loaded = 1 ] && insmod "${PERFREGS_KO:-$B/kmod/$(uname -r)/module/perfregs.ko}"
printf '%s\n' "$out" | grep -E '^(x86-64|i386|x32|mixed): ([0-9]+ of|not run)|^demo:' | sed 's/^/# /'
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^demo: .* every magic register right'; then
	echo "ok 1 demo"
else
	echo "not ok 1 demo: exit $rc"
	exit 1
fi
