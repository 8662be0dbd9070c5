# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): report's table,
# against perf report on the same samples and on known recordings; its
# options, its budget, and what it refuses.

# against perf: Debian's xz, a C++ program, an -m32 PIE, mixed mode, and
# live PIEs stopped in read() (tests/report_vs_perf.py: two lines)
if ! command -v perf > /dev/null; then
	echo "ok - report against perf report # SKIP perf is not installed (make deps)"
	echo "ok - report -g caller against perf report # SKIP perf is not installed (make deps)"
elif g++ -O1 -g -fPIE -pie -o "$T/rp_cxx" tests/cxx_target.cc 2>/dev/null &&
     cc -O1 -g -fPIE -pie -o "$T/rp_gcc" tests/bias_target.c 2>/dev/null &&
     clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/rp_lld" tests/bias_target.c 2>/dev/null; then
	rp_m32=-
	if m32_part "report against perf: the -m32 PIE" &&
	   cc -m32 -O1 -g -fPIE -pie -o "$T/rp_m32" tests/bias_target.c 2>/dev/null; then
		rp_m32=$T/rp_m32
	fi
	# shellcheck disable=SC2046
	/usr/bin/python3 tests/report_vs_perf.py "$B" /usr/bin/xz "$T/rp_cxx" "$rp_m32" \
		"$T/rp_gcc" "$T/rp_lld" $([ "$rp_m32" != - ] && echo "$rp_m32")
else
	echo "not ok - report against perf report: its programs could not be built"
fi

# known values: mkrec's four tasks of 25 samples each, one a layout (the
# i386 and the mixed-mode one both ABI i386), and a kernel sample; no
# stacks, so no children and no chains, as perf prints such a recording
bad=""
if "$B/mkrec" "$T/rp_syn.prf" 25; then
	got=$("$B/perfregs-dump" report -q -i "$T/rp_syn.prf" -s pid,abi,sym -n | grep -v '^#')
	want=$(printf '%s\n' \
		'    24.75%            25  100  x86_64  [.] 0x0000000000401064' \
		'    24.75%            25  200  i386    [.] 0x00000000004010c8' \
		'    24.75%            25  300  x32     [.] 0x000000000040112c' \
		'    24.75%            25  400  i386    [.] 0x0000000000401190' \
		'     0.99%             1  100  x86_64  [k] known_kernel_function' '')
	[ "$got" = "$want" ] || bad="$bad [-s pid,abi,sym -n: '$got']"
	head=$("$B/perfregs-dump" report -q -i "$T/rp_syn.prf" | grep '^#')
	for line in '# Total Lost Samples: 3' "# Samples: 101  of event 'cpu-clock'" \
		    '# Event count (approx.): 101000000' \
		    '# Overhead  Command  Shared Object      Symbol                   '; do
		printf '%s\n' "$head" | grep -qxF -- "$line" || bad="$bad [no '$line' in the header]"
	done
	# -s abi: the two i386 tasks are one entry
	got=$("$B/perfregs-dump" report -q -i "$T/rp_syn.prf" -s abi | grep -v '^#' | tr -s ' ')
	[ "$got" = "$(printf '%s\n' ' 49.50% i386' ' 25.74% x86_64' ' 24.75% x32' '')" ] ||
		bad="$bad [-s abi: '$got']"
	# the JSON is the text's table
	"$B/perfregs-dump" report -q -f json -i "$T/rp_syn.prf" -s pid,abi,sym > "$T/rp_syn.json"
	/usr/bin/python3 - "$T/rp_syn.json" <<'PY' || bad="$bad [-f json]"
import json, sys
t = json.load(open(sys.argv[1]))
e = t["entries"]
assert t["samples"] == 101 and t["lost"] == 3 and t["period"] == 101000000, t
assert t["children"] is False and t["sort"] == ["pid", "abi", "sym"], t
assert [(x["pid"], x["abi"], x["self_samples"]) for x in e] == \
    [(100, "x86_64", 25), (200, "i386", 25), (300, "x32", 25), (400, "i386", 25),
     (100, "x86_64", 1)], e
assert e[4]["sym"] == "[k] known_kernel_function" and e[0]["self"] == 24.75, e
PY
else
	bad="$bad [mkrec failed]"
fi
if [ -z "$bad" ]; then
	echo "ok - report of known samples: perf's header, the entries by pid, abi and sym with -n, -s abi, the same table in JSON"
else
	echo "not ok - report of known samples:$bad"
fi

# the options on a recording with chains (mkunwind over xz, its stacks
# unwound by default): -g caller as the next word, -G, --percent-limit,
# --max-stack 1, --no-call-graph, -g flat, -g none, the threshold
bad=""
if "$B/mkunwind" "$T/rp_unw.prf" 3 3000 64:/usr/bin/xz > /dev/null 2>&1; then
	r() { "$B/perfregs-dump" report -q -i "$T/rp_unw.prf" "$@" 2> "$T/rp.err"; }
	a=$(r -g caller) && b=$(r --call-graph=caller) && c=$(r -G) &&
		[ "$a" = "$b" ] && [ "$a" = "$c" ] || bad="$bad [-g caller, --call-graph=caller and -G differ]"
	[ "$(r | grep -c '^# Children      Self')" = 1 ] || bad="$bad [no children by default]"
	[ "$(r -g callee,0 | grep -c -- '--')" -gt 0 ] || bad="$bad [-g callee: no chains]"
	[ "$(r -g none | grep -c -- '---\|--[0-9]')" = 0 ] || bad="$bad [-g none printed chains]"
	got=$(r --percent-limit 5 --no-children | grep -c '^ *[0-9.]*%')
	all=$(r --no-children -g none | grep -c '^ *[0-9.]*%')
	lim=$(r --no-children -g none | awk '/^ *[0-9.]+%/ && $1 + 0 >= 5' | wc -l)
	[ "$got" = "$lim" ] && [ "$lim" -lt "$all" ] || bad="$bad [--percent-limit 5: $got, want $lim of $all]"
	r --max-stack 1 -g none | awk '/^ *[0-9.]+%/ && $1 != $2 { exit 1 }' ||
		bad="$bad [--max-stack 1: children differ from self]"
	r --no-call-graph | grep -q '^# Overhead  Command' || bad="$bad [--no-call-graph: children]"
	[ "$(r -g flat,0 | grep -c '^ *[0-9.]*%$')" -gt 0 ] || bad="$bad [-g flat]"
	[ "$(r -g graph,0 | wc -l)" -gt "$(r -g graph,5 | wc -l)" ] || bad="$bad [-g threshold]"
	r -s sym,dso,comm -g none | grep -q '^# Children      Self  Symbol  *Shared Object  Command' ||
		bad="$bad [-s sym,dso,comm: the columns in that order]"
else
	bad="$bad [mkunwind failed]"
fi
if [ -z "$bad" ]; then
	echo "ok - report's options: -g caller (the next word) = --call-graph=caller = -G, -g callee/none/flat/threshold, --percent-limit, --max-stack 1, --no-call-graph, -s order"
else
	echo "not ok - report's options:$bad"
fi

# what report refuses: one line, exit 1, nothing on stdout; a cut
# recording: the table of what came before it, exit 4
bad=""
while IFS='|' read -r args want; do
	# shellcheck disable=SC2086
	out=$("$B/perfregs-dump" report $args 2> "$T/rp.err"); rc=$?
	[ $rc = 1 ] && [ -z "$out" ] && [ "$(wc -l < "$T/rp.err")" = 1 ] &&
		grep -qF -- "$want" "$T/rp.err" || bad="$bad [report $args: exit $rc: $(head -c 200 "$T/rp.err")]"
done <<REFUSED
--call-graph=bogus -i $T/rp_syn.prf|report: --call-graph takes SPEC, not 'bogus': see perfregs-dump report --help
-g graph,nope -i $T/rp_syn.prf|it takes no COMMAND ('graph,nope')
-s comm,bogus -i $T/rp_syn.prf|--sort takes comm, pid, tid, dso, sym, abi and cpu
-s comm,comm,comm,comm,comm,comm,comm,comm -i $T/rp_syn.prf|--sort takes
--percent-limit 101 -i $T/rp_syn.prf|--percent-limit takes a percentage
--max-stack 0 -i $T/rp_syn.prf|--max-stack takes 1 to
--threads 2 -i $T/rp_syn.prf|--threads is for -f folded
-f json --flamegraph $T/rp.svg -i $T/rp_syn.prf|--flamegraph draws the stacks of -f folded
-i $T/rp_syn.prf -- true|report reads a recording, it takes no COMMAND ('true'): record one first
-p 1 -i $T/rp_syn.prf|it takes no -a, -p or -t
-F tid -i $T/rp_syn.prf|unknown option '-F'
REFUSED
head -c $(( $(stat -c %s "$T/rp_unw.prf") * 2 / 3 )) "$T/rp_unw.prf" > "$T/rp_cut.prf"
out=$("$B/perfregs-dump" report -q -i "$T/rp_cut.prf" -g none 2> "$T/rp.err"); rc=$?
[ $rc = 4 ] && printf '%s\n' "$out" | grep -q '^# Samples: [0-9]' &&
	grep -q "the table holds the records before it" "$T/rp.err" ||
	bad="$bad [a cut recording: exit $rc, $(head -c 200 "$T/rp.err")]"
if [ -z "$bad" ]; then
	echo "ok - report refuses bad -g, --sort, --percent-limit, --max-stack, --threads, -f json with --flamegraph, a COMMAND, -p, -F: one line, exit 1; a cut recording's table, exit 4"
else
	echo "not ok - report refuses bad arguments, one line, exit 1; a cut recording:$bad"
fi

# the budget (PERFREGS_REPORT_BYTES lowers it): what does not fit is
# counted in the header and on stderr, not lost silently, and the table
# holds the rest; names with controls reach no terminal (mkhostile's C1
# recording from part 02)
bad=""
PERFREGS_REPORT_BYTES=65536 "$B/perfregs-dump" report -f json -i "$T/rp_unw.prf" > "$T/rp_b.json" 2> "$T/rp_b.err"
rc=$?
/usr/bin/python3 - "$T/rp_b.json" 3000 <<'PY' || bad="$bad [JSON: $(head -c 300 "$T/rp_b.json")]"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["left_out"] > 0 and t["samples"] + t["left_out"] == int(sys.argv[2]), t
assert t["period"] == t["samples"] * 1000000, t
PY
[ $rc = 0 ] && grep -q "the table is full (docs/security.md): [1-9][0-9]* samples are left out" "$T/rp_b.err" ||
	bad="$bad [exit $rc: $(head -c 200 "$T/rp_b.err")]"
PERFREGS_REPORT_BYTES=65536 "$B/perfregs-dump" report -q -i "$T/rp_unw.prf" |
	grep -q '^# Over the table.s budget: [1-9][0-9]* samples left out' || bad="$bad [no header line]"
if [ -s "$T/c1.prf" ]; then
	"$B/perfregs-dump" report -q -i "$T/c1.prf" -s comm,dso,sym > "$T/rp_c1.txt"
	LC_ALL=C grep -q $'[\x01-\x08\x0b-\x1f\x7f\x9b]' "$T/rp_c1.txt" && bad="$bad [a control in the table]"
	grep -qF 'a?b?c€' "$T/rp_c1.txt" || bad="$bad [no comm a?b?c€: $(head -c 300 "$T/rp_c1.txt")]"
	"$B/perfregs-dump" report -q -f json -i "$T/c1.prf" | /usr/bin/python3 -c 'import json,sys; json.load(sys.stdin)' ||
		bad="$bad [JSON of the hostile names]"
fi
if [ -z "$bad" ]; then
	echo "ok - report's budget: samples past it are counted in the header, the JSON and on stderr; hostile names reach no terminal"
else
	echo "not ok - report's budget and hostile names:$bad"
fi

# A table that keys nothing by frames (-s comm, no chains) spends none
# of its budget on them: each sample's leaf was made a frame all the
# same, and 3000 distinct ones left 2313 samples out of 64 KiB
bad=""
if "$B/mkhostile" "$T/rp_kk.prf" -k kname -K 3000 -S; then
	got=$(PERFREGS_REPORT_BYTES=65536 "$B/perfregs-dump" report -q --no-children --no-call-graph \
		-s comm -f json -i "$T/rp_kk.prf" 2>/dev/null | /usr/bin/python3 -c \
		'import json, sys; t = json.load(sys.stdin); print(t["samples"], t["left_out"])')
	[ "$got" = "3002 0" ] || bad=" samples and left out: $got (want 3002 0)"
else
	bad=" mkhostile failed"
fi
if [ -z "$bad" ]; then
	echo "ok - report -s comm without chains: no budget spent on frames, 3002 distinct leaves all in"
else
	echo "not ok - report -s comm without chains spends its budget on frames:$bad"
fi

# A comm with controls is one entry, as shown: the table holds the comm
# text_safe() made, and looked it up by the raw one, so each of its
# samples was an entry of its own (4 of 25%), filling the table
bad=""
if "$B/mkhostile" "$T/rp_cm.prf" -c $'a\x9bb\x1bc' -k kname -K 2 -S; then
	"$B/perfregs-dump" report -q --sort comm -i "$T/rp_cm.prf" > "$T/rp_cm.txt" 2>&1
	got=$(grep -c '%' "$T/rp_cm.txt")
	[ "$got" = 1 ] && grep -q '^ *100.00%  a?b?c$' "$T/rp_cm.txt" ||
		bad=" $got lines: $(grep '%' "$T/rp_cm.txt" | head -4 | tr '\n' '|')"
else
	bad=" mkhostile failed"
fi
if [ -z "$bad" ]; then
	echo "ok - report: the samples of a comm with controls are one entry, shown safe"
else
	echo "not ok - report: the samples of a comm with controls are one entry:$bad"
fi

# perf's rule: a recording's stacks are unwound without -g, by script
# (text, JSON, folded, --flamegraph) and convert (perf.data, pprof), and
# --no-call-graph leaves them; -i without a subcommand keeps its old
# rule (chains only with -g).  mkunwind's stacks over this machine's
# vDSO, whose image the recording holds: several frames deep.
bad=""
if "$B/mkunwind" "$T/cg.prf" 1 16 64:vdso > /dev/null 2>&1; then
	pd="$B/perfregs-dump"
	"$pd" script -q -f json -i "$T/cg.prf" > "$T/cg_def.json"
	"$pd" -q -g -f json -i "$T/cg.prf" > "$T/cg_g.json"
	"$pd" script -q -g --no-call-graph -f json -i "$T/cg.prf" > "$T/cg_no.json"
	"$pd" -q -f json -i "$T/cg.prf" > "$T/cg_bare.json"
	cmp -s "$T/cg_def.json" "$T/cg_g.json" || bad="$bad [script's JSON is not -i -g's]"
	cmp -s <("$pd" script -q -i "$T/cg.prf") <("$pd" -q -g -i "$T/cg.prf") ||
		bad="$bad [script's text is not -i -g's]"
	cmp -s "$T/cg_no.json" "$T/cg_bare.json" || bad="$bad [--no-call-graph's JSON is not -i's]"
	deep=$(/usr/bin/python3 -c 'import json, sys
print(sum(len(json.loads(l).get("callchain", [])) > 1 for l in open(sys.argv[1])))' "$T/cg_def.json")
	[ "$deep" -gt 0 ] || bad="$bad [no chain of two frames or more in script's JSON]"
	grep -q '"callchain"' "$T/cg_no.json" && bad="$bad [a chain with --no-call-graph]"
	# folded: frames past the leaf by default, leaves only without
	fdeep=$("$pd" script -q -f folded -i "$T/cg.prf" | grep -c '^[^;]*;[^;]*;')
	fno=$("$pd" script -q -f folded --no-call-graph -i "$T/cg.prf" | grep -c '^[^;]*;[^;]*;')
	[ "$fdeep" -gt 0 ] && [ "$fno" = 0 ] || bad="$bad [folded: $fdeep deep lines, $fno with --no-call-graph]"
	"$pd" script -q --flamegraph "$T/cg_def.svg" -i "$T/cg.prf" &&
	"$pd" script -q --flamegraph "$T/cg_no.svg" --no-call-graph -i "$T/cg.prf" &&
	cmp -s "$T/cg_def.svg" "$T/cg_no.svg" && bad="$bad [the same flame graph with --no-call-graph]"
	# perf.data as perf script reads it: the deepest chain of a sample
	if command -v perf > /dev/null; then
		for how in def no; do
			"$pd" convert -q $([ $how = no ] && echo --no-call-graph) -i "$T/cg.prf" \
				-o "$T/cg_$how.data" || bad="$bad [convert $how failed]"
		done
		depth() { perf script -i "$1" -F ip 2> /dev/null |
			awk 'NF { n++; if (n > m) m = n; next } { n = 0 } END { print m + 0 }'; }
		pdef=$(depth "$T/cg_def.data") pno=$(depth "$T/cg_no.data")
		[ "$pdef" -ge 2 ] && [ "$pno" = 1 ] ||
			bad="$bad [perf script's deepest chain: $pdef by default, $pno with --no-call-graph]"
	fi
	"$pd" convert -q --to pprof -i "$T/cg.prf" -o "$T/cg_def.pb.gz" &&
	"$pd" convert -q --to pprof --no-call-graph -i "$T/cg.prf" -o "$T/cg_no.pb.gz" &&
	cmp -s "$T/cg_def.pb.gz" "$T/cg_no.pb.gz" && bad="$bad [the same pprof profile with --no-call-graph]"
else
	bad=" [mkunwind failed]"
fi
if [ -z "$bad" ]; then
	echo "ok - a recording's stacks unwound by default in script (text, JSON, folded, flame graph) and convert, as perf does: $deep chains of two frames or more; none with --no-call-graph; -i alone as before"
else
	echo "not ok - chains by default:$bad"
fi

# the filters of script, report and convert against the rule they follow
/usr/bin/python3 tests/filters_check.py "$B" "$T"

# no recording at all (empty, a header cut short, another file, perf's
# perf.data): one line that says so, exit 4, no summary, for every
# command; an error mid-recording is said before the summary; -o - and
# --flamegraph - are the standard output, as perf's -o -
bad=""
pd="$B/perfregs-dump"
"$B/mkrec" "$T/tr.prf" 25
: > "$T/tr_empty.prf"
head -c 12 "$T/tr.prf" > "$T/tr_12.prf"
head -c 100 /bin/sh > "$T/tr_elf.prf"
"$pd" convert -q -i "$T/tr.prf" -o "$T/tr_perf.data" || bad="$bad [convert]"
for f in empty:"is empty: not a perfregs recording" 12:"ends within a recording's header (12 of" \
	 elf:"is not a perfregs recording" perf.data:"is perf's perf.data, not a perfregs recording: read it with perf report"; do
	file=$T/tr_${f%%:*}; [ "${f%%:*}" = perf.data ] || file=$file.prf
	[ "${f%%:*}" = perf.data ] && file=$T/tr_perf.data
	for cmd in "script" "report" "convert -o $T/tr_no.data" ""; do
		# shellcheck disable=SC2086
		"$pd" $cmd -i "$file" > "$T/tr.out" 2> "$T/tr.err"
		rc=$?
		if [ $rc != 4 ] || [ "$(wc -l < "$T/tr.err")" != 1 ] || ! grep -qF "${f#*:}" "$T/tr.err" ||
		   [ -s "$T/tr.out" ]; then
			bad="$bad [${cmd:-(no command)} on ${f%%:*}: exit $rc, $(head -c 200 "$T/tr.err" | tr '\n' '|')]"
		fi
	done
done
head -c 3000 "$T/tr.prf" > "$T/tr_cut.prf"
"$pd" script -F pid -i "$T/tr_cut.prf" > /dev/null 2> "$T/tr.err"
{ head -1 "$T/tr.err" | grep -q "malformed recording at offset" &&
  sed -n 2p "$T/tr.err" | grep -q "samples decoded"; } ||
	bad="$bad [a cut recording: the error is not before the summary: $(tr '\n' '|' < "$T/tr.err")]"
# -o -: perf.data to a file behind the standard output, refused for a
# pipe (perf.data is written at its start again); pprof and the SVG to
# a pipe; no file named -
(cd "$T" && "$pd" convert -q -i tr.prf -o - > tr_out.data) &&
	command -v perf > /dev/null && ! perf script -i "$T/tr_out.data" -F pid 2> /dev/null | grep -q 100 &&
	bad="$bad [convert -o - > FILE: perf script reads no sample of it]"
(cd "$T" && "$pd" convert -i tr.prf -o - 2> tr.err | cat > /dev/null; [ "${PIPESTATUS[0]}" = 5 ]) &&
	grep -q "not a pipe" "$T/tr.err" || bad="$bad [convert -o - to a pipe: $(cat "$T/tr.err")]"
(cd "$T" && "$pd" convert -q --to pprof -i tr.prf -o - | gzip -t) || bad="$bad [convert --to pprof -o - | gzip -t]"
(cd "$T" && "$pd" script -q --flamegraph - -i tr.prf | grep -q '</svg>') || bad="$bad [--flamegraph -]"
[ -e "$T/-" ] && bad="$bad [a file named - was written]"
# appended to (>>): refused, what the file held kept
printf 'kept\n' > "$T/tr_app.log"
(cd "$T" && "$pd" convert -q -i tr.prf -o - >> tr_app.log 2> tr.err); rc=$?
[ $rc = 5 ] && [ "$(cat "$T/tr_app.log")" = kept ] && grep -q "appended to" "$T/tr.err" ||
	bad="$bad [convert -o - >> FILE: exit $rc, $(head -c 40 "$T/tr_app.log" | tr -c '[:print:]' '?')]"
if [ -z "$bad" ]; then
	echo "ok - no recording (empty, cut in its header, another file, perf.data with its hint): one line, exit 4, no summary, for script, report, convert and -i; errors before the summary; -o - and --flamegraph - are the standard output"
else
	echo "not ok - traps:$bad"
fi

# a long decode: progress on a terminal, SIGINT and SIGTERM (exit 6)
/usr/bin/python3 tests/decode_progress.py "$B" "$T"

# a --symfs under which the recorded files are missing: said once, and
# each frame keeps the file the recording names (perf shows the file),
# made-up stacks over Debian's xz, liblzma and libc
bad=""
L64=/lib/x86_64-linux-gnu
if "$B/mkunwind" "$T/sf.prf" 5 200 "64:/usr/bin/xz:$L64/liblzma.so.5:$L64/libc.so.6" > /dev/null 2>&1; then
	mkdir -p "$T/sf_empty"
	"$B/perfregs-dump" script -f json -i "$T/sf.prf" > "$T/sf_here.json" 2> /dev/null
	"$B/perfregs-dump" script -f json --symfs "$T/sf_empty" -i "$T/sf.prf" > "$T/sf_gone.json" 2> "$T/sf.err"
	n=$(grep -c -- "--symfs $T/sf_empty: files the recording names are not under it" "$T/sf.err")
	[ "$n" = 1 ] || bad="$bad [said $n times: $(head -c 300 "$T/sf.err")]"
	/usr/bin/python3 - "$T/sf_here.json" "$T/sf_gone.json" <<'PY' || bad="$bad [frames]"
import json, sys
def frames(path):
    return [[(f["ip"], f.get("dso"), f.get("sym")) for f in r.get("callchain", [])]
            for r in map(json.loads, open(path)) if r["type"] == "sample"]
here, gone = frames(sys.argv[1]), frames(sys.argv[2])
ok = len(here) == len(gone) == 200
named = kept = 0
for h, g in zip(here, gone):
    # the frames unwound without the files (CFI is in them) are fewer; each keeps its file
    for (ip, dso, sym), (ip2, dso2, sym2) in zip(h, g[:1]):
        ok = ok and ip == ip2 and dso == dso2 and sym2 is None
        named += dso is not None
        kept += dso2 is not None
ok = ok and named > 150 and kept == named
print(f"# {len(gone)} samples: {kept} leaf frames keep their file without it under --symfs, of {named}")
sys.exit(0 if ok else 1)
PY
else
	bad=" [mkunwind failed]"
fi
if [ -z "$bad" ]; then
	echo "ok - --symfs without the recorded files: said once, and the frames keep the file the recording names"
else
	echo "not ok - --symfs without the recorded files:$bad"
fi

# -F period,dso,srcline (and symoff) against perf script's on the same
# samples converted to perf.data: made-up samples over Debian's xz,
# liblzma and libc (libc6-dbg gives libc's lines)
if ! command -v perf > /dev/null; then
	echo "ok - script -F period,dso,srcline against perf script # SKIP perf is not installed (make deps)"
elif [ -s "$T/sf.prf" ] && "$B/perfregs-dump" convert -q --no-call-graph -i "$T/sf.prf" -o "$T/sf.data"; then
	"$B/perfregs-dump" script -q --no-call-graph -F period,dso,srcline -i "$T/sf.prf" > "$T/sf_ours.txt"
	"$B/perfregs-dump" script -q --no-call-graph -F ip,symoff -i "$T/sf.prf" > "$T/sf_symoff.txt"
	"$B/perfregs-dump" script -q --no-call-graph -F ip,sym -i "$T/sf.prf" > "$T/sf_sym.txt"
	perf script -i "$T/sf.data" -F period,ip,dso,srcline > "$T/sf_perf.txt" 2> /dev/null
	/usr/bin/python3 - "$T/sf_ours.txt" "$T/sf_perf.txt" "$T/sf_symoff.txt" "$T/sf_sym.txt" <<'PY'
import re, sys
ours = []
for line in open(sys.argv[1]):
    m = re.match(r"^(\d+)? ?(?:\((\S+)\))? ?(\S+:\d+)?$", line.rstrip("\n"))
    ours.append(m.groups() if m else ("?", line, None))
perf, cur = [], None
for line in open(sys.argv[2]):
    line = line.rstrip("\n")
    if re.match(r"^ *\d+ *$", line):
        cur = [line.strip(), None, None]
        perf.append(cur)
    elif cur and line.startswith("\t"):
        m = re.search(r"\((\S+)\)$", line)
        cur[1] = m.group(1) if m else None
    elif cur and re.match(r"^  \S+:\d+$", line):
        cur[2] = line.strip()
bad = []
lines = other_file = 0
if len(ours) != len(perf) or len(ours) < 100:
    bad.append(f"{len(ours)} samples here, {len(perf)} in perf script")
for i, (o, p) in enumerate(zip(ours, perf)):
    # perf names the dso of an address in no mapping [unknown]; here none.
    # For a line of an included file (glibc's strfrom-skeleton.c in
    # strfroml.c) perf, through binutils' addr2line, names the compile
    # unit's file with the included file's line; eu-addr2line and this
    # tool the included file: the same line, counted
    same_line = o[2] and p[2] and o[2].rsplit(":", 1)[1] == p[2].rsplit(":", 1)[1]
    if o[0] != p[0] or o[1] != (None if p[1] == "[unknown]" else p[1]) or \
            (o[2] != p[2] and not same_line):
        bad.append(f"sample {i}: {o} against perf's {p}")
    other_file += o[2] != p[2] and bool(same_line)
    lines += o[2] is not None
if lines < 20:
    bad.append(f"only {lines} source lines")
if open(sys.argv[3]).read() != open(sys.argv[4]).read():
    bad.append("symoff is not sym")
if bad:
    print("not ok - script -F period,dso,srcline against perf script: " + "; ".join(bad[:4]))
else:
    print(f"ok - script -F period,dso,srcline as perf script shows them for {len(ours)} samples "
          f"over xz, liblzma and libc ({lines} source lines, {other_file} of them in an "
          f"included file that perf names by its compile unit), symoff as sym")
PY
else
	echo "not ok - script -F period,dso,srcline against perf script: no recording or convert failed"
fi
