#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Frame-pointer user call chains (--call-graph fp), against perf record
--call-graph fp, in a guest.

fpchain_64, fpchain_32 and fpchain_x32 (selftests/fpchain.c, -O1
-fno-omit-frame-pointer -static; x32's frames are 8-byte slots of
32-bit values, walked as 64-bit frames, as perf walks them; its three
results are skipped with the reason when the kernel runs no x32
program, and it has no hostile run: no kernel address fits its
pointers) run main > fp_a > fp_b > fp_c, no
function inlined or tail-called; fp_c spins in user mode ("spin"),
read()s /dev/zero 64 KiB at a time ("read": the samples in the kernel's
read path, the user leaf libc's frameless read() wrapper, and for i386
the vDSO's __kernel_vsyscall below it), or spins with a corrupt frame
pointer ("hostile").  mixed_fp_64 (selftests/mixed_fp.c) is a 64-bit
task spinning in 32-bit code (cs 0x23) under a real 32-bit frame chain,
mfp_code32 > m32_a > m32_b > m32_c, whose return addresses it prints.
Each is run under

    perfregs-dump -q -f json --call-graph fp -c 1000000 -- WORKLOAD MODE SECS

(cpu-clock every 1 ms) and, for the comparisons, under perf record -e
cpu-clock -c 1000000 --call-graph fp of the same workload and mode.  A
sample's user chain is its frames outside the kernel (JSON: no
"kernel": true, an address below 0xffff800000000000; perf's the same
way), leaf first, each named by its function, the "+0x..." offset cut.
Kernel frames are named from /proc/kallsyms as test_kchain.py names
them, the same way for both tools.  Criteria, one KTAP result each:

fp_user_N (spin): of fpchain_N's user-mode samples whose IP is in fp_c
  (the sample's own symbol), at least MIN_SAMPLES, and at least FULL%
  have fp_c, fp_b, fp_a, main as their first four user frames.
  (On the build host, perf 6.1 on a 6.18 kernel: 994 of 994 and 867 of
  867 samples in fp_c had that chain from perf, for -m64 and -m32; the
  exceptions can only be samples in fp_c's prologue or epilogue, whose
  frame is not made yet, a few instructions of the ~1 ms each call of
  fp_c spins.)
fp_kernel_N (read): of fpchain_N's kernel-mode samples in the read path
  (vfs_read in the kernel chain: past the syscall entry, where an i386
  task's saved ebp is not yet fetched from the vDSO's stack and perf's
  walk starts from a garbage frame), at least MIN_SAMPLES, and at least
  FULL% have the user chain WRAPPER..., fp_c, fp_b, fp_a, main: one to
  three frames of libc's read() (and the vDSO) before fp_c, none of
  them fp_* or main.  fp_c is there only if the leaf is unwound by its
  CFI: libc's read() keeps no frame pointer, so the walk from the
  entry's bp starts at fp_c's frame, whose return address is into
  fp_b.  (Host, perf 6.1: every read-path sample's chain was __libc_read
  < fp_b < fp_a < main for -m64, __kernel_vsyscall < fp_b < fp_a < main
  for -m32, where read() itself is lost too; 0% with fp_c.)
fp_vs_perf_N: perf record --call-graph fp of spin and of read:
  user-mode samples in fp_c, our share with the whole chain at least
  perf's less 3 points; kernel-mode read-path samples, our share with
  fp_c (as fp_kernel_N counts it) at least perf's (perf's is about 0:
  it loses fp_c, above).  Skipped (with the reason) when perf cannot
  record here.
fp_hostile_N: fpchain_N hostile SECS (bp pointing at itself, into the
  kernel (i386: 0xfffffffc, past which a frame runs over 4 GiB), into an
  unmapped page, at a misaligned self-pointing word; a kind each 100 ms):
  the run ends in time and perfregs-dump exits 0; at least MIN_SAMPLES
  samples in the corrupt spin, at least KIND_MIN of each kind (told by
  the sample's user bp), of which at least FULL% say how the walk ended
  (the JSON's uchain: bad_frame for the self, kernel and misaligned
  kinds, fault for the unmapped one); no sample's user chain longer than HANDFUL
  frames (perf's chains of the self and misaligned kinds are 127 frames
  deep, its limit: on the host 462 of 963 -m64 samples, 497 of 998
  -m32); the kernel log (/dev/kmsg from before the run to after it) has
  no new line that selftests/klog.sh's BAD matches.
fp_mixed: mixed_fp_64's user-mode samples whose IP is in m32_c's loop:
  at least MIN_SAMPLES, and at least FULL% have the user chain, by
  address, [the IP, ret_b, ret_a, ret_0] (the return addresses into
  m32_b, m32_a and mfp_code32 it prints; the walk uses 4-byte slots
  from the 32-bit ebp: the frame's CS is 0x23).  (Host, perf 6.1: 1002
  of 1002 samples had m32_c < m32_b < m32_a < mfp_code32.)
fp_mixed_vs_perf: perf's samples of the same workload whose leaf is
  m32_c: our share of whole chains at least perf's (by name: m32_c,
  m32_b, m32_a, mfp_code32) less 3 points.  Skipped when perf cannot
  record here.

Output is KTAP; $PERFREGS_FPCHAIN_KEEP=DIR keeps every output in DIR.
Bounded: each run is cut after its timeout (times
$PERFREGS_TIMEOUT_SCALE), and fails then.
"""
import bisect
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import measure  # noqa: E402  (selftests/measure.py)

BUILD = os.environ.get("PERFREGS_BUILD", "build")
TOOL = os.path.abspath(os.path.join(BUILD, "perfregs-dump"))
ST = os.path.abspath(os.path.join(BUILD, "selftests"))
TSCALE = float(os.environ.get("PERFREGS_TIMEOUT_SCALE", "1") or 1)
SECS = 2		# 1400 to 1500 samples a run in fp_c at 1 ms: 30x MIN_SAMPLES
HOSTILE_SECS = 2
MIN_SAMPLES = 50
FULL = 90.0		# perf on the build host: 100% (spin, mixed); see the docstring
HANDFUL = 16		# a whole chain here is 5 to 9 frames; perf loops to 127
KIND_MIN = 5		# 2 s: 5 windows of 100 ms of each kind
KERNEL_MIN = 0xffff800000000000
WANT = ["fp_c", "fp_b", "fp_a", "main"]
KINDS = ("self", "kernel", "unmapped", "misaligned")
# the status bit each kind must end with (6.12, 2026-12-07: every sample
# of each kind, 391 to 475 of them, -m64 and -m32)
KIND_STATUS = {"self": "bad_frame", "kernel": "bad_frame", "unmapped": "fault",
               "misaligned": "bad_frame"}
KEEP = os.environ.get("PERFREGS_FPCHAIN_KEEP")
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


def run(cmd, timeout):
    """(status, stdout, stderr); status "timeout" when cut after timeout s."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             errors="replace", start_new_session=True, cwd=TMP)
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
        os.makedirs(KEEP, exist_ok=True)
        with open(os.path.join(KEEP, tag), "w") as f:
            f.write(text)


KSYMS = ([], [])	# addresses, names: /proc/kallsyms' text symbols, sorted


def load_kallsyms():
    rows = []
    with open("/proc/kallsyms") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 3 and parts[1] in "tTwW":
                rows.append((int(parts[0], 16), parts[2]))
    rows.sort()
    KSYMS[0][:] = [a for a, _ in rows]
    KSYMS[1][:] = [n for _, n in rows]


def kname(addr, ret):
    """the kernel function at addr, at addr - 1 for a return address"""
    i = bisect.bisect_right(KSYMS[0], addr - 1 if ret else addr) - 1
    return KSYMS[1][i] if i >= 0 else "[unknown]"


def bare(sym):
    return sym.rsplit("+0x", 1)[0] if "+0x" in sym else sym


def top(chains, n=2000):
    """the most common chain of the first n, and its count"""
    counts = {}
    for c in chains[:n]:
        counts[tuple(c)] = counts.get(tuple(c), 0) + 1
    return max(counts.items(), key=lambda kv: kv[1], default=((), 0))


def info_line(out, prefix):
    """the workload's own line (it shares stdout with the JSON): key=value"""
    m = re.search(prefix + r" abi=\S+[^\n{]*", out)
    if not m:
        return None
    return dict(kv.split("=", 1) for kv in m.group(0).split()[1:] if "=" in kv)


class Sample:
    """a sample of ours or of perf: mode, own symbol, user registers, the
    kernel chain (names), the user chain [(ip, name)], uchain status"""
    def __init__(self, kernel, sym, uregs, kchain, uchain, ustat=()):
        self.kernel, self.sym, self.uregs = kernel, sym, uregs
        self.kchain, self.uchain, self.ustat = kchain, uchain, ustat

    def unames(self):
        return [n for _, n in self.uchain]

    def ureg(self, *names):
        for n in names:
            if n in self.uregs:
                return int(self.uregs[n], 16)
        return None


def our_samples(out, comm):
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") != "sample" or r.get("comm") != comm[:15]:
            continue
        kframes, uframes = [], []
        for f in r.get("callchain") or []:
            ip = int(f.get("ip", "0"), 16)
            if f.get("kernel") or ip >= KERNEL_MIN:
                kframes.append(ip)
            else:
                uframes.append((ip, bare(f.get("sym", "")) or "[unknown]"))
        kchain = [kname(a, i > 0) for i, a in enumerate(kframes)]
        # how the walk ended: {"nr":N,"truncated":…,"fault":…,"bad_frame":…,"nested":…}
        uc = r.get("uchain") or {}
        ustat = tuple(k for k, v in uc.items() if v is True) + tuple(uc.get("status") or ())
        yield Sample(r.get("mode") == "kernel", bare(r.get("sym", "")), r.get("uregs") or {},
                     kchain, uframes, ustat)


def perf_samples(out, comm):
    """perf script -F comm,ip,sym: a line with the comm, then a frame a
    line (ip, symbol), a blank line.  perf 6.1 prints a user frame's ip
    relative to its mapping: only its name is compared."""
    cur, cur_comm = None, None
    for line in out.splitlines() + [""]:
        if line and not line[0].isspace():
            cur_comm, cur = line.strip(), []
            continue
        m = re.match(r"\s+([0-9a-f]+)\s+(\S+)", line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), bare(m.group(2))))
            continue
        if cur and cur_comm == comm[:15]:
            kframes = [a for a, _ in cur if a >= KERNEL_MIN]
            uframes = [(a, n) for a, n in cur if a < KERNEL_MIN]
            kernel = cur[0][0] >= KERNEL_MIN
            sym = kname(cur[0][0], False) if kernel else cur[0][1]
            yield Sample(kernel, sym, {}, [kname(a, i > 0) for i, a in enumerate(kframes)],
                         uframes)
        cur = None


def ours(wl, args, tag, timeout=None):
    """(status, samples, the workload's line, note)"""
    st, out, err = run([TOOL, "-q", "-f", "json", "--call-graph", "fp", "-c", "1000000",
                        "--", wl] + args, timeout or 60 + 10 * SECS)
    keep(tag + ".jsonl", out)
    keep(tag + ".stderr", err)
    comm = os.path.basename(wl)
    samples = list(our_samples(out, comm))
    line = info_line(out, "mixed_fp" if comm.startswith("mixed_fp") else "fpchain")
    note = f"exit {st}" + (f", stderr {err.strip()[-300:]!r}" if st != 0 else "")
    return st, samples, line, note


def perf_run(perf, wl, args, tag):
    """(samples, note): samples None when perf failed"""
    data = os.path.join(TMP, tag + ".perf.data")
    st, _, err = run([perf, "record", "-q", "-e", "cpu-clock", "-c", "1000000",
                      "--call-graph", "fp", "-o", data, "--", wl] + args, 60 + 10 * SECS)
    if st != 0:
        return None, f"perf record --call-graph fp fails here: exit {st}, {err.strip()[-200:]!r}"
    st, out, err = run([perf, "script", "-i", data, "-F", "comm,ip,sym"], 120)
    keep(tag + ".perf.txt", out)
    if st != 0:
        return None, f"perf script: exit {st}, {err.strip()[-200:]!r}"
    return list(perf_samples(out, os.path.basename(wl))), "ok"


def perf_works(perf):
    if not perf:
        return "perf is not installed"
    data = os.path.join(TMP, "probe.data")
    st, _, err = run([perf, "record", "-q", "--call-graph", "fp", "-e", "cpu-clock", "-o",
                      data, "--", "/bin/true"], 60)
    if st != 0:
        return f"perf record --call-graph fp fails here: exit {st}, {err.strip()[-200:]!r}"
    return ""


def statuses(samples):
    counts = {}
    for s in samples:
        for k in s.ustat:
            counts[k] = counts.get(k, 0) + 1
    return counts


def user_share(samples):
    """user-mode samples in fp_c: (their count, with the whole chain, %, chains)"""
    inc = [s for s in samples if not s.kernel and s.sym == "fp_c"]
    whole = sum(1 for s in inc if s.unames()[:4] == WANT)
    return len(inc), whole, 100.0 * whole / len(inc) if inc else 0.0, [s.unames() for s in inc]


def has_read_chain(names):
    """WRAPPER... (1 to 3 frames, none of ours), then fp_c, fp_b, fp_a, main"""
    if "fp_c" not in names:
        return False
    k = names.index("fp_c")
    return 1 <= k <= 3 and not set(names[:k]) & set(WANT) and names[k:k + 4] == WANT


def kernel_share(samples):
    """kernel-mode samples in the read path: (count, with fp_c..main, %, chains)"""
    inr = [s for s in samples if s.kernel and "vfs_read" in s.kchain]
    good = sum(1 for s in inr if has_read_chain(s.unames()))
    return len(inr), good, 100.0 * good / len(inr) if inr else 0.0, [s.unames() for s in inr]


def show(chain):
    return " < ".join(chain) if chain else "(none)"


def check(abi, perf, why_no_perf):
    wl = os.path.join(ST, f"fpchain_{abi}")
    names = [f"fp_user_{abi}", f"fp_kernel_{abi}", f"fp_vs_perf_{abi}"]
    if abi != "x32":	# no kernel address fits an x32 pointer
        names.append(f"fp_hostile_{abi}")
    if not os.path.exists(wl):
        for n in names:
            skip(n, f"no {wl} (gcc-multilib)")
        return
    if abi == "x32" and not x32_runs(wl):
        for n in names:
            skip(n, "this kernel runs no x32 program (boot it with syscall.x32=y)")
        return
    tag = f"fpchain_{abi}"

    # spin: user-mode samples in fp_c
    st, spin, _, note = ours(wl, ["spin", str(SECS)], tag + ".spin")
    n, whole, ushare, chains = user_share(spin)
    ok = measure(f"fp_user_{abi}_samples", n, ">=", MIN_SAMPLES)
    ok = measure(f"fp_user_{abi}_whole_pct", ushare, ">=", FULL) and ok
    t = top(chains)
    report(st == 0 and ok, names[0],
           f"{note}; {len(spin)} samples, {n} user-mode in fp_c, {whole} ({ushare:.1f}%) "
           f"with {show(WANT)} first; most common: {show(t[0])} ({t[1]}); "
           f"uchain status {statuses(spin)}")

    # read: kernel-mode samples in the read path
    st, rd, _, note = ours(wl, ["read", str(SECS)], tag + ".read")
    kn, kgood, kshare, kchains = kernel_share(rd)
    nkernel = sum(1 for s in rd if s.kernel)
    ok = measure(f"fp_kernel_{abi}_samples", kn, ">=", MIN_SAMPLES)
    ok = measure(f"fp_kernel_{abi}_with_fp_c_pct", kshare, ">=", FULL) and ok
    t = top(kchains)
    bad = next((c for c in kchains if not has_read_chain(c)), None)
    report(st == 0 and ok, names[1],
           f"{note}; {len(rd)} samples, {nkernel} kernel-mode, {kn} in vfs_read, {kgood} "
           f"({kshare:.1f}%) with read()'s frames then {show(WANT)}; most common: "
           f"{show(t[0])} ({t[1]}); first other: {show(bad) if bad else '-'}; "
           f"uchain status {statuses(rd)}")

    # against perf
    if why_no_perf:
        skip(names[2], why_no_perf)
    else:
        pspin, pnote = perf_run(perf, wl, ["spin", str(SECS)], tag + ".spin")
        prd, pnote2 = (perf_run(perf, wl, ["read", str(SECS)], tag + ".read")
                       if pspin is not None else (None, pnote))
        if pspin is None or prd is None:
            skip(names[2], pnote if pspin is None else pnote2)
        else:
            pn, pwhole, pushare, pchains = user_share(pspin)
            pkn, pkgood, pkshare, pkchains = kernel_share(prd)
            ok = measure(f"fp_vs_perf_{abi}_user_pct_over_perf", ushare - pushare, ">=", -3.0)
            ok = measure(f"fp_vs_perf_{abi}_kernel_pct_over_perf", kshare - pkshare,
                         ">=", 0.0) and ok
            ok = ok and pn > 0 and pkn > 0
            pt, pkt = top(pchains), top(pkchains)
            report(ok, names[2],
                   f"user-mode in fp_c with the whole chain: ours {ushare:.1f}% of {n}, "
                   f"perf's {pushare:.1f}% of {pn} (most common {show(pt[0])} ({pt[1]})); "
                   f"read path with fp_c: ours {kshare:.1f}% of {kn}, perf's "
                   f"{pkshare:.1f}% of {pkn} (most common {show(pkt[0])} ({pkt[1]}))")

    if len(names) > 3:
        hostile(abi, wl, names[3])


BAD_DEFAULT = r"WARNING:|BUG:|Oops|general protection|KASAN|UBSAN"


def bad_re():
    """selftests/klog.sh's BAD: what in the kernel log fails a run"""
    try:
        with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "klog.sh")) as f:
            m = re.search(r"^BAD='([^']*)'", f.read(), re.M)
            if m:
                return re.compile(m.group(1))
    except OSError:
        pass
    return re.compile(BAD_DEFAULT)


def kmsg_open():
    """/dev/kmsg at its end, or None"""
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        os.lseek(fd, 0, os.SEEK_END)
        return fd
    except OSError:
        return None


def kmsg_read(fd):
    """the kernel log's records since kmsg_open() (their text)"""
    lines = []
    while True:
        try:
            rec = os.read(fd, 8192).decode(errors="replace")
        except BlockingIOError:
            break
        except BrokenPipeError:
            lines.append("(kernel log records overwritten before they were read)")
            continue
        except OSError as e:
            lines.append(f"(kernel log: {e})")
            break
        if not rec:
            break
        head, _, text = rec.partition(";")
        lines.append(text.split("\n", 1)[0])
    os.close(fd)
    return lines


def hostile(abi, wl, name):
    kfd = kmsg_open()
    st, samples, line, note = ours(wl, ["hostile", str(HOSTILE_SECS)], f"fpchain_{abi}.hostile",
                                   60 + 10 * HOSTILE_SECS)
    log = kmsg_read(kfd) if kfd is not None else None
    bad = bad_re()
    badlines = [l for l in log or [] if bad.search(l) and
                ("KCSAN" not in l or "[perfregs]" in l)]
    if not line:
        report(False, name, f"{note}; no 'fpchain abi=' line from the workload")
        return
    lo, hi = (int(x, 16) for x in line["loop"].split("-"))
    kind_of = {int(line[k], 16): k for k in KINDS}
    ipreg, bpreg = ("rip", "rbp") if abi == "64" else ("eip", "ebp")
    per_kind = {k: [] for k in KINDS}
    inloop = 0
    for s in samples:
        ip = s.ureg(ipreg, "ip")
        if not s.kernel and ip is not None and lo <= ip < hi:
            inloop += 1
            k = kind_of.get(s.ureg(bpreg, "bp"))
            if k:
                per_kind[k].append(s)
    longest = max((len(s.uchain) for s in samples), default=0)
    deep = [s for s in samples if len(s.uchain) > HANDFUL]
    ok = measure(f"fp_hostile_{abi}_in_loop", inloop, ">=", MIN_SAMPLES)
    ok = measure(f"fp_hostile_{abi}_longest_chain", longest, "<=", HANDFUL) and ok
    for k in KINDS:
        ok = measure(f"fp_hostile_{abi}_{k}", len(per_kind[k]), ">=", KIND_MIN) and ok
        # how the module says the walk ended (struct perfregs_rec_uchain)
        said = sum(1 for x in per_kind[k] if KIND_STATUS[k] in x.ustat)
        ok = measure(f"fp_hostile_{abi}_{k}_{KIND_STATUS[k]}_pct",
                     100.0 * said / max(len(per_kind[k]), 1), ">=", FULL) and ok
    kinds = "; ".join(
        f"{k} {len(v)} (chain lengths {sorted({len(s.uchain) for s in v})}, "
        f"status {statuses(v)})" for k, v in per_kind.items())
    report(st == 0 and ok and log is not None and not badlines, name,
           f"{note}; {len(samples)} samples, {inloop} in the corrupt spin: {kinds}; "
           f"longest user chain {longest} frames, {len(deep)} over {HANDFUL}"
           f"{' e.g. ' + show(deep[0].unames()[:8]) if deep else ''}; kernel log: "
           + ("/dev/kmsg unreadable" if log is None else
              f"{len(log)} new records, {len(badlines)} bad"
              + (f", first {badlines[0][:200]!r}" if badlines else "")))


def mixed(perf, why_no_perf):
    wl = os.path.join(ST, "mixed_fp_64")
    if not os.path.exists(wl):
        skip("fp_mixed", f"no {wl}")
        skip("fp_mixed_vs_perf", f"no {wl}")
        return
    st, samples, line, note = ours(wl, [str(SECS)], "mixed_fp_64")
    if not line:
        report(False, "fp_mixed", f"{note}; no 'mixed_fp abi=' line from the workload")
        skip("fp_mixed_vs_perf", "no run of ours")
        return
    lo, hi = (int(x, 16) for x in line["loop"].split("-"))
    rets = [int(line[k], 16) for k in ("ret_b", "ret_a", "ret_0")]
    inloop = [s for s in samples if not s.kernel and s.ureg("eip", "rip", "ip") is not None
              and lo <= s.ureg("eip", "rip", "ip") < hi]
    whole = [s for s in inloop if len(s.uchain) >= 4 and lo <= s.uchain[0][0] < hi
             and [a for a, _ in s.uchain[1:4]] == rets]
    share = 100.0 * len(whole) / len(inloop) if inloop else 0.0
    ok = measure("fp_mixed_samples", len(inloop), ">=", MIN_SAMPLES)
    ok = measure("fp_mixed_whole_pct", share, ">=", FULL) and ok
    t = top([[f"{a:#x}" for a, _ in s.uchain] for s in inloop])
    tn = top([s.unames() for s in inloop])
    report(st == 0 and ok, "fp_mixed",
           f"{note}; {len(samples)} samples, {len(inloop)} user-mode in m32_c's loop, "
           f"{len(whole)} ({share:.1f}%) with the chain ip < {' < '.join(hex(r) for r in rets)}; "
           f"most common: {show(t[0])} ({t[1]}), by name {show(tn[0])}; "
           f"uchain status {statuses(samples)}")
    if why_no_perf:
        skip("fp_mixed_vs_perf", why_no_perf)
        return
    psamples, pnote = perf_run(perf, wl, [str(SECS)], "mixed_fp_64")
    if psamples is None:
        skip("fp_mixed_vs_perf", pnote)
        return
    want = ["m32_c", "m32_b", "m32_a", "mfp_code32"]
    pin = [s for s in psamples if not s.kernel and s.sym == "m32_c"]
    pwhole = sum(1 for s in pin if s.unames()[:4] == want)
    pshare = 100.0 * pwhole / len(pin) if pin else 0.0
    ok = measure("fp_mixed_pct_over_perf", share - pshare, ">=", -3.0)
    pt = top([s.unames() for s in pin])
    report(ok and bool(pin), "fp_mixed_vs_perf",
           f"ours {share:.1f}% of {len(inloop)} samples in m32_c's loop whole; perf's "
           f"{pshare:.1f}% of {len(pin)} in m32_c with {show(want)}; its most common: "
           f"{show(pt[0])} ({pt[1]})")


def x32_runs(wl):
    """Does this kernel run x32 programs?  (Debian's need syscall.x32=y.)
    No when it cannot exec one, kills it, or it cannot say its first
    line; a program that starts and then fails is for the test to fail."""
    try:
        p = subprocess.run([wl, "spin", "0"], capture_output=True, text=True,
                           timeout=30 * TSCALE)
    except OSError:
        return False
    except subprocess.TimeoutExpired:
        return True
    return p.returncode >= 0 and "fpchain abi=x32" in p.stdout


def main():
    global TMP
    print("TAP version 13")
    print("1..13")
    TMP = tempfile.mkdtemp(prefix="fpchain.")
    try:
        load_kallsyms()
        perf = shutil.which("perf")
        why_no_perf = perf_works(perf)
        for abi in ("64", "32", "x32"):
            check(abi, perf, why_no_perf)
        mixed(perf, why_no_perf)
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
