#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""PLT entries named "function@plt", as perf names them, in every output.

Each PROG is tests/plt_target built one way (lazy .plt, -z now, IBT's
.plt.sec, -m32 ...), run live until it has called through its PLT.  A
recording (tests/mkmaps: its image and /proc maps) holds a sample at
the start and one inside each label objdump -d gives the program's
.plt, .plt.sec and .plt.got (binutils names the entries from the same
relocations: "clock_gettime@plt"; the header "X@plt-0x10", or ".plt" with
.plt.sec, is perf's ".plt").  perfregs-dump -f json, -f folded and
report must name each as objdump does, and convert's perf.data must
give perf script the same names wherever perf names one "X@plt" itself
(perf 6.1 misses some: its _init covers the .plt; those are counted).

Then perf samples the same program looping on clock_gettime() (perf
record -e cpu-clock, a software event): the samples it took in the
program's PLT, recorded again at their addresses, must be named by
perfregs-dump as objdump names their entries.
With --files, first plt.c's names (tests/pltnames) of each FILE and PROG
against objdump's labels.
usage: plt_check.py BUILD [--files FILE...] NAME=PROG...   prints KTAP lines"""
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

B = sys.argv[1]
TOOL = os.path.join(B, "perfregs-dump")
tmp = tempfile.mkdtemp()


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


def labels(prog):
    """[(file address, objdump's name)] of the PLT sections, in order"""
    out = run(["objdump", "-d", "-j", ".plt", "-j", ".plt.sec", "-j", ".plt.got", prog]).stdout
    got = []
    for m in re.finditer(r"^([0-9a-f]+) <([^>]+)>:", out, re.M):
        name = m.group(2)
        if re.search(r"@plt-0x[0-9a-f]+$", name) or name == ".plt":
            name = ".plt"		# the header: perf's name
        got.append((int(m.group(1), 16), name))
    return got


def ends(prog):
    """{section start: end} of the PLT sections"""
    out = run(["readelf", "-SW", prog]).stdout
    d = {}
    for m in re.finditer(r"\] (\.plt(?:\.sec|\.got)?)\s+PROGBITS\s+([0-9a-f]+) [0-9a-f]+ ([0-9a-f]+)",
                         out):
        a = int(m.group(2), 16)
        d[a] = a + int(m.group(3), 16)
    return d


def want_at(lab, sec, addr):
    """objdump's name of file address addr and its offset, or None"""
    best = None
    for a, n in lab:
        if a <= addr:
            best = (n, addr - a)
    if not best or not any(s <= addr < e for s, e in sec.items()):
        return None
    return best


def live(prog, arg):
    p = subprocess.Popen([prog, arg], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    p.stdout.readline()		# "ready": through its PLT, blocked in read()
    bias = None
    for line in open(f"/proc/{p.pid}/maps"):
        f = line.split()
        if len(f) > 5 and os.path.realpath(f[5]) == os.path.realpath(prog) and int(f[2], 16) == 0:
            bias = int(f[0].split("-")[0], 16)	# a PIE's first PT_LOAD is at 0
            break
    return p, bias


def names(rec):
    """per sample of rec: -f json's sym, -f folded's frame, and report's"""
    js = run([TOOL, "-q", "-f", "json", "-i", rec]).stdout.splitlines()
    syms = [r.get("sym", "") for r in map(json.loads, js) if r.get("type") == "sample"]
    folded = {}
    for line in run([TOOL, "-q", "-f", "folded", "-i", rec]).stdout.splitlines():
        stack, n = line.rsplit(" ", 1)
        leaf = stack.split(";")[-1]
        leaf = leaf[:-len("_[i386]")] if leaf.endswith("_[i386]") else leaf
        folded[leaf] = int(n)
    rep = set()
    for line in run([TOOL, "report", "-q", "-i", rec, "--sort", "sym"]).stdout.splitlines():
        m = re.match(r"\s+[\d.]+%\s+\[\.\]\s+(\S+)", line)
        if m:
            rep.add(m.group(1))
    return syms, folded, rep


def check(name, prog):
    what = f"PLT entries named as objdump names them, in -f json, folded, report ({name})"
    lab, sec = labels(prog), ends(prog)
    if not lab:
        return f"not ok - {what}: objdump finds no PLT entries in {prog}"
    p, bias = live(prog, "0")
    addrs, want = [], []
    for a, n in lab:		# the entry's start and a byte inside it
        for off in (0, 6):
            addrs.append(bias + a + off)
            want.append((n, off))
    rec = os.path.join(tmp, f"{name}.prf")
    mk = run([os.path.join(B, "mkmaps"), rec, str(p.pid), ",".join(hex(a) for a in addrs), "1"])
    p.stdin.close()
    p.wait()
    if mk.returncode:
        return f"not ok - {what}: mkmaps: {mk.stderr.strip()}"
    syms, folded, rep = names(rec)
    bad = []
    for (n, off), s, a in zip(want, syms, addrs):
        if s != f"{n}+{off:#x}":
            bad.append(f"{a - bias:#x}: {s or 'nothing'}, objdump {n}+{off:#x}")
    if len(syms) != len(want):
        bad.append(f"{len(syms)} samples named of {len(want)}")
    for n in {n for n, _ in want}:
        if n not in rep:
            bad.append(f"report has no {n}")
        if folded.get(n, 0) != 2 * sum(1 for _, m in lab if m == n):
            bad.append(f"folded: {n} {folded.get(n, 0)} times")
    # perf script on convert's perf.data: its own names of the same IPs
    pd = os.path.join(tmp, f"{name}.data")
    cv = run([TOOL, "convert", "-q", "-i", rec, "-o", pd])
    ps = run(["perf", "script", "-i", pd, "-F", "ip,sym"]) if not cv.returncode else cv
    same = differ = 0
    # perf before 6.3 takes .plt's entries for sh_entsize bytes: 4 on i386, 0 from lld
    perf_off = re.search(r"\] \.plt\s+PROGBITS\s+\S+ \S+ \S+ 0[04] ",
                         run(["readelf", "-SW", prog]).stdout) is not None
    for line, (n, off) in zip([x for x in ps.stdout.splitlines() if x.strip()], want):
        f = line.split()
        theirs = f[1] if len(f) > 1 else ""
        if perf_off:
            differ += 1
        elif re.match(r".+@plt$", theirs):
            if theirs == n:
                same += 1
            else:
                bad.append(f"perf names {f[0]} {theirs}, objdump {n}")
        else:
            differ += 1
    if cv.returncode or ps.returncode:
        bad.append(f"convert/perf script failed: {cv.stderr[:200]} {ps.stderr[:200]}")
    if bad:
        return f"not ok - {what}: " + "; ".join(bad[:6])
    return (f"ok - {what}: {len(lab)} entries, {len(syms)} samples; perf script on convert's "
            f"perf.data names {same} the same, {differ} not as X@plt (perf 6.1's _init or .plt"
            f"{', its .plt entries of sh_entsize bytes, 4 or 0' if perf_off else ''})")


def sampled(name, prog):
    """perf's own samples in the PLT of prog, looping on clock_gettime()"""
    what = f"perf record's samples in the PLT named by their entries ({name})"
    lab, sec = labels(prog), ends(prog)
    pd = os.path.join(tmp, f"{name}.perf")
    r = run(["perf", "record", "-q", "-e", "cpu-clock", "-c", "10000", "-o", pd, "--",
             prog, "3000000"], input="")
    if r.returncode:
        return f"ok - {what} # SKIP perf record failed: {r.stderr.strip()[:200]}"
    mm = run(["perf", "script", "-i", pd, "--show-mmap-events"]).stdout
    # the code segment's address less its offset (lld's are a page apart)
    seg = re.search(r"LOAD\s+0x([0-9a-f]+) 0x([0-9a-f]+) .* R E ", run(["readelf", "-lW", prog]).stdout)
    delta = int(seg.group(2), 16) - int(seg.group(1), 16) if seg else 0
    base = None
    for m in re.finditer(r"\[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ (0x[0-9a-f]+|0) .*\]: r-xp (\S+)$", mm, re.M):
        if os.path.realpath(m.group(3)) == os.path.realpath(prog):
            base = int(m.group(1), 16) - int(m.group(2), 16) - (delta & ~0xfff)
            break
    hits = []
    for line in run(["perf", "script", "-i", pd, "-F", "ip,sym,dso"]).stdout.splitlines():
        f = line.split()
        if len(f) >= 2 and base is not None and re.match(r"^[0-9a-f]+$", f[0]):
            fa = int(f[0], 16) - base
            if want_at(lab, sec, fa):
                hits.append((int(f[0], 16), fa, f[1]))
    if base is None:
        return f"not ok - {what}: no mmap of {prog} in perf's recording"
    if not hits:
        return f"ok - {what} # SKIP none of perf's samples landed in the PLT"
    # our recording of the same IPs, against a live copy mapped the same way
    p, bias = live(prog, "0")
    rec = os.path.join(tmp, f"{name}.s.prf")
    mk = run([os.path.join(B, "mkmaps"), rec, str(p.pid),
              ",".join(hex(bias + fa) for _, fa, _ in hits), "1"])
    p.stdin.close()
    p.wait()
    syms = names(rec)[0] if not mk.returncode else []
    bad = []
    for (ip, fa, theirs), ours in zip(hits, syms):
        n, off = want_at(lab, sec, fa)
        if ours != f"{n}+{off:#x}":
            bad.append(f"{fa:#x}: ours {ours}, objdump {n}+{off:#x}, perf {theirs}")
    if len(syms) != len(hits):
        bad.append(f"{len(syms)} of {len(hits)} named: {mk.stderr.strip()[:200]}")
    if bad:
        return f"not ok - {what}: " + "; ".join(bad[:6])
    plt = sum(1 for *_, t in hits if t.endswith("@plt"))
    return (f"ok - {what}: {len(hits)} samples in the PLT, each named by its entry; "
            f"perf 6.1 named {plt} of them X@plt")


def files_vs_objdump(files):
    """plt.c's names (tests/pltnames) of each file's PLT entries against
    objdump's labels: the same name at the same address for every label
    "X@plt"; for "*ABS*+0xADDR@plt" (IRELATIVE), an IFUNC of .dynsym at ADDR,
    for i386's "*ABS*@plt" (the addend in the slot) perf's "offset_0x...@plt" """
    what = "PLT entries of every library and program here named as objdump names them"
    files = [f for f in files if os.path.isfile(f) and open(f, "rb").read(4) == b"\x7fELF"]
    ours, cur = {}, None
    out = run([os.path.join(B, "pltnames")] + files).stdout
    for line in out.splitlines():
        if line.startswith("# "):
            cur = ours.setdefault(line[2:].rsplit(" ", 1)[0], {})
        else:
            a, _, n = line.split(" ", 2)
            cur[int(a, 16)] = n
    bad, named, ifuncs, nfiles = [], 0, 0, 0
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count()) as ex:
        labs = list(ex.map(labels, files))
    for f, lab in zip(files, labs):
        if not lab:
            continue
        nfiles += 1
        ifunc = None
        for a, n in lab:
            o = ours.get(f, {}).get(a)
            if (n == ".plt" and o is None) or (n == ".plt.got" and o.startswith("offset_0x")):
                continue	# a static program's: no symbol table, as perf
            if n == "*ABS*@plt":	# i386's IRELATIVE: its addend in the slot
                ok = (o or "").startswith("offset_0x")
                ifuncs += ok
            elif n.startswith("*ABS*+0x"):
                if ifunc is None:
                    ifunc = {}
                    for line in run(["readelf", "-W", "--dyn-syms", f]).stdout.splitlines():
                        x = line.split()
                        if len(x) >= 8 and x[3] == "IFUNC":
                            ifunc.setdefault(int(x[1], 16), set()).add(x[7].split("@")[0])
                addr = int(n[len("*ABS*+"):-len("@plt")], 16)
                ok = (o or "").endswith("@plt") and (o[:-4] in ifunc.get(addr, ()) or
                                                     o.startswith("offset_0x"))
                ifuncs += ok
            else:		# plt.h's PLT_NAME_MAX: a name cut at 1023 bytes
                ok = o == n or (o and len(o) == 1023 and n.startswith(o[:-4]))
                named += bool(ok)
            if not ok:
                bad.append(f"{f} {a:#x}: {o}, objdump {n}")
    if bad or not named:
        return f"not ok - {what}: " + "; ".join(bad[:6])
    return (f"ok - {what}: {nfiles} files, {named} entries by name, {ifuncs} IRELATIVE ones "
            f"by their IFUNC")


failed = False
progs = [a for a in sys.argv[2:] if "=" in a]
if sys.argv[2:3] == ["--files"]:
    line = files_vs_objdump([a for a in sys.argv[3:] if "=" not in a] + [p.split("=", 1)[1] for p in progs])
    print(line)
    failed = line.startswith("not ok")
for arg in progs:
    name, prog = arg.split("=", 1)
    for line in (check(name, prog), sampled(name, prog)):
        print(line)
        failed |= line.startswith("not ok")
shutil.rmtree(tmp)
sys.exit(1 if failed else 0)
