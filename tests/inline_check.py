#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Inline frames from DWARF in every output, against perf:
tests/inline_target.c (-O2 -g: inner_step inlined into middle_step,
inlined into outer_fn) blocked in read() from main -> outer_fn ->
[middle_step -> inner_step], recorded live twice: its stack
(tests/mksnap) and samples inside inner_step (tests/mkmaps).  Each
inlined function is a frame of its own, marked inlined, with each
frame's source line: script's text chain ("(inlined)", -F srcline),
JSON (the chain's "inlined":true and "srcline", the sample's "srcline"
and "inline"), -f folded and the flame graph (_[i]), report's chains and
children ("(inlined)", self still outer_fn), pprof (several lines per
location, go tool pprof -raw); --no-inline shows none.  Debian's perf
6.1 shows no inlined frames (its --inline finds none), but its srcline
of the samples is ours; binutils' addr2line -i names the same inlined
functions and lines.
usage: inline_check.py BUILD PROG SOURCE   prints KTAP lines"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

B, PROG, SRC = sys.argv[1:4]
TOOL = os.path.join(B, "perfregs-dump")
tmp = tempfile.mkdtemp()
snap, leaf = os.path.join(tmp, "s.prf"), os.path.join(tmp, "m.prf")
BASE = os.path.basename(SRC)
LINE = {}
for n, text in enumerate(open(SRC).read().splitlines(), 1):
    m = re.search(r"/\* ([A-Z_]+) \*/", text)
    if m:
        LINE[m.group(1)] = f"{BASE}:{n}"


def run(*args, check=True):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if check and p.returncode:
        raise RuntimeError(f"{' '.join(args)[:200]}: exit {p.returncode}: {p.stderr[:300]}")
    return p.stdout


errors = []		# the tool's failures, each reported by the check it broke


def tool(*args):
    p = subprocess.run([TOOL] + list(args), capture_output=True, text=True)
    if p.returncode:
        errors.append(f"{' '.join(args)[:200]}: exit {p.returncode}: {p.stderr[:200]}")
    return p.stdout


def func(sym):
    return re.sub(r"\+0x[0-9a-f]+$", "", sym)


proc = subprocess.Popen([PROG], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
addr = proc.stdout.readline().split()[0].decode()
time.sleep(0.2)			# blocked in read() now
try:
    run(os.path.join(B, "mksnap"), snap, "8192", str(proc.pid))
    run(os.path.join(B, "mkmaps"), leaf, str(proc.pid), addr, "3")
    # the file's address of addr: a PIE's first mapping is at its vaddr 0
    load = min(int(ln.split("-")[0], 16) for ln in open(f"/proc/{proc.pid}/maps")
               if ln.rstrip().endswith(" " + os.path.realpath(PROG)))
finally:
    proc.stdin.close()
    proc.wait()

# the chain, the program's part: (name, inlined, srcline) from the leaf out
CHAIN = [("inner_step", True, LINE["INNER_READ"]), ("middle_step", True, LINE["MIDDLE_CALL"]),
         ("outer_fn", False, LINE["OUTER_CALL"]), ("main", False, LINE["MAIN_CALL"])]
CHAIN_NO = [("outer_fn", False, LINE["INNER_READ"]), ("main", False, LINE["MAIN_CALL"])]
NAMES = {n for n, _, _ in CHAIN}
failed = False


def report(what, bad):
    global failed
    bad += errors
    errors.clear()
    print(f"{'not ok' if bad else 'ok'} - {what}" + (": " + "; ".join(bad)[:1500] if bad else ""))
    failed |= bool(bad)


def json_chain(opt):
    lines = tool("script", "-q", "-i", snap, "-f", "json", *opt).splitlines()
    if not lines:
        return None
    r = json.loads(lines[0])
    return [(func(f.get("sym", "")), f.get("inlined", False), f.get("srcline"))
            for f in r["callchain"] if func(f.get("sym", "")) in NAMES]


bad = []
for opt, want in (([], CHAIN), (["--no-inline"], CHAIN_NO), (["--no-inline", "--inline"], CHAIN)):
    tag = " ".join(opt) or "default"
    got = json_chain(opt)
    if got != want:
        bad.append(f"json chain ({tag}): {got}, want {want}")
    text = tool("script", "-q", "-i", snap, "-F", "ip,sym,srcline,callchain", *opt)
    lines = text.splitlines()
    names = []
    for i, ln in enumerate(lines):
        m = re.match(r"^\s+([0-9a-f]+) (\S+) \((.*)\)$", ln)
        if not m:
            continue
        src = lines[i + 1].strip() if i + 1 < len(lines) and lines[i + 1].startswith("  ") \
            and not re.match(r"^\s+[0-9a-f]+ ", lines[i + 1]) else None
        if func(m.group(2)) in NAMES:
            names.append((func(m.group(2)), m.group(3) == "inlined", src))
    if names != want:
        bad.append(f"text chain ({tag}): {names}, want {want}")
    ips = set(re.findall(r"^\s+([0-9a-f]+) (?:inner_step|middle_step|outer_fn)", text, re.M))
    if len(ips) != 1:
        bad.append(f"text ({tag}): the inlined frames and outer_fn at {ips}, not one address")
report("inline frames: script's chain, text (\"NAME (inlined)\", -F srcline each frame's line) "
       "and JSON (\"inlined\":true, each frame's srcline: the call sites); --no-inline none", bad)

# the sample's own IP (mkmaps: samples inside inner_step)
bad = []
for opt in ([], ["--no-inline"]):
    tag = " ".join(opt) or "default"
    for line in tool("script", "-q", "-i", leaf, "-f", "json", *opt).splitlines():
        r = json.loads(line)
        if r["type"] != "sample":
            continue
        if func(r.get("sym", "")) != "outer_fn" or r.get("srcline") != LINE["INNER_WHERE"]:
            bad.append(f"json ({tag}): sym {r.get('sym')!r}, srcline {r.get('srcline')!r}")
        want = None if opt else [{"sym": "inner_step", "srcline": LINE["INNER_WHERE"]},
                                 {"sym": "middle_step", "srcline": LINE["MIDDLE_CALL"]}]
        if r.get("inline") != want:
            bad.append(f"json ({tag}): inline {r.get('inline')}, want {want}")
    out = tool("script", "-q", "-i", leaf, "-F", "sym,srcline", *opt)
    if out.count(LINE["INNER_WHERE"]) != 3:
        bad.append(f"-F sym,srcline ({tag}): {out[:300]!r}")
report("inline frames: a sample's JSON has its IP's srcline and the functions inlined there "
       "(\"inline\", each with its line); -F srcline the IP's; --no-inline no \"inline\"", bad)

# folded, flame graph, report, pprof
bad = []
fold = tool("script", "-q", "-i", snap, "-f", "folded")
if ";main;outer_fn;middle_step_[i];inner_step_[i];" not in fold:
    bad.append(f"folded: {fold[:400]!r}")
if "_[i]" in tool("script", "-q", "-i", snap, "-f", "folded", "--no-inline"):
    bad.append("folded --no-inline has _[i]")
svg = os.path.join(tmp, "f.svg")
tool("script", "-q", "-i", snap, "--flamegraph", svg)
try:
    root = ET.parse(svg).getroot()
    titles = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
    kinds = open(svg).read()
except (OSError, ET.ParseError) as e:
    titles, kinds = [], str(e)
if not any(t.startswith("inner_step_[i] (") for t in titles) or 'class="f n"' not in kinds:
    bad.append("flame graph: no inner_step_[i] frame of the inlined kind")
rep = tool("report", "-q", "-i", snap, "-g", "caller")
for n in ("inner_step (inlined)", "middle_step (inlined)"):
    if n not in rep:
        bad.append(f"report: no {n!r}")
if "(inlined)" in tool("report", "-q", "-i", snap, "-g", "caller", "--no-inline"):
    bad.append("report --no-inline has (inlined)")
self_rep = tool("report", "-q", "-i", leaf, "-s", "sym", "--no-children")
if "[.] outer_fn" not in self_rep or "inlined" in self_rep:
    bad.append(f"report of the leaf's self: {self_rep[:300]!r}")
if shutil.which("go"):
    pb = os.path.join(tmp, "p.pb.gz")
    tool("convert", "-q", "--to", "pprof", "-i", snap, "-o", pb)
    raw = run("go", "tool", "pprof", "-symbolize=none", "-raw", pb, check=False)
    # Locations: "ID: 0xADDR M=N NAME FILE:LINE s=0" then a line for each more
    m = re.search(r"^\s+\d+: 0x[0-9a-f]+ M=\d+ inner_step \S+:(\d+) s=0\n"
                  r"\s+middle_step \S+:(\d+) s=0\n\s+outer_fn \S+:(\d+) s=0$", raw, re.M)
    want = [LINE[k].split(":")[1] for k in ("INNER_READ", "MIDDLE_CALL", "OUTER_CALL")]
    if not m or list(m.groups()) != want:
        bad.append(f"pprof -raw: no location inner_step, middle_step, outer_fn at {want}: "
                   f"{raw[raw.find('Locations'):][:600]!r}")
    tool("convert", "-q", "--to", "pprof", "--no-inline", "-i", snap, "-o", pb)
    if "inner_step" in run("go", "tool", "pprof", "-symbolize=none", "-raw", pb, check=False):
        bad.append("pprof --no-inline names inner_step")
what = ("inline frames: -f folded (outer_fn;middle_step_[i];inner_step_[i]), the flame graph, "
        "report's chains (NAME (inlined), self still outer_fn), pprof (a line per inlined "
        "function of a location); --no-inline none")
if not shutil.which("go"):
    what += " # SKIP go is not installed (make deps): pprof not read"
report(what, bad)

# perf 6.1 shows no inlined frames (perf script --inline, perf report
# --inline: not in Debian's build), but gives the IP's srcline: the same
# as ours on convert's perf.data; binutils' addr2line -i -f names the
# same inlined functions and lines at the address
bad = []
what = ("inline frames: perf script -F ip,sym,srcline on convert's perf.data gives the "
        "samples' srcline as ours; addr2line -i -f the same inlined functions and lines")
a2l = run("addr2line", "-i", "-f", "-e", PROG, hex(int(addr, 16) - load)).split()
want = ["inner_step", LINE["INNER_WHERE"], "middle_step", LINE["MIDDLE_CALL"], "outer_fn",
        LINE["OUTER_CALL"]]
if [os.path.basename(x) for x in a2l] != want:
    bad.append(f"addr2line -i: {a2l}, want {want}")
if not shutil.which("perf"):
    what += " # SKIP perf is not installed (make deps)"
else:
    pd = os.path.join(tmp, "m.data")
    tool("convert", "-q", "-i", leaf, "-o", pd)
    theirs = re.findall(r"^\s+[0-9a-f]+ (\S+)\n\s+(\S+)$",
                        run("perf", "script", "-i", pd, "-F", "ip,sym,srcline", check=False),
                        re.M)
    ours = re.findall(r"\((\S+)\+0x[0-9a-f]+\) (\S+)$",
                      tool("script", "-q", "-i", leaf, "-F", "ip,sym,srcline"), re.M)
    if theirs != ours or len(ours) != 3 or ours[0] != ("outer_fn", LINE["INNER_WHERE"]):
        bad.append(f"perf script {theirs}, ours {ours}")
report(what, bad)
# the budget (PERFREGS_INLINE_BYTES lowers it): the leaf's address
# (read() in libc) takes it all, the frames met later get no inlined
# frames, said once, and the decode goes on
bad = []
p = subprocess.run([TOOL, "script", "-i", snap, "-f", "json"], capture_output=True, text=True,
                   env=dict(os.environ, PERFREGS_INLINE_BYTES="1"))
lines = p.stdout.splitlines()
if p.returncode or not lines or '"inlined":true' in lines[0] or '"callchain":[{' not in lines[0]:
    bad.append(f"exit {p.returncode}: {p.stdout[:300]!r}")
if p.stderr.count("inline frames: their budget (0 KiB) is spent") != 1:
    bad.append(f"stderr: {p.stderr[:300]!r}")
report("inline frames: past their budget (PERFREGS_INLINE_BYTES) the addresses met later "
       "show none, said once", bad)
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failed else 0)
