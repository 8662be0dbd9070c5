// SPDX-License-Identifier: GPL-2.0
/*
 * Loading and unloading perfregs.ko: the device comes and goes, a session
 * pins the module, and closing a session that was sampling frees every
 * buffer (checked in /proc/vmallocinfo) so the module unloads.
 *
 * PERFREGS_KO names the module file; the test leaves the module loaded.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include "kselftest_harness.h"
#include "common.h"

static int load(void)
{
	const char *ko = getenv("PERFREGS_KO");
	int fd, ret;

	if (!ko)
		return -ENOENT;
	fd = open(ko, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = syscall(SYS_finit_module, fd, "", 0);
	close(fd);
	return ret ? -errno : 0;
}

static int unload(void)
{
	return syscall(SYS_delete_module, "perfregs", O_NONBLOCK) ? -errno : 0;
}

/* Wait for devtmpfs to show or drop the node. */
static bool device_is(bool present)
{
	int i;

	for (i = 0; i < 100; i++) {
		if (module_loaded() == present)
			return true;
		usleep(10000);
	}
	return false;
}

/* vmalloc areas the module's rings still hold. */
static int ring_areas(void)
{
	char line[512];
	int n = 0;
	FILE *fp = fopen("/proc/vmallocinfo", "r");

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (strstr(line, "prf_ring_alloc"))
			n++;
	fclose(fp);
	return n;
}

FIXTURE(mod) {
	bool can;
};

FIXTURE_SETUP(mod)
{
	if (!getenv("PERFREGS_KO"))
		SETUP_SKIP("PERFREGS_KO does not name perfregs.ko");
	if (!module_loaded())
		ASSERT_EQ(0, load());
}

FIXTURE_TEARDOWN(mod)
{
	if (!module_loaded())
		load();
}

TEST_F(mod, unload_load)
{
	ASSERT_EQ(0, unload());
	EXPECT_TRUE(device_is(false));
	ASSERT_EQ(0, load());
	EXPECT_TRUE(device_is(true));
	EXPECT_EQ(-EEXIST, load()) TH_LOG("loading twice");
}

TEST_F(mod, session_pins_module)
{
	int fd, ret;

	ASSERT_TRUE(device_is(true));
	fd = open(PERFREGS_DEVICE, O_RDWR);
	ASSERT_LE(0, fd);
	ret = unload();
	EXPECT_TRUE(ret == -EWOULDBLOCK || ret == -EBUSY)
		TH_LOG("unload with a session open: %d", ret);
	close(fd);
	EXPECT_EQ(0, unload());
}

TEST_F(mod, close_while_sampling_frees_all)
{
	struct prf_reader r;
	int i;

	ASSERT_TRUE(device_is(true));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, prf_open(&r, NULL));
		ASSERT_EQ(0, prf_config(&r, &(struct perfregs_config){
			.size = sizeof(struct perfregs_config),
			.event = PERFREGS_EV_CPU_CLOCK, .data_pages = 4,
			.period = 100000, .iregs_mask = PERFREGS_MASK_64,
			.uregs_mask_64 = PERFREGS_MASK_64,
			.uregs_mask_32 = PERFREGS_MASK_32, .pid = -1,
			.perf_fd = -1 }));
		EXPECT_LT(0, ring_areas());
		ASSERT_EQ(0, prf_start(&r));
		usleep(50000);
		prf_close(&r);	/* unmaps and closes while running */
	}
	EXPECT_EQ(0, ring_areas()) TH_LOG("ring buffers left after close");
	EXPECT_EQ(0, unload());
	EXPECT_TRUE(device_is(false));
}

PERFREGS_HARNESS_MAIN
