/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfregs-dump: the decoder as a whole (decoder.c), and the layers its
 * modules are in.  A module is foo.c with its foo.h; a file includes the
 * headers of its own layer and of lower ones only, never of a higher one,
 * and no includes go round in a circle (tests/layers.py checks both, from
 * the lines below; tests/layers.py also checks that no object calls into
 * a higher layer).  Lowest first:
 *
 * layer 0: types util outfile intern safetext rec-format tool learnt diag - the shared types
 *          (struct machine, struct decoder...); put_hex(); the output files, made safely;
 *          the shared copies of mappings' paths; which characters of a name may reach a
 *          terminal; a recording's format; what a tool of the session is; what the
 *          machine learnt, queued; what there is to say
 * layer 1: images vdso regs_x86 rec-read rec-write - executables' ELF facts and the
 *          layout of a sample; vDSO images; registers; a recording's reader and writer
 * layer 2: files maps dso ksyms - the file a mapping is read from; a task's mappings
 *          from /proc or a recording; files by identity with their symbols; the
 *          kernel's symbols
 * layer 3: aspace - a process's address space over time, from side-band events
 * layer 4: machine - the sampled machine as a whole (machine -> process -> maps -> dso)
 * layer 5: cfi - --call-graph dwarf's fast path: CFI rows per file and address
 * layer 6: unwind sideband folded - --call-graph dwarf (libdwfl, over cfi); the live
 *          side-band events; -f folded's table of stacks
 * layer 7: resolve - a sample resolved: the IP that names it, kernel or not, its
 *          layout, symbol and frames, the rules every writer follows
 * layer 8: output flame pool - text and JSON Lines of decoded records; the
 *          flame graph of -f folded's stacks; the threads of --threads
 * layer 9: session - a recording's items delivered to a tool
 * layer 10: perfdata pprof - a recording into perf.data; into profile.proto
 * layer 11: decoder - decoder_free(): the session's end
 * layer 12: cmd - the commands' parts: options as data, live runs, decoding a file
 * layer 13: builtin builtin-record builtin-report builtin-script builtin-convert fuzz_recording - the commands; the libFuzzer target
 * layer 14: perfregs-dump - the command table, and the forms without a command
 */
#ifndef PERFREGS_DUMP_DECODER_H
#define PERFREGS_DUMP_DECODER_H

#include "types.h"

void decoder_free(struct decoder *d);

#endif
