#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The layers of perfregs-dump, held against its includes and its calls,
and the module's files against circles.

perfregs-dump: docs/architecture.md lists its layers, lowest first, in
a table ("| N | MODULE... | what they are |").  A module is foo.c with
its foo.h, or a folder of them (cmd/).  Checked:
  - every source file is in a module of exactly one layer;
  - no file includes a header of a higher layer, and no object calls
    (or takes the address of) a function, or uses data, that a module of
    a higher layer defines: the calls come from the objects the build
    made (nm), so a call through a pointer handed down (a tool's
    callback) is not one, as it should not be;
  - the modules' includes and calls together go round in no circle.
module/: its files' includes and calls go round in no circle (a file
is a module there).
Both, and tools/lib/: no file over FILE_MAX lines, no function over
FUNC_MAX (the issue's "~900" and "~120", with room for a comment), and
each file opens (after its SPDX line) with a comment naming its concern.

Prints KTAP lines ("ok - ...", "not ok - ..." and what is wrong); exits
1 when one is not ok.  usage: tests/layers.py [--tool-only] BUILD_DIR"""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOOL = os.path.join(ROOT, "tools", "perfregs-dump")
LAYER = re.compile(r"^\| (\d+) \| ([^|]*?) \|")
DOC = os.path.join(ROOT, "docs", "architecture.md")
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"', re.M)


def sources(top, exts=(".c", ".h")):
    out = subprocess.run(["git", "-C", ROOT, "ls-files", os.path.relpath(top, ROOT)],
                         capture_output=True, text=True).stdout.split()
    files = [os.path.join(ROOT, f) for f in out
             if f.endswith(exts) and os.path.exists(os.path.join(ROOT, f))]
    # new files not committed yet count too
    for d, _, names in os.walk(top):
        for n in names:
            p = os.path.join(d, n)
            if n.endswith(exts) and p not in files:
                files.append(p)
    return sorted(files)


def module_of(path, top):
    rel = os.path.relpath(path, top)
    if os.sep in rel:
        return rel.split(os.sep)[0]
    return os.path.splitext(rel)[0]


def symbols(obj):
    """(defined, undefined) global symbols of an object file."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True).stdout
    defined, undef = set(), set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] == "U":
            undef.add(f[0])
        elif f[1] in "TDBRVWGS":
            defined.add(f[0])
    return defined, undef


def edges_of(files, top, objdir):
    """{(a, b): [why]}: module a includes or calls into module b."""
    edges = {}
    for f in files:
        a = module_of(f, top)
        for h in INCLUDE.findall(open(f, errors="replace").read()):
            p = os.path.normpath(os.path.join(os.path.dirname(f), h))
            if not p.startswith(top + os.sep) or not os.path.exists(p):
                continue
            b = module_of(p, top)
            if a != b:
                edges.setdefault((a, b), []).append(
                    f"{os.path.relpath(f, top)} includes {os.path.relpath(p, top)}")
    owner, needs = {}, {}
    for f in files:
        if not f.endswith(".c"):
            continue
        obj = os.path.join(objdir, os.path.relpath(f, top))[:-2] + ".o"
        if not os.path.exists(obj):
            continue
        d, u = symbols(obj)
        for s in d:
            owner[s] = f
        needs[f] = u
    for f, u in needs.items():
        a = module_of(f, top)
        for s in sorted(u):
            g = owner.get(s)
            if g and module_of(g, top) != a:
                edges.setdefault((a, module_of(g, top)), []).append(
                    f"{os.path.relpath(f, top)} calls {s}() of {os.path.relpath(g, top)}")
    return edges


def circles(nodes, edges):
    """Strongly connected components of more than one node (Tarjan)."""
    graph = {n: set() for n in nodes}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    index, low, stack, on, out, n = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = n[0]
        n[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))
    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def check_tool(build):
    layer, bad = {}, []
    for line in open(DOC):
        m = LAYER.match(line)
        if m:
            for mod in m.group(2).split():
                if mod in layer:
                    bad.append(f"{mod} is in layer {layer[mod]} and in layer {m.group(1)}")
                layer[mod] = int(m.group(1))
    if not layer:
        bad.append("docs/architecture.md lists no layers")
    files = [f for f in sources(TOOL)]
    mods = {module_of(f, TOOL) for f in files}
    for mod in sorted(mods - set(layer)):
        bad.append(f"{mod} is in no layer of docs/architecture.md")
    edges = edges_of(files, TOOL, os.path.join(build, "obj", "tools", "perfregs-dump"))
    calls = sum(1 for why in edges.values() for w in why if " calls " in w)
    for (a, b), why in sorted(edges.items()):
        if a in layer and b in layer and layer[b] > layer[a]:
            bad.append(f"{a} (layer {layer[a]}) reaches up to {b} (layer {layer[b]}): "
                       + "; ".join(why[:3]))
    for c in circles(mods, edges):
        bad.append("a circle: " + " <-> ".join(c) + " (" + "; ".join(
            w for (a, b), why in edges.items() if a in c and b in c for w in why[:1]) + ")")
    what = ("perfregs-dump's includes and calls keep the layers of "
            "docs/architecture.md, going down only, with no circle")
    if calls == 0:
        bad.append(f"no calls found: are the objects built under {build}/obj?")
    if bad:
        print(f"not ok - {what}")
        for b in bad:
            print(f"# {b}")
        return False
    print(f"ok - {what}: {len(files)} files in {len(mods)} modules, "
          f"{len(edges)} module pairs ({calls} calls)")
    return True


def check_module(build):
    top = os.path.join(ROOT, "module")
    kmod = os.path.join(build, "kmod")
    vers = sorted(os.listdir(kmod)) if os.path.isdir(kmod) else []
    what = "module/'s files include and call each other in no circle"
    if not vers:
        print(f"ok - {what} # SKIP no module built under {kmod}")
        return True
    files = sources(top)
    edges = edges_of(files, top, os.path.join(kmod, vers[0], "module"))
    # a file is a module here: foo.c with foo.h
    found = circles({module_of(f, top) for f in files}, edges)
    if found:
        print(f"not ok - {what}")
        for c in found:
            why = [w for (a, b), ws in edges.items() if a in c and b in c for w in ws[:2]]
            print("# a circle: " + " <-> ".join(c) + ": " + "; ".join(why))
        return False
    print(f"ok - {what}: {len(files)} files, {len(edges)} file pairs")
    return True


FILE_MAX = 950
FUNC_MAX = 130


def check_sizes():
    what = (f"the tool's, the library's and the module's C files: none over {FILE_MAX} "
            f"lines, no function over {FUNC_MAX}, each opens with its concern")
    bad, nfiles, nfuncs = [], 0, 0
    for top in (TOOL, os.path.join(ROOT, "tools", "lib"), os.path.join(ROOT, "module")):
        for path in sources(top):
            rel = os.path.relpath(path, ROOT)
            lines = open(path, encoding="utf-8", errors="replace").read().split("\n")
            nfiles += 1
            if len(lines) > FILE_MAX:
                bad.append(f"{rel}: {len(lines)} lines")
            head = [l for l in lines[:4] if not l.startswith("// SPDX")]
            if not head or not head[0].startswith("/*"):
                bad.append(f"{rel}: no comment naming its concern at its top")
            # a function: a line "{" alone after a line ending in ")",
            # to the first "}" alone (Linux style, as checkpatch wants)
            i = 0
            while i < len(lines):
                if lines[i] == "{" and i and lines[i - 1].rstrip().endswith(")"):
                    j = i + 1
                    while j < len(lines) and lines[j] != "}":
                        j += 1
                    nfuncs += 1
                    if j - i + 1 > FUNC_MAX:
                        k = i - 1
                        while k > 0 and "(" not in lines[k]:
                            k -= 1
                        m = re.search(r"(\w+)\s*\(", lines[k])
                        bad.append(f"{rel}: {m.group(1) if m else '?'}() {j - i + 1} lines")
                    i = j
                i += 1
    if bad:
        print(f"not ok - {what}")
        for b in bad:
            print(f"# {b}")
        return False
    print(f"ok - {what}: {nfiles} files, {nfuncs} functions")
    return True


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    build = os.path.abspath(args[0] if args else os.path.join(ROOT, "build"))
    ok = check_tool(build)
    if "--tool-only" not in sys.argv:
        ok = check_module(build) and ok
        ok = check_sizes() and ok
    sys.exit(0 if ok else 1)


main()
