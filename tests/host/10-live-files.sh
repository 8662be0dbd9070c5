# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): the files of live
# processes: a text mapping split by mprotect(), many files open, the vDSO
# from /proc, deleted programs, a container's files, stripped ones.

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

# a process in another mount namespace (a container) whose library's
# path is bind-mounted over by another build of it: the live decoder
# names it from the process's own file (map_files), not the file the
# path names here; a recording holds that file's build-id, so the file
# here is not taken for it, and one found by the build-id names it
what="a process in another mount namespace: its bind-mounted library named from its own file"
if [ -x "$B/mkseed" ] && unshare -m --propagation private true 2>/dev/null &&
   mkdir -p "$T/cnt" && printf '%s\n' \
	'__attribute__((noinline)) int one_first(int x) { for (int i = 0; i < 500; i++) x = x * 7 + i; return x; }' \
	'__attribute__((noinline)) int lib_marker(int x) { return one_first(x) + 1; }' > "$T/cnt1.c" &&
   printf '%s\n' \
	'__attribute__((noinline)) int lib_marker(int x) { return x + 2; }' \
	'__attribute__((noinline)) int two_later(int x) { for (int i = 0; i < 900; i++) x = x * 5 + i; return x; }' > "$T/cnt2.c" &&
   printf '%s\n' '#include <stdio.h>' 'int lib_marker(int);' \
	'int main(void) { printf("%#lx\n", (unsigned long)(void *)lib_marker); fflush(stdout);' \
	'  return getchar() == EOF ? lib_marker(1) == 0 : 0; }' > "$T/cprog.c" &&
   cc -O1 -shared -fPIC -Wl,--build-id -o "$T/cnt/libcnt.so" "$T/cnt1.c" 2>/dev/null &&
   cc -O1 -shared -fPIC -Wl,--build-id -o "$T/libcnt2.so" "$T/cnt2.c" 2>/dev/null &&
   cc -O1 -fPIE -pie -o "$T/cprog" "$T/cprog.c" -L"$T/cnt" -lcnt -Wl,-rpath,"$T/cnt" 2>/dev/null; then
	mkfifo "$T/cin"
	unshare -m --propagation private sh -c 'mount --bind "$1" "$2" && exec "$3"' sh \
		"$T/libcnt2.so" "$T/cnt/libcnt.so" "$T/cprog" < "$T/cin" > "$T/cout" &
	cpid=$!
	exec 9> "$T/cin"
	for _ in $(seq 50); do [ -s "$T/cout" ] && break; sleep 0.1; done
	caddr=$(head -1 "$T/cout")
	clive=$("$B/mkseed" "$T/cnt.prf" "$cpid" "$caddr" 2>&1)
	exec 9>&-
	wait $cpid
	csym() {
		"$B/perfregs-dump" -q -f json -i "$T/cnt.prf" | /usr/bin/python3 -c 'import json, sys
print(" ".join(r.get("sym", "none") for r in map(json.loads, sys.stdin)
               if r.get("type") == "sample"))'
	}
	chere=$(csym)
	cbid=$(readelf -n "$T/libcnt2.so" | awk '/Build ID/ { print $3 }')
	mkdir -p "$T/cbid" && cp "$T/libcnt2.so" "$T/cbid/$cbid"
	cbyid=$(PERFREGS_BUILDID_DIR="$T/cbid" csym)
	if [ "$clive" = "lib_marker+0x0" ] && [ "$chere" = none ] && [ "$cbyid" = "lib_marker+0x0" ]; then
		echo "ok - $what; a recording's by its build-id only"
	else
		echo "not ok - $what: live '$clive' (want lib_marker+0x0), recording with the host's file '$chere' (want none), by build-id '$cbyid' (want lib_marker+0x0)"
	fi
else
	echo "ok - $what # SKIP no unshare -m here (root), mkseed or compiler"
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
