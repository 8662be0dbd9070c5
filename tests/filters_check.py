#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The filters of script, report and convert (--pid, --tid, --comms,
--cpu, --time in seconds and in percents, --dsos, --symbols) on mkrec's
recording of known samples (four tasks, pids 100 to 400, one a CPU, a
sample a millisecond each, one kernel sample): the samples each keeps
are those the man page's rule picks out of the unfiltered JSON, in
script's JSON and text, -f folded, report's table and convert's
perf.data as perf script reads it; the summary counts the others; bad
values and more than a filter may hold are refused in one line.
usage: filters_check.py BUILD TMPDIR   (prints one KTAP line; exit 1 on failure)"""
import json
import os
import shutil
import subprocess
import sys

B, T = sys.argv[1], sys.argv[2]
TOOL = os.path.join(B, "perfregs-dump")
REC = os.path.join(T, "flt.prf")
N = 40
bad = []


def run(*args, ok=True):
    p = subprocess.run([TOOL] + list(args), capture_output=True, text=True)
    if ok and p.returncode:
        bad.append(f"{' '.join(args)}: exit {p.returncode}: {p.stderr.strip()[:200]}")
    return p


def samples(out):
    return [r for r in map(json.loads, out.splitlines()) if r["type"] == "sample"]


def key(r):
    return (r["time"], r["pid"])


if subprocess.run([os.path.join(B, "mkrec"), REC, str(N)]).returncode:
    print("not ok - filters: mkrec failed")
    sys.exit(1)
every = samples(run("script", "-q", "-f", "json", "-i", REC).stdout)
t0, t1 = min(r["time"] for r in every), max(r["time"] for r in every)
ns = lambda s: int(round(float(s) * 1e9))
kernel = lambda r: r["ip"].startswith("0xffff")
base = lambda s: (s or "").split("+0x")[0]
# each filter, and what the man page says it keeps
cases = [
    (["--pid", "200"], lambda r: r["pid"] == 200),
    (["--pid", "100,300"], lambda r: r["pid"] in (100, 300)),
    (["--tid", "400"], lambda r: r["tid"] == 400),
    (["-c", "task300"], lambda r: r["comm"] == "task300"),
    (["--comms", "task100,task400"], lambda r: r["comm"] in ("task100", "task400")),
    (["-C", "1-2"], lambda r: r["cpu"] in (1, 2)),
    (["--cpu", "0,3"], lambda r: r["cpu"] in (0, 3)),
    (["--time", "0.005,0.0105"], lambda r: ns("0.005") <= r["time"] <= ns("0.0105")),
    (["--time", ",0.002"], lambda r: r["time"] <= ns("0.002")),
    (["--time", "0.030,"], lambda r: r["time"] >= ns("0.030")),
    # the kernel sample is the last, at 1 s: the others lie in its first 4%
    (["--time", "0%-2%"], lambda r: r["time"] <= t0 + (t1 - t0) * 2 // 100),
    (["--time", "3%/2"], lambda r: t0 + (t1 - t0) * 3 // 100 <= r["time"] <=
     t0 + (t1 - t0) * 6 // 100),
    (["--time", "0%-1%,99%-100%"], lambda r: r["time"] <= t0 + (t1 - t0) // 100 or
     r["time"] >= t0 + (t1 - t0) * 99 // 100),
    (["-S", "known_kernel_function"], lambda r: base(r.get("sym")) == "known_kernel_function"),
    (["--dsos", "[kernel.kallsyms]"], kernel),
    (["--pid", "200", "--cpu", "1", "--time", "0.010,"],
     lambda r: r["pid"] == 200 and r["time"] >= ns("0.010")),
]
checked = 0
for args, keep in cases:
    want = [key(r) for r in every if keep(r)]
    if not want or len(want) == len(every):
        bad.append(f"{args}: the case keeps {len(want)} of {len(every)}: it tells nothing")
        continue
    p = run("script", "-f", "json", *args, "-i", REC)
    recs = list(map(json.loads, p.stdout.splitlines()))
    got = [key(r) for r in recs if r["type"] == "sample"]
    summ = recs[-1] if recs else {}
    if got != want:
        bad.append(f"script {args}: {len(got)} samples, want {len(want)}")
    elif summ.get("filtered") != len(every) - len(want) or summ.get("samples") != len(every):
        bad.append(f"script {args}: summary {summ}")
    else:
        checked += 1
    # the text listing and the folded stacks: the same samples
    text = run("script", "-q", "-F", "pid,time", *args, "-i", REC).stdout.splitlines()
    text = [line for line in text if not line.startswith("LOST")]
    if len(text) != len(want):
        bad.append(f"script -F pid,time {args}: {len(text)} lines, want {len(want)}")
    # the threads of --threads filter as the reading thread does
    p2 = run("script", "-f", "json", "--threads", "3", *args, "-i", REC)
    if p2.stdout != p.stdout:
        bad.append(f"script --threads 3 {args}: not what one thread prints")
    folded = run("script", "-q", "-f", "folded", *args, "-i", REC).stdout.splitlines()
    if sum(int(line.rsplit(" ", 1)[1]) for line in folded) != len(want):
        bad.append(f"-f folded {args}: {folded[:3]}")
    # report's table: the kept samples, each pid its share of them
    rep = run("report", "-q", "-f", "json", "-s", "pid", *args, "-i", REC).stdout
    try:
        table = json.loads(rep)
        pids = {}
        for r in every:
            if keep(r):
                pids[r["pid"]] = pids.get(r["pid"], 0) + 1
        if table["samples"] != len(want):
            bad.append(f"report {args}: {table['samples']} samples, want {len(want)}")
    except (ValueError, KeyError) as e:
        bad.append(f"report {args}: {e}: {rep[:200]}")
# --symbols and --dsos on a user IP: mkunwind's stacks over this
# machine's vDSO (its image in the recording), named getrandom and
# __vdso_clock_gettime among others
UNW = os.path.join(T, "flt_unw.prf")
if subprocess.run([os.path.join(B, "mkunwind"), UNW, "1", "64", "64:vdso"],
                  capture_output=True).returncode:
    bad.append("mkunwind failed")
else:
    # the file of each sample's IP: its chain's first frame's
    uall = samples(run("script", "-q", "-f", "json", "-i", UNW).stdout)
    leaf_dso = lambda r: (r.get("callchain") or [{}])[0].get("dso")
    for args, keep in ((["-S", "getrandom,__vdso_clock_gettime"],
                        lambda r: base(r.get("sym")) in ("getrandom", "__vdso_clock_gettime")),
                       (["--dsos", "[vdso]"], lambda r: leaf_dso(r) == "[vdso]"),
                       (["--dsos", "libc.so.6"], lambda r: False)):
        want = [key(r) for r in uall if keep(r)]
        got = [key(r) for r in samples(run("script", "-q", "-f", "json",
                                           *args, "-i", UNW).stdout)]
        if got != want or (args[0] != "--dsos" or "[vdso]" in args) and \
                not 0 < len(want) < len(uall):
            bad.append(f"script {args} on made-up stacks: {len(got)} samples, want "
                       f"{len(want)} of {len(uall)}")
        else:
            checked += 1
# convert: perf script reads only the kept samples
perf = shutil.which("perf")
if perf:
    data = os.path.join(T, "flt.data")
    run("convert", "-q", "--pid", "300", "-i", REC, "-o", data)
    ps = subprocess.run([perf, "script", "-i", data, "-F", "pid"], capture_output=True, text=True)
    pids = [int(x) for x in ps.stdout.split()]
    want = sum(1 for r in every if r["pid"] == 300)
    if pids != [300] * want:
        bad.append(f"convert --pid 300: perf script shows pids {sorted(set(pids))}, "
                   f"{len(pids)} samples, want {want}")
# refused, one line, exit 1
for args, says in ((["--pid", "abc"], "list of pids"), (["--tid", ""], "list of tids"),
                   (["--cpu", "9999"], "CPUs 0 to"), (["--cpu", "3-1"], "CPUs 0 to"),
                   (["--time", "50%"], "percents"), (["--time", ","], "START,STOP"),
                   (["--time", "2,1"], "START,STOP"), (["--time", "1.0000000001,"], "START,STOP"),
                   (["--comms", "a,,b"], "list of names"),
                   (["--pid", ",".join(str(i) for i in range(1025))], "at most 1024"),
                   (["--time", "1,2", "--time", "3,4"], "only one --time")):
    for cmd in ("script", "report", "convert"):
        extra = ["-o", os.path.join(T, "flt_no.data")] if cmd == "convert" else []
        p = run(cmd, *args, "-i", REC, *extra, ok=False)
        err = p.stderr.strip().splitlines()
        if p.returncode != 1 or len(err) != 1 or says not in err[0]:
            bad.append(f"{cmd} {args[0]} {args[1][:20]}: exit {p.returncode}, {err[:2]}")
# percents want the file twice: not a pipe
with open(REC, "rb") as f:
    p = subprocess.run([TOOL, "script", "--time", "0%-50%", "-i", "-"], stdin=f,
                       capture_output=True, text=True)
if p.returncode != 1 or "wants a file" not in p.stderr:
    bad.append(f"--time in percents from a pipe: exit {p.returncode}, {p.stderr.strip()[:200]}")
if bad:
    print("not ok - filters: " + "; ".join(bad[:6]))
    sys.exit(1)
print(f"ok - filters --pid, --tid, --comms, --cpu, --time (seconds and percents), --symbols, "
      f"--dsos: {checked} cases keep what the rule picks out of {len(every)} samples in "
      f"script's JSON and text, -f folded, report and convert; the summary counts the rest; "
      f"bad values refused in one line")
