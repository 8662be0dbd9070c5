# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): frame-pointer
# user call chains (ABI minor 3, PERFREGS_SF_UCHAIN), the leaf unwound
# by its CFI up to the chain, in script, folded and through convert in
# perf script; hostile chain sections.

# a frame-pointer program stopped in read(), -m64 and -m32 (tests/uchain_check.py: eleven lines)
if [ -x "$B/mksnap" ]; then
	/usr/bin/python3 tests/uchain_check.py "$B" "$T"
else
	echo "not ok - user call chains: no $B/mksnap (make host-tests)"
fi
