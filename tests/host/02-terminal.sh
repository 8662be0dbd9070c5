# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): names that reach a
# terminal: escapes and C1 controls; what -v says of a recording.

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

# C1 controls reach no terminal either (safetext.c): a comm, a kernel
# symbol and a program's path each holding U+009B (CSI, as UTF-8 c2 9b),
# a byte 0x9b of no UTF-8, and a euro sign (e2 82 ac: its 0x82 is no
# control) show each control as '?' in text, \u009b in JSON, '_' in
# folded lines and the flame graph; the euro sign stays as it is, and
# no output holds a byte 0x9b.  (The program is stripped: its frames
# are named by its file, [c1-_-_-€] in folded lines.)
c1=$'\xc2\x9b' eu=$'\xe2\x82\xac'
c1prog="$T/c1-$c1-"$'\x9b'"-$eu"
if cc -no-pie -o "$c1prog" tests/fp_target.S 2>/dev/null &&
   c1body=0x$(nm "$c1prog" | sed -n 's/ T fp_body$//p') && strip "$c1prog" &&
   "$B/mkhostile" "$T/c1.prf" -c "a${c1}b"$'\x9b'"c$eu" -k "k${c1}1"$'\x9b'"2$eu" \
	-a "$c1body" -m "$c1prog" -s; then
	bad=""
	"$B/perfregs-dump" -q -f text --call-graph dwarf -i "$T/c1.prf" > "$T/c1.txt" 2>&1
	"$B/perfregs-dump" -q -f json --call-graph dwarf -i "$T/c1.prf" > "$T/c1.json" 2>&1
	"$B/perfregs-dump" -q -f folded --call-graph dwarf --flamegraph "$T/c1.svg" \
		-i "$T/c1.prf" > "$T/c1.folded" 2>&1
	for f in txt json folded svg; do
		LC_ALL=C grep -q $'\x9b' "$T/c1.$f" && bad="$bad $f holds a byte 0x9b;"
		grep -qF "$eu" "$T/c1.$f" || bad="$bad $f lost the euro sign;"
	done
	for want in "a?b?c$eu " "(k?1?2$eu+0x10)" "/c1-?-?-$eu)"; do
		grep -qF -- "$want" "$T/c1.txt" || bad="$bad text: no '$want';"
	done
	for want in "\"comm\":\"a\\u009bb\\u009bc$eu\"" "\"sym\":\"k\\u009b1\\u009b2$eu+0x10\"" \
		    "/c1-\\u009b-\\u009b-$eu\""; do
		grep -qF -- "$want" "$T/c1.json" || bad="$bad json: no '$want';"
	done
	for want in "a_b_c$eu;k_1_2${eu}_[k] 1" "a_b_c$eu;[c1-_-_-$eu]"; do
		grep -qF -- "$want" "$T/c1.folded" || bad="$bad folded: no '$want';"
	done
	grep -qF "a_b_c$eu" "$T/c1.svg" || bad="$bad svg: no comm;"
	if [ -z "$bad" ]; then
		echo "ok - C1 controls (U+009B as UTF-8, a byte 0x9b) in a comm, a symbol and a path reach no output; the euro sign stays"
	else
		echo "not ok - C1 controls (U+009B as UTF-8, a byte 0x9b) in a comm, a symbol and a path reach no output; the euro sign stays:$bad"
		od -c "$T/c1.txt" | head -8 | sed 's/^/# /'
	fi
else
	echo "not ok - C1 controls in a comm, a symbol and a path (no program built)"
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
