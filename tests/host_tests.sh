#!/bin/bash
# Host-side tests (no guest needed), as KTAP lines:
#  - the record walker of tools/lib hands over every record whole and
#    byte for byte, wherever a ring's end cuts it, and stops at a
#    malformed one as its header says (walk);
#  - a synthetic recording with known contents decodes with the right
#    layout per task (x86-64, i386, x32, mixed mode) and exact values,
#    on a machine that has none of its images ("another machine");
#  - so do ABI minor 1's selectors, FS and GS base and SIMD sections
#    (mksimd), in JSON, text and through convert in perf script; a
#    malformed SIMD section is a malformed record;
#  - a hostile recording (mkhostile): its names keep their UTF-8 in JSON,
#    a FIFO it names is not opened, nor a path outside --symfs, and its
#    samples are labelled with its event; -i refuses sampling options;
#    the unwinder reads no word of a non-ELF or disowned mapped file;
#  - the unwinder's fast path gives libdwfl's frames on every recording
#    with stacks, live and made up (mkunwind), of every layout;
#  - convert's perf.data shows perf its chains of live processes (mksnap);
#  - --flamegraph's SVG holds the stacks of -f folded, escapes hostile
#    names, and searches and zooms in headless Chromium;
#  - convert --to pprof's profile shows go tool pprof folded's stacks;
#  - the learner's own ELF reader agrees with libelf on this machine's files;
#  - a PIE linked by GNU ld and one by lld are named at their own address;
#  - COMMAND's recording decodes as its live run did when a drain reads
#    its mappings (CPU 0's ring) before its execs (CPU 1's), with the
#    host's own side-band (mkexec);
#  - a recording written or cut by someone else while it is decoded: what
#    was checked is what is decoded, and a cut is an error, no SIGBUS
#    (racefile, and perfregs-dump -i blocked on its output);
#  - the recording reader survives a bounded libFuzzer run;
#  - the files the tool writes (record -o, convert -o, --flamegraph) are
#    0600, replace an earlier one only whole, and refuse someone else's
#    FIFO or symlink in a sticky directory (/tmp); -o lets go of what it
#    holds on every way out (valgrind);
#  - record -o - writes to the standard output, as perf record -o -;
#  - checkpatch is clean, and every barrier comment names its real pair;
#  - perfregs-dump's files include each other in the layers of its
#    decoder.h, with no circle (tests/layers.sh);
#  - with no module loaded, every selftest skips and none fails;
#  - make check and make demo run on the kernels they install (the list is
#    computed after the install, not when make reads the Makefile).
# usage: tests/host_tests.sh [BUILD_DIR] [FUZZ_SECONDS]
set -u
B=$(realpath -m "${1:-build}")	# absolute: some tests run in other directories
SECS=${2:-20}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "TAP version 13"
echo "# host tests"

# Can this host's kernel run i386 code at all?  Some have no IA-32
# emulation (CONFIG_IA32_EMULATION off, or ia32_emulation=0 on the
# command line): exec of an -m32 program fails with ENOEXEC and a far
# jump to the 32-bit code segment faults.  The -m32 parts of the tests
# below then skip with that reason, once each; the guest kernels of the
# selftests run 32-bit and mixed-mode code whatever the host has.
I386_SKIP=""
printf 'int main(void) { return 0; }\n' > "$T/i386probe.c"
if ! cc -m32 -o "$T/i386probe" "$T/i386probe.c" 2>/dev/null; then
	I386_SKIP="no -m32 compiler (make deps)"
elif ! "$T/i386probe" 2>/dev/null; then
	I386_SKIP="this host's kernel runs no i386 programs (exec: Exec format error; IA-32 emulation off)"
fi
# m32_part WHAT: 0 if the -m32 part of a test can run here, else a SKIP line
m32_part() {
	[ -z "$I386_SKIP" ] && return 0
	echo "ok - $1 # SKIP $I386_SKIP"
	return 1
}

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
# block for good), so each decodes at once, the sample without a name,
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
		   printf '%s\n' "$out" | grep -q '"sym"\|"dso"'; then
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

# text output goes to terminals: a recording's comm with ESC and CR,
# and a program whose path holds ESC, print '?' for those bytes, never
# the bytes (JSON escapes them, -f folded makes them '_')
if cc -no-pie -o "$T/tsafe"$'\e[31m' tests/fp_target.S 2>/dev/null; then
	tbody=0x$(nm "$T/tsafe"$'\e[31m' | sed -n 's/ T fp_body$//p')
	"$B/mkhostile" "$T/tsafe.prf" -c $'\e[31mX\rY' -a "$tbody" -m "$T/tsafe"$'\e[31m' -s
	out=$("$B/perfregs-dump" -q --call-graph dwarf -i "$T/tsafe.prf")
	if ! printf '%s' "$out" | grep -q $'[\e\r]' && printf '%s\n' "$out" | grep -qF '?[31mX?Y' &&
	   printf '%s\n' "$out" | grep -qF "fp_body+0x0 ($T/tsafe?[31m)"; then
		echo "ok - text output shows a recording's control bytes as '?', in comm and in paths"
	else
		echo "not ok - text output shows a recording's control bytes as '?', in comm and in paths: $(printf '%s' "$out" | od -c | head -5 | tr '\n' ' ')"
	fi
else
	echo "not ok - text output shows a recording's control bytes as '?' (no program built)"
fi

# -v says where and how a recording was made: its maker's host, kernel
# and command line, the session's settings; without -v, none of it; a
# recorded command line's control bytes are '?' from the reader on (they
# go into perf.data's CMDLINE too), and -v shows a backslash or a byte
# from 0x80 up as \xNN, never sending them to a terminal
if [ -x "$B/mksnap" ] && cc -O1 -g -o "$T/vb_prog" tests/bias_target.c 2>/dev/null; then
	"$T/vb_prog" < <(sleep 3) > "$T/vb.out" &
	vbp=$!
	for _ in $(seq 30); do [ -s "$T/vb.out" ] && break; sleep 0.1; done
	"$B/mksnap" "$T/vb.prf" 4096 "$vbp"
	wait $vbp
	v=$("$B/perfregs-dump" -v -q -i "$T/vb.prf" 2>&1 >/dev/null)
	nv=$("$B/perfregs-dump" -q -i "$T/vb.prf" 2>&1 >/dev/null)
	if printf '%s\n' "$v" | grep -q "recorded by perfregs-dump [0-9.]* on $(hostname) (kernel $(uname -r), $(uname -m)," &&
	   printf '%s\n' "$v" | grep -qF "command line: $B/mksnap $T/vb.prf 4096 $vbp" &&
	   printf '%s\n' "$v" | grep -q "session: event cpu-clock, period 1000000, .*user stack 4096 bytes" &&
	   [ -z "$nv" ] && "$B/mkhostile" "$T/vb_esc.prf" -A prog -A $'\e[31mred\\' &&
	   [ "$("$B/perfregs-dump" -v -q -i "$T/vb_esc.prf" 2>&1 >/dev/null | grep "command line")" = \
	     'perfregs-dump: command line: prog ?[31mred\x5c' ]; then
		echo "ok - -v tells where, by what command and with what settings a recording was made"
	else
		echo "not ok - -v tells where, by what command and with what settings a recording was made: '$v' / without -v: '$nv'"
	fi
else
	echo "not ok - -v tells where, by what command and with what settings a recording was made (no mksnap or program)"
fi

# A recording read from a pipe or a FIFO, as perf report -i - reads
# one: each byte is read once, so no subcommand may open it twice (-v
# read the header again, convert read it first through stdio, and a
# FIFO's second open waits for a writer for good).  -i - (the standard
# input), -i /dev/stdin and -i FIFO give what -i FILE gives, byte for
# byte, for -f json, report, convert, convert --to pprof, and -v's
# session line; 10 s each, so that a hang fails.
if [ -s "$T/syn.prf" ]; then
	bad=""
	mkfifo "$T/pipe_fifo"
	"$B/perfregs-dump" -q -f json -i "$T/syn.prf" > "$T/pipe_want.json" 2>&1
	"$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$T/pipe_want.data" 2>&1
	"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$T/pipe_want.pb.gz" 2>&1
	"$B/perfregs-dump" -v -q -i "$T/syn.prf" 2>&1 >/dev/null | grep "session:" > "$T/pipe_want.v"
	[ -s "$T/pipe_want.v" ] || bad="$bad no -v session line from the file;"
	# HOW ARGS: the recording through HOW (pipe, fifo) to perfregs-dump ARGS
	# with IN for its name; stdout in $T/pipe_got, stderr in $T/pipe_err
	through() {
		local how=$1 a args=()
		shift
		for a in "$@"; do
			if [ "$a" = IN ] && [ "$how" = fifo ]; then a=$T/pipe_fifo
			elif [ "$a" = IN ]; then a=-; fi
			args+=("$a")
		done
		if [ "$how" = fifo ]; then
			timeout 10 sh -c 'cat "$1" > "$2"' _ "$T/syn.prf" "$T/pipe_fifo" &
			timeout 10 "$B/perfregs-dump" "${args[@]}" > "$T/pipe_got" 2> "$T/pipe_err"
		else
			cat "$T/syn.prf" | timeout 10 "$B/perfregs-dump" "${args[@]}" \
				> "$T/pipe_got" 2> "$T/pipe_err"
		fi
		local rc=$?
		wait
		return $rc
	}
	for how in pipe fifo; do
		through $how -q -f json -i IN && cmp -s "$T/pipe_got" "$T/pipe_want.json" ||
			bad="$bad $how -f json: $(head -c 200 "$T/pipe_err");"
		through $how report -q -f json -i IN && cmp -s "$T/pipe_got" "$T/pipe_want.json" ||
			bad="$bad $how report: $(head -c 200 "$T/pipe_err");"
		rm -f "$T/pipe.data" "$T/pipe.pb.gz"
		through $how convert -q -i IN -o "$T/pipe.data" &&
			cmp -s "$T/pipe.data" "$T/pipe_want.data" ||
			bad="$bad $how convert: $(head -c 200 "$T/pipe_err");"
		through $how convert --to pprof -q -i IN -o "$T/pipe.pb.gz" &&
			cmp -s "$T/pipe.pb.gz" "$T/pipe_want.pb.gz" ||
			bad="$bad $how convert --to pprof: $(head -c 200 "$T/pipe_err");"
		through $how -v -q -i IN && [ "$(grep "session:" "$T/pipe_err")" = "$(cat "$T/pipe_want.v")" ] ||
			bad="$bad $how -v: exit $?: $(head -c 200 "$T/pipe_err");"
	done
	cat "$T/syn.prf" | timeout 10 "$B/perfregs-dump" -q -f json -i /dev/stdin > "$T/pipe_got" &&
		cmp -s "$T/pipe_got" "$T/pipe_want.json" || bad="$bad -i /dev/stdin;"
	# standard input a regular file, read from where it stands
	(head -c 0; timeout 10 "$B/perfregs-dump" -q -f json -i -) < "$T/syn.prf" > "$T/pipe_got" &&
		cmp -s "$T/pipe_got" "$T/pipe_want.json" || bad="$bad -i - < FILE;"
	if [ -z "$bad" ]; then
		echo "ok - a recording from a pipe (-i -, -i /dev/stdin) or a FIFO: json, report, convert, pprof and -v as from the file"
	else
		echo "not ok - a recording from a pipe (-i -, -i /dev/stdin) or a FIFO: json, report, convert, pprof and -v as from the file:$bad"
	fi
else
	echo "not ok - a recording from a pipe or a FIFO (no synthetic recording)"
fi

# The header of a recording to a FIFO (record -o FIFO, or a pipe) once
# the session fell back to user mode only (rec_update_config(), as
# record does when perf refuses kernel mode; mkhostile -U): with a
# command line of 480 KB (16 words of 30000 bytes: the info outgrew the
# write buffer, which sent the header away) it must still say "user mode
# only", its info keeping 64 KiB of the words; and when the header went
# out before (-L: 1000 records straight to the file) the recorder says
# it cannot be updated and goes on: the recording is whole, exit 0 (a
# pwrite() to the FIFO made a sticky error of it, the recording lost).
# A regular file is updated in place either way.
long=$(head -c 30000 /dev/zero | tr '\0' a)
args=()
for _ in $(seq 16); do args+=(-A "$long"); done
mkfifo "$T/hdr_fifo"
bad=""
# OUT ARGS...: mkhostile to OUT (fifo: through $T/hdr_fifo into $T/hdr.prf)
hdr() {
	local out=$1 rc
	shift
	rm -f "$T/hdr.prf"
	if [ "$out" = fifo ]; then
		timeout 10 sh -c 'cat "$1" > "$2"' _ "$T/hdr_fifo" "$T/hdr.prf" &
		timeout 10 "$B/mkhostile" "$T/hdr_fifo" "$@" 2> "$T/hdr.err"
		rc=$?
		wait
	else
		"$B/mkhostile" "$T/hdr.prf" "$@" 2> "$T/hdr.err"
		rc=$?
	fi
	return $rc
}
session() {
	"$B/perfregs-dump" -v -q -i "$T/hdr.prf" 2>&1 >/dev/null | grep "session:"
}
for out in fifo file; do
	if hdr $out "${args[@]}" -U && [ ! -s "$T/hdr.err" ] &&
	   session | grep -q ", user mode only$"; then
		sz=$(stat -c %s "$T/hdr.prf")
		[ "$sz" -gt 60000 ] && [ "$sz" -lt 70000 ] || bad="$bad $out, long command line: $sz bytes;"
	else
		bad="$bad $out, long command line: $(head -c 200 "$T/hdr.err") '$(session)';"
	fi
done
if ! hdr fifo -L 1000 -U || ! grep -q "the header says kernel mode too: Illegal seek" "$T/hdr.err" ||
   ! "$B/perfregs-dump" -q --summary -i "$T/hdr.prf" > /dev/null 2>&1; then
	bad="$bad fifo, header gone: $(head -c 200 "$T/hdr.err");"
fi
hdr file -L 1000 -U && session | grep -q ", user mode only$" || bad="$bad file, header gone: $(session);"
if [ -z "$bad" ]; then
	echo "ok - a FIFO's recording header says user mode only after the fallback; once it went out, said, no error"
else
	echo "not ok - a FIFO's recording header says user mode only after the fallback; once it went out, said, no error:$bad"
fi

# a recording's path is anyone's length: convert leaves out of perf.data
# a mapping whose path would not fit perf's 16-bit record size (or its
# PATH_MAX): perf script reads the file whole, the sample is there
if command -v perf > /dev/null && "$B/mkhostile" "$T/longpath.prf" \
	-m "/$(head -c 65520 /dev/zero | tr '\0' a)" -b 0123456789abcdef0123456789abcdef01234567 &&
   "$B/perfregs-dump" convert -q -i "$T/longpath.prf" -o "$T/longpath.data"; then
	lp=$(perf script -i "$T/longpath.data" -F comm,ip 2>&1)
	if [ $? = 0 ] && ! printf '%s' "$lp" | grep -q "failed to process" &&
	   printf '%s\n' "$lp" | grep -q "^[[:space:]]*400010$"; then
		echo "ok - convert: a 64 KiB path from a recording breaks no perf.data record"
	else
		echo "not ok - convert: a 64 KiB path from a recording breaks no perf.data record: $(printf '%s' "$lp" | head -c 300)"
	fi
else
	echo "ok - convert: a 64 KiB path from a recording # SKIP perf is not installed (make deps)"
fi

# a run refused before it samples (here: no module, no /dev/perfregs)
# loses no recording: -o FILE over an earlier one leaves it as it was,
# with no FILE.old, and a new FILE is not left behind empty
what="a refused run leaves -o FILE as it was: no empty recording, no FILE.old, no symlink followed"
if [ -e /dev/perfregs ]; then
	echo "ok - $what # SKIP /dev/perfregs exists here"
else
	printf 'earlier recording\n' > "$T/keep.prf"
	"$B/perfregs-dump" -q -o "$T/keep.prf" -- /bin/true 2> "$T/keep.err"
	rc1=$?
	"$B/perfregs-dump" record -q -o "$T/new.prf" -- /bin/true 2>> "$T/keep.err"
	rc2=$?
	# a symlink the user put there is not removed: only a file this run
	# made, under its name, is.  Nor is one followed where a file is
	# made (one planted in a shared directory): a dangling one's target
	# is not created, one to a file leaves it as it was, and one at
	# FILE.old is taken over by FILE's name, its target untouched.
	ln -s "$T/link_target" "$T/link.prf"
	"$B/perfregs-dump" record -q -o "$T/link.prf" -- /bin/true 2>> "$T/keep.err"
	printf 'victim\n' > "$T/victim"
	cp "$T/victim" "$T/victim2"
	ln -s "$T/victim" "$T/to_file.prf"
	"$B/perfregs-dump" record -q -o "$T/to_file.prf" -- /bin/true 2>> "$T/keep.err"
	ln -s "$T/victim2" "$T/keep.prf.old"
	"$B/perfregs-dump" record -q -o "$T/keep.prf" -- /bin/true 2>> "$T/keep.err"
	if [ $rc1 = 2 ] && [ $rc2 = 2 ] && [ "$(cat "$T/keep.prf")" = "earlier recording" ] &&
	   [ ! -e "$T/keep.prf.old" ] && [ ! -L "$T/keep.prf.old" ] && [ ! -e "$T/new.prf" ] &&
	   [ -L "$T/link.prf" ] && [ ! -e "$T/link_target" ] &&
	   [ "$(readlink "$T/to_file.prf")" = "$T/victim" ] && [ ! -e "$T/to_file.prf.old" ] &&
	   [ "$(cat "$T/victim" "$T/victim2")" = "$(printf 'victim\nvictim')" ] &&
	   grep -q "module is not loaded" "$T/keep.err"; then
		echo "ok - $what"
	else
		echo "not ok - $what: exit $rc1/$rc2, FILE '$(head -c 60 "$T/keep.prf")'," \
		     "FILE.old $(ls -l "$T/keep.prf.old" 2>&1 | head -c 80), new FILE" \
		     "$(ls -l "$T/new.prf" 2>&1 | head -c 80), symlink" \
		     "$(ls -l "$T/link.prf" 2>&1 | head -c 80), its target" \
		     "$(ls -l "$T/link_target" 2>&1 | head -c 80), to a file" \
		     "$(ls -l "$T/to_file.prf" 2>&1 | head -c 80), victims '$(cat "$T/victim" "$T/victim2" | head -c 40)'"
	fi
fi

# -o FIFO where someone else made the FIFO, in a sticky directory others
# may write to (/tmp): the FIFO was opened without O_CREAT, so that the
# kernel's fs.protected_fifos (0 here, and on many systems) never
# checked it, and its owner read the recording (user stacks, registers,
# kernel addresses).  Refused, whatever the sysctls say, with what to
# do; so is a symlink of someone else's there that leads to a FIFO.  A
# FIFO of our own there is written to.  A reader is on each FIFO, so
# that an open does not wait: the open happens before the module is
# needed, so that this runs without one.
what="-o FIFO: someone else's FIFO or symlink in a sticky directory others may write to is refused"
if [ "$(id -u)" != 0 ]; then
	echo "ok - $what # SKIP not root (a FIFO of another user is needed)"
else
	S=$T/sticky
	mkdir "$S" && chmod 1777 "$S"
	mkfifo "$S/theirs.rec" "$S/mine.rec" "$T/elsewhere.rec"
	chown 65534 "$S/theirs.rec"
	ln -s "$T/elsewhere.rec" "$S/link.rec"
	chown -h 65534 "$S/link.rec"
	# FIFO ARGS...: perfregs-dump ARGS with a reader on FIFO meanwhile;
	# the exit status in $rc, standard error in $T/sticky.err
	fifo_run() {
		local fifo=$1 reader
		shift
		timeout 10 cat "$fifo" > /dev/null &
		reader=$!
		timeout 10 "$B/perfregs-dump" "$@" 2> "$T/sticky.err"
		rc=$?
		kill $reader 2> /dev/null
		wait $reader 2> /dev/null
	}
	bad=""
	for f in theirs link; do
		fifo_run "$S/$f.rec" record -q -o "$S/$f.rec" -- /bin/true
		[ $rc = 5 ] && grep -q "refusing to write $S/$f.rec: it is a .* of uid 65534, in a sticky directory .*; remove it, or write to a new name" "$T/sticky.err" ||
			bad="$bad record -o $f: exit $rc, $(head -c 300 "$T/sticky.err");"
	done
	if [ ! -e /dev/perfregs ]; then
		fifo_run "$S/mine.rec" record -q -o "$S/mine.rec" -- /bin/true
		[ $rc = 2 ] && grep -q "module is not loaded" "$T/sticky.err" ||
			bad="$bad record -o a FIFO of ours: exit $rc, $(head -c 300 "$T/sticky.err");"
	fi
	if [ -z "$bad" ]; then
		echo "ok - $what"
	else
		echo "not ok - $what:$bad"
	fi
fi

# what -o holds while it works in FILE's directory (out_open(): that
# directory open, FILE.old's name) is let go of on every way out, under
# valgrind: a run refused before it samples (no module), and an -o that
# cannot be written (a directory; someone else's FIFO in a sticky one,
# when root): no descriptor of the directory open at the exit, no block
# out_open() allocated left
what="-o: a refused run or an unwritable FILE leaves its directory's descriptor and FILE.old's name freed"
if ! command -v valgrind > /dev/null; then
	echo "ok - $what # SKIP valgrind is not installed"
else
	V=$T/vg
	mkdir -p "$V/dir.out"
	cases="dir.out"
	[ -e /dev/perfregs ] || cases="$cases new.out"
	[ -p "$T/sticky/theirs.rec" ] && cases="$cases sticky"
	bad=""
	for c in $cases; do
		out=$V/$c
		[ $c = sticky ] && out=$T/sticky/theirs.rec
		timeout 120 valgrind --track-fds=yes --leak-check=full --show-leak-kinds=all \
			--log-file="$V/$c.log" "$B/perfregs-dump" record -q -o "$out" -- /bin/true 2> /dev/null
		rc=$?
		dir=${out%/*}
		if [ $rc = 0 ] || [ $rc -ge 124 ] || ! grep -q "FILE DESCRIPTORS" "$V/$c.log"; then
			bad="$bad $c: exit $rc under valgrind, $(tail -c 300 "$V/$c.log");"
		elif grep -q "Open file descriptor [0-9]*: $dir\$" "$V/$c.log" ||
		     grep -q "out_open" "$V/$c.log"; then
			bad="$bad $c: $(grep -e "Open file descriptor [0-9]*: $dir\$" -e out_open -B2 -A2 "$V/$c.log" | head -c 400);"
		fi
	done
	if [ -z "$bad" ]; then
		echo "ok - $what ($cases)"
	else
		echo "not ok - $what:$bad"
	fi
fi

# the files the tool makes hold what was sampled (registers, stack bytes,
# kernel addresses): under umask 022 they were 0644, anyone's to read.
# record -o (kept after a refused run by an unlinkat() that fails, as no
# module is loaded here), convert, convert --to pprof, --flamegraph and
# the tests' rec_create() make them 0600, as perf makes perf.data.  An
# existing OUTPUT is still replaced, by a new file renamed over it once
# whole, never written in place (a hard link to it keeps what it was); a
# symlink to a file is written through (/dev/stdout > FILE); perf.data
# is not sent to a FIFO to fail at its end; and someone else's FIFO or
# symlink in a sticky directory others may write to is refused, as for
# record -o (when root)
what="outputs are made 0600; OUTPUT replaced once whole, never written in place; traps in /tmp refused"
M=$T/modes
mkdir -p "$M"
bad=""
mode_of() { stat -c %a "$1" 2> /dev/null; }
(
	umask 022
	"$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$M/new.data" &&
	"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$M/new.pb.gz" &&
	"$B/perfregs-dump" -q -i "$T/syn.prf" --flamegraph "$M/new.svg" &&
	"$B/mkrec" "$M/mk.out" 1 > /dev/null
) 2> "$M/err" || bad="$bad made: $(head -c 200 "$M/err");"
for f in new.data new.pb.gz new.svg mk.out; do
	[ "$(mode_of "$M/$f")" = 600 ] || bad="$bad $f mode $(mode_of "$M/$f");"
done
if [ ! -e /dev/perfregs ] &&
   printf '#include <errno.h>\nint unlinkat(int d, const char *p, int f)\n{ errno = EPERM; return -1; }\n' |
	cc -shared -fPIC -o "$M/nounlink.so" -x c - 2> /dev/null; then
	(umask 022; LD_PRELOAD=$M/nounlink.so "$B/perfregs-dump" record -q -o "$M/rec.out" -- /bin/true 2> /dev/null)
	[ "$(mode_of "$M/rec.out")" = 600 ] || bad="$bad record -o: mode $(mode_of "$M/rec.out");"
fi
# an earlier output, and a hard link to it
printf 'earlier\n' > "$M/old.data"
chmod 644 "$M/old.data"
ln "$M/old.data" "$M/hard.data"
cp "$M/old.data" "$M/old.pb.gz"
ln -s "$M/target.pb.gz" "$M/via.pb.gz"
: > "$M/target.pb.gz"
"$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$M/old.data" 2>> "$M/err" &&
	cmp -s "$M/old.data" "$M/new.data" && [ "$(mode_of "$M/old.data")" = 600 ] &&
	[ "$(cat "$M/hard.data")" = earlier ] ||
	bad="$bad over an earlier perf.data: mode $(mode_of "$M/old.data"), hard link '$(head -c 20 "$M/hard.data" | tr -c '[:print:]' '?')';"
"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$M/old.pb.gz" 2>> "$M/err" &&
	cmp -s "$M/old.pb.gz" "$M/new.pb.gz" || bad="$bad over an earlier profile;"
"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$M/via.pb.gz" 2>> "$M/err" &&
	[ -L "$M/via.pb.gz" ] && cmp -s "$M/target.pb.gz" "$M/new.pb.gz" ||
	bad="$bad through a symlink to a file: $(ls -l "$M/via.pb.gz" | head -c 100);"
ls -a "$M" | grep -q '^\.[a-z]' && bad="$bad left behind: $(ls -a "$M" | grep '^\.[a-z]' | tr '\n' ' ');"
mkfifo "$M/fifo.data"
timeout 10 cat "$M/fifo.data" > "$M/fifo.got" &
reader=$!
timeout 10 "$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$M/fifo.data" 2> "$M/fifo.err"
rc=$?
kill $reader 2> /dev/null
wait $reader 2> /dev/null
[ $rc = 5 ] && grep -q "it is a FIFO, and this output is written again at its start" "$M/fifo.err" &&
	[ ! -s "$M/fifo.got" ] || bad="$bad perf.data to a FIFO: exit $rc, $(head -c 200 "$M/fifo.err");"
if [ -d "$T/sticky" ]; then
	S=$T/sticky
	printf 'victim\n' > "$M/victim"
	ln -s "$M/victim" "$S/trap.svg"
	chown -h 65534 "$S/trap.svg"
	"$B/perfregs-dump" -q -i "$T/syn.prf" --flamegraph "$S/trap.svg" 2> "$M/trap.err"
	rc=$?
	[ $rc = 5 ] && grep -q "refusing to write $S/trap.svg: it is a symlink of uid 65534" "$M/trap.err" &&
		[ "$(cat "$M/victim")" = victim ] ||
		bad="$bad --flamegraph to someone else's symlink in a sticky directory: exit $rc, victim '$(head -c 40 "$M/victim" | tr -c '[:print:]' '?')';"
	timeout 10 cat "$S/theirs.rec" > "$M/theirs.got" &
	reader=$!
	timeout 10 "$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$S/theirs.rec" 2> "$M/theirs.err"
	rc=$?
	kill $reader 2> /dev/null
	wait $reader 2> /dev/null
	[ $rc = 5 ] && grep -q "refusing to write $S/theirs.rec: it is a FIFO of uid 65534" "$M/theirs.err" &&
		[ ! -s "$M/theirs.got" ] ||
		bad="$bad pprof to someone else's FIFO in a sticky directory: exit $rc, $(wc -c < "$M/theirs.got") bytes read;"
fi
if [ -z "$bad" ]; then
	echo "ok - $what"
else
	echo "not ok - $what:$bad"
fi

# record -o - is the standard output, as perf record -o - (it made a
# file named "-"): with a directory named "-" where it runs, the run gets
# as far as the module (none here: refused) instead of failing on that
# name; to a terminal it is refused, and so is -f, which prints there
# too.  A writer on a standard output that is a file (mkhostile -,
# which writes as record -o - does: -L sends the header out first, -U
# changes it after) starts where the file stands and rewrites its header
# there, not at offset 0; with O_APPEND (>>), where a pwrite() lands at
# the end, it says it cannot and the recording stays whole.
what="record -o - writes to the standard output, not to a terminal or with -f; its header rewritten where it starts"
D=$T/dash
mkdir -p "$D/-"
bad=""
if [ -e /dev/perfregs ]; then
	(cd "$D" && timeout 60 "$B/perfregs-dump" record -q -o - -- /bin/true 2> "$D/err" |
		"$B/perfregs-dump" report -q --summary -i - > /dev/null 2>> "$D/err") ||
		bad="$bad record -o - | report -i -: $(head -c 200 "$D/err");"
else
	(cd "$D" && timeout 60 "$B/perfregs-dump" record -q -o - -- /bin/true > "$D/out" 2> "$D/err")
	rc=$?
	[ $rc = 2 ] && grep -q "module is not loaded" "$D/err" && ! grep -q "cannot write" "$D/err" &&
		[ -d "$D/-" ] && [ ! -e "$D/-.old" ] ||
		bad="$bad record -o -: exit $rc, $(head -c 200 "$D/err");"
fi
(cd "$D" && "$B/perfregs-dump" record -q -o - -f json -- /bin/true > "$D/out" 2> "$D/err")
rc=$?
[ $rc = 1 ] && grep -q -- "-o - writes the recording to the standard output: it takes no -f" "$D/err" ||
	bad="$bad record -o - -f json: exit $rc, $(head -c 200 "$D/err");"
if command -v script > /dev/null; then
	out=$(cd "$D" && timeout 60 script -qec "$B/perfregs-dump record -q -o - -- /bin/true" /dev/null < /dev/null 2>&1)
	rc=$?
	[ $rc = 5 ] && printf '%s' "$out" | grep -q "standard output, a terminal here" ||
		bad="$bad record -o - to a terminal: exit $rc, $(printf '%s' "$out" | head -c 200);"
fi
{ printf 'PREFIX!!'; "$B/mkhostile" - -L 1000 -U; } > "$D/at8.rec" 2> "$D/mk.err"
[ "$(head -c 8 "$D/at8.rec")" = 'PREFIX!!' ] && [ ! -s "$D/mk.err" ] &&
	tail -c +9 "$D/at8.rec" | "$B/perfregs-dump" -v -q -i - 2>&1 > /dev/null |
	grep -q ", user mode only$" ||
	bad="$bad header of a recording 8 bytes into the standard output: $(head -c 200 "$D/mk.err") '$(tail -c +9 "$D/at8.rec" | "$B/perfregs-dump" -v -q -i - 2>&1 > /dev/null | tail -c 200)';"
printf 'PREFIX!!' > "$D/app.rec"
: > "$D/app.err"
"$B/mkhostile" - -L 1000 -U >> "$D/app.rec" 2> "$D/mk.err"
grep -q "the header says kernel mode too: Illegal seek" "$D/mk.err" &&
	[ "$(head -c 8 "$D/app.rec")" = 'PREFIX!!' ] &&
	tail -c +9 "$D/app.rec" | "$B/perfregs-dump" -q --summary -i - > /dev/null 2> "$D/app.err" ||
	bad="$bad recording appended to the standard output (>>): $(head -c 200 "$D/mk.err") $(head -c 200 "$D/app.err");"
if [ -z "$bad" ]; then
	echo "ok - $what"
else
	echo "not ok - $what:$bad"
fi

# every option of every command (its --list-opts, made from the table
# its parser and --help are made from) is in that command's --help and
# in the man page, short and long; no command's --help shows another's
# options (record's has no -i, script's no -e)
bad=""
cmds=$("$B/perfregs-dump" --list-cmds)
for cmd in "" $cmds; do
	# shellcheck disable=SC2086
	help=$("$B/perfregs-dump" $cmd --help)
	# shellcheck disable=SC2086
	while IFS=$'\t' read -r s l _; do
		for o in $s $l; do
			[ "$o" = - ] && continue
			printf '%s\n' "$help" | grep -q -- "$o\b" || bad="$bad $o (${cmd:-no command} --help)"
			grep -qF -- "$(printf '%s' "$o" | sed 's/-/\\-/g')" docs/perfregs-dump.1 ||
				bad="$bad $o (man)"
		done
	done < <("$B/perfregs-dump" $cmd --list-opts)
done
"$B/perfregs-dump" record --help | grep -q -- '--input' && bad="$bad [record --help shows -i]"
"$B/perfregs-dump" script --help | grep -q -- '--event' && bad="$bad [script --help shows -e]"
"$B/perfregs-dump" convert --help | grep -q -- '--fields' && bad="$bad [convert --help shows --fields]"
# and each has an entry of its own, with its text, in a subsection of
# OPTIONS (tests/man_options.py)
if ! man=$(/usr/bin/python3 tests/man_options.py "$B/perfregs-dump" docs/perfregs-dump.1 2>&1); then
	bad="$bad no described OPTIONS entry: $man"
fi
if [ -n "$cmds" ] && [ -z "$bad" ]; then
	echo "ok - every option of every command is in its --help and in the man page, described in a subsection of OPTIONS; each --help shows its command's own"
else
	echo "not ok - every option of every command is in its --help and in the man page:${bad:- no commands listed}"
fi

# convert, checked by perf: live PIEs stopped in read() by ptrace
# (mksnap: registers, stack and /proc maps as a sample has them), gcc and
# lld and -m32 (whose read() goes through the vDSO), converted; perf
# script must show perfregs' own chains frame by frame, perf report -g
# too, and perf's header must miss none of the features the recording has
if ! command -v perf > /dev/null; then
	echo "ok - convert checked by perf # SKIP perf is not installed (make deps)"
elif [ -x "$B/mksnap" ] && cc -O1 -g -fPIE -pie -o "$T/cv_gcc" tests/bias_target.c 2>/dev/null &&
     clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/cv_lld" tests/bias_target.c 2>/dev/null &&
     { ! m32_part "convert checked by perf: the -m32 PIE" ||
       cc -m32 -O1 -g -fPIE -pie -o "$T/cv_m32" tests/bias_target.c 2>/dev/null; }; then
	# shellcheck disable=SC2046
	/usr/bin/python3 tests/convert_vs_perf.py "$B" "$T/cv_gcc" "$T/cv_lld" \
		$([ -z "$I386_SKIP" ] && echo "$T/cv_m32")
else
	echo "not ok - convert checked by perf: its programs could not be built"
fi

# --flamegraph: the SVG of live PIEs stopped in read() (mksnap: gcc, lld,
# -m32), of mkrec's i386 and kernel frames, of hostile names, and of a
# frame too narrow to draw, against -f folded of the same recordings; then
# in headless Chromium: the DOM after its script ran, a search (?s=),
# a zoom (#z=) and a screenshot (BUILD/flamegraph.png)
if [ -x "$B/mksnap" ] && cc -O1 -g -fPIE -pie -o "$T/fg_gcc" tests/bias_target.c 2>/dev/null &&
   clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/fg_lld" tests/bias_target.c 2>/dev/null &&
   { ! m32_part "--flamegraph: the -m32 PIE" ||
     cc -m32 -O1 -g -fPIE -pie -o "$T/fg_m32" tests/bias_target.c 2>/dev/null; }; then
	# shellcheck disable=SC2046
	/usr/bin/python3 tests/flame_check.py "$B" "$T/fg_gcc" "$T/fg_lld" \
		$([ -z "$I386_SKIP" ] && echo "$T/fg_m32")
else
	echo "not ok - --flamegraph: its programs could not be built"
fi

# One rule for a sample's frames in every output (sample_frames()): a
# user-mode sample with a stack that unwinds to nothing (its task maps
# no file) keeps its user IP, and a kernel-mode one is its kernel IP
# only; -f folded, convert's perf.data (perf script) and pprof (go tool
# pprof -raw) each give one frame per sample, at the same address
what="folded, perf.data and pprof: the same frames when nothing unwinds"
if ! command -v perf > /dev/null || ! command -v go > /dev/null; then
	echo "ok - $what # SKIP perf or go is not installed (make deps)"
elif "$B/mkhostile" "$T/nf.prf" -s -k kfunc; then
	cg="--call-graph dwarf"
	# frames per sample, in sample order
	fo=$("$B/perfregs-dump" -q -f folded $cg -i "$T/nf.prf" |
	     awk '{ n = split($1, a, ";"); print n - 1 }' | sort | tr '\n' ' ')
	"$B/perfregs-dump" convert -q $cg -i "$T/nf.prf" -o "$T/nf.data" &&
	pe=$(perf script -i "$T/nf.data" -F ip 2>/dev/null |
	     awk '/^$/ { if (n) print n; n = 0; next } { n++ } END { if (n) print n }' |
	     sort | tr '\n' ' ')
	pa=$(perf script -i "$T/nf.data" -F ip 2>/dev/null | awk 'NF { print $1 }' | sort |
	     tr '\n' ' ')
	"$B/perfregs-dump" convert --to pprof -q $cg -i "$T/nf.prf" -o "$T/nf.pb.gz" &&
	raw=$(HOME=$T go tool pprof -symbolize=none -raw "$T/nf.pb.gz" 2>&1)
	pp=$(printf '%s\n' "$raw" | awk '/^Samples:/ { s = 1; getline; next }
		/^Locations/ { s = 0 } s && /^ *[0-9]+ +[0-9]+: / { sub(/.*: */, ""); print NF }' |
	     sort |
	     tr '\n' ' ')
	pl=$(printf '%s\n' "$raw" | awk '/^Locations/ { s = 1; next } /^Mappings/ { s = 0 }
		s { sub(/^0x/, "", $2); print $2 }' | sort | tr '\n' ' ')
	if [ "$fo" = "1 1 " ] && [ "$pe" = "1 1 " ] && [ "$pp" = "1 1 " ] &&
	   [ "$pa" = "400010 ffffffff81000010 " ] && [ "$pl" = "400010 ffffffff81000010 " ]; then
		echo "ok - $what"
	else
		echo "not ok - $what: frames per sample: folded '$fo', perf '$pe', pprof '$pp';" \
		     "addresses: perf '$pa', pprof '$pl'"
	fi
else
	echo "not ok - $what: mkhostile failed"
fi

# convert --to pprof, read by go tool pprof: the same live PIEs, several
# processes of each, some snapshotted twice, and mkrec's recording with
# kernel frames; -raw must show -f folded's stacks and counts, the
# sample types, labels and the files' build-ids
if ! command -v go > /dev/null; then
	echo "ok - convert --to pprof checked by go tool pprof # SKIP go is not installed (make deps)"
elif [ -x "$B/mksnap" ] && [ -x "$B/mkrec" ] &&
     cc -O1 -g -fPIE -pie -o "$T/pp_gcc" tests/bias_target.c 2>/dev/null &&
     clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/pp_lld" tests/bias_target.c 2>/dev/null &&
     { ! m32_part "convert --to pprof checked by go tool pprof: the -m32 PIE" ||
       cc -m32 -O1 -g -fPIE -pie -o "$T/pp_m32" tests/bias_target.c 2>/dev/null; }; then
	# shellcheck disable=SC2046
	/usr/bin/python3 tests/pprof_vs_folded.py "$B" "$T/pp_gcc" "$T/pp_lld" \
		$([ -z "$I386_SKIP" ] && echo "$T/pp_m32")
else
	echo "not ok - convert --to pprof checked by go tool pprof: its programs could not be built"
fi

# convert --to: perf is the default, the same perf.data byte for byte;
# a value but perf or pprof, or --to without convert, is refused: exit 1
what="convert --to perf is the default; --to takes perf or pprof, with convert only"
if "$B/mkrec" "$T/to.prf" 5 && "$B/perfregs-dump" convert -q -i "$T/to.prf" -o "$T/to1.data" &&
   "$B/perfregs-dump" convert -q --to perf -i "$T/to.prf" -o "$T/to2.data" &&
   cmp -s "$T/to1.data" "$T/to2.data"; then
	e1=$("$B/perfregs-dump" convert --to elf -i "$T/to.prf" -o "$T/to3" 2>&1)
	r1=$?
	e2=$("$B/perfregs-dump" -q --to pprof -i "$T/to.prf" 2>&1)
	r2=$?
	if [ "$r1" = 1 ] && [ "$r2" = 1 ] && [ ! -e "$T/to3" ] &&
	   printf '%s' "$e1" | grep -q "perf (perf.data) or pprof (profile.proto), not 'elf'" &&
	   printf '%s' "$e2" | grep -q "convert --to pprof"; then
		echo "ok - $what"
	else
		echo "not ok - $what: --to elf: exit $r1 '$e1'; --to without convert: exit $r2 '$e2'"
	fi
else
	echo "not ok - $what: convert and convert --to perf differ or failed"
fi

# The unwinder reads words outside the stack snapshot from the file a
# mapping names (tests/fp_target.S: at fp_body the return address is at
# [%rbp + 8]).  A sampled user can map a file of their own and swap it
# for a symlink to one only root reads, and a recording can name any
# file: words of it must never come out as frame addresses.  A mapping
# at %rbp of a non-ELF file full of 'A's must give no frame
# 0x4141414141414141; of an ELF copy whose build-id is not the one the
# mapping has, no frame at its e_entry (the word at 0x18); the same copy
# with its own build-id, or none, is read (the frame is there).
S=$T/secret_case
mkdir -p "$S"
if cc -no-pie -o "$S/prog" tests/fp_target.S 2>/dev/null &&
   body=0x$(nm "$S/prog" | sed -n 's/ T fp_body$//p') && [ "$body" != 0x ] &&
   cp "$S/prog" "$S/elf" &&
   entry=$(readelf -h "$S/elf" | sed -n 's/^ *Entry point address: *0x//p') &&
   own=$(readelf -n "$S/elf" | sed -n 's/^ *Build ID: *//p') && [ -n "$own" ]; then
	head -c 4096 /dev/zero | tr '\0' A > "$S/secret"
	chains() {	# RECORDING: the frame addresses, one line
		"$B/perfregs-dump" -q -f json --call-graph dwarf -i "$1" |
			/usr/bin/python3 -c 'import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["type"] == "sample":
        print(" ".join(f["ip"] for f in r.get("callchain", [])))'
	}
	bad=""
	"$B/mkhostile" "$S/a.prf" -a "$body" -m "$S/prog" -s -f 0x10000800 -d "$S/secret"
	got=$(chains "$S/a.prf")
	case "$got" in
	*0x4141414141414141*|"") bad="$bad non-ELF file: '$got';" ;;
	esac
	for id in 0123456789abcdef0123456789abcdef01234567 "$own" ""; do
		"$B/mkhostile" "$S/b.prf" -a "$body" -m "$S/prog" -s -f 0x10000010 \
			-d "$S/elf" ${id:+-D "$id"}
		got=$(chains "$S/b.prf")
		read_it=no
		case " $got " in
		*" 0x$entry "*) read_it=yes ;;
		esac
		want=yes
		[ "$id" = 0123456789abcdef0123456789abcdef01234567 ] && want=no
		[ "$read_it" = "$want" ] || bad="$bad ELF, build-id '${id:-none}': '$got';"
	done
	if [ -z "$bad" ]; then
		echo "ok - the unwinder reads no word of a non-ELF file or of one its build-id disowns"
	else
		echo "not ok - the unwinder reads no word of a non-ELF file or of one its build-id disowns:$bad"
	fi
else
	echo "not ok - the unwinder reads no word of a non-ELF file (no fp_target built)"
fi

# A frame pointer within 8 of 2^64 (mkwrap: RBP 0xfffffffffffffffc, SP 0
# to 6): the word at it is neither in the stack snapshot nor in a
# mapping.  "addr - sp + 8 > stack_len" wrapped and read it from before
# the snapshot (SP 0: a third frame, 0x2222, through the first task's
# mapping), and "addr + 8 > end" wrapped for a mapping at the top of the
# address space and read its file past the mapping (a third frame for SP
# 0 to 4 of the second task).  Both unwinders, 2 frames for SP 0 to 4
# (the IP and the word at RBP + 8, which wraps to 4), 1 for 5 and 6.
if [ -x "$B/mkwrap" ] && "$B/mkwrap" "$T/wrap.prf" "$T/wrap.dat"; then
	bad=""
	want="2 2 2 2 2 1 1 2 2 2 2 2 1 1"
	for path in fast dwfl; do
		unw=""
		[ $path = dwfl ] && unw=dwfl
		got=$(PERFREGS_UNWIND=$unw "$B/perfregs-dump" -q -f json --call-graph dwarf \
			--threads 1 -i "$T/wrap.prf" |
			/usr/bin/python3 -c 'import json, sys
print(" ".join(str(len(r.get("callchain") or [])) for r in map(json.loads, sys.stdin)
               if r["type"] == "sample"))')
		[ "$got" = "$want" ] || bad="$bad $path: frames '$got';"
	done
	if [ -z "$bad" ]; then
		echo "ok - a frame pointer within 8 of 2^64 reads no word before the stack snapshot or past a mapping"
	else
		echo "not ok - a frame pointer within 8 of 2^64 (want '$want'):$bad"
	fi
else
	echo "not ok - a frame pointer within 8 of 2^64: no mkwrap recording"
fi

# -i labels the samples with the event the recording was made of (its
# info's event=, as -o writes it), not with the default cpu-clock; a
# name that is not 1-63 printable characters without space is "unknown".
long=$(printf 'x%.0s' $(seq 64))
bad=""
for ev in page-faults context-switches mem cpu-clock "page faults" $'page\e[31mfaults' \
	  "$long" "${long%x}" ""; do
	want=$ev
	case "$ev" in
	""|*" "*|*$'\e'*|"$long") want=unknown ;;
	esac
	"$B/mkhostile" "$T/event.prf" -e "$ev"
	got=$("$B/perfregs-dump" -q -i "$T/event.prf" |
		sed -n 's/^.* [0-9]*\.[0-9]*: \(.*\): ip 0x.*$/\1/p')
	[ "$got" = "$want" ] || bad="$bad '$ev' gave '$got';"
done
if [ -z "$bad" ]; then
	echo "ok - -i labels samples with the recording's event; a hostile name is 'unknown'"
else
	echo "not ok - -i labels samples with the recording's event:$bad" | cat -v
fi

# -i (and convert) refuse what only sets up sampling, naming it, exit 1
# (EXIT_USAGE); what decoding uses, --call-graph dwarf included, stays.
"$B/mkrec" "$T/opts.prf" 1
for o in "-e page-faults" "-c 1000" "-F 99" "-a" "-C 0" "-p 1" "-t 1" "-d 1" "-m 8" \
	 "--iregs=ip" "--iregs" \
	 "--uregs=ip,sp" "--user-stack 64" "--call-graph dwarf,64" "--overwrite" \
	 "--no-inherit" "--nmi-unknown"; do
	name=${o%%[ =]*}
	[ "$o" = "--call-graph dwarf,64" ] && name="--call-graph dwarf,SIZE"
	bad=""
	# shellcheck disable=SC2086
	for args in "-i $T/opts.prf $o" "$o -i $T/opts.prf" "convert -i $T/opts.prf -o $T/opts.data $o"; do
		out=$("$B/perfregs-dump" $args 2>&1 >/dev/null)
		rc=$?
		if [ $rc -ne 1 ] || ! printf '%s' "$out" | grep -q -- "-i takes no [^ ]*$name"; then
			bad="$bad [$args: exit $rc: $out]"
		fi
	done
	if [ -z "$bad" ]; then
		echo "ok - -i refuses $o, which only sets up sampling: exit 1, named"
	else
		echo "not ok - -i refuses $o, which only sets up sampling:$bad"
	fi
done
if "$B/perfregs-dump" -q -i "$T/opts.prf" -f json --call-graph dwarf --symfs / --no-symbols \
	--summary -v > /dev/null 2>&1; then
	echo "ok - -i takes -f, --call-graph dwarf, --symfs, --no-symbols, --summary, -q, -v"
else
	echo "not ok - -i takes -f, --call-graph dwarf, --symfs, --no-symbols, --summary, -q, -v"
fi

# -F/--fields: what the text shows of each sample, perf script's -F.
# mkrec's one sample per task and kernel sample: the text without -F is
# exactly what it was (every field, in order; --fields of them all and
# -F +FIELD give it too); report -F tid,ip,sym prints those, in the
# order given, with mkrec's tids and IPs; -FIELD takes a field away.
"$B/mkrec" "$T/fl.prf" 1
fl() {	# ARGS: its stdout, then "rc=N"; its stderr in $T/fl.err
	"$B/perfregs-dump" "$@" > "$T/fl.out" 2> "$T/fl.err"
	printf 'rc=%s\n' "$?" >> "$T/fl.out"
	cat "$T/fl.out"
}
fl_all=comm,pid,tid,cpu,time,event,ip,sym,mode,abi,context,uregs_source,skid,iregs,uregs,simd,stack,callchain
fl_default=$(cat <<'TXT'
         task100    100/100    [000] 0.000000000: cpu-clock: ip 0x401064 user abi x86_64 ctx irq uregs direct
    iregs: rip    0x0000000000401064 rflags 0x0000000000000246
    uregs: rbx    0x4d726278c0de0003 rbp    0x4d726270c0de0006 rip    0x0000000000401064 r12    0x4d723132c0de000c
          r13    0x4d723133c0de000d r14    0x4d723134c0de000e r15    0x4d723135c0de000f
         task200    200/200    [001] 0.000000001: cpu-clock: ip 0x4010c8 user abi i386 ctx irq uregs direct
    iregs: eip    0x004010c8 eflags 0x00000246
    uregs: ebx    0xebc0de03 esi    0xe5c0de06 edi    0xedc0de07 ebp    0xefc0de05
          eip    0x004010c8
         task300    300/300    [002] 0.000000002: cpu-clock: ip 0x40112c user abi x32 ctx irq uregs direct
    iregs: rip    0x000000000040112c rflags 0x0000000000000246
    uregs: rbx    0x4d726278c0de0003 rbp    0x4d726270c0de0006 rip    0x000000000040112c r12    0x4d723132c0de000c
          r13    0x4d723133c0de000d r14    0x4d723134c0de000e r15    0x4d723135c0de000f
         task400    400/400    [003] 0.000000003: cpu-clock: ip 0x401190 user abi i386 (mixed mode) ctx irq uregs direct
    iregs: eip    0x00401190 eflags 0x00000246
    uregs: ebx    0xebc0de03 esi    0xe5c0de06 edi    0xedc0de07 ebp    0xefc0de05
          eip    0x00401190
         task100    100/100    [000] 0.999999999: cpu-clock: ip 0xffffffff81000010 (known_kernel_function+0x10) kernel abi x86_64 ctx irq uregs entry
    iregs: rip    0xffffffff81000010 rflags 0x0000000000000246
    uregs: rbx    0x4d726278c0de0003 rbp    0x4d726270c0de0006 rip    0x0000000000401064 r12    0x4d723132c0de000c
          r13    0x4d723133c0de000d r14    0x4d723134c0de000e r15    0x4d723135c0de000f
LOST [000] 1.000000000: full 1
LOST [000] 1.000000000: full 2
rc=0
TXT
)
bad=""
for args in "-i $T/fl.prf" "report -i $T/fl.prf" "report -F $fl_all -i $T/fl.prf" \
	    "--fields=$fl_all -i $T/fl.prf" "report -F +tid -i $T/fl.prf"; do
	# shellcheck disable=SC2086
	got=$(fl $args -q)
	[ "$got" = "$fl_default" ] || bad="$bad [$args: $(printf '%s' "$got" | head -3)]"
done
if [ -z "$bad" ]; then
	echo "ok - text output without -F is as before: every field, in order (also --fields of all, -F +tid)"
else
	echo "not ok - text output without -F is as before:$bad"
fi
bad=""
want=$(printf '%s\n' '100    ip 0x401064' '200    ip 0x4010c8' '300    ip 0x40112c' \
	'400    ip 0x401190' '100    ip 0xffffffff81000010 (known_kernel_function+0x10)' \
	'LOST [000] 1.000000000: full 1' 'LOST [000] 1.000000000: full 2' rc=0)
got=$(fl report -q -F tid,ip,sym -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [report -F tid,ip,sym: '$got']"
got=$(fl -q --fields tid,ip,sym -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [--fields tid,ip,sym: '$got']"
want=$(printf '%s\n' 'ip 0x401064 100' 'ip 0x4010c8 200' 'ip 0x40112c 300' 'ip 0x401190 400' \
	'(known_kernel_function+0x10) ip 0xffffffff81000010 100' \
	'LOST [000] 1.000000000: full 1' 'LOST [000] 1.000000000: full 2' rc=0)
got=$(fl report -q -F sym,ip,tid -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [report -F sym,ip,tid: '$got']"
want=$(printf '%s\n' '    iregs: rip    0x0000000000401064 rflags 0x0000000000000246' \
	'[003]    400/400    abi i386 (mixed mode)' rc=0)
got=$(fl report -q -F iregs,cpu,pid,tid,abi -i "$T/fl.prf" | sed -n '2p;7p;$p')
[ "$got" = "$want" ] || bad="$bad [report -F iregs,cpu,pid,tid,abi: '$got']"
want=$(printf '%s\n' "$fl_default" | grep -v '^    [iu]regs: \|^          [a-z]')
got=$(fl report -q -F -iregs,-uregs -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [report -F -iregs,-uregs: '$got']"
if [ -z "$bad" ]; then
	echo "ok - report -F tid,ip,sym prints those fields of each sample, in that order; -F -iregs,-uregs a line per sample"
else
	echo "not ok - report -F FIELDS prints those fields of each sample, in that order:$bad"
fi

# -F's hostile lists: an unknown, empty or repeated name, +/- beside
# plain names, nothing left, too long: exit 1 (EXIT_USAGE), no sample
# printed, a message naming what is wrong and every field
long=$(head -c 600 /dev/zero | tr '\0' a)
huge=$(head -c 100000 /dev/zero | tr '\0' ,)
bad=""
while IFS='|' read -r list msg; do
	[ "$list" = LONG ] && list=$long
	[ "$list" = HUGE ] && list=$huge
	[ "$list" = EMPTY ] && list=""
	out=$("$B/perfregs-dump" report -q -F "$list" -i "$T/fl.prf" 2> "$T/fl.err")
	rc=$?
	if [ $rc -ne 1 ] || [ -n "$out" ] || ! grep -qF -- "$msg" "$T/fl.err" ||
	   ! grep -qF "the fields are $fl_all," "$T/fl.err"; then
		bad="$bad [${list:0:40}: exit $rc: $(head -c 200 "$T/fl.err")]"
	fi
done <<'LISTS'
tid,bogus|-F: unknown field 'bogus'
bogus|unknown field 'bogus'
tid,ip,tid|field given twice: 'tid'
-iregs,-iregs|field given twice: 'iregs'
EMPTY|the list is empty
tid,,ip|an empty field name
tid,|an empty field name
+|an empty field name
+tid,ip|plain fields and +FIELD or -FIELD do not mix: 'ip'
tid,-ip|do not mix: '-ip'
-comm,-pid,-tid,-cpu,-time,-event,-ip,-sym,-mode,-abi,-context,-uregs_source,-skid,-iregs,-uregs,-simd,-stack,-callchain|no field is left to show
LONG|the list is longer than 512 bytes
HUGE|the list is longer than 512 bytes
LISTS
out=$("$B/perfregs-dump" -q --fields=tid,TID -i "$T/fl.prf" 2>&1)
rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -qF -- "--fields: unknown field 'TID'" ||
	bad="$bad [--fields=tid,TID: exit $rc: $out]"
if [ -z "$bad" ]; then
	echo "ok - -F refuses an unknown, empty or repeated field, +/- beside plain, none left, over 512 bytes: exit 1, named"
else
	echo "not ok - -F refuses bad field lists, exit 1, named:$bad"
fi

# -F picks text fields: with -f json (whose keys stay as they are),
# -f folded, --flamegraph, convert or record without -f it is refused,
# exit 1; the JSON without it is the same JSON
bad=""
for args in "report -F tid -f json -i $T/fl.prf" "report -f json -F tid -i $T/fl.prf" \
	    "-f json --fields tid -i $T/fl.prf" "report -F tid -f folded -i $T/fl.prf" \
	    "report -F tid --flamegraph $T/fl.svg -i $T/fl.prf" \
	    "convert --fields tid -i $T/fl.prf -o $T/fl.data" "record --fields tid -- true" \
	    "-o $T/fl2.prf --fields tid -- true"; do
	# shellcheck disable=SC2086
	out=$("$B/perfregs-dump" $args 2>&1 >/dev/null)
	rc=$?
	if [ $rc -ne 1 ] || ! printf '%s' "$out" | grep -q -- "^perfregs-dump: [-a-zA-Z]* picks the fields of the text output: not for "; then
		bad="$bad [$args: exit $rc: $out]"
	fi
done
[ ! -e "$T/fl.svg" ] && [ ! -e "$T/fl.data" ] && [ ! -e "$T/fl2.prf" ] || bad="$bad [a file was written]"
if [ -z "$bad" ] && "$B/perfregs-dump" -q -f json -i "$T/fl.prf" > "$T/fl.jsonl" &&
   [ "$(grep -c '"type":"sample".*"tid":.*"ip":.*"iregs":{.*"uregs":{' "$T/fl.jsonl")" = 5 ]; then
	echo "ok - -F/--fields applies to text only: with -f json or folded, --flamegraph, convert, record without -f: exit 1"
else
	echo "not ok - -F/--fields applies to text only:$bad"
fi

# outside report -F is still perf record's --freq: its number parser
# answers (a field list is no number), record -F 99 is taken, and -i
# refuses it as a sampling option; report's is --freq alone
bad=""
# ARGS|what its message says, exit 1 each
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	out=$("$B/perfregs-dump" $args 2>&1); rc=$?
	[ $rc = 1 ] && printf '%s' "$out" | grep -qF -- "$want" ||
		bad="$bad [$args: exit $rc: $out]"
done <<RATES
record -F 0|-F wants a positive number, not '0'
record -F tid,ip|-F wants a positive number, not 'tid,ip' (-F is --freq here
record -F 99|nothing to sample
-F 99|nothing to sample
-F tid -i $T/fl.prf|-F wants a positive number, not 'tid'
-i $T/fl.prf -F 99|-i takes no -F/--freq
report --freq 99 -i $T/fl.prf|-i takes no --freq:
record --freq 0|--freq wants a positive number, not '0'
RATES
if [ -z "$bad" ]; then
	echo "ok - record -F HZ and -F HZ without a subcommand are still --freq; report takes --freq"
else
	echo "not ok - record -F HZ is still --freq:$bad"
fi

# A PIE linked by GNU ld and one linked by lld, recorded live as the
# tool learns them (image, /proc/PID/maps): the decoder must name the
# function the program says it is at.  lld puts the code segment a page
# past its file offset, so the load bias is not start - pgoff there.
for ld in gnu lld; do
	if [ $ld = gnu ]; then
		cc -O1 -g -fPIE -pie -o "$T/bias_$ld" tests/bias_target.c 2>/dev/null
	elif command -v clang >/dev/null && command -v ld.lld >/dev/null; then
		clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/bias_$ld" tests/bias_target.c 2>/dev/null
	fi
	if [ ! -x "$T/bias_$ld" ]; then
		echo "ok - a PIE linked by $ld is named at its own address # SKIP no clang/lld (make deps installs them)"
		continue
	fi
	mkfifo "$T/in_$ld"
	"$T/bias_$ld" < "$T/in_$ld" > "$T/out_$ld" &
	bp=$!
	exec 9> "$T/in_$ld"
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/out_$ld" ] && break; sleep 0.1; done
	addr=$(head -1 "$T/out_$ld")
	sym=""
	if [ -n "$addr" ] && "$B/mkmaps" "$T/bias_$ld.prf" "$bp" "$addr" 3; then
		sym=$("$B/perfregs-dump" -q -f json -i "$T/bias_$ld.prf" |
			/usr/bin/python3 -c 'import json, sys
print(" ".join(sorted({json.loads(l).get("sym", "none") for l in sys.stdin if "\"sample\"" in l})))')
	fi
	exec 9>&-
	wait $bp
	if [ "$sym" = "target_function+0x0" ]; then
		echo "ok - a PIE linked by $ld is named at its own address: $sym"
	else
		echo "not ok - a PIE linked by $ld is named at its own address: got '${sym:-nothing}' at $addr"
	fi
done

# address spaces from perf's side-band, versioned by time: dl_target
# dlopen()s plugin A, then plugin B where A was; one sample in each phase
if [ -x "$B/mksb" ]; then
	"$B/mksb" "$T/sb.prf" "$B/dl_target" "$B/plug_a.so" plug_a_hot \
		"$B/plug_b.so" plug_b_hot > "$T/sb.addr" 2> "$T/sb.err"
	rc=$?
	if [ $rc = 77 ]; then
		echo "ok - side-band address spaces # SKIP perf_event_open refused: $(cat "$T/sb.err")"
	else
		syms=$("$B/perfregs-dump" -q -f json -i "$T/sb.prf" 2>&1 |
			/usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))')
		if [ $rc = 0 ] && [ "$syms" = "plug_a_hot+0x0 plug_b_hot+0x0" ]; then
			echo "ok - a library dlopen()ed where another was is named by the sample's time ($(cat "$T/sb.addr"))"
		else
			echo "not ok - a library dlopen()ed where another was is named by the sample's time: got '$syms' (rc $rc, $(cat "$T/sb.addr" "$T/sb.err"))"
		fi
	fi
fi

# COMMAND's recording decodes as its live run did, also when a drain
# reads a mapping of COMMAND's (a dlopen() on CPU 0) before its execs
# (sh's and, under the same pid, the program's, on CPU 1): mkexec
# tracks the process from before its exec and decodes the sample as
# perfregs-dump does live (its JSON line); -i must print the same line,
# with the name of the dlopen()ed function
if [ -x "$B/mkexec" ]; then
	"$B/mkexec" "$T/exec.prf" "$B/dl_target" "$B/plug_a.so" plug_a_hot \
		> "$T/exec.live" 2> "$T/exec.err"
	rc=$?
	if [ $rc = 77 ]; then
		echo "ok - COMMAND's mappings read before its exec # SKIP $(cat "$T/exec.err")"
	else
		"$B/perfregs-dump" -q -f json -i "$T/exec.prf" > "$T/exec.off" 2>> "$T/exec.err"
		live=$(grep '"type":"sample"' "$T/exec.live")
		off=$(grep '"type":"sample"' "$T/exec.off")
		if [ $rc = 0 ] && [ -n "$live" ] && [ "$live" = "$off" ] &&
		   grep -q '"sym":"plug_a_hot+0x0"' "$T/exec.live"; then
			echo "ok - COMMAND's mappings read before its exec: the recording decodes as the live run did"
		else
			echo "not ok - COMMAND's mappings read before its exec: live ${live:-nothing} / recording ${off:-nothing} (rc $rc, $(cat "$T/exec.err"))"
		fi
	fi
fi

# the commands: -q and -v before the command are the command's (the
# word after them is a command, never a program to sample); script lists
# what -i lists; an unknown option is one line that points at --help
if [ -s "$T/syn.prf" ]; then
	bad=""
	"$B/perfregs-dump" -q report -f json -i "$T/syn.prf" > "$T/glob.jsonl" 2> "$T/glob.err" ||
		bad="$bad [-q report: exit $?: $(head -c 300 "$T/glob.err")]"
	cmp -s "$T/glob.jsonl" "$T/syn.jsonl" || bad="$bad [-q report -f json differs from -q -f json -i]"
	[ -s "$T/glob.err" ] && bad="$bad [-q report wrote to stderr: $(head -c 200 "$T/glob.err")]"
	"$B/perfregs-dump" -qv script -f json -i "$T/syn.prf" 2> /dev/null | cmp -s - "$T/syn.jsonl" ||
		bad="$bad [-qv script -f json differs]"
	"$B/perfregs-dump" -q script -i "$T/syn.prf" > "$T/glob.txt" 2>&1 && cmp -s "$T/glob.txt" "$T/syn.txt" ||
		bad="$bad [script's text differs from -i's]"
	for args in "-q report --bogus" "script -x" "record --nosuch" "-q --bogus -i $T/syn.prf"; do
		# shellcheck disable=SC2086
		out=$("$B/perfregs-dump" $args 2>&1 >/dev/null); rc=$?
		[ $rc = 1 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
			printf '%s' "$out" | grep -q -- "--help$" || bad="$bad [$args: exit $rc: $(printf '%s' "$out" | head -3)]"
	done
	# shellcheck disable=SC2016
	"$B/perfregs-dump" report --help | grep -q '^usage: perfregs-dump report ' ||
		bad="$bad [report --help is not report's]"
	if [ -z "$bad" ]; then
		echo "ok - -q/-v before a command are its own, script lists as -i does, an unknown option is one line naming --help"
	else
		echo "not ok - global options and commands:$bad"
	fi
fi

# perf's shape: report decodes what -i decodes, perfregs.prf by
# default; record takes no -i and report no -o
if [ -s "$T/syn.prf" ]; then
	mkdir -p "$T/rep" && cp "$T/syn.prf" "$T/rep/perfregs.prf"
	tool=$(cd "$B" && pwd)/perfregs-dump
	(cd "$T/rep" && "$tool" report -q -f json > b.jsonl 2>&1)
	rb=$?
	"$B/perfregs-dump" record -i "$T/syn.prf" 2> "$T/rep/c.err"
	rc=$?
	"$B/perfregs-dump" report -o "$T/rep/x.prf" -- true 2> "$T/rep/d.err"
	rd=$?
	if [ $rb = 0 ] && cmp -s "$T/rep/b.jsonl" "$T/syn.jsonl" && [ $rc = 1 ] &&
	   grep -q "takes no -i" "$T/rep/c.err" && [ $rd = 1 ] && grep -q "takes no -o" "$T/rep/d.err" &&
	   "$B/perfregs-dump" report -q -f json -i "$T/syn.prf" | cmp -s - "$T/syn.jsonl"; then
		echo "ok - report decodes as -i does (perfregs.prf by default); record refuses -i, report -o"
	else
		echo "not ok - subcommands: report in a dir with perfregs.prf: $rb, record -i: $rc, report -o: $rd (want 0 1 1, and the same JSON as -i)"
	fi
fi

# side-band events read out of time order (two CPUs' rings): a child's
# exec and mapping before the fork that made it; its sample is named
if [ -x "$B/mkorder" ] && cc -O1 -g -no-pie -o "$T/oprog" tests/bias_target.c 2>/dev/null; then
	read -r ooff ostart osize < <(readelf -lW "$T/oprog" |
		awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
	oaddr=0x$(nm "$T/oprog" | awk '$3 == "target_function" { print $1 }')
	osym=$("$B/mkorder" "$T/order.prf" "$T/oprog" "$oaddr" \
		$(( ostart & ~4095 )) $(( (ostart + osize + 4095) & ~4095 )) $(( ooff & ~4095 )) &&
		"$B/perfregs-dump" -q -f json -i "$T/order.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))')
	if [ "$osym" = "target_function+0x0" ]; then
		echo "ok - side-band events read out of time order: a fork after the exec it came before"
	else
		echo "not ok - side-band events read out of time order: got '$osym' (want target_function+0x0)"
	fi
	# the parent's mapping read after the fork that came after it
	psym=$("$B/mkorder" "$T/order_p.prf" "$T/oprog" "$oaddr" \
		$(( ostart & ~4095 )) $(( (ostart + osize + 4095) & ~4095 )) $(( ooff & ~4095 )) parent &&
		"$B/perfregs-dump" -q -f json -i "$T/order_p.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))')
	if [ "$psym" = "target_function+0x0" ]; then
		echo "ok - side-band events read out of time order: a parent's mapping after the fork it came before"
	else
		echo "not ok - side-band events read out of time order: a parent's mapping after the fork: got '$psym' (want target_function+0x0)"
	fi
	# a child's exec and fork read before any event of its parent
	csym=$("$B/mkorder" "$T/order_o.prf" "$T/oprog" "$oaddr" \
		$(( ostart & ~4095 )) $(( (ostart + osize + 4095) & ~4095 )) $(( ooff & ~4095 )) orphan &&
		"$B/perfregs-dump" -q -f json -i "$T/order_o.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))')
	if [ "$csym" = "target_function+0x0" ]; then
		echo "ok - side-band events read out of time order: a child's fork before its parent's exec"
	else
		echo "not ok - side-band events read out of time order: a child's fork before its parent's exec: got '$csym' (want target_function+0x0)"
	fi
fi

# a hostile recording: side-band events that would make the address
# spaces grow quadratically must not take more than 512 MiB or a minute
if [ -x "$B/mkstorm" ]; then
	for mode in late maps; do
		"$B/mkstorm" "$T/storm_$mode.prf" 20000 $mode
		( ulimit -v 1048576; timeout 60 "$B/perfregs-dump" -q -f json \
			-i "$T/storm_$mode.prf" > /dev/null 2> "$T/storm_$mode.err"; echo $? > "$T/storm_$mode.rc" )
		rss=$(ulimit -v 1048576; /usr/bin/python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)' \
			"$B/perfregs-dump" -f json -i "$T/storm_$mode.prf" 2>/dev/null)
		if [ "$(cat "$T/storm_$mode.rc")" = 0 ] && [ -n "$rss" ] && [ "$rss" -lt 512 ]; then
			echo "ok - 20000 side-band events ($mode) decode in bounded memory: ${rss} MiB"
		else
			echo "not ok - 20000 side-band events ($mode): exit $(cat "$T/storm_$mode.rc"), ${rss:-?} MiB: $(head -c 300 "$T/storm_$mode.err")"
		fi
	done
fi

# A recording is anyone's who can write the file, also while it is
# decoded: a sample rewritten in the file after decode_record() checked
# it, and the file cut to half, at the moment the record hook runs
# (racefile: between the checks and every other read of the sample).
if [ -x "$B/racefile" ]; then
	if out=$("$B/racefile" "$T/race.prf" change 2>&1); then
		echo "ok - a sample rewritten in the file after its checks: what was checked is decoded (json, pprof)"
	else
		echo "not ok - a sample rewritten in the file after its checks (exit $?): what was checked must be decoded"
	fi
	[ -z "$out" ] || printf '%s\n' "$out" | head -5 | sed 's/^#* */# /'
	if out=$("$B/racefile" "$T/race.prf" truncate 2>&1); then
		echo "ok - a recording cut to half while decoded: it shrank while it was read, no SIGBUS (json, pprof)"
	else
		echo "not ok - a recording cut to half while decoded (exit $?): an error, not a SIGBUS"
	fi
	[ -z "$out" ] || printf '%s\n' "$out" | head -5 | sed 's/^#* */# /'
	rm -f "$T"/race.prf*
fi

# An item's size is anyone's: a sparse file of a few KiB on disk that
# claims a 4 GiB item (here past the header and the info of mkrec's
# recording, then an end item after the hole) must cost neither 4 GiB
# of memory nor the time to read them.  A kernel record item larger than
# a writer makes is refused at its offset, exit 4; an item of a type the
# tool does not know is gone past, unread: the end item after it counts
# (exit 0).  Under ulimit -v 1 GiB, peak RSS below 64 MiB, in 20 s.
# (An ASan build reserves terabytes of shadow: no ulimit -v for it,
# the RSS bound stays.)
if "$B/mkrec" "$T/sparse_src.prf" 1; then
	bad=""
	vlimit=1048576
	ldd "$B/perfregs-dump" 2>/dev/null | grep -q libasan && vlimit=unlimited
	for kind in krec unknown; do
		/usr/bin/python3 - "$T/sparse_src.prf" "$T/sparse.prf" $kind <<'PY'
import struct, sys
src, dst, kind = sys.argv[1:4]
b = open(src, "rb").read()
hsize = struct.unpack_from("<I", b, 8)[0]
isize = struct.unpack_from("<I", b, hsize + 4)[0]     # ITEM_INFO, first
big = 0xfffffff8
with open(dst, "wb") as f:
    f.write(b[:hsize + isize])
    f.write(struct.pack("<II", 5 if kind == "krec" else 0x7fff, big))
    f.seek(hsize + isize + big)
    f.write(struct.pack("<II", 6, 56) + bytes(48))      # ITEM_END
PY
		out=$( (ulimit -v $vlimit; timeout 20 /usr/bin/time -f '%M %e' "$B/perfregs-dump" -q \
			--summary -i "$T/sparse.prf") 2>&1 >/dev/null)
		rc=$?
		read -r kb secs < <(printf '%s\n' "$out" | tail -1)
		want_rc=4
		if [ $kind = krec ]; then
			printf '%s' "$out" | grep -q "malformed recording at offset [0-9]*: an item of type 5 claims 4294967288 bytes, more than any writer makes" ||
				bad="$bad $kind: '$(printf '%s' "$out" | head -c 300)';"
		else
			want_rc=0
		fi
		[ $rc = $want_rc ] || bad="$bad $kind: exit $rc, not $want_rc ($(printf '%s' "$out" | head -c 200));"
		case "$kb" in
		''|*[!0-9]*) bad="$bad $kind: no RSS measured;" ;;
		*) [ "$kb" -lt 65536 ] || bad="$bad $kind: peak RSS $kb KiB;" ;;
		esac
		echo "# a 4 GiB $kind item on a sparse file: exit $rc, ${kb:-?} KiB peak RSS, ${secs:-?} s"
	done
	rm -f "$T/sparse.prf" "$T/sparse_src.prf"
	if [ -z "$bad" ]; then
		echo "ok - a sparse recording claiming a 4 GiB item: refused at its offset, or gone past unread; small RSS"
	else
		echo "not ok - a sparse recording claiming a 4 GiB item: refused at its offset, or gone past unread; small RSS:$bad"
	fi
else
	echo "not ok - a sparse recording claiming a 4 GiB item (mkrec failed)"
fi

# The same cut under perfregs-dump -i itself, at a known point: its
# output is a pipe left unread until it blocks writing to it (it cannot
# be far into the file then), and the file is cut to half (at a page, so
# that a mapping of it would fault) before the pipe is read.
if "$B/mkrec" "$T/cut.prf" 20000; then
	/usr/bin/python3 - "$B/perfregs-dump" "$T/cut.prf" <<'PY'
import json, os, subprocess, sys, time
dump, rec = sys.argv[1:3]
size = os.path.getsize(rec)
cut = size // 2 & ~4095
p = subprocess.Popen([dump, "-q", "-f", "json", "-i", rec],
                     stdout=subprocess.PIPE, stderr=subprocess.PIPE)
blocked, deadline = False, time.time() + 30
while not blocked and p.poll() is None and time.time() < deadline:
    try:
        with open(f"/proc/{p.pid}/syscall") as f:
            blocked = f.read().split()[:2] == ["1", "0x1"]    # write(1, ...)
    except OSError:
        break
    time.sleep(0.005)
if not blocked:
    p.kill()
    p.communicate()
    print("ok - perfregs-dump -i on a recording cut while it decodes # SKIP "
          "could not see it block on its output (/proc/PID/syscall)")
    sys.exit(0)
os.truncate(rec, cut)
out, err = p.communicate(timeout=120)
try:
    recs = [json.loads(l) for l in out.decode(errors="replace").splitlines()]
except ValueError:
    recs = None
samples = sum(r.get("type") == "sample" for r in recs or [])
why = []
if p.returncode != 4:
    why.append(f"exit {p.returncode}" + (" (a signal)" if p.returncode < 0 else ""))
if b"shrank while it was read" not in err:
    why.append("stderr: " + err.decode(errors="replace").strip()[:200])
if not recs or recs[-1].get("type") != "summary":
    why.append("output is not whole JSON lines ending in the summary")
elif not 0 < samples < 80001:
    why.append(f"{samples} samples of 80001")
if why:
    print("not ok - perfregs-dump -i on a recording cut to half while it decodes: "
          "exit 4, 'shrank while it was read', no SIGBUS: " + "; ".join(why))
else:
    print("ok - perfregs-dump -i on a recording cut to half while it decodes: exit 4, "
          "'shrank while it was read', no SIGBUS")
    print(f"# {samples} of 80001 samples decoded before the cut at {cut} of {size} bytes")
PY
	rm -f "$T/cut.prf"
fi

# A late event of a process rebuilds the copies of its own children, and
# looks at no other process: 20000 late events of a parent among 20000
# other processes take well under a second (measured 0.6 s), against
# about 100 s when every late event scanned every process's events.
# The CPU limit is 50 times what it takes, to fail only the quadratic.
if [ -x "$B/mkstorm" ]; then
	"$B/mkstorm" "$T/storm_fan.prf" 20000 fan
	( ulimit -t 30; "$B/perfregs-dump" -q -f json -i "$T/storm_fan.prf" 2> "$T/storm_fan.err" |
		grep -c '"type":"summary"' > "$T/storm_fan.out"; echo "${PIPESTATUS[0]}" > "$T/storm_fan.rc" )
	if [ "$(cat "$T/storm_fan.rc")" = 0 ] && [ "$(cat "$T/storm_fan.out")" = 1 ]; then
		echo "ok - 20000 late events of a parent among 20000 processes: only its child is rebuilt"
	else
		echo "not ok - 20000 late events of a parent among 20000 processes: exit $(cat "$T/storm_fan.rc") in 30 s of CPU: $(head -c 300 "$T/storm_fan.err")"
	fi
	# a child linked to its parent 4000 times (8000 forks claimed by two
	# parents in turn) is looked at once per late event: 6000 of them
	# took 0.2 s, and 33 s when every link scanned the child's 8000 forks
	"$B/mkstorm" "$T/storm_alt.prf" 6000 alt
	( ulimit -t 30; "$B/perfregs-dump" -q -f json -i "$T/storm_alt.prf" 2> "$T/storm_alt.err" |
		grep -c '"type":"summary"' > "$T/storm_alt.out"; echo "${PIPESTATUS[0]}" > "$T/storm_alt.rc" )
	if [ "$(cat "$T/storm_alt.rc")" = 0 ] && [ "$(cat "$T/storm_alt.out")" = 1 ]; then
		echo "ok - a child linked 4000 times to its parent is rebuilt once per late event"
	else
		echo "not ok - a child linked 4000 times to its parent is rebuilt once per late event: exit $(cat "$T/storm_alt.rc") in 30 s of CPU"
	fi
fi

# A recording's kernel symbols come in any order: 400000 of them, each
# below the one before, then a sample in the first.  Inserted in place,
# each moved all the others: 47 s of CPU (13.5 s for 200000, 2.3 s for
# 100000); appended and sorted once, 0.08 s.  10 s of CPU fail only the
# quadratic.
if "$B/mkhostile" "$T/ksyms.prf" -k target -K 400000; then
	( ulimit -t 10; /usr/bin/time -f '%U' -o "$T/ksyms.time" "$B/perfregs-dump" -q -f json \
		-i "$T/ksyms.prf" > "$T/ksyms.out" 2> "$T/ksyms.err"; echo $? > "$T/ksyms.rc" )
	if [ "$(cat "$T/ksyms.rc")" = 0 ] &&
	   [ "$(grep -o '"sym":"[^"]*"' "$T/ksyms.out")" = '"sym":"target+0x10"' ]; then
		echo "ok - 400000 kernel symbols in descending order: $(tail -1 "$T/ksyms.time") s of CPU, the sample named"
	else
		echo "not ok - 400000 kernel symbols in descending order: exit $(cat "$T/ksyms.rc") under 10 s of CPU: $(head -c 200 "$T/ksyms.err")"
	fi
	rm -f "$T/ksyms.prf" "$T/ksyms.out"
else
	echo "not ok - 400000 kernel symbols in descending order (mkhostile failed)"
fi

# The same in turn with samples, each in the symbol just before it, with
# --threads 4: the reading thread merged every symbol added before it
# handed a sample on (14 to 26 s of CPU, up to 30 s of wall time, for
# 200000; one thread 0.2 to 0.4 s), and waited for the workers before
# each symbol (with the merge fixed, still 5 s of CPU, 7 s of wall
# time); now as one thread.  Four threads may take 4 times the CPU of
# one and 2 s more (so sanitizer builds, 25 times slower, pass; the
# quadratic took 60 to 100 times one thread's), at most 60 s; the names
# are one thread's.
if "$B/mkhostile" "$T/ksyms_alt.prf" -k target -K 200000 -S; then
	for n in 1 4; do
		( ulimit -t 60; /usr/bin/time -f '%U %S %e' -o "$T/ksyms_alt.time$n" \
			"$B/perfregs-dump" -q -f json --threads $n -i "$T/ksyms_alt.prf" \
			> "$T/ksyms_alt.$n" 2> "$T/ksyms_alt.err$n"; echo $? > "$T/ksyms_alt.rc$n" )
	done
	read -r ku1 ks1 ke1 < <(tail -1 "$T/ksyms_alt.time1")
	read -r ku ks ke < <(tail -1 "$T/ksyms_alt.time4")
	if [ "$(cat "$T/ksyms_alt.rc1")" = 0 ] && [ "$(cat "$T/ksyms_alt.rc4")" = 0 ] &&
	   awk -v a="$ku1" -v b="$ks1" -v c="$ku" -v d="$ks" 'BEGIN { exit !(c + d <= 4 * (a + b) + 2) }' &&
	   cmp -s "$T/ksyms_alt.1" "$T/ksyms_alt.4" &&
	   [ "$(grep -c '"sym":"ksym[0-9]*+0x4"' "$T/ksyms_alt.4")" = 200000 ]; then
		echo "ok - 200000 kernel symbols in descending order in turn with samples, --threads 4: ${ku} s user, ${ks} s system, ${ke} s (1 thread: ${ku1}, ${ks1}, ${ke1}), one thread's names"
	else
		echo "not ok - 200000 kernel symbols in turn with samples: --threads 4 exit $(cat "$T/ksyms_alt.rc4"), $ku s user, $ks s system; 1 thread exit $(cat "$T/ksyms_alt.rc1"), $ku1 s user, $ks1 s system; $(cmp "$T/ksyms_alt.1" "$T/ksyms_alt.4" 2>&1 | head -c 200)"
	fi
	rm -f "$T"/ksyms_alt.*
else
	echo "not ok - 200000 kernel symbols in turn with samples (mkhostile failed)"
fi

# Kernel symbols of a hostile recording that overlap, or start together
# (mkhostile -O: an outer one, one inside it, one the same as the outer),
# and samples in turn: one thread looked through the ones not merged yet
# in the order they came, and --threads merged them all before each
# sample and searched them, so 0x18 into the outer one was the outer
# with 1 thread and the inner with 4.  Both name by one rule now
# (symbols.c, ksym_cmp()).
if "$B/mkhostile" "$T/ksyms_ovl.prf" -k target -O 200; then
	bad=""
	"$B/perfregs-dump" -q -f json --threads 1 -i "$T/ksyms_ovl.prf" > "$T/ksyms_ovl.1" ||
		bad="$bad --threads 1 failed;"
	for n in 2 4; do
		"$B/perfregs-dump" -q -f json --threads $n -i "$T/ksyms_ovl.prf" > "$T/ksyms_ovl.$n" ||
			bad="$bad --threads $n failed;"
		cmp -s "$T/ksyms_ovl.1" "$T/ksyms_ovl.$n" || bad="$bad --threads $n names other symbols;"
	done
	[ "$(grep -c '"sym":"inner[0-9]*+0x8"' "$T/ksyms_ovl.1")" = 400 ] &&
	   [ "$(grep -c '"sym":"outer[0-9]*+0x4"' "$T/ksyms_ovl.1")" = 400 ] ||
		bad="$bad not the inner symbol at 0x18, the first of two the same at 0x4;"
	if [ -z "$bad" ]; then
		echo "ok - overlapping kernel symbols among the samples: --threads 2 and 4 name what 1 names"
	else
		echo "not ok - overlapping kernel symbols among the samples:$bad"
	fi
	rm -f "$T"/ksyms_ovl.*
else
	echo "not ok - overlapping kernel symbols (mkhostile failed)"
fi

# The decoder's memory does not grow with the number of samples: 2e5 and
# 2e6 samples of the same 32 stacks (mkbig: 37 and 368 MB), and 5e4 and
# 5e5 with 160 bytes of stack each (18 and 180 MB), unwound; the peak RSS
# of each format on the larger within 16 MiB of the smaller's.  With the
# whole file mapped and populated (before the reader read it a chunk at
# a time) it was 353 MiB against 37 (and 174
# against 19 unwound).
big_rss() {
	/usr/bin/python3 -c 'import resource, subprocess, sys
p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024 if p.returncode == 0 else "")' \
		"$B/perfregs-dump" -q "$@" 2>/dev/null
}
if [ -x "$B/mkbig" ] && [ -x "$B/big_target" ]; then
	bad="" made=""
	bmain=0x$(nm "$B/big_target" | sed -n 's/ T main$//p')
	for run in "200000 0 -f json" "200000 0 -f text" "200000 0 -f folded" \
		   "50000 160 -f folded --call-graph dwarf" "50000 160 -f json --call-graph dwarf"; do
		# shellcheck disable=SC2086
		set -- $run
		n=$1 st=$2
		shift 2
		if [ "$made" != "$n $st" ]; then
			for k in 1 10; do
				"$B/mkbig" "$T/big_$k.prf" $((n * k)) "$(realpath "$B")/big_target" "$bmain" "$st" ||
					bad="$bad mkbig $((n * k)) $st failed;"
			done
			made="$n $st"
		fi
		small=$(big_rss "$@" -i "$T/big_1.prf")
		large=$(big_rss "$@" -i "$T/big_10.prf")
		if [ -z "$small" ] || [ -z "$large" ] || [ "$large" -gt $((small + 16)) ]; then
			bad="$bad $n and $((n * 10)) samples, $st-byte stacks, $*: ${small:-?} and ${large:-?} MiB;"
		fi
		echo "# $n and $((n * 10)) samples, $st-byte stacks, $*: $small and $large MiB"
	done
	rm -f "$T"/big_*.prf
	if [ -z "$bad" ]; then
		echo "ok - decoding 10 times the samples of the same stacks takes no more memory"
	else
		echo "not ok - decoding 10 times the samples of the same stacks takes no more memory:$bad"
	fi
else
	echo "not ok - decoding 10 times the samples of the same stacks takes no more memory (no mkbig)"
fi

# --threads N prints what one thread prints, byte for byte, in every
# format: 30000 samples of 1024-byte stacks unwound (mkbig), and 30000 of
# 160 bytes with a late exec and mapping of one of the processes before
# every 256th sample (mkbig SB), which the samples before them in the
# file must not see (the barrier); the mapping's two names show in the
# callchains.  With the batches written in the order they were done, or
# the side-band applied without waiting for the samples before it, the
# outputs differ.
if [ -x "$B/mkbig" ] && [ -x "$B/big_target" ]; then
	bad=""
	bmain=0x$(nm "$B/big_target" | sed -n 's/ T main$//p')
	bexe=$(realpath "$B")/big_target
	"$B/mkbig" "$T/thr.prf" 30000 "$bexe" "$bmain" 1024 || bad="$bad mkbig failed;"
	"$B/mkbig" "$T/thr_sb.prf" 30000 "$bexe" "$bmain" 160 4 4 2 256 || bad="$bad mkbig SB failed;"
	"$B/mkbig" "$T/thr_sbt.prf" 30000 "$bexe" "$bmain" 160 4 4 2 -256 ||
		bad="$bad mkbig SB in time failed;"
	for rec in thr thr_sb thr_sbt; do
		for f in text json folded; do
			"$B/perfregs-dump" -q -i "$T/$rec.prf" -f $f --call-graph dwarf --threads 1 \
				> "$T/$rec.$f.1" || bad="$bad $rec -f $f --threads 1 failed;"
			for n in 2 7; do
				"$B/perfregs-dump" -q -i "$T/$rec.prf" -f $f --call-graph dwarf \
					--threads $n > "$T/$rec.$f.$n" || bad="$bad $rec -f $f --threads $n failed;"
				cmp -s "$T/$rec.$f.1" "$T/$rec.$f.$n" ||
					bad="$bad $rec -f $f: --threads $n differs from 1;"
			done
			# the default: one thread, then the workers from a record
			# on (PERFREGS_THREADS_AFTER_MS=0: after the first 256)
			PERFREGS_THREADS_AFTER_MS=0 taskset -c 0,1 "$B/perfregs-dump" -v -q \
				-i "$T/$rec.prf" -f $f --call-graph dwarf > "$T/$rec.$f.d" \
				2> "$T/$rec.$f.dv" || bad="$bad $rec -f $f default threads failed;"
			cmp -s "$T/$rec.$f.1" "$T/$rec.$f.d" ||
				bad="$bad $rec -f $f: the default's workers from a record on differ from 1;"
			grep -q "2 threads printed the samples after the first [1-9]" "$T/$rec.$f.dv" ||
				[ "$(nproc)" -lt 2 ] ||
				bad="$bad $rec -f $f: the default never started its workers ($(grep threads "$T/$rec.$f.dv"));"
		done
		"$B/perfregs-dump" -q -i "$T/$rec.prf" --call-graph dwarf --flamegraph "$T/$rec.1.svg" \
			--threads 1 && "$B/perfregs-dump" -q -i "$T/$rec.prf" --call-graph dwarf \
			--flamegraph "$T/$rec.7.svg" --threads 7 && cmp -s "$T/$rec.1.svg" "$T/$rec.7.svg" ||
			bad="$bad $rec --flamegraph: --threads 7 differs from 1;"
	done
	# the default ends alone a file it has nearly read when its time
	# comes (pool_maybe_start()): with 1 ms a record and 100 ms, the first
	# look is at record 256, far from the end of thr.prf's 30000 samples
	# (the workers start) and near that of 300 (they do not: 45 ms left)
	"$B/mkbig" "$T/thr300.prf" 300 "$bexe" "$bmain" 1024 || bad="$bad mkbig 300 failed;"
	for rec in thr thr300; do
		PERFREGS_THREADS_CLOCK=records PERFREGS_THREADS_AFTER_MS=100 "$B/perfregs-dump" \
			-v -q -i "$T/$rec.prf" -f folded --call-graph dwarf 2>&1 >/dev/null |
			grep "printed the samples" > "$T/$rec.started"
	done
	if [ "$(nproc)" -ge 2 ]; then
		grep -q "threads printed the samples after the first 256," "$T/thr.started" ||
			bad="$bad 30000 samples: no workers after 256 records ($(cat "$T/thr.started"));"
		grep -q "^perfregs-dump: 1 thread printed" "$T/thr300.started" ||
			bad="$bad 300 samples: workers started with 15% left ($(cat "$T/thr300.started"));"
	fi
	# side-band events in time, after every sample before them, wait for
	# nothing (space_event_later()): 1 wait, for the end of the file; the
	# late ones of thr_sb do (93 to 99 of 117 pairs: a batch may be
	# printed already when its wait comes).  Before, 118 waits in time
	# too, one per pair of exec and mapping, the workers idle
	for rec in thr_sbt thr_sb; do
		"$B/perfregs-dump" -v -q -i "$T/$rec.prf" -f folded --call-graph dwarf \
			--threads 2 2>&1 >/dev/null | sed -n 's/.*waited for the workers \([0-9]*\) times.*/\1/p' > "$T/$rec.waits"
	done
	wt=$(cat "$T/thr_sbt.waits") wl=$(cat "$T/thr_sb.waits")
	if [ "${wt:-9}" -gt 1 ] || [ "${wl:-0}" -lt 50 ]; then
		bad="$bad waits for the side-band: ${wt:-none} in time (want 1, the end), ${wl:-none} late (want most of 117);"
	fi
	# what makes the test: both names of the mapping, every sample named
	nplain=$(grep -c " (${bexe})\$" "$T/thr_sb.text.1")
	ndot=$(grep -c " (${bexe%/*}/\./big_target)\$" "$T/thr_sb.text.1")
	nsum=$(grep -c '^# 30000 samples' <("$B/perfregs-dump" -i "$T/thr_sb.prf" --summary --threads 7))
	if [ "${nplain:-0}" -lt 1000 ] || [ "${ndot:-0}" -lt 1000 ] ||
	   grep -q unknown "$T/thr_sb.text.1" || [ "$nsum" != 1 ]; then
		bad="$bad the SB recording: ${nplain:-0} and ${ndot:-0} frames of each name, $(grep -c unknown "$T/thr_sb.text.1") unknown, summary $nsum;"
	fi
	rm -f "$T"/thr*
	if [ -z "$bad" ]; then
		echo "ok - --threads 2 and 7 print what 1 prints, unwound, with side-band events among the samples (late, and in time: $wt waits for these, $wl for the late), in text, JSON, folded and SVG; so does the default, its workers starting mid-recording, but not for a file nearly read by then"
	else
		echo "not ok - --threads 2 and 7 print what 1 prints:$bad"
	fi
else
	echo "not ok - --threads 2 and 7 print what 1 prints (no mkbig)"
fi

# --threads and a malformed sample in the middle of a recording.  The
# workers check and count the samples (pool.c), the reading thread only
# walks them and reads ahead; every thread count must still end where
# one thread ends: the same output up to the malformed sample, the same
# error naming its offset (prfcorrupt.py gives it), exit 4, the same
# summary (29990 samples, 1 malformed, produced 0: not the end item's,
# which the reading thread may have read by then), without a loss of 5
# samples and one of 7 side-band events just after it; and without them
# (nothing then makes the reading thread wait before the end item).  The
# same recording without the malformed sample counts both (the control).
what="a malformed sample mid-recording: --threads 2, 7 and the default stop where 1 stops, with its counts; items of a newer tool longer than the window among the records: what 1 prints"
if [ -x "$B/mkbig" ] && [ -x "$B/big_target" ]; then
	bad=""
	bmain=0x$(nm "$B/big_target" | sed -n 's/ T main$//p')
	"$B/mkbig" "$T/mal0.prf" 30000 "$(realpath "$B")/big_target" "$bmain" 1024 ||
		bad="$bad mkbig failed;"
	at=$(python3 tests/prfcorrupt.py "$T/mal0.prf" "$T/mal.prf" 29990) ||
		bad="$bad prfcorrupt failed;"
	python3 tests/prfcorrupt.py "$T/mal0.prf" "$T/malok.prf" -1 >/dev/null ||
		bad="$bad prfcorrupt -1 failed;"
	python3 tests/prfcorrupt.py "$T/mal0.prf" "$T/malpl.prf" 29995 plain >/dev/null ||
		bad="$bad prfcorrupt plain failed;"
	for n in 1 2 7; do
		"$B/perfregs-dump" -q -i "$T/malpl.prf" -f json --threads $n 2>/dev/null |
			tail -n1 > "$T/malpl.$n"
	done
	grep -q '"samples":29995,"produced":0,"malformed":1,' "$T/malpl.1" &&
		cmp -s "$T/malpl.1" "$T/malpl.2" && cmp -s "$T/malpl.1" "$T/malpl.7" ||
		bad="$bad with nothing after it: $(cat "$T/malpl.1" "$T/malpl.2" "$T/malpl.7");"
	# the items of a newer tool between the records, each longer than the
	# window the recording is read into: gone past, and the window the
	# records handed out lie in is not read into again
	python3 tests/prfcorrupt.py "$T/mal0.prf" "$T/malun.prf" -1 unknown >/dev/null ||
		bad="$bad prfcorrupt unknown failed;"
	for n in 1 2 7; do
		"$B/perfregs-dump" -q -i "$T/malun.prf" -f json --call-graph dwarf \
			--threads $n > "$T/malun.$n" 2>&1 || bad="$bad unknown items: --threads $n failed;"
	done
	cmp -s "$T/mal0.prf" "$T/malun.prf" && bad="$bad no unknown items;"
	cmp -s "$T/malun.1" "$T/malun.2" && cmp -s "$T/malun.1" "$T/malun.7" ||
		bad="$bad unknown items: --threads 2 or 7 print other samples;"
	# each record in a window of its own (an item of a newer tool longer
	# than the window after each): the windows the batches hold stay
	# bounded (pool.c, held_max).  Before, each batch of 256 records held
	# 256 windows: 134 MB of RSS for 2000 records, growing with them
	python3 tests/prfcorrupt.py "$T/mal0.prf" "$T/malh.prf" -1 hold 3000 >/dev/null ||
		bad="$bad prfcorrupt hold failed;"
	for n in 1 2 7; do
		/usr/bin/time -o "$T/malh.$n.rss" -f %M "$B/perfregs-dump" -q -i "$T/malh.prf" \
			-f json --threads $n > "$T/malh.$n" || bad="$bad hold: --threads $n failed;"
	done
	hrss1=$(tail -n1 "$T/malh.1.rss") hrss2=$(tail -n1 "$T/malh.2.rss") hrss7=$(tail -n1 "$T/malh.7.rss")
	[ "$(grep -c '"type":"lost"' "$T/malh.1")" = 3000 ] || bad="$bad hold: not 3000 losses printed;"
	cmp -s "$T/malh.1" "$T/malh.2" && cmp -s "$T/malh.1" "$T/malh.7" ||
		bad="$bad hold: --threads 2 or 7 print other records;"
	[ "${hrss2:-999999}" -lt 40000 ] && [ "${hrss7:-999999}" -lt 40000 ] ||
		bad="$bad hold: --threads 2 and 7 took ${hrss2:-?} and ${hrss7:-?} KiB (1: ${hrss1:-?});"
	for f in json folded; do
		for n in 1 2 7 d; do
			if [ $n = d ]; then
				PERFREGS_THREADS_AFTER_MS=0 "$B/perfregs-dump" -i "$T/mal.prf" -f $f \
					--call-graph dwarf > "$T/mal.$f.$n" 2> "$T/mal.$f.$n.err"
			else
				"$B/perfregs-dump" -i "$T/mal.prf" -f $f --call-graph dwarf \
					--threads $n > "$T/mal.$f.$n" 2> "$T/mal.$f.$n.err"
			fi
			echo $? > "$T/mal.$f.$n.rc"
			[ $n = 1 ] && continue
			cmp -s "$T/mal.$f.1" "$T/mal.$f.$n" || bad="$bad -f $f --threads $n: other output;"
			cmp -s "$T/mal.$f.1.err" "$T/mal.$f.$n.err" ||
				bad="$bad -f $f --threads $n: $(head -c 300 "$T/mal.$f.$n.err");"
			cmp -s "$T/mal.$f.1.rc" "$T/mal.$f.$n.rc" ||
				bad="$bad -f $f --threads $n: exit $(cat "$T/mal.$f.$n.rc");"
		done
	done
	[ "$(cat "$T/mal.json.1.rc")" = 4 ] || bad="$bad exit $(cat "$T/mal.json.1.rc"), not 4;"
	grep -q "malformed recording at offset $at: malformed kernel record;" "$T/mal.json.1.err" ||
		bad="$bad no error at offset $at: $(head -c 300 "$T/mal.json.1.err");"
	sum='"samples":29990,"produced":0,"malformed":1,"lost":{"full":0,'
	grep -q "$sum.*\"sideband_lost\":0}" "$T/mal.json.1" ||
		bad="$bad one thread's summary: $(tail -n1 "$T/mal.json.1");"
	[ "$(grep -c '"type":"sample"' "$T/mal.json.1")" = 29990 ] ||
		bad="$bad $(grep -c '"type":"sample"' "$T/mal.json.1") samples printed, not 29990;"
	for n in 1 2; do
		"$B/perfregs-dump" -q -i "$T/malok.prf" -f json --threads $n | tail -n1 |
			grep -q '"samples":30000,"produced":30000,"malformed":0,"lost":{"full":5,.*"sideband_lost":7}' ||
			bad="$bad the control, --threads $n, did not count the losses;"
	done
	rm -f "$T"/mal*
	if [ -z "$bad" ]; then
		echo "ok - $what (offset $at, exit 4); 3000 records a window each: ${hrss1} KiB with 1 thread, ${hrss2} with 2, ${hrss7} with 7"
	else
		echo "not ok - $what:$bad"
	fi
else
	echo "not ok - $what (no mkbig)"
fi

# --threads and a sample at the limit of the windows the batches hold:
# a record that lands in a new window past held_max (8 MiB for two
# threads, 32 windows of 256 KiB: prfcorrupt spread puts each record in
# one) made the reading thread wait for every batch, which forgot the
# time of the samples handed out (pool_upto()), the record's own
# included, as pool_record() had counted it before the wait.  The late
# exec and mapping of its task after it (mkbig SB) were then applied
# without waiting, and the worker named the sample by the new mapping's
# path, which one thread does not: with 33 records a group, 26 frames
# differed.  Groups of 31 to 35, so the limit moving by a window or two
# is still met.
what="a sample at the windows' limit, then a late mapping of its task: --threads 2 and 7 print what 1 prints"
if [ -x "$B/mkbig" ] && [ -x "$B/big_target" ]; then
	bad=""
	bmain=0x$(nm "$B/big_target" | sed -n 's/ T main$//p')
	for g in 31 32 33 34 35; do
		"$B/mkbig" "$T/lim0.prf" $((g * 12)) "$(realpath "$B")/big_target" "$bmain" 160 1 1 1 $g &&
			python3 tests/prfcorrupt.py "$T/lim0.prf" "$T/lim.prf" -1 spread >/dev/null ||
			{ bad="$bad mkbig or prfcorrupt failed for $g;"; continue; }
		for n in 1 2 7; do
			"$B/perfregs-dump" -q -i "$T/lim.prf" -f text --call-graph dwarf --threads $n \
				> "$T/lim.$n" 2>&1 || bad="$bad groups of $g: --threads $n failed;"
		done
		grep -q 'main+0xa (.*/\./big_target)' "$T/lim.1" ||
			bad="$bad groups of $g: the late mapping's name is never printed;"
		for n in 2 7; do
			cmp -s "$T/lim.1" "$T/lim.$n" ||
				bad="$bad groups of $g: --threads $n printed $(diff "$T/lim.1" "$T/lim.$n" | grep -c '^>') other lines;"
		done
	done
	rm -f "$T"/lim*
	if [ -z "$bad" ]; then
		echo "ok - $what (groups of 31 to 35 records, each in a window of its own)"
	else
		echo "not ok - $what:$bad"
	fi
else
	echo "not ok - $what (no mkbig)"
fi

# --threads and a vDSO image item after the [vdso] mapping's event
# (mklatevdso; a merged or hand-made recording): a new version of the
# space made at t=400 copied the [vdso] mapping as resolved to no file
# (its first sample, t=300, printed before the image came) with one
# thread, and unresolved with two (that sample not yet printed by a
# worker), so the sample at t=500, after the image, was named with two
# threads only.  Now a copy asks again: named, with 1, 2 and 4.
what="a vDSO image after its mapping's event: --threads 2 and 4 print what 1 prints, the later sample named"
if "$B/mklatevdso" "$T/late.prf"; then
	bad=""
	for f in json folded; do
		"$B/perfregs-dump" -q -f $f --threads 1 -i "$T/late.prf" > "$T/late.1" 2>&1
		for n in 2 4; do
			"$B/perfregs-dump" -q -f $f --threads $n -i "$T/late.prf" > "$T/late.$n" 2>&1
			cmp -s "$T/late.1" "$T/late.$n" || bad="$bad -f $f: --threads $n differs;"
		done
	done
	"$B/perfregs-dump" -q -f json --threads 1 -i "$T/late.prf" |
		grep -q '"time":500,.*"sym":"__vdso_clock_gettime+0x0"' ||
		bad="$bad the sample after the image is not named __vdso_clock_gettime+0x0;"
	if [ -z "$bad" ]; then
		echo "ok - $what"
	else
		echo "not ok - $what:$bad"
	fi
else
	echo "not ok - $what: mklatevdso failed"
fi

# --threads: an exec read late, after every sample handed out, that
# adopts children forked before it (their forks read first) rebuilds
# them, and may give one up: an unknown space for all times
# (space_give_up()).  It waits for the workers, so they print C2's
# samples as one thread does, through main.  Without the wait, 32 to 800
# of 20000 samples printed [unknown] in each run (helper's review,
# 2026-12-03).  With 10 more versions in the budget, one thread gives C2
# up before its samples: the recording stands at the budget's edge.
if [ -x "$B/mkadopt" ] && [ -x "$B/big_target" ]; then
	bad=""
	bmain=0x$(nm "$B/big_target" | sed -n 's/ T main$//p')
	bexe=$(realpath "$B")/big_target
	"$B/mkadopt" "$T/adopt.prf" "$bexe" "$bmain" 20000 940 || bad="$bad mkadopt failed;"
	"$B/mkadopt" "$T/adopt_over.prf" "$bexe" "$bmain" 2000 950 || bad="$bad mkadopt failed;"
	"$B/perfregs-dump" -q -i "$T/adopt.prf" -f folded --call-graph dwarf --threads 1 \
		> "$T/adopt.1" || bad="$bad --threads 1 failed;"
	[ "$(grep -c '^c2;main;big_f0' "$T/adopt.1")" = 8 ] && ! grep -q unknown "$T/adopt.1" ||
		bad="$bad one thread: $(head -c 300 "$T/adopt.1");"
	grep -q unknown <("$B/perfregs-dump" -q -i "$T/adopt_over.prf" -f folded \
		--call-graph dwarf --threads 1) || bad="$bad 10 more versions: C2 not given up (the budget moved?);"
	for i in 1 2 3 4 5; do
		"$B/perfregs-dump" -q -i "$T/adopt.prf" -f folded --call-graph dwarf --threads 2 \
			> "$T/adopt.2" || bad="$bad --threads 2 failed;"
		cmp -s "$T/adopt.1" "$T/adopt.2" ||
			{ bad="$bad run $i of --threads 2: $(grep -c unknown "$T/adopt.2") unknown stacks;"; break; }
	done
	rm -f "$T"/adopt*
	if [ -z "$bad" ]; then
		echo "ok - --threads: a late exec adopting children, at the budget's edge, waits for the workers: 5 runs print what one thread prints"
	else
		echo "not ok - --threads: a late exec adopting children:$bad"
	fi
else
	echo "not ok - --threads: a late exec adopting children (no mkadopt)"
fi

# Out of memory, where only that goes there (tests/failalloc.c, an
# LD_PRELOAD library that fails one allocation; not with a sanitizer's
# allocator).  The sizes of the structs it fails, from the sources.
sizeof_in() {	# FILE STRUCT: sizeof(struct STRUCT) of tools/perfregs-dump/FILE.c
	printf '#include "%s/tools/perfregs-dump/%s.c"\nchar probe[sizeof(struct %s)];\n' \
		"$PWD" "$1" "$2" | cc -x c -c -I include/uapi -I "$B/proto" -o "$T/probe.o" - &&
		echo $((0x$(nm -S "$T/probe.o" | awk '$4 == "probe" { print $2 }')))
}
what="out of memory"
if [ ! -e "$B/failalloc.so" ]; then
	echo "not ok - $what: no failalloc.so"
elif nm "$B/perfregs-dump" | grep -q -E ' __(tsan|asan)_init$'; then
	echo "ok - $what # SKIP a sanitizer build: its own allocator"
else
	bad=""
	fail() {	# WHAT PERFREGS-DUMP-ARGS...: with PERFREGS_FAIL=WHAT
		PERFREGS_FAIL=$1 LD_PRELOAD=$B/failalloc.so "$B/perfregs-dump" "${@:2}"
	}
	# -f folded with --threads: each thread hands over a cell of its own
	# table a sample, and the reading thread counts them in order.  (a) a
	# batch's buffer for them without memory: the batch is not counted
	# (it was, and with the lines of its stacks cut, run on into stacks
	# of no sample), and the loss said (exit 5); (b) a cell without
	# memory: that one sample is missing, said so (exit 0, as with one
	# thread), the rest counted
	lname=$(printf 'x%.0s' $(seq 240))
	sed "s/big_f/big_f_${lname}_/g" tests/big_target.S > "$T/oom_long.S"
	if cc -no-pie -o "$T/oom_long" "$T/oom_long.S" &&
	   "$B/mkbig" "$T/oom_long.prf" 20000 "$(realpath "$T")/oom_long" \
		0x"$(nm "$T/oom_long" | sed -n 's/ T main$//p')" 160; then
		"$B/perfregs-dump" -q -f folded --call-graph dwarf --threads 1 -i "$T/oom_long.prf" \
			> "$T/oom_long.1"
		fail realloc:131072:new -q -f folded --call-graph dwarf --threads 2 \
			-i "$T/oom_long.prf" > "$T/oom_long.2" 2> "$T/oom_long.err"
		rc=$?
		fail aligned_alloc:worker -q -f folded --call-graph dwarf --threads 2 \
			-i "$T/oom_long.prf" > "$T/oom_long.3" 2> "$T/oom_long.err3"
		rc3=$?
		read -r extra short extra3 short3 < <(/usr/bin/python3 - "$T"/oom_long.[123] <<'PY'
import sys
def stacks(path):
    d = {}
    for l in open(path, errors="replace").read().splitlines():
        s, _, n = l.rpartition(" ")
        d[s] = int(n)
    return d
one, cut, cell = (stacks(p) for p in sys.argv[1:])
# a stack of no sample, or more of one than one thread counts, is "extra"
def extra(d):
    return sum(1 for s, n in d.items() if n > one.get(s, 0))
lost = sum(one.values()) - sum(cut.values())
# the batch, not all of them: the others were counted
print(extra(cut), lost if 0 < lost < sum(one.values()) // 2 else -lost,
      extra(cell), sum(one.values()) - sum(cell.values()))
PY
)
		[ $rc = 5 ] && [ "$extra" = 0 ] && [ "$short" -gt 0 ] &&
			grep -q 'output of the decoding threads lost' "$T/oom_long.err" ||
			bad="$bad a batch's output cut: exit $rc, $extra stacks of no sample, $short samples fewer;"
		[ $rc3 = 0 ] && [ "$extra3" = 0 ] && [ "$short3" = 1 ] &&
			grep -q '1 samples are missing from the folded stacks' "$T/oom_long.err3" ||
			bad="$bad a stack's cell: exit $rc3, $extra3 stacks of no sample, $short3 samples fewer;"
	else
		bad="$bad no long-named mkbig recording;"
	fi
	# the fast path without memory for CFI rows: it took "no row" for
	# "no row there" and stepped by frame pointers; now libdwfl has
	# those samples, and the frames are libdwfl's (mkunwind: xz's and
	# the chain's made-up stacks; 1752 of 4000 samples differed)
	xz=""
	for l in $(ldd /usr/bin/xz 2>/dev/null | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
		xz="$xz:$(readlink -f "$l")"
	done
	# shellcheck disable=SC2086
	if [ -n "$xz" ] && row=$(sizeof_in unwind cfi_row) &&
	   cc -O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables \
		-o "$T/oom_chain" selftests/chain.c 2>/dev/null &&
	   "$B/mkunwind" "$T/oom_unw.prf" 1 4000 64:/usr/bin/xz$xz 64:"$T/oom_chain"; then
		fail "calloc:1024:$row" -q -f json --call-graph dwarf --threads 1 \
			-i "$T/oom_unw.prf" > "$T/oom_unw.fast"
		PERFREGS_UNWIND=dwfl "$B/perfregs-dump" -q -f json --call-graph dwarf --threads 1 \
			-i "$T/oom_unw.prf" > "$T/oom_unw.dwfl"
		cmp -s "$T/oom_unw.fast" "$T/oom_unw.dwfl" ||
			bad="$bad no CFI rows: $(diff "$T/oom_unw.fast" "$T/oom_unw.dwfl" | grep -c '^<') samples not libdwfl's;"
	else
		bad="$bad no mkunwind recording, or no size of struct cfi_row;"
	fi
	# pool_start() without memory for the batches: pool_free() freed
	# as many as there were to be, of none (SIGSEGV); now the one
	# thread prints them
	"$B/mkhostile" "$T/oom.prf" -k target -O 20
	"$B/perfregs-dump" -q -f json --threads 1 -i "$T/oom.prf" > "$T/oom.1"
	if batch=$(sizeof_in pool batch); then
		fail "calloc:5:$batch" -q -f json --threads 2 -i "$T/oom.prf" > "$T/oom.2"
		rc=$?
		[ $rc = 0 ] && cmp -s "$T/oom.1" "$T/oom.2" || bad="$bad no batches: exit $rc;"
	else
		bad="$bad no size of struct batch;"
	fi
	# a kernel symbol without memory for its name: it was kept, with
	# none (SIGSEGV when a sample named it); now it is not kept
	"$B/mkhostile" "$T/oom_ks.prf" -k target
	for n in 1 2; do
		out=$(fail strdup:target -q -f json --threads $n -i "$T/oom_ks.prf")
		rc=$?
		[ $rc = 0 ] && [ "$(printf '%s\n' "$out" | grep -c '"type":"sample"')" = 2 ] &&
			! printf '%s\n' "$out" | grep -q '"sym":"target' ||
			bad="$bad no name for a kernel symbol, --threads $n: exit $rc;"
	done
	rm -f "$T"/oom*
	if [ -z "$bad" ]; then
		echo "ok - $what for a batch's output, CFI rows, the batches and a kernel symbol's name, each handled"
	else
		echo "not ok - $what:$bad"
	fi
fi

# --threads takes a number from 1 to 256, and nothing else
bad=""
for v in 0 -1 abc 257 99999999999999999999 "" 2x; do
	out=$("$B/perfregs-dump" -q -i /nonexistent --threads "$v" 2>&1 >/dev/null)
	rc=$?
	if [ $rc != 1 ] || ! printf '%s' "$out" | grep -q -- "--threads wants a number of threads from 1 to 256, not '$v'"; then
		bad="$bad '$v': exit $rc, '$out';"
	fi
done
if [ -z "$bad" ]; then
	echo "ok - --threads 0, -1, abc, 257, huge, empty and 2x: exit 1, what it wants"
else
	echo "not ok - --threads refuses bad values:$bad"
fi

# a text mapping split by mprotect(): the piece after the split starts
# inside its segment (lld: the code a page past its file offset)
if [ -x "$B/mkorder" ] && printf '%s\n' \
	'__attribute__((noinline)) int innocent_bystander(int x) { return x * 3 + 1; }' \
	'__attribute__((noinline, aligned(4096))) int target_function(int x)' \
	'{ for (int i = 0; i < 1000; i++) x = innocent_bystander(x) ^ i; return x; }' \
	'int main(int argc, char **argv) { return target_function(argc) == 42; }' > "$T/split.c" &&
   clang -O1 -fPIE -pie -fuse-ld=lld -o "$T/split" "$T/split.c" 2>/dev/null; then
	read -r soff svaddr < <(readelf -lW "$T/split" | awk '$1 == "LOAD" && / R E / { print $2, $3; exit }')
	starget=0x$(nm "$T/split" | awk '$3 == "target_function" { print $1 }')
	sbase=0x555555554000
	spiece=$(( starget & ~4095 ))
	spgoff=$(( (soff & ~4095) + spiece - (svaddr & ~4095) ))
	ssym=$("$B/mkorder" "$T/split.prf" "$T/split" $(( sbase + starget )) \
		$(( sbase + spiece )) $(( sbase + spiece + 4096 )) $spgoff &&
		"$B/perfregs-dump" -q -f json -i "$T/split.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))')
	if [ "$ssym" = "target_function+0x0" ]; then
		echo "ok - the second piece of a text mapping split by mprotect() (lld) is named at its own address"
	else
		echo "not ok - the second piece of a split text mapping (lld): got '$ssym' (want target_function+0x0)"
	fi
fi

# every address-space version's unwinder holds a file per module: 300
# versions of up to 8 files must not run the decoder out of descriptors
if [ -x "$B/mkversions" ]; then
	vargs=()
	for lib in $(ldd "$B/perfregs-dump" | awk '$3 ~ /^\// { print $3 }' | head -8); do
		voff=$(nm -D --defined-only "$lib" 2>/dev/null | awk '$2 == "T" { print "0x" $1; exit }')
		[ -n "$voff" ] && vargs+=("$(readlink -f "$lib")" "$voff")
	done
	if [ ${#vargs[@]} -ge 8 ] && "$B/mkversions" "$T/versions.prf" 300 "${vargs[@]}"; then
		vnamed=$(ulimit -n 128; "$B/perfregs-dump" -q -f json --call-graph dwarf \
			-i "$T/versions.prf" 2>/dev/null | /usr/bin/python3 -c 'import json, sys
print(sum(1 for r in map(json.loads, sys.stdin) if r.get("type") == "sample"
          and (r.get("callchain") or [{}])[0].get("sym")))')
		if [ "$vnamed" = 300 ]; then
			echo "ok - 300 address-space versions unwound under ulimit -n 128: every sample named"
		else
			echo "not ok - 300 address-space versions under ulimit -n 128: ${vnamed:-no} samples of 300 named"
		fi
		# each thread's unwinders their share of the files, and no more
		# threads than have one: 16 asked for print what 1 prints
		vone=$(ulimit -n 128; "$B/perfregs-dump" -q -f json --call-graph dwarf --threads 1 \
			-i "$T/versions.prf" 2>/dev/null | md5sum)
		vmany=$(ulimit -n 128; "$B/perfregs-dump" -q -f json --call-graph dwarf --threads 16 \
			-i "$T/versions.prf" 2>/dev/null | md5sum)
		if [ "$vone" = "$vmany" ]; then
			echo "ok - 300 address-space versions under ulimit -n 128: --threads 16 prints what 1 prints"
		else
			echo "not ok - 300 address-space versions under ulimit -n 128: --threads 16 prints other frames than 1"
		fi
	else
		echo "not ok - 300 address-space versions: no recording (libraries: ${vargs[*]})"
	fi
fi

# A process of 24 libraries, more than a thread's share of the files
# (16 under ulimit -n 160: 80 for the unwinders, 4 threads and the
# shared ones): each of 4 threads built an unwinder of all 24, 96 files
# besides the symbols' 3 per file (the file, and a socketpair of libdw's
# debuginfod client), and past the limit some samples lost frames, other
# ones each run.  They must print what 1 thread prints, and that what it
# prints with no limit.
if [ -x "$B/mkunwind" ]; then
	mlibs="" nl=0
	mdir=$(dirname "$(ldd "$B/perfregs-dump" | awk '$1 ~ /^libc\.so/ { print $3 }')")
	for f in $(ls "$mdir"/lib*.so.* 2>/dev/null | sort); do
		[ -L "$f" ] && continue
		readelf -h "$f" 2>/dev/null | grep -q 'DYN' || continue
		mlibs="$mlibs:$f"
		nl=$((nl + 1))
		[ $nl = 24 ] && break
	done
	if [ $nl = 24 ] && "$B/mkunwind" "$T/many.prf" 1 2000 "64$mlibs"; then
		mfree=$("$B/perfregs-dump" -q -f json --call-graph dwarf --threads 1 -i "$T/many.prf" |
			md5sum)
		mone=$(ulimit -n 160; "$B/perfregs-dump" -q -f json --call-graph dwarf --threads 1 \
			-i "$T/many.prf" 2>/dev/null | md5sum)
		bad=""
		for i in 1 2 3; do
			mfour=$(ulimit -n 160; "$B/perfregs-dump" -q -f json --call-graph dwarf \
				--threads 4 -i "$T/many.prf" 2>/dev/null | md5sum)
			[ "$mfour" = "$mone" ] || bad="$bad run $i: --threads 4 differs from 1;"
		done
		[ "$mone" = "$mfree" ] || bad="$bad --threads 1 under ulimit -n 160 differs from no limit;"
		mthr=$(ulimit -n 160; "$B/perfregs-dump" -v -q -f json --threads 4 -i "$T/many.prf" \
			2>&1 >/dev/null | sed -n 's/^perfregs-dump: \([0-9]*\) threads print.*/\1/p')
		[ "$mthr" = 4 ] || bad="$bad ${mthr:-no} threads started, not 4;"
		if [ -z "$bad" ]; then
			echo "ok - a process of 24 libraries under ulimit -n 160: --threads 4 prints what 1 prints, with no limit too"
		else
			echo "not ok - a process of 24 libraries under ulimit -n 160:$bad"
		fi
		rm -f "$T/many.prf"
	else
		echo "not ok - a process of 24 libraries: no recording (${nl} libraries in ${mdir})"
	fi
fi

# an i386 process's vDSO as -p starts from it (/proc): read from the
# process and named by its own symbols, not the 64-bit tool's
if ! m32_part "an i386 process's vDSO, from /proc at the start"; then
	:
elif [ -x "$B/mkseed" ] && cc -m32 -O1 -o "$T/vdso32" tests/vdso_target.c 2>/dev/null; then
	mkfifo "$T/v32in"
	"$T/vdso32" __vdso_time < "$T/v32in" > "$T/v32out" &
	v32p=$!
	exec 8> "$T/v32in"
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/v32out" ] && break; sleep 0.1; done
	v32sym=$("$B/mkseed" "$T/vdso32.prf" "$v32p" "$(head -1 "$T/v32out")" 2>&1)
	exec 8>&-
	wait $v32p
	v32rec=$("$B/perfregs-dump" -q -f json -i "$T/vdso32.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))')
	if [ "$v32sym" = "__vdso_time+0x0" ] && [ "$v32rec" = "__vdso_time+0x0" ]; then
		echo "ok - an i386 process's vDSO, from /proc at the start, named live and from the recording"
	else
		echo "not ok - an i386 process's vDSO from /proc: live '$v32sym', recording '$v32rec' (want __vdso_time+0x0)"
	fi
else
	echo "ok - an i386 process's vDSO # SKIP no -m32 compiler"
fi

# a program deleted while it runs (upgraded, say): the live decoder
# opens it through /proc/PID/map_files; a recording finds it again
# under its old name only if the build-id says it is the same file
if [ -x "$B/mkseed" ] && cc -O1 -g -fPIE -pie -o "$T/victim" tests/bias_target.c 2>/dev/null &&
   cc -O1 -g -fPIE -pie -DVICTIM2 -o "$T/victim2" tests/bias_target.c -Wl,--build-id=sha1 \
	-Wl,-z,norelro 2>/dev/null; then
	mkfifo "$T/vin"
	cp "$T/victim" "$T/victim.keep"
	"$T/victim" < "$T/vin" > "$T/vout" &
	vp=$!
	exec 8> "$T/vin"
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/vout" ] && break; sleep 0.1; done
	vaddr=$(head -1 "$T/vout")
	rm -f "$T/victim"
	live=$("$B/mkseed" "$T/victim.prf" "$vp" "$vaddr" 2>&1)
	exec 8>&-
	wait $vp
	vsym() {
		"$B/perfregs-dump" -q -f json -i "$T/victim.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))'
	}
	gone=$(vsym)
	cp "$T/victim.keep" "$T/victim"
	back=$(vsym)
	cp "$T/victim2" "$T/victim"
	other=$(vsym)
	if [ "$live" = "target_function+0x0" ] && [ "$gone" = none ] &&
	   [ "$back" = "target_function+0x0" ] && [ "$other" = none ]; then
		echo "ok - a deleted program: named live through map_files, and from a recording by its build-id only"
	else
		echo "not ok - a deleted program: live '$live' (want target_function+0x0), recording with the file gone '$gone' (want none), back '$back' (want target_function+0x0), another file there '$other' (want none)"
	fi
fi

# one deleted file mapped by many processes (every process after an
# upgrade of libc) is held open once: 70 processes of a deleted program,
# started from one decoder as -a would meet them, are each named (with
# a slot per mapping, the 64 slots ran out and the last 6 were not)
if [ -x "$B/mkseed" ] && [ -x "$T/victim.keep" ]; then
	cp "$T/victim.keep" "$T/many"
	mkfifo "$T/manyin"
	pairs=()
	pids=()
	for i in $(seq 70); do
		"$T/many" < "$T/manyin" > "$T/many.$i" &
		pids+=($!)
	done
	exec 8> "$T/manyin"
	for i in $(seq 70); do
		for _ in $(seq 50); do [ -s "$T/many.$i" ] && break; sleep 0.1; done
		pairs+=("${pids[$((i - 1))]}" "$(head -1 "$T/many.$i")")
	done
	rm -f "$T/many"
	named=$("$B/mkseed" "$T/many.prf" "${pairs[@]}" 2>&1 | grep -c '^target_function+0x0$')
	exec 8>&-
	wait "${pids[@]}"
	if [ "$named" = 70 ]; then
		echo "ok - one deleted program run 70 times: every process named through one held file"
	else
		echo "not ok - one deleted program run 70 times: $named of 70 processes named"
	fi
else
	echo "not ok - one deleted program run 70 times (no mkseed or victim)"
fi

# a process that maps 64 deleted files of its own first holds only 8 of
# the slots: the deleted program of another process is still named
if [ -x "$B/mkseed" ] && [ -x "$T/victim.keep" ]; then
	mkdir -p "$T/hog"
	/usr/bin/python3 -c 'import mmap, os, sys
d = sys.argv[1]
maps = []
for i in range(64):
    p = "%s/f%d" % (d, i)
    with open(p, "wb") as f:
        f.write(b"\x7fELF" + bytes(4092))
    fd = os.open(p, os.O_RDONLY)
    maps.append(mmap.mmap(fd, 4096, prot=mmap.PROT_READ | mmap.PROT_EXEC, flags=mmap.MAP_PRIVATE))
    os.close(fd)
    os.unlink(p)
print("ready", flush=True)
sys.stdin.read()' "$T/hog" < "$T/manyin" > "$T/hog.out" &
	hp=$!
	cp "$T/victim.keep" "$T/lone"
	"$T/lone" < "$T/manyin" > "$T/lone.out" &
	lp=$!
	exec 8> "$T/manyin"
	for _ in $(seq 50); do [ -s "$T/hog.out" ] && [ -s "$T/lone.out" ] && break; sleep 0.1; done
	rm -f "$T/lone"
	lone=$("$B/mkseed" "$T/hog.prf" "$hp" 0 "$lp" "$(head -1 "$T/lone.out")" 2>&1 | tail -1)
	exec 8>&-
	wait $hp $lp
	if [ "$(head -1 "$T/hog.out")" = ready ] && [ "$lone" = target_function+0x0 ]; then
		echo "ok - a process mapping 64 deleted files leaves slots for another's deleted program"
	else
		echo "not ok - a process mapping 64 deleted files leaves slots for another's deleted program: '$lone', the hog said '$(head -1 "$T/hog.out")'"
	fi
else
	echo "not ok - a process mapping 64 deleted files leaves slots for another's deleted program (no mkseed or victim)"
fi

# a stripped program gets names from its debug file, found by build-id
# where -dbgsym packages put it (here under --symfs); a FIFO beside it
# named like a debug file is never opened (libdw's own search did)
if cc -O1 -g -fPIE -pie -o "$T/sprog" tests/bias_target.c 2>/dev/null &&
   bid=$(readelf -n "$T/sprog" | awk '/Build ID/ { print $3 }') && [ -n "$bid" ]; then
	dbg="$T/root/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug"
	mkdir -p "$(dirname "$dbg")" "$T/root$T"
	objcopy --only-keep-debug "$T/sprog" "$dbg"
	strip -s "$T/sprog"
	cp "$T/sprog" "$T/root$T/sprog"
	mkfifo "$T/sprog.debug" "$T/root$T/sprog.debug"
	mkfifo "$T/sin"
	"$T/sprog" < "$T/sin" > "$T/sout" &
	sp=$!
	exec 8> "$T/sin"
	for _ in 1 2 3 4 5 6 7 8 9 10; do [ -s "$T/sout" ] && break; sleep 0.1; done
	saddr=$(head -1 "$T/sout")
	"$B/mkmaps" "$T/sprog.prf" "$sp" "$saddr" 1 >/dev/null
	exec 8>&-
	wait $sp
	ssym() {
		timeout 10 "$B/perfregs-dump" -q -f json "$@" -i "$T/sprog.prf" |
			/usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))'
	}
	plain=$(ssym)
	with=$(ssym --symfs "$T/root")
	if [ "$plain" = none ] && [ "$with" = "target_function+0x0" ]; then
		echo "ok - a stripped program is named from its debug file by build-id, and no FIFO beside it is opened"
	else
		echo "not ok - a stripped program: without its debug file '$plain' (want none), with it under --symfs '$with' (want target_function+0x0; empty: hung)"
	fi
fi

# the learner's pread() ELF reader against libelf, on every library and
# program here and the 32-bit, x32 and 64-bit workloads
if [ -x "$B/elfpeek" ]; then
	if out=$("$B/elfpeek" /usr/lib/x86_64-linux-gnu/*.so* /usr/bin/* \
			"$B"/selftests/* "$B/perfregs-dump" 2>&1); then
		echo "ok - ELF header and build-id read without libelf agree with libelf"
	else
		echo "not ok - ELF header and build-id read without libelf agree with libelf"
	fi
	printf '%s\n' "$out" | tail -5
	if out=$("$B/elfpeek" --maps /proc/[0-9]*/maps 2>&1); then
		echo "ok - /proc/PID/maps lines parsed by hand as sscanf() parses them"
	else
		echo "not ok - /proc/PID/maps lines parsed by hand as sscanf() parses them"
	fi
	printf '%s\n' "$out" | tail -5
	# a static non-PIE image's mappings, known from its file, as the
	# kernel maps them (64- and 32-bit; x32 does not run on the host)
	out=""
	ok=1
	for w in magic_64 magic_32 chain_64; do
		[ "$w" = magic_32 ] && ! m32_part "a static i386 image's executable mappings" &&
			continue
		one=$("$B/elfpeek" --exec-maps "$B/selftests/$w" 1 2>&1) || ok=0
		out="$out$(printf '%s\n' "$one" | grep '^#')
"
	done
	# more executable segments than elf_facts keeps, then the build-id
	# note: the build-id must still be found, and the file not fixed
	python3 - "$T/sixexec" <<'PY'
import struct, sys
ph = [struct.pack("<IIQQQQQQ", 1, 5, 0, 0x400000 + i * 0x1000, 0, 0x10, 0x10, 0x1000)
      for i in range(6)]
desc = bytes(range(20))
note = struct.pack("<III", 4, 20, 3) + b"GNU\0" + desc
phoff, nph = 64, 7
noff = phoff + nph * 56
ph.append(struct.pack("<IIQQQQQQ", 4, 4, noff, 0, 0, len(note), len(note), 4))
eh = (b"\x7fELF\x02\x01\x01" + bytes(9) +
      struct.pack("<HHIQQQIHHHHHH", 2, 62, 1, 0x400000, phoff, 0, 0, 64, 56, nph, 64, 0, 0))
open(sys.argv[1], "wb").write(eh + b"".join(ph) + note)
PY
	if [ $ok = 1 ]; then
		echo "ok - a static image's executable mappings read from its file match /proc/PID/maps"
	else
		echo "not ok - a static image's executable mappings read from its file match /proc/PID/maps"
	fi
	printf '%s' "$out"
	if out=$("$B/elfpeek" --must-peek "$T/sixexec" 2>&1); then
		echo "ok - a build-id after more executable segments than kept is still found"
	else
		echo "not ok - a build-id after more executable segments than kept is still found"
	fi
	printf '%s\n' "$out"
else
	echo "not ok - ELF header and build-id read without libelf (no $B/elfpeek)"
fi

if [ -x "$B/fuzz_recording" ]; then
	mkdir -p "$T/corpus"
	cp "$T/syn.prf" "$T/corpus/"
	"$B/mkrec" "$T/corpus/small.prf" 1
	# SIMD sections of every mix and ABI, and a malformed one
	"$B/mksimd" "$T/corpus/simd.prf"
	"$B/mksimd" "$T/corpus/simd_bad.prf" mismatch
	# side-band events, a vDSO image, events out of order, a deleted file
	for f in sb order victim; do
		[ -s "$T/$f.prf" ] && cp "$T/$f.prf" "$T/corpus/"
	done
	# made-up stacks over this machine's vDSO, the image in the recording:
	# what the harness unwinds (its --symfs lets no other file in)
	"$B/mkunwind" "$T/corpus/unwind.prf" 1 16 64:vdso
	# UBSan goes on after a report: the log has it
	if "$B/fuzz_recording" -max_total_time="$SECS" -timeout=10 -rss_limit_mb=1024 \
		-print_final_stats=1 "$T/corpus" > "$T/fuzz.log" 2>&1 &&
	   ! grep -q 'runtime error:' "$T/fuzz.log"; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$T/fuzz.log")
		echo "ok - recording reader fuzzed for $SECS s: ${runs:-?} inputs, no crash, no undefined behaviour"
	else
		echo "not ok - recording reader fuzz run found a problem"
		grep -E 'ERROR|SUMMARY|runtime error|==[0-9]+==' "$T/fuzz.log" | head -20 | sed 's/^/# /'
	fi
else
	echo "ok - recording reader fuzz run # SKIP no clang/libFuzzer (make deps installs them)"
fi

# The unwinder's fast path (unwind.c: CFI rows read once per file and
# address) gives the frames libdwfl gives, sample for sample: -f json
# A caller whose CFA is rbx-based, over a callee that has not saved rbx
# (tests/rbx_cfa.c; the real case is glibc's lazy binding,
# _dl_runtime_resolve_xsave calling _dl_fixup, caught at _dl_fixup+0 by
# test_dump's pre-exec samples): the psABI says rbx is callee-saved,
# libdw 0.188's x86-64 defaults say rax.  The fast path must unwind the
# snapshot to main and _start; PERFREGS_UNWIND=libdw-rules (the fast
# path without the fix) and libdwfl stop at the caller, which shows the
# test can fail.  perf (libunwind), on its own recording of the same
# program, is the reference where perf record runs.
what="a callee that has not saved rbx, under a caller whose CFA is rbx-based: unwound to main"
if cc -O1 -g -fPIE -pie -o "$T/rbx_cfa" tests/rbx_cfa.c 2>/dev/null; then
	"$T/rbx_cfa" > "$T/rbx.out" &
	rp=$!
	for _ in $(seq 50); do [ -s "$T/rbx.out" ] && break; sleep 0.1; done
	sleep 0.2	# from its printf() into the leaf
	"$B/mksnap" "$T/rbx.prf" 8192 $rp
	kill $rp
	wait $rp 2>/dev/null
	chains="" bad=""
	for u in fast libdw-rules dwfl; do	# fast: no hook, the default
		c=$(PERFREGS_UNWIND=$u "$B/perfregs-dump" -q -f json --call-graph dwarf -i "$T/rbx.prf" |
		    /usr/bin/python3 -c 'import json, sys
for r in map(json.loads, sys.stdin):
    if r["type"] == "sample":
        print(",".join(f.get("sym", "?").split("+")[0] for f in r.get("callchain", [])))')
		chains="$chains $u: '$c';"
		case "$u:$c" in
		fast:rbx_leaf,rbx_caller,main,*_start) ;;
		libdw-rules:rbx_leaf,rbx_caller | dwfl:rbx_leaf,rbx_caller) ;;
		*) bad=1 ;;
		esac
	done
	perf=""
	# (its exit status is the program's: timeout's 124)
	command -v perf > /dev/null &&
		timeout 60 perf record -q -e cpu-clock -c 1000000 --call-graph dwarf \
			-o "$T/rbx.data" -- timeout 1 "$T/rbx_cfa" > /dev/null 2>&1
	if [ -s "$T/rbx.data" ]; then
		# the most common first three frames of its samples (ip sym)
		perf=$(perf script -i "$T/rbx.data" -F comm,ip,sym 2>/dev/null |
		       awk '/^ *rbx_cfa/ { getline a; getline b; getline c;
				split(a, x); split(b, y); split(c, z);
				print x[2] "," y[2] "," z[2] }' | sort | uniq -c | sort -rn |
		       awk 'NR == 1 { print $2 }')
		chains="$chains perf: '$perf';"
		[ "$perf" = "rbx_leaf,rbx_caller,main" ] || bad=1
	fi
	if [ -z "${bad:-}" ]; then
		echo "ok - $what;$chains"
	else
		echo "not ok - $what:$chains"
	fi
else
	echo "not ok - $what: tests/rbx_cfa.c could not be built"
fi

# --call-graph dwarf against the same with PERFREGS_UNWIND=dwfl, on every
# recording made above (those with stacks: mkhostile's frame-pointer
# chains, mkversions' 300 address spaces, mkbig's), on live processes
# (mksnap: a -fomit-frame-pointer chain spinning, -m64 and -m32, a 32-bit
# loop in a 64-bit process, and PIEs of gcc and lld blocked in read() in
# libc), and on made-up stacks over real code of every layout (mkunwind,
# 3 seeds: x86-64 over xz and its libraries and over the chain, i386,
# x32, and mixed mode).  A CFA offset off by 8 on the fast path made 5
# of the 6 live samples differ and some 800 of each 4000 made-up ones;
# x32 registers not kept to 32 bits, one sample of two of the seeds.
what="the unwinder's fast path and libdwfl give the same frames"
U=$T/unw
mkdir -p "$U"
bad="" n=0 made=""
CHF="-O2 -g -fomit-frame-pointer -fasynchronous-unwind-tables"
# shellcheck disable=SC2086
if cc -m64 $CHF -o "$U/chain_64" selftests/chain.c 2>/dev/null &&
   cc -m32 $CHF -o "$U/chain_32" selftests/chain.c 2>/dev/null &&
   cc -mx32 $CHF -o "$U/chain_x32" selftests/chain.c 2>/dev/null &&
   cc -m64 -O1 -g -no-pie -o "$U/mixed_64" selftests/mixed.c 2>/dev/null &&
   cc -O1 -g -fPIE -pie -o "$U/rbx_cfa" tests/rbx_cfa.c 2>/dev/null &&
   cc -O1 -g -fPIE -pie -o "$U/read_gcc" tests/bias_target.c 2>/dev/null &&
   clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$U/read_lld" tests/bias_target.c 2>/dev/null &&
   cc -m32 -O1 -g -fPIE -pie -o "$U/read_m32" tests/bias_target.c 2>/dev/null; then
	pids=""
	spin="chain_64 chain_32 mixed_64 rbx_cfa" rd="read_gcc read_lld read_m32"
	# without IA-32 emulation, live 64-bit processes only (the made-up
	# stacks below still cover i386 and mixed mode: they run nothing)
	m32_part "$what: live i386 and mixed-mode processes" ||
		spin="chain_64 rbx_cfa" rd="read_gcc read_lld"
	for p in $spin; do
		"$U/$p" 5 > /dev/null &
		pids="$pids $!"
	done
	mkfifo "$U/in"
	exec 9<> "$U/in"	# held open: their read() waits
	for p in $rd; do
		"$U/$p" < "$U/in" > "$U/$p.out" &
		pids="$pids $!"
	done
	for i in $(seq 50); do	# each has printed: in main, about to read
		w=0
		for p in $rd; do [ -s "$U/$p.out" ] || w=1; done
		[ $w = 0 ] && break
		sleep 0.1
	done
	sleep 0.2
	# shellcheck disable=SC2086
	"$B/mksnap" "$U/live.prf" 8192 $pids || bad="$bad mksnap failed;"
	# shellcheck disable=SC2086
	kill $pids 2>/dev/null
	wait 2>/dev/null
	exec 9>&-
	xz=""
	if [ -x /usr/bin/xz ]; then
		for l in $(ldd /usr/bin/xz | awk '$3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'); do
			xz="$xz:$(readlink -f "$l")"
		done
		xz="64:/usr/bin/xz$xz"
	fi
	for seed in 1 2 3; do
		# shellcheck disable=SC2086
		"$B/mkunwind" "$U/made_$seed.prf" "$seed" 4000 $xz 64:"$U/chain_64" \
			32:"$U/chain_32" x32:"$U/chain_x32" mixed:"$U/mixed_64" ||
			bad="$bad mkunwind $seed failed;"
	done
	made=yes
fi
# The fast path with libdw's own x86-64 defaults (PERFREGS_UNWIND=
# libdw-rules) must be libdwfl's frames exactly; with the psABI's (the
# default: rbx callee-saved, where libdw 0.188 loses it) each chain must
# be the same or go on from where libdw's stopped, nothing else.
longer=0
for f in $(find "$T" -name '*.prf' -size -64M | sort); do
	"$B/perfregs-dump" -q -f json --call-graph dwarf -i "$f" > "$U/fast.json" 2>&1
	PERFREGS_UNWIND=libdw-rules "$B/perfregs-dump" -q -f json --call-graph dwarf -i "$f" \
		> "$U/rules.json" 2>&1
	PERFREGS_UNWIND=dwfl "$B/perfregs-dump" -q -f json --call-graph dwarf -i "$f" \
		> "$U/dwfl.json" 2>&1
	if ! cmp -s "$U/rules.json" "$U/dwfl.json"; then
		bad="$bad ${f#"$T"/}: $(diff "$U/rules.json" "$U/dwfl.json" | grep -c '^<') lines differ;"
	fi
	if ! cmp -s "$U/fast.json" "$U/rules.json"; then
		if l=$(/usr/bin/python3 - "$U/fast.json" "$U/rules.json" <<'PY'
import json, sys
a, b = (open(p).read().splitlines() for p in sys.argv[1:])
longer = 0
if len(a) != len(b):
    sys.exit(f"{len(a)} records, {len(b)} with libdw's rules")
for x, y in zip(a, b):
    if x == y:
        continue
    rx, ry = json.loads(x), json.loads(y)
    cx, cy = rx.pop("callchain", []), ry.pop("callchain", [])
    if rx != ry or len(cx) <= len(cy) or cx[:len(cy)] != cy:
        sys.exit(f"a record not only longer: {x[:200]}")
    longer += 1
print(longer)
PY
		   ); then
			longer=$((longer + l))
		else
			bad="$bad ${f#"$T"/}: psABI rules vs libdw's: $l;"
		fi
	fi
	n=$((n + 1))
done
if [ -z "$made" ]; then
	echo "not ok - $what: its programs could not be built"
elif [ -z "$bad" ]; then
	echo "ok - $what: $n recordings; with the psABI's rbx rule $longer chains go on further"
else
	echo "not ok - $what:$bad"
fi

if [ -x "$B/linux/scripts/checkpatch.pl" ]; then
	if out=$("$B/linux/scripts/checkpatch.pl" --no-tree -q -f module/*.c module/*.h include/uapi/linux/perfregs.h \
		include/perfregs/*.h 2>&1) &&
	   [ -z "$out" ]; then
		echo "ok - checkpatch.pl --no-tree -f module/ and the uapi header: clean"
	else
		echo "not ok - checkpatch.pl --no-tree -f module/ and the uapi header"
		printf '%s\n' "$out" | head -30 | sed 's/^/# /'
	fi
else
	echo "ok - checkpatch # SKIP checkpatch.pl not extracted (make deps)"
fi

# Without the module every selftest must say so and skip, not fail: the
# 6.1 harness runs a test body after its setup skipped unless the setup
# leaves through SETUP_SKIP().  (Only where no module is loaded.)
if [ ! -e /dev/perfregs ]; then
	bad=""
	n=0
	for t in "$B"/selftests/test_*; do
		[ -x "$t" ] && head -c 4 "$t" | grep -q ELF || continue
		out=$(timeout 60 "$t" 2>&1)
		rc=$?
		n=$((n + 1))
		if [ $rc -ne 0 ] && [ $rc -ne 4 ] || printf '%s\n' "$out" | grep -q '^not ok'; then
			bad="$bad $(basename "$t") (exit $rc, $(printf '%s\n' "$out" | grep -c '^not ok') failed)"
		fi
	done
	if [ -z "$bad" ] && [ $n -gt 0 ]; then
		echo "ok - with no module loaded, $n selftest programs skip and fail nothing"
	else
		echo "not ok - with no module loaded, selftests skip and fail nothing:${bad:- none built}"
	fi
else
	echo "ok - selftests without the module # SKIP a perfregs module is loaded here"
fi

# every barrier of the ring protocol names itself and its pair
/usr/bin/python3 tests/barriers.py . | sed 1d

# perfregs-dump's modules include each other in layers, with no circle
bash tests/layers.sh tools/perfregs-dump

# make check and make demo on a machine without the packages: the kernel
# list must come from after the install.  Fakes stand in for tools/deps.sh
# (it "installs" a kernel: a marker), tools/kvers.sh (it prints kernels
# only once the marker is there) and the scripts that would boot guests
# (they print the kernels they were given); nothing is built or booted.
M=$T/make
mkdir -p "$M"
printf '#!/bin/sh\ntouch "%s/installed"\n' "$M" > "$M/deps"
printf '#!/bin/sh\n[ -e "%s/installed" ] && echo 6.1.0-99-amd64 && echo 6.12.99+deb12-amd64 && echo 6.1.0-99-rt-amd64 && echo 6.12.99+deb12-rt-amd64\nexit 0\n' \
	"$M" > "$M/kvers"
printf '#!/bin/sh\necho "kernels given: $*"\n' > "$M/runner"
chmod +x "$M/deps" "$M/kvers" "$M/runner"
for goal in check demo; do
	rm -f "$M/installed"
	# MAKEFLAGS of a make check around us would pass its variables down
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$PWD" "$goal" \
		DEPS_SCRIPT="$M/deps" KVERS_SCRIPT="$M/kvers" CHECK_SCRIPT="$M/runner" \
		DEMO_SCRIPT="$M/runner" RUN_NEEDS= BUILD="$M/build" 2>&1)
	got=$(printf '%s\n' "$out" | sed -n 's/^kernels given: *//p')
	want=6.1.0-99-amd64
	[ "$goal" = check ] &&
		want="$want 6.12.99+deb12-amd64 6.1.0-99-rt-amd64 6.12.99+deb12-rt-amd64"
	if [ "$got" = "$want" ]; then
		echo "ok - make $goal on a fresh machine runs on the kernels it just installed"
	else
		echo "not ok - make $goal on a fresh machine runs on the kernels it just installed"
		echo "# wanted '$want', got '$got'"
		printf '%s\n' "$out" | tail -5 | sed 's/^/# /'
	fi
done

# make check RT=0: the generic kernels of the matrix only
touch "$M/installed"
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$PWD" check RT=0 \
	DEPS_SCRIPT="$M/deps" KVERS_SCRIPT="$M/kvers" CHECK_SCRIPT="$M/runner" \
	DEMO_SCRIPT="$M/runner" RUN_NEEDS= BUILD="$M/build" 2>&1)
got=$(printf '%s\n' "$out" | sed -n 's/^kernels given: *//p')
want="6.1.0-99-amd64 6.12.99+deb12-amd64"
if [ "$got" = "$want" ]; then
	echo "ok - make check RT=0 leaves the PREEMPT_RT kernels out"
else
	echo "not ok - make check RT=0 leaves the PREEMPT_RT kernels out"
	echo "# wanted '$want', got '$got'"
fi

# tools/kvers.sh on a /lib/modules with every flavour: 6.1 and 6.12 are
# the generic kernels, never the -rt or -cloud ones that sort after them
K=$T/modules
for v in 6.1.0-56-amd64 6.1.0-57-amd64 6.1.0-57-rt-amd64 6.1.0-57-cloud-amd64 \
	 6.12.117+deb12-amd64 6.12.118+deb12-amd64 6.12.118+deb12-rt-amd64 \
	 6.12.118+deb12-cloud-amd64 6.12.117+deb12-rt-amd64; do
	mkdir -p "$K/$v/build"
done
got=$(for n in "" 6.1 6.12 6.1-rt 6.12-rt; do
	PERFREGS_MODULES=$K tools/kvers.sh $n; done | tr '\n' ' ')
want="6.1.0-57-amd64 6.12.118+deb12-amd64 6.1.0-57-rt-amd64 6.12.118+deb12-rt-amd64 "
want="${want}6.1.0-57-amd64 6.12.118+deb12-amd64 6.1.0-57-rt-amd64 6.12.118+deb12-rt-amd64 "
if [ "$got" = "$want" ]; then
	echo "ok - kvers.sh picks each flavour's newest, generic for 6.1 and 6.12"
else
	echo "not ok - kvers.sh picks each flavour's newest, generic for 6.1 and 6.12"
	echo "# wanted '$want', got '$got'"
fi

# The same as a normal user with packages missing: one line naming them and
# what to run, a nonzero exit, nothing else run.  (As root, as uid 65534.)
printf '#!/bin/sh\n[ "${1:-}" = --check ] || exit 9\necho "perfregs: missing packages: fake-pkg; run %s" >&2\nexit 1\n' \
	"'make deps' as root first" > "$M/deps"
chmod 755 "$T" "$M"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
for goal in check demo; do
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${as_user[@]}" make -s -C "$PWD" "$goal" \
		DEPS_SCRIPT="$M/deps" KVERS_SCRIPT="$M/kvers" CHECK_SCRIPT="$M/runner" \
		DEMO_SCRIPT="$M/runner" RUN_NEEDS= BUILD="$M/build" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	   printf '%s' "$out" | grep -q "missing packages: fake-pkg; run 'make deps' as root first"; then
		echo "ok - make $goal as a normal user without the packages: one line, exit $rc"
	else
		echo "not ok - make $goal as a normal user without the packages: one line, nonzero exit"
		printf '%s\n' "exit $rc" "$out" | head -5 | sed 's/^/# /'
	fi
done
