// SPDX-License-Identifier: GPL-2.0
/*
 * perfregs-dump convert --to pprof: a recording into Google's
 * profile.proto, gzipped, as go tool pprof reads it.
 *
 * The stacks are those of -f folded --call-graph dwarf, frame for frame
 * (out_folded() in output.c): a kernel-mode sample's kernel IP, then the
 * user frames unwound with the sample's own ABI, or the user IP alone
 * when the recording has no stacks.  A frame is a location, one per
 * distinct (mapping, address).  The address is the one whose symbol
 * names the frame: a caller's is its return address less one, inside
 * the call instruction (which profile.proto allows), so that one address
 * always has one function, whichever sample met it first.  A function
 * is the symbol without its offset, as folded names it, with the source
 * file and line where the file's DWARF has them.  Mappings carry the
 * file the task mapped and its build-id; kernel frames are in one
 * mapping, [kernel.kallsyms], with the kernel's build-id.
 *
 * Samples of the same stack, process, thread, comm and ABI are one
 * sample with their count: samples/count and, for the clock events,
 * cpu/nanoseconds (the period each sample stands for).  Labels: pid and
 * tid as numbers, comm and abi ("x86_64", "i386", "x32") as strings.
 *
 * Every name comes from the recording or from files it names: the tables
 * are hash sets with a cap each, and a sample that would need an entry
 * past a cap is left out, counted, and said once at the end.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <limits.h>
#include "profile.pb-c.h"
#include "types.h"
#include "images.h"
#include "dso.h"
#include "aspace.h"
#include "unwind.h"
#include "folded.h"
#include "output.h"
#include "rec-read.h"
#include "session.h"
#include "outfile.h"
#include "diag.h"
#include "resolve.h"
#include "inline.h"
#include "pprof-int.h"
#include "pprof.h"

/*
 * The first of the task's mappings that holds addr, as user_symbol() and
 * unwind_sample() pick it: a recording's mappings need not be in order.
 */
static struct mapping *mapping_at(const struct task_maps *tm, uint64_t addr)
{
	unsigned int i;

	for (i = 0; tm && i < tm->n; i++)
		if (addr >= tm->m[i].start && addr < tm->m[i].end)
			return &tm->m[i];
	return NULL;
}

struct pp_frame {
	uint64_t address;
	const char *sym;	/* "name+0xoff", or "" */
	struct mapping *m;	/* the user mapping it is in, if any */
	bool kernel;		/* in [kernel.kallsyms] */
	bool demangled;		/* sym is demangled: its file names it otherwise */
};

/*
 * A sample's frames, leaf first, the ones every output takes
 * (resolve_frames()), each with its user mapping; r is the sample
 * resolved.  How many.
 */
static unsigned int frames_of(struct pprof *p, const struct perfregs_rec_sample *s,
			      const struct sample_stack *st, struct resolved *r,
			      struct pp_frame *f)
{
	struct sample_frame sf[SAMPLE_FRAMES_MAX];
	struct session *d = p->d;
	const struct task_maps *tm = maps_for_sample(&d->m, s);
	unsigned int i, n;

	resolve_sample(d, &d->self, s, st, RESOLVE_SYM, r);
	n = resolve_frames(d, &d->self, r, r->sym, sf);
	for (i = 0; i < n; i++) {
		bool kernel = sf[i].kernel && resolve_kernel_addr(sf[i].lookup);

		f[i] = (struct pp_frame){ sf[i].lookup, sf[i].sym,
					  kernel ? NULL : mapping_at(tm, sf[i].lookup), kernel,
					  sf[i].demangled };
	}
	return n;
}

static void on_record(void *arg, int cpu, const struct perfregs_rec_header *rec,
		      const struct sample_stack *st)
{
	const struct perfregs_rec_sample *s = (const void *)rec;
	struct pprof *p = arg;
	struct pp_frame f[SAMPLE_FRAMES_MAX];
	uint32_t ids[SAMPLE_FRAMES_MAX];
	struct sample_key key = { .ids = ids };
	struct resolved r;
	int64_t id;
	unsigned int i, n;

	if (rec->type != PERFREGS_REC_SAMPLE)
		return;
	if (!p->first || s->time < p->first)
		p->first = s->time;
	if (s->time > p->last)
		p->last = s->time;
	n = frames_of(p, s, st, &r, f);
	for (i = 0; i < n; i++) {
		id = f[i].kernel ? kernel_map(p) : f[i].m ? user_map(p, f[i].m) : 0;
		if (id < 0)
			goto dropped;
		id = loc_id(p, (uint32_t)id, f[i].address, f[i].sym, f[i].demangled, f[i].m);
		if (id < 0)
			goto dropped;
		ids[i] = (uint32_t)id;
	}
	key.n = n;
	key.pid = s->pid;
	key.tid = s->tid;
	id = str_id(p, s->comm, strnlen(s->comm, sizeof(s->comm)));
	if (id < 0)
		goto dropped;
	key.comm = (uint32_t)id;	/* 0, "": no comm, no label */
	if (strcmp(r.dd.abi_name, "none")) {
		id = str_id(p, r.dd.abi_name, strlen(r.dd.abi_name));
		if (id < 0)
			goto dropped;
		key.abi = (uint32_t)id;
	}
	if (!sample_add(p, &key))
		return;
dropped:
	p->dropped[p->why]++;
}

struct pp_out {
	ProtobufCBuffer base;	/* first: protobuf-c hands it back */
	gzFile gz;
	int error;
	size_t n;
	uint8_t buf[1 << 16];
};

static void out_flush(struct pp_out *o)
{
	if (o->n && !o->error && gzwrite(o->gz, o->buf, (unsigned int)o->n) != (int)o->n) {
		int zerr;

		gzerror(o->gz, &zerr);
		o->error = zerr == Z_ERRNO && errno ? errno : EIO;
	}
	o->n = 0;
}

static void out_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct pp_out *o = (struct pp_out *)b;

	while (len) {
		size_t k = sizeof(o->buf) - o->n;

		if (k > len)
			k = len;
		memcpy(o->buf + o->n, data, k);
		o->n += k;
		data += k;
		len -= k;
		if (o->n == sizeof(o->buf))
			out_flush(o);
	}
}

/*
 * One part of the Profile message.  A message is encoded as its fields
 * one after another, each entry of a repeated field on its own, and a
 * parser takes them in any order (profile.proto's readers do): Profiles
 * holding a few entries each, packed back to back in field order, are
 * the bytes protobuf-c would give for the whole one, without a second
 * copy of every table as protobuf-c's structures.  The scalars are in
 * the last part alone: proto3 writes none of the zeros of the others.
 */
static void put_part(struct pp_out *o, const Perftools__Profiles__Profile *part)
{
	perftools__profiles__profile__pack_to_buffer(part, &o->base);
}

static void put_value_types(struct pprof *p, struct pp_out *o)
{
	Perftools__Profiles__ValueType vt[2] = {
		PERFTOOLS__PROFILES__VALUE_TYPE__INIT, PERFTOOLS__PROFILES__VALUE_TYPE__INIT,
	};
	Perftools__Profiles__ValueType *vtp[2] = { &vt[0], &vt[1] };
	Perftools__Profiles__Profile part = PERFTOOLS__PROFILES__PROFILE__INIT;

	vt[0].type = p->s_samples;
	vt[0].unit = p->s_count;
	vt[1].type = p->s_cpu;
	vt[1].unit = p->s_ns;
	part.n_sample_type = p->clock ? 2 : 1;
	part.sample_type = vtp;
	put_part(o, &part);
}

static int64_t times(uint64_t count, uint64_t ns)
{
	return ns && count > (uint64_t)INT64_MAX / ns ? INT64_MAX : (int64_t)(count * ns);
}

static void put_samples(struct pprof *p, struct pp_out *o)
{
	Perftools__Profiles__Profile part = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Sample ps = PERFTOOLS__PROFILES__SAMPLE__INIT, *psp = &ps;
	Perftools__Profiles__Label lab[4], *labp[4];
	const struct pp_sample *e = p->t[T_SAMPLE].v;
	uint64_t loc[SAMPLE_FRAMES_MAX];
	int64_t val[2];
	uint32_t i, j, nl;

	part.n_sample = 1;
	part.sample = &psp;
	ps.location_id = loc;
	ps.value = val;
	ps.n_value = p->clock ? 2 : 1;
	ps.label = labp;
	for (i = 0; i < 4; i++)
		labp[i] = &lab[i];
	for (i = 0; i < p->t[T_SAMPLE].n; i++, e++) {
		ps.n_location_id = e->n;
		for (j = 0; j < e->n; j++)
			loc[j] = p->ids[e->at + j];
		val[0] = times(e->count, 1);
		val[1] = times(e->count, p->ns);
		for (j = 0; j < 4; j++)
			lab[j] = (Perftools__Profiles__Label)PERFTOOLS__PROFILES__LABEL__INIT;
		lab[0].key = p->s_pid;
		lab[0].num = e->pid;
		lab[1].key = p->s_tid;
		lab[1].num = e->tid;
		nl = 2;
		if (e->comm) {
			lab[nl].key = p->s_comm;
			lab[nl++].str = e->comm;
		}
		if (e->abi) {
			lab[nl].key = p->s_abi;
			lab[nl++].str = e->abi;
		}
		ps.n_label = nl;
		put_part(o, &part);
	}
}

static void put_mappings(struct pprof *p, struct pp_out *o)
{
	Perftools__Profiles__Profile part = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Mapping pm, *pmp = &pm;
	const struct pp_map *e = p->t[T_MAP].v;
	uint32_t i;

	part.n_mapping = 1;
	part.mapping = &pmp;
	for (i = 0; i < p->t[T_MAP].n; i++, e++) {
		pm = (Perftools__Profiles__Mapping)PERFTOOLS__PROFILES__MAPPING__INIT;
		pm.id = i + 1;
		pm.memory_start = e->start;
		pm.memory_limit = e->limit;
		pm.file_offset = e->offset;
		pm.filename = e->file;
		pm.build_id = e->build_id;
		/* all its locations have them: pprof need not look for more */
		pm.has_functions = e->nlocs && e->nfunc == e->nlocs;
		pm.has_filenames = e->nlocs && e->nfile == e->nlocs;
		pm.has_line_numbers = e->nlocs && e->nline == e->nlocs;
		put_part(o, &part);
	}
}

static void put_locations(struct pprof *p, struct pp_out *o)
{
	Perftools__Profiles__Profile part = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Location pl, *plp = &pl;
	Perftools__Profiles__Line ln[INLINE_DEPTH_MAX + 1], *lnp[INLINE_DEPTH_MAX + 1];
	const struct pp_loc *e = p->t[T_LOC].v;
	uint32_t i, j;

	part.n_location = 1;
	part.location = &plp;
	for (j = 0; j <= INLINE_DEPTH_MAX; j++)
		lnp[j] = &ln[j];
	for (i = 0; i < p->t[T_LOC].n; i++, e++) {
		pl = (Perftools__Profiles__Location)PERFTOOLS__PROFILES__LOCATION__INIT;
		pl.id = i + 1;
		pl.mapping_id = e->map;
		pl.address = e->address;
		/*
		 * as pprof models inlining: a line per function inlined
		 * there, innermost first, the last the function they are in
		 */
		for (j = 0; e->func && j < e->nx; j++) {
			ln[j] = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
			ln[j].function_id = p->xlines[e->xat + j].func;
			ln[j].line = p->xlines[e->xat + j].line;
		}
		if (e->func) {
			ln[j] = (Perftools__Profiles__Line)PERFTOOLS__PROFILES__LINE__INIT;
			ln[j].function_id = e->func;
			ln[j].line = e->line;
			pl.n_line = j + 1;
			pl.line = lnp;
		}
		put_part(o, &part);
	}
}

static void put_functions(struct pprof *p, struct pp_out *o)
{
	Perftools__Profiles__Profile part = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__Function pf, *pfp = &pf;
	const struct pp_func *e = p->t[T_FUNC].v;
	uint32_t i;

	part.n_function = 1;
	part.function = &pfp;
	for (i = 0; i < p->t[T_FUNC].n; i++, e++) {
		pf = (Perftools__Profiles__Function)PERFTOOLS__PROFILES__FUNCTION__INIT;
		pf.id = i + 1;
		pf.name = e->name;
		pf.system_name = e->system;	/* the name as its file has it */
		pf.filename = e->file;
		put_part(o, &part);
	}
}

static void put_strings(struct pprof *p, struct pp_out *o)
{
	Perftools__Profiles__Profile part = PERFTOOLS__PROFILES__PROFILE__INIT;
	const struct pp_str *e = p->t[T_STR].v;
	char *batch[256];
	uint32_t i = 0, k;

	part.string_table = batch;
	while (i < p->t[T_STR].n) {
		for (k = 0; k < 256 && i < p->t[T_STR].n; k++, i++)
			batch[k] = e[i].s;
		part.n_string_table = k;
		put_part(o, &part);
	}
}


/*
 * The session's tool: each sample into the profile, then printed as the
 * decoder's options say (nothing for convert: --summary; the fuzzer's
 * JSON, text or folded lines).
 */
static void pp_sample(struct tool *t, int cpu, const struct perfregs_rec_sample *s,
		      const struct sample_stack *st)
{
	struct pprof *p = container_of(t, struct pprof, tool);

	on_record(p, cpu, &s->header, st);
	record_out(p->d, cpu, &s->header, st, NULL);
}

static void pp_lost(struct tool *t, int cpu, const struct perfregs_rec_lost *l)
{
	struct pprof *p = container_of(t, struct pprof, tool);

	on_record(p, cpu, &l->header, NULL);
	record_out(p->d, cpu, &l->header, NULL, l);
}

/*
 * The scalars after the tables: what a period is (name: of its type, a
 * string, or -1 for none), and how long the samples took.
 */
static void put_tail(struct pprof *p, struct pp_out *o, int64_t name)
{
	Perftools__Profiles__Profile part = PERFTOOLS__PROFILES__PROFILE__INIT;
	Perftools__Profiles__ValueType pt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;

	if (name >= 0) {
		pt.type = name;
		pt.unit = p->clock ? p->s_ns : p->s_count;
		part.period_type = &pt;
		part.period = times(1, p->clock ? p->ns : p->period);
	}
	if (p->last > p->first)
		part.duration_nanos = times(p->last - p->first, 1);
	put_part(o, &part);
}

struct pprof *pprof_begin(struct session *d, const struct perfregs_config *cfg,
			  const char *out, char *err, size_t errlen)
{
	static const size_t sizes[T_NR] = {
		sizeof(struct pp_str), sizeof(struct pp_map), sizeof(struct pp_func),
		sizeof(struct pp_loc), sizeof(struct pp_sample),
	};
	static const char *const words[] = {
		"", "samples", "count", "cpu", "nanoseconds", "pid", "tid", "comm", "abi",
	};
	struct pprof *p = calloc(1, sizeof(*p));
	int64_t id[sizeof(words) / sizeof(words[0])];
	size_t i;
	int fd;

	if (!p) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	p->d = d;
	p->of.dirfd = -1;
	for (i = 0; i < T_NR; i++)
		p->t[i].size = sizes[i];
	/* the string table's first entry is "", as profile.proto wants */
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		id[i] = str_id(p, words[i], strlen(words[i]));
		if (id[i] < 0) {
			snprintf(err, errlen, "out of memory");
			pprof_free(p);
			return NULL;
		}
	}
	p->s_samples = id[1];
	p->s_count = id[2];
	p->s_cpu = id[3];
	p->s_ns = id[4];
	p->s_pid = id[5];
	p->s_tid = id[6];
	p->s_comm = id[7];
	p->s_abi = id[8];
	p->clock = cfg->event == PERFREGS_EV_CPU_CLOCK || cfg->event == PERFREGS_EV_TASK_CLOCK;
	/* as convert to perf.data has it */
	p->period = cfg->event == PERFREGS_EV_BREAKPOINT || cfg->event == PERFREGS_EV_NMI ||
		    (cfg->flags & PERFREGS_CF_FREQ) ? 1 : cfg->period;
	/*
	 * A clock's period is nanoseconds.  At a frequency, perf makes a
	 * clock event's period NSEC_PER_SEC / freq, fixed, in its attr too
	 * (perf_swevent_init_hrtimer()): each sample stands for that long.
	 */
	if (p->clock)
		p->ns = !(cfg->flags & PERFREGS_CF_FREQ) ? cfg->period :
			cfg->period ? 1000000000ULL / cfg->period : 0;
	fd = out_create(&p->of, out, false, err, errlen);
	if (fd < 0) {
		pprof_free(p);
		return NULL;
	}
	errno = 0;
	p->gz = gzdopen(fd, "wb");
	if (!p->gz) {
		snprintf(err, errlen, "cannot write %s: %s", out,
			 strerror(errno ? errno : ENOMEM));
		close(fd);
		pprof_free(p);
		return NULL;
	}
	p->tool.sample = pp_sample;
	p->tool.lost = pp_lost;
	return p;
}

struct tool *pprof_tool(struct pprof *p)
{
	return &p->tool;
}

int pprof_write(struct pprof *p, char *err, size_t errlen)
{
	const char *ev = p->d->event_name[0] ? p->d->event_name : "events";
	struct pp_out *o = calloc(1, sizeof(*o));
	int64_t ptype;
	int ret = 0, i;

	for (i = 0; i < T_NR; i++)
		if (p->dropped[i])
			diag(&p->d->m, "%" PRIu64 " samples are missing from the profile: they "
			     "needed more than %u %s", p->dropped[i], tab_max[i], tab_names[i]);
	if (p->dropped[T_NR])
		diag(&p->d->m, "%" PRIu64 " samples are missing from the profile: out of memory",
		     p->dropped[T_NR]);
	if (!o) {
		gzclose(p->gz);
		p->gz = NULL;
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	o->base.append = out_append;
	o->gz = p->gz;
	/* in field order; the period type's name goes in before the strings */
	put_value_types(p, o);
	put_samples(p, o);
	put_mappings(p, o);
	put_locations(p, o);
	put_functions(p, o);
	ptype = p->clock ? p->s_cpu : str_id(p, ev, strlen(ev));
	put_strings(p, o);
	put_tail(p, o, ptype);
	out_flush(o);
	i = gzclose(p->gz);
	p->gz = NULL;
	if (!o->error && i != Z_OK)
		o->error = i == Z_ERRNO && errno ? errno : EIO;
	if (o->error) {
		snprintf(err, errlen, "writing the profile: %s", strerror(o->error));
		ret = -EIO;
	}
	/* the new file takes the name only whole (else pprof_free() removes it) */
	if (!ret && out_commit(&p->of, true, err, errlen))
		ret = -EIO;
	free(o);
	return ret;
}

void pprof_free(struct pprof *p)
{
	uint32_t i;

	if (!p)
		return;
	if (p->gz)
		gzclose(p->gz);
	out_commit(&p->of, false, NULL, 0);
	for (i = 0; i < p->t[T_STR].n; i++)
		free(((struct pp_str *)p->t[T_STR].v)[i].s);
	for (i = 0; i < T_NR; i++) {
		free(p->t[i].v);
		free(p->t[i].hash);
		free(p->t[i].slot);
	}
	free(p->ids);
	free(p->xlines);
	free(p);
}

int pprof_convert(const char *in, const char *out, struct session *d,
		  char *err, size_t errlen)
{
	struct perfregs_config cfg;
	struct rec_input *src;
	struct pprof *p;
	uint64_t produced;
	char werr[256];
	int ret, wret;

	/* the recording is read once, from its header on: it may be a pipe */
	ret = rec_open(in, &src, &cfg, err, errlen);
	if (ret)
		return ret;
	p = pprof_begin(d, &cfg, out, err, errlen);
	if (!p) {
		rec_input_free(src);
		return -EIO;
	}
	d->o.summary = true;	/* nothing printed */
	ret = session_read(d, pprof_tool(p), src, &produced, err, errlen);
	rec_input_free(src);
	wret = pprof_write(p, werr, sizeof(werr));
	pprof_free(p);
	if (wret) {
		snprintf(err, errlen, "%s: %s", out, werr);
		return -EIO;
	}
	return ret;
}
