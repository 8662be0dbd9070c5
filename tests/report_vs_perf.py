#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""report's table against perf report's on the same samples: a recording
of made-up stacks over real code (tests/mkunwind: Debian's xz with
liblzma and libc, a C++ program with libstdc++, an -m32 PIE with the
i386 libc, a mixed-mode task), converted to perf.data, summed by
perfregs-dump report and by perf report --stdio (both --no-demangle:
names by address are the symbol tables' own; tests/demangle_check.py
compares demangled names), with
--no-children and --children: every function's self and children
overhead within 0.1 percentage points.  Ours with --no-inline: Debian's
perf 6.1 shows no inlined functions (its --inline finds none; the
inlined frames are held against binutils' addr2line -i in
tests/inline_check.py).

Names are compared as the files' symbol tables have them: perf and
libdwfl may pick another alias of the same address (__GI___strtod vs
__strtod), so each name stands for the first name of its address in
its file (the symbol tables of the file and of its debug file, by
build-id).  A file's _init and PLT entries are compared as one sum:
perf 6.1's _init covers part of the .plt (its symbols overlap there) and
it takes i386's entries for 4 bytes; tests/plt_check.py holds this tool's
PLT names against objdump's.  A name longer than the tool's 255 bytes is
compared by that prefix.
Then the chains of real stacks: PIEs stopped in read() (tests/mksnap,
as convert_vs_perf.py does), report --no-children -g caller prints under
each read the path from _start through main, the lines of perf report
-g caller --no-children on the same samples, names by address.
usage: report_vs_perf.py BUILD XZ CXX M32|- [PROG...]   prints KTAP lines"""
import collections
import os
import re
import subprocess
import sys
import tempfile
import time

B, XZ, CXX = sys.argv[1:4]
M32 = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] != "-" else None
PROGS = sys.argv[5:]
TOOL = os.path.join(B, "perfregs-dump")
L64 = "/lib/x86_64-linux-gnu"
LIBC32 = "/usr/lib32/libc.so.6"
TOL = 0.1
POOL = "(_init and PLT entries)"


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def libs_of(prog, want):
    """the files of ldd's list whose names start with one of want"""
    out = run(["ldd", prog]).stdout
    found = re.findall(r"=> (\S+)", out)
    return [f for f in found if os.path.basename(f).startswith(want)]


def debug_file(path):
    out = run(["readelf", "-n", path]).stdout
    m = re.search(r"Build ID: ([0-9a-f]+)", out)
    if not m:
        return None
    h = m.group(1)
    f = f"/usr/lib/debug/.build-id/{h[:2]}/{h[2:]}.debug"
    return f if os.path.exists(f) else None


def aliases(path):
    """name -> the first name (sorted) of its address, for one file"""
    by_addr = collections.defaultdict(set)
    for f in (path, debug_file(path)):
        if not f:
            continue
        for line in run(["readelf", "-Ws", f]).stdout.splitlines():
            p = line.split()
            if len(p) >= 8 and p[3] in ("FUNC", "IFUNC") and p[1] != "0000000000000000":
                by_addr[int(p[1], 16)].add(p[7].split("@")[0])
    canon = {}
    for names in by_addr.values():
        first = sorted(names)[0]
        for n in names:
            canon.setdefault(n, first)
    return canon


def parse(text, children):
    """{(comm, dso, name): [children, self]}, entries of one name summed"""
    d = collections.defaultdict(lambda: [0.0, 0.0])
    for line in text.splitlines():
        if not re.match(r"\s+\d+\.\d+%", line):
            continue
        f = line.split()
        c, s = (float(f[0][:-1]), float(f[1][:-1])) if children else (0.0, float(f[0][:-1]))
        rest = f[2:] if children else f[1:]
        if len(rest) < 4:
            continue
        d[(rest[0], rest[1], " ".join(rest[3:]))][0] += c
        d[(rest[0], rest[1], " ".join(rest[3:]))][1] += s
    return d


def normalise(d, canon):
    out = collections.defaultdict(lambda: [0.0, 0.0])
    for (comm, dso, name), v in d.items():
        base = name.split("@")[0] if not name.endswith("@plt") else name
        name = canon.get((comm, dso), {}).get(base, base)
        out[(comm, dso, name)][0] += v[0]
        out[(comm, dso, name)][1] += v[1]
    return out


tmp = tempfile.mkdtemp()
rec, pd = os.path.join(tmp, "r.prf"), os.path.join(tmp, "r.data")
tasks = [f"64:{XZ}:" + ":".join(libs_of(XZ, ("liblzma", "libc.so"))),
         f"64:{CXX}:" + ":".join(libs_of(CXX, ("libstdc++", "libc.so")))]
if M32:
    tasks += [f"32:{M32}" + (f":{LIBC32}" if os.path.exists(LIBC32) else "")]
tasks += [f"mixed:{CXX}"]
WHAT = ("report: every function's self and children overhead within 0.1 points of perf "
        "report's on the same samples (xz, C++ with libstdc++" + (", -m32" if M32 else "") +
        ", mixed mode), names by address")
mk = run([os.path.join(B, "mkunwind"), rec, "11", "12000"] + tasks)
conv = run([TOOL, "convert", "-q", "-i", rec, "-o", pd]) if not mk.returncode else mk
if mk.returncode or conv.returncode:
    print(f"not ok - {WHAT}: mkunwind or convert failed: {mk.stderr[:200]} {conv.stderr[:200]}")
    sys.exit(1)
# mkunwind's tasks are unw1, unw2, ... in order: a file's names by its task
canon = {(f"unw{i + 1}", os.path.basename(f)): aliases(f)
         for i, t in enumerate(tasks) for f in t.split(":")[1:]}
bad, compared, plt_only, long_names, worst = [], 0, 0, 0, 0.0
for mode in ("--no-children", "--children"):
    children = mode == "--children"
    p = run(["perf", "report", "-i", pd, "--stdio", "--no-demangle", mode, "--sort",
             "comm,dso,sym", "-g", "none"])
    # perf 6.1 (Debian's) finds no inlined functions: compared without ours
    o = run([TOOL, "report", "-q", "--no-demangle", "--no-inline", "-i", rec, mode, "-g",
             "none"])
    if p.returncode or o.returncode:
        bad.append(f"{mode}: perf exit {p.returncode}, ours {o.returncode}: {o.stderr[:200]}")
        continue
    theirs, ours = normalise(parse(p.stdout, children), canon), normalise(parse(o.stdout, children), canon)
    # names the tool cut at 255 bytes stand for perf's whole ones
    for k in list(theirs):
        if len(k[2]) > 255 and k not in ours:
            cut = [q for q in ours if q[:2] == k[:2] and q not in theirs and
                   len(q[2]) >= 200 and k[2].startswith(q[2])]
            if cut:
                long_names += 1
                ours[k] = ours.pop(cut[0])
    # a file's _init and PLT entries, pooled: perf 6.1's _init covers some
    # of its .plt (and its i386 entries are of 4 bytes), each entry
    # rounded to 0.01 by perf
    pooled = collections.defaultdict(int)
    for d, count in ((theirs, True), (ours, False)):
        for k in [k for k in d if k[2] in ("_init", ".plt") or k[2].endswith("@plt")]:
            v = d.pop(k)
            q = k[:2] + (POOL,)
            d.setdefault(q, [0.0, 0.0])
            d[q][0] += v[0]
            d[q][1] += v[1]
            if count:
                pooled[q] += 1
                plt_only += k[2] != "_init"
    for k in sorted(set(theirs) | set(ours)):
        t, u = theirs.get(k, [0.0, 0.0]), ours.get(k, [0.0, 0.0])
        slack = 0.005 * pooled[k]
        dc, ds = abs(t[0] - u[0]), abs(t[1] - u[1])
        compared += 1
        if dc > TOL + slack or ds > TOL + slack:
            bad.append(f"{mode} {k}: perf {t} ours {u}")
        elif k[2] != POOL:
            worst = max(worst, dc, ds)
if compared < 1000:
    bad.append(f"only {compared} entries compared")
if bad:
    print(f"not ok - {WHAT}: " + "; ".join(bad[:8])[:1500])
else:
    print(f"ok - {WHAT} ({compared} entries, worst {worst:.2f} points; {plt_only} PLT entries "
          f"of perf's pooled with _init, {long_names} names past 255 bytes by prefix)")
failed = bool(bad)

# the chains of live PIEs stopped in read()
WHAT2 = ("report -g caller: the chain of each live PIE stopped in read(), _start through "
         "main to read, line for line perf report's on the same samples")
procs = [subprocess.Popen([p], stdin=subprocess.PIPE, stdout=subprocess.PIPE) for p in PROGS]
for p in procs:
    p.stdout.readline()		# in main, about to read
time.sleep(0.2)			# and now blocked in read()
snap_rec, snap_pd = os.path.join(tmp, "s.prf"), os.path.join(tmp, "s.data")
snap = run([os.path.join(B, "mksnap"), snap_rec, "8192"] + [str(p.pid) for p in procs])
libs = {}
for p in procs:
    for line in open(f"/proc/{p.pid}/maps"):
        f = line.split()
        if len(f) > 5 and f[5].startswith("/"):
            libs.setdefault(os.path.basename(f[5]), f[5])
    p.stdin.close()
    p.wait()
names = {}
for base, path in libs.items():
    for n, c in aliases(path).items():
        names.setdefault(n, c)


def chains(text):
    """each entry's graph: the names under its '---', in order (an
    address as a number)"""
    out, cur = [], None
    for line in text.splitlines():
        m = re.match(r"\s+---(\S+)$", line)
        if m:
            cur = [m.group(1)]
            out.append(cur)
        elif cur is not None and re.match(r"\s+[^\s|]\S*$", line) and "%" not in line:
            cur.append(line.strip())
        elif not line.strip():
            cur = None
    return sorted(([int(n, 16) if re.match(r"0x[0-9a-f]+$", n) else
                    names.get(n.split("@")[0], n.split("@")[0]) for n in c] for c in out), key=str)


def same(t, u):
    """perf's chain t and ours u: the same frames, or an address perf left
    unnamed that this tool names (the -m32 vDSO: perf reads no vdso32 image)"""
    if len(t) != len(u):
        return False, 0
    named = 0
    for a, b in zip(t, u):
        if isinstance(a, int) and isinstance(b, str):
            named += 1
        elif a != b:
            return False, 0
    return True, named


bad = []
if not PROGS or snap.returncode:
    bad.append(f"mksnap: {snap.stderr.strip()[:200]}")
else:
    conv = run([TOOL, "convert", "-q", "-i", snap_rec, "-o", snap_pd])
    p = run(["perf", "report", "-i", snap_pd, "--stdio", "--no-demangle", "--no-children",
             "-g", "caller"])
    o = run([TOOL, "report", "-q", "--no-demangle", "--no-inline", "-i", snap_rec,
             "--no-children", "-g", "caller"])
    t, u = chains(p.stdout), chains(o.stdout)
    if conv.returncode or p.returncode or o.returncode:
        bad.append(f"exit: convert {conv.returncode}, perf {p.returncode}, report {o.returncode}")
    named = 0
    # one chain per program: matched by their common start, main and beyond
    for a, b in zip(sorted(t, key=lambda c: [str(x) for x in c if isinstance(x, str)]),
                    sorted(u, key=lambda c: [str(x) for x in c if isinstance(x, str)])):
        ok, n = same(a, b)
        named += n
        if not ok:
            bad.append(f"perf's chain {a}, report's {b}")
    if len(t) != len(u):
        bad.append(f"perf's chains {t}, report's {u}")
    if len(u) != len(PROGS) or not all(c[0] == "_start" and "main" in c for c in u):
        bad.append(f"{len(u)} chains for {len(PROGS)} programs, each from _start through "
                   f"main: {u}")
if bad:
    print(f"not ok - {WHAT2}: " + "; ".join(bad)[:1500])
    failed = True
else:
    print(f"ok - {WHAT2}: {len(u)} chains of {', '.join(str(len(c)) for c in u)} frames; "
          f"{named} frames perf leaves unnamed named here")
sys.exit(1 if failed else 0)
