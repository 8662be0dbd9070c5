#!/bin/bash
# make demo: boot a guest, load perfregs, and let perfregs-dump decode a
# live workload that holds magic values in rbx, rbp and r12-r15.
# usage: tools/demo.sh [KVER]
set -eu
cd "$(dirname "$0")/.."
k=${1:-6.1}
exec tools/vm/run --kernel "$k" -v -- bash -c '
set -e
B=build
insmod $B/kmod/$(uname -r)/module/perfregs.ko
echo "== perfregs loaded on $(uname -r); sampling magic_64 for 2 s at 1 kHz (cpu-clock)"
$B/perfregs-dump -q -- sh -c "exec $B/selftests/magic_64 2 > /tmp/work.txt" > /tmp/demo.txt
cat /tmp/work.txt
lo=$(sed -n "s/.*loop=\(0x[0-9a-f]*\)-.*/\1/p" /tmp/work.txt)
hi=$(sed -n "s/.*loop=0x[0-9a-f]*-\(0x[0-9a-f]*\).*/\1/p" /tmp/work.txt)
echo "== three decoded samples inside its spin loop (rbx rbp r12-r15 hold Mrbx.. / c0de00NN):"
grep -A8 -E "^ +magic_64 .*magic_loop_start.* user abi x86_64" /tmp/demo.txt | head -27
echo "== checking every sample inside the loop [$lo, $hi):"
$B/perfregs-dump -q -f json -- sh -c "exec $B/selftests/magic_64 2 > /tmp/work.txt" > /tmp/demo.json
python3 - /tmp/demo.json /tmp/work.txt selftests/magic.h <<PY
import json, re, sys
lo, hi = (int(x, 16) for x in re.search(r"loop=(0x[0-9a-f]+)-(0x[0-9a-f]+)", open(sys.argv[2]).read()).groups())
want = {m.group(1).lower(): int(m.group(2), 16) for m in
        re.finditer(r"MAGIC64_(\w+)\s+(0x[0-9a-f]+)", open(sys.argv[3]).read())}
n = good = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["type"] == "summary":
        print("summary:", line.strip())
    if r["type"] != "sample" or "rip" not in r["uregs"]:
        continue
    if lo <= int(r["uregs"]["rip"], 16) < hi:
        n += 1
        good += all(int(r["uregs"].get(k, "0x0"), 16) == v for k, v in want.items())
print(f"{n} samples inside the loop, {good} with every magic register right")
sys.exit(0 if n and good == n else 1)
PY
rmmod perfregs
'
