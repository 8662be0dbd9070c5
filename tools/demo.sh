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
$B/perfregs-dump -q -o /tmp/demo.txt -- $B/selftests/magic_64 2 > /tmp/work.txt
cat /tmp/work.txt
lo=$(sed -n "s/.*loop=\(0x[0-9a-f]*\)-.*/\1/p" /tmp/work.txt)
hi=$(sed -n "s/.*loop=0x[0-9a-f]*-\(0x[0-9a-f]*\).*/\1/p" /tmp/work.txt)
echo "== three decoded samples of magic_64 (rbx rbp r12-r15 hold Mrbx.. / c0de00NN):"
grep -A6 -E "^ +magic_64 .* user abi x86_64" /tmp/demo.txt | head -21
echo "== checking every sample inside the loop [$lo, $hi):"
$B/perfregs-dump -q -f json -o /tmp/demo.json -- $B/selftests/magic_64 2 > /tmp/work.txt
python3 - /tmp/demo.json /tmp/work.txt <<PY
import json, re, sys
lo, hi = (int(x, 16) for x in re.search(r"loop=(0x[0-9a-f]+)-(0x[0-9a-f]+)", open(sys.argv[2]).read()).groups())
want = {"rbx": 0x4d726278c0de0003, "rbp": 0x4d726270c0de0006, "r12": 0x4d723132c0de000c,
        "r13": 0x4d723133c0de000d, "r14": 0x4d723134c0de000e, "r15": 0x4d723135c0de000f}
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
