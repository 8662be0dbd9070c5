#!/bin/bash
# Host-side tests (no guest needed), as KTAP lines, in parts by concern
# (tests/host/NN-CONCERN.sh, run in order, each saying what it covers):
#   01 decode      synthetic recordings decoded with known values
#   02 terminal    names that reach a terminal
#   03 files       the files perfregs-dump reads and writes, and their traps
#   04 help        every option in its command's --help and the man page
#   05 convert     perf.data, pprof, the flame graph, the frames of outputs
#   06 options     the decoding options, and what -i refuses
#   07 aspace      address spaces from side-band events, the commands
#   08 bounds      hostile recordings, the decoder's resources, the fuzzer
#   09 threads     --threads prints what one thread prints; out of memory
#   10 live-files  the files of live processes (split, deleted, stripped)
#   11 unwind      the ELF reader, PLT entries' names and the unwinder's fast path
#   12 project     checkpatch, barriers, layers, the outputs as the pinned
#                  commit's, dkms, the selftests without the module, make
#                  check and make demo as first commands
#   14 debuginfod  debug files from a debuginfod server, only when asked;
#                  a server that cannot be reached; the fuzzer asks none
#   15 jit         JIT code named by its perf map, live and from a
#                  recording; hostile maps; against perf on node
#   16 demangle    C++ and Rust names demangled in every output, raw
#                  with --no-demangle; a hostile name within its budget
#   17 inline      inline frames from DWARF in every output, against perf
#   18 kchain      kernel call chains in every output, against perf;
#                  hostile chains; a newer module's sections skipped
# usage: tests/host_tests.sh [BUILD_DIR] [FUZZ_SECONDS]
set -u
B=$(realpath -m "${1:-build}")	# absolute: some tests run in other directories
SECS=${2:-20}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
echo "TAP version 13"
echo "# host tests"

# Can this host's kernel run i386 code at all?  Some have no IA-32
# emulation (CONFIG_IA32_EMULATION off, or ia32_emulation=0 on the
# command line): exec of an -m32 program fails with ENOEXEC and a far
# jump to the 32-bit code segment faults.  The -m32 parts of the tests
# below then skip with that reason, once each; the guest kernels of the
# selftests run 32-bit and mixed-mode code whatever the host has.
I386_SKIP=""
printf 'int main(void) { return 0; }\n' > "$T/i386probe.c"
if ! cc -m32 -o "$T/i386probe" "$T/i386probe.c" 2>/dev/null; then
	I386_SKIP="no -m32 compiler (make deps)"
elif ! "$T/i386probe" 2>/dev/null; then
	I386_SKIP="this host's kernel runs no i386 programs (exec: Exec format error; IA-32 emulation off)"
fi
# m32_part WHAT: 0 if the -m32 part of a test can run here, else a SKIP line
m32_part() {
	[ -z "$I386_SKIP" ] && return 0
	echo "ok - $1 # SKIP $I386_SKIP"
	return 1
}

# The tests, by concern, in the order they run (later parts use files
# earlier ones made in $T): tests/host/NN-CONCERN.sh.
for part in "$(dirname "$0")"/host/[0-9][0-9]-*.sh; do
	# shellcheck disable=SC1090
	. "$part"
done
