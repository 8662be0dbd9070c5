#!/bin/bash
# Every output of perfregs-dump, byte for byte as the pinned commit's.
#
# tests/compare/BASE pins a commit: its first line that is not a
# comment, a commit id of 40 hex digits.  This script exports that
# commit of this repository (git archive) to BUILD/compare/base-SHORT/src
# and builds there, with that commit's own Makefile, its perfregs-dump
# (as make tool builds it) and its recording generators (tests/mk*.c,
# at -O0: quicker, the same recordings) and the programs they map
# (big_target, dl_target, plug_*.so); the build is kept while BASE
# names the same commit.  Its generators make one corpus of recordings
# (synthetic, SIMD, hostile names, side-band out of order and live,
# processes stopped by ptrace, storms, versions, large ones, made-up
# stacks, cut, empty, not a recording, missing), and both tools, the
# pinned one and BUILD/perfregs-dump, run every invocation of MATRIX on
# every recording, and those of ONCE (help, usage errors) once: -f text,
# json and folded with and without --call-graph dwarf, -v, --summary,
# -F/--fields, --threads 1 and 2, -i - (a pipe), report --flamegraph,
# convert to perf.data and to pprof.  Each run's standard output,
# standard error, exit status and the files it wrote (the SVG, perf.data,
# the gzipped profile) must be the same byte for byte.  Where those
# files differ, what perf script, perf report --stdio and go tool pprof
# -raw print of both sides is shown with the diff.
#
# Both tools run in directories of their own that look the same from
# inside: the same corpus paths, relative output names, argv[0]
# "perfregs-dump".  Nothing needs hiding then; what would still vary
# from run to run is normalised in normalise() below, the only place
# for it (run with --self to find it).
#
# Moving the pin: a commit that changes no output never touches BASE.
# One that changes an output on purpose moves the pin in the same commit
# and says in BASE's comment (and in its message) which output changed
# and why.  A commit cannot name its own id: it writes "self" as BASE's
# pin, which stands for the commit that last changed BASE, so itself;
# a later commit may write that id in its place (the same pin, and
# any other change to BASE would move a "self" pin along).  The pinned
# commit must be in the history of the clone that runs this.
#
# usage: tests/compare/outputs.sh BUILD_DIR [--self]
#   --self  BUILD_DIR/perfregs-dump against itself, on a corpus made by
#           BUILD_DIR's generators: what varies from one run to the next
#   COMPARE_TIMES=1 in the environment: the time after each recording
# KTAP lines on stdout (tests/host_tests.sh runs it); exit status 1 if
# one is not ok.  On a mismatch the runs are kept in
# BUILD_DIR/compare/run/out/{base,cur}/GROUP/N, beside the corpus (rec/).
set -u
start=$(date +%s%N)
B=$(realpath -m "${1:-build}")
SELF=${2:-}
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
TOP=$(git -C "$HERE" rev-parse --show-toplevel) || exit 1
C=$B/compare
CUR=$B/perfregs-dump
elapsed() { echo $(( ($(date +%s%N) - start + 500000000) / 1000000000 )); }

fail() {	# WHAT: a not ok line, the end
	echo "not ok - outputs: $1"
	exit 1
}
[ -x "$CUR" ] || fail "no $CUR (make tool)"

# --- the pinned commit, built once -------------------------------------------
pin=$(grep -m1 -v '^[[:space:]]*\(#\|$\)' "$HERE/BASE" | tr -d '[:space:]')
if [ "$pin" = self ]; then
	BASE=$(git -C "$TOP" log -1 --format=%H -- "$HERE/BASE")
	[ -n "$BASE" ] || fail "tests/compare/BASE says self, but no commit has it yet"
elif [[ "$pin" =~ ^[0-9a-f]{40}$ ]]; then
	BASE=$pin
else
	fail "tests/compare/BASE pins '$pin': neither a commit id of 40 hex digits nor self"
fi
git -C "$TOP" cat-file -e "$BASE^{commit}" 2>/dev/null ||
	fail "the pinned commit $BASE is not in this repository's history (a shallow clone?)"
SHORT=$(git -C "$TOP" rev-parse --short=12 "$BASE")
W=$C/base-$SHORT
G=$W/build
if [ "$SELF" = --self ]; then
	G=$B
	SHORT="itself"
elif [ "$(cat "$W/built" 2>/dev/null)" != "$BASE" ]; then
	rm -rf "$C"/base-*	# an earlier pin's
	mkdir -p "$W/src"
	git -C "$TOP" archive "$BASE" | tar -x -C "$W/src" ||
		fail "git archive $BASE failed"
	# its generators (each tests/mk*.c is $(BUILD)/mk*, whatever the
	# Makefile's lists are called) and the programs they map
	goals="$G/big_target $G/dl_target $G/plug_a.so $G/plug_b.so"
	for f in "$W"/src/tests/mk*.c; do
		f=${f##*/}
		goals="$goals $G/${f%.c}"
	done
	# a make around us (make check) would pass its variables and jobs down
	mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -j2 -C "$W/src" BUILD="$G" "$@"; }
	# the tool as make tool builds it, as the current one is; then the
	# generators at -O0: the same recordings, sooner (what they have of
	# the tool's, where the Makefile builds it once, is the tool's build)
	# shellcheck disable=SC2086
	if ! { mk tool && mk CFLAGS=-O0 $goals; } > "$W/make.log" 2>&1; then
		tail -20 "$W/make.log" | sed 's/^/# /'
		fail "building the pinned commit $SHORT failed (log: $W/make.log)"
	fi
	echo "$BASE" > "$W/built"
	echo "# outputs: built $SHORT in $(elapsed) s"
fi
OLD=$G/perfregs-dump

# --- the corpus: recordings by the pinned commit's generators -------------------
R=$C/run
rm -rf "$R"
mkdir -p "$R/rec" "$R/prog" "$R/gen" "$R/home"
P=$R/prog
S=$W/src		# the generators' sources (bias_target.c, ...)
[ "$SELF" = --self ] && S=$TOP
RECS=()
notes=()
# gen NAME CMD...: NAME.prf by CMD, which writes it at $R/rec/NAME.prf
# (exit 77: this host refuses what it needs, a note and no recording;
# so too a generator newer than the pinned commit)
gen() {
	local name=$1 rc
	shift
	if [ ! -x "$1" ]; then
		notes+=("$name skipped: the pinned commit has no ${1##*/}")
		return
	fi
	"$@" > "$R/gen/$name.out" 2> "$R/gen/$name.err"
	rc=$?
	if [ $rc = 0 ] && [ -e "$R/rec/$name.prf" ]; then
		RECS+=("$name")
	elif [ $rc = 77 ]; then
		notes+=("$name skipped: $(head -c 200 "$R/gen/$name.err")")
	else
		echo "not ok - outputs: the generator of $name failed (exit $rc): $(head -c 300 "$R/gen/$name.err")"
		gen_bad=1
	fi
}
gen_bad=0
# live programs waiting in read(0), their stdin a FIFO: started, then
# snapshot by the generators, then ended before anything is decoded (the
# later ones hold the earlier ones' FIFOs open: kill, not end of file)
live_start() {	# NAME PROG: $NAME_pid, $NAME_addr (the address it prints)
	mkfifo "$P/$1.in"
	"$2" < "$P/$1.in" > "$P/$1.out" &
	eval "$1_pid=$!"
	exec {fd}> "$P/$1.in"
	eval "$1_fd=$fd"
	for _ in $(seq 50); do [ -s "$P/$1.out" ] && break; sleep 0.1; done
	eval "$1_addr=$(awk '{ print $NF; exit }' "$P/$1.out")"
}
live_stop() {	# NAME...
	local n fd
	for n in "$@"; do
		fd=${n}_fd
		eval "exec ${!fd}>&-"
		eval "kill \$${n}_pid; wait \$${n}_pid"
	done 2>/dev/null
}

if ! cc -O1 -g -fPIE -pie -o "$P/pie" "$S/tests/bias_target.c" ||
   ! cc -O1 -g -no-pie -o "$P/nopie" "$S/tests/bias_target.c" ||
   ! cc -no-pie -o "$P/fp"$'\e[31m' "$S/tests/fp_target.S"; then
	fail "the corpus's programs could not be built"
fi
lives="pie nopie"
if cc -m32 -O1 -g -fPIE -pie -o "$P/pie32" "$S/tests/bias_target.c" 2>/dev/null &&
   "$P/pie32" < /dev/null 2>/dev/null | grep -q '^0x'; then
	lives="$lives pie32"
else
	notes+=("no i386 program here: the live corpus has none")
fi
if clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$P/lld" "$S/tests/bias_target.c" 2>/dev/null; then
	lives="$lives lld"
else
	notes+=("no clang/lld: the live corpus has no lld PIE")
fi
# a caller whose CFA is rbx-based over a leaf that spins (glibc's lazy
# binding's shape)
# (the pinned commit's program, else this tree's)
rbx_src=$S/tests/rbx_cfa.c
[ -e "$rbx_src" ] || rbx_src=$TOP/tests/rbx_cfa.c
if cc -O1 -g -fPIE -pie -o "$P/rbx" "$rbx_src"; then
	lives="$lives rbx"
fi
for l in $lives; do live_start "$l" "$P/$l"; done
# shellcheck disable=SC2154
gen maps "$G/mkmaps" "$R/rec/maps.prf" "$pie_pid" "$pie_addr" 3
# shellcheck disable=SC2154
gen seed "$G/mkseed" "$R/rec/seed.prf" "$pie_pid" "$pie_addr" "$nopie_pid" "$nopie_addr"
sleep 0.2	# from their printf() into read()
snap_pids=""
for l in $lives; do snap_pids="$snap_pids $(eval echo "\$${l}_pid")"; done
# shellcheck disable=SC2086
gen snap "$G/mksnap" "$R/rec/snap.prf" 8192 $snap_pids
# shellcheck disable=SC2086
live_stop $lives

gen rec "$G/mkrec" "$R/rec/rec.prf" 25
gen simd "$G/mksimd" "$R/rec/simd.prf"
gen simd_bad "$G/mksimd" "$R/rec/simd_bad.prf" mismatch
# kernel call chains, a newer module's section after a stack, a chain
# longer than its record
gen kchain "$G/mkkchain" "$R/rec/kchain.prf"
gen kchain_tail "$G/mkkchain" "$R/rec/kchain_tail.prf" tail
gen kchain_bad "$G/mkkchain" "$R/rec/kchain_bad.prf" overrun
gen utf8 "$G/mkhostile" "$R/rec/utf8.prf" -c $'\xc3\xa9t\xc3\xa9\xe2\x82\xac' \
	-k $'ok-\xc3\xa9\xf0\x9f\x98\x80|\xc3A|\xc0\xaf|\xed\xa0\x80|\x01\t\x7f"\\|\xe2\x82'
gen fold_names "$G/mkhostile" "$R/rec/fold_names.prf" -c $'a;b\nc <x&"y">' -k $'k;f\nn'
fpb=0x$(nm "$P/fp"$'\e[31m' | sed -n 's/ T fp_body$//p')
gen ctl "$G/mkhostile" "$R/rec/ctl.prf" -c $'\e[31mX\rY' -a "$fpb" -m "$P/fp"$'\e[31m' -s
gen fp_data "$G/mkhostile" "$R/rec/fp_data.prf" -a "$fpb" -m "$P/fp"$'\e[31m' -s \
	-f 0x10000800 -d "$P/nopie"
gen ksyms "$G/mkhostile" "$R/rec/ksyms.prf" -k target -K 300 -S
gen ksyms_ovl "$G/mkhostile" "$R/rec/ksyms_ovl.prf" -k target -O 20
gen lost "$G/mkhostile" "$R/rec/lost.prf" -L 1000 -U
gen args "$G/mkhostile" "$R/rec/args.prf" -A prog -A $'\e[31mred\\' -e $'odd"<ev>&\x01'
gen sb "$G/mksb" "$R/rec/sb.prf" "$G/dl_target" "$G/plug_a.so" plug_a_hot \
	"$G/plug_b.so" plug_b_hot
gen exec "$G/mkexec" "$R/rec/exec.prf" "$G/dl_target" "$G/plug_a.so" plug_a_hot
gen late "$G/mklatevdso" "$R/rec/late.prf"
read -r ooff ostart osize < <(readelf -lW "$P/nopie" |
	awk '$1 == "LOAD" && / R E / { print $2, $3, $6; exit }')
oaddr=0x$(nm "$P/nopie" | awk '$3 == "target_function" { print $1 }')
for m in "" parent orphan; do
	# shellcheck disable=SC2086
	gen "order${m:+_$m}" "$G/mkorder" "$R/rec/order${m:+_$m}.prf" "$P/nopie" "$oaddr" \
		$(( ostart & ~4095 )) $(( (ostart + osize + 4095) & ~4095 )) $(( ooff & ~4095 )) $m
done
for m in late maps fan alt; do
	gen "storm_$m" "$G/mkstorm" "$R/rec/storm_$m.prf" 200 $m
done
vargs=()
for lib in $(ldd "$OLD" | awk '$3 ~ /^\// { print $3 }' | head -6); do
	voff=$(nm -D --defined-only "$lib" 2>/dev/null | awk '$2 == "T" { print "0x" $1; exit }')
	[ -n "$voff" ] && vargs+=("$(readlink -f "$lib")" "$voff")
done
gen versions "$G/mkversions" "$R/rec/versions.prf" 12 "${vargs[@]}"
bmain=0x$(nm "$G/big_target" | sed -n 's/ T main$//p')
# a few of --threads' batches of 256 KiB each
gen big "$G/mkbig" "$R/rec/big.prf" 3000 "$G/big_target" "$bmain" 1024
gen big_sb "$G/mkbig" "$R/rec/big_sb.prf" 4000 "$G/big_target" "$bmain" 160 4 4 2 256
gen big_sbt "$G/mkbig" "$R/rec/big_sbt.prf" 4000 "$G/big_target" "$bmain" 160 4 4 2 -256
gen adopt "$G/mkadopt" "$R/rec/adopt.prf" "$G/big_target" "$bmain" 500 940
# its 1446 mappings take 0.3 s to read: only the invocations with --threads
declare -A ONLY=([adopt]="--threads")
libc=$(readlink -f "$(ldd "$P/pie" | awk '$1 ~ /^libc\.so/ { print $3 }')")
utasks=("64:$P/pie:$libc" "mixed:$P/nopie")
[[ " $lives " = *" pie32 "* ]] && utasks+=("32:$P/pie32")
gen unwind "$G/mkunwind" "$R/rec/unwind.prf" 1 600 "${utasks[@]}"
gen unwind_vdso "$G/mkunwind" "$R/rec/unwind_vdso.prf" 2 100 64:vdso
gen wrap "$G/mkwrap" "$R/rec/wrap.prf" "$P/wrap.dat"
# what is no recording, or not all of one
if [ -e "$R/rec/rec.prf" ]; then
	head -c $(( $(stat -c %s "$R/rec/rec.prf") * 2 / 3 )) "$R/rec/rec.prf" > "$R/rec/cut.prf"
	head -c 20 "$R/rec/rec.prf" > "$R/rec/cut_header.prf"
	RECS+=(cut cut_header)
fi
: > "$R/rec/empty.prf"
cp "$P/pie" "$R/rec/elf.prf"
RECS+=(empty elf missing)	# missing.prf is not there

# --- the matrix ----------------------------------------------------------------
# Each line an invocation (words split on spaces), "-i RECORDING" added;
# "-i -" reads it from the standard input (a pipe).  What they write is
# named relative to their directory, the same on both sides.
MATRIX=(
	"-f text"
	"-f json"
	"-f folded"
	"-f text --call-graph dwarf"
	"-f json --call-graph dwarf"
	"-f folded --call-graph dwarf"
	# -v with more threads than 1 says how often the reading thread
	# waited for the workers, and by default how many there were: that
	# varies from run to run, what they print does not
	"-v -f text --threads 1"
	"-v -q -f json --call-graph dwarf --threads 1"
	"--summary"
	"-f json --summary"
	"script -q -F comm,tid,time,ip,sym,callchain --call-graph dwarf"
	"-q --fields -iregs,-uregs"
	"-q -f json --call-graph dwarf --symfs /"
	"-q -f json --call-graph dwarf --threads 1"
	"-q -f json --call-graph dwarf --threads 2"
	"-q -f folded --call-graph dwarf --threads 2"
	"-q -f text --no-symbols --threads 2"
	"-f json --call-graph dwarf -i -"
	"report --flamegraph flame.svg --call-graph dwarf"
	"convert -o perf.data"
	"convert -q --call-graph dwarf -o perf.data"
	"convert --to pprof -o profile.pb.gz"
	"convert --to pprof --call-graph dwarf -o profile.pb.gz"
)
# once each, @ standing for rec.prf; script without -i reads perfregs.prf,
# which is not in its directory
ONCE=(
	"-h"
	"-V"
	"-f xml -i @"
	"--threads 0 -i @"
	"-F nosuchfield -i @"
	"--call-graph fp -i @"
	"-q --to pprof -i @"
	"convert -i @"
	"convert --to elf -i @ -o x"
	"record -i @"
	"report -o x.prf -- true"
	"--nosuchoption -i @"
	"script -q -f json"
	"-f json -i @ -i @"
)
# without the module, what record and a live run say (with it, they
# would record this machine)
[ -e /dev/perfregs ] || ONCE+=("record -o out.prf -- /bin/true" "-f json -- /bin/true")

# What may differ between two runs and is no output of the tool's own.
# The only place for it: each line is needed, and says why.  (None is,
# today: the invocations above are the ones whose outputs do not vary.)
normalise() {	# FILE: rewritten in place
	:
}

# The runs: LABEL[n], ARGV[n] (the words, \x1f between them) and IN[n]
# (its standard input), n = 0..N-1, in groups (ONCE's, then one for
# each recording) from FIRST[g] to FIRST[g + 1] - 1
LABEL=() ARGV=() IN=() FIRST=()
add() {	# LABEL STDIN ARGS...
	local label=$1 in=$2
	shift 2
	LABEL+=("$label")
	IN+=("$in")
	ARGV+=("$(IFS=$'\x1f'; echo "$*")")
}
FIRST+=(0)
for inv in "${ONCE[@]}"; do
	# shellcheck disable=SC2086
	add "$inv" /dev/null ${inv//@/$R/rec/rec.prf}
done
for rec in "${RECS[@]}"; do
	FIRST+=(${#LABEL[@]})
	f=$R/rec/$rec.prf
	for inv in "${MATRIX[@]}"; do
		[[ "$inv" = *"${ONLY[$rec]:-}"* ]] || continue
		case "$inv" in
		*" -i -")	# shellcheck disable=SC2086
				add "$inv on $rec" "$([ -e "$f" ] && echo "$f" || echo /dev/null)" $inv ;;
		*)		# shellcheck disable=SC2086
				add "$inv on $rec" /dev/null $inv -i "$f" ;;
		esac
	done
done
N=${#LABEL[@]}
FIRST+=("$N")

# side NAME TOOL G: group G's runs, each in out/NAME/G/n: what the tool
# prints (stdout, stderr), its exit status (status) and the files it writes
side() {
	local n args
	mkdir -p "$R/out/$1/$3" && cd "$R/out/$1/$3" &&
		mkdir $(seq "${FIRST[$3]}" $((FIRST[$3 + 1] - 1))) || exit 1
	for ((n = FIRST[$3]; n < FIRST[$3 + 1]; n++)); do
		cd "$R/out/$1/$3/$n" || exit 1
		IFS=$'\x1f' read -ra args <<< "${ARGV[n]}"
		# argv[0] as a shell gives it from PATH: getopt's messages print it
		(exec -a perfregs-dump "$2" "${args[@]}") < "${IN[n]}" > stdout 2> stderr
		echo $? > status
		normalise stdout
		normalise stderr
	done
}

# explain DIR: where DIR's binary files differ first, and what perf and
# go tool pprof make of them on both sides, for the diff
explain() {
	local s f
	for f in perf.data profile.pb.gz; do
		[ -e "out/base/$1/$f" ] && [ -e "out/cur/$1/$f" ] &&
			cmp "out/base/$1/$f" "out/cur/$1/$f" | sed 's/^/# /'
	done
	for s in base cur; do
		(cd "out/$s/$1" || exit
		 export HOME=$R/home
		 if [ -e perf.data ] && command -v perf > /dev/null; then
			perf script -i perf.data > perf.data.script 2>&1
			perf report --stdio -q -i perf.data > perf.data.report 2>&1
		 fi
		 if [ -e profile.pb.gz ] && command -v go > /dev/null; then
			go tool pprof -raw profile.pb.gz > profile.pb.gz.raw 2>&1
		 fi)
	done
}

# group by group, both tools at once; what is the same is let go (the
# large recordings' outputs take some 100 MB a side)
n_bad=0
for ((g = 0; g + 1 < ${#FIRST[@]}; g++)); do
	side base "$OLD" $g &
	side cur "$CUR" $g
	wait
	cd "$R" || exit 1
	bad=$(diff -rq "out/base/$g" "out/cur/$g" 2>&1 | grep -oE "out/(base|cur)/$g(/|: )[0-9]+" |
	      grep -oE '[0-9]+$' | sort -nu)
	[ -n "$bad" ] || rm -rf "out/base/$g" "out/cur/$g"
	for n in $bad; do
		echo "not ok - outputs: ${LABEL[n]}"
		# the start of the diff, for the first 10 (the others are kept)
		[ $((n_bad += 1)) -le 10 ] || continue
		explain "$g/$n"
		diff -ru "out/base/$g/$n" "out/cur/$g/$n" 2>&1 | head -16 | sed 's/^/# /'
	done
	[ -n "${COMPARE_TIMES:-}" ] && echo "# $(elapsed) s: group $g done"
done

for n in "${notes[@]}"; do echo "# outputs: $n"; done
if [ $n_bad = 0 ] && [ $gen_bad = 0 ]; then
	echo "ok - outputs byte for byte as $SHORT: ${#MATRIX[@]} invocations on ${#RECS[@]} recordings and ${#ONCE[@]} alone, $N runs a side ($(elapsed) s)"
	cd / && rm -rf "$R"
else
	echo "# outputs: $n_bad of $N runs differ; both sides kept in $R/out/{base,cur}/GROUP/N, the corpus in $R/rec"
	exit 1
fi
