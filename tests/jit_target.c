// SPDX-License-Identifier: GPL-2.0
/*
 * jit_target: a process with JIT code, as the host tests need one: an
 * anonymous executable mapping and a perf map naming parts of it
 * (/tmp/perf-PID.map), written as Node.js --perf-basic-prof writes it.
 * It prints the mapping's address, then waits: SIGUSR1 appends a line
 * (a map written after the samples), SIGUSR2 writes the map anew (two
 * lines, as many as it had, shorter), SIGTERM ends it.  "hostile" writes
 * a map no JIT writes: lines too long, sizes past 2^64 or of 0, no
 * numbers, overlaps, control characters, and 21 MiB of lines past
 * every budget, a last line past them.
 *
 * usage: jit_target [hostile]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>

static volatile sig_atomic_t late, rewrite, done;

static void on_usr1(int sig)
{
	late = 1;
}

static void on_usr2(int sig)
{
	rewrite = 1;
}

static void on_term(int sig)
{
	done = 1;
}

static void hostile(FILE *f, unsigned long b)
{
	unsigned long i;

	fprintf(f, "%lx 1000 jit_outer\n", b);
	fprintf(f, "%lx 40 jit_inner\033[31mred\n", b + 0x200);
	fprintf(f, "ffffffffffffff00 200 jit_wraps\n");
	fprintf(f, "%lx 0 jit_empty\n", b + 0x300);
	fprintf(f, "%lx 40 ", b + 0x400);
	for (i = 0; i < 10000; i++)
		fputc('A', f);
	fputc('\n', f);
	fprintf(f, "%lx 40 jit_after_long\n", b + 0x400);
	fprintf(f, "0x%lx 0x40 jit_hex\n", b + 0x500);
	fprintf(f, "12345678901234567890 10 jit_too_many_digits\n");
	fprintf(f, "no numbers here\n\n");
	/* past the entries' budget (2^18) and the file's (16 MiB) */
	for (i = 0; i < 900000; i++)
		fprintf(f, "%lx 1 filler_%lu\n", 0x100000 + i, i);
	fprintf(f, "%lx 40 jit_beyond\n", b + 0x600);
}

int main(int argc, char **argv)
{
	unsigned char *code = mmap(NULL, 8192, PROT_READ | PROT_WRITE | PROT_EXEC,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned long b = (unsigned long)code;
	char path[64];
	FILE *f;

	if (code == MAP_FAILED)
		return 1;
	memset(code, 0xc3, 8192);	/* ret */
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, on_usr2);
	signal(SIGTERM, on_term);
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	f = fopen(path, "w");
	if (!f)
		return 1;
	if (argc > 1 && !strcmp(argv[1], "hostile")) {
		hostile(f, b);
	} else {
		fprintf(f, "%lx 40 LazyCompile:*hot /tmp/hot.js:1\n", b);
		fprintf(f, "%lx 80 jit_two\n", b + 0x40);
	}
	fflush(f);
	printf("%lx\n", b);
	fflush(stdout);
	while (!done) {
		if (late) {
			late = 0;
			fprintf(f, "%lx 40 jit_late\n", b + 0x100);
			fflush(f);
		}
		if (rewrite) {	/* the map written anew, shorter, as many lines */
			rewrite = 0;
			f = freopen(path, "w", f);
			if (!f)
				return 1;
			fprintf(f, "%lx 40 jit_new_a\n%lx 40 jit_new_c\n", b, b + 0x100);
			fflush(f);
		}
		usleep(10000);
	}
	fclose(f);
	return 0;
}
