#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A process in another mount namespace named from its own files
(files.c's held_file()), against perf, in a guest.

rp_cnt calls cnt_spin() of libcnt.so, found by its run path.  It runs in
a mount namespace of its own (unshare -m) where the path of that library
is bind-mounted over by another build of it (rp_cnt_v2/libcnt.so), in
which cnt_spin() lies where the first build has cnt_v1_only(): named
from the file the path names here, its samples say cnt_v1_only.  Under

    perfregs-dump -q -f text --fields ip,sym,dso -o REC -- unshare -m ... rp_cnt SECS

and under Debian's perf record -e cpu-clock.  Of the user-mode samples
in the library (dso the path the process names it by):

container_live: at least 50, and at least 95% named cnt_spin (none
  cnt_v1_only), printed while recording.
container_recorded: -i, with the second build in $PERFREGS_BUILDID_DIR
  by its build-id (which the recording holds, read from the process's
  own file): the same share named cnt_spin; without it, none named
  cnt_v1_only (the file at the path here is not the one recorded).
container_perf: perf script of perf's run of the same: perfregs' share
  named cnt_spin live at least perf's (measured on Debian 12's perf
  6.1: every sample named cnt_v1_only, from the file here; perf looks
  for the file in the process's namespace only while it lives).
  Skipped with the reason when perf cannot record here.

All three skipped when unshare -m cannot run here.  Output is KTAP.
Bounded: each run is cut after its timeout (times
$PERFREGS_TIMEOUT_SCALE), and fails then.
"""
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
PROG = os.path.join(ST, "rp_cnt", "rp_cnt")
LIB = os.path.join(ST, "rp_cnt", "libcnt.so")
LIB2 = os.path.join(ST, "rp_cnt_v2", "libcnt.so")
TSCALE = float(os.environ.get("PERFREGS_TIMEOUT_SCALE", "1") or 1)
SECS = "2"
MIN_SAMPLES = 50
SHARE = 95.0
PLAN = 3
results = []
TMP = None
OURS_PCT = None         # container_live's share, for container_perf


def report(ok, name, detail):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    print(f"# {name}: {detail}")
    sys.stdout.flush()


def skip(name, why):
    results.append(True)
    print(f"ok {len(results)} {name} # SKIP {why}")
    sys.stdout.flush()


def run(cmd, timeout, env=None):
    """(status, stdout, stderr); status "timeout" when cut after timeout s."""
    try:
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             errors="replace", start_new_session=True, cwd=TMP, env=env)
    except OSError as e:
        return f"not started ({e})", "", ""
    try:
        out, err = p.communicate(timeout=timeout * TSCALE)
        return p.returncode, out, err
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return "timeout", out, err


def contained():
    """the workload in a mount namespace of its own, the library's path bind-mounted over"""
    return ["unshare", "-m", "--propagation", "private", "sh", "-c",
            'mount --bind "$1" "$2" && exec "$3" "$4"', "sh", LIB2, LIB, PROG, SECS]


def tally(text, fmt):
    """(in the library, named cnt_spin, named cnt_v1_only) of the lines"""
    n = spin = wrong = 0
    for line in text.splitlines():
        m = fmt.match(line)
        if not m or m.group("dso") != LIB:
            continue
        n += 1
        sym = m.group("sym") or ""
        spin += sym.startswith("cnt_spin+") or sym == "cnt_spin"
        wrong += sym.startswith("cnt_v1_only")
    return n, spin, wrong


OURS = re.compile(r"ip 0x[0-9a-f]+(?: \((?P<sym>.*?)\))?(?: \((?P<dso>.*)\))?$")
PERFS = re.compile(r"\s*[0-9a-f]+\s+(?P<sym>\S+)\s+\((?P<dso>.*)\)$")


def pct_of(counts):
    n, spin, _ = counts
    return 100.0 * spin / n if n else 0.0


def verdict(name, counts, note):
    n, spin, wrong = counts
    pct = pct_of(counts)
    report(n >= MIN_SAMPLES and wrong == 0 and pct >= SHARE, name,
           f"{n} samples in {LIB}, {spin} named cnt_spin ({pct:.1f}%, want "
           f"{SHARE}% of >= {MIN_SAMPLES}), {wrong} cnt_v1_only (want 0); {note}")


def build_id(path):
    st, out, _ = run(["readelf", "-n", path], 30)
    m = re.search(r"Build ID: ([0-9a-f]+)", out) if st == 0 else None
    return m.group(1) if m else None


def perfregs():
    rec = os.path.join(TMP, "cnt.prf")
    st, out, err = run([TOOL, "-q", "-f", "text", "--fields", "ip,sym,dso", "-o", rec, "--"] +
                       contained(), 120)
    note = f"exit {st}, stderr {err.strip()[-200:]!r}"
    if st != 0:
        report(False, "container_live", note)
        report(False, "container_recorded", "no run to decode")
        return
    global OURS_PCT
    live = tally(out, OURS)
    OURS_PCT = pct_of(live)
    verdict("container_live", live, note)
    bid = build_id(LIB2)
    bdir = os.path.join(TMP, "buildid")
    os.makedirs(bdir, exist_ok=True)
    if bid:
        shutil.copy(LIB2, os.path.join(bdir, bid))
    env = dict(os.environ, PERFREGS_BUILDID_DIR=bdir)
    st1, by_id, err1 = run([TOOL, "script", "-q", "-i", rec, "-F", "ip,sym,dso"], 120, env)
    st2, here, _ = run([TOOL, "script", "-q", "-i", rec, "-F", "ip,sym,dso"], 120)
    n2, spin2, wrong2 = tally(here, OURS)
    if st1 != 0 or st2 != 0 or not bid or wrong2:
        report(False, "container_recorded", f"-i: exit {st1}/{st2}, build-id {bid}, "
               f"{wrong2} samples named cnt_v1_only from the file here; {err1.strip()[-200:]!r}")
        return
    verdict("container_recorded", tally(by_id, OURS),
            f"-i with the second build by its build-id; without it {n2} in the library, "
            f"{spin2} named, none wrongly")


def perf_run():
    perf = shutil.which("perf")
    if not perf:
        skip("container_perf", "perf is not installed")
        return
    data = os.path.join(TMP, "cnt.perf.data")
    st, _, err = run([perf, "record", "-q", "-e", "cpu-clock", "-c", "1000000", "-o", data,
                      "--"] + contained(), 120)
    if st != 0 or not os.path.exists(data):
        skip("container_perf", f"perf record -e cpu-clock fails here: exit {st}, "
             f"{err.strip().splitlines()[-1] if err.strip() else 'no message'}")
        return
    st, out, _ = run([perf, "script", "-i", data, "-F", "ip,sym,dso"], 120)
    n, spin, wrong = counts = tally(out, PERFS)
    ours = OURS_PCT if OURS_PCT is not None else -1.0
    report(st == 0 and n >= MIN_SAMPLES and ours >= pct_of(counts), "container_perf",
           f"perf script: exit {st}, {n} samples in {LIB}, {spin} named cnt_spin "
           f"({pct_of(counts):.1f}%), {wrong} cnt_v1_only; perfregs live {ours:.1f}% "
           f"(want at least perf's)")


def main():
    global TMP
    if not os.path.exists("/dev/perfregs"):
        print("1..0 # SKIP perfregs is not loaded")
        return 4
    print("TAP version 13")
    print(f"1..{PLAN}")
    sys.stdout.flush()
    probe = subprocess.run(["unshare", "-m", "--propagation", "private", "true"],
                           capture_output=True)
    if probe.returncode or not all(os.path.exists(p) for p in (PROG, LIB, LIB2)):
        for n in ("container_live", "container_recorded", "container_perf"):
            skip(n, "unshare -m cannot run here, or rp_cnt is not built")
        return 0
    TMP = tempfile.mkdtemp(prefix="cnt.")
    try:
        perfregs()
        perf_run()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    if len(results) != PLAN:
        print(f"not ok {len(results) + 1} container_plan")
        return 1
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
