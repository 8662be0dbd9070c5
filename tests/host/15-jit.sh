# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): JIT code named
# by its perf map (jitmap.c): live, from a recording after the map is
# gone, a line written after the samples, a hostile map and item, and
# node --perf-basic-prof against perf; by its jitdump (jitdump.c).

jit_hex() { printf '%x' $(( 0x$1 + $2 )); }
jit_wait() {	# the target's address, once it wrote its map
	local i
	for i in $(seq 100); do [ -s "$1" ] && break; sleep 0.05; done
	cat "$1"
}

if [ -x "$B/mkjit" ] && [ -x "$B/jit_target" ]; then
	"$B/jit_target" > "$T/jit.addr" &
	jp=$!
	jb=$(jit_wait "$T/jit.addr")
	jlive=$("$B/mkjit" "$T/jit.prf" "$jp" --late "$jb" "$(jit_hex "$jb" 0x50)" \
		"$(jit_hex "$jb" 0x108)" "$(jit_hex "$jb" 0x3000)" 2> "$T/jit.err")
	kill "$jp"; wait "$jp" 2>/dev/null
	rm -f "/tmp/perf-$jp.map"
	want="$jb LazyCompile:*hot /tmp/hot.js:1+0x0 /tmp/perf-$jp.map
$(jit_hex "$jb" 0x50) jit_two+0x10 /tmp/perf-$jp.map
$(jit_hex "$jb" 0x108) none none
$(jit_hex "$jb" 0x3000) none none"
	if [ "$jlive" = "$want" ]; then
		echo "ok - live: an IP in JIT code is named by /proc/PID/root/tmp/perf-PID.map, the map as dso"
	else
		echo "not ok - live: JIT code named by its perf map"
		diff <(echo "$want") <(echo "$jlive") | sed 's/^/# /'
	fi
	# -i: the recording's lines, the file deleted; the line written
	# after the samples names the third
	jgot=$("$B/perfregs-dump" script -q -i "$T/jit.prf" -F ip,sym,dso)
	want="ip 0x$jb (LazyCompile:*hot /tmp/hot.js:1+0x0) (/tmp/perf-$jp.map)
ip 0x$(jit_hex "$jb" 0x50) (jit_two+0x10) (/tmp/perf-$jp.map)
ip 0x$(jit_hex "$jb" 0x108) (jit_late+0x8) (/tmp/perf-$jp.map)
ip 0x$(jit_hex "$jb" 0x3000)"
	if [ "$jgot" = "$want" ]; then
		echo "ok - -i: JIT code named by the recording's map after the file is deleted, a line written after the sample too"
	else
		echo "not ok - -i: JIT code named by the recording's map"
		diff <(echo "$want") <(echo "$jgot") | sed 's/^/# /'
	fi
	# the look ahead for the maps failing (its copy of a map item out of
	# memory): said once, the maps then loaded as the reader reaches them
	# (after these samples: none named); the scan once said it had read
	# them all, and nothing named them, silently
	what="a failed look ahead for the JIT maps is said, not silent"
	jsz=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
off = struct.unpack_from("<I", b, 8)[0]
while off + 8 <= len(b):
    t, n = struct.unpack_from("<II", b, off)
    if t == 9:
        print(n)
        break
    if n < 8:
        break
    off += n' "$T/jit.prf")
	if [ -e "$B/failalloc.so" ] && [ -n "$jsz" ]; then
		PERFREGS_FAIL=malloc:$jsz LD_PRELOAD=$B/failalloc.so "$B/perfregs-dump" script \
			-i "$T/jit.prf" -F ip,sym,dso > "$T/jit_nomem.out" 2> "$T/jit_nomem.err"
		jst=$?
		"$B/perfregs-dump" script -i "$T/jit.prf" -F ip,sym,dso > /dev/null 2> "$T/jit_ok.err"
		said=$(grep -c "JIT maps could not be read before its samples" "$T/jit_nomem.err")
		named=$(grep -c "perf-$jp.map" "$T/jit_nomem.out")
		if [ "$jst" = 0 ] && [ "$said" = 1 ] && [ "$named" = 0 ] &&
		   ! grep -q "JIT maps could not" "$T/jit_ok.err"; then
			echo "ok - $what (a map item of $jsz bytes not copied: exit 0, said once, the samples before it unnamed)"
		else
			echo "not ok - $what: exit $jst, said $said times, $named samples named"
			sed 's/^/# /' "$T/jit_nomem.err" | head -5
		fi
	else
		echo "not ok - $what: no failalloc.so, or no map item in the recording"
	fi
	# the JIT maps are looked for before the samples only in a recording
	# whose header says it has some (REC_F_JITMAPS): that second pass
	# (rec-scan.c, pread()s a window at a time) over every recording
	# read each file twice and cost 6% of -f folded's instructions
	what="the file is read a second time for JIT maps only when its header says it holds some"
	# bytes pread() gave the tool (the scan's way; the reader read()s)
	jit_preads() {
		strace -f -e trace=pread64 -o "$T/jit.st" "$B/perfregs-dump" script -q -i "$1" \
			> /dev/null 2>&1
		awk -F'= ' '/^[0-9]+ +pread64/ && $NF ~ /^[0-9]+$/ {n += $NF} END {print n + 0}' "$T/jit.st"
	}
	if command -v strace > /dev/null && [ -x "$B/mkrec" ] &&
	   "$B/mkrec" "$T/jit_none.prf" 20000 > /dev/null 2>&1; then
		nsz=$(stat -c %s "$T/jit_none.prf") jsz=$(stat -c %s "$T/jit.prf")
		np=$(jit_preads "$T/jit_none.prf") jpr=$(jit_preads "$T/jit.prf")
		if [ "$np" -lt $((nsz / 4)) ] && [ "$jpr" -ge $((jsz / 2)) ]; then
			echo "ok - $what (without: $np bytes pread of $nsz; with: $jpr of $jsz)"
		else
			echo "not ok - $what: without maps $np bytes pread of $nsz, with them $jpr of $jsz"
		fi
	else
		echo "ok - $what # SKIP no strace (make deps) or mkrec"
	fi
	# a map written anew with as many lines as it had (shorter): its
	# index was freed and, the count the same, not made again, so that
	# nothing of the process was named any more (a second reader's find)
	"$B/jit_target" > "$T/jit_rw.addr" &
	rp=$!
	rb=$(jit_wait "$T/jit_rw.addr")
	rgot=$("$B/mkjit" "$T/jit_rw.prf" "$rp" "$rb" rewrite "$(jit_hex "$rb" 0x100)" 2>&1)
	kill "$rp"; wait "$rp" 2>/dev/null
	rm -f "/tmp/perf-$rp.map"
	want="$rb LazyCompile:*hot /tmp/hot.js:1+0x0 /tmp/perf-$rp.map
$(jit_hex "$rb" 0x100) jit_new_c+0x0 /tmp/perf-$rp.map"
	if [ "$rgot" = "$want" ]; then
		echo "ok - live: a map written anew with as many lines names from its new lines"
	else
		echo "not ok - live: a map written anew with as many lines names from its new lines"
		diff <(echo "$want") <(echo "$rgot") | sed 's/^/# /'
	fi
	# a live run notes every process it learns, most with no map: the
	# first of them to fill the budget of processes (8192 entries, two a
	# process) kept the map of every later one out, a JIT started late was
	# never named
	"$B/jit_target" > "$T/jit_late.addr" &
	lp=$!
	lb=$(jit_wait "$T/jit_late.addr")
	lgot=$("$B/mkjit" "$T/jit_others.prf" "$lp" --others 4200 "$lb" 2> "$T/jit_others.err")
	kill "$lp"; wait "$lp" 2>/dev/null
	rm -f "/tmp/perf-$lp.map"
	if [ "$lgot" = "$lb LazyCompile:*hot /tmp/hot.js:1+0x0 /tmp/perf-$lp.map" ]; then
		echo "ok - live: a JIT noted after 4200 processes with no map is named (they are let go)"
	else
		echo "not ok - live: a JIT noted after 4200 processes with no map: $lgot $(head -c 200 "$T/jit_others.err")"
	fi
	# every output: JSON, folded, the flame graph, report, pprof
	jbad=""
	"$B/perfregs-dump" script -q -i "$T/jit.prf" -f json |
		grep -q '"sym":"jit_late+0x8"' || jbad="$jbad json"
	"$B/perfregs-dump" script -q -i "$T/jit.prf" -f folded --flamegraph "$T/jit.svg" |
		grep -qx 'jit;jit_late 1' || jbad="$jbad folded"
	grep -q 'jit_late' "$T/jit.svg" || jbad="$jbad flamegraph"
	"$B/perfregs-dump" report -q -i "$T/jit.prf" 2>/dev/null |
		grep -q "perf-$jp.map  *\[\.\] jit_late" || jbad="$jbad report"
	if "$B/perfregs-dump" convert -q --to pprof -i "$T/jit.prf" -o "$T/jit.pb.gz" &&
	   command -v go > /dev/null; then
		timeout 120 go tool pprof -raw "$T/jit.pb.gz" 2>/dev/null | grep -q ' jit_late ' ||
			jbad="$jbad pprof"
	fi
	# from a pipe the map comes after the samples: they are not named
	cat "$T/jit.prf" | "$B/perfregs-dump" script -q -i - -F ip,sym | grep -q jit_late &&
		jbad="$jbad pipe"
	if [ -z "$jbad" ]; then
		echo "ok - JIT names in JSON, folded stacks, the flame graph, report and pprof (a pipe names none)"
	else
		echo "not ok - JIT names missing in:$jbad"
	fi
	# the item is hostile input: a length past its item, one past 2^32
	if python3 - "$T/jit.prf" "$T/jit_bad.prf" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
off = struct.unpack_from("<I", b, 8)[0]
while off + 8 <= len(b):
    t, s = struct.unpack_from("<II", b, off)
    if t == 9:
        struct.pack_into("<I", b, off + 16, s)   # len: more than the item holds
        break
    off += s
else:
    sys.exit(1)
open(sys.argv[2], "wb").write(b)
PY
	then
		"$B/perfregs-dump" script -q -i "$T/jit_bad.prf" > /dev/null 2> "$T/jit_bad.err"
		rc=$?
		if [ $rc = 4 ] && grep -q 'JIT map item claims more than it holds' "$T/jit_bad.err"; then
			echo "ok - a JIT map item claiming more than it holds is refused (exit 4)"
		else
			echo "not ok - a malformed JIT map item: exit $rc, $(head -c 200 "$T/jit_bad.err")"
		fi
	else
		echo "not ok - a malformed JIT map item (no item in the recording)"
	fi
else
	echo "not ok - JIT code named by its perf map (no mkjit or jit_target)"
fi

# a hostile map: a line of 10000 bytes, sizes of 0 and past 2^64, no
# numbers, 17 digits, overlaps, an escape sequence, 21 MiB of lines past
# the entries' and the file's budgets: bounded, the good lines name
if [ -x "$B/mkjit" ] && [ -x "$B/jit_target" ]; then
	"$B/jit_target" hostile > "$T/jith.addr" &
	jp=$!
	jb=$(jit_wait "$T/jith.addr")
	for i in $(seq 100); do	# the whole map
		[ "$(stat -c %s "/tmp/perf-$jp.map" 2>/dev/null)" -gt 20000000 ] && break
		sleep 0.05
	done
	jt0=$(date +%s%N)
	"$B/mkjit" "$T/jith.prf" "$jp" "$(jit_hex "$jb" 0x10)" "$(jit_hex "$jb" 0x210)" \
		"$(jit_hex "$jb" 0x310)" "$(jit_hex "$jb" 0x410)" "$(jit_hex "$jb" 0x510)" \
		"$(jit_hex "$jb" 0x610)" 100010 ffffffffffffff10 > /dev/null 2> "$T/jith.err"
	kill "$jp"; wait "$jp" 2>/dev/null
	rm -f "/tmp/perf-$jp.map"
	jgot=$( (/usr/bin/time -f '%M' "$B/perfregs-dump" script -q -i "$T/jith.prf" -F sym \
		2> "$T/jith.rss") | tr '\n' ' ')
	jms=$(( ($(date +%s%N) - jt0) / 1000000 ))
	jrss=$(tail -1 "$T/jith.rss")
	jsize=$(stat -c %s "$T/jith.prf")
	want="(jit_outer+0x10) (jit_inner?[31mred+0x10) (jit_outer+0x310) (jit_after_long+0x10) (jit_hex+0x10) (jit_outer+0x610) (filler_16+0x0)  "
	if [ "$jgot" = "$want" ] && [ "$jsize" -le $(( 16 * 1048576 + 64 )) ] &&
	   [ "$jrss" -lt 200000 ] && grep -q 'more entries than its budget' "$T/jith.err"; then
		echo "ok - a hostile perf map is bounded: its good lines name, the rest skipped (${jms} ms, -i ${jrss} KB, item ${jsize} bytes)"
	else
		echo "not ok - a hostile perf map: got '$jgot', ${jsize} bytes, ${jrss} KB"
		sed 's/^/# /' "$T/jith.err"
	fi
fi

# node --perf-basic-prof under perf: the same IPs named the same
python3 tests/jit_vs_perf.py "$B" "$T"

# jitdumps (node --perf-prof): after the run against perf inject --jit,
# live through /proc/PID/maps, and a hostile one
python3 tests/jitdump_vs_perf.py "$B" "$T"
