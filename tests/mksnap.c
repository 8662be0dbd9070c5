// SPDX-License-Identifier: GPL-2.0
/*
 * mksnap: a recording of real samples without the module, for host
 * tests of unwinding and of convert: each live process PID is stopped
 * with ptrace, its user registers and STACK bytes of its stack from sp
 * are taken as a user-mode sample would carry them (the kernel ABI from
 * CS: 0x23 is 32-bit code), its address space is started from
 * /proc/PID/maps as -p starts it, and the process goes on.  A process
 * blocked in read() stops there, in libc, with its callers on the stack.
 *
 * With $MKSNAP_FP=N each sample also has a user call chain walked
 * through the frame pointers, as the module walks it (module/uchain.c:
 * 8-byte slots, 4-byte ones for 32-bit code; ended by a zero, an
 * unreadable frame, or one not above the last), N entries at most; STACK
 * may then be 0: no stack.  $MKSNAP_UREGS=MASK keeps only those user
 * registers (perf's numbering); $MKSNAP_FP_NESTED makes each chain the
 * empty one of a sample nested too deep (status NESTED).
 *
 * usage: [MKSNAP_FP=N] mksnap FILE STACK PID...
 */
#define _GNU_SOURCE	/* process_vm_readv */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include "../tools/perfregs-dump/types.h"
#include "../tools/perfregs-dump/images.h"
#include "../tools/perfregs-dump/aspace.h"
#include "../tools/perfregs-dump/rec-write.h"
#include "../tools/perfregs-dump/session.h"
#include "../tools/perfregs-dump/learnt.h"

#define R(x) (1ULL << PERFREGS_REG_##x)

/* user_regs_struct in perfregs' order, and which of them a frame has */
static unsigned int regs_of(const struct user_regs_struct *u, bool is32, uint64_t *v,
			    __u64 *mask, __u64 only)
{
	const uint64_t all[PERFREGS_REG_MAX] = {
		[PERFREGS_REG_AX] = u->rax, [PERFREGS_REG_BX] = u->rbx,
		[PERFREGS_REG_CX] = u->rcx, [PERFREGS_REG_DX] = u->rdx,
		[PERFREGS_REG_SI] = u->rsi, [PERFREGS_REG_DI] = u->rdi,
		[PERFREGS_REG_BP] = u->rbp, [PERFREGS_REG_SP] = u->rsp,
		[PERFREGS_REG_IP] = u->rip, [PERFREGS_REG_FLAGS] = u->eflags,
		[PERFREGS_REG_CS] = u->cs, [PERFREGS_REG_SS] = u->ss,
		[PERFREGS_REG_R8] = u->r8, [PERFREGS_REG_R9] = u->r9,
		[PERFREGS_REG_R10] = u->r10, [PERFREGS_REG_R11] = u->r11,
		[PERFREGS_REG_R12] = u->r12, [PERFREGS_REG_R13] = u->r13,
		[PERFREGS_REG_R14] = u->r14, [PERFREGS_REG_R15] = u->r15,
	};
	unsigned int n = 0;
	int r;

	*mask = (R(SS) << 1) - 1;	/* ax .. ss */
	if (!is32)
		*mask |= PERFREGS_MASK_64 & ~PERFREGS_MASK_32;
	*mask &= only;
	for (r = 0; r < PERFREGS_REG_MAX; r++)
		if (*mask & (1ULL << r))
			v[n++] = all[r];
	return n;
}

/* Up to len bytes of pid's memory at addr, page by page; how many. */
static size_t peek(int pid, uint64_t addr, unsigned char *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		size_t n = 4096 - ((addr + got) & 4095);
		struct iovec l, r;

		if (n > len - got)
			n = len - got;
		l.iov_base = buf + got;
		l.iov_len = n;
		r.iov_base = (void *)(uintptr_t)(addr + got);
		r.iov_len = n;
		if (process_vm_readv(pid, &l, 1, &r, 1, 0) != (ssize_t)n)
			break;
		got += n;
	}
	return got;
}

/*
 * The frame-pointer chain of pid from u, as module/uchain.c walks it,
 * into ips (max entries, at least 1); its status into *status.  How many.
 */
static uint32_t fp_walk(int pid, const struct user_regs_struct *u, bool is32, uint64_t *ips,
			uint32_t max, uint32_t *status)
{
	uint64_t fp = is32 ? (uint32_t)u->rbp : u->rbp, slot = is32 ? 4 : 8;
	uint32_t n = 0;

	*status = 0;
	ips[n++] = is32 ? (uint32_t)u->rip : u->rip;
	while (fp) {
		unsigned char f[16];
		uint64_t next = 0, ret = 0;

		if (n >= max) {
			*status |= PERFREGS_UCHAIN_TRUNCATED;
			break;
		}
		if ((fp & (slot - 1)) || fp > (is32 ? 1ULL << 32 : 1ULL << 47) - 2 * slot) {
			*status |= PERFREGS_UCHAIN_BAD_FRAME;
			break;
		}
		if (peek(pid, fp, f, 2 * slot) != 2 * slot) {
			*status |= PERFREGS_UCHAIN_FAULT;
			break;
		}
		memcpy(&next, f, slot);
		memcpy(&ret, f + slot, slot);
		if (!ret)
			break;
		ips[n++] = ret;
		if (next && next <= fp) {
			*status |= PERFREGS_UCHAIN_BAD_FRAME;
			break;
		}
		fp = next;
	}
	return n;
}

int main(int argc, char **argv)
{
	static struct session d;
	uint64_t lostv[PERFREGS_LOST_MAX] = { 0 };
	struct perfregs_config cfg;
	struct recorder *r;
	const char *fpv = getenv("MKSNAP_FP"), *um = getenv("MKSNAP_UREGS");
	__u64 uregs_only = um ? strtoull(um, NULL, 0) : ~0ULL;
	uint32_t fp_max = fpv ? (uint32_t)strtoul(fpv, NULL, 0) : 0;
	size_t stack;
	int i, n = 0;

	if (argc < 4 || ((stack = strtoul(argv[2], NULL, 0)) == 0 && !fp_max) || stack % 8 ||
	    stack > PERFREGS_MAX_STACK_BYTES || fp_max > PERFREGS_MAX_UCHAIN) {
		fprintf(stderr, "usage: [MKSNAP_FP=N] mksnap FILE STACK PID...  (STACK: bytes, "
			"a multiple of 8; N: 1 to %u)\n", PERFREGS_MAX_UCHAIN);
		return 1;
	}
	prf_config_default(&cfg);
	cfg.stack_bytes = (uint32_t)stack;
	if (fp_max) {
		cfg.size = PERFREGS_CONFIG_SIZE_VER2;
		cfg.uchain_max = fp_max;
	}
	rec_cmdline(argc, argv);
	r = rec_create(argv[1], &cfg, "cpu-clock");
	if (!r) {
		perror(argv[1]);
		return 1;
	}
	d.m.live = true;
	pthread_mutex_init(&d.m.learn_lock, NULL);
	learnt_init(&d.m);	/* as record: what is learnt goes to r, in order */
	for (i = 3; i < argc; i++) {
		int pid = atoi(argv[i]), status;
		size_t size = sizeof(struct perfregs_rec_sample) + 2 * 8 * PERFREGS_REG_MAX +
			      16 + stack + sizeof(struct perfregs_rec_uchain) +
			      8 * PERFREGS_MAX_UCHAIN;
		struct perfregs_rec_sample *s = calloc(1, size);
		struct user_regs_struct u;
		char path[64], comm[32] = "";
		uint64_t *v, copied;
		struct stat st;
		unsigned int k;
		bool is32;
		FILE *fp;

		if (!s)
			return 1;
		if (ptrace(PTRACE_SEIZE, pid, 0, 0) || ptrace(PTRACE_INTERRUPT, pid, 0, 0) ||
		    waitpid(pid, &status, __WALL) != pid ||
		    ptrace(PTRACE_GETREGS, pid, 0, &u)) {
			fprintf(stderr, "mksnap: pid %d: %s\n", pid, strerror(errno));
			return 1;
		}
		is32 = u.cs == 0x23;
		s->header.type = PERFREGS_REC_SAMPLE;
		s->time = now_ns();
		s->pid = s->tid = (uint32_t)pid;
		s->cpu = 0;
		s->flags = PERFREGS_SF_CTX_IRQ | PERFREGS_SF_UREGS_DIRECT |
			   (stack ? PERFREGS_SF_STACK : 0) | (fp_max ? PERFREGS_SF_UCHAIN : 0);
		s->abi = is32 ? PERFREGS_ABI_32 : PERFREGS_ABI_64;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		fp = fopen(path, "r");
		if (fp) {
			if (fgets(comm, sizeof(comm), fp))
				comm[strcspn(comm, "\n")] = 0;
			fclose(fp);
		}
		memcpy(s->comm, comm, strnlen(comm, sizeof(s->comm) - 1));
		snprintf(path, sizeof(path), "/proc/%d/exe", pid);
		if (!stat(path, &st)) {
			s->image_dev = (uint32_t)st.st_dev;
			s->image_ino = st.st_ino;
		}
		v = (uint64_t *)s->regs;
		k = regs_of(&u, is32, v, &s->iregs_mask, ~0ULL);
		v += k;
		k = regs_of(&u, is32, v, &s->uregs_mask, uregs_only);
		v += k;
		if (stack) {
			*v++ = stack;
			copied = peek(pid, is32 ? (uint32_t)u.rsp : u.rsp, (unsigned char *)v,
				      stack);
			v += stack / 8;
			*v++ = copied;
		}
		if (fp_max) {
			struct perfregs_rec_uchain *uc = (struct perfregs_rec_uchain *)v;

			uc->nr = fp_walk(pid, &u, is32, (uint64_t *)uc->ips, fp_max, &uc->status);
			if (getenv("MKSNAP_FP_NESTED")) {	/* as the module nested too deep */
				uc->nr = 0;
				uc->status = PERFREGS_UCHAIN_NESTED;
			}
			v = (uint64_t *)(uc->ips + uc->nr);
		}
		s->header.size = (uint32_t)((char *)v - (char *)s);
		space_seed(&d.m, (uint32_t)pid);
		image_learn(&d.m, s);
		ptrace(PTRACE_DETACH, pid, 0, 0);
		session_forward_learnt(&d, rec_tool(r));
		rec_sample(r, 0, &s->header);
		free(s);
		n++;
	}
	session_forward_learnt(&d, rec_tool(r));
	if (rec_close(r, n, lostv)) {
		perror(argv[1]);
		return 1;
	}
	session_free(&d);
	return 0;
}
