#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""convert, checked by perf itself: live processes stopped in read()
(tests/mksnap: their registers and stack, their maps from /proc) give a
recording; its perf.data must show perf script the same call chains
perfregs-dump unwinds, frame by frame (the file and the address in it, as
perf prints them: ip - start + pgoff of the mapping), each reaching main,
and perf report -g must show them too; perf script --header-only must
list none of the features the recording holds as missing.
usage: convert_vs_perf.py BUILD PROG...   (each PROG blocks in read(0))
Prints one KTAP line; exit 1 on failure."""
import json
import os
import re
import subprocess
import sys
import shutil
import tempfile
import time

B, progs = sys.argv[1], sys.argv[2:]
TOOL = os.path.join(B, "perfregs-dump")
KINDS = ("64-bit", "lld", "i386 through the vDSO")[:len(progs)]   # the -m32 one skips on hosts without IA-32
WHAT = f"convert: perf script and perf report show perfregs' chains of live PIEs ({', '.join(KINDS)}); perf's header misses no feature the recording has"
HELD = {"BUILD_ID", "HOSTNAME", "OSRELEASE", "VERSION", "ARCH", "NRCPUS", "CPUDESC", "CPUID",
        "TOTAL_MEM", "CMDLINE", "EVENT_DESC", "SAMPLE_TIME", "CLOCKID"}


def fail(why):
    print(f"not ok - {WHAT}: {why}")
    sys.exit(1)


d = tempfile.mkdtemp()
procs, maps = [], {}
for p in progs:
    procs.append(subprocess.Popen([p], stdin=subprocess.PIPE, stdout=subprocess.PIPE))
for p in procs:
    p.stdout.readline()			# it printed its address: in main, about to read
time.sleep(0.2)				# and now blocked in read()
for p in procs:
    maps[p.pid] = [l.split() for l in open(f"/proc/{p.pid}/maps")]
rec, pd = os.path.join(d, "s.prf"), os.path.join(d, "perf.data")
snap = subprocess.run([os.path.join(B, "mksnap"), rec, "8192"] + [str(p.pid) for p in procs],
                      capture_output=True, text=True)
for p in procs:
    p.stdin.close()
    p.wait()
if snap.returncode:
    fail(f"mksnap: {snap.stderr.strip()}")


def rel(pid, ip):
    """(file basename, ip - start + pgoff) of the mapping ip is in"""
    for f in maps[pid]:
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        if lo <= ip < hi:
            name = f[5] if len(f) > 5 else ""
            return os.path.basename(name), ip - lo + int(f[2], 16)
    return "?", ip


ours = {}
js = subprocess.run([TOOL, "-q", "-f", "json", "--call-graph", "dwarf", "-i", rec],
                    capture_output=True, text=True)
for line in js.stdout.splitlines():
    r = json.loads(line)
    if r["type"] == "sample":
        ours[r["pid"]] = [rel(r["pid"], int(f["ip"], 16)) for f in r.get("callchain", [])]
conv = subprocess.run([TOOL, "convert", "-q", "-i", rec, "-o", pd], capture_output=True, text=True)
if conv.returncode:
    fail(f"convert exit {conv.returncode}: {conv.stderr.strip()}")
ps = subprocess.run(["perf", "script", "-i", pd, "-F", "pid,ip,sym,dso"], capture_output=True,
                    text=True)
theirs, cur, names = {}, None, {}
for line in ps.stdout.splitlines():
    m = re.match(r"\s*(\d+)\s*$", line)
    if m:
        cur = int(m.group(1))
        theirs[cur], names[cur] = [], []
        continue
    m = re.match(r"\s+([0-9a-f]+) (.*) \((.*)\)$", line)
    if m and cur is not None:
        dso = os.path.basename(m.group(3))
        dso = {"[vdso32]": "[vdso]", "[vdsox32]": "[vdso]"}.get(dso, dso)
        theirs[cur].append((dso, int(m.group(1), 16)))
        names[cur].append(m.group(2))
bad = []
for p in procs:
    o, t = ours.get(p.pid), theirs.get(p.pid)
    if not o or o != t:
        bad.append(f"pid {p.pid}: ours {o} perf {t}")
    elif "main" not in names[p.pid]:
        bad.append(f"pid {p.pid}: perf names no main in {names[p.pid]}")
if ps.returncode:
    bad.append(f"perf script exit {ps.returncode}: {ps.stderr.strip()[:200]}")
rep = subprocess.run(["perf", "report", "-i", pd, "--stdio", "-g", "caller", "--no-children"],
                     capture_output=True, text=True)
mains = len(re.findall(r"^[\s|-]*main$", rep.stdout, re.M))
if rep.returncode or mains < len(procs):
    bad.append(f"perf report -g: exit {rep.returncode}, main in {mains} chains")
h = subprocess.run(["perf", "script", "--header-only", "-i", pd], capture_output=True, text=True)
hdr = h.stdout
m = re.search(r"# missing features: (.*)", hdr)
missing = set(m.group(1).split()) if m else set()
if h.returncode or not m or missing & HELD:
    bad.append(f"perf script --header-only: exit {h.returncode}, missing {sorted(missing & HELD)}")
# and the values: this machine's, and mksnap's command line
want = {"hostname": os.uname().nodename, "os release": os.uname().release,
        "arch": os.uname().machine, "nrcpus online": str(os.cpu_count()),
        "cmdline": " ".join([os.path.join(B, "mksnap"), rec, "8192"] + [str(p.pid) for p in procs])}
for k, v in want.items():
    got = re.search(rf"^# {k} : (.*?)\s*$", hdr, re.M)
    if not got or got.group(1) != v:
        bad.append(f"header {k}: {got.group(1) if got else None!r}, want {v!r}")
shutil.rmtree(d)
if bad:
    fail("; ".join(bad)[:1500])
print(f"ok - {WHAT}: {len(procs)} chains of {', '.join(str(len(ours[p.pid])) for p in procs)} frames")
