#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""DWARF unwinding of sampled user stacks, against a known call chain.

chain_{64,32,x32} run main -> chain_a -> chain_b -> chain_c with chain_c
spinning, built -O2 -fomit-frame-pointer.  Under perfregs-dump
--call-graph dwarf, at least 95% of the samples whose IP is in chain_c
must unwind to chain_c, chain_b, chain_a, main in that order; and a
recording must unwind the same way.  Output is KTAP.
"""
import json
import os
import subprocess
import sys
import tempfile

BUILD = os.environ.get("PERFREGS_BUILD", "build")
TOOL = os.path.join(BUILD, "perfregs-dump")
ST = os.path.join(BUILD, "selftests")
WANT = ["chain_c", "chain_b", "chain_a", "main"]
results = []


def report(ok, name, detail):
    results.append(ok)
    print(f"{'ok' if ok else 'not ok'} {len(results)} {name}")
    print(f"# {name}: {detail}")
    sys.stdout.flush()


def skip(name, why):
    results.append(True)
    print(f"ok {len(results)} {name} # SKIP {why}")


def fname(frame):
    return frame.get("sym", "").split("+")[0].split(".")[0]


def runs(path):
    """Does path run here?  Without arguments it prints its usage and exits 2.
    A kernel without x32 execs an x32 binary but fails its system calls."""
    try:
        p = subprocess.run([path], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return p.returncode == 2 and "usage" in p.stderr


def rate(lines, abi):
    inc = good = 0
    bad = []
    for line in lines:
        r = json.loads(line)
        if r["type"] != "sample" or not r.get("callchain"):
            continue
        chain = [fname(f) for f in r["callchain"]]
        if chain[0] != "chain_c":
            continue
        inc += 1
        if chain[:4] == WANT and r["abi"] == abi:
            good += 1
        elif len(bad) < 3:
            bad.append(" > ".join(chain[:6]) + f" ({r['abi']})")
    return inc, good, bad


def main():
    if not os.path.exists("/dev/perfregs"):
        print("1..0 # SKIP perfregs is not loaded")
        return 4
    print("TAP version 13")
    print("1..6")
    rec_out = None
    for work, abi in (("chain_64", "x86_64"), ("chain_32", "i386"), ("chain_x32", "x32")):
        path = os.path.join(ST, work)
        name = f"unwind_{work}"
        if not os.access(path, os.X_OK):
            skip(name, f"{work} was not built")
            continue
        if work == "chain_x32" and not runs(path):
            skip(name, "x32 binaries do not run here (boot with syscall.x32=y)")
            continue
        tmp = tempfile.mkdtemp()
        rec = os.path.join(tmp, "rec.prf")
        p = subprocess.run([TOOL, "-q", "-f", "json", "--call-graph", "dwarf,4096", "-m", "256",
                            "-o", rec, "--", "/bin/sh", "-c", 'exec "$0" 2 > /dev/null', path],
                           capture_output=True, text=True)
        inc, good, bad = rate(p.stdout.splitlines(), abi)
        pct = 100.0 * good / inc if inc else 0
        report(p.returncode == 0 and inc >= 50 and pct >= 95, name,
               f"exit {p.returncode}: {good} of {inc} samples in chain_c unwound to "
               f"{' > '.join(WANT)} ({pct:.1f}%)" + (f"; e.g. {bad}" if bad else ""))
        if work == "chain_64":
            rec_out = (rec, p.stdout)
    if rec_out:
        q = subprocess.run([TOOL, "-q", "-f", "json", "--call-graph", "dwarf", "-i", rec_out[0]],
                           capture_output=True, text=True)
        same = q.stdout == rec_out[1]
        report(q.returncode == 0 and same, "unwind_from_recording",
               f"exit {q.returncode}, {'identical to' if same else 'differs from'} the live output")
        # "another machine": the files are not at their paths any more,
        # only in a build-id directory
        bid = subprocess.run(["readelf", "-n", os.path.join(ST, "chain_64")],
                             capture_output=True, text=True).stdout
        hexid = bid.split("Build ID:")[1].split()[0] if "Build ID:" in bid else None
        if hexid:
            d = tempfile.mkdtemp()
            with open(os.path.join(ST, "chain_64"), "rb") as f:
                open(os.path.join(d, hexid), "wb").write(f.read())
            env = dict(os.environ, PERFREGS_BUILDID_DIR=d)
            q = subprocess.run([TOOL, "-q", "-f", "json", "--call-graph", "dwarf",
                                "--symfs", "/nonexistent-root", "-i", rec_out[0]],
                               capture_output=True, text=True, env=env)
            # only chain_64 is in the build-id directory: compare its samples
            mine = lambda out: [l for l in out.splitlines() if '"comm":"chain_64"' in l]
            same = mine(q.stdout) == mine(rec_out[1]) and len(mine(q.stdout)) > 50
            report(q.returncode == 0 and same, "unwind_by_build_id",
                   f"exit {q.returncode}, files found by build-id {hexid[:12]}..: output "
                   f"{'identical to' if same else 'differs from'} the live one")
        else:
            skip("unwind_by_build_id", "chain_64 has no build-id")
    else:
        skip("unwind_from_recording", "no chain_64 recording")
        skip("unwind_by_build_id", "no chain_64 recording")
    learn_short_lived()
    return 0 if all(results) else 1


def learn_short_lived():
    """Processes that live 0.2 s each, recorded: a recording drains only
    at the watermark or once a second, so each one's image and maps must
    be learnt by the learner thread while it runs, woken by the module's
    POLLPRI for a new process."""
    name = "learn_short_lived"
    path = os.path.join(ST, "chain_64")
    if not os.access(path, os.X_OK):
        skip(name, "chain_64 was not built")
        return
    n = 8
    tmp = tempfile.mkdtemp()
    rec = os.path.join(tmp, "short.prf")
    script = f'for i in $(seq {n}); do "$0" 0.2 > /dev/null; done'
    p = subprocess.run([TOOL, "-q", "-c", "1000000", "-o", rec, "--",
                        "/bin/sh", "-c", script, path], capture_output=True, text=True)
    q = subprocess.run([TOOL, "-q", "-f", "json", "-i", rec], capture_output=True, text=True)
    pids, named = {}, {}
    for line in q.stdout.splitlines():
        r = json.loads(line)
        if r["type"] != "sample" or r.get("comm") != "chain_64" or r.get("uregs_source") != "direct":
            continue
        pids[r["pid"]] = pids.get(r["pid"], 0) + 1
        if fname(r) in WANT:
            named[r["pid"]] = named.get(r["pid"], 0) + 1
    total, good = sum(pids.values()), sum(named.values())
    unnamed = sorted(pid for pid in pids if pid not in named)
    report(p.returncode == 0 and q.returncode == 0 and len(pids) == n and not unnamed
           and good >= 0.9 * total, name,
           f"exit {p.returncode}/{q.returncode}: {len(pids)} of {n} processes sampled, "
           f"{len(pids) - len(unnamed)} with symbols; {good} of {total} user samples "
           f"named in {'/'.join(WANT)}" + (f"; none for pids {unnamed}" if unnamed else ""))


if __name__ == "__main__":
    sys.exit(main())
