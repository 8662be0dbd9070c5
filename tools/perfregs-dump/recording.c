// SPDX-License-Identifier: GPL-2.0
/*
 * Recordings (-o FILE, read back with -i FILE): self-describing, so that
 * a recording decodes exactly as live mode would, on any machine.
 *
 * Layout (little-endian, every item 8-byte aligned):
 *
 *   struct rec_file_header	magic "PRFREC\0\0", format version, the ABI
 *				version of the module the records came
 *				from, page size, the session config (of
 *				PERFREGS_CONFIG_SIZE_VER1 from format 3 on,
 *				VER0 before: its header is 8 bytes shorter)
 *   items, each { u32 type; u32 size (this header included) } + body:
 *     ITEM_INFO   key=value\0 text: kernel release, machine, tool, event;
 *                 version, nrcpus=CONF,ONLINE, host, cpudesc, cpuid, mem_kb,
 *                 kernel_build_id=HEX, kernel_text=0xADDR (_text, when
 *                 kallsyms shows it), arg= for each word of the command
 *                 line, in order (for convert's perf.data header)
 *     ITEM_IMAGE  an executable (dev, ino): ELF class/machine, path
 *     ITEM_MAPS   a task image's executable mappings, for symbols
 *     ITEM_KSYM   a kernel symbol some sample hit
 *     ITEM_KREC   { u32 cpu; u32 zero; } + one or more records from the
 *                 kernel, back to back, all of that CPU (format 1: one)
 *     ITEM_END    produced and lost counters: the file is complete
 *     ITEM_SB     a side-band event: a mapping made, an exec, a fork, an
 *                 exit (struct item_sb + name), time-stamped like the
 *                 samples; the address spaces are rebuilt from these.
 *                 Also the tool's own SB_BEGIN: COMMAND's process is
 *                 tracked from here on, before its exec (readers that
 *                 do not know the kind skip it)
 *     ITEM_BLOB   an ELF image that is no file (a vDSO), once per build-id:
 *                 struct item_blob + the image, padded
 *
 * Everything a sample's decoding needs (its image, maps, side-band
 * events, kernel symbol) is written before the sample.  A reader skips
 * items of a type it does not know, unread.  The reader checks every size
 * against the file and against the most a writer makes of its type
 * (item_max()), and stops at the first malformed item with its offset.
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "types.h"
#include "images.h"
#include "vdso.h"
#include "symbols.h"
#include "aspace.h"
#include "output.h"
#include "pool.h"
#include "outfile.h"
#include "intern.h"
#include "recording.h"

#define REC_MAGIC	"PRFREC\0\0"
#define REC_VERSION	3	/* 2: several records per ITEM_KREC; 3: simd_mask */
#define REC_VERSION_MIN	1

enum {
	ITEM_INFO = 1, ITEM_IMAGE, ITEM_MAPS, ITEM_KSYM, ITEM_KREC, ITEM_END, ITEM_SB,
	ITEM_BLOB,
};

/*
 * The largest item of each known type a writer makes, its header and
 * padding included.  The reader refuses a larger one before it reads a
 * byte of it: the sizes are anyone's who wrote the file, and a sparse
 * file claiming a 4 GiB item was 4 GiB of the reader's memory.
 *   INFO   under 4 KiB of facts, and the command line: this writer keeps
 *          REC_INFO_ARGS bytes of it, older ones all of it, and execve()
 *          takes at most 6 MiB of strings and pointers (3/4 of _STK_LIM):
 *          an arg= costs 4 bytes more than its string, its pointer 8
 *   IMAGE  a path of at most PATH_MAX (readlink(), realpath())
 *   MAPS   MAPS_MAX mappings (symbols.c), 56 bytes and a path of a
 *          /proc/PID/maps line (shorter than 4096 bytes) each
 *   KSYM   a name from /proc/kallsyms, shorter than KSYM_NAME_LEN (512)
 *   KREC   a ring's unread records, written straight from it: at most
 *          PERFREGS_MAX_DATA_PAGES of x86-64's 4 KiB pages; or the
 *          records of one CPU gathered in the buffer (REC_BUF_SIZE)
 *   END    the counters, of PERFREGS_LOST_SLOTS causes at most
 *   SB     struct item_sb and a perf MMAP2 file name (PATH_MAX at most;
 *          the kernel's d_path() buffer) or a comm
 *   BLOB   an image of BLOB_MAX bytes at most
 * Items of a type this tool does not know are gone past unbuffered,
 * whatever their size.
 */
#define KSYM_NAME_LEN	512
#define ITEM_ALIGN(n)	(((uint64_t)(n) + 7) & ~7ULL)
#define INFO_MAX	(8ULL << 20)
#define IMAGE_MAX	ITEM_ALIGN(8 + 16 + PATH_MAX)
#define MAPS_ITEM_MAX	(8 + 16 + (uint64_t)MAPS_MAX * (56 + 4096))
#define KSYM_MAX	ITEM_ALIGN(8 + 16 + KSYM_NAME_LEN)
#define KREC_MAX	(8 + 8 + (uint64_t)PERFREGS_MAX_DATA_PAGES * 4096)
#define END_MAX		(8 + 8 + 8 * PERFREGS_LOST_SLOTS)
#define SB_MAX		ITEM_ALIGN(8 + 72 + PATH_MAX)
#define BLOB_ITEM_MAX	(8 + 8 + (uint64_t)BLOB_MAX)

/* The most a writer puts in an item of type; 0 for a type not known. */
static uint64_t item_max(uint32_t type)
{
	switch (type) {
	case ITEM_INFO:
		return INFO_MAX;
	case ITEM_IMAGE:
		return IMAGE_MAX;
	case ITEM_MAPS:
		return MAPS_ITEM_MAX;
	case ITEM_KSYM:
		return KSYM_MAX;
	case ITEM_KREC:
		return KREC_MAX;
	case ITEM_END:
		return END_MAX;
	case ITEM_SB:
		return SB_MAX;
	case ITEM_BLOB:
		return BLOB_ITEM_MAX;
	}
	return 0;
}

struct rec_file_header {
	char magic[8];
	uint32_t header_size;	/* sizeof(struct rec_file_header) */
	uint32_t version;	/* REC_VERSION */
	uint32_t abi_major, abi_minor;
	uint32_t page_size;
	uint32_t reserved;
	struct perfregs_config cfg;
};

/* The header of formats 1 and 2 (and its cfg) ends before simd_mask. */
#define REC_HEADER_VER0	(offsetof(struct rec_file_header, cfg) + PERFREGS_CONFIG_SIZE_VER0)

struct item {
	uint32_t type;
	uint32_t size;
};

struct item_image {
	uint64_t ino;
	uint32_t dev;
	uint8_t known, elfclass;
	uint16_t machine;
	/* path\0, padded */
};

struct item_maps {
	uint32_t pid;
	uint32_t n;
	uint64_t ino;
	/* n x { u64 start, end, pgoff; u32 path_len (with \0); u32 zero; path } */
};

struct item_ksym {
	uint64_t start, end;
	/* name\0, padded */
};

struct item_sb {
	uint32_t kind;		/* enum sb_kind */
	uint32_t pid;
	uint32_t ppid;		/* SB_FORK */
	uint32_t prot;		/* SB_MMAP */
	uint64_t time;
	uint64_t start, end, pgoff;	/* SB_MMAP */
	uint32_t build_id_len;	/* at most 20 */
	uint8_t build_id[20];
	/* name\0 (SB_MMAP: path, SB_EXEC: comm), padded */
};

struct item_blob {
	uint32_t kind;		/* 1: a vDSO */
	uint32_t size;		/* of the image that follows */
};

struct item_end {
	uint64_t produced;
	uint64_t lost[PERFREGS_LOST_MAX];
};

/*
 * Our own buffer and write(2), not stdio: a recording takes one item per
 * sample, and stdio's locking and copying per call cost more than the
 * rest of the recording path together (measured under icount).
 */
#define REC_BUF_SIZE (256 * 1024)
/* Runs of kernel records this long are written from the ring directly. */
#define REC_DIRECT (16 * 1024)

struct recorder {
	int fd;
	const char *path;
	int error;
	size_t len;
	/*
	 * The ITEM_KREC at buf + krec_off takes further records of krec_cpu
	 * until another item, or a flush, closes it (krec_open false).
	 */
	bool krec_open;
	uint32_t krec_cpu;
	size_t krec_off;
	/* items come from the decoding and the learner threads, whole */
	pthread_mutex_t lock;
	bool written;		/* buf's start (the header) went to fd */
	bool seekable;		/* fd is a regular file: pwrite() reaches the header */
	off_t start;		/* where in it the recording starts (-o - > FILE) */
	unsigned char buf[REC_BUF_SIZE];
};

static const char zeros[8];

static void writev_all(struct recorder *r, struct iovec *iov, int cnt)
{
	for (;;) {
		ssize_t w;

		while (cnt && !iov->iov_len) {	/* nothing to write there */
			iov++;
			cnt--;
		}
		if (!cnt || r->error)
			break;
		w = writev(r->fd, iov, cnt);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			r->error = w < 0 ? errno : EIO;
			break;
		}
		r->written = true;
		/* a short write: skip what went out */
		while (cnt && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			cnt--;
		}
		if (cnt) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
}

static void write_all(struct recorder *r, const void *p, size_t n)
{
	struct iovec iov = { (void *)p, n };

	writev_all(r, &iov, 1);
}

static void flush(struct recorder *r)
{
	r->krec_open = false;
	write_all(r, r->buf, r->len);
	r->len = 0;
}

/* Called with r->lock held, or before a second thread can see r. */
static void put(struct recorder *r, const void *p, size_t n)
{
	r->krec_open = false;
	if (!n)
		return;	/* p may be NULL then */
	if (r->len + n > sizeof(r->buf)) {
		flush(r);
		if (n > sizeof(r->buf)) {
			write_all(r, p, n);
			return;
		}
	}
	memcpy(r->buf + r->len, p, n);
	r->len += n;
}

static void put_item(struct recorder *r, uint32_t type, const void *a, size_t alen,
		     const void *b, size_t blen)
{
	size_t len = sizeof(struct item) + alen + blen;
	struct item it = { type, (uint32_t)((len + 7) & ~7UL) };

	if (ITEM_ALIGN(len) > item_max(type))
		return;		/* no reader takes it (a name no kernel makes) */
	pthread_mutex_lock(&r->lock);
	put(r, &it, sizeof(it));
	put(r, a, alen);
	put(r, b, blen);
	put(r, zeros, it.size - len);
	pthread_mutex_unlock(&r->lock);
}

static int rec_argc;
static const char **rec_argv;

/*
 * The command line a recording notes (arg=), set before rec_create()
 * and before getopt() reorders argv: the strings stay, the array is
 * copied.
 */
void rec_cmdline(int argc, char *const *argv)
{
	free(rec_argv);
	rec_argc = 0;
	rec_argv = malloc((argc + 1) * sizeof(*rec_argv));
	if (!rec_argv)
		return;
	memcpy(rec_argv, argv, argc * sizeof(*rec_argv));
	rec_argc = argc;
}

/* The running kernel's GNU build-id, from its notes; its length, or 0. */
static size_t kernel_build_id(uint8_t id[20])
{
	unsigned char buf[4096];
	size_t off = 0, len;
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	while (n > 0 && off + 12 <= (size_t)n) {
		uint32_t nh[3];	/* namesz, descsz, type */
		size_t name, desc;

		memcpy(nh, buf + off, sizeof(nh));
		name = (nh[0] + 3) & ~3U;
		desc = (nh[1] + 3) & ~3U;
		if (name > (size_t)n || desc > (size_t)n || off + 12 + name + desc > (size_t)n)
			break;
		if (nh[2] == 3 /* NT_GNU_BUILD_ID */ && nh[0] == 4 &&
		    !memcmp(buf + off + 12, "GNU", 4) && nh[1] && nh[1] <= 20) {
			len = nh[1];
			memcpy(id, buf + off + 12 + name, len);
			return len;
		}
		off += 12 + name + desc;
	}
	return 0;
}

/* The address of _text in /proc/kallsyms: 0 when hidden (not root). */
static uint64_t kernel_text(void)
{
	FILE *fp = fopen("/proc/kallsyms", "r");
	char line[256];
	uint64_t addr = 0;
	int lines = 0;

	/* _text is among the first symbols of the kernel's text: stop soon */
	while (fp && lines++ < 100000 && fgets(line, sizeof(line), fp)) {
		char *end;
		uint64_t a = strtoull(line, &end, 16);

		if (!strcmp(end, " T _text\n")) {
			addr = a;
			break;
		}
	}
	if (fp)
		fclose(fp);
	return addr;
}

/*
 * What /proc/cpuinfo says of the first CPU, as perf's CPUDESC ("model
 * name") and CPUID ("vendor,family,model,stepping"); "" when it cannot.
 */
static void cpu_info(char *desc, size_t dlen, char *id, size_t idlen)
{
	FILE *fp = fopen("/proc/cpuinfo", "r");
	char line[256], vendor[64] = "";
	int family = -1, model = -1, stepping = -1;

	desc[0] = id[0] = 0;
	while (fp && fgets(line, sizeof(line), fp) && strcmp(line, "\n")) {
		char *v = strchr(line, ':');

		if (!v)
			continue;
		v += v[1] == ' ' ? 2 : 1;
		v[strcspn(v, "\n")] = 0;
		if (!strncmp(line, "vendor_id", 9))
			snprintf(vendor, sizeof(vendor), "%s", v);
		else if (!strncmp(line, "cpu family", 10))
			family = atoi(v);
		else if (!strncmp(line, "model name", 10))
			snprintf(desc, dlen, "%s", v);
		else if (!strncmp(line, "model\t", 6))
			model = atoi(v);
		else if (!strncmp(line, "stepping", 8))
			stepping = atoi(v);
	}
	if (fp)
		fclose(fp);
	if (vendor[0] && family >= 0 && model >= 0 && stepping >= 0)
		snprintf(id, idlen, "%s,%d,%d,%d", vendor, family, model, stepping);
}

/* MemTotal of /proc/meminfo, kB; 0 when it cannot. */
static unsigned long total_mem(void)
{
	FILE *fp = fopen("/proc/meminfo", "r");
	unsigned long kb = 0;

	if (fp) {
		if (fscanf(fp, "MemTotal: %lu kB", &kb) != 1)
			kb = 0;
		fclose(fp);
	}
	return kb;
}

/*
 * The bytes of arg= words ITEM_INFO keeps, at most: the header and the
 * info stay in the buffer until sampling starts, so that
 * rec_update_config() finds them there, also when the file is a pipe.
 */
#define REC_INFO_ARGS	(64 * 1024)

/* ITEM_INFO's text: key=value strings, each with its NUL; NULL if no memory */
static char *info_text(const char *event_name, size_t *len)
{
	size_t cap = 4096, n = 0, i, k, args = 0;
	char *p = malloc(cap), *q;
	struct utsname u;
	char hex[41], host[256], desc[128], cpuid[96];
	uint8_t id[20];
	uint64_t text;
	unsigned long mem;
	int w;

	if (!p)
		return NULL;
	uname(&u);
	k = kernel_build_id(id);
	for (i = 0; i < k; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	hex[2 * k] = 0;
	text = kernel_text();
	if (gethostname(host, sizeof(host)))
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	cpu_info(desc, sizeof(desc), cpuid, sizeof(cpuid));
	mem = total_mem();
	w = snprintf(p, cap, "kernel=%s%cmachine=%s%cevent=%s%ctool=%s%cversion=%s%c"
		     "nrcpus=%ld,%ld%chost=%s%ccpudesc=%s%ccpuid=%s%cmem_kb=%lu",
		     u.release, 0, u.machine, 0, event_name, 0, "perfregs-dump", 0,
		     PERFREGS_TOOL_VERSION, 0, sysconf(_SC_NPROCESSORS_CONF),
		     sysconf(_SC_NPROCESSORS_ONLN), 0, host, 0, desc, 0, cpuid, 0, mem);
	if (w < 0 || (size_t)w >= cap)
		goto fail;
	n = (size_t)w + 1;
	/* each fits: the strings above are bounded, the total far below cap */
	if (k) {
		w = snprintf(p + n, cap - n, "kernel_build_id=%s", hex);
		if (w < 0 || (size_t)w >= cap - n)
			goto fail;
		n += (size_t)w + 1;
	}
	if (text) {
		w = snprintf(p + n, cap - n, "kernel_text=0x%" PRIx64, text);
		if (w < 0 || (size_t)w >= cap - n)
			goto fail;
		n += (size_t)w + 1;
	}
	for (w = 0; w < rec_argc; w++) {
		size_t a = strlen(rec_argv[w]);

		if (args + a + 5 > REC_INFO_ARGS)
			break;	/* the rest of a command line this long is left out */
		args += a + 5;
		if (n + a + 5 > cap) {
			cap = (n + a + 5) * 2;
			q = realloc(p, cap);
			if (!q) {
				free(p);
				return NULL;
			}
			p = q;
		}
		memcpy(p + n, "arg=", 4);
		memcpy(p + n + 4, rec_argv[w], a + 1);
		n += a + 5;
	}
	*len = n;
	return p;

fail:
	free(p);
	return NULL;
}

/*
 * For the tests' recordings; record -o makes its file with care
 * (out_open()).  "-" is the standard output, as for record -o -.
 */
struct recorder *rec_create(const char *path, const struct perfregs_config *cfg,
			    const char *event_name)
{
	int fd;

	if (!strcmp(path, "-"))
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
	else
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, OUT_MODE);
	return fd < 0 ? NULL : rec_create_fd(fd, path, cfg, event_name);
}

struct recorder *rec_create_fd(int fd, const char *path, const struct perfregs_config *cfg,
			       const char *event_name)
{
	struct rec_file_header h = { .magic = REC_MAGIC };
	struct recorder *r = calloc(1, sizeof(*r));
	struct stat st;
	size_t len;
	char *info;
	int n, fl;

	if (!r) {
		close(fd);
		errno = ENOMEM;
		return NULL;
	}
	/*
	 * Touch the buffer now: its page faults would otherwise come while
	 * the sampled workload runs, and count as overhead.
	 */
	for (n = 0; n < (int)sizeof(r->buf); n += 4096)
		((volatile unsigned char *)r->buf)[n] = 0;
	r->path = path;
	info = info_text(event_name, &len);
	if (!info) {
		close(fd);
		free(r);
		errno = ENOMEM;
		return NULL;
	}
	r->fd = fd;
	/*
	 * A regular file is written from where fd stands in it (a shell's
	 * -o - > FILE after other output), so that the header is at start.
	 * O_APPEND (-o - >> FILE) would put a pwrite() at the end instead:
	 * such a file is as a pipe, its header never written again.
	 */
	r->seekable = !fstat(r->fd, &st) && S_ISREG(st.st_mode) &&
		      (fl = fcntl(r->fd, F_GETFL)) >= 0 && !(fl & O_APPEND) &&
		      (r->start = lseek(r->fd, 0, SEEK_CUR)) >= 0;
	pthread_mutex_init(&r->lock, NULL);
	h.header_size = sizeof(h);
	h.version = REC_VERSION;
	h.abi_major = PERFREGS_ABI_MAJOR;
	h.abi_minor = PERFREGS_ABI_MINOR;
	h.page_size = getpagesize();
	h.cfg = *cfg;
	h.cfg.cpus_ptr = 0;	/* a pointer means nothing in a file */
	put(r, &h, sizeof(h));
	put_item(r, ITEM_INFO, info, len, NULL, 0);
	free(info);
	return r;
}

/*
 * The header changed after rec_create(): len bytes of it at off.  In the
 * buffer while nothing was written (always, before sampling starts: the
 * info is bounded), else in the file, in place.  A pipe or a FIFO (or a
 * file opened O_APPEND) that has the header already cannot take it
 * again: -ESPIPE, and the recording goes on with the header it has.
 */
static int rec_rewrite(struct recorder *r, size_t off, const void *p, size_t len)
{
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	if (!r->written)
		memcpy(r->buf + off, p, len);
	else if (!r->seekable)
		ret = -ESPIPE;
	else if (pwrite(r->fd, p, len, r->start + (off_t)off) != (ssize_t)len && !r->error)
		r->error = errno ? errno : EIO;
	if (!ret && r->error)
		ret = -r->error;
	pthread_mutex_unlock(&r->lock);
	return ret;
}

/*
 * The session's configuration changed after rec_create() (the default
 * event fell back to user mode only; --simd all became what the module
 * offers): the header says what was sampled.
 */
int rec_update_config(struct recorder *r, const struct perfregs_config *cfg)
{
	struct perfregs_config c = *cfg;

	c.cpus_ptr = 0;
	return rec_rewrite(r, offsetof(struct rec_file_header, cfg), &c, sizeof(c));
}

/*
 * The ABI the records come in is the module's (rec_create() wrote this
 * tool's): its minor, when it is older, says which registers and
 * sections the module could have written.  As rec_update_config().
 */
int rec_update_abi(struct recorder *r, uint32_t major, uint32_t minor)
{
	uint32_t abi[2] = { major, minor };

	return rec_rewrite(r, offsetof(struct rec_file_header, abi_major), abi, sizeof(abi));
}

/*
 * A record from the kernel.  Records of one CPU in a row share one item:
 * 16 bytes and a few calls less per sample than an item each.
 */
int rec_records(struct recorder *r, int cpu, const void *a, size_t alen,
		const void *b, size_t blen)
{
	uint32_t pre[2] = { (uint32_t)cpu, 0 };
	size_t n = alen + blen;
	struct item it;
	int err;

	pthread_mutex_lock(&r->lock);
	if (n >= REC_DIRECT) {
		/*
		 * Straight from the ring to the file, after what the buffer
		 * holds: no copy of our own (the kernel's, or none for 9p).
		 */
		struct {
			struct item it;
			uint32_t pre[2];
		} head = { { ITEM_KREC, (uint32_t)(sizeof(head) + n) },
			   { (uint32_t)cpu, 0 } };
		struct iovec iov[3] = {
			{ &head, sizeof(head) },
			{ (void *)a, alen }, { (void *)b, blen },
		};

		flush(r);
		writev_all(r, iov, blen ? 3 : 2);
		goto unlock;
	}
	if (r->krec_open && r->krec_cpu == (uint32_t)cpu &&
	    r->len + n <= sizeof(r->buf)) {
		/*
		 * The item lies wholly in the buffer, so its size stays below
		 * REC_BUF_SIZE; record sizes are multiples of 8: still aligned.
		 */
		memcpy(&it, r->buf + r->krec_off, sizeof(it));
		memcpy(r->buf + r->len, a, alen);
		if (blen)
			memcpy(r->buf + r->len + alen, b, blen);
		r->len += n;
		it.size += (uint32_t)n;
		memcpy(r->buf + r->krec_off, &it, sizeof(it));
		goto unlock;
	}
	it.type = ITEM_KREC;
	it.size = (uint32_t)(sizeof(it) + sizeof(pre) + n);
	put(r, &it, sizeof(it));
	/* where the item starts, now that put() may have flushed */
	r->krec_off = r->len - sizeof(it);
	put(r, pre, sizeof(pre));
	put(r, a, alen);
	if (blen)
		put(r, b, blen);
	/* a write straight from a or b (bigger than the buffer) leaves none open */
	r->krec_open = r->len >= sizeof(it) + sizeof(pre) + n;
	r->krec_cpu = (uint32_t)cpu;
unlock:
	pthread_mutex_unlock(&r->lock);
	/* relaxed: set under r->lock, by this thread or the learner's items */
	err = __atomic_load_n(&r->error, __ATOMIC_RELAXED);
	return err ? -err : 0;
}

int rec_sample(struct recorder *r, int cpu, const struct perfregs_rec_header *h)
{
	return rec_records(r, cpu, h, h->size, NULL, 0);
}

void rec_image(void *arg, const struct image *im)
{
	struct item_image ii = {
		.ino = im->ino, .dev = im->dev, .known = im->facts.known,
		.elfclass = im->facts.elfclass, .machine = im->facts.machine,
	};
	const char *p = im->path ? im->path : "";

	put_item(arg, ITEM_IMAGE, &ii, sizeof(ii), p, strlen(p) + 1);
}

void rec_maps(void *arg, const struct task_maps *tm)
{
	struct recorder *r = arg;
	struct item_maps im = { .pid = tm->pid, .n = tm->n, .ino = tm->ino };
	size_t len = sizeof(struct item) + sizeof(im);
	struct item it;
	unsigned int i;

	for (i = 0; i < tm->n; i++)
		len += 56 + ((strlen(tm->m[i].path) + 1 + 7) & ~7UL);
	if (len > MAPS_ITEM_MAX)
		return;		/* no reader takes it */
	it.type = ITEM_MAPS;
	it.size = (uint32_t)len;
	pthread_mutex_lock(&r->lock);
	put(r, &it, sizeof(it));
	put(r, &im, sizeof(im));
	for (i = 0; i < tm->n; i++) {
		uint32_t plen = strlen(tm->m[i].path) + 1;
		uint64_t v[3] = { tm->m[i].start, tm->m[i].end, tm->m[i].pgoff };
		uint32_t l[2] = { plen, tm->m[i].build_id_len };
		uint8_t bid[24] = { 0 };

		memcpy(bid, tm->m[i].build_id, tm->m[i].build_id_len);
		put(r, v, sizeof(v));
		put(r, l, sizeof(l));
		put(r, bid, sizeof(bid));
		put(r, tm->m[i].path, plen);
		put(r, zeros, ((plen + 7) & ~7U) - plen);
	}
	pthread_mutex_unlock(&r->lock);
}

void rec_sb(void *arg, const struct sb_event *ev)
{
	struct item_sb it = {
		.kind = ev->kind, .pid = ev->pid, .ppid = ev->ppid, .prot = ev->prot,
		.time = ev->time, .start = ev->start, .end = ev->end,
		.pgoff = ev->pgoff, .build_id_len = ev->build_id_len,
	};
	const char *name = ev->name ? ev->name : "";

	memcpy(it.build_id, ev->build_id, sizeof(it.build_id));
	put_item(arg, ITEM_SB, &it, sizeof(it), name, strlen(name) + 1);
}

void rec_blob(void *arg, const struct blob *b, const void *data)
{
	struct item_blob ib = { 1, (uint32_t)b->size };

	put_item(arg, ITEM_BLOB, &ib, sizeof(ib), data, b->size);
}

void rec_ksym(void *arg, const struct ksym *k)
{
	struct item_ksym ik = { k->start, k->end };

	put_item(arg, ITEM_KSYM, &ik, sizeof(ik), k->name, strlen(k->name) + 1);
}

/*
 * A recording given up before anything was sampled: nothing more
 * written.  *st: the file it was written to; 0 if that is known.
 */
int rec_discard(struct recorder *r, struct stat *st)
{
	int ret = fstat(r->fd, st);

	close(r->fd);
	pthread_mutex_destroy(&r->lock);
	free(r);
	return ret;
}

int rec_close(struct recorder *r, uint64_t produced, const uint64_t *lost)
{
	struct item_end e = { .produced = produced };
	int err;

	memcpy(e.lost, lost, sizeof(e.lost));
	put_item(r, ITEM_END, &e, sizeof(e), NULL, 0);
	flush(r);
	if (close(r->fd) && !r->error)
		r->error = errno;
	err = r->error;
	pthread_mutex_destroy(&r->lock);
	free(r);
	return err ? -err : 0;
}

/* ---- reading --------------------------------------------------------- */

/* A NUL-terminated string inside [p, end), or NULL. */
static const char *str_in(const char *p, const char *end)
{
	return p < end && memchr(p, 0, end - p) ? p : NULL;
}

/* value is 1 to max - 1 printable ASCII characters, no space: into dst */
static bool info_word(char *dst, size_t max, const char *value, size_t n)
{
	size_t i;

	for (i = 0; i < n && value[i] > ' ' && value[i] < 0x7f; i++)
		;
	if (i != n || !n || n >= max)
		return false;
	memcpy(dst, value, n);
	dst[n] = 0;
	return true;
}

/* value is printable ASCII, spaces too, shorter than max: into dst */
static void info_text_value(char *dst, size_t max, const char *value, size_t n)
{
	size_t i;

	for (i = 0; i < n && value[i] >= ' ' && value[i] < 0x7f; i++)
		;
	if (i == n && n < max) {
		memcpy(dst, value, n);
		dst[n] = 0;
	}
}

/*
 * A word of the recording's command line.  Its bytes go into perf.data's
 * CMDLINE, which perf prints to terminals: control bytes become '?',
 * and a word is at most REC_ARG_MAX bytes.
 */
static void info_arg(struct rec_info *in, const char *value, size_t n)
{
	char **args, *a;
	size_t i;

	if (in->nargs >= REC_ARGS_MAX || n > REC_ARG_MAX)
		return;
	args = realloc(in->args, (in->nargs + 1) * sizeof(*args));
	if (!args)
		return;
	in->args = args;
	a = malloc(n + 1);
	if (!a)
		return;
	for (i = 0; i < n; i++)
		a[i] = (unsigned char)value[i] < ' ' || value[i] == 0x7f ? '?' : value[i];
	a[n] = 0;
	in->args[in->nargs++] = a;
}

/*
 * The strings of an ITEM_INFO in [p, end): the samples' event name (a
 * name of 1 to 63 printable ASCII characters, no space; anything else,
 * or none, is "unknown", and is not printed), and what convert puts in
 * perf.data's header.  The file is anyone's: a value that does not
 * parse is left out, the first of a key counts, args are at most
 * REC_ARGS_MAX (the item's size bounds their bytes).
 */
static void info_parse(struct decoder *d, const char *p, const char *end)
{
	struct rec_info *in = &d->info;
	size_t n;

	for (; p < end; p += n + 1) {
		const char *v;
		size_t vn;

		n = strnlen(p, end - p);
		if (n == (size_t)(end - p))
			break;		/* no NUL: no string */
		v = memchr(p, '=', n);
		if (!v)
			continue;
		v++;
		vn = n - (size_t)(v - p);
		if (!strncmp(p, "event=", 6) && !in->event_seen) {
			in->event_seen = true;
			if (!info_word(d->event_name, sizeof(d->event_name), v, vn))
				d->event_name[0] = 0;
		} else if (!strncmp(p, "kernel=", 7) && !in->release[0]) {
			info_word(in->release, sizeof(in->release), v, vn);
		} else if (!strncmp(p, "machine=", 8) && !in->machine[0]) {
			info_word(in->machine, sizeof(in->machine), v, vn);
		} else if (!strncmp(p, "nrcpus=", 7) && !in->nrcpus_conf) {
			unsigned int c, o;
			char tail;

			if (vn < 24 && sscanf(v, "%u,%u%c", &c, &o, &tail) == 2 &&
			    c && o && o <= c && c <= 1U << 16) {
				in->nrcpus_conf = c;
				in->nrcpus_online = o;
			}
		} else if (!strncmp(p, "kernel_build_id=", 16) && !in->kbuild_id_len) {
			unsigned int i, x;

			for (i = 0; vn % 2 == 0 && vn <= 40 && i < vn / 2; i++) {
				if (!isxdigit((unsigned char)v[2 * i]) ||
				    !isxdigit((unsigned char)v[2 * i + 1]) ||
				    sscanf(v + 2 * i, "%2x", &x) != 1)
					break;
				in->kbuild_id[i] = (uint8_t)x;
			}
			if (vn && i == vn / 2)
				in->kbuild_id_len = (uint8_t)i;
		} else if (!strncmp(p, "kernel_text=", 12) && !in->kernel_text) {
			char *e;
			uint64_t t;

			errno = 0;
			t = strtoull(v, &e, 16);
			if (!errno && e == v + vn && vn > 2 && v[0] == '0' && v[1] == 'x' &&
			    t >= 0xffff800000000000ULL && t < 0xffffffffff000000ULL)
				in->kernel_text = t;
		} else if (!strncmp(p, "arg=", 4)) {
			info_arg(in, v, vn);
		} else if (!strncmp(p, "version=", 8) && !in->version[0]) {
			info_word(in->version, sizeof(in->version), v, vn);
		} else if (!strncmp(p, "host=", 5) && !in->host[0]) {
			info_word(in->host, sizeof(in->host), v, vn);
		} else if (!strncmp(p, "cpuid=", 6) && !in->cpuid[0]) {
			info_word(in->cpuid, sizeof(in->cpuid), v, vn);
		} else if (!strncmp(p, "cpudesc=", 8) && !in->cpudesc[0]) {
			info_text_value(in->cpudesc, sizeof(in->cpudesc), v, vn);
		} else if (!strncmp(p, "mem_kb=", 7) && !in->mem_kb) {
			char *e;

			errno = 0;
			in->mem_kb = strtoull(v, &e, 10);
			if (errno || e != v + vn || !isdigit((unsigned char)v[0]))
				in->mem_kb = 0;
		}
	}
	if (!d->event_name[0])
		snprintf(d->event_name, sizeof(d->event_name), "unknown");
	d->o.event_name = d->event_name;
}

void rec_info_free(struct decoder *d)
{
	unsigned int i;

	for (i = 0; i < d->info.nargs; i++)
		free(d->info.args[i]);
	free(d->info.args);
	memset(&d->info, 0, sizeof(d->info));
}

static int bad(char *err, size_t len, uint64_t off, const char *what)
{
	snprintf(err, len, "malformed recording at offset %" PRIu64 ": %s", off, what);
	return -EBADMSG;
}

/*
 * A recording is read into memory of our own, never mapped: whoever can
 * write the file could change a mapping's bytes between our check of a
 * size and its use (MAP_PRIVATE copies a page only when we write to it;
 * the others show the file as it is now), or truncate it under us, and
 * the next access to a page past its new end would be a SIGBUS.  read()
 * copies each byte once: what was checked is what is used, and a file
 * that shrinks is only an end that comes early.
 *
 * The file comes in chunks of REC_CHUNK into a window that each item is
 * decoded from, whole (it grows for an item longer than that).  Decoding
 * mkrec 250000 (1000001 samples, 168 MB, in the page cache), -q, best
 * of 20 on 2 cores, mapped with MAP_POPULATE / read in 256 KiB chunks:
 * --summary 30 / 39 ms, -f json 327 / 342 ms, text 305 / 299 ms; the
 * copy costs some 9 ms per 168 MB, a few percent of a decode that
 * prints, and the chunk size does not matter from 64 KiB to 4 MiB.
 * The largest RSS went from 166 MB to 2.4 MB.
 */
#define REC_CHUNK	(256 * 1024)
#define REC_WINDOW_MAX	(16 * 1024 * 1024)
struct rec_src {
	int fd;			/* -1: all the bytes are in mem already */
	const unsigned char *mem;	/* buf, or the caller's memory */
	unsigned char *buf;	/* ours, cap bytes: chunk->data */
	size_t cap;
	/*
	 * The window: the source's, and once left behind, the batches' that
	 * hold records in it (pool.c), until the last one puts it back.
	 * Nothing writes the bytes of a window that anyone but the source
	 * holds: the source moves on to another (src_window()).
	 */
	struct rec_chunk *chunk;	/* NULL with the caller's memory */
	struct chunk_spares spares;	/* outlive every hold (src_items()) */
	size_t pos, len;	/* mem[pos, len) is read and not yet consumed */
	uint64_t off;		/* the file offset of mem[pos] */
	uint64_t size;		/* the file's size when opened: no more is read */
	bool seekable;		/* a regular file: lseek() goes past bytes unread */
	bool shrunk;		/* it ended before size: truncated meanwhile */
	int error;		/* errno of a failed read() */
};

/* A window of cap bytes, held by s: a spare if one fits. */
static struct rec_chunk *chunk_new(struct rec_src *s, size_t cap)
{
	struct rec_chunk *c = NULL;

	if (cap == s->spares.cap && s->spares.list) {
		c = s->spares.list;
		s->spares.list = c->next;
		s->spares.n--;
	} else {
		c = malloc(sizeof(*c) + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->home = &s->spares;
	}
	c->refs = 1;
	c->next = NULL;
	return c;
}

static void src_free(struct rec_src *s)
{
	struct rec_chunk *c;

	if (s->chunk)
		rec_chunk_put(s->chunk);
	s->chunk = NULL;
	while ((c = s->spares.list)) {
		s->spares.list = c->next;
		free(c);
	}
	s->spares.n = 0;
}

/*
 * The unread bytes of s to the front of a window of cap bytes (not
 * fewer than they are): the same window, unless a batch holds it, for
 * its bytes must stay as they are.  -ENOMEM leaves s as it was, but
 * that the unread bytes may have moved to the front.
 */
static int src_window(struct rec_src *s, size_t cap)
{
	size_t have = s->len - s->pos;
	struct rec_chunk *c = s->chunk;

	if (c->refs > 1) {
		c = chunk_new(s, cap);
		if (!c)
			return -ENOMEM;
		memcpy(c->data, s->buf + s->pos, have);
		rec_chunk_put(s->chunk);
	} else {
		if (s->pos)
			memmove(c->data, c->data + s->pos, have);
		s->pos = 0;
		s->len = have;
		if (cap != c->cap) {
			c = realloc(c, sizeof(*c) + cap);
			if (!c)
				return -ENOMEM;
			c->cap = cap;
		}
	}
	s->chunk = c;
	s->buf = c->data;
	s->mem = c->data;
	s->cap = cap;
	s->pos = 0;
	s->len = have;
	return 0;
}

/*
 * Make n bytes from the current offset lie whole in mem, reading as
 * needed; returns how many do, fewer than n only at the end (s->size,
 * or where the file ends now: s->shrunk) or on a read error (s->error).
 * A caller asks for no more than s->size - s->off.
 */
static size_t src_fill(struct rec_src *s, size_t n)
{
	size_t have = s->len - s->pos;

	while (have < n && s->fd >= 0 && !s->error && !s->shrunk) {
		uint64_t left = s->size - s->off - have;
		size_t want;
		ssize_t r;

		/*
		 * Room for four items this long: with a window about one
		 * item long, nearly every item was moved to its front once
		 * read, a second copy of the whole file (perfregs' xz
		 * recording: items of 270 KB, 108 MB moved of 279, 15% of
		 * the user time of -f folded).  Only for a size the file
		 * still holds, and up to REC_WINDOW_MAX.
		 */
		if (s->pos + n > s->cap && n > s->cap / 4 && n <= REC_WINDOW_MAX / 4 &&
		    n <= s->size - s->off)
			src_window(s, 4 * n);	/* or not: as below */
		/* the unread bytes to the front; more room when n needs it */
		if (s->pos + n > s->cap &&
		    /* doubled, not n at once: no more than what comes in */
		    src_window(s, have < s->cap ? s->cap : s->cap * 2 < n ? s->cap * 2 : n)) {
			s->error = ENOMEM;
			break;
		}
		want = s->cap - s->len;
		if (want > left)
			want = left;
		if (!want)
			break;		/* all of s->size is in */
		r = read(s->fd, s->buf + s->len, want);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			s->error = errno;
			break;
		}
		if (!r) {
			/* a file shorter now than when opened; a pipe's end is its own */
			s->shrunk = s->size != UINT64_MAX;
			if (!s->shrunk)
				s->size = s->off + have;
			break;
		}
		s->len += (size_t)r;
		have += (size_t)r;
	}
	return have < n ? have : n;
}

static void src_skip(struct rec_src *s, size_t n)
{
	s->pos += n;
	s->off += n;
}

/*
 * Go past n bytes from the current offset, keeping none: what lies in
 * mem, then the rest by lseek() on a regular file, or read a buffer
 * at a time from anything else.  Returns how many it went past, fewer
 * than n only where src_fill() would stop.
 */
static uint64_t src_pass(struct rec_src *s, uint64_t n)
{
	size_t have = s->len - s->pos, k;
	uint64_t done = have < n ? have : n;

	src_skip(s, (size_t)done);
	while (done < n && s->fd >= 0 && !s->error && !s->shrunk) {
		/*
		 * All consumed: read into the window from its start again,
		 * unless a batch holds it (src_window(): then another).
		 */
		if (src_window(s, s->cap)) {
			s->error = ENOMEM;
			break;
		}
		if (s->seekable) {
			if (lseek(s->fd, (off_t)(n - done), SEEK_CUR) < 0) {
				s->error = errno;
				break;
			}
			s->off += n - done;	/* the next read() finds a cut, if any */
			return n;
		}
		k = src_fill(s, n - done < s->cap ? (size_t)(n - done) : s->cap);
		if (!k)
			break;
		src_skip(s, k);
		done += k;
	}
	return done;
}

static int src_header(struct rec_src *s, const char *path, struct rec_file_header *h,
		      char *err, size_t errlen);
static int src_items(struct rec_src *s, const struct rec_file_header *h, const char *path,
		     struct decoder *d, uint64_t *produced, char *err, size_t errlen);

/* A recording being read, once, from its start: its header checked. */
struct rec_input {
	struct rec_src s;
	struct rec_file_header h;
	const char *path;	/* as messages name it */
	bool own_fd;		/* not standard input's */
};

int rec_open(const char *path, struct rec_input **inp, struct perfregs_config *cfg,
	     char *err, size_t errlen)
{
	struct rec_input *in = calloc(1, sizeof(*in));
	bool std_in = !strcmp(path, "-");
	struct stat st;
	off_t at = 0;
	int ret;

	*inp = NULL;
	if (!in) {
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(ENOMEM));
		return -EIO;
	}
	in->path = std_in ? "the standard input" : path;
	in->s.cap = REC_CHUNK;
	in->s.spares.cap = REC_CHUNK;
	in->s.fd = std_in ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC);
	in->own_fd = !std_in;
	if (in->s.fd < 0 || fstat(in->s.fd, &st)) {
		snprintf(err, errlen, "cannot read %s: %s", in->path, strerror(errno));
		rec_input_free(in);
		return -EIO;
	}
	/*
	 * A regular file is read up to its size now (from where standard
	 * input stands in it); anything else, a pipe or a FIFO, to its end,
	 * each byte once.
	 */
	if (S_ISREG(st.st_mode) && std_in)
		at = lseek(in->s.fd, 0, SEEK_CUR);
	in->s.seekable = S_ISREG(st.st_mode) && at >= 0 && at <= st.st_size;
	in->s.size = in->s.seekable ? (uint64_t)(st.st_size - at) : UINT64_MAX;
	in->s.chunk = chunk_new(&in->s, in->s.cap);
	if (!in->s.chunk) {
		snprintf(err, errlen, "cannot read %s: %s", in->path, strerror(ENOMEM));
		rec_input_free(in);
		return -EIO;
	}
	in->s.buf = in->s.chunk->data;
	in->s.mem = in->s.buf;
	if (in->s.seekable)
		posix_fadvise(in->s.fd, at, 0, POSIX_FADV_SEQUENTIAL);
	ret = src_header(&in->s, in->path, &in->h, err, errlen);
	if (ret) {
		rec_input_free(in);
		return ret;
	}
	if (cfg)
		*cfg = in->h.cfg;
	*inp = in;
	return 0;
}

int rec_read(struct rec_input *in, struct decoder *d, uint64_t *produced,
	     char *err, size_t errlen)
{
	d->pool_size = in->s.seekable ? in->s.size : 0;	/* pool_maybe_start() */
	return src_items(&in->s, &in->h, in->path, d, produced, err, errlen);
}

uint32_t rec_input_abi_minor(const struct rec_input *in)
{
	return in->h.abi_minor;
}

void rec_input_free(struct rec_input *in)
{
	if (!in)
		return;
	if (in->own_fd && in->s.fd >= 0)
		close(in->s.fd);
	src_free(&in->s);
	free(in);
}

int rec_decode(const char *path, struct decoder *d, uint64_t *produced,
	       char *err, size_t errlen)
{
	struct rec_input *in;
	int ret;

	*produced = 0;
	ret = rec_open(path, &in, NULL, err, errlen);
	if (ret)
		return ret;
	ret = rec_read(in, d, produced, err, errlen);
	rec_input_free(in);
	return ret;
}

/* The kernel records of an item, as rec_decode_buf() walks them. */
struct krec_walk {
	struct decoder *d;
	struct rec_chunk *chunk;	/* the window the item lies in, or NULL */
	uint64_t body;		/* the file offset of the item's body */
	uint64_t at;		/* where the record starts in the item's body */
	bool malformed;		/* decode_record() found it so: the walk stops */
};

static int krec_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
		       size_t size)
{
	struct krec_walk *kw = arg;
	uint64_t before = kw->d->bad_records;

	if (!kw->d->pool) {
		decode_record(kw->d, cpu, rec, size);
		if (kw->d->pool_later && !(++kw->d->pool_tick & 255))
			pool_maybe_start(kw->d, kw->body + kw->at);
	} else if (rec->type == PERFREGS_REC_SAMPLE || rec->type == PERFREGS_REC_LOST) {
		/*
		 * Checked, counted and printed by a worker, in turn, where it
		 * lies (record_print()): once.  The reading thread checked
		 * each sample and copied it, and was the limit of --threads
		 * (bench/results/DECODE_THREADS.md).  (No --summary and no
		 * record_hook with the pool: nothing else looks at them.)
		 * Other types, of a newer module, are skipped.
		 */
		pool_record(kw->d, cpu, rec, size, kw->chunk, kw->body + kw->at);
	}
	if (kw->d->bad_records != before) {
		kw->malformed = true;
		return 1;
	}
	kw->at += size;
	return 0;
}

/*
 * Fewer bytes than an item needs at offset off: a read error, the file
 * shrinking while we read it, or the end of the recording.
 */
static int src_short(const struct rec_src *s, const char *path, uint64_t off,
		     const char *what, char *err, size_t errlen)
{
	if (s->error) {
		snprintf(err, errlen, "cannot read %s at offset %" PRIu64 ": %s", path,
			 s->off + (s->len - s->pos), strerror(s->error));
		return -EIO;
	}
	if (s->shrunk) {
		snprintf(err, errlen, "%s shrank while it was read: it ends at offset %" PRIu64
			 ", it had %" PRIu64 " bytes (truncated by another process?)",
			 path, s->off + (s->len - s->pos), s->size);
		return -EBADMSG;
	}
	return bad(err, errlen, off, what);
}

int rec_decode_buf(const unsigned char *buf, size_t size, struct decoder *d,
		   uint64_t *produced, char *err, size_t errlen)
{
	struct rec_src s = { .fd = -1, .mem = buf, .len = size, .size = size };
	struct rec_file_header h;
	int ret;

	*produced = 0;
	ret = src_header(&s, "the recording", &h, err, errlen);
	return ret ? ret : src_items(&s, &h, "the recording", d, produced, err, errlen);
}

/*
 * The file header of s into *h, checked, and gone past.  Formats 1 and
 * 2 have a shorter one (REC_HEADER_VER0): the simd_mask it lacks is 0.
 */
static int src_header(struct rec_src *s, const char *path, struct rec_file_header *h,
		      char *err, size_t errlen)
{
	size_t size = REC_HEADER_VER0;

	memset(h, 0, sizeof(*h));
	if (src_fill(s, size) < size)
		return src_short(s, path, s->off + (s->len - s->pos),
				 "file shorter than its header", err, errlen);
	memcpy(h, s->mem + s->pos, size);
	if (memcmp(h->magic, REC_MAGIC, 8)) {
		snprintf(err, errlen, "not a perfregs recording (bad magic at offset 0)");
		return -EBADMSG;
	}
	if (h->version < REC_VERSION_MIN || h->version > REC_VERSION ||
	    (h->header_size != REC_HEADER_VER0 && h->header_size != sizeof(*h))) {
		snprintf(err, errlen, "recording format %u, this tool reads %u to %u",
			 h->version, REC_VERSION_MIN, REC_VERSION);
		return -EBADMSG;
	}
	size = h->header_size;
	if (src_fill(s, size) < size)
		return src_short(s, path, s->off + (s->len - s->pos),
				 "file shorter than its header", err, errlen);
	memcpy(h, s->mem + s->pos, size);
	src_skip(s, size);
	return 0;
}

/*
 * The items of s after its header h, each decoded from memory of our
 * own where it lies whole (or the caller's, which nobody else writes):
 * no byte of an item changes between its checks and its use.
 */
static int src_items(struct rec_src *s, const struct rec_file_header *hp, const char *path,
		     struct decoder *d, uint64_t *produced, char *err, size_t errlen)
{
	const struct rec_file_header h = *hp;
	bool ended = false;
	uint64_t off = 0;
	int ret = 0;

	*produced = 0;
	d->info.cfg = h.cfg;
	d->info.cfg_known = true;
	d->info.abi_major = h.abi_major;
	d->info.abi_minor = h.abi_minor;
	while (!ended) {
		struct item it;
		const unsigned char *body;
		const char *end;
		uint64_t blen;
		size_t have;

		if (pool_malformed(d, NULL))
			goto out;	/* a worker found one: nothing after it counts */
		off = s->off;
		have = src_fill(s, sizeof(it));
		if (!have && !s->error && !s->shrunk)
			break;		/* the end: no end item */
		if (have < sizeof(it)) {
			ret = src_short(s, path, off, "truncated item header", err, errlen);
			goto out;
		}
		memcpy(&it, s->mem + s->pos, sizeof(it));
		if (it.size < sizeof(it) || it.size % 8 || it.size > s->size - off) {
			ret = bad(err, errlen, off, it.size > s->size - off ?
				  "item runs past the end of the file (truncated?)" :
				  "impossible item size");
			goto out;
		}
		if (!item_max(it.type)) {
			/* an item of a newer tool: gone past, not kept */
			if (src_pass(s, it.size) < it.size) {
				ret = src_short(s, path, off,
						"item runs past the end of the file (truncated?)",
						err, errlen);
				goto out;
			}
			continue;
		}
		if (it.size > item_max(it.type)) {
			char what[128];

			snprintf(what, sizeof(what), "an item of type %u claims %u bytes, "
				 "more than any writer makes of it (%" PRIu64 ")", it.type,
				 it.size, item_max(it.type));
			ret = bad(err, errlen, off, what);
			goto out;
		}
		if (src_fill(s, it.size) < it.size) {
			ret = src_short(s, path, off,
					"item runs past the end of the file (truncated?)",
					err, errlen);
			goto out;
		}
		body = s->mem + s->pos + sizeof(it);
		blen = it.size - sizeof(it);
		end = (const char *)body + blen;
		/*
		 * --threads: the samples before an item that changes what
		 * samples decode to are printed before it changes it.  But
		 * for a kernel symbol: each record sees those added before it
		 * (pool.c), and the workers do not read the new one; they
		 * wait only if the array has to move for it.  (A hostile
		 * recording of symbols and samples in turn made a wait of
		 * each of them.)  And for a side-band event, which waits
		 * only when it is not later than every sample handed out
		 * (ITEM_SB below).
		 */
		if (d->pool && it.type != ITEM_KREC && it.type != ITEM_SB &&
		    (it.type != ITEM_KSYM || ksyms_full(d))) {
			pool_drain(d);
			if (pool_malformed(d, NULL))
				goto out;	/* one thread stops before it */
		}
		switch (it.type) {
		case ITEM_INFO:
			info_parse(d, (const char *)body, end);
			break;
		case ITEM_IMAGE: {
			struct item_image ii;
			struct elf_facts f;
			const char *p;

			if (blen < sizeof(ii) ||
			    !(p = str_in((const char *)body + sizeof(ii), end))) {
				ret = bad(err, errlen, off, "bad image item");
				goto out;
			}
			memcpy(&ii, body, sizeof(ii));
			f.known = ii.known;
			f.elfclass = ii.elfclass;
			f.machine = ii.machine;
			if (!image_find(d, ii.dev, ii.ino))
				image_add(d, ii.dev, ii.ino, &f, *p ? p : NULL);
			break;
		}
		case ITEM_MAPS: {
			struct item_maps im;
			struct mapping *m;
			const unsigned char *q = body + sizeof(im);
			unsigned int i;

			if (blen < sizeof(im)) {
				ret = bad(err, errlen, off, "bad maps item");
				goto out;
			}
			memcpy(&im, body, sizeof(im));
			if (im.n > blen / 56) {
				ret = bad(err, errlen, off, "maps item claims too many mappings");
				goto out;
			}
			m = calloc(im.n ? im.n : 1, sizeof(*m));	/* zeroed */
			for (i = 0; m && i < im.n; i++) {
				uint64_t v[3];
				uint32_t l[2];

				if ((const char *)q + 56 > end)
					break;
				memcpy(v, q, sizeof(v));
				memcpy(l, q + 24, sizeof(l));
				if (l[1] > 20)
					break;
				m[i].build_id_len = (uint8_t)l[1];
				memcpy(m[i].build_id, q + 32, m[i].build_id_len);
				q += 56;
				if (!l[0] || l[0] > (uint64_t)(end - (const char *)q) ||
				    q[l[0] - 1] != 0 || v[0] > v[1])
					break;
				m[i].start = v[0];
				m[i].end = v[1];
				m[i].pgoff = v[2];
				m[i].path = str_intern((const char *)q, NULL);
				q += (l[0] + 7) & ~7U;
			}
			if (!m || i < im.n) {
				while (m && i--)
					str_put(m[i].path);
				free(m);
				ret = bad(err, errlen, off, "bad mapping in maps item");
				goto out;
			}
			if (!maps_find(d, im.pid, im.ino)) {
				struct task_maps *tm = maps_add(d, im.pid, im.ino, m, im.n);

				/* replayed for convert, which turns them into MMAPs */
				if (tm && d->learnt_maps)
					d->learnt_maps(d->learnt_arg, tm);
			} else {
				for (i = 0; i < im.n; i++)
					str_put(m[i].path);
				free(m);
			}
			break;
		}
		case ITEM_KSYM: {
			struct item_ksym ik;
			const char *p;

			if (blen < sizeof(ik) ||
			    !(p = str_in((const char *)body + sizeof(ik), end))) {
				ret = bad(err, errlen, off, "bad kernel symbol item");
				goto out;
			}
			memcpy(&ik, body, sizeof(ik));
			if (ik.start >= ik.end) {
				ret = bad(err, errlen, off, "empty kernel symbol");
				goto out;
			}
			ksym_add(d, ik.start, ik.end, p);
			break;
		}
		case ITEM_KREC: {
			struct krec_walk kw = { .d = d, .chunk = s->chunk,
						.body = off + sizeof(it), .at = 8 };
			const struct perfregs_rec_header *kh;
			uint32_t cpu;
			size_t used = 0;

			if (blen < 8 + sizeof(*kh)) {
				ret = bad(err, errlen, off, "short kernel record item");
				goto out;
			}
			memcpy(&cpu, body, sizeof(cpu));
			kh = (const void *)(body + 8);
			/* format 1: exactly one record; 2: one or more */
			if ((h.version < 2 && kh->size != blen - 8) ||
			    prf_walk(body + 8, blen - 8, NULL, 0, NULL, 0, krec_record, &kw,
				     (int)cpu, &used) < 0) {
				ret = bad(err, errlen, off + sizeof(it) + 8 + used,
					  "kernel record size disagrees with its item");
				goto out;
			}
			if (kw.malformed) {
				ret = bad(err, errlen, off + sizeof(it) + kw.at,
					  "malformed kernel record");
				goto out;
			}
			break;
		}
		case ITEM_SB: {
			struct item_sb sbi;
			struct sb_event ev = { 0 };
			const char *p;

			if (blen < sizeof(sbi) ||
			    !(p = str_in((const char *)body + sizeof(sbi), end))) {
				ret = bad(err, errlen, off, "bad side-band item");
				goto out;
			}
			memcpy(&sbi, body, sizeof(sbi));
			if (sbi.kind < SB_MMAP || sbi.kind > SB_BEGIN)
				break;	/* a kind of a newer tool: skip it */
			if (sbi.build_id_len > sizeof(sbi.build_id) ||
			    (sbi.kind == SB_MMAP && sbi.start >= sbi.end)) {
				ret = bad(err, errlen, off, "bad side-band event");
				goto out;
			}
			ev.kind = sbi.kind;
			ev.pid = sbi.pid;
			ev.ppid = sbi.ppid;
			ev.prot = sbi.prot;
			ev.time = sbi.time;
			ev.start = sbi.start;
			ev.end = sbi.end;
			ev.pgoff = sbi.pgoff;
			ev.build_id_len = (uint8_t)sbi.build_id_len;
			memcpy(ev.build_id, sbi.build_id, sbi.build_id_len);
			ev.name = p;
			/*
			 * The samples before it printed first, unless it comes
			 * after them all.  But for a loss, which counts: not
			 * if a sample before it is malformed (pool_malformed()).
			 */
			if (d->pool && (ev.kind == SB_LOST ||
					!space_event_later(d, &ev, pool_upto(d)))) {
				pool_drain(d);
				if (pool_malformed(d, NULL))
					goto out;
			}
			space_event(d, &ev);
			break;
		}
		case ITEM_BLOB: {
			struct item_blob ib;

			if (blen < sizeof(ib)) {
				ret = bad(err, errlen, off, "short image item");
				goto out;
			}
			memcpy(&ib, body, sizeof(ib));
			if (ib.size > blen - sizeof(ib) || ib.size > BLOB_MAX) {
				ret = bad(err, errlen, off, "image item claims more than it holds");
				goto out;
			}
			if (ib.kind == 1)	/* an image it cannot use: decode without */
				blob_add(d, body + sizeof(ib), ib.size);
			break;
		}
		case ITEM_END: {
			struct item_end e;

			if (blen < sizeof(e)) {
				ret = bad(err, errlen, off, "short end item");
				goto out;
			}
			memcpy(&e, body, sizeof(e));
			*produced = e.produced;
			ended = true;
			break;
		}
		}
		src_skip(s, it.size);
	}
	if (!ended) {
		ret = bad(err, errlen, off, "no end item: the recording was cut short");
		goto out;
	}
	err[0] = 0;
out:
	if (d->pool) {
		/*
		 * The records before an error too; and none is left holding
		 * a window of s past here (rec_chunk_put()).
		 */
		pool_drain(d);
		/*
		 * Before anything the reading thread found after it.  (Not
		 * after the end item's count: it waits, as every item but
		 * records, side-band events and kernel symbols does.)
		 */
		if (pool_malformed(d, &off))
			ret = bad(err, errlen, off, "malformed kernel record");
	}
	return ret;
}
