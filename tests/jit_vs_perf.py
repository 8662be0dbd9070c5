#!/usr/bin/env python3
"""JIT code named by its perf map, perfregs against perf (jitmap.c).

node --perf-basic-prof runs a hot JS function under perf record -e
cpu-clock (a software event: no PMU needed); perf script names its
samples from /tmp/perf-PID.map.  The same IPs, in a recording mkjit
makes of that map (the map's lines in an ITEM_JITMAP, as record writes
them), are named by perfregs-dump script -i.  Of the samples whose IP
lies in the map's entries for the hot function, at least 95% must be
named by it, by perf and by perfregs; and perfregs must name every map
IP as perf does, 95% at least.  KTAP lines; a skip when node or perf
cannot run here.

usage: jit_vs_perf.py BUILD TMPDIR"""
import os
import re
import shutil
import subprocess
import sys

HOT_JS = """function hot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
let t = 0; const end = Date.now() + 1500;
while (Date.now() < end) t += hot(100000);
console.log(t > 0 ? "done" : "none");
"""
WHAT = "node --perf-basic-prof: perfregs names the hot JS function's samples from its perf map as perf does"
HOT = re.compile(r"^\S*[*~^]?hot( |$)|:[*~^]?hot( |$)")


def bare(sym):
    """a name without its +0xOFF"""
    return sym.rsplit("+0x", 1)[0] if "+0x" in sym else sym


def main():
    build, tmp = sys.argv[1], sys.argv[2]
    node = shutil.which("node") or "/usr/bin/node"
    if not os.access(node, os.X_OK) or not shutil.which("perf"):
        print(f"ok - {WHAT} # SKIP no node or no perf")
        return 0
    js = os.path.join(tmp, "hot.js")
    with open(js, "w") as f:
        f.write(HOT_JS)
    data = os.path.join(tmp, "jit.data")
    r = subprocess.run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "100000", "-o", data,
                        "--", node, "--perf-basic-prof", js],
                       capture_output=True, text=True, timeout=120, cwd=tmp)
    if r.returncode:
        print(f"ok - {WHAT} # SKIP perf record cannot sample here: {r.stderr.strip()[:100]}")
        return 0
    out = subprocess.run(["perf", "script", "-i", data, "-F", "pid,ip,sym,dso"],
                         capture_output=True, text=True, timeout=120).stdout
    samples = []        # (pid, ip, perf's name) of the map's samples
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+([0-9a-f]+)\s+(.*) \((/tmp/perf-\d+\.map)\)$", line)
        if m:
            samples.append((int(m.group(1)), int(m.group(2), 16), m.group(3)))
    pids = {p for p, _, _ in samples}
    if len(pids) != 1:
        print(f"not ok - {WHAT}: perf named {len(samples)} samples from maps of {len(pids)} processes")
        return 1
    pid = pids.pop()
    mapf = f"/tmp/perf-{pid}.map"
    try:
        hot = []        # the map's entries of the hot function
        with open(mapf, errors="replace") as f:
            for line in f:
                a, s, name = line.rstrip("\n").split(" ", 2)
                if HOT.search(name):
                    hot.append((int(a, 16), int(a, 16) + int(s, 16), name))
        rec = os.path.join(tmp, "jit_perf.prf")
        ips = [ip for _, ip, _ in samples]
        subprocess.run([os.path.join(build, "mkjit"), rec, str(pid), "--map", mapf, str(pid)] +
                       [format(ip, "x") for ip in ips], check=True, capture_output=True,
                       timeout=120)
    finally:
        os.unlink(mapf)         # -i reads the recording's lines, not the file
    ours = subprocess.run([os.path.join(build, "perfregs-dump"), "script", "-q", "-i", rec,
                           "-F", "ip,sym,dso"], capture_output=True, text=True,
                          timeout=120).stdout.splitlines()
    named = []
    for line in ours:
        m = re.match(r"ip 0x([0-9a-f]+) \((.*)\) \((.*)\)$", line)
        named.append((int(m.group(1), 16), bare(m.group(2)), m.group(3)) if m else None)
    if len(named) != len(samples):
        print(f"not ok - {WHAT}: {len(named)} samples decoded of {len(samples)}")
        return 1
    in_hot = same = hot_perf = hot_ours = 0
    for (pid_, ip, psym), o in zip(samples, named):
        entry = [e for e in hot if e[0] <= ip < e[1]]
        if o and bare(psym) == o[1] and o[2] == f"/tmp/perf-{pid}.map":
            same += 1
        if not entry:
            continue
        in_hot += 1
        names = {e[2] for e in entry}
        hot_perf += bare(psym) in names
        hot_ours += bool(o) and o[1] in names
    print(f"# {len(samples)} samples in the map, {in_hot} in the hot function's {len(hot)} "
          f"entries: perf names {hot_perf}, perfregs {hot_ours}; perfregs as perf: {same}")
    ok = in_hot >= 100 and hot_ours >= 0.95 * in_hot and hot_perf >= 0.95 * in_hot and \
        same >= 0.95 * len(samples)
    print(f"{'ok' if ok else 'not ok'} - {WHAT}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
