# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): kernel call
# chains (ABI minor 2, PERFREGS_SF_KCHAIN) in every output, against
# perf; hostile chain sections; the rule for sections of a newer module;
# --kernel-callchain.

# mkkchain's recordings, decoded (tests/kchain_check.py: eight lines)
if [ -x "$B/mkkchain" ]; then
	/usr/bin/python3 tests/kchain_check.py "$B" "$T"
else
	echo "not ok - kernel call chains: no $B/mkkchain (make host-tests)"
fi
