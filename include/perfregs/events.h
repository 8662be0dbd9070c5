/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events of perfregs_config.event, defined once for the module, the
 * library (tools/lib) and the decoder (perfregs-dump's -e and its
 * perf.data writer).  Each defines
 *
 *	PERFREGS_EVENT(name, id, type, config, period)
 *
 * and includes this file where it wants one expansion per event, in the
 * order of enum perfregs_event; the file undefines PERFREGS_EVENT again.
 * It has no include guard, as the kernel's asm/kvm-x86-ops.h, and works
 * in the kernel and in userspace alike: PERF_TYPE_* and PERF_COUNT_* come
 * from <linux/perf_event.h>, which an includer that expands type or
 * config has included.
 *
 *   name	perf's name of the event, and perfregs-dump's -e NAME
 *		(a breakpoint's is mem:ADDR[:rwx], not this name alone)
 *   id		its PERFREGS_EV_* (include/uapi/linux/perfregs.h)
 *   type	the perf event it stands for, perf_event_attr.type ...
 *   config	... and .config: the counter the module makes for it, and
 *		the witness CONFIG takes (perfregs_config.perf_fd).  The raw
 *		NMI hook has no counter: a cpu-clock is its witness.
 *   period	perfregs-dump's period for -e NAME when none is given
 *		(cpu-clock and task-clock count nanoseconds)
 */
#ifndef PERFREGS_EVENT
#error "define PERFREGS_EVENT(name, id, type, config, period) first"
#endif

PERFREGS_EVENT("cpu-clock", PERFREGS_EV_CPU_CLOCK,
	       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 1000000)
PERFREGS_EVENT("task-clock", PERFREGS_EV_TASK_CLOCK,
	       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1000000)
PERFREGS_EVENT("page-faults", PERFREGS_EV_PAGE_FAULTS,
	       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 1)
PERFREGS_EVENT("context-switches", PERFREGS_EV_CONTEXT_SWITCHES,
	       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1)
PERFREGS_EVENT("cycles", PERFREGS_EV_CYCLES,
	       PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1000000)
PERFREGS_EVENT("instructions", PERFREGS_EV_INSTRUCTIONS,
	       PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1000000)
PERFREGS_EVENT("mem", PERFREGS_EV_BREAKPOINT,
	       PERF_TYPE_BREAKPOINT, 0, 1)
PERFREGS_EVENT("nmi", PERFREGS_EV_NMI,
	       PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0)

#undef PERFREGS_EVENT
