#!/bin/bash
# Runs inside the guest (bench/guest.sh calls it): recordings with user
# stacks of a real program for the unwinding comparison on the host.
# Debian's /usr/bin/xz (liblzma, libc, ld.so: shared libraries nobody
# here wrote) compresses generated text, recorded by perf and by
# perfregs with the same event, period, stack size and buffer size.
# The host then times perf script / perf report against perfregs-dump
# on these files (bench/run, "unwind throughput").
#
# usage: bench/guest_unwind.sh OUT REPS   (perfregs.ko loaded)
set -u
OUT=$1 REPS=$2
B=${B:-build}
PERF=${PERF:-$(ls /usr/bin/perf_* 2>/dev/null | sort -V | tail -1)}
PERF=${PERF:-/usr/bin/perf}
raw=${RAW:-$OUT/raw-unwind.txt}
XZ=/usr/bin/xz
STACK=8192
PERIOD=250000
ON_T=${ON_T:-taskset -c 0}
ON_W=${ON_W:-taskset -c $(( $(nproc) - 1 ))}

if [ ! -x $XZ ]; then
	echo "unwind error=no_xz" >> "$raw"
	exit 0
fi
D=/tmp/perfregs-unwind
mkdir -p $D
# 512 KiB of text from a fixed seed: the same input every run
python3 - "$D/xz.in" <<'EOF'
import random, sys
rnd = random.Random(21)
words = ["".join(rnd.choice("etaoinshrdlucmfwypvbgkqjxz")
                 for _ in range(rnd.randint(2, 9))) for _ in range(3000)]
out, size = [], 0
while size < 512 * 1024:
    line = " ".join(rnd.choice(words) for _ in range(rnd.randint(4, 14))) + "\n"
    out.append(line)
    size += len(line)
open(sys.argv[1], "w").write("".join(out)[:512 * 1024])
EOF
LOOP="for i in \$(seq $REPS); do $XZ -T1 -6 -c $D/xz.in > $D/xz.out || exit 1; done"

t0=$(date +%s%N)
$ON_T $PERF record -q -e cpu-clock -c $PERIOD --call-graph dwarf,$STACK -m 256 \
	-o "$OUT/unwind-perf.data" -- $ON_W sh -c "$LOOP" > /dev/null 2>&1
echo "unwind tool=perf status=$? ns=$(( $(date +%s%N) - t0 ))" >> "$raw"
t0=$(date +%s%N)
$ON_T $B/perfregs-dump -q -e cpu-clock -c $PERIOD --call-graph dwarf,$STACK -m 256 \
	-o "$OUT/unwind-ours.prf" -- $ON_W sh -c "$LOOP" > /dev/null
echo "unwind tool=ours status=$? ns=$(( $(date +%s%N) - t0 ))" >> "$raw"
echo "unwind stack=$STACK period=$PERIOD reps=$REPS" >> "$raw"
