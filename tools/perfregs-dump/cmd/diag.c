// SPDX-License-Identifier: GPL-2.0
/*
 * Why the device, the module or perf said no, in words that say what to
 * do; and what -v says of a session.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "sample-opts.h"
#include "diag.h"

const char *open_hint(int err)
{
	switch (err) {
	case ENOENT:
	case ENODEV:
	case ENXIO:
		return "the perfregs module is not loaded: insmod perfregs.ko "
		       "(or modprobe perfregs)";
	case EACCES:
	case EPERM:
		return "check the mode of /dev/perfregs (the udev rule makes it 0666)";
	case EPROTO:
		return "the module speaks another ABI major version: rebuild the "
		       "tool and the module from the same tree";
	}
	return "check dmesg";
}

const char *config_hint(int err)
{
	switch (err) {
	case EINVAL:
		return "a value is out of range (see dmesg-free rules in "
		       "perfregs-dump(1)): --mmap-pages a power of two up to 4096, "
		       "a nonzero period, --user-stack a multiple of 8 that fits "
		       "in half the buffer, CPUs that exist";
	case EACCES:
		return "-e nmi needs CAP_PERFMON, --nmi-unknown CAP_SYS_ADMIN "
		       "(docs/security.md)";
	case EPERM:
		return "kernel lockdown forbids kernel registers: sample user "
		       "mode only (EVENT:u)";
	case ESRCH:
		return "no such process";
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "this event is not available here (no hardware PMU, or "
		       "none of the CPUs asked for is online?)";
	case ENOMEM:
		return "the rings exceed your locked-memory allowance (perfregs "
		       "mlock_kb per CPU plus ulimit -l, for all the rings your "
		       "user holds) or your memory cgroup's limit: lower "
		       "--mmap-pages, close other sessions, or raise ulimit -l";
	case EBUSY:
		return "the hardware breakpoint slots are taken";
	}
	return "check dmesg";
}

/* The first line of a /proc or /sys file, or "" */
void read_line(const char *path, char *buf, int len)
{
	FILE *fp = fopen(path, "r");

	buf[0] = 0;
	if (fp) {
		if (!fgets(buf, len, fp))
			buf[0] = 0;
		buf[strcspn(buf, "\n")] = 0;
		fclose(fp);
	}
}

/* Kernel lockdown forbids reading kernel state (its registers too). */
bool lockdown_confidentiality(void)
{
	char ld[128];

	read_line("/sys/kernel/security/lockdown", ld, sizeof(ld));
	return strstr(ld, "[confidentiality]");
}

/* Why perf_event_open() may have said no, in perf's words. */
const char *witness_hint(int err, const struct perfregs_config *cfg, char *buf, size_t len)
{
	char paranoid[16];

	read_line("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	if (!paranoid[0])
		strcpy(paranoid, "?");
	if (err == EPERM && !(cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL) &&
	    lockdown_confidentiality())
		return "kernel lockdown (confidentiality) forbids kernel "
		       "registers: sample user mode only (EVENT:u)";
	switch (err) {
	case EACCES:
	case EPERM:
		snprintf(buf, len, "kernel.perf_event_paranoid is %s: "
			 "without CAP_PERFMON, 2 allows your own processes in "
			 "user mode (EVENT:u), 1 also kernel mode, 0 or less "
			 "also whole CPUs (-a); or the target is not yours",
			 paranoid);
		return buf;
	case EOVERFLOW:
		read_line("/proc/sys/kernel/perf_event_max_stack", paranoid, sizeof(paranoid));
		snprintf(buf, len, "kernel.perf_event_max_stack is %s: --kernel-callchain=N "
			 "takes at most that many entries", paranoid[0] ? paranoid : "?");
		return buf;
	case EINVAL:
		return cfg->flags & PERFREGS_CF_FREQ ?
		       "the frequency is above kernel.perf_event_max_sample_rate" :
		       "perf does not take this event or period";
	case ESRCH:
		return "no such process";
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		return "this event is not available here (no hardware PMU?)";
	}
	return "see perf_event_open(2)";
}

/* -v: the session as configured (live) or as recorded (-i). */
void verbose_session(const struct perfregs_config *cfg, const char *event)
{
	char simd[64], kchain[128] = "";
	int n = 0;

	if (cfg->kchain_max)
		n = snprintf(kchain, sizeof(kchain), ", kernel call chains of %u entries at most",
			     cfg->kchain_max);
	if (cfg->uchain_max && n >= 0 && (size_t)n < sizeof(kchain))
		snprintf(kchain + n, sizeof(kchain) - n,
			 ", frame-pointer user chains of %u entries at most", cfg->uchain_max);
	fprintf(stderr, "perfregs-dump: session: event %s, %s %" PRIu64 "%s, iregs 0x%" PRIx64
		", uregs 0x%" PRIx64 " (64-bit) 0x%" PRIx64 " (32-bit), SIMD %s, user stack %u "
		"bytes, %u pages per CPU%s%s%s%s\n", event,
		cfg->flags & PERFREGS_CF_FREQ ? "frequency" : "period", (uint64_t)cfg->period,
		cfg->flags & PERFREGS_CF_FREQ ? " Hz" : "", (uint64_t)cfg->iregs_mask,
		(uint64_t)cfg->uregs_mask_64, (uint64_t)cfg->uregs_mask_32,
		simd_list(cfg->simd_mask, simd, sizeof(simd)), cfg->stack_bytes,
		cfg->data_pages, cfg->flags & PERFREGS_CF_INHERIT ? ", inherited" : "",
		cfg->flags & PERFREGS_CF_OVERWRITE ? ", overwrite" : "",
		cfg->flags & PERFREGS_CF_EXCLUDE_KERNEL ? ", user mode only" :
		cfg->flags & PERFREGS_CF_EXCLUDE_USER ? ", kernel mode only" : "", kchain);
}

