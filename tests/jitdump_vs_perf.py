#!/usr/bin/env python3
"""JIT code named by its jitdump, perfregs against perf inject --jit
(jitmap.c, jitdump.c).

node --perf-prof writes jit-PID.dump in its working directory (and maps
it, for perf to find).  Three KTAP lines:

1. after: node runs a hot JS function under perf record -k 1 -e
   cpu-clock; perf inject --jit makes an ELF image of each code load and
   perf script names the samples from them.  The same IPs, in a
   recording mkjit makes of the dump (its loads as record writes them),
   are named by perfregs-dump script -i, the dump deleted.  Of the
   samples perf names from the dump, at least 95% must be named alike
   and with the dump as the dso, and at least 95% of those in the hot
   function by both.
2. live: node runs again; once its dump has the hot function, mkjit
   names an address in it as the live decoder does (the dump found
   through /proc/PID/maps and the process's root).
3. a hostile dump: loads with no name's end, sizes of 0 and past 2^64,
   a record longer than the file, one shorter than its header, and a
   dump of the other byte order: the good loads before the bad record
   name, nothing hangs or reads past the file.

A skip when node or perf cannot run here.
usage: jitdump_vs_perf.py BUILD TMPDIR"""
import os
import re
import shutil
import struct
import subprocess
import sys
import time

HOT_JS = """function hot(n) { let s = 0; for (let i = 0; i < n; i++) s = (s + i * i) % 1000003; return s; }
let t = 0; const end = Date.now() + MS;
while (Date.now() < end) t += hot(100000);
console.log(t > 0 ? "done" : "none");
"""
WHAT = ["node --perf-prof: perfregs names the samples from its jitdump as perf inject --jit does",
        "live: an IP in JIT code is named by the jitdump the process maps",
        "a hostile jitdump: the loads before its bad record name, the rest is refused, at once"]


def bare(sym):
    return sym.rsplit("+0x", 1)[0] if "+0x" in sym else sym


def loads(path):
    """(addr, size, name) of a dump's code loads (for the test's own look)"""
    b = open(path, "rb").read()     # being written: whole records only
    if len(b) < 40:
        return []
    out, i = [], struct.unpack_from("<I", b, 8)[0]
    while i + 16 <= len(b):
        rid, size = struct.unpack_from("<II", b, i)
        if size < 16 or i + size > len(b):
            break
        end = b.find(b"\0", i + 56, i + size)
        if rid == 0 and end > 0:
            addr, csize = struct.unpack_from("<QQ", b, i + 32)
            out.append((addr, csize, b[i + 56:end].decode(errors="replace")))
        i += size
    return out


def after(build, tmp, node):
    d = os.path.join(tmp, "jd_after")
    os.makedirs(d, exist_ok=True)
    js = os.path.join(d, "hot.js")
    with open(js, "w") as f:
        f.write(HOT_JS.replace("MS", "1500"))
    data = os.path.join(d, "jit.data")
    r = subprocess.run(["perf", "record", "-q", "-k", "1", "-e", "cpu-clock", "-c", "100000",
                        "-o", data, "--", node, "--perf-prof", js],
                       capture_output=True, text=True, timeout=120, cwd=d)
    if r.returncode:
        return f"ok - {WHAT[0]} # SKIP perf record cannot sample here: {r.stderr.strip()[:100]}"
    inj = os.path.join(d, "jit.inj.data")
    r = subprocess.run(["perf", "inject", "--jit", "-i", data, "-o", inj],
                       capture_output=True, text=True, timeout=300, cwd=d)
    if r.returncode:
        return f"not ok - {WHAT[0]}: perf inject --jit failed: {r.stderr.strip()[:200]}"
    out = subprocess.run(["perf", "script", "-i", inj, "-F", "pid,ip,sym,dso"],
                         capture_output=True, text=True, timeout=300).stdout
    samples = []
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)\s+([0-9a-f]+)\s+(.*) \((\S*/jitted-\d+-\d+\.so)\)$", line)
        if m:
            samples.append((int(m.group(1)), int(m.group(2), 16), m.group(3)))
    pids = {p for p, _, _ in samples}
    if len(pids) != 1 or len(samples) < 100:
        return f"not ok - {WHAT[0]}: perf named {len(samples)} samples from dumps of {len(pids)} processes"
    pid = pids.pop()
    dump = os.path.join(d, f"jit-{pid}.dump")
    hot = [(a, a + s) for a, s, n in loads(dump) if re.search(r"[*~^]?hot ", n)]
    rec = os.path.join(d, "jd.prf")
    ips = [ip for _, ip, _ in samples]
    subprocess.run([os.path.join(build, "mkjit"), rec, str(pid), "--dump", dump, str(pid)] +
                   [format(ip, "x") for ip in ips], check=True, capture_output=True, timeout=120)
    os.unlink(dump)         # -i reads the recording's loads, not the file
    ours = subprocess.run([os.path.join(build, "perfregs-dump"), "script", "-q", "-i", rec,
                           "-F", "ip,sym,dso"], capture_output=True, text=True,
                          timeout=120).stdout.splitlines()
    named = []
    for line in ours:
        m = re.match(r"ip 0x([0-9a-f]+) \((.*)\) \((.*)\)$", line)
        named.append((bare(m.group(2)), m.group(3)) if m else None)
    if len(named) != len(samples):
        return f"not ok - {WHAT[0]}: {len(named)} samples decoded of {len(samples)}"
    same = in_hot = hot_perf = hot_ours = 0
    for (_, ip, psym), o in zip(samples, named):
        same += bool(o) and o[0] == bare(psym) and o[1] == dump
        if any(a <= ip < e for a, e in hot):
            in_hot += 1
            hot_perf += re.search(r"[*~^]?hot ", psym) is not None
            hot_ours += bool(o) and re.search(r"[*~^]?hot ", o[0]) is not None
    print(f"# {len(samples)} samples perf names from the dump, {in_hot} in the hot function: "
          f"perf names {hot_perf}, perfregs {hot_ours}; perfregs as perf: {same}")
    ok = in_hot >= 100 and same >= 0.95 * len(samples) and hot_ours >= 0.95 * in_hot and \
        hot_perf >= 0.95 * in_hot
    return f"{'ok' if ok else 'not ok'} - {WHAT[0]}"


def live(build, tmp, node):
    d = os.path.join(tmp, "jd_live")
    os.makedirs(d, exist_ok=True)
    js = os.path.join(d, "hot.js")
    with open(js, "w") as f:
        f.write(HOT_JS.replace("MS", "20000"))
    p = subprocess.Popen([node, "--perf-prof", js], cwd=d, stdout=subprocess.DEVNULL)
    dump = os.path.join(d, f"jit-{p.pid}.dump")
    try:
        hot = []
        for _ in range(200):
            time.sleep(0.05)
            if os.path.exists(dump):
                hot = [(a, n) for a, s, n in loads(dump) if re.search(r"[*~^]?hot ", n)]
                if hot:
                    break
        if not hot:
            return f"not ok - {WHAT[1]}: no hot function in {dump} after 10 s"
        addr, name = hot[-1]
        got = subprocess.run([os.path.join(build, "mkjit"), os.path.join(d, "live.prf"),
                              str(p.pid), format(addr + 4, "x")],
                             capture_output=True, text=True, timeout=60).stdout.strip()
    finally:
        p.kill()
        p.wait()
    want = f"{addr + 4:x} {name}+0x4 {dump}"
    if got == want:
        return f"ok - {WHAT[1]}"
    return f"not ok - {WHAT[1]}: got '{got}', wanted '{want}'"


# a jitdump's header (this machine's byte order), pid 100
HEAD = struct.pack("<IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 100, 0, 0)


def code_load(addr, size, name, time=0, extra=b"", total=None):
    """a JIT_CODE_LOAD record of pid 100; name as given, its NUL included"""
    body = struct.pack("<IIQQQQ", 100, 100, addr, addr, size, 0) + name + extra
    return struct.pack("<IIQ", 0, total if total is not None else 16 + len(body), time) + body


def hostile(build, tmp):
    recs = [code_load(0x10000, 0x100, b"good_one\0"),
            code_load(0x20000, 0x100, b"no_end_of_name" * 400),      # no NUL within its budget
            code_load(0x30000, 0, b"size_zero\0"),
            code_load(0xfffffffffffff000, 0x2000, b"past_2_64\0"),
            struct.pack("<IIQ", 7, 24, 0) + b"\0" * 8,           # a kind this tool leaves
            code_load(0x40000, 0x100, b"good_two\0", extra=b"\x90" * 64),
            code_load(0x70000, 0x100, b"f\n50000 100 evil\0"),         # a line of its own in -i
            struct.pack("<IIQ", 0, 8, 0),                        # shorter than its header
            code_load(0x50000, 0x100, b"after_the_bad_one\0")]
    bad = os.path.join(tmp, "jit-100.dump")
    with open(bad, "wb") as f:
        f.write(HEAD + b"".join(recs))
    swapped = os.path.join(tmp, "jit-101.dump")
    with open(swapped, "wb") as f:
        f.write(struct.pack(">IIIIIIQQ", 0x4A695444, 1, 40, 62, 0, 100, 0, 0) +
                code_load(0x10000, 0x100, b"good_one\0"))
    long_rec = os.path.join(tmp, "jit-102.dump")
    with open(long_rec, "wb") as f:        # a record claiming more than the file
        f.write(HEAD + code_load(0x10000, 0x100, b"good_one\0") +
                code_load(0x60000, 0x100, b"cut\0", total=1 << 30))
    addrs = ["10010", "20010", "30010", "fffffffffffff010", "40010", "50010", "70010"]
    t0 = time.monotonic()
    r1 = subprocess.run([os.path.join(build, "mkjit"), os.path.join(tmp, "jdb.prf"), "100",
                         "--dump", bad, "100"] + addrs, capture_output=True, text=True,
                        timeout=60)
    r2 = subprocess.run([os.path.join(build, "mkjit"), os.path.join(tmp, "jds.prf"), "101",
                         "--dump", swapped, "101", "10010"], capture_output=True, text=True,
                        timeout=60)
    r3 = subprocess.run([os.path.join(build, "mkjit"), os.path.join(tmp, "jdl.prf"), "102",
                         "--dump", long_rec, "102", "10010", "60010"], capture_output=True,
                        text=True, timeout=60)
    secs = time.monotonic() - t0
    got = [line.split()[1] for line in r1.stdout.splitlines()]
    want = ["good_one+0x10", "none", "none", "none", "good_two+0x10", "none", "none"]
    why = []
    if got != want:
        why.append(f"names {got}, wanted {want}")
    again = subprocess.run([os.path.join(build, "perfregs-dump"), "script", "-q", "-i",
                            os.path.join(tmp, "jdb.prf"), "-F", "ip,sym"],
                           capture_output=True, text=True, timeout=60).stdout
    if "evil" in again or "good_two" not in again:
        why.append(f"-i names otherwise: {again.strip()[:200]}")
    if "record shorter than its header" not in r1.stderr:
        why.append("the bad record not said")
    if r2.stdout.split()[1:2] != ["none"] or "not a jitdump" not in r2.stderr:
        why.append(f"the other byte order: {r2.stdout.strip()} {r2.stderr.strip()[:80]}")
    if [line.split()[1] for line in r3.stdout.splitlines()] != ["good_one+0x10", "none"]:
        why.append(f"a record past the file: {r3.stdout.strip()}")
    if secs > 20:
        why.append(f"{secs:.1f} s")
    return f"ok - {WHAT[2]}" if not why else f"not ok - {WHAT[2]}: {'; '.join(why)}"


def straddle(build, tmp):
    """a load whose fixed part crosses the 64 KiB a live walk reads at once"""
    d = os.path.join(tmp, "jd_cross")
    os.makedirs(d, exist_ok=True)
    fill = 65536 - 20 - 40             # the load starts 20 bytes before 64 KiB
    data = HEAD + struct.pack("<IIQ", 7, fill, 0) + b"\0" * (fill - 16) + \
        code_load(0x80000, 0x100, b"across_64k\0") + code_load(0x90000, 0x100, b"after_it\0")
    script = ("import mmap, os, sys, time\n"
              "p = os.path.join(sys.argv[1], 'jit-%d.dump' % os.getpid())\n"
              "open(p, 'wb').write(open(sys.argv[2], 'rb').read())\n"
              "f = open(p, 'rb'); m = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)\n"
              "print(p, flush=True); time.sleep(60)\n")
    src = os.path.join(d, "src.bin")
    with open(src, "wb") as f:
        f.write(data)
    p = subprocess.Popen([sys.executable, "-c", script, d, src], stdout=subprocess.PIPE,
                         text=True)
    try:
        dump = p.stdout.readline().strip()
        got = subprocess.run([os.path.join(build, "mkjit"), os.path.join(d, "x.prf"),
                              str(p.pid), "80010", "90010"], capture_output=True, text=True,
                             timeout=60).stdout.split("\n")
    finally:
        p.kill()
        p.wait()
    want = [f"80010 across_64k+0x10 {dump}", f"90010 after_it+0x10 {dump}", ""]
    if got == want:
        return "ok - live: a jitdump's load read across the 64 KiB the walk reads at once"
    return f"not ok - live: a jitdump's load across 64 KiB: {got}, wanted {want}"


def timed(build, tmp):
    """code reused at an address: each sample named by the load before it"""
    dump = os.path.join(tmp, "jit-103.dump")
    with open(dump, "wb") as f:
        f.write(HEAD + code_load(0x10000, 0x100, b"first_code\0", 0x1000) +
                code_load(0x10000, 0x100, b"later_code\0", 0x5000))
    rec = os.path.join(tmp, "jdt.prf")
    live = subprocess.run([os.path.join(build, "mkjit"), rec, "103", "--dump", dump, "103",
                           "10010@3000", "10010@6000", "10010@800"], capture_output=True,
                          text=True, timeout=60).stdout.split()[1::3]
    again = re.findall(r"\((\w+)\+0x10\)", subprocess.run(
        [os.path.join(build, "perfregs-dump"), "script", "-q", "-i", rec, "-F", "ip,sym"],
        capture_output=True, text=True, timeout=60).stdout)
    want = ["first_code+0x10", "later_code+0x10", "later_code+0x10"]
    if live == want and again == [w.split("+")[0] for w in want]:
        return "ok - a jitdump's code reused at an address names each sample by the load before it, live and -i"
    return f"not ok - a jitdump's code reused at an address: live {live}, -i {again}, wanted {want}"


def main():
    build, tmp = sys.argv[1], sys.argv[2]
    node = shutil.which("node") or "/usr/bin/node"

    def run(i, fn, *args):      # a line whatever happens
        try:
            print(fn(*args), flush=True)
        except Exception as e:  # noqa: BLE001 - the test's own failure, said
            print(f"not ok - {WHAT[i]}: {type(e).__name__}: {e}"[:300], flush=True)
    run(2, hostile, build, tmp)
    run(2, straddle, build, tmp)
    run(2, timed, build, tmp)
    if not os.access(node, os.X_OK):
        for w in WHAT[:2]:
            print(f"ok - {w} # SKIP no node")
        return 0
    run(1, live, build, tmp, node)
    if not shutil.which("perf"):
        print(f"ok - {WHAT[0]} # SKIP no perf")
        return 0
    run(0, after, build, tmp, node)
    return 0


if __name__ == "__main__":
    sys.exit(main())
