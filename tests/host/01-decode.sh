# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): the record walker,
# synthetic recordings decoded on a machine that has none of their images,
# ABI minor 1's registers, names, mapped FIFOs, --symfs, folded stacks.

if out=$("$B/walk" 2>&1); then
	echo "ok - the record walker and the drains: records whole at every split, malformed ones stop it"
else
	echo "not ok - the record walker and the drains: records whole at every split, malformed ones stop it"
fi
printf '%s\n' "$out" | tail -20 | sed 's/^#* */# /'

if "$B/mkrec" "$T/syn.prf" 25 && "$B/perfregs-dump" -q -f json -i "$T/syn.prf" > "$T/syn.jsonl" &&
   "$B/perfregs-dump" -q -f text -i "$T/syn.prf" > "$T/syn.txt"; then
	if /usr/bin/python3 - "$T/syn.jsonl" selftests/magic.h "$T/syn.txt" <<'PY'
import json, re, sys
magic = {(m.group(1), m.group(2).lower()): int(m.group(3), 16) for m in
         re.finditer(r"MAGIC(64|32)_(\w+)\s+(0x[0-9a-f]+)", open(sys.argv[2]).read())
         if not m.group(2).endswith("_BASE")}     # xmagic's, not mkrec's
want = {100: ("x86_64", False, "64"), 200: ("i386", False, "32"),
        300: ("x32", False, "64"), 400: ("i386", True, "32")}
recs = [json.loads(l) for l in open(sys.argv[1])]
bad, seen = [], {}
for r in recs:
    if r["type"] != "sample" or r["ip"].startswith("0xffff"):
        continue
    abi, mixed, kabi = want[r["pid"]]
    seen[r["pid"]] = seen.get(r["pid"], 0) + 1
    if (r["abi"], r["mixed"], r["kernel_abi"]) != (abi, mixed, kabi):
        bad.append(f"pid {r['pid']}: {r['abi']} {r['mixed']} {r['kernel_abi']}")
    bits = "32" if abi == "i386" else "64"
    for (b, reg), v in magic.items():
        if b == bits and int(r["uregs"].get(reg, "0x0"), 16) != v:
            bad.append(f"pid {r['pid']} {reg}={r['uregs'].get(reg)}")
    fl = r["iregs"].get("eflags" if bits == "32" else "rflags")
    if fl != "0x246":       # hex formatting of an odd digit count
        bad.append(f"pid {r['pid']} flags={fl}")
text = open(sys.argv[3]).read()
padded = text.count("rflags 0x0000000000000246") + text.count("eflags 0x00000246")
if padded != 101:
    bad.append(f"text: {padded} of 101 flags zero-padded to the layout's width")
ks = [r for r in recs if r["type"] == "sample" and r["ip"].startswith("0xffff")]
if len(ks) != 1 or ks[0].get("sym") != "known_kernel_function+0x10":
    bad.append(f"kernel symbol: {[r.get('sym') for r in ks]}")
s = recs[-1]
if s["type"] != "summary" or s["samples"] != 101 or s["lost"]["full"] != 3:
    bad.append(f"summary {s}")
if seen != {100: 25, 200: 25, 300: 25, 400: 25}:
    bad.append(f"samples per task {seen}")
print("# " + ("; ".join(bad[:5]) if bad else "4 layouts x 25 samples, every register right"))
sys.exit(1 if bad else 0)
PY
	then echo "ok - synthetic recording decodes per layout on a machine without its images"
	else echo "not ok - synthetic recording decodes per layout on a machine without its images"
	fi
else
	echo "not ok - synthetic recording decodes per layout (mkrec or -i failed)"
fi

# ABI minor 1's registers (mksimd): the selectors, the FS and GS base and
# SIMD sections of every mix, value by value in JSON, text and perf
# script after convert; malformed sections; the header of formats 1 and 2
/usr/bin/python3 tests/simd_check.py "$B" "$T"

# Names in a recording are bytes from elsewhere: well-formed UTF-8 must
# reach JSON as it is, every other byte >= 0x80 (bad continuation,
# overlong, surrogate, above U+10FFFF, cut short) as \u00XX of the byte,
# controls as before, and the line must stay JSON (docs/json-schema.md).
if /usr/bin/python3 - "$B" "$T/utf8.prf" <<'PY'
import json, subprocess, sys
b, rec = sys.argv[1], sys.argv[2]
# (bytes in the recording, the string JSON must give back)
parts = [(b"ok-\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", "ok-\u00e9\u20ac\U0001f600"),
         (b"|\xc3A", "|\u00c3A"),                      # bad continuation
         (b"|\xc0\xaf", "|\u00c0\u00af"),              # overlong '/'
         (b"|\xe0\x80\xaf", "|\u00e0\u0080\u00af"),
         (b"|\xf0\x8f\xbf\xbf", "|\u00f0\u008f\u00bf\u00bf"),
         (b"|\xed\xa0\x80", "|\u00ed\u00a0\u0080"),     # surrogate D800
         (b"|\xed\xbf\xbf", "|\u00ed\u00bf\u00bf"),     # surrogate DFFF
         (b"|\xed\x9f\xbf", "|\ud7ff"),                 # U+D7FF is fine
         (b"|\xf4\x8f\xbf\xbf", "|\U0010ffff"),         # so is U+10FFFF
         (b"|\xf4\x90\x80\x80", "|\u00f4\u0090\u0080\u0080"),  # above it
         (b"|\xf5\x80\x80\x80", "|\u00f5\u0080\u0080\u0080"),
         (b"|\xff\xfe\x80", "|\u00ff\u00fe\u0080"),
         (b"|\x01\t\x7f\"\\", "|\u0001\t\u007f\"\\"),
         (b"|\xe2\x82", "|\u00e2\u0082")]               # cut short (by "+0x10")
ksym = b"".join(p[0] for p in parts)
want_sym = "".join(p[1] for p in parts) + "+0x10"
# 7 x e-acute and a euro sign: the kernel's 15 bytes cut the euro short
comm = "\u00e9" * 7 + "\u20ac"
want_comm = "\u00e9" * 7 + "\u00e2"
subprocess.run([b + "/mkhostile", rec, "-c", comm.encode(), "-k", ksym], check=True)
out = subprocess.run([b + "/perfregs-dump", "-q", "-f", "json", "-i", rec],
                     check=True, capture_output=True).stdout
bad = []
try:
    recs = [json.loads(l) for l in out.splitlines()]
except ValueError as e:
    recs = []
    bad.append(f"not JSON: {e}")
ss = [r for r in recs if r.get("type") == "sample"]
if len(ss) != 2:
    bad.append(f"{len(ss)} samples, not 2")
for r in ss:
    if r["comm"] != want_comm:
        bad.append(f"comm {r['comm']!r}")
syms = [r["sym"] for r in ss if "sym" in r]
if syms != [want_sym]:
    bad.append(f"sym {syms!r}, wanted {want_sym!r}")
# valid UTF-8 stays raw bytes; the byte cut short is the lowercase escape
if ('"comm":"' + "\u00e9" * 7 + '\\u00e2"').encode() not in out:
    bad.append("comm not written as raw UTF-8 + \\u00e2")
print("# " + ("; ".join(bad[:4]) if bad else "UTF-8 as it is, every invalid byte as \\u00XX"))
sys.exit(1 if bad else 0)
PY
then echo "ok - JSON keeps a recording's UTF-8 names and escapes their invalid bytes"
else echo "not ok - JSON keeps a recording's UTF-8 names and escapes their invalid bytes"
fi

# A recording's mapping may name a FIFO, a directory or a symlink to
# one: the decoder opens only regular files (an open of the FIFO would
# block for good), so each decodes at once, the sample without a name
# (its frame keeps the file the recording names, as perf shows it),
# exit 0.  With and without a build-id to check, with unwinding.
mkfifo "$T/fifo"
mkdir "$T/dir"
ln -s "$T/fifo" "$T/fifo_link"
ln -s "$T/dir" "$T/dir_link"
bad=""
for f in fifo fifo_link dir dir_link; do
	for opt in "" "-b 0123456789abcdef0123456789abcdef01234567"; do
		# shellcheck disable=SC2086
		"$B/mkhostile" "$T/$f.prf" -m "$T/$f" -s $opt
		out=$(timeout 10 "$B/perfregs-dump" -q -f json --call-graph dwarf \
			-i "$T/$f.prf" 2>&1)
		rc=$?
		if [ $rc -ne 0 ] || ! printf '%s\n' "$out" | grep -q '"type":"sample"' ||
		   printf '%s\n' "$out" | grep -q '"sym"' ||
		   printf '%s\n' "$out" | grep -o '"dso":"[^"]*"' | grep -qvF "\"dso\":\"$T/$f\""; then
			bad="$bad $f${opt:+ (build-id)}: exit $rc"
		fi
	done
done
if [ -z "$bad" ]; then
	echo "ok - a recording naming a FIFO, a directory or links to them decodes at once, unnamed"
else
	echo "not ok - a recording naming a FIFO, a directory or links to them decodes at once, unnamed:$bad"
fi

# --symfs DIR: a recorded path is looked for under DIR only, and one
# with a ".." component, which no kernel writes, not at all.  A program
# outside DIR, named through "..", through "/a/../..", or by its own
# path (once the fallback when DIR had no such file), must not name the
# sample; its copy inside DIR, named as the task mapped it, must.
R=$T/symroot
mkdir -p "$R/symfs/a" "$R/symfs/bin" "$R/outside"
if cc -O1 -g -no-pie -o "$R/outside/prog" tests/bias_target.c 2>/dev/null &&
   cp "$R/outside/prog" "$R/symfs/bin/prog" &&
   addr=0x$(nm "$R/outside/prog" | sed -n 's/ T target_function$//p') &&
   [ "$addr" != 0x ]; then
	bad=""
	for p in /bin/prog /../outside/prog /../../outside/prog /a/../../outside/prog \
		 /bin/../../outside/prog "$R/outside/prog"; do
		"$B/mkhostile" "$T/symfs.prf" -a "$addr" -m "$p"
		sym=$(timeout 10 "$B/perfregs-dump" -q -f json --symfs "$R/symfs" \
			-i "$T/symfs.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(json.loads(l).get("sym", "none") for l in sys.stdin if "\"sample\"" in l))')
		want=none
		[ "$p" = /bin/prog ] && want=target_function+0x0
		[ "$sym" = "$want" ] || bad="$bad $p: '$sym'"
	done
	if [ -z "$bad" ]; then
		echo "ok - --symfs: a recorded path is opened under DIR only; '..' does not climb out"
	else
		echo "not ok - --symfs: a recorded path is opened under DIR only; '..' does not climb out:$bad"
	fi
else
	echo "not ok - --symfs: a recorded path is opened under DIR only (no non-PIE program built)"
fi

# -f folded: mkrec's four tasks, 25 user samples each and one kernel
# sample, give exactly the stacks they stand for: the i386 task's and
# the mixed-mode task's frames marked _[i386] (x32 runs 64-bit code: no
# mark), the kernel sample's leaf _[k]; a comm with ';' and a newline
# (mkhostile) keeps its line; a chain unwound through fp_target.S (its
# return address is the copy's e_entry, named as a caller at ip - 1:
# _init) is outermost first; and the folded lines of each recording,
# with and without unwinding, are what selftests/folded_ref.py makes of
# the same samples' JSON.
if "$B/mkrec" "$T/fold.prf" 25 && "$B/mkhostile" "$T/fold_comm.prf" -c $'a;b\nc' &&
   cc -no-pie -o "$T/fold_prog" tests/fp_target.S 2>/dev/null &&
   cp "$T/fold_prog" "$T/fold_data" &&
   "$B/mkhostile" "$T/fold_chain.prf" -a 0x$(nm "$T/fold_prog" | sed -n 's/ T fp_body$//p') \
	-m "$T/fold_prog" -s -f 0x10000010 -d "$T/fold_data"; then
	bad=""
	got=$("$B/perfregs-dump" -q -f folded -i "$T/fold.prf" 2>&1)
	want=$(printf '%s\n' 'task100;[unknown] 25' 'task100;known_kernel_function_[k] 1' \
		'task200;[unknown]_[i386] 25' 'task300;[unknown] 25' 'task400;[unknown]_[i386] 25')
	[ "$got" = "$want" ] || bad="$bad mkrec: '$got';"
	got=$("$B/perfregs-dump" -q -f folded -i "$T/fold_comm.prf" 2>&1)
	[ "$got" = "a_b_c;[unknown] 1" ] || bad="$bad comm: '$got';"
	for f in fold fold_comm fold_chain; do
		for cg in "" "--call-graph dwarf"; do
			# shellcheck disable=SC2086
			if ! diff <("$B/perfregs-dump" -q -f folded $cg -i "$T/$f.prf") \
			     <("$B/perfregs-dump" -q -f json $cg -i "$T/$f.prf" |
			       /usr/bin/python3 selftests/folded_ref.py ${cg:---no-callgraph}) \
			     > "$T/fold.diff"; then
				bad="$bad $f $cg: $(head -c 200 "$T/fold.diff");"
			fi
		done
	done
	chain=$("$B/perfregs-dump" -q -f folded --call-graph dwarf -i "$T/fold_chain.prf")
	[ "$chain" = "hostile;_init;fp_body 1" ] || bad="$bad chain: '$chain';"
	if [ -z "$bad" ]; then
		echo "ok - -f folded: the stacks of known samples, ABI and kernel marks, odd names kept on their line"
	else
		echo "not ok - -f folded: the stacks of known samples, ABI and kernel marks, odd names kept on their line:$bad"
	fi
else
	echo "not ok - -f folded: its recordings could not be made"
fi
