#!/bin/bash
# make demo: boot one guest, load perfregs, and let perfregs-dump decode
# four live workloads that hold known values in their registers: x86-64,
# i386, x32 and a mixed-mode task (a 64-bit process in 32-bit code).  It
# prints one decoded sample of each side by side and, per layout, how many
# samples in the workload's loop had every magic register right; exit 1 if
# any layout got one wrong (tools/demo_guest.py does the guest's part).
# usage: tools/demo.sh [KVER]     (default 6.1; $BUILD: the build directory)
set -eu
cd "$(dirname "$0")/.."
k=${1:-6.1}
B=${BUILD:-$PWD/build}
# x32 programs run only with syscall.x32=y on Debian's kernels
exec tools/vm/run --kernel "$k" --append syscall.x32=y --timeout 300 \
	-- python3 tools/demo_guest.py "$B"
