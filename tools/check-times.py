#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Where make check's time went: per kernel, the guest's boot, each test
file (run_guest.sh's "# NAME took N s") and what is left (the kernel-log
checks, rmmod, lockdown); the host tests.  From the logs and
tools/vm/run --timing files that tools/check.sh leaves in BUILD.

usage: tools/check-times.py BUILD KVER..."""
import json
import os
import re
import sys


def main():
    build, kvers = sys.argv[1], sys.argv[2:]
    files, cols = {}, []
    for k in kvers:
        col = {"boot": None, "total": None}
        try:
            t = json.load(open(os.path.join(build, f"check-{k}.timing")))
            col["boot"], col["total"] = t["boot"], t["total"]
        except (OSError, ValueError, KeyError):
            pass
        try:
            log = open(os.path.join(build, f"check-{k}.log"), errors="replace").read()
        except OSError:
            log = ""
        for name, sec in re.findall(r"^# (\S+) took (\d+) s$", log, re.M):
            files.setdefault(name, {})[k] = int(sec)
            col[name] = int(sec)
        cols.append(col)
    short = [re.sub(r"^(\d+\.\d+)\S*?(-rt)?-amd64$", r"\1\2", k) for k in kvers]
    w = max([len(n) for n in files] + [24])
    print(f"{'where the time went (s)':<{w}}" + "".join(f"{s:>9}" for s in short))

    def row(name, vals):
        print(f"{name:<{w}}" + "".join(f"{'-' if v is None else v:>9}" for v in vals))
    row("guest boot", [c["boot"] for c in cols])
    for name in sorted(files, key=lambda n: -sum(files[n].values())):
        row("  " + name, [files[name].get(k) for k in kvers])
    rest = []
    for c in cols:
        if c["total"] is None or c["boot"] is None:
            rest.append(None)
            continue
        tests = sum(v for n, v in c.items() if n not in ("boot", "total") and v is not None)
        rest.append(round(c["total"] - c["boot"] - tests))
    row("  the rest (klog, rmmod, lockdown)", rest)
    row("guest total", [c["total"] for c in cols])
    try:
        host = int(open(os.path.join(build, "check-host.time")).read())
        print(f"{'host tests':<{w}}{host:>9}")
    except (OSError, ValueError):
        pass


main()
