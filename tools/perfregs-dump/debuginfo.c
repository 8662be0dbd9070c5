// SPDX-License-Identifier: GPL-2.0
/*
 * Where libdwfl finds a file's separate debug information: here, and a
 * debuginfod server only when the command asked for one.
 *
 * libdwfl's dwfl_standard_find_debuginfo() looks on this machine (by
 * build-id, then by .gnu_debuglink name under the debug path), then, in
 * elfutils 0.188, asks the Dwfl's own debuginfod client, which asks the
 * servers of $DEBUGINFOD_URLS whenever that is set: with libdebuginfod's
 * 90 s low-speed rule as its only timeout, and nothing said when the
 * server is not there.  So: the commands take $DEBUGINFOD_URLS out of
 * their environment at start (cmd/debuginfod.c) and put it back only
 * to decode a recording with --debuginfod; should it be set all the
 * same (a program linked with this library, the fuzzer), no server is
 * asked: only the build-id search here.  When asked for, a query is
 * given up past $DEBUGINFOD_MAXTIME (the command sets it: -ETIME, and
 * unlike a progress function's cancel, no "not there" left in the
 * cache for ten minutes), and each Dwfl's client gets a progress
 * function that gives a file over the size budget up.  A server that
 * cannot be reached is said once and never asked again.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <elfutils/debuginfod.h>
#include <elfutils/libdwelf.h>
#include "diag.h"
#include "debuginfo.h"

/* libdebuginfod, dlopen()ed as libdwfl does: the tool runs without it */
static __typeof__(debuginfod_set_progressfn) *set_progressfn;
static __typeof__(debuginfod_get_url) *get_url;

/* Written once before decoding (debuginfo_server_use()), read by any thread. */
static struct {
	struct machine *mach;	/* whose diagnostics hear of the server */
	char urls[256];		/* as the messages name them */
	unsigned int timeout;	/* s: a query's, $DEBUGINFOD_MAXTIME */
	uint64_t max_bytes;	/* no larger debug file is fetched */
	bool on;
	bool dead;		/* could not be reached: never asked again */
} srv;

/* This thread's query: had a server begun to send the file; too big? */
static __thread struct {
	bool answered;
	bool too_big;
} query;

/*
 * libdebuginfod calls it about once a second while a query runs (a, b:
 * bytes come and expected, once a server sends the file; until then no
 * URL).  Nonzero gives the query up.
 */
static int progress(debuginfod_client *c, long a, long b)
{
	if (!get_url(c))	/* no server is sending the file yet */
		return 0;
	query.answered = true;
	if ((b > 0 && (uint64_t)b > srv.max_bytes) || (a > 0 && (uint64_t)a > srv.max_bytes)) {
		query.too_big = true;
		return 1;
	}
	return 0;
}

/* A query failed with rc (a negative errno from libdebuginfod, or -1). */
static void query_failed(int rc)
{
	char why[64];

	if (query.too_big || rc == -EFBIG) {
		diag(srv.mach, "debuginfod: debug files larger than %llu bytes were not "
		     "fetched (DEBUGINFOD_MAXSIZE)", (unsigned long long)srv.max_bytes);
		return;
	}
	if (rc == -ETIME && query.answered) {
		diag(srv.mach, "debuginfod: debug files that took longer than %u s to fetch "
		     "were given up (--debuginfod-timeout)", srv.timeout);
		return;
	}
	if (rc == -ETIME)
		snprintf(why, sizeof(why), "no answer within %u s", srv.timeout);
	else if (rc == -ECONNREFUSED || rc == -EHOSTUNREACH || rc == -ENETUNREACH ||
		 rc == -ECONNRESET || rc == -ETIMEDOUT)
		snprintf(why, sizeof(why), "%s", strerror(-rc));
	else
		return;		/* not there (404), or not found here */
	if (!__atomic_exchange_n(&srv.dead, true, __ATOMIC_RELAXED))
		diag(srv.mach, "debuginfod: cannot reach %s (%s): decoding on without it",
		     srv.urls, why);
}

/* The debug path of the Dwfls (files.c's), as libdwfl's search reads it */
static struct local {
	const char *path;
	const char *symfs;	/* the files' root, or NULL */
} *local;

void debuginfo_local_path(const char *path, const char *symfs)
{
	static struct local l[2];
	static unsigned int n;
	struct local *p = NULL;

	if (path) {	/* a new one beside the old, which a reader may still use */
		p = &l[n++ % 2];
		p->path = path;
		p->symfs = symfs && *symfs ? symfs : NULL;
	}
	__atomic_store_n(&local, p, __ATOMIC_RELEASE);
}

/* Is the ELF file open at fd the one whose build-id is bits? */
static bool same_build_id(int fd, const unsigned char *bits, int len)
{
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	const void *id;
	bool same;

	same = elf && dwelf_elf_gnu_build_id(elf, &id) == len && !memcmp(id, bits, len);
	elf_end(elf);
	return same;
}

/*
 * A module's debug file on this machine, without libdwfl's standard
 * search: by build-id (.build-id/XX/REST.debug under each directory of
 * the debug path), then by its .gnu_debuglink name (without one,
 * FILE.debug) under each absolute one (DIR/DIR-OF-FILE/NAME, as libdwfl
 * looks; the file's directory as the recording names it, under --symfs
 * too), taken only if its build-id is the module's, as libdwfl checks
 * it, and if it is not the file itself.  libdwfl's search
 * then asks its debuginfod client, which in elfutils 0.188 dlopen()s
 * libdebuginfod and with it libcurl and 30 more libraries whether or
 * not a server is named: 28.0 against 20.3 MiB of peak RSS decoding one
 * sample of a stripped program (script -f json -g).  A module without a
 * build-id is never asked for there: libdwfl's own search then.  A
 * FIFO named like a debug file is not opened to wait (O_NONBLOCK), nor
 * taken.
 */
static int local_find(Dwfl_Module *mod, void **userdata, const char *modname,
		      Dwarf_Addr base, const char *file_name, const char *link, GElf_Word crc,
		      char **found)
{
	const struct local *l = __atomic_load_n(&local, __ATOMIC_ACQUIRE);
	const char *p, *slash, *fdir = file_name;
	char cand[PATH_MAX], guess[NAME_MAX + 1];
	const unsigned char *bits;
	struct stat st, self;
	GElf_Addr vaddr;
	int fd, len;
	size_t sl;

	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (len <= 0)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    link, crc, found);
	fd = dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name, link, crc,
					  found);
	if (fd >= 0 || !file_name || !l || !(slash = strrchr(file_name, '/')) ||
	    stat(file_name, &self))
		return fd;
	if (!link && snprintf(guess, sizeof(guess), "%s.debug", slash + 1) < (int)sizeof(guess))
		link = guess;	/* libdwfl's guess without a debuglink */
	if (!link)
		return fd;
	sl = l->symfs ? strlen(l->symfs) : 0;
	if (sl && !strncmp(fdir, l->symfs, sl) && (fdir[sl] == '/' || l->symfs[sl - 1] == '/'))
		fdir += sl - (l->symfs[sl - 1] == '/');	/* keep the '/' */
	for (p = l->path; *p; p += *p == ':') {
		size_t n = strcspn(p, ":");
		const char *dir = p + (*p == '-' || *p == '+');

		if (*dir == '/' && slash >= fdir &&
		    snprintf(cand, sizeof(cand), "%.*s%s%.*s/%s", (int)(n - (size_t)(dir - p)), dir,
			     *fdir == '/' ? "" : "/", (int)(slash - fdir), fdir, link) <
		    (int)sizeof(cand)) {
			fd = open(cand, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
			if (fd >= 0 && !fstat(fd, &st) && S_ISREG(st.st_mode) &&
			    (st.st_dev != self.st_dev || st.st_ino != self.st_ino) &&
			    same_build_id(fd, bits, len) && (*found = strdup(cand)))
				return fd;
			if (fd >= 0)
				close(fd);
		}
		p += n;
	}
	errno = ENOENT;
	return -1;
}

static bool server_named(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

	return urls && *urls;
}

int debuginfo_find(Dwfl_Module *mod, void **userdata, const char *modname,
		   Dwarf_Addr base, const char *file_name, const char *debuglink_file,
		   GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	int fd;

	if (!server_named())	/* libdwfl's client would ask nothing: not loaded */
		return local_find(mod, userdata, modname, base, file_name, debuglink_file,
				  debuglink_crc, debuginfo_file_name);
	if (!srv.on || __atomic_load_n(&srv.dead, __ATOMIC_RELAXED))
		/* a server named, not to be asked: by build-id, here only */
		return dwfl_build_id_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	query.answered = query.too_big = false;
	fd = dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
					  debuglink_file, debuglink_crc, debuginfo_file_name);
	if (fd < 0)
		query_failed(fd);
	return fd;
}

/*
 * Every module is reported with its file open (images.c), so libdwfl
 * never looks for one; were it to, no server is asked for executables.
 */
int debuginfo_find_elf(Dwfl_Module *mod, void **userdata, const char *modname,
		       Dwarf_Addr base, char **file_name, Elf **elfp)
{
	if (server_named()) {
		*elfp = NULL;
		errno = 0;
		return -1;
	}
	return dwfl_build_id_find_elf(mod, userdata, modname, base, file_name, elfp);
}

Dwfl *debuginfo_dwfl_begin(const Dwfl_Callbacks *cbs)
{
	Dwfl *dwfl = dwfl_begin(cbs);
	debuginfod_client *c;

	if (dwfl && srv.on && (c = dwfl_get_debuginfod_client(dwfl)))
		set_progressfn(c, progress);
	return dwfl;
}

int debuginfo_server_use(struct machine *mach, const char *urls, unsigned int timeout,
			 uint64_t max_bytes, char *err, size_t len)
{
	static const Dwfl_Callbacks probe = { .find_debuginfo = debuginfo_find };
	void *so = dlopen(DEBUGINFOD_SONAME, RTLD_LAZY);
	Dwfl *dwfl;
	bool client;

	if (so) {
		set_progressfn = (__typeof__(set_progressfn))dlsym(so, "debuginfod_set_progressfn");
		get_url = (__typeof__(get_url))dlsym(so, "debuginfod_get_url");
	}
	if (!set_progressfn || !get_url) {
		snprintf(err, len, "%s is not installed (Debian: libdebuginfod1)",
			 DEBUGINFOD_SONAME);
		return -1;
	}
	dwfl = dwfl_begin(&probe);
	client = dwfl && dwfl_get_debuginfod_client(dwfl);
	dwfl_end(dwfl);
	if (!client) {
		snprintf(err, len, "this libdw has no debuginfod client");
		return -1;
	}
	srv.mach = mach;
	snprintf(srv.urls, sizeof(srv.urls), "%s", urls);
	srv.timeout = timeout;
	srv.max_bytes = max_bytes;
	srv.dead = false;
	srv.on = true;
	return 0;
}

void debuginfo_server_end(struct machine *mach)
{
	if (srv.mach == mach) {
		srv.on = false;
		srv.mach = NULL;
	}
}
