#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every option of every perfregs-dump command (as its --list-opts
prints it: the same table its parser and --help are made from) has an
entry of its own in the man page's OPTIONS: a .TP whose tag names it,
short (-x) or long (--xx), followed by text that describes it (not
straight another tag), inside one of OPTIONS' subsections.
usage: man_options.py TOOL MAN_PAGE   prints what lacks one; exit 1 then"""
import re
import subprocess
import sys

tool, man = sys.argv[1], open(sys.argv[2]).read()


def listed(*cmd):
    out = subprocess.run([tool, *cmd, "--list-opts"], capture_output=True, text=True,
                         check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line.count("\t") == 2]


cmds = subprocess.run([tool, "--list-cmds"], capture_output=True, text=True,
                      check=True).stdout.split()
longs, shorts = set(), set()
for cmd in [[]] + [[c] for c in cmds]:
    for short, long_, _ in listed(*cmd):
        if short != "-":
            shorts.add(short[1:])
        if long_ != "-":
            longs.add(long_[2:])
opts = man.split(".SH OPTIONS\n", 1)[1].split("\n.SH ", 1)[0] if ".SH OPTIONS\n" in man else ""
tags = []		# tag lines with a description after them
sub = None
lines = opts.splitlines()
for i, line in enumerate(lines):
    if line.startswith(".SS "):
        sub = line
    if line == ".TP" and i + 2 < len(lines) and sub:
        body = lines[i + 2]
        if not body.startswith((".TP", ".SS", ".SH")):
            tags.append(lines[i + 1].replace("\\-", "-"))
bad = [f"--{o}" for o in sorted(longs)
       if not any(re.search(rf"--{re.escape(o)}\b(?!-)", t) for t in tags)]
bad += [f"-{c}" for c in sorted(shorts)
        if not any(re.search(rf"(?<![-\w])-{re.escape(c)}\b", t) for t in tags)]
if not cmds or not longs or not shorts or bad:
    print(" ".join(bad) or "no options or commands found")
    sys.exit(1)
