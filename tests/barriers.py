#!/usr/bin/python3
"""Every memory barrier of the ring protocol names itself and its pair.

Scope: the module (module/*.[ch]), the reader library
(tools/lib/libperfregs.c) and the protocol as the uapi header documents
it.  A barrier is a line of code with smp_mb/smp_wmb/smp_rmb,
smp_load_acquire/smp_store_release, the library's
prf_load_acquire/prf_store_release, __atomic_thread_fence or an
__ATOMIC_ACQUIRE/RELEASE access; in the uapi header, also the barriers of
the reader's pseudo-code in its comments.  Its comment (on the line, or
the comment lines just above) must give it a label ("X:", one capital
letter) and say "pairs with" a label that some other barrier (or the
control dependency, "A:") defines, or with a kernel function outside
this code (by name, "fput()"; a bare barrier like "smp_mb()" names no
pair).  Prints KTAP lines; exits 1 on a
violation.

usage: tests/barriers.py [ROOT]
"""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
BARRIER = re.compile(r"\b(smp_mb|smp_wmb|smp_rmb|smp_load_acquire|smp_store_release|"
                     r"prf_load_acquire|prf_store_release|__atomic_thread_fence)\s*\(|"
                     r"__ATOMIC_(ACQUIRE|RELEASE|ACQ_REL|SEQ_CST)")
LABEL = re.compile(r"(?:^|[\s(/*])([A-Z]):\s")
PAIRS = re.compile(r"pairs with\b(.*)", re.S)
TOKEN = re.compile(r"\b([A-Z])\b")

files = sorted(glob.glob(os.path.join(root, "module", "*.[ch]")))
files.append(os.path.join(root, "tools", "lib", "libperfregs.c"))
uapi = os.path.join(root, "include", "uapi", "linux", "perfregs.h")
files.append(uapi)

sites = []		# (file, line, comment text)
defined = set()
for path in files:
    lines = open(path).read().split("\n")
    for i, line in enumerate(lines):
        code = line.strip()
        is_comment = code.startswith("*") or code.startswith("/*") or code.startswith("//")
        # a label defined outside a barrier: only the control dependency
        if "depend" in line:
            for m in LABEL.finditer(line):
                defined.add(m.group(1))
        if not BARRIER.search(line) or "#define" in line:
            continue
        if is_comment and path != uapi:
            continue	# diagrams in comments; the code has its own
        if is_comment and not re.match(r"\s*\*\s{3,}", line):
            continue	# uapi prose; only its pseudo-code lines count
        # the comment: this line's, and the comment lines just above
        text = [line[BARRIER.search(line).end():]] if not is_comment else [line]
        j = i - 1
        while j >= 0 and not is_comment and lines[j].strip().startswith(("/*", "*", "//")) \
                and len(text) < 12:
            text.insert(0, lines[j])
            j -= 1
        k = i + 1	# uapi pseudo-code: the explanation may go on below
        while is_comment and k < len(lines) and re.match(r"\s*\*\s{20,}\S", lines[k]):
            text.append(lines[k])
            k += 1
        sites.append((os.path.relpath(path, root), i + 1,
                      re.sub(r"[\s*/]+", " ", " ".join(text))))

for path, n, text in sites:
    defined.update(LABEL.findall(text))

bad = []
for path, n, text in sites:
    own = LABEL.findall(text)
    m = PAIRS.search(text)
    pairs = TOKEN.findall(m.group(1)) if m else []
    # a pair outside this code: a kernel function, never a bare barrier
    outside = [f for f in re.findall(r"\b(\w+)\(\)", m.group(1))
               if not BARRIER.search(f + "(")] if m else []
    if not own:
        bad.append(f"{path}:{n}: the barrier has no label (X:)")
    elif not pairs and not outside:
        bad.append(f"{path}:{n}: barrier {own[0]} does not say what it pairs with")
    elif not outside:
        for p in pairs:
            if p not in defined:
                bad.append(f"{path}:{n}: barrier {own[0]} pairs with {p}, "
                           "which no barrier defines")

print("TAP version 13")
print(f"# {len(sites)} barriers, labels {''.join(sorted(defined))}")
for b in bad:
    print("# " + b)
if bad:
    print("not ok - every barrier names itself and its real pair")
    sys.exit(1)
print("ok - every barrier names itself and its real pair")
