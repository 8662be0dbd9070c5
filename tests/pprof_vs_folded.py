#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""convert --to pprof, read back by go tool pprof (Debian's Go): live
processes stopped in read() (tests/mksnap), several of each program and
some of them twice, make one recording; go tool pprof -raw of its
profile must show the stacks and counts that -f folded --call-graph
dwarf gives for it, frame by frame and named alike, with samples/count
and cpu/nanoseconds (count x the recording's period), the labels pid,
tid, comm and abi of each process, and mappings that carry the
build-ids readelf -n gives for the files they name.  mkrec's synthetic
recording (kernel-mode samples, x32 and mixed-mode tasks, no stacks)
must agree the same way, its kernel frames in [kernel.kallsyms].
usage: pprof_vs_folded.py BUILD GCC_PIE LLD_PIE M32_PIE  (each blocks in read(0))
Prints one KTAP line; exit 1 on failure."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

B, progs = sys.argv[1], sys.argv[2:]
TOOL = os.path.join(B, "perfregs-dump")
WHAT = ("convert --to pprof: go tool pprof shows folded's stacks and counts, "
        "samples/count and cpu/nanoseconds, pid/tid/comm/abi labels, readelf's build-ids")
# processes per program, and which of them are snapshotted twice
COPIES = (3, 2, 2)
ABIS = ("x86_64", "x86_64", "i386")


def fail(why):
    print(f"not ok - {WHAT}: {why}")
    sys.exit(1)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def build_id(path):
    m = re.search(r"Build ID: ([0-9a-f]+)", run(["readelf", "-n", path]).stdout)
    return m.group(1) if m else ""


def parse_raw(text):
    """go tool pprof -raw: its sample types, period, samples, locations, mappings"""
    prof = {"types": None, "period": None, "ptype": None, "samples": [], "locs": {},
            "maps": {}}
    part = None
    for line in text.splitlines():
        if line.startswith("PeriodType: "):
            prof["ptype"] = line.split(" ", 1)[1]
        elif line.startswith("Period: "):
            prof["period"] = int(line.split()[1])
        elif line in ("Samples:", "Locations", "Mappings"):
            part = line
        elif part == "Samples:" and prof["types"] is None:
            prof["types"] = line.split()
        elif part == "Samples:":
            m = re.match(r"\s+([-\d ]+): ([\d ]*)$", line)
            if m:
                prof["samples"].append({"values": [int(v) for v in m.group(1).split()],
                                        "locs": [int(v) for v in m.group(2).split()],
                                        "labels": {}})
                continue
            # labels: "abi:[x86_64] comm:[cv_gcc]", "pid:[15574] tid:[15574]"
            for k, v in re.findall(r"(\w+):\[([^\]]*)\]", line):
                prof["samples"][-1]["labels"][k] = v
        elif part == "Locations":
            m = re.match(r"\s*(\d+): (0x[0-9a-f]+) (?:M=(\d+) )?(.*)$", line)
            if m:
                name = None
                if m.group(4):	# "name file:line s=N"
                    name = m.group(4).rsplit(" s=", 1)[0].rsplit(" ", 1)[0]
                prof["locs"][int(m.group(1))] = (int(m.group(2), 16),
                                                 int(m.group(3) or 0), name)
        elif part == "Mappings":
            m = re.match(r"(\d+): (0x[0-9a-f]+)/(0x[0-9a-f]+)/(0x[0-9a-f]+) (\S*) ?(\S*)", line)
            if m:
                prof["maps"][int(m.group(1))] = (m.group(5), m.group(6))
    return prof


def compare(rec, bad, what):
    """the recording's folded stacks against its pprof profile; the profile"""
    pb = rec + ".pb.gz"
    fo = run([TOOL, "-q", "-f", "folded", "--call-graph", "dwarf", "-i", rec])
    if fo.returncode or not fo.stdout:
        bad.append(f"{what}: folded exit {fo.returncode}: {fo.stderr.strip()}")
        return None
    cv = run([TOOL, "convert", "-q", "--to", "pprof", "-i", rec, "-o", pb])
    if cv.returncode:
        bad.append(f"{what}: convert exit {cv.returncode}: {cv.stderr.strip()}")
        return None
    # what the file says, not what pprof could add from the files it finds
    env = dict(os.environ, HOME=os.environ.get("HOME", D), PPROF_TMPDIR=D)
    pp = run(["go", "tool", "pprof", "-symbolize=none", "-raw", pb], env=env)
    if pp.returncode:
        bad.append(f"{what}: go tool pprof exit {pp.returncode}: {pp.stderr.strip()[:300]}")
        return None
    prof = parse_raw(pp.stdout)
    v = run([TOOL, "-v", "-q", "--summary", "-i", rec]).stderr
    m = re.search(r"event (\S+), period (\d+)", v)
    event, period = (m.group(1), int(m.group(2))) if m else ("?", 0)
    if event in ("cpu-clock", "task-clock"):
        if prof["types"] != ["samples/count", "cpu/nanoseconds"]:
            bad.append(f"{what}: sample types {prof['types']}")
        if prof["ptype"] != "cpu nanoseconds" or prof["period"] != period:
            bad.append(f"{what}: period {prof['ptype']} {prof['period']}, recorded {period}")
    want = {}
    for line in fo.stdout.splitlines():
        stack, n = line.rsplit(" ", 1)
        want[stack] = want.get(stack, 0) + int(n)
    got = {}
    for s in prof["samples"]:
        if len(s["values"]) != len(prof["types"] or []) or \
           (len(s["values"]) == 2 and s["values"][1] != s["values"][0] * period):
            bad.append(f"{what}: values {s['values']}, period {period}")
        abi = s["labels"].get("abi")
        frames = []
        for lid in s["locs"]:
            addr, mid, name = prof["locs"][lid]
            mfile = prof["maps"].get(mid, ("", ""))[0]
            if name is None:	# folded's name of an unnamed frame
                base = os.path.basename(mfile)
                name = f"[{base}]" if base and not mfile.startswith("[") else "[unknown]"
            # folded's marks: kernel frames, and code run in 32-bit mode
            name += "_[k]" if mfile == "[kernel.kallsyms]" else "_[i386]" if abi == "i386" else ""
            frames.append(name)
        stack = ";".join([s["labels"].get("comm", "[unknown]")] + frames[::-1])
        got[stack] = got.get(stack, 0) + s["values"][0]
    if got != want:
        diff = [f"folded {k!r} {want.get(k)} pprof {got.get(k)}"
                for k in sorted(set(got) | set(want)) if got.get(k) != want.get(k)]
        bad.append(f"{what}: " + "; ".join(diff))
    # every mapping of a file here carries the file's own build-id
    prof["bids"] = 0
    for mfile, bid in prof["maps"].values():
        if mfile.startswith("/") and os.path.exists(mfile):
            prof["bids"] += 1
            if bid != build_id(mfile):
                bad.append(f"{what}: mapping {mfile} build-id {bid!r}, "
                           f"readelf {build_id(mfile)!r}")
    prof["want"] = want
    return prof


D = tempfile.mkdtemp()
bad = []
procs = []			# (Popen, program index)
for i, p in enumerate(progs):
    procs += [(subprocess.Popen([p], stdin=subprocess.PIPE, stdout=subprocess.PIPE), i)
              for _ in range(COPIES[i])]
for p, _ in procs:
    p.stdout.readline()		# it printed its address: in main, about to read
time.sleep(0.2)			# and now blocked in read()
# each process once, and the first of each program's twice: a count of 2
firsts = [next(p for p, j in procs if j == i) for i in range(len(progs))]
snaps = [p.pid for p, _ in procs] + [p.pid for p in firsts]
rec = os.path.join(D, "s.prf")
snap = run([os.path.join(B, "mksnap"), rec, "8192"] + [str(pid) for pid in snaps])
for p, _ in procs:
    p.stdin.close()
    p.wait()
if snap.returncode:
    fail(f"mksnap: {snap.stderr.strip()}")

prof = compare(rec, bad, "live")
if prof:
    seen = {}
    for s in prof["samples"]:
        lab = s["labels"]
        seen[int(lab.get("pid", 0))] = seen.get(int(lab.get("pid", 0)), 0) + s["values"][0]
        who = [i for p, i in procs if str(p.pid) == lab.get("pid")]
        if not who:
            bad.append(f"sample of no process of ours: {lab}")
            continue
        i = who[0]
        if lab.get("tid") != lab.get("pid") or \
           lab.get("comm") != os.path.basename(progs[i])[:15] or lab.get("abi") != ABIS[i]:
            bad.append(f"labels of {progs[i]}: {lab}")
    if seen != {pid: snaps.count(pid) for pid in snaps}:
        bad.append(f"samples per pid {seen}, snapshots {snaps}")
    if len(prof["want"]) != len(progs) or not all(
            "main" in [f.split("_[")[0] for f in k.split(";")[1:]] for k in prof["want"]):
        bad.append(f"folded stacks {sorted(prof['want'])}")
    files = {f: b for f, b in prof["maps"].values()}
    for p in progs:
        if not build_id(p) or files.get(p) != build_id(p):
            bad.append(f"no mapping of {p} with build-id {build_id(p)!r}: {files.get(p)!r}")

syn = os.path.join(D, "syn.prf")
mk = run([os.path.join(B, "mkrec"), syn, "25"])
sprof = compare(syn, bad, "mkrec") if not mk.returncode else bad.append("mkrec failed")
if sprof:
    abis = {s["labels"].get("abi") for s in sprof["samples"]}
    kmaps = [b for f, b in sprof["maps"].values() if f == "[kernel.kallsyms]"]
    if abis != {"x86_64", "i386", "x32"}:
        bad.append(f"mkrec: abi labels {abis}")
    if not any("_[k]" in k for k in sprof["want"]) or \
       len(kmaps) != 1 or not re.fullmatch(r"[0-9a-f]{40}", kmaps[0]):
        bad.append(f"mkrec: kernel mappings {kmaps}")
shutil.rmtree(D)
if bad:
    fail("; ".join(bad)[:1500])
shape = ", ".join(f"{k.count(';')} frames x{n}" for k, n in sorted(prof["want"].items()))
print(f"ok - {WHAT}: {len(snaps)} snapshots of {len(procs)} processes, stacks of {shape}; "
      f"{prof['bids']} files' build-ids; mkrec's {sum(sprof['want'].values())} samples "
      f"in {len(sprof['want'])} stacks")
