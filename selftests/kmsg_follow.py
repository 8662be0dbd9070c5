#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Copy the kernel log, from now on, to FILE as it is written, one line
a record ("[seconds] text", as dmesg prints it), for run_guest.sh.

It reads /dev/kmsg, whose records carry sequence numbers: a record the
ring buffer overwrote before it was read (a flood of them, such as the
two lines every unclaimed host NMI prints) leaves a gap, which becomes
the line "perfregs-klog: N kernel log records lost before they were
read" (klog.sh's BAD fails the check on it), instead of going unseen as
with a bookmark that counts the lines of dmesg.

A record "perfregs-klog-sync N" (run_guest.sh's klog_sync writes it)
also goes, once copied with all before it, as N into FILE.sync, which
the shell reads without running a program.  usage: kmsg_follow.py FILE
"""
import os
import sys

fd = os.open("/dev/kmsg", os.O_RDONLY)
os.lseek(fd, 0, os.SEEK_END)		# what is logged from now on
out = open(sys.argv[1], "a", buffering=1)
last = None
while True:
    try:
        rec = os.read(fd, 16384)
    except BrokenPipeError:		# overwritten: the next read goes on
        continue
    except InterruptedError:
        continue
    if not rec:
        break
    head, _, msg = rec.decode(errors="replace").partition(";")
    fields = head.split(",")
    try:
        seq, usec = int(fields[1]), int(fields[2])
    except (IndexError, ValueError):
        continue
    if last is not None and seq != last + 1:
        out.write(f"perfregs-klog: {seq - last - 1} kernel log records lost before they were read\n")
    last = seq
    text = msg.split("\n")[0]		# the continuation lines are key=value
    out.write(f"[{usec // 1000000:5d}.{usec % 1000000:06d}] {text}\n")
    if text.startswith("perfregs-klog-sync "):
        with open(sys.argv[1] + ".sync", "w") as f:
            f.write(text.split()[1] + "\n")
