# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): convert to
# perf.data and pprof, the flame graph, the frames every output takes, the
# unwinder's reads of mapped files.

# convert, checked by perf: live PIEs stopped in read() by ptrace
# (mksnap: registers, stack and /proc maps as a sample has them), gcc and
# lld and -m32 (whose read() goes through the vDSO), converted; perf
# script must show perfregs' own chains frame by frame, perf report -g
# too, and perf's header must miss none of the features the recording has
if ! command -v perf > /dev/null; then
	echo "ok - convert checked by perf # SKIP perf is not installed (make deps)"
elif [ -x "$B/mksnap" ] && cc -O1 -g -fPIE -pie -o "$T/cv_gcc" tests/bias_target.c 2>/dev/null &&
     clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/cv_lld" tests/bias_target.c 2>/dev/null &&
     { ! m32_part "convert checked by perf: the -m32 PIE" ||
       cc -m32 -O1 -g -fPIE -pie -o "$T/cv_m32" tests/bias_target.c 2>/dev/null; }; then
	# shellcheck disable=SC2046
	/usr/bin/python3 tests/convert_vs_perf.py "$B" "$T/cv_gcc" "$T/cv_lld" \
		$([ -z "$I386_SKIP" ] && echo "$T/cv_m32")
else
	echo "not ok - convert checked by perf: its programs could not be built"
fi

# --flamegraph: the SVG of live PIEs stopped in read() (mksnap: gcc, lld,
# -m32), of mkrec's i386 and kernel frames, of hostile names, and of a
# frame too narrow to draw, against -f folded of the same recordings; then
# in headless Chromium: the DOM after its script ran, a search (?s=),
# a zoom (#z=) and a screenshot (BUILD/flamegraph.png)
if [ -x "$B/mksnap" ] && cc -O1 -g -fPIE -pie -o "$T/fg_gcc" tests/bias_target.c 2>/dev/null &&
   clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/fg_lld" tests/bias_target.c 2>/dev/null &&
   { ! m32_part "--flamegraph: the -m32 PIE" ||
     cc -m32 -O1 -g -fPIE -pie -o "$T/fg_m32" tests/bias_target.c 2>/dev/null; }; then
	# shellcheck disable=SC2046
	/usr/bin/python3 tests/flame_check.py "$B" "$T/fg_gcc" "$T/fg_lld" \
		$([ -z "$I386_SKIP" ] && echo "$T/fg_m32")
else
	echo "not ok - --flamegraph: its programs could not be built"
fi

# One rule for a sample's frames in every output (sample_frames()): a
# user-mode sample with a stack that unwinds to nothing (its task maps
# no file) keeps its user IP, and a kernel-mode one is its kernel IP
# only; -f folded, convert's perf.data (perf script) and pprof (go tool
# pprof -raw) each give one frame per sample, at the same address
what="folded, perf.data and pprof: the same frames when nothing unwinds"
if ! command -v perf > /dev/null || ! command -v go > /dev/null; then
	echo "ok - $what # SKIP perf or go is not installed (make deps)"
elif "$B/mkhostile" "$T/nf.prf" -s -k kfunc; then
	cg="--call-graph dwarf"
	# frames per sample, in sample order
	fo=$("$B/perfregs-dump" -q -f folded $cg -i "$T/nf.prf" |
	     awk '{ n = split($1, a, ";"); print n - 1 }' | sort | tr '\n' ' ')
	"$B/perfregs-dump" convert -q $cg -i "$T/nf.prf" -o "$T/nf.data" &&
	pe=$(perf script -i "$T/nf.data" -F ip 2>/dev/null |
	     awk '/^$/ { if (n) print n; n = 0; next } { n++ } END { if (n) print n }' |
	     sort | tr '\n' ' ')
	pa=$(perf script -i "$T/nf.data" -F ip 2>/dev/null | awk 'NF { print $1 }' | sort |
	     tr '\n' ' ')
	"$B/perfregs-dump" convert --to pprof -q $cg -i "$T/nf.prf" -o "$T/nf.pb.gz" &&
	raw=$(HOME=$T go tool pprof -symbolize=none -raw "$T/nf.pb.gz" 2>&1)
	pp=$(printf '%s\n' "$raw" | awk '/^Samples:/ { s = 1; getline; next }
		/^Locations/ { s = 0 } s && /^ *[0-9]+ +[0-9]+: / { sub(/.*: */, ""); print NF }' |
	     sort |
	     tr '\n' ' ')
	pl=$(printf '%s\n' "$raw" | awk '/^Locations/ { s = 1; next } /^Mappings/ { s = 0 }
		s { sub(/^0x/, "", $2); print $2 }' | sort | tr '\n' ' ')
	if [ "$fo" = "1 1 " ] && [ "$pe" = "1 1 " ] && [ "$pp" = "1 1 " ] &&
	   [ "$pa" = "400010 ffffffff81000010 " ] && [ "$pl" = "400010 ffffffff81000010 " ]; then
		echo "ok - $what"
	else
		echo "not ok - $what: frames per sample: folded '$fo', perf '$pe', pprof '$pp';" \
		     "addresses: perf '$pa', pprof '$pl'"
	fi
else
	echo "not ok - $what: mkhostile failed"
fi

# convert --to pprof, read by go tool pprof: the same live PIEs, several
# processes of each, some snapshotted twice, and mkrec's recording with
# kernel frames; -raw must show -f folded's stacks and counts, the
# sample types, labels and the files' build-ids
if ! command -v go > /dev/null; then
	echo "ok - convert --to pprof checked by go tool pprof # SKIP go is not installed (make deps)"
elif [ -x "$B/mksnap" ] && [ -x "$B/mkrec" ] &&
     cc -O1 -g -fPIE -pie -o "$T/pp_gcc" tests/bias_target.c 2>/dev/null &&
     clang -O1 -g -fPIE -pie -fuse-ld=lld -o "$T/pp_lld" tests/bias_target.c 2>/dev/null &&
     { ! m32_part "convert --to pprof checked by go tool pprof: the -m32 PIE" ||
       cc -m32 -O1 -g -fPIE -pie -o "$T/pp_m32" tests/bias_target.c 2>/dev/null; }; then
	# shellcheck disable=SC2046
	/usr/bin/python3 tests/pprof_vs_folded.py "$B" "$T/pp_gcc" "$T/pp_lld" \
		$([ -z "$I386_SKIP" ] && echo "$T/pp_m32")
else
	echo "not ok - convert --to pprof checked by go tool pprof: its programs could not be built"
fi

# convert --to: perf is the default, the same perf.data byte for byte;
# a value but perf or pprof, or --to without convert, is refused: exit 1
what="convert --to perf is the default; --to takes perf or pprof, with convert only"
if "$B/mkrec" "$T/to.prf" 5 && "$B/perfregs-dump" convert -q -i "$T/to.prf" -o "$T/to1.data" &&
   "$B/perfregs-dump" convert -q --to perf -i "$T/to.prf" -o "$T/to2.data" &&
   cmp -s "$T/to1.data" "$T/to2.data"; then
	e1=$("$B/perfregs-dump" convert --to elf -i "$T/to.prf" -o "$T/to3" 2>&1)
	r1=$?
	e2=$("$B/perfregs-dump" -q --to pprof -i "$T/to.prf" 2>&1)
	r2=$?
	if [ "$r1" = 1 ] && [ "$r2" = 1 ] && [ ! -e "$T/to3" ] &&
	   printf '%s' "$e1" | grep -q "perf (perf.data) or pprof (profile.proto), not 'elf'" &&
	   printf '%s' "$e2" | grep -q "convert --to pprof"; then
		echo "ok - $what"
	else
		echo "not ok - $what: --to elf: exit $r1 '$e1'; --to without convert: exit $r2 '$e2'"
	fi
else
	echo "not ok - $what: convert and convert --to perf differ or failed"
fi

# The unwinder reads words outside the stack snapshot from the file a
# mapping names (tests/fp_target.S: at fp_body the return address is at
# [%rbp + 8]).  A sampled user can map a file of their own and swap it
# for a symlink to one only root reads, and a recording can name any
# file: words of it must never come out as frame addresses.  A mapping
# at %rbp of a non-ELF file full of 'A's must give no frame
# 0x4141414141414141; of an ELF copy whose build-id is not the one the
# mapping has, no frame at its e_entry (the word at 0x18); the same copy
# with its own build-id, or none, is read (the frame is there).
S=$T/secret_case
mkdir -p "$S"
if cc -no-pie -o "$S/prog" tests/fp_target.S 2>/dev/null &&
   body=0x$(nm "$S/prog" | sed -n 's/ T fp_body$//p') && [ "$body" != 0x ] &&
   cp "$S/prog" "$S/elf" &&
   entry=$(readelf -h "$S/elf" | sed -n 's/^ *Entry point address: *0x//p') &&
   own=$(readelf -n "$S/elf" | sed -n 's/^ *Build ID: *//p') && [ -n "$own" ]; then
	head -c 4096 /dev/zero | tr '\0' A > "$S/secret"
	chains() {	# RECORDING: the frame addresses, one line
		"$B/perfregs-dump" -q -f json --call-graph dwarf -i "$1" |
			/usr/bin/python3 -c 'import json, sys
for l in sys.stdin:
    r = json.loads(l)
    if r["type"] == "sample":
        print(" ".join(f["ip"] for f in r.get("callchain", [])))'
	}
	bad=""
	"$B/mkhostile" "$S/a.prf" -a "$body" -m "$S/prog" -s -f 0x10000800 -d "$S/secret"
	got=$(chains "$S/a.prf")
	case "$got" in
	*0x4141414141414141*|"") bad="$bad non-ELF file: '$got';" ;;
	esac
	for id in 0123456789abcdef0123456789abcdef01234567 "$own" ""; do
		"$B/mkhostile" "$S/b.prf" -a "$body" -m "$S/prog" -s -f 0x10000010 \
			-d "$S/elf" ${id:+-D "$id"}
		got=$(chains "$S/b.prf")
		read_it=no
		case " $got " in
		*" 0x$entry "*) read_it=yes ;;
		esac
		want=yes
		[ "$id" = 0123456789abcdef0123456789abcdef01234567 ] && want=no
		[ "$read_it" = "$want" ] || bad="$bad ELF, build-id '${id:-none}': '$got';"
	done
	if [ -z "$bad" ]; then
		echo "ok - the unwinder reads no word of a non-ELF file or of one its build-id disowns"
	else
		echo "not ok - the unwinder reads no word of a non-ELF file or of one its build-id disowns:$bad"
	fi
else
	echo "not ok - the unwinder reads no word of a non-ELF file (no fp_target built)"
fi

# A frame pointer within 8 of 2^64 (mkwrap: RBP 0xfffffffffffffffc, SP 0
# to 6): the word at it is neither in the stack snapshot nor in a
# mapping.  "addr - sp + 8 > stack_len" wrapped and read it from before
# the snapshot (SP 0: a third frame, 0x2222, through the first task's
# mapping), and "addr + 8 > end" wrapped for a mapping at the top of the
# address space and read its file past the mapping (a third frame for SP
# 0 to 4 of the second task).  Both unwinders, 2 frames for SP 0 to 4
# (the IP and the word at RBP + 8, which wraps to 4), 1 for 5 and 6.
if [ -x "$B/mkwrap" ] && "$B/mkwrap" "$T/wrap.prf" "$T/wrap.dat"; then
	bad=""
	want="2 2 2 2 2 1 1 2 2 2 2 2 1 1"
	for path in fast dwfl; do
		unw=""
		[ $path = dwfl ] && unw=dwfl
		got=$(PERFREGS_UNWIND=$unw "$B/perfregs-dump" -q -f json --call-graph dwarf \
			--threads 1 -i "$T/wrap.prf" |
			/usr/bin/python3 -c 'import json, sys
print(" ".join(str(len(r.get("callchain") or [])) for r in map(json.loads, sys.stdin)
               if r["type"] == "sample"))')
		[ "$got" = "$want" ] || bad="$bad $path: frames '$got';"
	done
	if [ -z "$bad" ]; then
		echo "ok - a frame pointer within 8 of 2^64 reads no word before the stack snapshot or past a mapping"
	else
		echo "not ok - a frame pointer within 8 of 2^64 (want '$want'):$bad"
	fi
else
	echo "not ok - a frame pointer within 8 of 2^64: no mkwrap recording"
fi
