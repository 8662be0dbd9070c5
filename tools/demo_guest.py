#!/usr/bin/python3
"""The guest side of make demo (tools/demo.sh boots the guest).

Loads perfregs and samples the four magic-register workloads of
selftests/ (magic.c built -m64, -m32 and -mx32, and mixed.c: a 64-bit
process spinning in 32-bit code) with perfregs-dump, 2 s each at 1 kHz.
While a workload's pc is in its spin loop, known registers hold the
values of selftests/magic.h.  Prints one decoded in-loop sample of each
side by side, with the register names of its ABI, then a verdict per
layout, and exits 1 if any layout that ran got a register wrong.

usage: tools/demo_guest.py BUILD_DIR
"""
import json
import os
import re
import subprocess
import sys
import tempfile

B = sys.argv[1] if len(sys.argv) > 1 else "build"
TOOL = os.path.join(B, "perfregs-dump")
HERE = os.path.dirname(os.path.abspath(__file__))
SECONDS = 2


def magic_values():
    with open(os.path.join(HERE, "..", "selftests", "magic.h")) as f:
        text = f.read()
    # the general registers: the FS and GS bases are xmagic's (test_xregs)
    return {(m.group(1), m.group(2).lower()): int(m.group(3), 16) for m in
            re.finditer(r"#define\s+MAGIC(64|32)_(\w+)\s+(0x[0-9a-fA-F]+)", text)
            if not m.group(2).endswith("_BASE")}


MAGIC = magic_values()
M64 = {r: v for (bits, r), v in MAGIC.items() if bits == "64"}
M32 = {r: v for (bits, r), v in MAGIC.items() if bits == "32"}

# title, workload, abi and mixed flag perfregs-dump must report, the ip
# register, the magic registers, the width of a register in hex digits
LAYOUTS = [
    ("x86-64", "magic_64", "x86_64", False, "rip", M64, 16),
    ("i386", "magic_32", "i386", False, "eip", M32, 8),
    ("x32", "magic_x32", "x32", False, "rip", M64, 16),
    ("mixed", "mixed_64", "i386", True, "eip", M32, 8),
]


def sample(work):
    """Run the workload under perfregs-dump -f json: (its line, records)
    or (None, why it could not run)."""
    path = os.path.join(B, "selftests", work)
    if not os.access(path, os.X_OK):
        return None, f"{path} was not built (the compiler lacks the target: make deps " \
                     "installs gcc-multilib)"
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "workload.txt")
        p = subprocess.run([TOOL, "-q", "-f", "json", "--", "/bin/sh", "-c",
                            f'exec "$0" {SECONDS} > "{out}"', path],
                           capture_output=True, text=True)
        line = open(out).readline().strip() if os.path.exists(out) else ""
    if not line and work == "magic_x32":
        return None, "this kernel does not run x32 programs (it needs " \
                     "CONFIG_X86_X32_ABI and the argument syscall.x32=y)"
    if p.returncode != 0:
        return None, f"perfregs-dump exit {p.returncode}: {p.stderr.strip()[:200]}"
    if not line:
        return None, f"{work} printed nothing"
    return line, [json.loads(l) for l in p.stdout.splitlines() if l.startswith("{")]


def judge(layout, line, recs):
    """(in-loop samples, right ones, one in-loop user-mode sample, summary)"""
    title, work, abi, mixed, ipreg, magic, _ = layout
    m = re.match(r"magic abi=\S+ pid=(\d+) loop=0x([0-9a-f]+)-0x([0-9a-f]+)", line)
    if not m:
        return 0, 0, None, {}
    pid, lo, hi = int(m.group(1)), int(m.group(2), 16), int(m.group(3), 16)
    n = good = 0
    shown = None
    for r in recs:
        if r.get("type") != "sample" or r["pid"] != pid or ipreg not in r["uregs"]:
            continue
        if not lo <= int(r["uregs"][ipreg], 16) < hi:
            continue
        n += 1
        right = r["abi"] == abi and r["mixed"] == mixed and all(
            int(r["uregs"].get(k, "-0x1"), 16) == v for k, v in magic.items())
        good += right
        # show a sample taken in user mode (ip is the user ip), wrong first
        if r.get("ip") == r["uregs"][ipreg] and (shown is None or (not right and shown[1])):
            shown = (r, right)
    summary = recs[-1] if recs and recs[-1].get("type") == "summary" else {}
    return n, good, shown[0] if shown else None, summary


def column(layout, rec):
    """Lines of one column: the header, then one register a line."""
    title, work, abi, mixed, ipreg, magic, width = layout
    head = [f"{title}: {work}", f"abi {rec['abi']}{' mixed' if rec['mixed'] else ''},"
            f" cs {int(rec['uregs'].get('cs', '0'), 16):#x}",
            (rec.get("sym") or rec["uregs"][ipreg])[:width + 8], ""]
    regs = []
    for name, v in rec["uregs"].items():
        val = int(v, 16)
        mark = " *" if magic.get(name) == val else "  "
        regs.append(f"{name:<6} 0x{val:0{width}x}{mark}")
    return head + regs


def main():
    kver = os.uname().release
    ko = os.path.join(B, "kmod", kver, "module", "perfregs.ko")
    p = subprocess.run(["insmod", ko], capture_output=True, text=True)
    if p.returncode != 0:
        print(f"demo: insmod {ko} failed: {p.stderr.strip()}")
        return 1
    print(f"== perfregs loaded on {kver}. Each workload spins with known values in "
          f"its registers\n== (selftests/magic.h); perfregs-dump samples it {SECONDS} s "
          "at 1 kHz (cpu-clock) and decodes\n== each sample with the register layout "
          "of its ABI.  One user-mode sample in the\n== spin loop of each, "
          "* = the register holds its magic value:\n")
    verdicts, cols, failed = [], [], []
    for layout in LAYOUTS:
        title, work = layout[0], layout[1]
        line, recs = sample(work)
        if line is None:
            verdicts.append(f"{title}: not run: {recs}")
            continue
        n, good, rec, summ = judge(layout, line, recs)
        extra = f" ({summ.get('samples', '?')} samples decoded, " \
                f"{sum(summ.get('lost', {}).values())} lost)" if summ else ""
        verdicts.append(f"{title}: {good} of {n} samples in the loop with every magic "
                        f"register right{extra}")
        if n == 0 or good != n:
            failed.append(title)
        if rec is not None:
            cols.append(column(layout, rec))
    if cols:
        widths = [max(len(l) for l in c) for c in cols]
        for i in range(max(len(c) for c in cols)):
            print("   ".join((c[i] if i < len(c) else "").ljust(w)
                             for c, w in zip(cols, widths)).rstrip())
        print()
    for v in verdicts:
        print(v)
    subprocess.run(["rmmod", "perfregs"])
    ran = sum(1 for v in verdicts if ": not run: " not in v)
    if failed:
        print(f"demo: FAILED: {', '.join(failed)}")
        return 1
    print(f"demo: {ran} of {len(LAYOUTS)} layouts ran, every magic register right in each")
    return 0


if __name__ == "__main__":
    sys.exit(main())
