#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The folded stacks (-f folded) that perfregs-dump's JSON Lines of the
same samples stand for, computed here from the rules its man page gives,
to check the tool's own -f folded against:
  comm;outermost;...;leaf count, a line per distinct stack, sorted;
  a frame is its sym without the +0xoffset, else [basename of its dso],
  else [unknown]; a kernel-mode sample's leaf is its kernel sym with _[k];
  frames of samples whose kernel_abi is "32" end in _[i386];
  a function inlined (a callchain frame "inlined": true, or one of the
  user ip's "inline" list, innermost first, before the ip's own sym)
  ends in _[i] instead;
  ';' and control characters in names (C0, DEL and C1) become '_'.
The frames are the callchain when there is one (--call-graph dwarf),
else (no stack, or nothing unwound) the user ip's sym.
usage: folded_ref.py < samples.jsonl   (prints the folded lines)"""
import json
import re
import sys


def clean(s):
    return re.sub(r"[;\x00-\x1f\x7f-\x9f]", "_", s)


def name(sym, dso):
    if sym:
        return clean(re.sub(r"\+0x[0-9a-f]+$", "", sym))
    if dso and not dso.startswith("["):
        return "[" + clean(dso.rsplit("/", 1)[-1]) + "]"
    return "[unknown]"


def stack(r, callgraph):
    i386 = "_[i386]" if r.get("kernel_abi") == "32" else ""
    frames = []		# leaf first
    user = r.get("mode") == "user"
    if not user:
        frames.append(name(r.get("sym"), None) + "_[k]")
    ip = [name(x.get("sym"), None) + "_[i]" for x in r.get("inline") or []] + \
        [name(r.get("sym"), None) + i386]
    if callgraph and "stack" in r:
        frames += [name(f.get("sym"), f.get("dso")) + ("_[i]" if f.get("inlined") else i386)
                   for f in r.get("callchain") or []]
        if user and not r.get("callchain"):     # not unwound: the user ip
            frames += ip
    elif user:
        frames += ip
    return ";".join([clean(r.get("comm") or "[unknown]")] + frames[::-1])


def folded(lines, callgraph=True):
    """{stack: count} of the samples among JSON lines."""
    out = {}
    for line in lines:
        r = json.loads(line)
        if r.get("type") == "sample":
            s = stack(r, callgraph)
            out[s] = out.get(s, 0) + 1
    return out


def parse(text):
    """{stack: count} of -f folded's output; ValueError if a line is not one."""
    out = {}
    for line in text.splitlines():
        s, _, n = line.rpartition(" ")
        if not s or not n.isdigit() or s in out:
            raise ValueError(f"not a folded line, or twice: {line!r}")
        out[s] = int(n)
    return out


if __name__ == "__main__":
    for s, n in sorted(folded(sys.stdin, "--no-callgraph" not in sys.argv).items()):
        print(f"{s} {n}")
