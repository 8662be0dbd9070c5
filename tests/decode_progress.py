#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""A long decode as a user sees it, made long by a FIFO that this test
feeds in two halves: on a terminal a progress line on stderr (seconds,
samples, a rate, and the MiB of a pipe; of a file, the percent), cleared
before the summary, which gives the time taken; none of that on a pipe
or with -q.  SIGINT or SIGTERM during the decode of script, report and
convert stops it at the next record: the lines printed are whole, the
summary follows "interrupted", and the exit status is 6.
usage: decode_progress.py BUILD TMPDIR   (one KTAP line; exit 1 on failure)"""
import json
import os
import pty
import select
import signal
import subprocess
import sys
import threading
import time

B, T = sys.argv[1], sys.argv[2]
TOOL = os.path.join(B, "perfregs-dump")
REC = os.path.join(T, "dp.prf")
bad = []
if subprocess.run([os.path.join(B, "mkrec"), REC, "2000"]).returncode:
    print("not ok - decode progress and signals: mkrec failed")
    sys.exit(1)
data = open(REC, "rb").read()
half = len(data) // 2


def through_fifo(args, pause, sig=None, tty=False):
    """args reading a FIFO fed half the recording, then after pause s
    (and sig sent) the rest: (exit status, stdout, stderr)."""
    fifo = os.path.join(T, "dp.fifo")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    master = slave = None
    if tty:
        master, slave = pty.openpty()
    out = open(os.path.join(T, "dp.out"), "wb")
    p = subprocess.Popen([TOOL] + args + ["-i", fifo], stdout=out,
                         stderr=slave if tty else subprocess.PIPE)
    err = bytearray()

    def read_pty():
        while True:
            r, _, _ = select.select([master], [], [], 0.2)
            if r:
                try:
                    chunk = os.read(master, 4096)
                except OSError:
                    return
                if not chunk:
                    return
                err.extend(chunk)
            elif p.poll() is not None:
                return

    reader = None
    if tty:
        os.close(slave)
        reader = threading.Thread(target=read_pty)
        reader.start()
    # the writer's end, opened without waiting for a reader that may
    # never come (the tool gone early): the test ends, it does not hang
    fd, t0 = -1, time.monotonic()
    while fd < 0 and p.poll() is None and time.monotonic() - t0 < 30:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.05)
    def write_all(buf):
        while buf:
            buf = buf[os.write(fd, buf):]

    if fd >= 0:
        os.set_blocking(fd, True)
        try:
            write_all(data[:half])
            time.sleep(pause)
            if sig:
                p.send_signal(sig)
                time.sleep(0.2)
            write_all(data[half:])
        except BrokenPipeError:
            pass
        os.close(fd)
    elif p.poll() is None:
        p.kill()
    if tty:
        p.wait(timeout=60)
        reader.join()
        os.close(master)
    else:
        err.extend(p.communicate(timeout=60)[1])
    out.close()
    return p.returncode, open(os.path.join(T, "dp.out"), "rb").read().decode(), \
        err.decode(errors="replace")


# progress on a terminal: a line after the first second, cleared, and the time taken
rc, out, err = through_fifo(["script", "-F", "pid"], 1.6, tty=True)
prog = [x for x in err.split("\r") if x.startswith("perfregs-dump: ") and " samples, " in x
        and " a second, " in x and "MiB read" in x]
summ = [x for x in err.replace("\r", "\n").replace("\x1b[K", "").splitlines()
        if x.startswith("# ")]
if rc or not prog or not summ or not summ[-1].rstrip().endswith(" s") or "\x1b[K" not in err:
    bad.append(f"on a terminal: exit {rc}, progress {prog[:1]}, summary {summ[-1:]}")
# none on a pipe, nor with -q on a terminal
rc, out, err = through_fifo(["script", "-F", "pid"], 1.6)
if rc or "\r" in err or " a second, " in err or err.splitlines()[-1].endswith(" s"):
    bad.append(f"on a pipe: exit {rc}, stderr {err[-200:]!r}")
rc, out, err = through_fifo(["script", "-q", "-F", "pid"], 1.6, tty=True)
if rc or err.strip():
    bad.append(f"-q on a terminal: exit {rc}, stderr {err[-200:]!r}")
# SIGINT and SIGTERM: stopped at a record, whole lines, the summary, exit 6
total = sum(1 for line in subprocess.run([TOOL, "script", "-q", "-f", "json", "-i", REC],
                                         capture_output=True, text=True).stdout.splitlines()
            if '"type":"sample"' in line)
for args, sig in ((["script", "-f", "json"], signal.SIGINT),
                  (["script", "-f", "json", "--threads", "2"], signal.SIGTERM),
                  (["report", "-f", "json"], signal.SIGINT),
                  (["convert", "-o", os.path.join(T, "dp.data")], signal.SIGINT)):
    rc, out, err = through_fifo(args, 0.5, sig)
    lines = err.splitlines()
    why = []
    if rc != 6:
        why.append(f"exit {rc}")
    if not any(x.startswith("perfregs-dump: interrupted") for x in lines):
        why.append("no 'interrupted'")
    if args[0] == "script":
        try:
            recs = [json.loads(x) for x in out.splitlines()]
        except ValueError:
            recs = []
            why.append("a line cut short")
        n = sum(1 for r in recs if r["type"] == "sample")
        if not recs or recs[-1]["type"] != "summary" or not 0 < n < total:
            why.append(f"{n} of {total} samples, last {recs[-1:]}")
        if not any(x.startswith("# ") and "samples decoded" in x for x in lines):
            why.append("no summary on stderr")
    elif args[0] == "report":
        try:
            t = json.loads(out)
            if not 0 < t["samples"] < total:
                why.append(f"report's table: {t['samples']} of {total}")
        except (ValueError, KeyError):
            why.append(f"report's JSON: {out[:100]!r}")
    if why:
        bad.append(f"{' '.join(args[:3])} and {sig.name}: " + ", ".join(why) +
                   f"; stderr {err[-200:]!r}")
if bad:
    print("not ok - decode progress and signals: " + "; ".join(bad[:5]))
    sys.exit(1)
print("ok - a long decode: progress on a terminal (samples, rate, MiB of a pipe), cleared, and the time in the summary; none on a pipe or with -q; SIGINT and "
      f"SIGTERM stop script, script --threads 2, report and convert at a record: whole lines, "
      f"the summary, exit 6")
