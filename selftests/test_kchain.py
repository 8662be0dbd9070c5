#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Kernel call chains (--kernel-callchain), against perf record -g, in a
guest.

readzero_64 and readzero_32 (selftests/readzero.c) read() /dev/zero in
a loop for SECS seconds; nearly every sample lands in the kernel's read
path.  Each is run under

    perfregs-dump -q -f json --kernel-callchain -c 1000000 -- readzero_N SECS

(cpu-clock every 1 ms) and under perf record -e cpu-clock -c 1000000 -g
of the same workload.  A kernel-mode sample's kernel chain is its
frames in the kernel (JSON "kernel": true; perf: addresses at or above
0xffff800000000000), each frame named here, the same way for both
tools, from /proc/kallsyms: the interrupted IP by its own address, a
return address by the byte before it (the call), as perfregs-dump names
it (perf script names a return address by itself: a call that ends a
function, as entry_SYSCALL_compat's call of do_fast_syscall_32 does,
is named by the label after it, sysret32_from_system_call).  A chain is "a read"
when, from the leaf out, it holds read_zero, then vfs_read, and its
outermost kernel frame is a syscall entry (entry_SYSCALL_64..., for
i386 entry_SYSENTER_compat... or entry_INT80_compat...).  Criteria, one
KTAP result each per workload:

kchain_N: of readzero_N's kernel-mode samples, at least MIN_SAMPLES and
  IN_READ% hold vfs_read (the workload is in its read()s; the rest are
  interrupts, faults, exit), and of those at least FULL% are whole
  reads (the walk went from the leaf through read_zero and vfs_read to
  the syscall entry); no chain is of one frame (the interrupted IP
  alone: the walk did not start).
kchain_N_vs_perf: perf's kernel-mode samples of the same workload: our
  share of whole reads among those in vfs_read is at least perf's less
  3 points (two runs apart: on 6.12-rt ours and perf's were 97.4% and
  96.4%, 96.7% and 97.6%, 95.2% and 96.9% in three runs), and at least SAME% of our chains are, frame for frame, chains
  perf gave too.  Skipped (with the reason) when perf cannot record
  here, or records no kernel chains.

kchain_switch: context switches (-e context-switches -c 1), whose
  registers the perf core makes (perf_fetch_caller_regs(): the walk
  starts at its caller's frame) of a shell sleeping SWITCHES times: at
  least SWITCHES / 2 kernel-mode samples, of which at least NMI_DEEP%
  have 3 frames or more, one of them a scheduler's (its name holds
  "schedule": the sample's own IP, __schedule, is not in the chain, as
  perf leaves it out), and no frame of the switch event's own path in
  the perf core or of this module (PERF_PATH).  (On PREEMPT_RT a
  sleeping lock in the perf core may switch: perf_event_mmap() and the
  like are other paths.)
kchain_nmi: the raw NMI hook (-e nmi --nmi-unknown -a, the host's NMIs
  of tools/vm/run --nmi-hz) for NMI_SECS seconds: at least NMI_MIN
  kernel-mode samples, of which at least NMI_DEEP% have chains of 3
  frames or more, every frame named from /proc/kallsyms.  Skipped
  without injected NMIs.

Output is KTAP; $PERFREGS_KCHAIN_KEEP=DIR keeps every output in DIR.
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

BUILD = os.environ.get("PERFREGS_BUILD", "build")
TOOL = os.path.abspath(os.path.join(BUILD, "perfregs-dump"))
ST = os.path.abspath(os.path.join(BUILD, "selftests"))
TSCALE = float(os.environ.get("PERFREGS_TIMEOUT_SCALE", "1") or 1)
SECS = 3
MIN_SAMPLES = 50
IN_READ = 50.0
FULL = 90.0		# 97.8% and 96.7% on 6.12-rt (perf's: 97.1%, 97.6%)
PERF_PATH = ("prf_", "perf_swevent", "___perf_sw_event", "__perf_sw_event",
             "perf_tp_event", "__perf_event_task_sched", "perf_event_task_sched")
SAME = 90.0
NMI_SECS = 3
SWITCHES = 40
NMI_MIN = 5
NMI_DEEP = 80.0
KERNEL_MIN = 0xffff800000000000
KEEP = os.environ.get("PERFREGS_KCHAIN_KEEP")
ENTRY = {"64": ("entry_SYSCALL_64",),
         "32": ("entry_SYSENTER_compat", "entry_INT80_compat", "entry_SYSCALL_compat")}
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


def named(addrs):
    return [kname(a, i > 0) for i, a in enumerate(addrs)]


def bare(sym):
    return sym.rsplit("+0x", 1)[0] if "+0x" in sym else sym


def is_read(chain, abi):
    """chain: kernel frames' names, leaf first"""
    want, i = ["read_zero", "vfs_read"], 0
    for name in chain:
        if i < len(want) and name == want[i]:
            i += 1
    return i == len(want) and chain[-1].startswith(ENTRY[abi])


def kernel_samples(out):
    """(sample, [(ip, sym)] of its kernel frames) of each kernel-mode
    sample of perfregs-dump's JSON Lines"""
    for line in out.splitlines():
        try:
            r = json.loads(line)
        except ValueError:
            continue
        if r.get("type") == "sample" and r.get("mode") == "kernel":
            frames = [(int(f.get("ip", "0"), 16), f.get("sym", ""))
                      for f in r.get("callchain") or []]
            yield r, [(a, n) for a, n in frames if a >= KERNEL_MIN]


def whole(chains, abi):
    """(chains in vfs_read, whole reads among them, their percentage)"""
    in_read = [c for c in chains if "vfs_read" in c]
    reads = sum(1 for c in in_read if is_read(c, abi))
    return len(in_read), reads, 100.0 * reads / len(in_read) if in_read else 0.0


def ours(wl):
    """our kernel-mode samples' kernel chains, or a note on what failed"""
    st, out, err = run([TOOL, "-q", "-f", "json", "--kernel-callchain", "-c", "1000000",
                        "--", wl, str(SECS)], 60 + 10 * SECS)
    keep(os.path.basename(wl) + ".jsonl", out)
    chains, unreliable = [], 0
    for r, frames in kernel_samples(out):
        if r.get("comm") != os.path.basename(wl)[:15]:
            continue
        chains.append(named([a for a, _ in frames]))
        unreliable += bool((r.get("kchain") or {}).get("unreliable"))
    if st != 0:
        return None, f"exit {st}: {err.strip()[-300:]!r}"
    return chains, f"{len(chains)} kernel-mode samples ({unreliable} said unreliable)"


def perf_chains(perf, wl):
    data = os.path.join(TMP, os.path.basename(wl) + ".perf.data")
    st, _, err = run([perf, "record", "-q", "-e", "cpu-clock", "-c", "1000000", "-g", "-o",
                      data, "--", wl, str(SECS)], 60 + 10 * SECS)
    if st != 0:
        return None, f"perf record -g fails here: exit {st}, {err.strip()[-200:]!r}"
    st, out, err = run([perf, "script", "-i", data, "-F", "comm,ip,sym"], 120)
    keep(os.path.basename(wl) + ".perf.txt", out)
    chains, cur, comm = [], None, None
    for line in out.splitlines() + [""]:
        if line and not line[0].isspace():
            comm = line.strip()
            cur = []
            continue
        m = re.match(r"\s+([0-9a-f]+)\s+(\S+)", line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), bare(m.group(2))))
            continue
        if cur and comm == os.path.basename(wl)[:15] and cur[0][0] >= KERNEL_MIN:
            chains.append(named([a for a, n in cur if a >= KERNEL_MIN]))
        cur = None
    return chains, f"{len(chains)} kernel-mode samples"


def perf_works(perf):
    data = os.path.join(TMP, "probe.data")
    st, _, err = run([perf, "record", "-q", "-g", "-e", "cpu-clock", "-o", data, "--",
                      "/bin/true"], 60)
    if st != 0:
        return f"perf record -g fails here: exit {st}, {err.strip()[-200:]!r}"
    return ""


def check(abi, perf):
    wl = os.path.join(ST, f"readzero_{abi}")
    name = f"kchain_{abi}"
    if not os.path.exists(wl):
        skip(name, f"no {wl} (gcc-multilib)")
        skip(name + "_vs_perf", f"no {wl}")
        return
    chains, note = ours(wl)
    if chains is None:
        report(False, name, note)
        skip(name + "_vs_perf", "no run of ours")
        return
    in_read, reads, share = whole(chains, abi)
    lone = sum(1 for c in chains if len(c) < 2)
    in_pct = 100.0 * in_read / len(chains) if chains else 0.0
    top = max(({tuple(c): chains.count(c) for c in chains[:2000]}).items(),
              key=lambda kv: kv[1], default=((), 0))
    print(f"# MEASURE {name}_in_read {in_read} >= {MIN_SAMPLES}")
    print(f"# MEASURE {name}_in_read_pct {in_pct:.1f} >= {IN_READ}")
    print(f"# MEASURE {name}_whole_pct {share:.1f} >= {FULL}")
    report(in_read >= MIN_SAMPLES and in_pct >= IN_READ and share >= FULL and not lone, name,
           f"{note}; {in_read} in vfs_read ({in_pct:.1f}%), {reads} of them whole reads "
           f"({share:.1f}%), {lone} chains of one frame; "
           f"most common: {' < '.join(top[0])} ({top[1]})")
    if not perf:
        skip(name + "_vs_perf", "perf is not installed")
        return
    why = perf_works(perf)
    if why:
        skip(name + "_vs_perf", why)
        return
    pchains, pnote = perf_chains(perf, wl)
    if pchains is None:
        skip(name + "_vs_perf", pnote)
        return
    if not pchains:
        skip(name + "_vs_perf", "perf recorded no kernel-mode sample of the workload")
        return
    _, _, pshare = whole(pchains, abi)
    pset = {tuple(c) for c in pchains}
    same = sum(1 for c in chains if tuple(c) in pset)
    same_pct = 100.0 * same / len(chains) if chains else 0.0
    print(f"# MEASURE {name}_same_as_perf_pct {same_pct:.1f} >= {SAME}")
    ptop = max(({tuple(c): pchains.count(c) for c in pchains[:2000]}).items(),
               key=lambda kv: kv[1], default=((), 0))
    report(share >= pshare - 3.0 and same_pct >= SAME, name + "_vs_perf",
           f"whole reads of those in vfs_read: ours {share:.1f}%, perf's {pshare:.1f}% "
           f"(of {len(pchains)} kernel-mode samples); "
           f"{same} of our {len(chains)} chains ({same_pct:.1f}%) are perf's too "
           f"({len(pset)} distinct in perf's; its most common: "
           f"{' < '.join(ptop[0])} ({ptop[1]}))")


def nmi():
    """the NMI hook's kernel-mode samples walk too"""
    hz = float(os.environ.get("PERFREGS_VM_NMI_HZ", "0") or 0)
    if hz <= 0:
        skip("kchain_nmi", "no NMIs injected (tools/vm/run --nmi-hz)")
        return
    st, out, err = run([TOOL, "-q", "-f", "json", "--kernel-callchain", "-e", "nmi",
                        "--nmi-unknown", "-a", "-d", str(NMI_SECS)], 60 + 10 * NMI_SECS)
    keep("nmi.jsonl", out)
    chains = [[n for _, n in frames] for _, frames in kernel_samples(out)]
    deep = sum(1 for c in chains if len(c) >= 3)
    unnamed = sum(1 for c in chains for n in c if not n)
    pct = 100.0 * deep / len(chains) if chains else 0.0
    print(f"# MEASURE kchain_nmi_samples {len(chains)} >= {NMI_MIN}")
    report(st == 0 and len(chains) >= NMI_MIN and pct >= NMI_DEEP and not unnamed,
           "kchain_nmi", f"exit {st}, {len(chains)} kernel-mode NMI samples, {deep} "
           f"({pct:.0f}%) with 3 frames or more, {unnamed} frames unnamed; e.g. "
           f"{' < '.join(bare(n) for n in (chains[0] if chains else []))}; "
           f"stderr {err.strip()[-200:]!r}")


def switches():
    """a context switch's registers are the perf core's: its frames skipped"""
    st, out, err = run([TOOL, "-q", "-f", "json", "--kernel-callchain", "-e",
                        "context-switches", "-c", "1", "--", "/bin/sh", "-c",
                        f"i=0; while [ $i -lt {SWITCHES} ]; do sleep 0.01; i=$((i+1)); done"],
                       120)
    keep("switch.jsonl", out)
    chains = [named([a for a, _ in frames]) for _, frames in kernel_samples(out)]
    good = sum(1 for c in chains if len(c) >= 3 and any("schedule" in n for n in c))
    ours_ = sum(1 for c in chains for n in c if n.startswith(PERF_PATH))
    odd = sorted({n for c in chains for n in c if n.startswith(("perf_", "__perf", "prf_"))})
    pct = 100.0 * good / len(chains) if chains else 0.0
    top = max(({tuple(c): chains.count(c) for c in chains}).items(),
              key=lambda kv: kv[1], default=((), 0))
    print(f"# MEASURE kchain_switch_samples {len(chains)} >= {SWITCHES // 2}")
    report(st == 0 and len(chains) >= SWITCHES // 2 and pct >= NMI_DEEP and not ours_,
           "kchain_switch", f"exit {st}, {len(chains)} kernel-mode samples, {good} "
           f"({pct:.0f}%) of 3 frames or more in the scheduler, {ours_} frames of the "
           f"switch event's path (perf's and ours seen: {odd[:6]}); "
           f"most common: {' < '.join(top[0])} ({top[1]}); stderr {err.strip()[-200:]!r}")


def main():
    global TMP
    print("TAP version 13")
    print("1..6")
    TMP = tempfile.mkdtemp(prefix="kchain.")
    try:
        load_kallsyms()
        perf = shutil.which("perf")
        for abi in ("64", "32"):
            check(abi, perf)
        switches()
        nmi()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
