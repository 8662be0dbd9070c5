#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Every option of perfregs-dump's getopt tables (main.c) has an entry
of its own in the man page's OPTIONS: a .TP whose tag names it, short
(-x) or long (--xx), followed by text that describes it (not straight
another tag), inside one of OPTIONS' subsections.
usage: man_options.py MAIN_C MAN_PAGE   prints what lacks one; exit 1 then"""
import re
import sys

src, man = open(sys.argv[1]).read(), open(sys.argv[2]).read()
longs = re.findall(r'\{ "([a-z-]+)", [a-z_]+, NULL', src)
shorts = re.search(r'getopt_long\(argc, argv, "\+([^"]*)"', src)
shorts = [c for c in (shorts.group(1) if shorts else "") if c != ":"]
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
bad = [f"--{o}" for o in longs if not any(re.search(rf"--{re.escape(o)}\b(?!-)", t) for t in tags)]
bad += [f"-{c}" for c in shorts if not any(re.search(rf"(?<![-\w])-{re.escape(c)}\b", t)
                                           for t in tags)]
if not longs or not shorts or bad:
    print(" ".join(bad) or "no options found")
    sys.exit(1)
