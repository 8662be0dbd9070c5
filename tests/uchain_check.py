#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Frame-pointer user call chains (ABI minor 3, PERFREGS_SF_UCHAIN),
decoded: tests/fpchain_target.c, built -O1 -fno-omit-frame-pointer for
-m64 (a PIE) and -m32 (if the compiler can), blocks in read() under
fp_c, called by fp_b, fp_a and main.  tests/mksnap stops it there
with ptrace and walks its frame pointers as the module does
(MKSNAP_FP), with 256 bytes of stack (what --call-graph fp copies) and
without.  Libc's read() keeps no frame pointer (and an i386 read goes
through the vDSO's __kernel_vsyscall too), so the frame pointer names
fp_c's frame and the chain alone goes from the leaf to fp_b, as perf
record -g's does: with the stack the decoder unwinds the leaf's frames
by their CFI until they meet the chain, and fp_c is kept.  Each
criterion is one KTAP line:

uchain_N: with the stack, script -f json -g's user frames are, from the
  leaf, the read path (names holding "read" or "vsyscall"), then fp_c,
  fp_b, fp_a, main; -f folded has main;fp_a;fp_b;fp_c in that order.
uchain_N_nostack: without it, the same chain lacks fp_c and has fp_b
  after the read path (what the leaf's CFI adds is not in the chain).
uchain_N_nocfi: a sample without its user SP (mksnap's
  MKSNAP_UREGS), whose leaf nothing can unwind: each frame of the chain
  still names its file, and the first four their functions (the leaf's
  too; libc's start of an i386 program has no symbol there).
uchain_N_nested: a sample whose chain the module could not walk
  (NESTED, no entry) is unwound from its stack by CFI alone: the read
  path, fp_c, fp_b, fp_a, main.
uchain_N_perf: through convert, perf script of the perf.data names
  fp_c, fp_b, fp_a and main in that order (skipped without perf).
uchain_hostile: a chain section whose nr is past PERFREGS_MAX_UCHAIN,
  or past the record's end, is a malformed record (exit 4), never read.
usage: uchain_check.py BUILD TMPDIR     prints KTAP lines; exit 1 on failure"""
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time

B, T = sys.argv[1], sys.argv[2]
TOOL = os.path.join(B, "perfregs-dump")
HERE = os.path.dirname(os.path.abspath(__file__))
failed = False
CHAIN = ["fp_c", "fp_b", "fp_a", "main"]


def report(ok, what, detail=""):
    global failed
    failed |= not ok
    print(f"{'ok' if ok else 'not ok'} - {what}" + (f"\n# {detail}" if detail and not ok else ""))


def bare(sym):
    return re.sub(r"\+0x[0-9a-f]+$", "", sym or "")


def snapshot(prog, stack, out, uregs=None, nested=False):
    """prog stopped in its read(), as a sample with a frame-pointer chain"""
    proc = subprocess.Popen([prog], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        proc.stdout.readline()		# "ready": in fp_c, about to read
        time.sleep(0.2)			# blocked in read() now
        env = dict(os.environ, MKSNAP_FP="127")
        if uregs is not None:
            env["MKSNAP_UREGS"] = hex(uregs)
        if nested:
            env["MKSNAP_FP_NESTED"] = "1"
        return subprocess.run([os.path.join(B, "mksnap"), out, str(stack), str(proc.pid)],
                              env=env, capture_output=True, text=True).returncode == 0
    finally:
        proc.kill()
        proc.wait()


def user_frames(rec):
    p = subprocess.run([TOOL, "script", "-q", "-i", rec, "-f", "json", "-g"],
                       capture_output=True, text=True)
    for line in p.stdout.splitlines():
        r = json.loads(line)
        if r.get("type") == "sample":
            return [bare(f.get("sym")) for f in r.get("callchain", [])
                    if not f.get("kernel")], r.get("uchain")
    return [], None


def read_path(names):
    """the leaf frames of the system call, then what follows them"""
    i = 0
    while i < len(names) and ("read" in names[i] or "vsyscall" in names[i]):
        i += 1
    return i, names[i:]


def check(abi, prog):
    with_st, no_st = os.path.join(T, f"uc{abi}.prf"), os.path.join(T, f"uc{abi}_0.prf")
    if not snapshot(prog, 256, with_st) or not snapshot(prog, 0, no_st):
        report(False, f"uchain_{abi}: mksnap failed")
        return
    names, uc = user_frames(with_st)
    k, rest = read_path(names)
    fold = subprocess.run([TOOL, "script", "-q", "-i", with_st, "-f", "folded", "-g"],
                          capture_output=True, text=True).stdout.replace("_[i386]", "")
    report(k >= 1 and rest[:4] == CHAIN and uc and uc["nr"] >= 4 and
           "main;fp_a;fp_b;fp_c;" in fold,
           f"uchain_{abi}: the read path, then fp_c, fp_b, fp_a, main (the leaf unwound "
           f"by CFI up to the chain)", f"frames {names}, uchain {uc}, folded {fold[:300]!r}")
    names0, uc0 = user_frames(no_st)
    k0, rest0 = read_path(names0)
    report(k0 >= 1 and rest0[:3] == CHAIN[1:] and "fp_c" not in names0,
           f"uchain_{abi}_nostack: without the stack the chain goes from the read path "
           f"to fp_b, as perf's", f"frames {names0}, uchain {uc0}")
    nest = os.path.join(T, f"uc{abi}_nested.prf")
    snapshot(prog, 256, nest, nested=True)
    names2, uc2 = user_frames(nest)
    k2, rest2 = read_path(names2)
    report(k2 >= 1 and rest2[:4] == CHAIN and uc2 and uc2["nr"] == 0 and uc2["nested"],
           f"uchain_{abi}_nested: a chain not walked (NESTED) leaves the stack to CFI",
           f"frames {names2}, uchain {uc2}")
    nosp = os.path.join(T, f"uc{abi}_nosp.prf")
    snapshot(prog, 256, nosp, ~(1 << 7) & ((1 << 24) - 1))	# all but sp (7)
    p = subprocess.run([TOOL, "script", "-q", "-i", nosp, "-f", "json", "-g"],
                       capture_output=True, text=True)
    chain = next((r.get("callchain", []) for r in map(json.loads, p.stdout.splitlines())
                  if r.get("type") == "sample"), [])
    report(len(chain) >= 4 and all(f.get("dso") for f in chain) and
           all(f.get("sym") for f in chain[:4]),
           f"uchain_{abi}_nocfi: a sample without its SP: every frame of the chain names its "
           f"file, the leaf and its callers their functions", f"exit {p.returncode}, chain {chain}")
    perf = shutil.which("perf")
    if not perf:
        print(f"ok - uchain_{abi}_perf # SKIP no perf here")
        return
    pd = os.path.join(T, f"uc{abi}.data")
    c = subprocess.run([TOOL, "convert", "-q", "-i", with_st, "-o", pd],
                       capture_output=True, text=True)
    ps = subprocess.run([perf, "script", "-i", pd, "-F", "ip,sym"], capture_output=True,
                        text=True)
    syms = [ln.split()[1] for ln in ps.stdout.splitlines() if len(ln.split()) >= 2]
    got = [s for s in syms if s in CHAIN]
    report(c.returncode == 0 and got == CHAIN, f"uchain_{abi}_perf: perf script of the "
           f"converted perf.data names fp_c, fp_b, fp_a, main in order",
           f"convert exit {c.returncode} {c.stderr[-200:]!r}; perf script: {syms}")


def hostile(rec):
    """the chain section's nr made too large for the module, then for the record"""
    data = bytearray(open(rec, "rb").read())
    names, uc = user_frames(rec)
    head = struct.pack("<II", uc["nr"], 0x4) if uc and uc["bad_frame"] else None
    at = data.find(head) if head else -1
    if at < 0:
        head = struct.pack("<II", uc["nr"], 0) if uc else b"x"
        at = data.find(head)
    bad = []
    for nr in (128, 0xffffffff, uc["nr"] + 1 if uc else 1):
        if at < 0:
            bad.append("no chain section found in the recording")
            break
        d = bytearray(data)
        d[at:at + 4] = struct.pack("<I", nr)
        path = os.path.join(T, "uc_hostile.prf")
        open(path, "wb").write(d)
        p = subprocess.run([TOOL, "script", "-q", "-i", path, "-f", "json", "-g"],
                           capture_output=True, text=True, timeout=60)
        if p.returncode != 4 or "fp_b" in p.stdout:
            bad.append(f"nr {nr}: exit {p.returncode}, {p.stderr.strip()[-200:]!r}")
    report(not bad, "uchain_hostile: a chain past 127 entries or past its record is a "
           "malformed record (exit 4)", "; ".join(bad))


src = os.path.join(HERE, "fpchain_target.c")
built = {}
for abi, flag in (("64", "-m64"), ("32", "-m32")):
    prog = os.path.join(T, f"fpchain_target_{abi}")
    if subprocess.run(["gcc", flag, "-O1", "-g", "-fno-omit-frame-pointer", "-o", prog, src],
                      capture_output=True).returncode == 0:
        built[abi] = prog
if "64" not in built:
    report(False, "uchain: tests/fpchain_target.c could not be built (gcc)")
    sys.exit(1)
for abi in ("64", "32"):
    if abi in built:
        check(abi, built[abi])
    else:
        for t in ("", "_nostack", "_nested", "_nocfi", "_perf"):
            print(f"ok - uchain_32{t} # SKIP gcc -m32 cannot build here (gcc-multilib)")
hostile(os.path.join(T, "uc64.prf"))
sys.exit(1 if failed else 0)
