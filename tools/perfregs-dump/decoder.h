/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfregs-dump: the decoder as a whole (decoder.c), and the layers its
 * modules are in.  A module is foo.c with its foo.h; a file includes the
 * headers of its own layer and of lower ones only, never of a higher one,
 * and no includes go round in a circle (tests/layers.sh checks both, from
 * the lines below).  Lowest first:
 *
 * layer 0: types util outfile intern safetext - the shared types
 *          (struct decoder...); put_hex(); the output files, made
 *          safely; the shared copies of mappings' paths; which
 *          characters of a name may reach a terminal
 * layer 1: images vdso regs_x86 - ELF files, images; vDSO images; registers
 * layer 2: symbols usyms - /proc maps; a mapping's file and base;
 *          kallsyms; the Dwfl and symbols of each file
 * layer 3: aspace - address spaces from side-band events; a sample's maps
 * layer 4: unwind sideband folded - --call-graph dwarf; the live side-band
 *          events; -f folded's table of stacks
 * layer 5: output flame pool - text and JSON Lines of decoded records; the
 *          flame graph of -f folded's stacks; the threads of --threads
 * layer 6: recording - the file of -o and -i
 * layer 7: perfdata pprof - a recording into perf.data; into profile.proto
 * layer 8: decoder - decoder_free(), by each module's own free function
 * layer 9: main fuzz_recording - the command; the libFuzzer target
 */
#ifndef PERFREGS_DUMP_DECODER_H
#define PERFREGS_DUMP_DECODER_H

#include "types.h"

void decoder_free(struct decoder *d);

#endif
