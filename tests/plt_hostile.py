#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Hostile PLTs: copies of a 64-bit PIE whose section headers (which the
loader does not read: the copies still run) lie about its PLT, and what
plt.c (tests/pltnames, built with AddressSanitizer and UBSan) must make
of them: no read outside a section, at most plt.h's 65536 entries, names
cut at 1023 bytes and 4 MiB of them in all.
  huge:    .rela.plt of 65600 relocations of symbols past .dynsym, a .plt
           of 2^40 bytes: 65536 entries, each "offset_0x...@plt"
  long:    the same relocations of real symbols, .dynstr 5000 bytes of 'A':
           names of 1023 bytes, 4 MiB of names, then no more
  outside: .rela.plt linked to a section that is not there, .dynsym to
           itself, .plt.got over the relocations' bytes, a .plt whose
           addresses wrap: nothing named from them
usage: plt_hostile.py PIE DIR PLTNAMES   (writes DIR/plt_{huge,long,outside});
prints one KTAP line, exit 1 when not ok"""
import os
import struct
import subprocess
import sys

PIE, D, PLTNAMES = sys.argv[1:4]
WHAT = "hostile PLTs (relocations past .dynsym, 2^40-byte .plt, long names, links outside) within plt.h's budget"
N = 65600


def sections(b):
    shoff, = struct.unpack_from("<Q", b, 0x28)
    shnum, shstrndx = struct.unpack_from("<HH", b, 0x3c)
    hdrs = [list(struct.unpack_from("<IIQQQQIIQQ", b, shoff + 64 * i)) for i in range(shnum)]
    strs = hdrs[shstrndx][4]
    names = [b[strs + h[0]:b.index(b"\0", strs + h[0])].decode() for h in hdrs]
    return shoff, hdrs, {n: i for i, n in enumerate(names)}


def write(name, b, hdrs, shoff):
    for i, h in enumerate(hdrs):
        struct.pack_into("<IIQQQQIIQQ", b, shoff + 64 * i, *h)
    path = os.path.join(D, name)
    with open(path, "wb") as f:
        f.write(b)
    os.chmod(path, 0o755)
    return path


orig = open(PIE, "rb").read()
files = {}
# huge: relocations of symbols past .dynsym, a .plt of 2^40 bytes
b = bytearray(orig)
shoff, h, ix = sections(b)
at = len(b)
b += b"".join(struct.pack("<QQq", 0x4000 + 8 * i, (1000000 + i) << 32 | 7, 0) for i in range(N))
h[ix[".rela.plt"]][4:6] = [at, 24 * N]
h[ix[".plt"]][5] = 1 << 40
files["huge"] = write("plt_huge", b, h, shoff)
# long: the same of real symbols, whose names all fall in 5000 bytes of 'A'
b = bytearray(orig)
shoff, h, ix = sections(b)
nsym = h[ix[".dynsym"]][5] // 24
at = len(b)
b += b"".join(struct.pack("<QQq", 0x4000 + 8 * i, (1 + i % (nsym - 1)) << 32 | 7, 0) for i in range(N))
h[ix[".rela.plt"]][4:6] = [at, 24 * N]
h[ix[".plt"]][5] = 1 << 40
at = len(b)
b += b"\0" + b"A" * 5000 + b"\0"
h[ix[".dynstr"]][4:6] = [at, 5002]
files["long"] = write("plt_long", b, h, shoff)
# outside: links to no section, a symbol table linked to itself, .plt.got
# over relocation bytes, a .plt that wraps
b = bytearray(orig)
shoff, h, ix = sections(b)
h[ix[".rela.plt"]][6] = 9999
h[ix[".rela.dyn"]][6] = ix[".rela.dyn"]
h[ix[".dynsym"]][6] = ix[".dynsym"]
h[ix[".plt.got"]][4] = h[ix[".rela.dyn"]][4]
h[ix[".plt.got"]][5] = h[ix[".rela.dyn"]][5]
h[ix[".plt"]][3] = (1 << 64) - 16
files["outside"] = write("plt_outside", b, h, shoff)

r = subprocess.run([PLTNAMES] + list(files.values()), capture_output=True, text=True)
got, cur = {}, None
for line in r.stdout.splitlines():
    if line.startswith("# "):
        cur = got.setdefault(line[2:].rsplit(" ", 1)[0], [])
    else:
        cur.append(line.split(" ", 2)[2])
bad = []
if r.returncode or r.stderr:
    bad.append(f"pltnames exit {r.returncode}: {r.stderr[:600]}")
huge, long_, outside = (got.get(files[k], []) for k in ("huge", "long", "outside"))
if len(huge) != 65536 or not all(n.startswith("offset_0x") or n == ".plt" for n in huge):
    bad.append(f"huge: {len(huge)} entries, not 65536 offset_0x...@plt")
total = sum(len(n) + 1 for n in long_)
if not long_ or max(len(n) for n in long_) > 1023 or total > 4 << 20 or len(long_) >= 65536 \
   or total < (4 << 20) - 1024:
    bad.append(f"long: {len(long_)} entries, {total} bytes of names, longest "
               f"{max((len(n) for n in long_), default=0)}")
if any(not n.startswith("offset_0x") for n in outside):
    bad.append(f"outside: {[n for n in outside if not n.startswith('offset_0x')][:4]}")
if bad:
    print(f"not ok - {WHAT}: " + "; ".join(bad))
    sys.exit(1)
print(f"ok - {WHAT}: {len(huge)} entries of a 2^40-byte .plt, {len(long_)} long names in "
      f"{total} bytes, {len(outside)} entries named by offset only")
