// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "common.h"

int collect_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
		   size_t size)
{
	struct sample_set *set = arg;
	struct perfregs_rec_sample *copy;

	if (rec->type == PERFREGS_REC_LOST) {
		set->lost_records++;
		return 0;
	}
	if (rec->type != PERFREGS_REC_SAMPLE || size < sizeof(*copy))
		return 0;
	if (set->n == set->cap) {
		size_t cap = set->cap ? set->cap * 2 : 1024;
		void *p = realloc(set->s, cap * sizeof(*set->s));

		if (!p)
			return -1;
		set->s = p;
		set->cap = cap;
	}
	copy = malloc(size);
	if (!copy)
		return -1;
	memcpy(copy, rec, size);
	copy->header.size = size;	/* what was copied, whatever the ring says now */
	if (copy->header.type != PERFREGS_REC_SAMPLE) {	/* it changed meanwhile */
		free(copy);
		return 0;
	}
	set->s[set->n++] = copy;
	return 0;
}

void sample_set_free(struct sample_set *set)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		free(set->s[i]);
	free(set->s);
	memset(set, 0, sizeof(*set));
}

bool sample_ireg(const struct perfregs_rec_sample *s, int reg, uint64_t *val)
{
	int i = prf_reg_index(s->iregs_mask, reg);

	/* within the record, whatever its masks say */
	if (i < 0 || sizeof(*s) + 8 * ((size_t)i + 1) > s->header.size)
		return false;
	*val = s->regs[i];
	return true;
}

bool sample_ureg(const struct perfregs_rec_sample *s, int reg, uint64_t *val)
{
	int i = prf_reg_index(s->uregs_mask, reg);

	if (i < 0)
		return false;
	i += __builtin_popcountll(s->iregs_mask);
	if (sizeof(*s) + 8 * ((size_t)i + 1) > s->header.size)
		return false;
	*val = s->regs[i];
	return true;
}

int workload_start(struct workload *w, char *const argv[], char *why,
		   size_t whylen)
{
	int fds[2];
	FILE *fp;

	memset(w, 0, sizeof(*w));
	if (pipe(fds)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return -1;
	}
	w->pid = fork();
	if (w->pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (w->pid == 0) {
		dup2(fds[1], 1);
		close(fds[0]);
		close(fds[1]);
		execv(argv[0], argv);
		fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	fp = fdopen(fds[0], "r");
	if (!fp || !fgets(w->line, sizeof(w->line), fp)) {
		snprintf(why, whylen, "%s printed no first line", argv[0]);
		if (fp)
			fclose(fp);
		return -1;
	}
	fclose(fp);
	w->line[strcspn(w->line, "\n")] = 0;
	if (sscanf(w->line, "magic abi=%15s pid=%*d loop=0x%" SCNx64 "-0x%" SCNx64,
		   w->abi, &w->loop_start, &w->loop_end) != 3 ||
	    w->loop_start >= w->loop_end) {
		snprintf(why, whylen, "cannot parse '%s'", w->line);
		return -1;
	}
	return 0;
}

int workload_wait(struct workload *w)
{
	int status;

	if (waitpid(w->pid, &status, 0) != w->pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

const char *selftest_dir(void)
{
	static char dir[PATH_MAX];
	ssize_t n;

	if (dir[0])
		return dir;
	n = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (n < 0)
		return ".";
	dir[n] = 0;
	return dirname(dir);
}

bool module_loaded(void)
{
	struct stat st;

	return stat(PERFREGS_DEVICE, &st) == 0;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

void measure_until(const char *what, uint64_t t0, uint64_t deadline)
{
	fprintf(stderr, "# MEASURE %s %llu < %llu\n", what,
		(unsigned long long)((now_ns() - t0) / 1000000),
		(unsigned long long)((deadline - t0) / 1000000));
}

double work_scale(void)
{
	const char *e = getenv("PERFREGS_WORK_SCALE");
	double v = e ? atof(e) : 1;

	return v > 0 ? v : 1;
}

int write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

int param_set(const char *name, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/module/perfregs/parameters/%s", name);
	return write_file(path, val);
}

long param_get(const char *name, long def)
{
	char path[128], buf[32];

	snprintf(path, sizeof(path), "/sys/module/perfregs/parameters/%s", name);
	if (read_file(path, buf, sizeof(buf)))
		return def;
	return strtol(buf, NULL, 0);
}

int as_nobody(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(99);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	if (cpu < 0)		/* every CPU again */
		for (cpu = 0; cpu < CPU_SETSIZE; cpu++)
			CPU_SET(cpu, &set);
	else
		CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* The NMI counts per CPU from /proc/interrupts; how many CPUs. */
static int nmi_counts(unsigned long *v, int max)
{
	char line[4096], *p, *end;
	FILE *fp = fopen("/proc/interrupts", "r");
	int n = 0;

	while (fp && fgets(line, sizeof(line), fp)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "NMI:", 4))
			continue;
		p += 4;
		while (n < max) {
			unsigned long x = strtoul(p, &end, 10);

			if (end == p)
				break;
			v[n++] = x;
			p = end;
		}
		break;
	}
	if (fp)
		fclose(fp);
	return n;
}

int wait_state(pid_t pid, char c, int ms)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	for (; ms >= 0; ms -= 10) {
		if (read_file(path, buf, sizeof(buf)))
			return -1;
		p = strrchr(buf, ')');	/* the name may hold anything */
		if (p && p[1] == ' ' && p[2] == c)
			return 0;
		usleep(10000);
	}
	return -1;
}

bool nmis_injected(void)
{
	const char *hz = getenv("PERFREGS_VM_NMI_HZ");

	return hz && atof(hz) > 0;
}

int nmi_cpu(int ms)
{
	unsigned long a[256] = { 0 }, b[256] = { 0 };
	int n = nmi_counts(a, 256), i, best = -1;
	unsigned long most = 0;

	usleep(ms * 1000);
	n = nmi_counts(b, n);
	for (i = 0; i < n; i++) {
		if (b[i] - a[i] > most) {
			most = b[i] - a[i];
			best = i;
		}
	}
	return best;
}

static struct { char path[160], val[64]; } saved[32];
static int nsaved;

int save_state(const char *path)
{
	if (nsaved == 32 ||
	    read_file(path, saved[nsaved].val, sizeof(saved[nsaved].val)))
		return -1;
	snprintf(saved[nsaved].path, sizeof(saved[nsaved].path), "%s", path);
	nsaved++;
	return 0;
}

void restore_state(void)
{
	while (nsaved > 0) {
		nsaved--;
		write_file(saved[nsaved].path, saved[nsaved].val);
	}
}

const char *param_path(const char *name)
{
	static char path[4][128];
	static int i;

	i = (i + 1) % 4;
	snprintf(path[i], sizeof(path[i]), "/sys/module/perfregs/parameters/%s", name);
	return path[i];
}

#define OWN_STACK	(64 * 1024)

static void __attribute__((noreturn)) own_stack_spin(void)
{
	volatile unsigned long n = 0;

	for (;;)
		n++;
}

pid_t start_own_stack_spinner(uint64_t *top)
{
	static ucontext_t here, there;
	int fds[2];
	char *map;
	pid_t pid;

	map = mmap(NULL, OWN_STACK + 4096, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		return -1;
	/* the page above the stack: a copy from the SP stops there */
	if (mprotect(map + OWN_STACK, 4096, PROT_NONE) || pipe(fds)) {
		munmap(map, OWN_STACK + 4096);
		return -1;
	}
	*top = (uintptr_t)map + OWN_STACK;
	pid = fork();
	if (pid == 0) {
		/* never outlive the test, whatever becomes of it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() == 1)
			_exit(1);
		close(fds[0]);
		close(fds[1]);	/* the parent reads EOF: we are about to spin */
		getcontext(&there);
		there.uc_stack.ss_sp = map;
		there.uc_stack.ss_size = OWN_STACK;
		there.uc_link = NULL;
		makecontext(&there, own_stack_spin, 0);
		swapcontext(&here, &there);
		_exit(1);
	}
	close(fds[1]);
	if (pid > 0) {
		char c;

		while (read(fds[0], &c, 1) < 0 && errno == EINTR)
			;
	}
	close(fds[0]);
	munmap(map, OWN_STACK + 4096);
	return pid;
}

/* /sys/kernel/realtime reads 1 on a PREEMPT_RT kernel (and is absent elsewhere). */
bool kernel_is_rt(void)
{
	char buf[8];

	return read_file("/sys/kernel/realtime", buf, sizeof(buf)) == 0 &&
	       buf[0] == '1';
}
