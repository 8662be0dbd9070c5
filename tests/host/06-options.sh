# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): the decoding
# options: -i's labels, sampling options refused with -i, -F/--fields, -F
# as --freq.

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
# -F +FIELD give it too); script -F tid,ip,sym prints those, in the
# order given, with mkrec's tids and IPs; -FIELD takes a field away.
"$B/mkrec" "$T/fl.prf" 1
fl() {	# ARGS: its stdout, then "rc=N"; its stderr in $T/fl.err
	"$B/perfregs-dump" "$@" > "$T/fl.out" 2> "$T/fl.err"
	printf 'rc=%s\n' "$?" >> "$T/fl.out"
	cat "$T/fl.out"
}
# every field, and those of the default line (perf's dso, period, symoff
# and srcline only when asked for)
fl_all=comm,pid,tid,cpu,time,event,ip,sym,mode,abi,context,uregs_source,skid,dso,period,symoff,srcline,iregs,uregs,simd,stack,callchain
fl_def=comm,pid,tid,cpu,time,event,ip,sym,mode,abi,context,uregs_source,skid,iregs,uregs,simd,stack,callchain
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
for args in "-i $T/fl.prf" "script -i $T/fl.prf" "script -F $fl_def -i $T/fl.prf" \
	    "--fields=$fl_def -i $T/fl.prf" "script -F +tid -i $T/fl.prf"; do
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
got=$(fl script -q -F tid,ip,sym -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [script -F tid,ip,sym: '$got']"
got=$(fl -q --fields tid,ip,sym -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [--fields tid,ip,sym: '$got']"
want=$(printf '%s\n' 'ip 0x401064 100' 'ip 0x4010c8 200' 'ip 0x40112c 300' 'ip 0x401190 400' \
	'(known_kernel_function+0x10) ip 0xffffffff81000010 100' \
	'LOST [000] 1.000000000: full 1' 'LOST [000] 1.000000000: full 2' rc=0)
got=$(fl script -q -F sym,ip,tid -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [script -F sym,ip,tid: '$got']"
want=$(printf '%s\n' '    iregs: rip    0x0000000000401064 rflags 0x0000000000000246' \
	'[003]    400/400    abi i386 (mixed mode)' rc=0)
got=$(fl script -q -F iregs,cpu,pid,tid,abi -i "$T/fl.prf" | sed -n '2p;7p;$p')
[ "$got" = "$want" ] || bad="$bad [script -F iregs,cpu,pid,tid,abi: '$got']"
want=$(printf '%s\n' "$fl_default" | grep -v '^    [iu]regs: \|^          [a-z]')
got=$(fl script -q -F -iregs,-uregs -i "$T/fl.prf")
[ "$got" = "$want" ] || bad="$bad [script -F -iregs,-uregs: '$got']"
if [ -z "$bad" ]; then
	echo "ok - script -F tid,ip,sym prints those fields of each sample, in that order; -F -iregs,-uregs a line per sample"
else
	echo "not ok - script -F FIELDS prints those fields of each sample, in that order:$bad"
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
	out=$("$B/perfregs-dump" script -q -F "$list" -i "$T/fl.prf" 2> "$T/fl.err")
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
for args in "script -F tid -f json -i $T/fl.prf" "script -f json -F tid -i $T/fl.prf" \
	    "-f json --fields tid -i $T/fl.prf" "script -F tid -f folded -i $T/fl.prf" \
	    "script -F tid --flamegraph $T/fl.svg -i $T/fl.prf" \
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

# outside script -F is still perf record's --freq: its number parser
# answers (a field list is no number), record -F 99 is taken, and -i
# refuses it as a sampling option; script's is --freq alone
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
script --freq 99 -i $T/fl.prf|-i takes no --freq:
record --freq 0|--freq wants a positive number, not '0'
RATES
if [ -z "$bad" ]; then
	echo "ok - record -F HZ and -F HZ without a subcommand are still --freq; script takes --freq"
else
	echo "not ok - record -F HZ is still --freq:$bad"
fi
