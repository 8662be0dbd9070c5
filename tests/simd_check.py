#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""ABI minor 1's registers, decoded: tests/mksimd's recording (the
selectors, the FS and GS base, SIMD sections of every component mix, of
64- and 32-bit frames and a mixed-mode task, known and unknown) must
give, sample by sample and value by value, what its comment says: in
JSON (docs/json-schema.md: every register whole, the parts gdb names
when the lower ones are missing, why a state is unknown), in the text
(the widest whole register of each number, k0-k7, mxcsr), and through
convert in perf script -F iregs,uregs (xmm as XMM0.. of the interrupt
registers of user-mode samples, 0 elsewhere; ds..gs among the user
registers; no FS or GS base).  Each malformed SIMD section mksimd makes
is a malformed record: exit 4, the samples before it decoded.  A
recording with the header of formats 1 and 2 (its session 8 bytes
shorter) decodes as it did.  The values are computed here from magic.h
and mksimd.c's definitions, not from the decoder's.
usage: simd_check.py BUILD TMPDIR     prints KTAP lines; exit 1 on failure"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys

B, T = sys.argv[1], sys.argv[2]
TOOL = os.path.join(B, "perfregs-dump")
HERE = os.path.dirname(os.path.abspath(__file__))
failed = False


def report(ok, what, detail=""):
    global failed
    failed |= not ok
    print(f"{'ok' if ok else 'not ok'} - {what}" + (f"\n# {detail}" if detail else ""))


def define(src, name):
    """The constant of a macro NAME(n) (... 0xHEX ... | ...) or NAME 0xHEX."""
    m = re.search(rf"#define\s+{name}(?:\([a-z, ]+\))?\s+\(?(0x[0-9a-fA-F]+)", src)
    return int(m.group(1), 16)


magic = open(os.path.join(HERE, "..", "selftests", "magic.h")).read()
mk = open(os.path.join(HERE, "mksimd.c")).read()
XLO, XHI = define(magic, "MAGIC_XMM_LO"), define(magic, "MAGIC_XMM_HI")
YLO, YHI = define(magic, "MAGIC_YMM_LO"), define(magic, "MAGIC_YMM_HI")
ZQ, KV = define(mk, "ZMM_Q"), define(mk, "K_VAL")
FSB, GSB = define(mk, "FS_BASE"), define(mk, "GS_BASE")
FSB32, GSB32 = define(mk, "FS_BASE32"), define(mk, "GS_BASE32")
XMM, YMM, ZMM, OPMASK, NEWER = 1, 2, 4, 8, 16
MIXES = [XMM, XMM | YMM, 15, OPMASK, YMM, ZMM, XMM | ZMM, XMM | NEWER]
# mksimd's samples of each task: 8 mixes, a kernel-mode one, unknown
# states (reasons 1-5 and 7), one with a stack
PER_TASK, STACK_I = 16, 15
NSAMPLES = 3 * PER_TASK
REASONS = {1: "saved", 2: "irqs_off", 3: "guest", 4: "nested", 5: "fpregs_locked"}


def vec(*quads):
    """A vector of quadwords, the lowest first, as "0x" + every digit."""
    return "0x" + "".join(f"{q:016x}" for q in reversed(quads))


def zq(n, j):
    return ZQ | n << 8 | j


def want_sample(pid, i):
    """(kernel, uregs wanted, simd wanted) of mksimd's sample i of pid."""
    nvec = 16 if pid == 100 else 8
    kernel = 8 <= i < STACK_I
    comps, reason = 0, 0
    if i < len(MIXES):
        comps = MIXES[i]
    elif i == 8:
        comps = XMM | YMM
    elif i < STACK_I:
        reason = i - 8 if i < STACK_I - 1 else 7
    else:
        comps = XMM
    u = {"ds": 0x2b, "es": 0x2b, "fs": 0x63, "gs": 0x6b,
         "fs_base": FSB32 if pid == 200 else FSB | pid}
    if not kernel:
        u["gs_base"] = GSB32 if pid == 200 else GSB | pid
    if not comps:
        return kernel, u, {"unknown": REASONS.get(reason, f"reason {reason}")}
    s = {}
    if comps & XMM:
        s["mxcsr"] = hex(0x1f80 | pid // 100)
    for n in range(nvec):
        x, y, z = [XLO | n, XHI | n], [YLO | n, YHI | n], [zq(n, j) for j in range(4)]
        if comps & XMM:
            s[f"xmm{n}"] = vec(*x)
        if comps & YMM:
            s[f"ymm{n}" if comps & XMM else f"ymm{n}h"] = vec(*x, *y) if comps & XMM else vec(*y)
        if comps & ZMM:
            whole = comps & XMM and comps & YMM
            s[f"zmm{n}" if whole else f"zmm{n}h"] = vec(*x, *y, *z) if whole else vec(*z)
    if comps & ZMM and nvec == 16:
        for n in range(16, 32):
            s[f"zmm{n}"] = vec(*[zq(n, j) for j in range(8)])
    if comps & OPMASK:
        for n in range(8):
            s[f"k{n}"] = hex(KV | n)
    return kernel, u, s


def run(*args):
    return subprocess.run([TOOL, "-q"] + list(args), capture_output=True, text=True)


rec = os.path.join(T, "simd.prf")
if subprocess.run([os.path.join(B, "mksimd"), rec]).returncode:
    report(False, "mksimd's recording decodes value by value", "mksimd failed")
    sys.exit(1)
TASKS = (100, 200, 400)
WANT = {1000000 * pid + i: (pid, i) for pid in TASKS for i in range(PER_TASK)}

# --- JSON ---------------------------------------------------------------
p = run("-f", "json", "-i", rec)
bad, n = [], 0
for line in p.stdout.splitlines():
    r = json.loads(line)
    if r["type"] != "sample":
        continue
    pid, i = WANT.get(r["time"], (None, None))
    if pid is None:
        bad.append(f"a sample at {r['time']}")
        continue
    n += 1
    kernel, u, s = want_sample(pid, i)
    for reg, v in u.items():
        if r["uregs"].get(reg) != hex(v):
            bad.append(f"{pid}/{i} {reg} {r['uregs'].get(reg)} want {v:#x}")
    if kernel and "gs_base" in r["uregs"]:
        bad.append(f"{pid}/{i}: gs_base in a kernel-mode sample")
    if r.get("simd") != s:
        got = r.get("simd") or {}
        diff = sorted(set(got.items()) ^ set(s.items()))[:2]
        bad.append(f"{pid}/{i} simd differs: {diff}")
    if i == STACK_I and r.get("stack") != {"size": 16, "copied": 16}:
        bad.append(f"{pid}/{i}: the stack after the section is {r.get('stack')}")
report(p.returncode == 0 and n == NSAMPLES and not bad,
       "mksimd's recording in JSON: selectors, FS/GS base, every SIMD mix, known or not, value by value",
       f"exit {p.returncode}, {n} of {NSAMPLES} samples; " + "; ".join(bad[:4]) if bad or n != NSAMPLES or p.returncode
       else f"{NSAMPLES} samples: 3 tasks x 8 mixes, a kernel-mode one, {STACK_I - 9} unknown states, one with a stack")
jsonl = p.stdout

# --- text ---------------------------------------------------------------
p = run("-i", rec)
head = re.compile(r"^\s+simd(\d+)\s+\d+/\d+\s+\[\d+\] (\d+)\.(\d+): ")
bad, n, cur, blocks = [], 0, None, {}
for line in p.stdout.splitlines():
    m = head.match(line)
    if m:
        cur = int(m.group(2)) * 10**9 + int(m.group(3))
        blocks[cur] = []
        insimd = False
        continue
    if line.startswith("    simd:"):
        insimd = True
    elif line.startswith("    ") and not line.startswith("          "):
        insimd = False		# iregs:, uregs:, stack:
    if insimd and cur is not None:
        blocks[cur].append(line)
for t, (pid, i) in WANT.items():
    kernel, u, s = want_sample(pid, i)
    got = blocks.get(t)
    if not got:
        bad.append(f"{pid}/{i}: no simd lines")
        continue
    n += 1
    text = "\n".join(got)
    if "unknown" in s:
        if got != [f"    simd: unknown ({s['unknown']})"]:
            bad.append(f"{pid}/{i}: {got}")
        continue
    # the text shows the widest whole register of each number
    w = {}
    for k, v in s.items():
        m = re.match(r"([xy])mm(\d+)h?$", k)
        if m and f"{'y' if m.group(1) == 'x' else 'z'}mm{m.group(2)}" in s:
            continue	# xmm n within ymm n, ymm n within zmm n
        w[k] = v
    pairs = re.findall(r"(\w+)\s+0x([0-9a-f]+)", text.replace("simd:", ""))
    seen = {k: v for k, v in pairs}
    if len(pairs) != len(seen) or set(seen) != set(w):
        bad.append(f"{pid}/{i}: registers {sorted(set(seen) ^ set(w))[:4]}")
        continue
    for k, v in w.items():
        if k == "mxcsr" or k.startswith("k"):
            ok = int(seen[k], 16) == int(v, 16) and len(seen[k]) == (8 if k == "mxcsr" else 16)
        else:
            ok = "0x" + seen[k] == v
        if not ok:
            bad.append(f"{pid}/{i} {k} {seen[k]} want {v}")
report(p.returncode == 0 and n == NSAMPLES and not bad,
       "mksimd's recording in text: the widest whole register of each number, k0-k7, mxcsr, why unknown",
       f"exit {p.returncode}, {n} of {NSAMPLES} samples; " + "; ".join(bad[:4]) if bad or n != NSAMPLES or p.returncode
       else f"{NSAMPLES} samples, every register's digits")

# --- malformed sections -------------------------------------------------
bad = []
kinds = ["short", "nr_vec", "nr_vec32", "odd", "overrun", "long", "mismatch", "known0",
         "both", "ibase", "noabi"]
for kind in kinds:
    f = os.path.join(T, f"simd_{kind}.prf")
    if subprocess.run([os.path.join(B, "mksimd"), f, kind]).returncode:
        bad.append(f"{kind}: mksimd failed")
        continue
    p = run("-f", "json", "-i", f)
    times = [json.loads(l)["time"] for l in p.stdout.splitlines() if '"type":"sample"' in l]
    if p.returncode != 4 or times != [100000048, 100000049] or \
            "malformed kernel record" not in p.stderr or "offset" not in p.stderr:
        bad.append(f"{kind}: exit {p.returncode}, samples {times}, {p.stderr.strip()[:120]!r}")
report(not bad, "a malformed SIMD section is a malformed record: exit 4, the samples before it decoded",
       "; ".join(bad[:4]) or f"{len(kinds)} kinds: " + ", ".join(kinds))

# --- the header of formats 1 and 2 --------------------------------------
# mksimd's header names the ABI this tree's uapi speaks
ABI_MINOR = int(re.search(r"#define\s+PERFREGS_ABI_MINOR\s+(\d+)", open(os.path.join(
    HERE, "..", "include", "uapi", "linux", "perfregs.h")).read()).group(1))
data = open(rec, "rb").read()
hsize, version = struct.unpack_from("<II", data, 8)
old = bytearray(data[:hsize - 8] + data[hsize:])
struct.pack_into("<II", old, 8, hsize - 8, 2)
oldf = os.path.join(T, "simd_format2.prf")
open(oldf, "wb").write(old)
p = run("-f", "json", "-i", oldf)
v = subprocess.run([TOOL, "-q", "-v", "--summary", "-i", oldf], capture_output=True, text=True)
report(hsize == 160 and version == 3 and p.returncode == 0 and p.stdout == jsonl and
       "session: event cpu-clock" in v.stderr and f"module ABI 2.{ABI_MINOR}" in v.stderr,
       "a recording with the header of formats 1 and 2 (a 120-byte session) decodes as before",
       f"this tool's header: {hsize} bytes, format {version}; the old one: exit {p.returncode}, "
       f"{'the same' if p.stdout == jsonl else 'other'} JSON; -v: "
       f"{[l for l in v.stderr.splitlines() if 'recorded by' in l or 'session:' in l]}")

# --- the options ----------------------------------------------------------
# taken: they get as far as the device (none here: exit 2); refused: exit 1
what = "--uregs takes ds,es,fs,gs,fs_base,gs_base (any case, bits 24-25), --iregs not the bases; --simd takes components or all"
if os.path.exists("/dev/perfregs"):
    print(f"ok - {what} # SKIP a module is loaded here: the options would sample")
else:
    bad = []
    for args, rc, msg in (
            (["--uregs=ds,es,fs,gs,fs_base,gs_base"], 2, "cannot open /dev/perfregs"),
            (["--uregs=ES,FS_BASE,ip,eax,rflags,r8"], 2, "cannot open /dev/perfregs"),
            (["--uregs=0x3ffffff"], 2, "cannot open /dev/perfregs"),
            (["--iregs=ds,es,fs,gs"], 2, "cannot open /dev/perfregs"),
            (["--iregs=fs_base"], 1, "fs_base is a register of the user frame only"),
            (["--iregs=0x1000000"], 1, "bad register mask '0x1000000'"),
            (["--uregs=0x4000000"], 1, "bad register mask '0x4000000'"),
            (["--uregs=rfs_base"], 1, "unknown register 'rfs_base'"),
            (["--simd", "xmm,YMM,zmm,opmask"], 2, "cannot open /dev/perfregs"),
            (["--simd", "all"], 2, "cannot open /dev/perfregs"),
            (["--simd", "xmm,avx"], 1, "--simd wants SIMD components"),
            (["--simd", ""], 1, "--simd wants SIMD components")):
        p = subprocess.run([TOOL, "-q"] + args + ["-a", "-d", "1"], capture_output=True,
                           text=True)
        if p.returncode != rc or msg not in p.stderr:
            bad.append(f"{' '.join(args)}: exit {p.returncode} {p.stderr.strip()[:100]!r}")
    p = run("--simd", "xmm", "-i", rec)
    if p.returncode != 1 or "-i takes no --simd" not in p.stderr:
        bad.append(f"--simd with -i: exit {p.returncode}")
    report(not bad, what, "; ".join(bad[:4]) or "12 command lines, each taken or refused "
           "(exit 1, named); -i refuses --simd")

# --- convert: perf script ------------------------------------------------
perf = shutil.which("perf")
what = "convert: perf script shows xmm as XMM0.. of user-mode samples' interrupt registers, ds..gs among the user registers"
if not perf:
    print(f"ok - {what} # SKIP perf is not installed (linux-perf)")
    sys.exit(1 if failed else 0)
pd = os.path.join(T, "simd.data")
c = subprocess.run([TOOL, "convert", "-q", "-i", rec, "-o", pd], capture_output=True, text=True)
ps = subprocess.run([perf, "script", "-i", pd, "--ns", "-F", "time,iregs,uregs"],
                    capture_output=True, text=True)
bad, n, xmm_seen = [], 0, 0
for line in ps.stdout.splitlines():
    m = re.match(r"\s*(\d+)\.(\d+):", line)
    if not m:
        continue
    t = int(m.group(1)) * 10**9 + int(m.group(2))
    if t not in WANT:
        bad.append(f"a sample at {t}")
        continue
    pid, i = WANT[t]
    kernel, u, s = want_sample(pid, i)
    n += 1
    iregs, uregs = [re.findall(r"(\w+):0x([0-9a-f]+)", b) for b in line.split("ABI:")[1:3]]
    x = [int(v, 16) for k, v in iregs if k.startswith("XMM")]
    names = [k for k, v in iregs if k.startswith("XMM")]
    want_names = [f"XMM{r}" for r in range(16) for _ in (0, 1)]
    if names != want_names:
        bad.append(f"{pid}/{i}: perf's names {names[:4]}")
        continue
    wx = [0] * 32
    if not kernel and "xmm0" in s:
        for r in range(16 if pid == 100 else 8):
            wx[2 * r], wx[2 * r + 1] = XLO | r, XHI | r
        xmm_seen += 1
    if x != wx:
        bad.append(f"{pid}/{i}: XMM {[hex(v) for v in x[:4]]} want {[hex(v) for v in wx[:4]]}")
    ud = dict(uregs)
    for reg in ("ds", "es", "fs", "gs"):
        if int(ud.get(reg.upper(), "-1"), 16) != u[reg]:
            bad.append(f"{pid}/{i}: {reg.upper()} {ud.get(reg.upper())}")
    if any(k not in ("AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP", "IP", "FLAGS", "CS", "SS",
                     "DS", "ES", "FS", "GS") and not re.match(r"R\d+$", k) for k, v in uregs):
        bad.append(f"{pid}/{i}: perf shows user registers {[k for k, v in uregs][:30]}")
report(c.returncode == 0 and ps.returncode == 0 and n == NSAMPLES and xmm_seen == 18 and not bad, what,
       f"convert exit {c.returncode}, perf script exit {ps.returncode} {ps.stderr.strip()[:100]!r}, "
       f"{n} of {NSAMPLES} samples, {xmm_seen} of 18 with xmm; " + "; ".join(bad[:4]) if bad or n != NSAMPLES or
       xmm_seen != 18 else f"{NSAMPLES} samples; 18 user-mode ones with xmm, each of its XMM0-15 (0-7 of "
       "32-bit frames) right, the rest 0; DS..GS right; no FS or GS base")
sys.exit(1 if failed else 0)
