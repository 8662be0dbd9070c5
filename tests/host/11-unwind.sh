# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): the learner's ELF
# reader against libelf; PLT entries' names against objdump's and perf's;
# the unwinder's fast path against libdwfl.

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


# PLT entries named "function@plt" (plt.c), as perf names them: plt.c's
# names of every library and program here against objdump's labels
# (tests/pltnames); tests/plt_target built lazy, -z now, with IBT's
# .plt.sec, by lld and -m32, live: a sample at each PLT entry named in
# -f json, folded and report as objdump names it, perf script's names of
# convert's perf.data and perf record's own samples in its PLT besides
# (tests/plt_check.py); hostile section headers, plt.c under
# AddressSanitizer within plt.h's budget (tests/plt_hostile.py)
P="$T/plt"
mkdir -p "$P"
plt_progs=""
for v in "lazy:" "now:-Wl,-z,now" "ibt:-fcf-protection -Wl,-z,ibtplt" "m32:-m32" \
	 "m32now:-m32 -Wl,-z,now" "m32ibt:-m32 -fcf-protection -Wl,-z,ibtplt"; do
	n=${v%%:*}
	case $n in m32*) [ -n "$I386_SKIP" ] && continue ;; esac
	# shellcheck disable=SC2086
	cc -O1 -g -fPIE -pie ${v#*:} -o "$P/$n" tests/plt_target.c 2>/dev/null &&
		plt_progs="$plt_progs $n=$P/$n"
done
if command -v clang >/dev/null && command -v ld.lld >/dev/null &&
   clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$P/lld" tests/plt_target.c 2>/dev/null; then
	plt_progs="$plt_progs lld=$P/lld"
fi
if [ ! -x "$B/pltnames" ] || [ ! -x "$P/lazy" ]; then
	echo "not ok - PLT entries named: pltnames or tests/plt_target could not be built"
else
	# shellcheck disable=SC2086
	/usr/bin/python3 tests/plt_check.py "$B" --files /usr/lib/x86_64-linux-gnu/*.so* \
		/usr/lib32/*.so* /usr/bin/* /usr/sbin/* /usr/libexec/*/* "$B/perfregs-dump" \
		$plt_progs
	[ -n "$I386_SKIP" ] && echo "ok - PLT entries of -m32 programs # SKIP $I386_SKIP"
	if cc -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -o "$P/pltnames" \
		tests/pltnames.c tools/perfregs-dump/plt.c -lelf 2>/dev/null; then
		/usr/bin/python3 tests/plt_hostile.py "$P/lazy" "$P" "$P/pltnames"
	else
		echo "ok - hostile PLTs # SKIP no AddressSanitizer here"
	fi
fi
