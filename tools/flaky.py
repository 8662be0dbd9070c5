#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The flake finder: run chosen guest test files K times per kernel,
loaded or not, and print per test its pass rate and, for every counted
assertion (a test's "# MEASURE QUANTITY VALUE OP THRESHOLD" lines,
selftests/common.h's MEASURE()), the measured values against the
threshold: min / median / max over the runs, and the worst run's margin.

usage: tools/flaky.py [--kernels 6.1,6.12,6.1-rt,6.12-rt] [--runs K]
                      [--files test_xregs,test_rt.. | all]
                      [--load none|vcpu|host|both] [--out FILE] [--reuse DIR]

--load: vcpu spins a busy loop on the guest's last vCPU for the whole
run, host one on each host CPU; both, both.  Every run boots its own
guest (tools/vm/run, which queues behind any other guest on the
machine).  The logs of each run are kept in BUILD/flaky/KVER/run-N.log,
numbered after those already there; --reuse DIR summarises every log in
DIR/KVER without running anything (--runs is then ignored).

A test that fails once, or prints "# RETRY" (a retry that passed), is a
failure here.  The output's format is stable (see print_report()), so
two reports can be compared line by line over time.  Exit status: 0 when
no test failed in any run, 1 otherwise, 2 when the runs could not be
made.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("PERFREGS_BUILD", os.path.join(ROOT, "build"))
KERNELS = {"6.1": "6.1", "6.12": "6.12", "6.1-rt": "6.1-rt", "6.12-rt": "6.12-rt"}
RESULT = re.compile(r"^(not )?ok (?:\d+ )?(?:- )?(.*?)(?:\s+#\s*(SKIP|TODO)\b.*)?$")
MEASURE = re.compile(r"^#\s*MEASURE (\S+) (-?\d+(?:\.\d+)?) (<=|>=|<|>|==|!=) "
                     r"(-?\d+(?:\.\d+)?)( waited)?\s*$")
FILE_START = re.compile(r"^# ---- (\S+)$")


def guest_files(spec):
    names = sorted({os.path.basename(p) for p in os.listdir(os.path.join(ROOT, "selftests"))
                    if p.startswith("test_") and p.endswith((".c", ".py", ".sh"))})
    files = [n[:-2] if n.endswith(".c") else n for n in names]
    if spec == "all":
        return files
    want = []
    for f in spec.split(","):
        m = [n for n in files if n == f or n.split(".")[0] == f]
        if not m:
            sys.exit(f"flaky: no guest test file {f} (have: {' '.join(files)})")
        want += m
    return want


def host_load(on):
    if not on:
        return []
    return [subprocess.Popen(["sh", "-c", "while :; do :; done"])
            for _ in range(os.cpu_count() or 1)]


def run_once(kernel, files, vcpu_load, log):
    """One guest: run_guest.sh with only these files; the log kept."""
    env = ["env", "PERFREGS_SUITE_ONLY=" + " ".join(files),
           "PERFREGS_SUITE_WHY=not chosen for tools/flaky.py"]
    if vcpu_load:
        env.append("PERFREGS_LOAD_VCPU=1")
    cmd = [os.path.join(ROOT, "tools/vm/run"), "--kernel", kernel, "--smp", "2",
           "--timeout", "1500", "--append", "syscall.x32=y", "--nmi-hz", "20",
           "--"] + env + ["selftests/run_guest.sh", BUILD]
    t0 = time.monotonic()
    with open(log, "w") as f:
        f.write(f"# flaky: load {'vcpu' if vcpu_load else 'none'} in the guest\n")
        f.flush()
        rc = subprocess.call(cmd, stdout=f, stderr=subprocess.STDOUT, cwd=ROOT)
        f.write(f"# flaky: guest status {rc} after {time.monotonic() - t0:.0f} s\n")
    return rc


def parse_log(text, files):
    """{test: (state, [measures])}: state ok, fail, skip; only the chosen files."""
    tests, pending, current, retry = {}, [], None, False
    for line in text.splitlines():
        m = FILE_START.match(line)
        if m:
            current, pending = m.group(1), []
            continue
        m = MEASURE.match(line)
        if m:
            # a count sampled until it held: op "waited" keeps it apart
            op = m.group(3) + (" waited" if m.group(5) else "")
            pending.append((m.group(1), float(m.group(2)), op, float(m.group(4))))
            continue
        if re.match(r"^#\s*RETRY\b", line):
            retry = True
            continue
        m = RESULT.match(line)
        if not m or current is None or current not in files:
            continue
        name = m.group(2).strip()
        if name.startswith(("kernel log clean", "insmod", "rmmod")) or not name:
            continue
        state = "fail" if m.group(1) or retry else "skip" if m.group(3) == "SKIP" else "ok"
        tests[f"{current}:{name}"] = (state, pending)
        pending, retry = [], False
    if "# flaky: guest status 0 " not in text:
        tests["(guest):ran to its end"] = ("fail", [])
    return tests


def margin(op, value, threshold):
    """How far from failing, as a ratio (>= 1: passing; 2: twice away)."""
    if op.endswith(" waited"):
        return float("nan")
    if op in (">=", ">"):
        return value / threshold if threshold > 0 else float("inf") if value > 0 else 0
    if op in ("<=", "<"):
        return threshold / value if value > 0 else float("inf")
    return float("nan")


def print_report(kernel, runs, load, results, out):
    """The stable format: one header line, then per test one line
    "  PASS/RUNS  NAME" and under it one line per measured quantity
    (a count the test sampled until it held ends in "waited for": its
    test's until_ms line, the time it took against the deadline, says
    how far from failing it was); last, "thin: N" and a line for each
    assertion whose worst run was under 2x from its threshold."""
    out.write(f"flaky: kernel {kernel} runs {runs} load {load}\n")
    names = sorted({n for r in results for n in r})
    failed, thin = 0, []
    for name in names:
        states = [r.get(name, ("missing", []))[0] for r in results]
        ran = [s for s in states if s != "skip"]
        if not ran:
            out.write(f"  skip  {name}\n")
            continue
        ok = sum(1 for s in ran if s == "ok")
        failed += ok < len(ran)
        out.write(f"  {ok}/{len(ran)}  {name}{'  FLAKY' if ok < len(ran) else ''}\n")
        per = {}
        for r in results:
            for q, v, op, t in r.get(name, ("", []))[1]:
                per.setdefault((q, op, t), []).append(v)
        for (q, op, t), vals in sorted(per.items()):
            line = (f"{q} {op.split()[0]} {t:g}: min {min(vals):g} median "
                    f"{statistics.median(vals):g} max {max(vals):g} over {len(vals)}")
            if op.endswith(" waited"):
                out.write(f"      {line}, waited for\n")
                continue
            worst = min(margin(op, v, t) for v in vals)
            out.write(f"      {line}, worst margin {worst:.2f}x\n")
            if worst < 2:
                thin.append(f"{name}: {q} {op} {t:g}, worst {worst:.2f}x")
    out.write(f"  thin: {len(thin)}\n")
    for t in thin:
        out.write(f"    {t}\n")
    return failed


def main():
    p = argparse.ArgumentParser(prog="tools/flaky.py",
                                description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", default="6.1,6.12,6.1-rt,6.12-rt")
    p.add_argument("--runs", type=int, default=10)
    p.add_argument("--files", default="all")
    p.add_argument("--load", choices=["none", "vcpu", "host", "both"], default="both")
    p.add_argument("--out", help="also write the report to this file")
    p.add_argument("--reuse", metavar="DIR", help="summarise DIR/KVER/run-*.log only")
    a = p.parse_args()
    files = guest_files(a.files)
    outs = [sys.stdout] + ([open(a.out, "a")] if a.out else [])
    failed = 0
    for k in a.kernels.split(","):
        kernel = KERNELS.get(k, k)
        logdir = os.path.join(a.reuse or os.path.join(BUILD, "flaky"), kernel)
        os.makedirs(logdir, exist_ok=True)
        results = []
        # new runs are numbered after the logs already there, so runs
        # made at different times add up (--reuse reads them all)
        have = sorted(int(m.group(1)) for m in
                      (re.match(r"run-(\d+)\.log$", n) for n in os.listdir(logdir)) if m)
        first = have[-1] + 1 if have else 1
        for n in have if a.reuse else range(first, first + a.runs):
            log = os.path.join(logdir, f"run-{n}.log")
            if not a.reuse:
                load = host_load(a.load in ("host", "both"))
                try:
                    run_once(kernel, files, a.load in ("vcpu", "both"), log)
                finally:
                    for q in load:
                        q.kill()
                        q.wait()
            if os.path.exists(log):
                results.append(parse_log(open(log, errors="replace").read(), files))
                sys.stderr.write(f"flaky: {kernel} run {n} done\n")
        for out in outs:
            n = print_report(kernel, len(results), a.load, results, out)
        failed += n
    for out in outs:
        out.write(f"flaky: {failed} test(s) failed at least once\n")
    sys.exit(1 if failed else 0)


main()
