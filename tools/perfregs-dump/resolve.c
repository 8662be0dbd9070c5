// SPDX-License-Identifier: GPL-2.0
/*
 * A sample resolved, the one place the rules every writer follows live:
 * which IP names a sample (the interrupted one, else the user one),
 * whether it is the kernel's, the register layout of its ABI, its
 * symbol and its frames.
 */
#include <string.h>
#include "ksyms.h"
#include "aspace.h"
#include "inline.h"
#include "resolve.h"

void resolve_sample(struct session *d, struct dthread *t,
		    const struct perfregs_rec_sample *s, const struct sample_stack *st,
		    unsigned int what, struct resolved *r)
{
	const uint64_t *vals = (const uint64_t *)s->regs;
	const uint64_t *uvals = vals + prf_popcount(s->iregs_mask);
	int ip_idx = prf_reg_index(s->iregs_mask, PERFREGS_REG_IP);
	int uip_idx = prf_reg_index(s->uregs_mask, PERFREGS_REG_IP);
	int ret = -1;

	r->s = s;
	r->st = st;
	r->vals = vals;
	r->uvals = uvals;
	r->im = image_find(&d->m, s->image_dev, s->image_ino);
	r->dd = decide_layout(s->abi, r->im ? &r->im->facts : NULL);
	r->in_user = !(s->flags & PERFREGS_SF_KERNEL);
	r->have_ip = ip_idx >= 0 || uip_idx >= 0;
	r->ip = ip_idx >= 0 ? vals[ip_idx] : uip_idx >= 0 ? uvals[uip_idx] : 0;
	r->dso = "";
	r->demangled = false;
	if ((what & RESOLVE_SYM) && r->have_ip && d->o.symbols) {
		if (resolve_kernel_addr(r->ip))
			ret = kernel_symbol(&d->m, t, r->ip, r->sym, sizeof(r->sym));
		else
			ret = user_symbol(&d->m, s, r->ip, r->ip, 0, r->sym, sizeof(r->sym),
					  &r->dso);
	}
	if (ret < 0)
		r->sym[0] = 0;
	r->demangled = ret == 1;
}

/*
 * A kernel-mode sample's kernel frames, innermost first: each entry of
 * its call chain (PERFREGS_SF_KCHAIN), the interrupted IP and then
 * return addresses, each of which is named by the byte before it (the
 * call's, as perf names them) and shown as it is; without a chain, its
 * kernel IP alone, named sym.  The names are t's (its frames past the
 * user ones unwind_sample() fills), until its next call.  How many:
 * PERFREGS_MAX_KCHAIN at most; 0 for a user-mode sample.
 */
unsigned int resolve_kchain(struct session *d, struct dthread *t, const struct resolved *r,
			    const char *sym, struct sample_frame *f)
{
	const struct sample_kchain *kc = r->st ? &r->st->kchain : NULL;
	struct frame *names = unwind_frames(t);
	unsigned int i;

	if (r->in_user)
		return 0;
	if (!kc || !kc->nr) {
		f[0] = (struct sample_frame){ .ip = r->ip, .lookup = r->ip, .sym = sym,
					      .dso = "", .kernel = true };
		return 1;
	}
	for (i = 0; i < kc->nr; i++) {
		uint64_t ip = kc->ips[i], lookup = i && ip ? ip - 1 : ip;
		const char *name = "";

		if (!i && ip == r->ip && sym[0]) {
			name = sym;	/* the sample's own, looked up already */
		} else if (names && d->o.symbols) {
			char *buf = names[SAMPLE_USER_FRAMES + i].sym;

			if (kernel_symbol_at(&d->m, t, lookup, ip, buf, sizeof(names->sym)) < 0)
				buf[0] = 0;
			name = buf;
		}
		f[i] = (struct sample_frame){ .ip = ip, .lookup = lookup, .sym = name,
					      .dso = "", .kernel = true };
	}
	return kc->nr;
}

/*
 * A sample's frames, leaf first, the one rule of -f folded, the flame
 * graph, report, convert's perf.data and pprof: a kernel-mode sample's
 * kernel frames (resolve_kchain(): its call chain, or its kernel IP);
 * then, with --call-graph, the user frames (unwind_user(): its user
 * call chain, or those unwound from its stack);
 * if there are none (not asked, no stack, nothing unwound), a user-mode
 * sample's IP.  sym is the sampled IP's name (r->sym, or "" when no
 * writer shows it); r->st the sections sample_fits() found (st->data
 * NULL: the sample has no stack), or NULL.  The frames' strings are
 * t's, and live until its next call.  How many, at most
 * SAMPLE_FRAMES_MAX.
 */
unsigned int resolve_frames(struct session *d, struct dthread *t, const struct resolved *r,
			    const char *sym, struct sample_frame *f)
{
	const struct perfregs_rec_sample *s = r->s;
	const struct sample_stack *st = r->st;
	struct frame *frames = unwind_frames(t);
	bool i386 = s->abi == PERFREGS_ABI_32;
	unsigned int n;
	int i, nf = 0;

	n = resolve_kchain(d, t, r, sym, f);
	if (st)
		nf = unwind_user(d, t, s, r->dd.layout, st, frames, SAMPLE_USER_FRAMES);
	for (i = 0; i < nf; i++)
		f[n++] = (struct sample_frame){ .ip = frames[i].ip, .lookup = frames[i].lookup,
						.sym = frames[i].sym, .dso = frames[i].dso,
						.i386 = i386, .demangled = frames[i].demangled,
						.map = frames[i].map };
	if (!nf && r->in_user)
		f[n++] = (struct sample_frame){ .ip = r->ip, .lookup = r->ip, .sym = sym,
						.dso = r->dso, .i386 = i386,
						.demangled = sym[0] && r->demangled,
						/* for resolve_inlines() only */
						.map = d->o.inlines && d->o.symbols ?
						       user_mapping(&d->m, s, r->ip) : NULL };
	return n;
}

/*
 * The frames f[0..n) (resolve_frames()) into out, at most max, with the
 * functions inlined at each (inline.c), each a frame of its own before
 * (inside) the frame its symbol names, all at its address, when
 * d->o.inlines; and, with src, each frame's source line (its own line,
 * where the one inside it was inlined, or the address's line without
 * inlined frames).  Names and lines live until the session ends.  How
 * many: past max, the outermost callers are left out.
 */
const struct sample_frame *resolve_inlines(struct session *d, const struct sample_frame *f,
					   unsigned int *np, bool src, struct sample_frame *out,
					   unsigned int max)
{
	bool expand = d->o.inlines && d->o.symbols;
	unsigned int i, j, k = 0, n = *np;

	/*
	 * Nothing to add: the frames as they are (copied, they were 68
	 * instructions a sample of -f folded --no-inline without -g, 5%:
	 * callgrind, bench/ab_decode's recording)
	 */
	if (!(d->o.symbols && (expand || src))) {
		*np = n < max ? n : max;
		return f;
	}

	for (i = 0; i < n && k < max; i++) {
		const struct inl_chain *c = NULL;

		if (f[i].map && d->o.symbols && (expand || src))
			c = mapping_inlines(&d->m, f[i].map, f[i].lookup);
		for (j = 0; expand && c && j < c->n && k < max; j++)
			out[k++] = (struct sample_frame){
				.ip = f[i].ip, .lookup = f[i].lookup, .sym = c->f[j].shown,
				.dso = f[i].dso, .i386 = f[i].i386, .map = f[i].map,
				.demangled = c->f[j].shown != c->f[j].name, .inlined = true,
				.src = c->f[j].src };
		if (k == max)
			break;
		out[k] = f[i];
		/* the function's line: where the outermost was inlined, or the address's */
		out[k++].src = !c ? "" : expand || !c->n ? c->src : c->f[0].src;
	}
	*np = k;
	return out;
}
