#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel call chains (ABI minor 2), decoded: tests/mkkchain's recording
(kernel-mode samples with PERFREGS_SF_KCHAIN sections over four known
kernel symbols, one chain with a return address at the very end of a
symbol, one truncated, one empty (nested), one after a SIMD section and
before a stack) must give, sample by sample, the chain's frames in
order, each return address named by the byte before it: in script's
text and JSON, -f folded (_[k]), report's table and flame graph, pprof
(go tool pprof -raw) and, through convert, perf script.  The hostile
samples mkkchain makes are malformed records (exit 4, the samples
before them decoded); a sample with a flag no module has yet and 16
bytes after its stack is decoded, the same bytes without that flag are
not (ABI minor 2's rule).  The options: --kernel-callchain[=N],
--no-kernel-callchain, their refusals.  The names and addresses are
mkkchain.c's, written out here, not taken from the decoder.
usage: kchain_check.py BUILD TMPDIR     prints KTAP lines; exit 1 on failure"""
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
K = 0xffffffff81000000


def report(ok, what, detail=""):
    global failed
    failed |= not ok
    print(f"{'ok' if ok else 'not ok'} - {what}" + (f"\n# {detail}" if detail else ""))


def run(*args):
    return subprocess.run([TOOL, "-q"] + list(args), capture_output=True, text=True)


def jlines(text):
    """JSON Lines as objects; a line that is no JSON as {"type": "not JSON"}"""
    out = []
    for line in text.splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            out.append({"type": "not JSON", "line": line[:80]})
    return out


rec = os.path.join(T, "kchain.prf")
if subprocess.run([os.path.join(B, "mkkchain"), rec]).returncode:
    report(False, "kernel call chains: mkkchain failed")
    sys.exit(1)

# the chains, by sample time: (ip, name) innermost first; the return
# address K + 0x300 is kc_outer's end (kc_entry's start): kc_outer+0x100
CHAINS = {
    1000000: [(K + 0x10, "kc_inner+0x10"), (K + 0x150, "kc_middle+0x50"),
              (K + 0x300, "kc_outer+0x100"), (K + 0x380, "kc_entry+0x80")],
    1000001: [(K + 0x20, "kc_inner+0x20"), (K + 0x110, "kc_middle+0x10")],
    1000002: [],
    1000003: None,          # user mode: no chain
    1000004: [(K + 0x40, "kc_inner+0x40"), (K + 0x250, "kc_outer+0x50")],
}
STATUS = {1000000: (4, False, False, False), 1000001: (2, True, False, False),
          1000002: (0, False, False, True), 1000004: (2, False, True, False)}

# --- script: JSON and text ------------------------------------------------
bad = []
p = run("-f", "json", "-i", rec)
p2 = run("-f", "json", "--threads", "2", "-i", rec)
samples = {}
for r in jlines(p.stdout):
    if r.get("type") == "sample":
        samples[r["time"]] = r
    elif r.get("type") != "summary":
        bad.append(f"a line {r}")
if p.returncode or sorted(samples) != sorted(CHAINS):
    bad.append(f"exit {p.returncode}, samples {sorted(samples)}")
for t, want in CHAINS.items():
    r = samples.get(t)
    if not r:
        continue
    got = [(int(f["ip"], 16), f.get("sym"), f.get("dso"), f.get("kernel"))
           for f in r.get("callchain", [])]
    exp = [(ip, name, "[kernel.kallsyms]", True) for ip, name in want or []]
    if got != exp:
        bad.append(f"{t}: JSON chain {got}")
    kc = r.get("kchain")
    st = STATUS.get(t)
    if (kc is None) != (st is None) or (st and (kc["nr"], kc["truncated"], kc["unreliable"],
                                                kc["nested"]) != st):
        bad.append(f"{t}: kchain {kc}")
if p2.stdout != p.stdout:
    bad.append("--threads 2 prints other JSON")
txt = run("-i", rec)
chains, cur = {}, None
for line in txt.stdout.splitlines():
    m = re.search(r" (\d+)\.(\d+): cpu-clock:", line)
    if m:
        cur = int(m.group(1)) * 10**9 + int(m.group(2))
        chains[cur] = []
    elif line.startswith("\t") and cur is not None:
        chains[cur].append(line)
for t, want in CHAINS.items():
    exp = [f"\t{ip:16x} {name} ([kernel.kallsyms])" for ip, name in want or []]
    if chains.get(t) != exp:
        bad.append(f"{t}: text chain {chains.get(t)}")
report(not bad, "kernel call chains in script's JSON and text: each entry a kernel frame in "
       "order, return addresses named by the byte before them (kc_outer+0x100 at "
       "kc_entry's start), its status; none for a nested or user-mode sample",
       "; ".join(bad[:4]) or "5 samples, 8 frames, in JSON, text and with --threads 2")

# --- folded, report, flame graph, pprof -----------------------------------
bad = []
fo = run("-f", "folded", "-i", rec)
want = sorted(["kchain;kc_entry_[k];kc_outer_[k];kc_middle_[k];kc_inner_[k] 1",
               "kchain;kc_middle_[k];kc_inner_[k] 1", "kchain;kc_inner_[k] 1",
               "kchain;kc_outer_[k];kc_inner_[k] 1", "kchain;[unknown] 1"])
if sorted(fo.stdout.splitlines()) != want:
    bad.append(f"folded {fo.stdout.splitlines()}")
rp = run("report", "--children", "-f", "json", "-i", rec)
try:
    ents = {e["sym"]: (e["children_samples"], e["self_samples"])
            for e in json.loads(rp.stdout)["entries"]}
except (ValueError, KeyError) as e:
    ents = {"error": str(e)}
if {k: v for k, v in ents.items() if k.startswith("[k]")} != {
        "[k] kc_inner": (4, 4), "[k] kc_middle": (2, 0), "[k] kc_outer": (2, 0),
        "[k] kc_entry": (1, 0)}:
    bad.append(f"report's entries {ents}")
svg = os.path.join(T, "kchain.svg")
fg = run("report", "--flamegraph", svg, "-i", rec)
frames = re.findall(r"kc_[a-z]+_\[k\]", open(svg).read()) if not fg.returncode else []
if fg.returncode or not all(f"{n}_[k]" in frames for n in
                            ("kc_inner", "kc_middle", "kc_outer", "kc_entry")):
    bad.append(f"flame graph: exit {fg.returncode}, frames {sorted(set(frames))}")
what = "kernel call chains in -f folded (_[k], outermost first), report's children, " \
       "the flame graph and pprof"
if shutil.which("go"):
    pb = os.path.join(T, "kchain.pb.gz")
    run("convert", "--to", "pprof", "-i", rec, "-o", pb)
    raw = subprocess.run(["go", "tool", "pprof", "-symbolize=none", "-raw", pb],
                         capture_output=True, text=True, env=dict(os.environ, HOME=T)).stdout
    locs = dict(re.findall(r"^\s+(\d+): 0x[0-9a-f]+ M=\d+ (\w+) ", raw, re.M))
    stacks = sorted(" ".join(locs.get(i, "?") for i in m.split())
                    for m in re.findall(r"^\s+\d+\s+\d+: ([\d ]+)$", raw, re.M))
    if stacks != sorted(["kc_inner kc_middle kc_outer kc_entry", "kc_inner kc_middle",
                         "kc_inner", "?", "kc_inner kc_outer"]):
        bad.append(f"pprof's stacks {stacks}")
else:
    what += " (go is not installed: pprof not checked)"
report(not bad, what, "; ".join(bad[:4]))

# --- convert: perf script -------------------------------------------------
what = "convert: perf script shows the kernel call chains' frames in order, in [kernel.kallsyms], after PERF_CONTEXT_KERNEL alone"
if not shutil.which("perf"):
    print(f"ok - {what} # SKIP perf is not installed (linux-perf)")
else:
    pd = os.path.join(T, "kchain.data")
    c = run("convert", "-i", rec, "-o", pd)
    ps = subprocess.run(["perf", "script", "-i", pd, "-F", "ip,dso"], capture_output=True,
                        text=True)
    got, cur = [], None
    for line in ps.stdout.splitlines():
        if not line.strip():
            cur = None
            continue
        if cur is None:
            cur = []
            got.append(cur)
        ip, _, dso = line.strip().partition(" ")
        cur.append((int(ip, 16), dso.strip()))
    # a kernel mapping when the recording knew _text (kallsyms readable where made)
    kmap = b"kernel_text=0x" in open(rec, "rb").read()
    want = [[(ip, "([kernel.kallsyms])") for ip, _ in CHAINS[1000000]],
            [(ip, "([kernel.kallsyms])") for ip, _ in CHAINS[1000001]],
            [(K + 0x30, "([kernel.kallsyms])")], [(0x401000, "([unknown])")],
            [(ip, "([kernel.kallsyms])") for ip, _ in CHAINS[1000004]]]
    if not kmap:
        got = [[ip for ip, _ in s] for s in got]
        want = [[ip for ip, _ in s] for s in want]
    # the chains as they are in the file (perf script -D): each context once
    dump = subprocess.run(["perf", "script", "-D", "-i", pd], capture_output=True,
                          text=True).stdout
    raw = [[int(x, 16) for x in re.findall(r"^\.+ +\d+: ([0-9a-f]+)$", m, re.M)]
           for m in re.split(r"^\.\.\. FP chain: nr:\d+$", dump, flags=re.M)[1:]]
    ctx_k, ctx_u = 0xffffffffffffff80, 0xfffffffffffffe00
    want_raw = [[ctx_k] + [ip for ip, _ in CHAINS[1000000]],
                [ctx_k] + [ip for ip, _ in CHAINS[1000001]], [ctx_k, K + 0x30],
                [ctx_u, 0x401000], [ctx_k] + [ip for ip, _ in CHAINS[1000004]]]
    report(c.returncode == 0 and got == want and raw == want_raw, what,
           f"convert exit {c.returncode}; perf script: {got}; its chains: "
           f"{[[hex(x) for x in r] for r in raw]}" if got != want or raw != want_raw else
           "5 samples, PERF_CONTEXT_KERNEL once before each chain" +
           ("" if kmap else " (addresses only: no kernel _text known)"))

# --- kernel frames, then user frames ---------------------------------------
# tests/fp_target.S (its CFA %rbp + 16 from fp_body on): a kernel-mode
# sample with a chain of two, its user frame at fp_body, the stack
# holding main's return address: --call-graph dwarf puts the user frames
# after the kernel ones, and convert PERF_CONTEXT_USER before them alone
what = "a kernel call chain and the user frames unwound after it (--call-graph dwarf): " \
       "script, folded, perf.data's contexts"
prog = os.path.join(T, "kchain_fp")
if subprocess.run(["cc", "-no-pie", "-o", prog, os.path.join(HERE, "fp_target.S")]).returncode:
    report(False, what, "tests/fp_target.S could not be built")
else:
    syms = dict(reversed(l.split()[::2]) for l in subprocess.run(
        ["nm", prog], capture_output=True, text=True).stdout.splitlines() if len(l.split()) == 3)
    body, ret = int(syms["fp_body"], 16), int(syms["main"], 16) + 9  # sub $8,%rsp; call
    f = os.path.join(T, "kchain_user.prf")
    subprocess.run([os.path.join(B, "mkkchain"), f, "user", prog, hex(body), hex(ret)])
    bad = []
    txt = run("--call-graph", "dwarf", "-i", f).stdout
    lines = [l for l in txt.splitlines() if l.startswith("\t")]
    if lines != [f"\t{K + 0x10:16x} kc_inner+0x10 ([kernel.kallsyms])",
                 f"\t{K + 0x150:16x} kc_middle+0x50 ([kernel.kallsyms])",
                 f"\t{body:16x} fp_body+0x0 ({prog})", f"\t{ret:16x} main+0x9 ({prog})"]:
        bad.append(f"text {lines}")
    js = [r for r in jlines(run("-f", "json", "--call-graph", "dwarf", "-i", f).stdout)
          if r.get("type") == "sample"]
    cc = [(int(c["ip"], 16), c.get("kernel", False)) for c in js[0].get("callchain", [])] \
        if js else []
    if cc != [(K + 0x10, True), (K + 0x150, True), (body, False), (ret, False)]:
        bad.append(f"JSON {cc}")
    fo = run("-f", "folded", "--call-graph", "dwarf", "-i", f).stdout.splitlines()
    if fo != ["kchain;main;fp_body;kc_middle_[k];kc_inner_[k] 1"]:
        bad.append(f"folded {fo}")
    if len([l for l in run("-i", f).stdout.splitlines() if l.startswith("\t")]) != 2:
        bad.append("without --call-graph: not the kernel frames alone")
    if shutil.which("perf"):
        pd = os.path.join(T, "kchain_user.data")
        run("convert", "--call-graph", "dwarf", "-i", f, "-o", pd)
        dump = subprocess.run(["perf", "script", "-D", "-i", pd], capture_output=True,
                              text=True).stdout
        raw = [int(x, 16) for x in re.findall(r"^\.+ +\d+: ([0-9a-f]+)$", dump, re.M)]
        if raw[:6] != [0xffffffffffffff80, K + 0x10, K + 0x150, 0xfffffffffffffe00, body, ret]:
            bad.append(f"perf.data's chain {[hex(x) for x in raw[:8]]}")
    report(not bad, what, "; ".join(bad))

# --- hostile samples and the minor-2 rule ----------------------------------
bad = []
kinds = {"nr128": "malformed kernel record", "overrun": "malformed kernel record",
         "long": "malformed kernel record", "tail_known": "malformed kernel record",
         "odd": "kernel record size disagrees with its item"}
for kind, msg in kinds.items():
    f = os.path.join(T, f"kchain_{kind}.prf")
    if subprocess.run([os.path.join(B, "mkkchain"), f, kind]).returncode:
        bad.append(f"{kind}: mkkchain failed")
        continue
    for args in (["-f", "json"], ["-f", "folded"], ["convert", "-o", f + ".data"]):
        p = subprocess.run([TOOL] + args + ["-i", f], capture_output=True, text=True)
        rs = jlines(p.stdout)
        times = [r.get("time") for r in rs if r.get("type") in ("sample", "not JSON")]
        summ = [r for r in rs if r.get("type") == "summary"]
        mal = summ[0]["malformed"] if summ else None
        if p.returncode != 4 or msg not in p.stderr or \
                (args[1] == "json" and (times != [2000000, 2000001] or
                                        mal != (0 if kind == "odd" else 1))):
            bad.append(f"{kind} {args[1]}: exit {p.returncode}, samples {times}, "
                       f"malformed {mal}, {p.stderr.strip()[:100]!r}")
report(not bad, "a hostile kernel call chain is a malformed record, no crash: nr 128, nr past "
       "the record, 8 bytes no section explains, a size not 8-aligned; exit 4, the samples "
       "before it decoded", "; ".join(bad[:4]) or "5 kinds x JSON, folded, convert")

bad = []
f = os.path.join(T, "kchain_tail.prf")
subprocess.run([os.path.join(B, "mkkchain"), f, "tail"])
p = run("-f", "json", "-i", f)
rs = jlines(p.stdout)
times = [r["time"] for r in rs if r["type"] == "sample"]
mal = [r["malformed"] for r in rs if r["type"] == "sample" or r["type"] == "summary"
       if "malformed" in r]
third = [r for r in rs if r.get("time") == 2000002]
if p.returncode or times != [2000000 + i for i in range(4)] or mal != [0] or \
        not third or third[0].get("stack") != {"size": 16, "copied": 16} or \
        [c["sym"] for c in third[0].get("callchain", [])] != [n for _, n in CHAINS[1000000]]:
    bad.append(f"flag 0x8000: exit {p.returncode}, samples {times}, malformed {mal}, "
               f"{p.stderr.strip()[:100]!r}")
p = run("-f", "json", "-i", os.path.join(T, "kchain_tail_known.prf"))
if p.returncode != 4:
    bad.append(f"no unknown flag: exit {p.returncode}")
report(not bad, "ABI minor 2's rule: a sample with a flag no module has yet (0x8000) and 16 bytes "
       "after its stack is decoded, its sections as without them; without that flag it is "
       "malformed", "; ".join(bad))

# --- the recording's header, -v ------------------------------------------------
data = open(rec, "rb").read()
hsize, version = struct.unpack_from("<II", data, 8)
kmax = struct.unpack_from("<I", data, hsize - 8)[0]
v = subprocess.run([TOOL, "-q", "-v", "--summary", "-i", rec], capture_output=True, text=True)
simd = os.path.join(T, "kchain_nochain.prf")
subprocess.run([os.path.join(B, "mkrec"), simd, "1"])
h3 = struct.unpack_from("<II", open(simd, "rb").read(), 8)
report(hsize == 168 and version == 4 and kmax == 127 and h3 == (160, 3) and
       "kernel call chains of 127 entries at most" in v.stderr,
       "a session with kernel call chains is recorded in format 4 (a 136-byte session, its "
       "kchain_max; -v says it), one without in format 3 as before",
       f"header {hsize} bytes, format {version}, kchain_max {kmax}; without: {h3}; -v: "
       f"{[l for l in v.stderr.splitlines() if 'session:' in l]}")

# --- the options ------------------------------------------------------------------
what = "--kernel-callchain[=N] takes 1 to 127, not with EVENT:u or -i; --no-kernel-callchain"
if os.path.exists("/dev/perfregs"):
    print(f"ok - {what} # SKIP a module is loaded here: the options would sample")
else:
    bad = []
    for args, rc, msg in (
            (["--kernel-callchain"], 2, "cannot open /dev/perfregs"),
            (["--kernel-callchain=1"], 2, "cannot open /dev/perfregs"),
            (["--kernel-callchain=127"], 2, "cannot open /dev/perfregs"),
            (["--kernel-callchain=0"], 1, "--kernel-callchain takes 1 to 127 entries, not '0'"),
            (["--kernel-callchain=128"], 1, "takes 1 to 127 entries, not '128'"),
            (["--kernel-callchain=x"], 1, "takes 1 to 127 entries, not 'x'"),
            (["--kernel-callchain", "-e", "cpu-clock:u"], 1,
             "--kernel-callchain walks the kernel's stack of kernel-mode samples, and "
             "cpu-clock:u samples user mode only"),
            (["--kernel-callchain", "--no-kernel-callchain", "-e", "cpu-clock:u"], 2,
             "cannot open /dev/perfregs"),
            (["-e", "cycles:u", "--kernel-callchain=8"], 1, "cycles:u samples user mode only")):
        p = subprocess.run([TOOL, "-q"] + args + ["-a", "-d", "1"], capture_output=True,
                           text=True)
        if p.returncode != rc or msg not in p.stderr:
            bad.append(f"{' '.join(args)}: exit {p.returncode} {p.stderr.strip()[:100]!r}")
    p = run("--kernel-callchain", "-i", rec)
    if p.returncode != 1 or "-i takes no --kernel-callchain" not in p.stderr:
        bad.append(f"--kernel-callchain with -i: exit {p.returncode}")
    report(not bad, what, "; ".join(bad[:4]) or "9 command lines, each taken (as far as the "
           "device) or refused (exit 1, named); -i refuses it")

sys.exit(1 if failed else 0)
