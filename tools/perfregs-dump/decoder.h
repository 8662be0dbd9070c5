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
 *          (struct decoder...); put_hex(); the output files, made safely; the shared
 *          copies of mappings' paths; which characters of a name may reach a terminal
 * layer 1: images vdso regs_x86 rec-read rec-write - ELF files, images; vDSO images; registers;
 *          a recording's reader and writer
 * layer 2: symbols usyms - /proc maps; a mapping's file and base; kallsyms; the Dwfl
 *          and symbols of each file
 * layer 3: aspace - address spaces from side-band events; a sample's maps
 * layer 4: cfi - --call-graph dwarf's fast path: CFI rows per file and address
 * layer 5: unwind sideband folded - --call-graph dwarf (libdwfl, over cfi); the live side-band
 *          events; -f folded's table of stacks
 * layer 6: resolve - a sample resolved: the IP that names it, kernel or not, its
 *          layout, symbol and frames, the rules every writer follows
 * layer 7: output flame pool - text and JSON Lines of decoded records; the
 *          flame graph of -f folded's stacks; the threads of --threads
 * layer 8: session - a recording's items delivered to a tool
 * layer 9: perfdata pprof - a recording into perf.data; into profile.proto
 * layer 10: decoder - decoder_free(), by each module's own free function
 * layer 11: cmd - the commands' parts: options as data, live runs, decoding a file
 * layer 12: builtin builtin-record builtin-report builtin-script builtin-convert fuzz_recording - the commands; the libFuzzer target
 * layer 13: perfregs-dump - the command table, and the forms without a command
 */
#ifndef PERFREGS_DUMP_DECODER_H
#define PERFREGS_DUMP_DECODER_H

#include "types.h"

void decoder_free(struct decoder *d);

#endif
