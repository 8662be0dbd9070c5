# shellcheck shell=bash
# Host tests, part of tests/host_tests.sh (which sets B, T, SECS,
# I386_SKIP and m32_part, and runs the parts in order): the project: the
# selftests without the module, dkms, checkpatch and barriers, the layers,
# the outputs as the pinned commit's, make check and make demo as first
# commands.

# Without the module every selftest must say so and skip, not fail: the
# 6.1 harness runs a test body after its setup skipped unless the setup
# leaves through SETUP_SKIP().  (Only where no module is loaded.)
if [ ! -e /dev/perfregs ]; then
	bad=""
	n=0
	for t in "$B"/selftests/test_*; do
		[ -x "$t" ] && head -c 4 "$t" | grep -q ELF || continue
		out=$(timeout 60 "$t" 2>&1)
		rc=$?
		n=$((n + 1))
		if [ $rc -ne 0 ] && [ $rc -ne 4 ] || printf '%s\n' "$out" | grep -q '^not ok'; then
			bad="$bad $(basename "$t") (exit $rc, $(printf '%s\n' "$out" | grep -c '^not ok') failed)"
		fi
	done
	if [ -z "$bad" ] && [ $n -gt 0 ]; then
		echo "ok - with no module loaded, $n selftest programs skip and fail nothing"
	else
		echo "not ok - with no module loaded, selftests skip and fail nothing:${bad:- none built}"
	fi
else
	echo "ok - selftests without the module # SKIP a perfregs module is loaded here"
fi

# dkms builds the module from make dkms-install's sources, natively, in
# trees of its own; the guest's test_install.sh loads what it built
tests/dkms_check.sh "$B"

# every barrier of the ring protocol names itself and its pair
/usr/bin/python3 tests/barriers.py . | sed 1d

# perfregs-dump's modules include and call each other in layers, going
# down only, with no circle (tests/layers.py, from the objects' symbols)
/usr/bin/python3 tests/layers.py "$B"

# every output of perfregs-dump as the pinned commit's, byte for byte
bash tests/compare/outputs.sh "$B"

# make check and make demo on a machine without the packages: the kernel
# list must come from after the install.  Fakes stand in for tools/deps.sh
# (it "installs" a kernel: a marker), tools/kvers.sh (it prints kernels
# only once the marker is there) and the scripts that would boot guests
# (they print the kernels they were given); nothing is built or booted.
M=$T/make
mkdir -p "$M"
printf '#!/bin/sh\ntouch "%s/installed"\n' "$M" > "$M/deps"
printf '#!/bin/sh\n[ -e "%s/installed" ] && echo 6.1.0-99-amd64 && echo 6.12.99+deb12-amd64 && echo 6.1.0-99-rt-amd64 && echo 6.12.99+deb12-rt-amd64\nexit 0\n' \
	"$M" > "$M/kvers"
printf '#!/bin/sh\necho "kernels given: $*"\n' > "$M/runner"
chmod +x "$M/deps" "$M/kvers" "$M/runner"
for goal in check demo; do
	rm -f "$M/installed"
	# MAKEFLAGS of a make check around us would pass its variables down
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$PWD" "$goal" \
		DEPS_SCRIPT="$M/deps" KVERS_SCRIPT="$M/kvers" CHECK_SCRIPT="$M/runner" \
		DEMO_SCRIPT="$M/runner" RUN_NEEDS= BUILD="$M/build" 2>&1)
	got=$(printf '%s\n' "$out" | sed -n 's/^kernels given: *//p')
	want=6.1.0-99-amd64
	[ "$goal" = check ] &&
		want="$want 6.12.99+deb12-amd64 6.1.0-99-rt-amd64 6.12.99+deb12-rt-amd64"
	if [ "$got" = "$want" ]; then
		echo "ok - make $goal on a fresh machine runs on the kernels it just installed"
	else
		echo "not ok - make $goal on a fresh machine runs on the kernels it just installed"
		echo "# wanted '$want', got '$got'"
		printf '%s\n' "$out" | tail -5 | sed 's/^/# /'
	fi
done

# make check RT=0: the generic kernels of the matrix only
touch "$M/installed"
out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s -C "$PWD" check RT=0 \
	DEPS_SCRIPT="$M/deps" KVERS_SCRIPT="$M/kvers" CHECK_SCRIPT="$M/runner" \
	DEMO_SCRIPT="$M/runner" RUN_NEEDS= BUILD="$M/build" 2>&1)
got=$(printf '%s\n' "$out" | sed -n 's/^kernels given: *//p')
want="6.1.0-99-amd64 6.12.99+deb12-amd64"
if [ "$got" = "$want" ]; then
	echo "ok - make check RT=0 leaves the PREEMPT_RT kernels out"
else
	echo "not ok - make check RT=0 leaves the PREEMPT_RT kernels out"
	echo "# wanted '$want', got '$got'"
fi

# tools/kvers.sh on a /lib/modules with every flavour: 6.1 and 6.12 are
# the generic kernels, never the -rt or -cloud ones that sort after them
K=$T/modules
for v in 6.1.0-56-amd64 6.1.0-57-amd64 6.1.0-57-rt-amd64 6.1.0-57-cloud-amd64 \
	 6.12.117+deb12-amd64 6.12.118+deb12-amd64 6.12.118+deb12-rt-amd64 \
	 6.12.118+deb12-cloud-amd64 6.12.117+deb12-rt-amd64; do
	mkdir -p "$K/$v/build"
done
got=$(for n in "" 6.1 6.12 6.1-rt 6.12-rt; do
	PERFREGS_MODULES=$K tools/kvers.sh $n; done | tr '\n' ' ')
want="6.1.0-57-amd64 6.12.118+deb12-amd64 6.1.0-57-rt-amd64 6.12.118+deb12-rt-amd64 "
want="${want}6.1.0-57-amd64 6.12.118+deb12-amd64 6.1.0-57-rt-amd64 6.12.118+deb12-rt-amd64 "
if [ "$got" = "$want" ]; then
	echo "ok - kvers.sh picks each flavour's newest, generic for 6.1 and 6.12"
else
	echo "not ok - kvers.sh picks each flavour's newest, generic for 6.1 and 6.12"
	echo "# wanted '$want', got '$got'"
fi

# The same as a normal user with packages missing: one line naming them and
# what to run, a nonzero exit, nothing else run.  (As root, as uid 65534.)
printf '#!/bin/sh\n[ "${1:-}" = --check ] || exit 9\necho "perfregs: missing packages: fake-pkg; run %s" >&2\nexit 1\n' \
	"'make deps' as root first" > "$M/deps"
chmod 755 "$T" "$M"
as_user=()
[ "$(id -u)" = 0 ] && as_user=(setpriv --reuid=65534 --regid=65534 --clear-groups)
for goal in check demo; do
	out=$(env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL "${as_user[@]}" make -s -C "$PWD" "$goal" \
		DEPS_SCRIPT="$M/deps" KVERS_SCRIPT="$M/kvers" CHECK_SCRIPT="$M/runner" \
		DEMO_SCRIPT="$M/runner" RUN_NEEDS= BUILD="$M/build" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && [ "$(printf '%s\n' "$out" | wc -l)" = 1 ] &&
	   printf '%s' "$out" | grep -q "missing packages: fake-pkg; run 'make deps' as root first"; then
		echo "ok - make $goal as a normal user without the packages: one line, exit $rc"
	else
		echo "not ok - make $goal as a normal user without the packages: one line, nonzero exit"
		printf '%s\n' "exit $rc" "$out" | head -5 | sed 's/^/# /'
	fi
done

# the module and the uapi header as the kernel's checkpatch.pl sees them
if [ -x "$B/linux/scripts/checkpatch.pl" ]; then
	if out=$("$B/linux/scripts/checkpatch.pl" --no-tree -q -f module/*.c module/*.h include/uapi/linux/perfregs.h \
		include/perfregs/*.h 2>&1) &&
	   [ -z "$out" ]; then
		echo "ok - checkpatch.pl --no-tree -f module/ and the uapi header: clean"
	else
		echo "not ok - checkpatch.pl --no-tree -f module/ and the uapi header"
		printf '%s\n' "$out" | head -30 | sed 's/^/# /'
	fi
else
	echo "ok - checkpatch # SKIP checkpatch.pl not extracted (make deps)"
fi

# The flake finder's report from logs (tools/flaky.py --reuse): a count
# sampled until it held ("waited") is no thin margin, a threshold under
# 2x is listed as thin, a failed run and a "# RETRY" count as failures.
fl="$T/flaky/6.1"
mkdir -p "$fl"
for n in 1 2; do
	{
		echo "# ---- test_engine"
		echo "# MEASURE loop_snapshots 5$n >= 50 waited"
		echo "# MEASURE until_ms 1${n}00 < 60000"
		echo "ok 1 sess.waits"
		echo "# MEASURE samples 1${n}0 > 100"
		echo "ok 2 sess.thin"
		[ $n = 2 ] && echo "# RETRY sess.retried: first run failed"
		echo "ok 3 sess.retried"
		[ $n = 1 ] && echo "ok 4 sess.sometimes" || echo "not ok 4 sess.sometimes"
		echo "# flaky: guest status 0 after 10 s"
	} > "$fl/run-$n.log"
done
out=$(python3 tools/flaky.py --reuse "$T/flaky" --kernels 6.1 --files test_engine 2>&1)
want='flaky: kernel 6.1 runs 2 load both
  1/2  test_engine:sess.retried  FLAKY
  1/2  test_engine:sess.sometimes  FLAKY
  2/2  test_engine:sess.thin
      samples > 100: min 110 median 115 max 120 over 2, worst margin 1.10x
  2/2  test_engine:sess.waits
      loop_snapshots >= 50: min 51 median 51.5 max 52 over 2, waited for
      until_ms < 60000: min 1100 median 1150 max 1200 over 2, worst margin 50.00x
  thin: 1
    test_engine:sess.thin: samples > 100, worst 1.10x
flaky: 2 test(s) failed at least once'
if [ "$(printf '%s\n' "$out" | grep -v ' run [0-9]* done$')" = "$want" ]; then
	echo "ok - flaky.py: waited counts apart, thin margins listed, retries and failures counted"
else
	echo "not ok - flaky.py: waited counts apart, thin margins listed, retries and failures counted"
	diff <(printf '%s\n' "$want") <(printf '%s\n' "$out") | sed 's/^/# /'
fi
