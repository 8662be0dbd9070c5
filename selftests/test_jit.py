#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""JIT code named by its perf map (jitmap.c), against perf, in a guest.

node --perf-basic-prof runs a hot JS function for about SECS seconds
and writes /tmp/perf-PID.map ("START SIZE NAME" a line).  It is run
under

    perfregs-dump -q -f json -o REC -- node --perf-basic-prof hot.js

(cpu-clock, every 1 ms), and under Debian's perf record -e cpu-clock.
The hot function's entries are the map's lines whose name is hot's
(V8 writes one per tier: "JS:~hot", "JS:*hot" ..., older nodes
"LazyCompile:*hot"); a sample is "in hot" when its user IP lies in one of
them, whatever the tool says.  Criteria, each one KTAP result:

jit_live: of node's user-mode samples in hot (at least 50), printed while
  recording, at least 95% have as sym the name of an entry that holds
  their IP (the name up to its "+0x").
jit_recorded: the recording decoded with -i -F ip,sym,dso after the map
  file is moved away (so -i names them with the recording's lines): the
  same, and their dso is /tmp/perf-PID.map.
jit_perf: perf script -F pid,ip,sym,dso of perf's run of the same
  workload: of its samples in hot (at least 50), at least 95% are named
  by an entry that holds their IP, dso the map.  Skipped (with the
  reason) when perf cannot record here.

All three skipped when node is not installed.  Output is KTAP;
$PERFREGS_JIT_KEEP=DIR keeps every output in DIR.  Bounded: each run is
cut after its timeout (times $PERFREGS_TIMEOUT_SCALE), and fails then.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

BUILD = os.environ.get("PERFREGS_BUILD", "build")
TOOL = os.path.abspath(os.path.join(BUILD, "perfregs-dump"))	# run in TMP
TSCALE = float(os.environ.get("PERFREGS_TIMEOUT_SCALE", "1") or 1)
NODE = shutil.which("node") or "/usr/bin/node"
SECS = 3.0
MIN_SAMPLES = 50
SHARE = 95.0
PLAN = 3
KEEP = os.environ.get("PERFREGS_JIT_KEEP")
HOT_JS = """function hot(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + i * i) % 1000003;
  return s;
}
let t = 0;
const end = Date.now() + END_MS;
while (Date.now() < end) t += hot(20000);
console.log(t > 0 ? "done" : "none");
"""
# a name of the hot function's code: "JS:*hot", "LazyCompile:~hot /tmp/x/hot.js:1" ...
HOT_NAME = re.compile(r"(^|[:\s])[*~^+]?hot(\s|$)")
results = []
TMP = None


def report(ok, name, detail):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    print(f"# {name}: {detail}")
    sys.stdout.flush()


def skip(name, why):
    results.append(True)
    print(f"ok {len(results)} {name} # SKIP {why}")
    sys.stdout.flush()


def run(cmd, timeout, **kw):
    """(status, stdout, stderr); status "timeout" when cut after timeout s."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             errors="replace", start_new_session=True, cwd=TMP, **kw)
    except OSError as e:
        return f"not started ({e})", "", ""
    try:
        out, err = p.communicate(timeout=timeout * TSCALE)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return "timeout", out, err


def keep(tag, text):
    if KEEP:
        with open(os.path.join(TMP, tag), "w") as f:
            f.write(text)


def bare(sym):
    """a symbol without its +0xOFF"""
    return sym.rsplit("+0x", 1)[0] if "+0x" in sym else sym


def hot_entries(path):
    """The map's entries of hot: [(start, end, name)]"""
    hot = []
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) != 3:
                continue
            try:
                a, s = int(parts[0], 16), int(parts[1], 16)
            except ValueError:
                continue
            if HOT_NAME.search(parts[2]):
                hot.append((a, a + s, parts[2]))
    return hot


def names_at(hot, ip):
    return {e[2] for e in hot if e[0] <= ip < e[1]}


def share(rows, hot, want_dso=None):
    """rows: (ip, sym, dso); of those in hot, how many (all, named by it)"""
    n = good = 0
    for ip, sym, dso in rows:
        names = names_at(hot, ip)
        if not names:
            continue
        n += 1
        good += bare(sym) in names and (want_dso is None or dso == want_dso)
    return n, good


def verdict(name, n, good, note):
    pct = 100.0 * good / n if n else 0.0
    report(n >= MIN_SAMPLES and pct >= SHARE, name,
           f"{good}/{n} samples in hot named by it ({pct:.1f}%, want {SHARE}% of "
           f">= {MIN_SAMPLES}); {note}")


def perf_works(perf):
    data = os.path.join(TMP, "perf-probe.data")
    st, _, err = run([perf, "record", "-N", "-q", "-e", "cpu-clock", "-o", data, "--",
                      "/bin/true"], 60)
    if st != 0 or not os.path.exists(data):
        return f"perf record -e cpu-clock fails here: exit {st}, " \
               f"{err.strip().splitlines()[-1] if err.strip() else 'no message'}"
    return ""


def perfregs(js):
    rec = os.path.join(TMP, "jit.prf")
    st, out, err = run([TOOL, "-q", "-f", "json", "-o", rec, "--", NODE, "--perf-basic-prof",
                        js], 150)
    keep("jit.jsonl", out)
    samples = []
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "sample" and r.get("mode") == "user":
            samples.append(r)
    pids = sorted({r["pid"] for r in samples if os.path.exists(f"/tmp/perf-{r['pid']}.map")})
    note = f"exit {st}, {len(samples)} user-mode samples, stderr {err.strip()[-200:]!r}"
    if st != 0 or len(pids) != 1:
        report(False, "jit_live", f"{note}; node's maps: {pids}")
        report(False, "jit_recorded", "no run to decode")
        return
    pid = pids[0]
    mapf = f"/tmp/perf-{pid}.map"
    hot = hot_entries(mapf)
    rows = [(int(r["ip"], 16), r.get("sym", ""), None) for r in samples if r["pid"] == pid]
    n, good = share(rows, hot)
    verdict("jit_live", n, good, f"{note}; {len(hot)} entries of hot in {mapf}")
    # -i with the recording's lines only: the map moved away
    moved = os.path.join(TMP, os.path.basename(mapf))
    shutil.move(mapf, moved)
    st, out, err = run([TOOL, "script", "-q", "-i", rec, "--pid", str(pid), "-F",
                        "ip,sym,dso"], 150)
    keep("jit.script", out)
    rows = []
    for line in out.splitlines():
        m = re.match(r"ip 0x([0-9a-f]+)(?: \((.*?)\))?(?: \((.*)\))?$", line)
        if m:
            rows.append((int(m.group(1), 16), m.group(2) or "", m.group(3) or ""))
    n, good = share(rows, hot, mapf)
    verdict("jit_recorded", n, good, f"-i: exit {st}, {len(rows)} samples, map moved away, "
            f"dso {mapf}; stderr {err.strip()[-200:]!r}")


def perf_run(js):
    perf = shutil.which("perf")
    why = "perf is not installed" if not perf else perf_works(perf)
    if why:
        skip("jit_perf", why)
        return
    data = os.path.join(TMP, "jit.perf.data")
    st, _, err = run([perf, "record", "-q", "-e", "cpu-clock", "-c", "1000000", "-o", data,
                      "--", NODE, "--perf-basic-prof", js], 150)
    if st != 0:
        report(False, "jit_perf", f"perf record: exit {st}, {err.strip()[-200:]!r}")
        return
    st, out, err = run([perf, "script", "-i", data, "-F", "pid,ip,sym,dso"], 150)
    keep("jit.perf.txt", out)
    rows = {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+([0-9a-f]+)\s+(.*) \((/tmp/perf-\d+\.map)\)$", line)
        if m:
            rows.setdefault(int(m.group(1)), []).append((int(m.group(2), 16), m.group(3),
                                                         m.group(4)))
    if len(rows) != 1:
        report(False, "jit_perf", f"perf script: exit {st}, samples named from the maps of "
               f"{len(rows)} processes")
        return
    pid, prow = rows.popitem()
    mapf = f"/tmp/perf-{pid}.map"
    hot = hot_entries(mapf)
    n, good = share(prow, hot, mapf)
    verdict("jit_perf", n, good, f"perf script: {len(prow)} samples from {mapf}, "
            f"{len(hot)} entries of hot")
    os.unlink(mapf)


def main():
    global TMP
    if not os.path.exists("/dev/perfregs"):
        print("1..0 # SKIP perfregs is not loaded")
        return 4
    print("TAP version 13")
    print(f"1..{PLAN}")
    sys.stdout.flush()
    if not os.access(NODE, os.X_OK):
        for n in ("jit_live", "jit_recorded", "jit_perf"):
            skip(n, f"node is not installed ({NODE})")
        return 0
    TMP = tempfile.mkdtemp(prefix="jit.")
    before = set(os.listdir("/tmp"))
    try:
        js = os.path.join(TMP, "hot.js")
        with open(js, "w") as f:
            f.write(HOT_JS.replace("END_MS", str(int(SECS * 1000))))
        perfregs(js)
        perf_run(js)
    finally:
        if KEEP:
            shutil.copytree(TMP, KEEP, dirs_exist_ok=True)
        shutil.rmtree(TMP, ignore_errors=True)
        for f in set(os.listdir("/tmp")) - before:     # the maps node left
            if re.fullmatch(r"perf-\d+\.map", f):
                os.unlink(os.path.join("/tmp", f))
    if len(results) != PLAN:
        print(f"not ok {len(results) + 1} jit_plan")
        print(f"# jit_plan: {len(results)} results for a plan of {PLAN}")
        return 1
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
