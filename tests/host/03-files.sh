# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): the files
# perfregs-dump reads and writes: recordings from pipes and FIFOs, -o's
# FILE, FIFO and symlink traps, modes, -o -.

# A reader on FIFO into OUT while the tool runs: fifo_reader FIFO OUT
# starts it ($reader), fifo_reader_end FIFO stops it.  Its descriptors
# are not the suite's (a cat left blocked in a FIFO's open() by a kill
# that came too early held check.sh's tee open, and the run waited for
# good), and a reader left is let go by a writer's open (non-blocking:
# none is made when no reader is left).
fifo_reader() {
	timeout 10 cat "$1" > "$2" 2> /dev/null < /dev/null &
	reader=$!
}
fifo_reader_end() {
	kill "$reader" 2> /dev/null
	dd if=/dev/null of="$1" oflag=nonblock status=none > /dev/null 2>&1 < /dev/null
	wait "$reader" 2> /dev/null
}

# A recording read from a pipe or a FIFO, as perf report -i - reads
# one: each byte is read once, so no subcommand may open it twice (-v
# read the header again, convert read it first through stdio, and a
# FIFO's second open waits for a writer for good).  -i - (the standard
# input), -i /dev/stdin and -i FIFO give what -i FILE gives, byte for
# byte, for -f json, report, convert, convert --to pprof, and -v's
# session line; 10 s each, so that a hang fails.
if [ -s "$T/syn.prf" ]; then
	bad=""
	mkfifo "$T/pipe_fifo"
	"$B/perfregs-dump" -q -f json -i "$T/syn.prf" > "$T/pipe_want.json" 2>&1
	"$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$T/pipe_want.data" 2>&1
	"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$T/pipe_want.pb.gz" 2>&1
	"$B/perfregs-dump" -v -q -i "$T/syn.prf" 2>&1 >/dev/null | grep "session:" > "$T/pipe_want.v"
	[ -s "$T/pipe_want.v" ] || bad="$bad no -v session line from the file;"
	# HOW ARGS: the recording through HOW (pipe, fifo) to perfregs-dump ARGS
	# with IN for its name; stdout in $T/pipe_got, stderr in $T/pipe_err
	through() {
		local how=$1 a args=()
		shift
		for a in "$@"; do
			if [ "$a" = IN ] && [ "$how" = fifo ]; then a=$T/pipe_fifo
			elif [ "$a" = IN ]; then a=-; fi
			args+=("$a")
		done
		if [ "$how" = fifo ]; then
			timeout 10 sh -c 'cat "$1" > "$2"' _ "$T/syn.prf" "$T/pipe_fifo" &
			timeout 10 "$B/perfregs-dump" "${args[@]}" > "$T/pipe_got" 2> "$T/pipe_err"
		else
			cat "$T/syn.prf" | timeout 10 "$B/perfregs-dump" "${args[@]}" \
				> "$T/pipe_got" 2> "$T/pipe_err"
		fi
		local rc=$?
		wait
		return $rc
	}
	for how in pipe fifo; do
		through $how -q -f json -i IN && cmp -s "$T/pipe_got" "$T/pipe_want.json" ||
			bad="$bad $how -f json: $(head -c 200 "$T/pipe_err");"
		through $how script -q -f json -i IN && cmp -s "$T/pipe_got" "$T/pipe_want.json" ||
			bad="$bad $how script: $(head -c 200 "$T/pipe_err");"
		rm -f "$T/pipe.data" "$T/pipe.pb.gz"
		through $how convert -q -i IN -o "$T/pipe.data" &&
			cmp -s "$T/pipe.data" "$T/pipe_want.data" ||
			bad="$bad $how convert: $(head -c 200 "$T/pipe_err");"
		through $how convert --to pprof -q -i IN -o "$T/pipe.pb.gz" &&
			cmp -s "$T/pipe.pb.gz" "$T/pipe_want.pb.gz" ||
			bad="$bad $how convert --to pprof: $(head -c 200 "$T/pipe_err");"
		through $how -v -q -i IN && [ "$(grep "session:" "$T/pipe_err")" = "$(cat "$T/pipe_want.v")" ] ||
			bad="$bad $how -v: exit $?: $(head -c 200 "$T/pipe_err");"
	done
	cat "$T/syn.prf" | timeout 10 "$B/perfregs-dump" -q -f json -i /dev/stdin > "$T/pipe_got" &&
		cmp -s "$T/pipe_got" "$T/pipe_want.json" || bad="$bad -i /dev/stdin;"
	# standard input a regular file, read from where it stands
	(head -c 0; timeout 10 "$B/perfregs-dump" -q -f json -i -) < "$T/syn.prf" > "$T/pipe_got" &&
		cmp -s "$T/pipe_got" "$T/pipe_want.json" || bad="$bad -i - < FILE;"
	if [ -z "$bad" ]; then
		echo "ok - a recording from a pipe (-i -, -i /dev/stdin) or a FIFO: json, report, convert, pprof and -v as from the file"
	else
		echo "not ok - a recording from a pipe (-i -, -i /dev/stdin) or a FIFO: json, report, convert, pprof and -v as from the file:$bad"
	fi
else
	echo "not ok - a recording from a pipe or a FIFO (no synthetic recording)"
fi

# The header of a recording to a FIFO (record -o FIFO, or a pipe) once
# the session fell back to user mode only (rec_update_config(), as
# record does when perf refuses kernel mode; mkhostile -U): with a
# command line of 480 KB (16 words of 30000 bytes: the info outgrew the
# write buffer, which sent the header away) it must still say "user mode
# only", its info keeping 64 KiB of the words; and when the header went
# out before (-L: 1000 records straight to the file) the recorder says
# it cannot be updated and goes on: the recording is whole, exit 0 (a
# pwrite() to the FIFO made a sticky error of it, the recording lost).
# A regular file is updated in place either way.
long=$(head -c 30000 /dev/zero | tr '\0' a)
args=()
for _ in $(seq 16); do args+=(-A "$long"); done
mkfifo "$T/hdr_fifo"
bad=""
# OUT ARGS...: mkhostile to OUT (fifo: through $T/hdr_fifo into $T/hdr.prf)
hdr() {
	local out=$1 rc
	shift
	rm -f "$T/hdr.prf"
	if [ "$out" = fifo ]; then
		timeout 10 sh -c 'cat "$1" > "$2"' _ "$T/hdr_fifo" "$T/hdr.prf" &
		timeout 10 "$B/mkhostile" "$T/hdr_fifo" "$@" 2> "$T/hdr.err"
		rc=$?
		wait
	else
		"$B/mkhostile" "$T/hdr.prf" "$@" 2> "$T/hdr.err"
		rc=$?
	fi
	return $rc
}
session() {
	"$B/perfregs-dump" -v -q -i "$T/hdr.prf" 2>&1 >/dev/null | grep "session:"
}
for out in fifo file; do
	if hdr $out "${args[@]}" -U && [ ! -s "$T/hdr.err" ] &&
	   session | grep -q ", user mode only$"; then
		sz=$(stat -c %s "$T/hdr.prf")
		[ "$sz" -gt 60000 ] && [ "$sz" -lt 70000 ] || bad="$bad $out, long command line: $sz bytes;"
	else
		bad="$bad $out, long command line: $(head -c 200 "$T/hdr.err") '$(session)';"
	fi
done
if ! hdr fifo -L 1000 -U || ! grep -q "the header says kernel mode too: Illegal seek" "$T/hdr.err" ||
   ! "$B/perfregs-dump" -q --summary -i "$T/hdr.prf" > /dev/null 2>&1; then
	bad="$bad fifo, header gone: $(head -c 200 "$T/hdr.err");"
fi
hdr file -L 1000 -U && session | grep -q ", user mode only$" || bad="$bad file, header gone: $(session);"
if [ -z "$bad" ]; then
	echo "ok - a FIFO's recording header says user mode only after the fallback; once it went out, said, no error"
else
	echo "not ok - a FIFO's recording header says user mode only after the fallback; once it went out, said, no error:$bad"
fi

# a recording's path is anyone's length: convert leaves out of perf.data
# a mapping whose path would not fit perf's 16-bit record size (or its
# PATH_MAX): perf script reads the file whole, the sample is there
if command -v perf > /dev/null && "$B/mkhostile" "$T/longpath.prf" \
	-m "/$(head -c 65520 /dev/zero | tr '\0' a)" -b 0123456789abcdef0123456789abcdef01234567 &&
   "$B/perfregs-dump" convert -q -i "$T/longpath.prf" -o "$T/longpath.data"; then
	lp=$(perf script -i "$T/longpath.data" -F comm,ip 2>&1)
	if [ $? = 0 ] && ! printf '%s' "$lp" | grep -q "failed to process" &&
	   printf '%s\n' "$lp" | grep -q "^[[:space:]]*400010$"; then
		echo "ok - convert: a 64 KiB path from a recording breaks no perf.data record"
	else
		echo "not ok - convert: a 64 KiB path from a recording breaks no perf.data record: $(printf '%s' "$lp" | head -c 300)"
	fi
else
	echo "ok - convert: a 64 KiB path from a recording # SKIP perf is not installed (make deps)"
fi

# a run refused before it samples (here: no module, no /dev/perfregs)
# loses no recording: -o FILE over an earlier one leaves it as it was,
# with no FILE.old, and a new FILE is not left behind empty
what="a refused run leaves -o FILE as it was: no empty recording, no FILE.old, no symlink followed"
if [ -e /dev/perfregs ]; then
	echo "ok - $what # SKIP /dev/perfregs exists here"
else
	printf 'earlier recording\n' > "$T/keep.prf"
	"$B/perfregs-dump" -q -o "$T/keep.prf" -- /bin/true 2> "$T/keep.err"
	rc1=$?
	"$B/perfregs-dump" record -q -o "$T/new.prf" -- /bin/true 2>> "$T/keep.err"
	rc2=$?
	# a symlink the user put there is not removed: only a file this run
	# made, under its name, is.  Nor is one followed where a file is
	# made (one planted in a shared directory): a dangling one's target
	# is not created, one to a file leaves it as it was, and one at
	# FILE.old is taken over by FILE's name, its target untouched.
	ln -s "$T/link_target" "$T/link.prf"
	"$B/perfregs-dump" record -q -o "$T/link.prf" -- /bin/true 2>> "$T/keep.err"
	printf 'victim\n' > "$T/victim"
	cp "$T/victim" "$T/victim2"
	ln -s "$T/victim" "$T/to_file.prf"
	"$B/perfregs-dump" record -q -o "$T/to_file.prf" -- /bin/true 2>> "$T/keep.err"
	ln -s "$T/victim2" "$T/keep.prf.old"
	"$B/perfregs-dump" record -q -o "$T/keep.prf" -- /bin/true 2>> "$T/keep.err"
	if [ $rc1 = 2 ] && [ $rc2 = 2 ] && [ "$(cat "$T/keep.prf")" = "earlier recording" ] &&
	   [ ! -e "$T/keep.prf.old" ] && [ ! -L "$T/keep.prf.old" ] && [ ! -e "$T/new.prf" ] &&
	   [ -L "$T/link.prf" ] && [ ! -e "$T/link_target" ] &&
	   [ "$(readlink "$T/to_file.prf")" = "$T/victim" ] && [ ! -e "$T/to_file.prf.old" ] &&
	   [ "$(cat "$T/victim" "$T/victim2")" = "$(printf 'victim\nvictim')" ] &&
	   grep -q "module is not loaded" "$T/keep.err"; then
		echo "ok - $what"
	else
		echo "not ok - $what: exit $rc1/$rc2, FILE '$(head -c 60 "$T/keep.prf")'," \
		     "FILE.old $(ls -l "$T/keep.prf.old" 2>&1 | head -c 80), new FILE" \
		     "$(ls -l "$T/new.prf" 2>&1 | head -c 80), symlink" \
		     "$(ls -l "$T/link.prf" 2>&1 | head -c 80), its target" \
		     "$(ls -l "$T/link_target" 2>&1 | head -c 80), to a file" \
		     "$(ls -l "$T/to_file.prf" 2>&1 | head -c 80), victims '$(cat "$T/victim" "$T/victim2" | head -c 40)'"
	fi
fi

# -o FIFO where someone else made the FIFO, in a sticky directory others
# may write to (/tmp): the FIFO was opened without O_CREAT, so that the
# kernel's fs.protected_fifos (0 here, and on many systems) never
# checked it, and its owner read the recording (user stacks, registers,
# kernel addresses).  Refused, whatever the sysctls say, with what to
# do; so is a symlink of someone else's there that leads to a FIFO.  A
# FIFO of our own there is written to.  A reader is on each FIFO, so
# that an open does not wait: the open happens before the module is
# needed, so that this runs without one.
what="-o FIFO: someone else's FIFO or symlink in a sticky directory others may write to is refused"
if [ "$(id -u)" != 0 ]; then
	echo "ok - $what # SKIP not root (a FIFO of another user is needed)"
else
	S=$T/sticky
	mkdir "$S" && chmod 1777 "$S"
	mkfifo "$S/theirs.rec" "$S/mine.rec" "$T/elsewhere.rec"
	chown 65534 "$S/theirs.rec"
	ln -s "$T/elsewhere.rec" "$S/link.rec"
	chown -h 65534 "$S/link.rec"
	# FIFO ARGS...: perfregs-dump ARGS with a reader on FIFO meanwhile;
	# the exit status in $rc, standard error in $T/sticky.err
	fifo_run() {
		local fifo=$1 reader
		shift
		fifo_reader "$fifo" /dev/null
		timeout 10 "$B/perfregs-dump" "$@" 2> "$T/sticky.err"
		rc=$?
		fifo_reader_end "$fifo"
	}
	bad=""
	for f in theirs link; do
		fifo_run "$S/$f.rec" record -q -o "$S/$f.rec" -- /bin/true
		[ $rc = 5 ] && grep -q "refusing to write $S/$f.rec: it is a .* of uid 65534, in a sticky directory .*; remove it, or write to a new name" "$T/sticky.err" ||
			bad="$bad record -o $f: exit $rc, $(head -c 300 "$T/sticky.err");"
	done
	if [ ! -e /dev/perfregs ]; then
		fifo_run "$S/mine.rec" record -q -o "$S/mine.rec" -- /bin/true
		[ $rc = 2 ] && grep -q "module is not loaded" "$T/sticky.err" ||
			bad="$bad record -o a FIFO of ours: exit $rc, $(head -c 300 "$T/sticky.err");"
	fi
	if [ -z "$bad" ]; then
		echo "ok - $what"
	else
		echo "not ok - $what:$bad"
	fi
fi

# what -o holds while it works in FILE's directory (out_open(): that
# directory open, FILE.old's name) is let go of on every way out, under
# valgrind: a run refused before it samples (no module), and an -o that
# cannot be written (a directory; someone else's FIFO in a sticky one,
# when root): no descriptor of the directory open at the exit, no block
# out_open() allocated left
what="-o: a refused run or an unwritable FILE leaves its directory's descriptor and FILE.old's name freed"
if ! command -v valgrind > /dev/null; then
	echo "ok - $what # SKIP valgrind is not installed"
else
	V=$T/vg
	mkdir -p "$V/dir.out"
	cases="dir.out"
	[ -e /dev/perfregs ] || cases="$cases new.out"
	[ -p "$T/sticky/theirs.rec" ] && cases="$cases sticky"
	bad=""
	for c in $cases; do
		out=$V/$c
		[ $c = sticky ] && out=$T/sticky/theirs.rec
		timeout 120 valgrind --track-fds=yes --leak-check=full --show-leak-kinds=all \
			--log-file="$V/$c.log" "$B/perfregs-dump" record -q -o "$out" -- /bin/true 2> /dev/null
		rc=$?
		dir=${out%/*}
		if [ $rc = 0 ] || [ $rc -ge 124 ] || ! grep -q "FILE DESCRIPTORS" "$V/$c.log"; then
			bad="$bad $c: exit $rc under valgrind, $(tail -c 300 "$V/$c.log");"
		elif grep -q "Open file descriptor [0-9]*: $dir\$" "$V/$c.log" ||
		     grep -q "out_open" "$V/$c.log"; then
			bad="$bad $c: $(grep -e "Open file descriptor [0-9]*: $dir\$" -e out_open -B2 -A2 "$V/$c.log" | head -c 400);"
		fi
	done
	if [ -z "$bad" ]; then
		echo "ok - $what ($cases)"
	else
		echo "not ok - $what:$bad"
	fi
fi

# the files the tool makes hold what was sampled (registers, stack bytes,
# kernel addresses): under umask 022 they were 0644, anyone's to read.
# record -o (kept after a refused run by an unlinkat() that fails, as no
# module is loaded here), convert, convert --to pprof, --flamegraph and
# the tests' rec_create() make them 0600, as perf makes perf.data.  An
# existing OUTPUT is still replaced, by a new file renamed over it once
# whole, never written in place (a hard link to it keeps what it was); a
# symlink to a file is written through (/dev/stdout > FILE); perf.data
# is not sent to a FIFO to fail at its end; and someone else's FIFO or
# symlink in a sticky directory others may write to is refused, as for
# record -o (when root)
what="outputs are made 0600; OUTPUT replaced once whole, never written in place; traps in /tmp refused"
M=$T/modes
mkdir -p "$M"
bad=""
mode_of() { stat -c %a "$1" 2> /dev/null; }
(
	umask 022
	"$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$M/new.data" &&
	"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$M/new.pb.gz" &&
	"$B/perfregs-dump" -q -i "$T/syn.prf" --flamegraph "$M/new.svg" &&
	"$B/mkrec" "$M/mk.out" 1 > /dev/null
) 2> "$M/err" || bad="$bad made: $(head -c 200 "$M/err");"
for f in new.data new.pb.gz new.svg mk.out; do
	[ "$(mode_of "$M/$f")" = 600 ] || bad="$bad $f mode $(mode_of "$M/$f");"
done
if [ ! -e /dev/perfregs ] &&
   printf '#include <errno.h>\nint unlinkat(int d, const char *p, int f)\n{ errno = EPERM; return -1; }\n' |
	cc -shared -fPIC -o "$M/nounlink.so" -x c - 2> /dev/null; then
	(umask 022; LD_PRELOAD=$M/nounlink.so "$B/perfregs-dump" record -q -o "$M/rec.out" -- /bin/true 2> /dev/null)
	[ "$(mode_of "$M/rec.out")" = 600 ] || bad="$bad record -o: mode $(mode_of "$M/rec.out");"
fi
# an earlier output, and a hard link to it
printf 'earlier\n' > "$M/old.data"
chmod 644 "$M/old.data"
ln "$M/old.data" "$M/hard.data"
cp "$M/old.data" "$M/old.pb.gz"
ln -s "$M/target.pb.gz" "$M/via.pb.gz"
: > "$M/target.pb.gz"
"$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$M/old.data" 2>> "$M/err" &&
	cmp -s "$M/old.data" "$M/new.data" && [ "$(mode_of "$M/old.data")" = 600 ] &&
	[ "$(cat "$M/hard.data")" = earlier ] ||
	bad="$bad over an earlier perf.data: mode $(mode_of "$M/old.data"), hard link '$(head -c 20 "$M/hard.data" | tr -c '[:print:]' '?')';"
"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$M/old.pb.gz" 2>> "$M/err" &&
	cmp -s "$M/old.pb.gz" "$M/new.pb.gz" || bad="$bad over an earlier profile;"
"$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$M/via.pb.gz" 2>> "$M/err" &&
	[ -L "$M/via.pb.gz" ] && cmp -s "$M/target.pb.gz" "$M/new.pb.gz" ||
	bad="$bad through a symlink to a file: $(ls -l "$M/via.pb.gz" | head -c 100);"
ls -a "$M" | grep -q '^\.[a-z]' && bad="$bad left behind: $(ls -a "$M" | grep '^\.[a-z]' | tr '\n' ' ');"
mkfifo "$M/fifo.data"
fifo_reader "$M/fifo.data" "$M/fifo.got"
timeout 10 "$B/perfregs-dump" convert -q -i "$T/syn.prf" -o "$M/fifo.data" 2> "$M/fifo.err"
rc=$?
fifo_reader_end "$M/fifo.data"
[ $rc = 5 ] && grep -q "it is a FIFO, and this output is written again at its start" "$M/fifo.err" &&
	[ ! -s "$M/fifo.got" ] || bad="$bad perf.data to a FIFO: exit $rc, $(head -c 200 "$M/fifo.err");"
if [ -d "$T/sticky" ]; then
	S=$T/sticky
	printf 'victim\n' > "$M/victim"
	ln -s "$M/victim" "$S/trap.svg"
	chown -h 65534 "$S/trap.svg"
	"$B/perfregs-dump" -q -i "$T/syn.prf" --flamegraph "$S/trap.svg" 2> "$M/trap.err"
	rc=$?
	[ $rc = 5 ] && grep -q "refusing to write $S/trap.svg: it is a symlink of uid 65534" "$M/trap.err" &&
		[ "$(cat "$M/victim")" = victim ] ||
		bad="$bad --flamegraph to someone else's symlink in a sticky directory: exit $rc, victim '$(head -c 40 "$M/victim" | tr -c '[:print:]' '?')';"
	fifo_reader "$S/theirs.rec" "$M/theirs.got"
	timeout 10 "$B/perfregs-dump" convert --to pprof -q -i "$T/syn.prf" -o "$S/theirs.rec" 2> "$M/theirs.err"
	rc=$?
	fifo_reader_end "$S/theirs.rec"
	[ $rc = 5 ] && grep -q "refusing to write $S/theirs.rec: it is a FIFO of uid 65534" "$M/theirs.err" &&
		[ ! -s "$M/theirs.got" ] ||
		bad="$bad pprof to someone else's FIFO in a sticky directory: exit $rc, $(wc -c < "$M/theirs.got") bytes read;"
fi
if [ -z "$bad" ]; then
	echo "ok - $what"
else
	echo "not ok - $what:$bad"
fi

# record -o - is the standard output, as perf record -o - (it made a
# file named "-"): with a directory named "-" where it runs, the run gets
# as far as the module (none here: refused) instead of failing on that
# name; to a terminal it is refused, and so is -f, which prints there
# too.  A writer on a standard output that is a file (mkhostile -,
# which writes as record -o - does: -L sends the header out first, -U
# changes it after) starts where the file stands and rewrites its header
# there, not at offset 0; with O_APPEND (>>), where a pwrite() lands at
# the end, it says it cannot and the recording stays whole.
what="record -o - writes to the standard output, not to a terminal or with -f; its header rewritten where it starts"
D=$T/dash
mkdir -p "$D/-"
bad=""
if [ -e /dev/perfregs ]; then
	(cd "$D" && timeout 60 "$B/perfregs-dump" record -q -o - -- /bin/true 2> "$D/err" |
		"$B/perfregs-dump" script -q --summary -i - > /dev/null 2>> "$D/err") ||
		bad="$bad record -o - | script -i -: $(head -c 200 "$D/err");"
else
	(cd "$D" && timeout 60 "$B/perfregs-dump" record -q -o - -- /bin/true > "$D/out" 2> "$D/err")
	rc=$?
	[ $rc = 2 ] && grep -q "module is not loaded" "$D/err" && ! grep -q "cannot write" "$D/err" &&
		[ -d "$D/-" ] && [ ! -e "$D/-.old" ] ||
		bad="$bad record -o -: exit $rc, $(head -c 200 "$D/err");"
fi
(cd "$D" && "$B/perfregs-dump" record -q -o - -f json -- /bin/true > "$D/out" 2> "$D/err")
rc=$?
[ $rc = 1 ] && grep -q -- "-o - writes the recording to the standard output: it takes no -f" "$D/err" ||
	bad="$bad record -o - -f json: exit $rc, $(head -c 200 "$D/err");"
if command -v script > /dev/null; then
	out=$(cd "$D" && timeout 60 script -qec "$B/perfregs-dump record -q -o - -- /bin/true" /dev/null < /dev/null 2>&1)
	rc=$?
	[ $rc = 5 ] && printf '%s' "$out" | grep -q "standard output, a terminal here" ||
		bad="$bad record -o - to a terminal: exit $rc, $(printf '%s' "$out" | head -c 200);"
fi
{ printf 'PREFIX!!'; "$B/mkhostile" - -L 1000 -U; } > "$D/at8.rec" 2> "$D/mk.err"
[ "$(head -c 8 "$D/at8.rec")" = 'PREFIX!!' ] && [ ! -s "$D/mk.err" ] &&
	tail -c +9 "$D/at8.rec" | "$B/perfregs-dump" -v -q -i - 2>&1 > /dev/null |
	grep -q ", user mode only$" ||
	bad="$bad header of a recording 8 bytes into the standard output: $(head -c 200 "$D/mk.err") '$(tail -c +9 "$D/at8.rec" | "$B/perfregs-dump" -v -q -i - 2>&1 > /dev/null | tail -c 200)';"
printf 'PREFIX!!' > "$D/app.rec"
: > "$D/app.err"
"$B/mkhostile" - -L 1000 -U >> "$D/app.rec" 2> "$D/mk.err"
grep -q "the header says kernel mode too: Illegal seek" "$D/mk.err" &&
	[ "$(head -c 8 "$D/app.rec")" = 'PREFIX!!' ] &&
	tail -c +9 "$D/app.rec" | "$B/perfregs-dump" -q --summary -i - > /dev/null 2> "$D/app.err" ||
	bad="$bad recording appended to the standard output (>>): $(head -c 200 "$D/mk.err") $(head -c 200 "$D/app.err");"
if [ -z "$bad" ]; then
	echo "ok - $what"
else
	echo "not ok - $what:$bad"
fi
