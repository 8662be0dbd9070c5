// SPDX-License-Identifier: GPL-2.0
/*
 * A workload for kernel call chains (test_kchain.py): read() of
 * /dev/zero into one buffer in a loop, for argv[1] seconds (default 2),
 * so that nearly every sample lands in the kernel's read path (the
 * syscall entry, vfs_read(), read_zero()).  Built -m64 and -m32.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double end = now() + (argc > 1 ? atof(argv[1]) : 2.0);
	int fd = open("/dev/zero", O_RDONLY);
	unsigned long reads = 0;

	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	memset(buf, 1, sizeof(buf));	/* faulted in before the loop */
	do {
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
			perror("read");
			return 1;
		}
		reads++;
	} while ((reads & 63) || now() < end);
	printf("%lu reads\n", reads);
	return 0;
}
