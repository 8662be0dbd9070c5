// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctl and mmap interface of /dev/perfregs: the version query, the
 * errno every bad request gets, and structures that grow without new
 * ioctl numbers (copy_struct_from_user()'s convention).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include "kselftest_harness.h"
#include "common.h"

FIXTURE(dev) {
	int fd;
	struct perfregs_config cfg;
};

FIXTURE_SETUP(dev)
{
	if (!module_loaded())
		SETUP_SKIP("perfregs is not loaded (insmod perfregs.ko)");
	self->fd = open(PERFREGS_DEVICE, O_RDWR);
	ASSERT_LE(0, self->fd) TH_LOG("open: %s", strerror(errno));
	prf_config_default(&self->cfg);
}

FIXTURE_TEARDOWN(dev)
{
	if (self->fd >= 0)
		close(self->fd);
}

TEST_F(dev, version)
{
	struct perfregs_version v;

	memset(&v, 0xa5, sizeof(v));
	v.size = sizeof(v);
	ASSERT_EQ(0, ioctl(self->fd, PERFREGS_IOC_VERSION, &v));
	EXPECT_EQ(PERFREGS_VERSION_SIZE_VER1, v.size);
	EXPECT_EQ(PERFREGS_ABI_MAJOR, v.major);
	EXPECT_EQ(PERFREGS_ABI_MINOR, v.minor);
	EXPECT_EQ((unsigned int)getpagesize(), v.page_size);
	EXPECT_LE((unsigned int)sysconf(_SC_NPROCESSORS_CONF), v.nr_cpu_ids);
	EXPECT_EQ(0, v.reserved);
}

TEST_F(dev, version_bad)
{
	struct perfregs_version v = { .size = 8 };

	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_VERSION, &v));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_VERSION, NULL));
	EXPECT_EQ(EFAULT, errno);
	v.size = 1 << 20;
	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_VERSION, &v));
	EXPECT_EQ(E2BIG, errno);
}

/* A caller from the future with a larger structure gets ours, zero-padded. */
TEST_F(dev, version_grows)
{
	union {
		struct perfregs_version v;
		uint8_t b[64];
	} u;
	size_t i;

	memset(&u, 0xa5, sizeof(u));
	u.v.size = sizeof(u);
	ASSERT_EQ(0, ioctl(self->fd, PERFREGS_IOC_VERSION, &u));
	EXPECT_EQ(PERFREGS_VERSION_SIZE_VER1, u.v.size) TH_LOG("the size we know");
	EXPECT_EQ(PERFREGS_ABI_MAJOR, u.v.major);
	for (i = sizeof(u.v); i < sizeof(u); i++)
		if (u.b[i])
			break;
	EXPECT_EQ(sizeof(u), i) TH_LOG("byte %zu beyond our structure not zeroed", i);
}

TEST_F(dev, unknown_ioctl)
{
	int zero = 0;

	EXPECT_EQ(-1, ioctl(self->fd, _IO(PERFREGS_IOC_MAGIC, 0x7f)));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(self->fd, _IO('T', 1)));
	EXPECT_EQ(ENOTTY, errno);
	/* the right number in the wrong direction */
	EXPECT_EQ(-1, ioctl(self->fd, _IOR(PERFREGS_IOC_MAGIC, 1, __u32), &zero));
	EXPECT_EQ(ENOTTY, errno);
	/* START takes no argument: a size in its number is another ioctl */
	EXPECT_EQ(-1, ioctl(self->fd, _IOW(PERFREGS_IOC_MAGIC, 2, int), &zero));
	EXPECT_EQ(ENOTTY, errno);
}

/*
 * CONFIG with a witness made for it when the config has none, as
 * prf_config() does; a config perf refuses goes without (the module
 * checks the fields first).
 */
static int config_errno(int fd, const struct perfregs_config *cfg)
{
	struct perfregs_config c = *cfg;
	int w = -1, ret;

	/* no witness for a CPU list the library could not even read */
	if (c.perf_fd < 0 && (!c.cpus_ptr || (c.cpus_ptr >= 4096 && c.cpus_bytes &&
					      c.cpus_bytes % 8 == 0 &&
					      c.cpus_bytes <= PERFREGS_MAX_CPU_BYTES)))
		c.perf_fd = w = prf_witness_open(&c);
	ret = ioctl(fd, PERFREGS_IOC_CONFIG, &c) < 0 ? errno : 0;
	if (w >= 0)
		close(w);
	return ret;
}

TEST_F(dev, config_good)
{
	struct perfregs_config c = self->cfg;

	EXPECT_EQ(0, config_errno(self->fd, &self->cfg));
	/* the bases of the user frame, minor 1 */
	c.uregs_mask_64 |= PERFREGS_MASK_BASES;
	c.uregs_mask_32 |= PERFREGS_MASK_BASES;
	EXPECT_EQ(0, config_errno(self->fd, &c));
	/* kernel call chains as deep as perf's, minor 2 */
	c.size = PERFREGS_CONFIG_SIZE_VER2;
	c.kchain_max = PERFREGS_MAX_KCHAIN;
	EXPECT_EQ(0, config_errno(self->fd, &c));
	/* the same with a ring too small for such a record and the stack */
	c.data_pages = 1;
	c.stack_bytes = 1024;
	EXPECT_EQ(EINVAL, config_errno(self->fd, &c));
	c.kchain_max = 0;
	EXPECT_EQ(0, config_errno(self->fd, &c));
	/* user call chains as deep as perf's, minor 3 */
	c.data_pages = self->cfg.data_pages;
	c.uchain_max = PERFREGS_MAX_UCHAIN;
	c.kchain_max = PERFREGS_MAX_KCHAIN;
	EXPECT_EQ(0, config_errno(self->fd, &c));
	c.flags |= PERFREGS_CF_EXCLUDE_KERNEL;	/* a user chain alone, of user mode */
	c.kchain_max = 0;
	EXPECT_EQ(0, config_errno(self->fd, &c));
}

/* A caller of minor 1 passes the configuration without kchain_max. */
TEST_F(dev, config_ver1_size)
{
	struct perfregs_config c = self->cfg;

	c.size = PERFREGS_CONFIG_SIZE_VER1;
	c.uchain_max = PERFREGS_MAX_UCHAIN + 1;
	c.kchain_max = PERFREGS_MAX_KCHAIN + 1;	/* past its size: never read */
	EXPECT_EQ(0, config_errno(self->fd, &c));
}

/* A caller of minor 0 passes the configuration without simd_mask. */
TEST_F(dev, config_ver0_size)
{
	struct perfregs_config c = self->cfg;

	c.size = PERFREGS_CONFIG_SIZE_VER0;
	c.simd_mask = PERFREGS_SIMD_ALL;	/* past its size: never read */
	EXPECT_EQ(0, config_errno(self->fd, &c));
}

/*
 * What VERSION offers of the SIMD state follows the CPU's flags, as the
 * kernel shows them; a component not offered is refused, one offered is
 * taken.
 */
static bool cpu_flag(const char *flag)
{
	char line[8192], word[64];
	bool found = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	snprintf(word, sizeof(word), " %s ", flag);
	while (f && !found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		line[strcspn(line, "\n")] = ' ';
		found = strstr(line, word) != NULL;
		break;
	}
	if (f)
		fclose(f);
	return found;
}

TEST_F(dev, simd_offered)
{
	struct perfregs_version v = { .size = sizeof(v) };
	struct perfregs_config c;
	uint64_t want = 0, bit;

	ASSERT_EQ(0, ioctl(self->fd, PERFREGS_IOC_VERSION, &v));
	if (cpu_flag("xsave"))
		want |= PERFREGS_SIMD_XMM;
	if (cpu_flag("xsave") && cpu_flag("avx"))
		want |= PERFREGS_SIMD_YMM;
	if (cpu_flag("xsave") && cpu_flag("avx512f"))
		want |= PERFREGS_SIMD_ZMM | PERFREGS_SIMD_OPMASK;
	TH_LOG("offered %#llx, the CPU's flags say %#llx",
	       (unsigned long long)v.simd_offered, (unsigned long long)want);
	EXPECT_EQ(want, v.simd_offered);
	for (bit = 1; bit <= PERFREGS_SIMD_OPMASK; bit <<= 1) {
		c = self->cfg;
		c.simd_mask = bit;
		EXPECT_EQ(v.simd_offered & bit ? 0 : EOPNOTSUPP, config_errno(self->fd, &c))
			TH_LOG("simd_mask %#llx", (unsigned long long)bit);
	}
}

/*
 * The largest sample must fit in half the ring (the uapi header): the
 * largest stack that does is taken, 8 bytes more is EINVAL; the FS and
 * GS base count only when a mask asks for them (ABI minor 0's limit
 * stands), the SIMD section only when simd_mask asks for one.
 */
TEST_F(dev, stack_fits_half)
{
	struct perfregs_version v = { .size = sizeof(v) };
	struct perfregs_config c = self->cfg;
	uint32_t regs = sizeof(struct perfregs_rec_sample) +
			16 * PERFREGS_REG_MAX + 16;
	uint32_t xmm = sizeof(struct perfregs_rec_simd) + 16 * 16;

	ASSERT_EQ(0, ioctl(self->fd, PERFREGS_IOC_VERSION, &v));
	c.data_pages = 1;
	c.stack_bytes = (getpagesize() / 2 - regs) & ~7U;
	EXPECT_EQ(0, config_errno(self->fd, &c))
		TH_LOG("stack_bytes %u of a one-page ring", c.stack_bytes);
	c.stack_bytes += 8;
	EXPECT_EQ(EINVAL, config_errno(self->fd, &c))
		TH_LOG("stack_bytes %u of a one-page ring", c.stack_bytes);
	/* the bases: 8 bytes more each in the user frame */
	c.uregs_mask_64 |= PERFREGS_MASK_BASES;
	c.stack_bytes = (getpagesize() / 2 - regs - 16) & ~7U;
	EXPECT_EQ(0, config_errno(self->fd, &c))
		TH_LOG("stack_bytes %u with the bases", c.stack_bytes);
	c.stack_bytes += 8;
	EXPECT_EQ(EINVAL, config_errno(self->fd, &c))
		TH_LOG("stack_bytes %u with the bases", c.stack_bytes);
	c.uregs_mask_64 = self->cfg.uregs_mask_64;
	if (!(v.simd_offered & PERFREGS_SIMD_XMM))
		return;
	c.simd_mask = PERFREGS_SIMD_XMM;
	c.stack_bytes = (getpagesize() / 2 - regs - xmm) & ~7U;
	EXPECT_EQ(0, config_errno(self->fd, &c))
		TH_LOG("stack_bytes %u and xmm", c.stack_bytes);
	c.stack_bytes += 8;
	EXPECT_EQ(EINVAL, config_errno(self->fd, &c))
		TH_LOG("stack_bytes %u and xmm", c.stack_bytes);
}

TEST_F(dev, config_bad)
{
	uint64_t cpus[16] = { 1 };
	struct perfregs_config c;

#define BAD(field_change, want) do {					\
		c = self->cfg;						\
		field_change;						\
		EXPECT_EQ(want, config_errno(self->fd, &c))		\
			TH_LOG("%s", #field_change);			\
	} while (0)

	BAD(c.size = 0, EINVAL);
	BAD(c.size = PERFREGS_CONFIG_SIZE_VER0 - 8, EINVAL);
	BAD(c.size = 1 << 20, E2BIG);
	BAD(c.flags = 1U << 31, EINVAL);
	BAD(c.event = PERFREGS_EV_MAX, EINVAL);
	BAD(c.data_pages = 0, EINVAL);
	BAD(c.data_pages = 3, EINVAL);
	BAD(c.data_pages = 1U << 30, EINVAL);
	BAD(c.period = 0, EINVAL);
	BAD(c.iregs_mask = 1ULL << PERFREGS_REG_MAX, EINVAL);
	BAD(c.iregs_mask = PERFREGS_MASK_BASES, EINVAL);
	BAD(c.uregs_mask_64 = 1ULL << PERFREGS_REG_EXT_MAX, EINVAL);
	BAD(c.simd_mask = PERFREGS_SIMD_ALL + 1, EINVAL);
	BAD(c.simd_mask = 1ULL << 63, EINVAL);
	BAD(c.uregs_mask_64 = ~0ULL, EINVAL);
	BAD(c.uregs_mask_32 = 1ULL << PERFREGS_REG_R8, EINVAL);
	BAD(c.pid = -2, EINVAL);
	BAD(c.period = 1ULL << 63, EINVAL);
	BAD(c.flags = PERFREGS_CF_INHERIT, EINVAL);
	BAD((c.flags = PERFREGS_CF_INHERIT, c.pid = getpid(),
	     c.event = PERFREGS_EV_NMI), EINVAL);
	BAD(c.wakeup_bytes = c.data_pages * getpagesize() + 1, EINVAL);
	BAD(c.flags = PERFREGS_CF_NMI_UNKNOWN, EINVAL);
	BAD(c.data_pages = PERFREGS_MAX_DATA_PAGES * 2, EINVAL);
	BAD(c.stack_bytes = 12, EINVAL);
	BAD(c.stack_bytes = PERFREGS_MAX_STACK_BYTES + 8, EINVAL);
	BAD((c.data_pages = 1, c.stack_bytes = 4096), EINVAL);
	BAD(c.cpus_bytes = 8, EINVAL);
	BAD((c.cpus_ptr = (uintptr_t)&cpus, c.cpus_bytes = 0), EINVAL);
	BAD((c.cpus_ptr = (uintptr_t)&cpus, c.cpus_bytes = 4), EINVAL);
	BAD((c.cpus_ptr = (uintptr_t)&cpus, c.cpus_bytes = 2048), EINVAL);
	BAD((c.cpus_ptr = (uintptr_t)&cpus, c.cpus_bytes = 8, c.pid = getpid()), EINVAL);
	BAD((cpus[0] = 0, c.cpus_ptr = (uintptr_t)&cpus, c.cpus_bytes = 8), EINVAL);
	BAD((cpus[0] = 0, cpus[15] = 1, c.cpus_ptr = (uintptr_t)&cpus, c.cpus_bytes = 128),
	    EINVAL);
	BAD((c.cpus_ptr = 16, c.cpus_bytes = 8), EFAULT);
	BAD(c.bp_addr = 0x1000, EINVAL);
	BAD(c.bp_len = 8, EINVAL);
	BAD((c.event = PERFREGS_EV_BREAKPOINT, c.bp_type = 0, c.bp_len = 8), EINVAL);
	BAD((c.event = PERFREGS_EV_BREAKPOINT, c.bp_type = 8, c.bp_len = 8), EINVAL);
	BAD((c.event = PERFREGS_EV_BREAKPOINT, c.bp_type = PERFREGS_BP_W, c.bp_len = 3),
	    EINVAL);
	BAD((c.event = PERFREGS_EV_BREAKPOINT, c.bp_type = PERFREGS_BP_X, c.bp_len = 4),
	    EINVAL);
	BAD((c.event = PERFREGS_EV_BREAKPOINT, c.bp_type = PERFREGS_BP_X | PERFREGS_BP_W,
	     c.bp_len = 8), EINVAL);
	BAD(c.pid = 0x3fffffff, ESRCH);
	BAD(c.reserved0 = 1, EINVAL);
	BAD(c.reserved[0] = 1, EINVAL);
	BAD(c.reserved[2] = 1, EINVAL);
	/* kernel call chains (minor 2): the config's size says they are there */
#define V2 c.size = PERFREGS_CONFIG_SIZE_VER2
	BAD((V2, c.kchain_max = PERFREGS_MAX_KCHAIN + 1), EINVAL);
	BAD((V2, c.kchain_max = ~0U), EINVAL);
	BAD((V2, c.uchain_max = PERFREGS_MAX_UCHAIN + 1), EINVAL);
	BAD((V2, c.uchain_max = ~0U), EINVAL);
	BAD((V2, c.flags = PERFREGS_CF_EXCLUDE_KERNEL, c.kchain_max = 8), EINVAL);
	BAD((V2, c.data_pages = 1, c.stack_bytes = 1024, c.kchain_max = PERFREGS_MAX_KCHAIN),
	    EINVAL);
	BAD((V2, c.data_pages = 1, c.stack_bytes = 1024, c.uchain_max = PERFREGS_MAX_UCHAIN),
	    EINVAL);
#undef V2
#undef BAD
	cpus[0] = 1;
	c = self->cfg;
	c.cpus_ptr = (uintptr_t)&cpus;
	c.cpus_bytes = 8;
	EXPECT_EQ(0, config_errno(self->fd, &c)) TH_LOG("CPU 0 only");
	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_CONFIG, NULL));
	EXPECT_EQ(EFAULT, errno);
}

/* A structure larger than ours: fine if its tail is zero, else E2BIG. */
TEST_F(dev, config_grows)
{
	union {
		struct perfregs_config c;
		uint8_t b[sizeof(struct perfregs_config) + 64];
	} u;
	int w;

	memset(&u, 0, sizeof(u));
	u.c = self->cfg;
	w = prf_witness_open(&u.c);
	ASSERT_LE(0, w) TH_LOG("perf_event_open: %s", strerror(-w));
	u.c.perf_fd = w;
	u.c.size = sizeof(u);
	EXPECT_EQ(0, ioctl(self->fd, PERFREGS_IOC_CONFIG, &u)) TH_LOG("%s", strerror(errno));
	u.b[sizeof(u.c) + 17] = 1;
	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_CONFIG, &u));
	EXPECT_EQ(E2BIG, errno);
	EXPECT_EQ(PERFREGS_CONFIG_SIZE_VER2, u.c.size) TH_LOG("the size we know, written back");
	/* ABI 1's numbers, with the structures' sizes in them, still work */
	u.c.size = sizeof(u.c);
	EXPECT_EQ(0, ioctl(self->fd, _IOW(PERFREGS_IOC_MAGIC, 1, struct perfregs_config), &u))
		TH_LOG("%s", strerror(errno));
	struct perfregs_version v = { .size = sizeof(v) };

	EXPECT_EQ(0, ioctl(self->fd, _IOWR(PERFREGS_IOC_MAGIC, 0, struct perfregs_version), &v));
	EXPECT_EQ(PERFREGS_ABI_MAJOR, v.major);
	close(w);
}

/* The witness must be a perf event for the same event and target. */
TEST_F(dev, config_witness)
{
	struct perfregs_config c = self->cfg, o;
	int w, devnull = open("/dev/null", O_RDONLY);
	pid_t child = fork();

	if (child == 0) {
		close(self->fd);	/* or the module stays in use */
		prctl(PR_SET_PDEATHSIG, SIGKILL);	/* if the test fails */
		pause();
		_exit(0);
	}
	c.perf_fd = devnull;
	EXPECT_EQ(EBADF, config_errno(self->fd, &c)) TH_LOG("/dev/null as witness");
	c.perf_fd = 99999;
	EXPECT_EQ(EBADF, config_errno(self->fd, &c)) TH_LOG("no such fd");
	c.perf_fd = self->fd;
	EXPECT_EQ(EBADF, config_errno(self->fd, &c)) TH_LOG("perfregs as its own witness");

	/* a witness for something else than what is configured */
#define OTHER(change, want) do {					\
		o = self->cfg;						\
		change;							\
		w = prf_witness_open(&o);				\
		ASSERT_LE(0, w) TH_LOG("%s: perf_event_open: %s",	\
				       #change, strerror(-w));		\
		c = self->cfg;						\
		c.pid = child;						\
		c.perf_fd = w;						\
		EXPECT_EQ(want, config_errno(self->fd, &c))		\
			TH_LOG("witness %s", #change);			\
		close(w);						\
	} while (0)
	OTHER(o.pid = child, 0);
	OTHER(o.pid = getpid(), EACCES);
	OTHER(o.pid = -1, EACCES);
	OTHER((o.pid = child, o.event = PERFREGS_EV_TASK_CLOCK), EACCES);
	OTHER((o.pid = child, o.period = 2 * self->cfg.period), EACCES);
	OTHER((o.pid = child, o.flags = PERFREGS_CF_EXCLUDE_KERNEL), EACCES);
	OTHER((o.pid = child, o.flags = PERFREGS_CF_FREQ, o.period = 100), EACCES);
#undef OTHER
	/* a witness without the stack the session copies, or a smaller one */
	{
		struct perfregs_config wc = self->cfg;
		int fd;

		wc.pid = child;
		wc.stack_bytes = 64;
		fd = prf_witness_open(&wc);
		ASSERT_LE(0, fd);
		c = self->cfg;
		c.pid = child;
		c.stack_bytes = 512;
		c.perf_fd = fd;
		EXPECT_EQ(EACCES, config_errno(self->fd, &c)) TH_LOG("stack 512 on a 64 witness");
		c.stack_bytes = 64;
		EXPECT_EQ(0, config_errno(self->fd, &c)) TH_LOG("stack 64 on a 64 witness");
		close(fd);
	}
	/*
	 * Kernel call chains: a witness with no call chain, or a shallower
	 * one, proves nothing of them; one as deep does.
	 */
	{
		struct perfregs_config wc = self->cfg;
		int fd;

		wc.pid = child;
		wc.size = PERFREGS_CONFIG_SIZE_VER2;
		fd = prf_witness_open(&wc);
		ASSERT_LE(0, fd);
		c = self->cfg;
		c.size = PERFREGS_CONFIG_SIZE_VER2;
		c.pid = child;
		c.kchain_max = 16;
		c.perf_fd = fd;
		EXPECT_EQ(EACCES, config_errno(self->fd, &c)) TH_LOG("chain on a witness without");
		close(fd);
		wc.kchain_max = 8;
		fd = prf_witness_open(&wc);
		ASSERT_LE(0, fd);
		c.perf_fd = fd;
		EXPECT_EQ(EACCES, config_errno(self->fd, &c)) TH_LOG("chain 16 on an 8 witness");
		c.kchain_max = 8;
		EXPECT_EQ(0, config_errno(self->fd, &c)) TH_LOG("chain 8 on an 8 witness");
		close(fd);
	}
	/* a breakpoint witness for another address */
	{
		static volatile long here, there;
		struct perfregs_config wc = self->cfg;
		int fd;

		wc.pid = child;
		wc.event = PERFREGS_EV_BREAKPOINT;
		wc.bp_type = PERFREGS_BP_W;
		wc.bp_len = 8;
		wc.bp_addr = (uintptr_t)&there;
		fd = prf_witness_open(&wc);
		if (fd >= 0) {
			c = wc;
			c.perf_fd = fd;
			c.bp_addr = (uintptr_t)&here;
			EXPECT_EQ(EACCES, config_errno(self->fd, &c))
				TH_LOG("a breakpoint on another address");
			c.bp_addr = (uintptr_t)&there;
			EXPECT_EQ(0, config_errno(self->fd, &c)) TH_LOG("the same breakpoint");
			close(fd);
		} else {
			TH_LOG("no breakpoint witness here (%s): not checked",
			       strerror(-fd));
		}
	}
	/* an anonymous inode that is no perf event */
	{
		int efd = eventfd(0, 0);

		ASSERT_LE(0, efd);
		c = self->cfg;
		c.perf_fd = efd;
		EXPECT_EQ(EBADF, config_errno(self->fd, &c)) TH_LOG("an eventfd as witness");
		close(efd);
	}
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	close(devnull);
}

TEST_F(dev, start_stop)
{
	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_START));
	EXPECT_EQ(EINVAL, errno) TH_LOG("start before config");
	ASSERT_EQ(0, config_errno(self->fd, &self->cfg));
	ASSERT_EQ(0, ioctl(self->fd, PERFREGS_IOC_START));
	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_START));
	EXPECT_EQ(EBUSY, errno) TH_LOG("double start");
	EXPECT_EQ(EBUSY, config_errno(self->fd, &self->cfg))
		TH_LOG("config while running");
	EXPECT_EQ(0, ioctl(self->fd, PERFREGS_IOC_STOP));
	EXPECT_EQ(0, ioctl(self->fd, PERFREGS_IOC_STOP)) TH_LOG("stop is idempotent");
}

TEST_F(dev, target_gone_before_start)
{
	pid_t child = fork();

	if (child == 0) {
		close(self->fd);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		pause();
		_exit(0);
	}
	self->cfg.pid = child;
	ASSERT_EQ(0, config_errno(self->fd, &self->cfg));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	EXPECT_EQ(-1, ioctl(self->fd, PERFREGS_IOC_START));
	EXPECT_EQ(ESRCH, errno);
}

TEST_F(dev, mmap_rules)
{
	size_t ps = getpagesize();
	size_t dsz = (size_t)self->cfg.data_pages * ps;
	off_t ctl = PERFREGS_MMAP_CTL(0, self->cfg.data_pages) * ps;
	off_t data = PERFREGS_MMAP_DATA(0, self->cfg.data_pages) * ps;
	struct perfregs_ctl *c;
	void *p;

	p = mmap(NULL, ps, PROT_READ, MAP_SHARED, self->fd, 0);
	EXPECT_EQ(MAP_FAILED, p) TH_LOG("mmap before config");
	ASSERT_EQ(0, config_errno(self->fd, &self->cfg));

	c = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, ctl);
	ASSERT_NE(MAP_FAILED, c);
	EXPECT_EQ(PERFREGS_ABI_MAJOR, c->version);
	EXPECT_EQ(0, c->cpu);
	EXPECT_EQ(dsz, c->data_size);
	EXPECT_EQ(0, c->data_head);

	p = mmap(NULL, dsz, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd, data);
	EXPECT_EQ(MAP_FAILED, p) TH_LOG("data pages mapped writable");
	EXPECT_EQ(EPERM, errno);
	p = mmap(NULL, dsz, PROT_READ, MAP_SHARED, self->fd, data);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, dsz, PROT_READ | PROT_WRITE))
		TH_LOG("data pages made writable with mprotect");
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ps, PROT_READ, MAP_PRIVATE, self->fd, ctl));
	EXPECT_EQ(MAP_FAILED, mmap(NULL, 2 * ps, PROT_READ, MAP_SHARED, self->fd, ctl))
		TH_LOG("control mapping larger than a page");
	EXPECT_EQ(MAP_FAILED, mmap(NULL, dsz + ps, PROT_READ, MAP_SHARED, self->fd, data))
		TH_LOG("data mapping larger than the buffer");
	EXPECT_EQ(MAP_FAILED, mmap(NULL, ps, PROT_READ, MAP_SHARED, self->fd,
				   PERFREGS_MMAP_CTL(100000, self->cfg.data_pages) * ps))
		TH_LOG("a CPU that does not exist");
	EXPECT_EQ(EBUSY, config_errno(self->fd, &self->cfg)) TH_LOG("config while mapped");
	munmap(p, dsz);
	munmap(c, ps);
	EXPECT_EQ(0, config_errno(self->fd, &self->cfg)) TH_LOG("config once unmapped");
}

/* With a CPU list, only the CPUs listed have a ring to map. */
TEST_F(dev, mmap_cpu_list)
{
	size_t ps = getpagesize();
	uint64_t cpus[1] = { 1ULL << 1 };
	uint32_t pages = self->cfg.data_pages;
	void *p;

	if (sysconf(_SC_NPROCESSORS_CONF) < 2)
		SKIP(return, "needs two CPUs");
	self->cfg.cpus_ptr = (uintptr_t)cpus;
	self->cfg.cpus_bytes = sizeof(cpus);
	ASSERT_EQ(0, config_errno(self->fd, &self->cfg));
	p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 PERFREGS_MMAP_CTL(0, pages) * ps);
	EXPECT_EQ(MAP_FAILED, p) TH_LOG("CPU 0 is not listed but has a ring");
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, ps, PROT_READ | PROT_WRITE, MAP_SHARED, self->fd,
		 PERFREGS_MMAP_CTL(1, pages) * ps);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("CPU 1: %s", strerror(errno));
	EXPECT_EQ(1, ((struct perfregs_ctl *)p)->cpu);
	munmap(p, ps);
}

TEST(needs_privilege)
{
	int fd;

	if (!module_loaded())
		SKIP(return, "perfregs is not loaded");
	if (geteuid() != 0)
		SKIP(return, "must start as root to drop privileges");
	if (fork() == 0) {
		if (setgid(65534) || setuid(65534))
			_exit(2);
		struct perfregs_config c;
		struct prf_reader r;

		/* anyone may open; sampling every task is refused, by perf */
		fd = open(PERFREGS_DEVICE, O_RDWR);
		if (fd < 0 || prf_open(&r, NULL))
			_exit(2);
		prf_config_default(&c);
		_exit(prf_config(&r, &c) == -EACCES && r.witness_errno == EACCES ? 0 : 1);
	} else {
		int status;

		wait(&status);
		EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("unprivileged open was not refused");
	}
}

PERFREGS_HARNESS_MAIN
