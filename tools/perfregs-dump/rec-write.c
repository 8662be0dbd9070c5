// SPDX-License-Identifier: GPL-2.0
/*
 * The writer of recordings (record -o FILE, and the tests' generators):
 * the file header, the facts of the machine (ITEM_INFO), and each item
 * as the session hands it over, whole, from any thread.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/utsname.h>
#include "outfile.h"
#include "rec-format.h"
#include "tool.h"
#include "rec-write.h"

/*
 * Our own buffer and write(2), not stdio: a recording takes one item per
 * sample, and stdio's locking and copying per call cost more than the
 * rest of the recording path together (measured under icount).
 */
#define REC_BUF_SIZE (256 * 1024)
/* Runs of kernel records this long are written from the ring directly. */
#define REC_DIRECT (16 * 1024)

struct recorder {
	struct tool tool;	/* items handed over by the session */
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
	bool jitmaps;		/* REC_F_JITMAPS is in the header */
	bool seekable;		/* fd is a regular file: pwrite() reaches the header */
	uint32_t header_size;	/* of the file header: REC_HEADER_VER1 or _VER2 */
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
	/*
	 * Format 4 only with call chains: without them, format 3,
	 * which the tools before them read (rec-format.h).
	 */
	r->header_size = cfg->kchain_max || cfg->uchain_max ? REC_HEADER_VER2 : REC_HEADER_VER1;
	h.header_size = r->header_size;
	h.version = cfg->kchain_max || cfg->uchain_max ? 4 : 3;
	h.abi_major = PERFREGS_ABI_MAJOR;
	h.abi_minor = PERFREGS_ABI_MINOR;
	h.page_size = getpagesize();
	h.cfg = *cfg;
	h.cfg.cpus_ptr = 0;	/* a pointer means nothing in a file */
	put(r, &h, h.header_size);
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
	/* as much of it as the header has room for: its format's config */
	return rec_rewrite(r, offsetof(struct rec_file_header, cfg), &c,
			   r->header_size - offsetof(struct rec_file_header, cfg));
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

void rec_jitmap(void *arg, uint32_t pid, uint32_t nspid, const char *text, size_t len)
{
	struct item_jitmap ij = { pid, nspid, (uint32_t)len, 0 };
	struct recorder *r = arg;
	uint32_t flags = REC_F_JITMAPS;

	if (len > JITMAP_FILE_MAX)	/* no reader takes it */
		return;
	put_item(r, ITEM_JITMAP, &ij, sizeof(ij), text, len);
	/* relaxed: the items come from one thread, the recorder's lock orders the writes */
	if (!__atomic_exchange_n(&r->jitmaps, true, __ATOMIC_RELAXED))
		rec_rewrite(r, offsetof(struct rec_file_header, flags), &flags, sizeof(flags));
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


/* The recorder as the session's tool: what was learnt, into the file. */
static void tool_image(struct tool *t, const struct image *im)
{
	rec_image(container_of(t, struct recorder, tool), im);
}

static void tool_maps(struct tool *t, const struct task_maps *tm)
{
	rec_maps(container_of(t, struct recorder, tool), tm);
}

static void tool_sb(struct tool *t, const struct sb_event *ev)
{
	rec_sb(container_of(t, struct recorder, tool), ev);
}

static void tool_ksym(struct tool *t, const struct ksym *k)
{
	rec_ksym(container_of(t, struct recorder, tool), k);
}

static void tool_blob(struct tool *t, const struct blob *b, const void *data)
{
	rec_blob(container_of(t, struct recorder, tool), b, data);
}

static void tool_jitmap(struct tool *t, uint32_t pid, uint32_t nspid, const char *text,
			size_t len)
{
	rec_jitmap(container_of(t, struct recorder, tool), pid, nspid, text, len);
}

struct tool *rec_tool(struct recorder *r)
{
	r->tool.image = tool_image;
	r->tool.maps = tool_maps;
	r->tool.sb = tool_sb;
	r->tool.ksym = tool_ksym;
	r->tool.blob = tool_blob;
	r->tool.jitmap = tool_jitmap;
	return &r->tool;
}
