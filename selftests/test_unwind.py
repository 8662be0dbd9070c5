#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""DWARF unwinding of sampled user stacks, against a known call chain.

chain_{64,32,x32} run main -> chain_a -> chain_b -> chain_c with chain_c
spinning, built -O2 -fomit-frame-pointer.  Under perfregs-dump
--call-graph dwarf, at least 95% of the samples whose IP is in chain_c
must unwind to chain_c, chain_b, chain_a, main in that order; and a
recording must unwind the same way.  With "thread" the chain runs on a
second thread (chain_thread, then glibc's start_thread and clone3 or
clone, where the CFI ends the walk): every sample in chain_c must unwind
to that end, from copies of the thread's stack that end at its thread
pointer (FS base, GS base for i386: the kernel stops there; above is
glibc's thread descriptor).  Output is KTAP.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import measure  # noqa: E402  (selftests/measure.py)

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




def first_difference(a, b):
    """Where two outputs first differ: 'line N: live ... | decoded ...'."""
    a, b = a.splitlines(), b.splitlines()
    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    return (f"line {i + 1}: live {a[i][:300] if i < len(a) else '(none)'!r} | "
            f"decoded {b[i][:300] if i < len(b) else '(none)'!r}")


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


WANT_THREAD = ["chain_c", "chain_b", "chain_a", "chain_thread"]


def full(chain, thread):
    """main's chain: the four frames.  The thread's: its four, then only
    glibc's thread start, ending in clone3 or clone (the CFI's end)."""
    if not thread:
        return chain[:4] == WANT
    return (chain[:4] == WANT_THREAD and len(chain) <= 7 and
            chain[-1].lstrip("_").startswith("clone"))


def rate(lines, abi, thread=False):
    inc = good = 0
    bad = []
    copied = []
    for line in lines:
        r = json.loads(line)
        if r["type"] != "sample" or not r.get("callchain"):
            continue
        chain = [fname(f) for f in r["callchain"]]
        if chain[0] != "chain_c":
            continue
        inc += 1
        if r.get("stack"):
            u = r.get("uregs", {})
            sp = next((int(u[k], 16) for k in ("sp", "rsp", "esp") if k in u), None)
            # the thread pointer: an i386 task's is its GS base
            key = "gs_base" if r["abi"] == "i386" else "fs_base"
            tp = int(u[key], 16) if key in u else None
            copied.append((r["stack"]["copied"], r["stack"]["size"], sp, tp))
        if full(chain, thread) and r["abi"] == abi:
            good += 1
        elif len(bad) < 3:
            bad.append(" > ".join(chain[:8]) + f" ({r['abi']})")
    return inc, good, bad, copied


def main():
    if not os.path.exists("/dev/perfregs"):
        print("1..0 # SKIP perfregs is not loaded")
        return 4
    print("TAP version 13")
    print("1..9")
    rec_out = None
    for work, abi, thread in (("chain_64", "x86_64", False), ("chain_32", "i386", False),
                              ("chain_x32", "x32", False), ("chain_64", "x86_64", True),
                              ("chain_32", "i386", True), ("chain_x32", "x32", True)):
        path = os.path.join(ST, work)
        name = f"unwind_{work}" + ("_thread" if thread else "")
        if not os.access(path, os.X_OK):
            skip(name, f"{work} was not built")
            continue
        if work == "chain_x32" and not runs(path):
            skip(name, "x32 binaries do not run here (boot with syscall.x32=y)")
            continue
        tmp = tempfile.mkdtemp()
        rec = os.path.join(tmp, "rec.prf")
        size = 8192 if thread else 4096
        # the FS and GS bases too (mask bits 24, 25), where the kernel knows them
        p = subprocess.run([TOOL, "-q", "-f", "json", "--call-graph", f"dwarf,{size}", "-m", "256"] +
                           (["--uregs=0x3ffffff"] if thread else []) + ["-o", rec, "--", "/bin/sh", "-c", 'exec "$0" 2 $1 > /dev/null', path,
                            "thread" if thread else ""],
                           capture_output=True, text=True)
        inc, good, bad, copied = rate(p.stdout.splitlines(), abi, thread)
        pct = 100.0 * good / inc if inc else 0
        # which instructions the timer hits is timing: the share is
        # measured against its floor, in percent
        # (as the share not unwound against the 5 % allowed, so that
        # flaky.py's margin is how far from failing: 1 % is 5x)
        ok = measure("chain_c_samples", inc, ">=", 50) & \
            measure("not_unwound_pct", round(100 - pct, 1), "<=", 5) and p.returncode == 0
        detail = (f"exit {p.returncode}: {good} of {inc} samples in chain_c unwound to "
                  f"{' > '.join(WANT_THREAD + ['start_thread', 'clone3'] if thread else WANT)}"
                  f" ({pct:.1f}%)" + (f"; e.g. {bad}" if bad else ""))
        if thread:
            # where the thread pointer was recorded the kernel knew it, and
            # the copy must end exactly there, in whole words
            cut = wrong = 0
            for c, sz, sp, tp in copied:
                if sp is None or tp is None or not sp < tp < sp + size:
                    continue
                cut += 1
                if c != (tp - sp) // 8 * 8 or sz != c:
                    wrong += 1
                    if wrong <= 3:
                        detail += f"; sp {sp:#x} thread pointer {tp:#x}: {c} copied, size {sz}"
            ok = measure("thread_pointer_copies", cut, ">=", 50) and ok and wrong == 0
            detail += (f"; copies of {min(c[0] for c in copied) if copied else 0} to "
                       f"{max(c[0] for c in copied) if copied else 0} of {size} bytes, "
                       f"{cut - wrong} of {cut} with the thread pointer above ending there")
        report(ok, name, detail)
        if work == "chain_64" and not thread:
            rec_out = (rec, p.stdout)
    if rec_out:
        q = subprocess.run([TOOL, "-q", "-f", "json", "--call-graph", "dwarf", "-i", rec_out[0]],
                           capture_output=True, text=True)
        same = q.stdout == rec_out[1]
        report(q.returncode == 0 and same, "unwind_from_recording",
               f"exit {q.returncode}, {'identical to' if same else 'differs from'} the live output"
               + ("" if same else "; first difference at " + first_difference(rec_out[1], q.stdout)))
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
            # only chain_64 is in the build-id directory: compare the
            # samples whose live chain is all in it (one in ld.so or libc,
            # at the start or the exit, unwinds otherwise without them)
            def mine(out):
                kept = {}
                for line in out.splitlines():
                    r = json.loads(line)
                    if r.get("type") != "sample" or r.get("comm") != "chain_64":
                        continue
                    kept[(r.get("time"), r.get("cpu"))] = (line, r)
                return kept
            live, found = mine(rec_out[1]), mine(q.stdout)
            own = [k for k, (_, r) in live.items() if r.get("callchain") and
                   all(f.get("dso", "").endswith("/chain_64") for f in r["callchain"])]
            differ = [k for k in own if k not in found or found[k][0] != live[k][0]]
            same = measure("chain_64_samples", len(own), ">", 50) and not differ and \
                set(found) == set(live)
            report(q.returncode == 0 and same, "unwind_by_build_id",
                   f"exit {q.returncode}, files found by build-id {hexid[:12]}..: output "
                   f"{'identical to' if same else 'differs from'} the live one for the "
                   f"{len(own)} of {len(live)} samples unwound within chain_64" +
                   (f"; first different: {found.get(differ[0], ('missing',))[0][:300]}"
                    if differ else "") +
                   ("" if set(found) == set(live) else
                    f"; {len(set(live) ^ set(found))} samples in one output only"))
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
    # the learner's latency is the property: each process lives 0.2 s
    report(measure("processes_sampled", len(pids), "==", n) &
           measure("unnamed_pct", round(100 - 100.0 * good / total, 1) if total else 100, "<=", 10)
           and p.returncode == 0 and q.returncode == 0 and not unnamed, name,
           f"exit {p.returncode}/{q.returncode}: {len(pids)} of {n} processes sampled, "
           f"{len(pids) - len(unnamed)} with symbols; {good} of {total} user samples "
           f"named in {'/'.join(WANT)}" + (f"; none for pids {unnamed}" if unnamed else ""))


if __name__ == "__main__":
    sys.exit(main())
