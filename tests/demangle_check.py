#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""C++ and Rust names demangled in every output, and perf names them the
same: tests/demangle_target.cc (ns::W<int>::spin, a legacy and two v0
Rust names) blocked in read() from main -> spin -> legacy -> v0 -> v0,
recorded live twice: its stack (tests/mksnap) and samples at spin
itself (tests/mkmaps).  Every output names the four functions demangled
(script's text and JSON, the sample's own symbol and its chain's,
-f folded, the flame graph, report's table and its JSON, pprof's
function names) and --no-demangle as the file does; JSON keeps the
file's name in sym_raw, pprof in system_name; --symbols matches the
name shown.  convert's perf.data carries no names: it is the same byte
for byte either way, and perf script and perf report name the
program's frames as this tool does.
usage: demangle_check.py BUILD PROG   prints KTAP lines"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

B, PROG = sys.argv[1:3]
TOOL = os.path.join(B, "perfregs-dump")
# (demangled, raw), the chain's order from the leaf out
NAMES = [("123foo::bar", "_RNvC6_123foo3bar"),
         ("utf8_idents::საჭმელად_გემრიელი_სადილი",
          "_RNqCs4fqI2P2rA04_11utf8_identsu30____7hkackfecea1cbdathfdh9hlq6y"),
         ("<Test + 'static as foo::Bar<Test>>::bar",
          "_ZN71_$LT$Test$u20$$u2b$$u20$$u27$static$u20$as$u20$foo..Bar$LT$Test$GT$$GT$"
          "3bar17h930b740aa94f1d3aE"),
         ("ns::W<int>::spin", "_ZN2ns1WIiE4spinERSt6vectorIiSaIiEE")]
SPIN = NAMES[3]
tmp = tempfile.mkdtemp()
snap, leaf = os.path.join(tmp, "s.prf"), os.path.join(tmp, "m.prf")


def run(*args, check=True):
    p = subprocess.run(list(args), capture_output=True, text=True)
    if check and p.returncode:
        raise RuntimeError(f"{' '.join(args)[:200]}: exit {p.returncode}: {p.stderr[:300]}")
    return p.stdout


def tool(*args):
    return run(TOOL, *args)


def func(sym):
    """a name without its +0xOFFSET"""
    return re.sub(r"\+0x[0-9a-f]+$", "", sym)


def want_names(text, mangled, what):
    """every name in text, as shown (or as the file has it), none the other way"""
    bad = []
    for dem, raw in NAMES:
        shown, other = (raw, dem) if mangled else (dem, raw)
        if shown not in text:
            bad.append(f"{what}: no {shown!r}")
        if other in text:
            bad.append(f"{what}: {other!r}")
    return bad


proc = subprocess.Popen([PROG], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
spin_addr = proc.stdout.readline().split()[0].decode()
time.sleep(0.2)			# blocked in read() now
try:
    run(os.path.join(B, "mksnap"), snap, "8192", str(proc.pid))
    run(os.path.join(B, "mkmaps"), leaf, str(proc.pid), spin_addr, "3")
finally:
    proc.stdin.close()
    proc.wait()

# script: text, JSON, folded, the flame graph; both ways
WHAT = ("demangling: C++ (ns::W<int>::spin) and Rust legacy and v0 names demangled in "
        "script's text, JSON (sym_raw the file's), folded and the flame graph; "
        "--no-demangle as the file has them")
bad = []
for mangled, opt in ((False, []), (True, ["--no-demangle"]), (False, ["--no-demangle", "--demangle"])):
    tag = " ".join(opt) or "default"
    bad += want_names(tool("script", "-q", "-i", snap, *opt), mangled, f"text ({tag})")
    bad += want_names(tool("script", "-q", "-i", snap, "-f", "folded", *opt), mangled,
                      f"folded ({tag})")
    svg = os.path.join(tmp, "f.svg")
    tool("script", "-q", "-i", snap, "-f", "folded", "--flamegraph", svg, *opt)
    bad += want_names(" ".join(ET.parse(svg).getroot().itertext()), mangled, f"svg ({tag})")
    chain = json.loads(tool("script", "-q", "-i", snap, "-f", "json", *opt).splitlines()[0])
    chain = {func(f.get("sym", "")): f for f in chain["callchain"]}
    for dem, raw in NAMES:
        f = chain.get(raw if mangled else dem)
        if not f:
            bad.append(f"json ({tag}): no frame {dem if not mangled else raw!r} in {sorted(chain)}")
        elif mangled and "sym_raw" in f:
            bad.append(f"json ({tag}): sym_raw {f['sym_raw']!r}")
        elif not mangled and func(f.get("sym_raw", "")) != raw:
            bad.append(f"json ({tag}): {dem!r} has sym_raw {f.get('sym_raw')!r}")
    if "main" not in chain or "sym_raw" in chain["main"]:
        bad.append(f"json ({tag}): main is not there, or has a sym_raw")
print(f"{'not ok' if bad else 'ok'} - {WHAT}" + (": " + "; ".join(bad)[:1500] if bad else ""))
failed = bool(bad)

# the sample's own symbol (mkmaps: samples at spin), --symbols, report, pprof
WHAT = ("demangling: a sample's own symbol (script, JSON sym and sym_raw, --symbols), "
        "report's table and its JSON, pprof's function names with the file's as "
        "system_name; --no-demangle as the file has them")
bad = []
for mangled, opt in ((False, []), (True, ["--no-demangle"])):
    tag = " ".join(opt) or "default"
    shown = SPIN[1] if mangled else SPIN[0]
    out = tool("script", "-q", "-i", leaf, "-F", "comm,sym", *opt)
    if out.count(f"({shown}+0x0)") != 3:
        bad.append(f"script ({tag}): {out[:300]!r}")
    for line in tool("script", "-q", "-i", leaf, "-f", "json", *opt).splitlines():
        r = json.loads(line)
        if r["type"] != "sample":
            continue
        if r.get("sym") != shown + "+0x0" or r.get("sym_raw") != (None if mangled else SPIN[1] + "+0x0"):
            bad.append(f"json ({tag}): sym {r.get('sym')!r}, sym_raw {r.get('sym_raw')!r}")
    kept = tool("script", "-q", "-i", leaf, "-S", shown, "-F", "sym", *opt).count("+0x0")
    if kept != 3:
        bad.append(f"--symbols {shown!r} ({tag}): {kept} samples kept, want 3")
    if f"[.] {shown}\n" not in tool("report", "-q", "-i", leaf, "-s", "sym", *opt) + "\n":
        bad.append(f"report ({tag}): no '[.] {shown}'")
    rep = json.loads(tool("report", "-q", "-i", snap, "-f", "json", "-g", "caller", *opt))
    names, todo = set(), list(rep["entries"])
    while todo:
        e = todo.pop()
        names.add(e.get("name") or e.get("sym", "")[4:])
        todo += e.get("callchain", [])
    bad += want_names(" | ".join(sorted(names)), mangled, f"report -f json ({tag})")
    if shutil.which("go"):
        pb = os.path.join(tmp, "p.pb.gz")
        tool("convert", "-q", "--to", "pprof", "-i", snap, "-o", pb, *opt)
        # pprof demangles names itself but with -symbolize=none
        raw = run("go", "tool", "pprof", "-symbolize=none", "-raw", pb)
        for dem, mang in NAMES:
            # -raw: "NAME FILE:LINE s=0(SYSTEM_NAME)" when the two differ
            want = f" {mang} " if mangled else f" {dem} "
            line = [ln for ln in raw.splitlines() if want in ln]
            if not line or (not mangled and not line[0].endswith(f"s=0({mang})")) or \
               (mangled and "s=0(" in line[0]):
                bad.append(f"pprof ({tag}): {dem!r}: {line[:1]}")
if not shutil.which("go"):
    WHAT += " # SKIP go is not installed (make deps): pprof not read"
print(f"{'not ok' if bad else 'ok'} - {WHAT}" + (": " + "; ".join(bad)[:1500] if bad else ""))
failed |= bool(bad)

# perf on convert's perf.data: no names in it, and perf's the same as ours
WHAT = ("demangling: convert's perf.data is the same with --no-demangle (no names in it); "
        "perf script and perf report -g caller name the program's frames as this tool does")
bad = []
if not shutil.which("perf"):
    WHAT += " # SKIP perf is not installed (make deps)"
else:
    pd, pd2, pdm = (os.path.join(tmp, n) for n in ("a.data", "b.data", "m.data"))
    tool("convert", "-q", "-i", snap, "-o", pd)
    tool("convert", "-q", "--no-demangle", "-i", snap, "-o", pd2)
    if open(pd, "rb").read() != open(pd2, "rb").read():
        bad.append("perf.data differs with --no-demangle")
    prog = os.path.basename(PROG)
    # our chain, outermost last, the program's frames only
    ours = [func(m.group(1)) for m in re.finditer(r"^\s+[0-9a-f]+ (.*) \((.*)\)$",
                                                  tool("script", "-q", "-i", snap), re.M)
            if os.path.basename(m.group(2)) == prog]
    theirs = [m.group(1) for m in re.finditer(r"^\s+[0-9a-f]+ (.*) \((.*)\)$",
                                              run("perf", "script", "-i", pd, "-F", "ip,sym,dso"),
                                              re.M)
              if os.path.basename(m.group(2)) == prog]
    if ours != theirs or len(ours) < 6:
        bad.append(f"perf script {theirs}, ours {ours}")
    rep = run("perf", "report", "-i", pd, "--stdio", "--no-children", "-g", "caller")
    for dem, _ in NAMES:
        if not re.search(r"^\s+" + re.escape(dem) + "$", rep, re.M):
            bad.append(f"perf report: no {dem!r}")
    tool("convert", "-q", "-i", leaf, "-o", pdm)
    syms = re.findall(r"^\s+[0-9a-f]+ (.*) \(.*\)$",
                      run("perf", "script", "-i", pdm, "-F", "ip,sym,dso"), re.M)
    if syms != [SPIN[0]] * 3:
        bad.append(f"perf script of the samples at spin: {syms}")
print(f"{'not ok' if bad else 'ok'} - {WHAT}" + (": " + "; ".join(bad)[:1500] if bad else ""))
failed |= bool(bad)
shutil.rmtree(tmp, ignore_errors=True)
sys.exit(1 if failed else 0)
