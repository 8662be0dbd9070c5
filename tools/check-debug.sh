#!/bin/bash
# make check-debug: on each debug kernel asked for (kasan, kcsan, kmsan;
# default all three), the selftest suite with a long fuzz and stress run
# in a guest, then a summary.  Any checker report fails the run.  Builds
# what is missing first: the kernel (once, cached under build/) and the
# module against it (with the kernel's own compiler).
# usage: tools/check-debug.sh [FLAVOUR...]
# env:   PERFREGS_FUZZ_SECONDS, PERFREGS_STRESS_SECONDS (default 120 each)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-$PWD/build}
[ $# -gt 0 ] || set -- kasan kcsan kmsan
pass=0 fail=0 skip=0 total_inputs=0 total_secs=0
declare -A found
table=()
for f in "$@"; do
	start=$(date +%s)
	log=$BUILD/check-debug-$f.log
	: > "$log"
	echo "==== $f: building the kernel (once) and the module"
	if ! rel=$(tools/debug-kernel/build.sh "$BUILD" "$f" | tail -n1) || [ -z "$rel" ]; then
		echo "not ok - the $f debug kernel did not build" | tee -a "$log"
		fail=$((fail + 1)) found[$f]=unknown
		table+=("| $f | - | - | - | - | 1 | not built |")
		continue
	fi
	kdir=$BUILD/debug-kernel/$f/current/obj
	kcc=$(cat "$BUILD/debug-kernel/$f/current/cc" 2>/dev/null || echo gcc)
	if ! make --no-print-directory module KDIR="$kdir" KVER="$rel" KCC="$kcc" >"$BUILD/module-$f.log" 2>&1; then
		tail -20 "$BUILD/module-$f.log"
		echo "not ok - the module did not build for $rel" | tee -a "$log"
		fail=$((fail + 1)) found[$f]=unknown
		table+=("| $f | $rel | - | - | - | 1 | module not built |")
		continue
	fi
	mem=2048 append="syscall.x32=y"
	# KMSAN keeps a shadow and an origin page for every page of memory
	[ "$f" = kmsan ] && mem=4096
	# KMSAN's 6.1 with 5-level paging (QEMU's -cpu max has LA57): the
	# shadow of the IRQ stacks was not mapped in the page tables at times,
	# and the page fault's entry code, unpoisoning its own frame there,
	# faulted again until the stack overflowed (2 of 3 boots; 0 of 3
	# with no5lvl).  4-level paging, as most machines run it.
	[ "$f" = kmsan ] && append="$append no5lvl"
	echo "==== $f: selftests, fuzz and stress on $rel"
	tools/vm/run --kernel "debug-$f" --smp 2 --mem $mem --timeout 7200 \
		--append "$append" --nmi-hz 20 \
		-- selftests/run_debug.sh "$BUILD" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	[ "$rc" -eq 0 ] || echo "not ok - guest run on $f ended with status $rc" | tee -a "$log"

	p=$(grep -cE '^ok ' "$log")
	s=$(grep -E '^ok ' "$log" | grep -c '# SKIP')
	n=$(grep -cE '^not ok ' "$log")
	inputs=$(sed -n 's/^# fuzz inputs: //p' "$log" | tail -n1)
	secs=$(sed -n 's/^# stress seconds: //p' "$log" | tail -n1)
	reports=$(sed -n 's/^# reports: //p' "$log" | tail -n1)
	races=$(sed -n "s/^# the kernel's own races (KCSAN, not perfregs'): //p" "$log" | tail -n1)
	booted=$(sed -n 's/^# reports during boot: //p' "$log" | tail -n1)
	if [ -z "$reports" ]; then
		echo "not ok - $f: the guest never counted its checker reports"
		n=$((n + 1))
	elif [ "$reports" -ne 0 ]; then
		echo "not ok - $f: $reports checker reports in the guest log"
		n=$((n + 1))
	fi
	found[$f]=${reports:-unknown}
	[ "$f" = kcsan ] && found[$f]="${found[$f]} (and ${races:-?} races inside the kernel's own code, listed)"
	[ "${booted:-0}" -gt 0 ] && found[$f]="${found[$f]} (and $booted while booting, before the module, listed)"
	pass=$((pass + p - s)) fail=$((fail + n)) skip=$((skip + s))
	total_inputs=$((total_inputs + ${inputs:-0}))
	total_secs=$((total_secs + ${secs:-0}))
	t=$(( $(date +%s) - start ))
	echo "==== check-debug on $rel in $t s: $((p - s)) passed, $n failed, $s skipped"
	table+=("| $f | $rel | $((p - s)) | $s | ${inputs:-0} | $n | ${reports:-unknown} reports, $t s |")
done
echo
echo "| sanitizer | kernel | passed | skipped | fuzz inputs | failed | |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${table[@]}"
per=""
for f in "$@"; do per="$per $f ${found[$f]},"; done
echo "tests run: $((pass + fail + skip)) ($skip skipped), fuzz inputs: $total_inputs," \
     "stress seconds: $total_secs, reports found:${per%,}"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
