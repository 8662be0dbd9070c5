# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): --threads: the
# same bytes as one thread, malformed samples, the windows' limit, late
# items; out of memory everywhere.

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
	if [ -n "$xz" ] && row=$(sizeof_in cfi cfi_row) &&
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
