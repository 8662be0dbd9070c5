# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): address spaces:
# PIEs of ld and lld, side-band versions by time, COMMAND's recording, the
# commands, events out of order and hostile.

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
	"$B/perfregs-dump" -q script -f json -i "$T/syn.prf" > "$T/glob.jsonl" 2> "$T/glob.err" ||
		bad="$bad [-q script: exit $?: $(head -c 300 "$T/glob.err")]"
	cmp -s "$T/glob.jsonl" "$T/syn.jsonl" || bad="$bad [-q script -f json differs from -q -f json -i]"
	[ -s "$T/glob.err" ] && bad="$bad [-q script wrote to stderr: $(head -c 200 "$T/glob.err")]"
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

# perf's shape: script lists what -i lists, perfregs.prf by default, and
# report sums the same file; record takes no -i and report no -o
if [ -s "$T/syn.prf" ]; then
	mkdir -p "$T/rep" && cp "$T/syn.prf" "$T/rep/perfregs.prf"
	tool=$(cd "$B" && pwd)/perfregs-dump
	(cd "$T/rep" && "$tool" script -q -f json > b.jsonl 2>&1)
	rb=$?
	(cd "$T/rep" && "$tool" report -q -f json > r.json 2>&1) &&
		"$B/perfregs-dump" report -q -f json -i "$T/syn.prf" | cmp -s - "$T/rep/r.json" &&
		grep -q '"entries":' "$T/rep/r.json" || rb="$rb (report: $(head -c 200 "$T/rep/r.json"))"
	"$B/perfregs-dump" record -i "$T/syn.prf" 2> "$T/rep/c.err"
	rc=$?
	"$B/perfregs-dump" report -o "$T/rep/x.prf" -- true 2> "$T/rep/d.err"
	rd=$?
	if [ $rb = 0 ] && cmp -s "$T/rep/b.jsonl" "$T/syn.jsonl" && [ $rc = 1 ] &&
	   grep -q "takes no -i" "$T/rep/c.err" && [ $rd = 1 ] && grep -q "takes no -o" "$T/rep/d.err" &&
	   "$B/perfregs-dump" script -q -f json -i "$T/syn.prf" | cmp -s - "$T/syn.jsonl"; then
		echo "ok - script lists as -i does, report sums (perfregs.prf by default for both); record refuses -i, report -o"
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
