// SPDX-License-Identifier: GPL-2.0
/*
 * --flamegraph FILE: the stacks of -f folded, from folded.c's table (the
 * same samples, the same names), drawn as a flame graph in one SVG file
 * that needs nothing else: its CSS and JavaScript are inline, and it
 * loads nothing.  A frame is a box as wide as its samples, with its
 * callees on top of it: all at the bottom, a sample's process (comm)
 * above it, then its frames outermost first.
 *
 * In a browser, a frame's title (its tooltip, and the details line while
 * the pointer is on it) says its name, samples and share of all of them;
 * a click zooms into it, Reset Zoom (top left) goes back; Search (top
 * right, or Ctrl-F or '/') marks the frames whose names match a regular
 * expression, or hold the text if it is none, and says the share of the
 * samples under them, each sample counted once (at its outermost match).
 * Escape ends the search.  ?s=TEXT or #s=TEXT in the address searches at
 * load, and z=N zooms into the Nth frame of the file (all is 0): links
 * to a view, and what the tests drive a headless browser with.
 *
 * Colours say what a frame is, by the marks -f folded gives its names:
 * kernel frames (_[k]) blue, i386 frames (_[i386]: code run in 32-bit
 * mode) green, inlined functions (_[i], as flamegraph.pl marks them)
 * aqua, other user frames red to yellow, processes and all grey;
 * a legend under the title says so.  Within its hue a frame's shade
 * comes from a hash of its name: the same function looks the same
 * everywhere, and the same recording always gives the same file.
 *
 * Widths as flamegraph.pl computes them: its 1200 pixels less 10 on each
 * side for all samples, and a frame narrower than 0.1 pixel (its
 * --minwidth) is left out with its callees, which are narrower still.  A
 * browser needs seconds for a few hundred thousand frames, so past
 * FRAMES_MAX frames the least width doubles until they fit.  The
 * subtitle says how many samples' stacks were cut short that way.
 *
 * Names are bytes from a recording that nobody vouches for.  They go
 * only into the text of <title> and <text> elements, escaped (& < > " '
 * all as entities) and as UTF-8 that an XML parser takes: a byte that
 * is no part of UTF-8, each code point XML 1.0 has no room for, and
 * each control (safetext.c: but for a tab, which XML has room for)
 * becomes U+FFFD, as Python's decode("utf-8", "replace") makes the
 * first, so that the text of a frame shows no control anywhere.  No
 * name is ever put in an attribute, the CSS or the script: the script
 * reads names out of the titles as text and writes them back as text
 * (textContent), so no name can add an element or run as script.
 *
 * Memory: beside folded.c's table, only an array of its sorted stacks
 * and of how many frames each shares with the one before (20 bytes a
 * stack).  No tree is built: sorted frame by frame, the stacks under one
 * frame are one run of the array and its width is the sum of their
 * samples, so frames are written as a walk of the runs meets them, with
 * one level of recursion per frame of depth.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "types.h"
#include "safetext.h"
#include "outfile.h"
#include "folded.h"
#include "flame.h"

#define SVG_W		1200
#define PAD		10		/* left and right of the frames */
#define FRAME_H		16		/* a frame's row; its box is 1 less */
#define CHAR_W		(0.59 * 12)	/* a 12 px character of Verdana, about */
#define TOP		80		/* title, subtitle, legend */
#define BOTTOM		34		/* the details line */
#define MIN_PX		0.1		/* flamegraph.pl's --minwidth */
#define FRAMES_MAX	100000

struct flame {
	FILE *fp;
	const struct folded_stack *st;
	uint32_t *shared;	/* frames stack i has in common with stack i - 1 */
	size_t n;
	uint64_t total;		/* samples */
	double scale;		/* pixels a sample */
	double min;		/* samples: a frame of fewer is left out */
	bool emit;		/* write the frames, or only count them */
	size_t kept;		/* frames written, or that would be */
	unsigned int depth;	/* the deepest of them; all is 0 */
	uint64_t cut;		/* samples whose stacks were cut short */
	double base;		/* y of all's box */
};

/* Whole frames ("a;b" of "a;b;c") that two stacks begin with. */
static uint32_t shared_frames(const char *a, const char *b)
{
	uint32_t f = 0;

	for (; *a && *a == *b; a++, b++)
		if (*a == ';')
			f++;
	/* both at the end of a frame: that one is shared too */
	if ((*a == ';' || !*a) && (*b == ';' || !*b))
		f++;
	return f;
}

/*
 * The code point at s (len > 0 bytes), its bytes in *adv.  U+FFFD for a
 * byte that begins no UTF-8 sequence, for a sequence cut short (as
 * Unicode recommends, and Python does: one for its longest valid start),
 * for what XML 1.0 cannot hold, U+FFFE and U+FFFF, and for the controls
 * but a tab (C0, DEL, C1: folded.c leaves none; names may come from
 * elsewhere one day).  Overlong forms and surrogates fail at their
 * second byte.
 */
static uint32_t next_cp(const unsigned char *s, size_t len, size_t *adv)
{
	unsigned char lo = 0x80, hi = 0xbf;
	uint32_t cp;
	size_t need, i;

	*adv = 1;
	if (s[0] < 0x80)
		return cp_control(s[0]) && s[0] != '\t' ? 0xfffd : s[0];
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		need = 1;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		need = 2;
		cp = s[0] & 0x0f;
		lo = s[0] == 0xe0 ? 0xa0 : 0x80;
		hi = s[0] == 0xed ? 0x9f : 0xbf;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		need = 3;
		cp = s[0] & 0x07;
		lo = s[0] == 0xf0 ? 0x90 : 0x80;
		hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	} else {
		return 0xfffd;
	}
	for (i = 1; i <= need; i++) {
		if (i >= len || s[i] < lo || s[i] > hi)
			return 0xfffd;		/* *adv: the valid start */
		cp = cp << 6 | (s[i] & 0x3f);
		*adv = i + 1;
		lo = 0x80;
		hi = 0xbf;
	}
	return cp == 0xfffe || cp == 0xffff || cp_control(cp) ? 0xfffd : cp;
}

static size_t count_cps(const char *s, size_t len)
{
	size_t n = 0, adv;

	for (; len; s += adv, len -= adv, n++)
		next_cp((const unsigned char *)s, len, &adv);
	return n;
}

/* At most max code points of s[0..len) as XML text, made safe (see above). */
static void put_text(FILE *fp, const char *s, size_t len, size_t max)
{
	size_t adv;
	uint32_t cp;

	for (; len && max; s += adv, len -= adv, max--) {
		cp = next_cp((const unsigned char *)s, len, &adv);
		switch (cp) {
		case '&':
			fputs("&amp;", fp);
			break;
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '"':
			fputs("&quot;", fp);
			break;
		case '\'':
			fputs("&#39;", fp);
			break;
		case 0xfffd:
			fputs("\xef\xbf\xbd", fp);
			break;
		default:
			fwrite(s, 1, adv, fp);	/* valid UTF-8, as it was */
		}
	}
}

static bool ends_with(const char *s, size_t len, const char *tail)
{
	size_t t = strlen(tail);

	return len >= t && !memcmp(s + len - t, tail, t);
}

/*
 * A frame's fill: its kind's hue, its shade from the name.  The hash's
 * high bits: FNV-1a mixes its low bits least.
 */
static void fill(const char *s, size_t len, char kind, unsigned int rgb[3])
{
	uint64_t h = 1469598103934665603ULL;
	double a, b, c;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	a = (double)(h >> 48) / 65536;
	b = (double)(h >> 32 & 0xffff) / 65536;
	c = (double)(h >> 16 & 0xffff) / 65536;
	switch (kind) {
	case 'k':	/* kernel: blue */
		rgb[0] = 80 + (unsigned int)(60 * a);
		rgb[1] = 140 + (unsigned int)(60 * b);
		rgb[2] = 215 + (unsigned int)(40 * c);
		break;
	case 'i':	/* i386: green */
		rgb[0] = 70 + (unsigned int)(70 * a);
		rgb[1] = 175 + (unsigned int)(55 * b);
		rgb[2] = 70 + (unsigned int)(50 * c);
		break;
	case 'n':	/* inlined: aqua */
		rgb[0] = 60 + (unsigned int)(50 * a);
		rgb[1] = 185 + (unsigned int)(45 * b);
		rgb[2] = 185 + (unsigned int)(45 * c);
		break;
	case 'c':	/* a process, and all: grey */
	case 'a':
		rgb[0] = rgb[1] = 170 + (unsigned int)(40 * a);
		rgb[2] = rgb[0] + 10;
		break;
	default:	/* user 64-bit: red to yellow */
		rgb[0] = 215 + (unsigned int)(40 * a);
		rgb[1] = 90 + (unsigned int)(140 * b);
		rgb[2] = 30 + (unsigned int)(40 * c);
	}
}

/*
 * A frame's <g> with its title, box and label (the </g> comes after its
 * callees).  The label is as many characters as fit, cut with "..", as
 * the script cuts it when it zooms: the two must agree.
 */
static void put_frame(struct flame *f, unsigned int k, const char *name, size_t len,
		      uint64_t x, uint64_t n)
{
	char kind = k == 0 ? 'a' : k == 1 ? 'c' : ends_with(name, len, "_[k]") ? 'k' :
		    ends_with(name, len, "_[i386]") ? 'i' : ends_with(name, len, "_[i]") ? 'n' : 'u';
	double px = PAD + x * f->scale, w = n * f->scale, y = f->base - (double)k * FRAME_H;
	unsigned int rgb[3];
	size_t fit = 0;

	fill(name, len, kind, rgb);
	fprintf(f->fp, "<g class=\"f %c\" data-x=\"%" PRIu64 "\" data-n=\"%" PRIu64
		"\"><title>", kind, x, n);
	put_text(f->fp, name, len, SIZE_MAX);
	fprintf(f->fp, " (%" PRIu64 " sample%s, %.2f%%)</title><rect x=\"%.2f\" "
		"y=\"%.0f\" width=\"%.2f\" height=\"%d\" rx=\"2\" fill=\"rgb(%u,%u,%u)\"/>"
		"<text x=\"%.2f\" y=\"%.0f\">", n, n == 1 ? "" : "s",
		100.0 * (double)n / (double)f->total, px, y, w, FRAME_H - 1, rgb[0], rgb[1],
		rgb[2], px + 3, y + 11);
	if (w - 6 >= 3 * CHAR_W)
		fit = (size_t)((w - 6) / CHAR_W);	/* the script's Math.floor() */
	if (fit && count_cps(name, len) <= fit) {
		put_text(f->fp, name, len, SIZE_MAX);
	} else if (fit) {
		put_text(f->fp, name, len, fit - 2);
		fputs("..", f->fp);
	}
	fputs("</text>\n", f->fp);
}

/*
 * The frame of depth k named name[0..len) over the stacks [i, j), with x
 * samples left of it and n under it, then its callees.  Its name starts
 * at off in each of those stacks, which share every byte before; a stack
 * that ends with it sorts first, and its samples are the frame's own.
 * All (k 0) has no name in the stacks: its callees, the processes,
 * start at 0.
 */
static void walk(struct flame *f, unsigned int k, const char *name, size_t len,
		 size_t off, size_t i, size_t j, uint64_t x, uint64_t n)
{
	size_t p = i, q, clen;
	const char *s;
	uint64_t cn;

	f->kept++;
	if (k > f->depth)
		f->depth = k;
	if (f->emit)
		put_frame(f, k, name, len, x, n);
	if (k > 0) {
		if (!f->st[i].stack[off + len]) {
			x += f->st[i].count;
			p++;
		}
		off += len + 1;
	}
	while (p < j) {
		s = f->st[p].stack + off;
		clen = strcspn(s, ";");
		cn = f->st[p].count;
		for (q = p + 1; q < j && f->shared[q] > k; q++)
			cn += f->st[q].count;
		if ((double)cn >= f->min)
			walk(f, k + 1, s, clen, off, p, q, x, cn);
		else
			f->cut += cn;
		x += cn;
		p = q;
	}
	if (f->emit)
		fputs("</g>\n", f->fp);
}

static void count_frames(struct flame *f)
{
	f->kept = 0;
	f->depth = 0;
	f->cut = 0;
	if (f->n)
		walk(f, 0, "all", 3, 0, 0, f->n, 0, f->total);
}

/* The CSS: how frames look, marked (match), dimmed (up) or hidden. */
static const char css[] =
"text { font-family: Verdana, \"DejaVu Sans\", sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
"#title { text-anchor: middle; font-size: 17px; }\n"
"#sub { text-anchor: middle; fill: rgb(80,80,80); }\n"
"#search, #matched { text-anchor: end; }\n"
"#search, #unzoom { cursor: pointer; fill: rgb(0,0,170); }\n"
".f { cursor: pointer; }\n"
".f > text { pointer-events: none; }\n"
".hl > rect { stroke: rgb(0,0,0); stroke-width: 1; }\n"
".match > rect { fill: rgb(230,0,230); }\n"
".up > rect { fill-opacity: 0.5; }\n"
".hide { display: none; }\n";

/*
 * The script.  Names only ever pass through textContent and RegExp.test():
 * never innerHTML, an attribute or code.  z and s of the address are
 * read at load; data-ready on the root says the script ran (and how many
 * frames it found), data-zoom and data-matched what it did.
 */
static const char js[] =
"\"use strict\";\n"
"var W = 1200, PAD = 10, CHAR_W = 0.59 * 12;\n"
"var svg, frames, names, rects, texts, details, matched, unzoom, term = null;\n"
"function num(e, a) { return +e.getAttribute(a); }\n"
"function mark(e, c, on) { if (on) e.classList.add(c); else e.classList.remove(c); }\n"
"function frame_of(e) { return e.closest ? e.closest(\"#frames .f\") : null; }\n"
"function flame_init() {\n"
"\tvar i, t, p, z = null, s = null, box = document.getElementById(\"frames\");\n"
"\tsvg = document.documentElement;\n"
"\tdetails = document.getElementById(\"details\");\n"
"\tmatched = document.getElementById(\"matched\");\n"
"\tunzoom = document.getElementById(\"unzoom\");\n"
"\tframes = Array.prototype.slice.call(box.querySelectorAll(\".f\"));\n"
"\tnames = []; rects = []; texts = [];\n"
"\tfor (i = 0; i < frames.length; i++) {\n"
"\t\tt = frames[i].children[0].textContent;\n"
"\t\tnames.push(t.substring(0, t.lastIndexOf(\" (\")));\n"
"\t\trects.push(frames[i].children[1]);\n"
"\t\ttexts.push(frames[i].children[2]);\n"
"\t}\n"
"\tbox.addEventListener(\"click\", function (e) { var g = frame_of(e.target); if (g) zoom(g); });\n"
"\tbox.addEventListener(\"mouseover\", function (e) {\n"
"\t\tvar g = frame_of(e.target);\n"
"\t\tif (g) { mark(g, \"hl\", true); details.textContent = g.children[0].textContent; }\n"
"\t});\n"
"\tbox.addEventListener(\"mouseout\", function (e) {\n"
"\t\tvar g = frame_of(e.target);\n"
"\t\tif (g) { mark(g, \"hl\", false); details.textContent = \" \"; }\n"
"\t});\n"
"\tunzoom.addEventListener(\"click\", function () { zoom(frames[0]); });\n"
"\tdocument.getElementById(\"search\").addEventListener(\"click\", ask);\n"
"\twindow.addEventListener(\"keydown\", function (e) {\n"
"\t\tif (e.key === \"/\" || (e.key === \"f\" && (e.ctrlKey || e.metaKey))) { e.preventDefault(); ask(); }\n"
"\t\telse if (e.key === \"Escape\") search(null);\n"
"\t});\n"
"\tp = [new URLSearchParams(location.search), new URLSearchParams(location.hash.substring(1))];\n"
"\tfor (i = 0; i < p.length; i++) {\n"
"\t\tif (p[i].has(\"z\")) z = p[i].get(\"z\");\n"
"\t\tif (p[i].has(\"s\")) s = p[i].get(\"s\");\n"
"\t}\n"
"\tif (frames.length && z !== null && /^[0-9]+$/.test(z) && +z < frames.length) zoom(frames[+z]);\n"
"\tif (frames.length && s !== null) search(s);\n"
"\tsvg.setAttribute(\"data-ready\", frames.length);\n"
"}\n"
"function label(i, x, w) {\n"
"\tvar fit = Math.floor((w - 6) / CHAR_W), c = Array.from(names[i]), t = texts[i];\n"
"\tt.textContent = fit < 3 ? \"\" : c.length <= fit ? names[i] : c.slice(0, fit - 2).join(\"\") + \"..\";\n"
"\tt.setAttribute(\"x\", (x + 3).toFixed(2));\n"
"}\n"
"function zoom(g) {\n"
"\tvar x0 = num(g, \"data-x\"), scale = (W - 2 * PAD) / num(g, \"data-n\"), i, f, x, w;\n"
"\tfor (i = 0; i < frames.length; i++) {\n"
"\t\tf = frames[i];\n"
"\t\tif (f === g || f.contains(g)) { x = PAD; w = W - 2 * PAD; }\n"
"\t\telse if (g.contains(f)) { x = PAD + (num(f, \"data-x\") - x0) * scale; w = num(f, \"data-n\") * scale; }\n"
"\t\telse { mark(f, \"hide\", true); continue; }\n"
"\t\tmark(f, \"hide\", false);\n"
"\t\tmark(f, \"up\", f !== g && f.contains(g));\n"
"\t\trects[i].setAttribute(\"x\", x.toFixed(2));\n"
"\t\trects[i].setAttribute(\"width\", w.toFixed(2));\n"
"\t\tlabel(i, x, w);\n"
"\t}\n"
"\tmark(unzoom, \"hide\", g === frames[0]);\n"
"\tsvg.setAttribute(\"data-zoom\", frames.indexOf(g));\n"
"}\n"
"function ask() {\n"
"\tvar s = prompt(\"Search the frames: a regular expression (or text, if it is none)\", term === null ? \"\" : term);\n"
"\tif (s !== null) search(s);\n"
"}\n"
"function share(g) {\n"
"\tvar s = 0, c;\n"
"\tif (g.classList.contains(\"match\")) return num(g, \"data-n\");\n"
"\tfor (c = g.firstElementChild; c; c = c.nextElementSibling)\n"
"\t\tif (c.classList.contains(\"f\")) s += share(c);\n"
"\treturn s;\n"
"}\n"
"function search(s) {\n"
"\tvar re = null, i, m, hits = 0, sum;\n"
"\tterm = s ? s : null;\n"
"\tif (term !== null) { try { re = new RegExp(term); } catch (e) { re = null; } }\n"
"\tfor (i = 1; i < frames.length; i++) {\n"
"\t\tm = term !== null && (re ? re.test(names[i]) : names[i].indexOf(term) >= 0);\n"
"\t\tmark(frames[i], \"match\", m);\n"
"\t\tif (m) hits++;\n"
"\t}\n"
"\tsum = share(frames[0]);\n"
"\tmatched.textContent = term === null ? \" \" : \"Matched: \" +\n"
"\t\t(100 * sum / num(frames[0], \"data-n\")).toFixed(2) + \"% (\" + sum + \" samples)\";\n"
"\tsvg.setAttribute(\"data-matched\", sum);\n"
"\tsvg.setAttribute(\"data-matches\", hits);\n"
"}\n";

/* What the colours mean: a swatch and a word for each kind. */
static void put_legend(FILE *fp)
{
	static const struct {
		const char *what;
		unsigned int r, g, b;
	} kinds[] = {
		{ "user 64-bit", 235, 160, 50 },
		{ "i386 (32-bit code, _[i386])", 105, 200, 95 },
		{ "kernel (_[k])", 110, 170, 235 },
		{ "process, all", 190, 190, 200 },
		{ "search match", 230, 0, 230 },
		{ "inlined (_[i])", 85, 205, 205 },
	};
	static const int at[] = { 220, 340, 560, 700, 840, 960 };
	size_t i;

	fputs("<g id=\"legend\">\n", fp);
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		fprintf(fp, "<rect x=\"%d\" y=\"52\" width=\"12\" height=\"12\" rx=\"2\" "
			"fill=\"rgb(%u,%u,%u)\"/><text x=\"%d\" y=\"63\">%s</text>\n", at[i],
			kinds[i].r, kinds[i].g, kinds[i].b, at[i] + 17, kinds[i].what);
	fputs("</g>\n", fp);
}

static void put_svg(struct flame *f, struct session *d)
{
	FILE *fp = f->fp;
	int h = (int)f->base + FRAME_H + BOTTOM;

	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		"<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
		"xmlns=\"http://www.w3.org/2000/svg\" onload=\"flame_init()\" "
		"data-total=\"%" PRIu64 "\" data-frames=\"%zu\">\n"
		"<!-- a flame graph by perfregs-dump: the stacks of its folded output -->\n"
		"<style type=\"text/css\"><![CDATA[\n%s]]></style>\n"
		"<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n"
		"<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"rgb(250,250,246)\"/>\n"
		"<text id=\"title\" x=\"%d\" y=\"24\">Flame Graph</text>\n"
		"<text id=\"sub\" x=\"%d\" y=\"42\">",
		SVG_W, h, SVG_W, h, f->total, f->kept, css, js, SVG_W, h, SVG_W / 2, SVG_W / 2);
	/* the event's name is the recording's: as hostile as a frame's */
	fprintf(fp, "%" PRIu64 " sample%s of ", f->total, f->total == 1 ? "" : "s");
	put_text(fp, d->o.event_name, strlen(d->o.event_name), SIZE_MAX);
	fprintf(fp, ", %zu stack%s", f->n, f->n == 1 ? "" : "s");
	if (f->cut)
		fprintf(fp, "; frames narrower than %g px left out: the stacks of %" PRIu64
			" sample%s cut short", f->min * f->scale, f->cut, f->cut == 1 ? "" : "s");
	if (d->folded_dropped)
		fprintf(fp, "; %" PRIu64 " missing: out of memory", d->folded_dropped);
	fprintf(fp, "</text>\n");
	put_legend(fp);
	fprintf(fp, "<text id=\"unzoom\" class=\"hide\" x=\"%d\" y=\"24\">Reset Zoom</text>\n"
		"<text id=\"search\" x=\"%d\" y=\"24\">Search</text>\n"
		"<text id=\"details\" x=\"%d\" y=\"%d\"> </text>\n"
		"<text id=\"matched\" x=\"%d\" y=\"%d\"> </text>\n<g id=\"frames\">\n",
		PAD, SVG_W - PAD, PAD, h - 12, SVG_W - PAD, h - 12);
	if (!f->n)
		fprintf(fp, "<text x=\"%d\" y=\"%d\">no samples</text>\n", PAD, TOP + 11);
	f->emit = true;
	count_frames(f);
	fputs("</g>\n</svg>\n", fp);
}

/*
 * The flame graph of the stacks so far onto fp; the table stays as it
 * is, for -f folded.  0, -ENOMEM or -EIO (fp's error).
 */
int flame_print(struct session *d, FILE *fp)
{
	struct flame f = { .fp = fp };
	struct folded_stack *st;
	size_t i;

	if (folded_sorted(d, &st, &f.n))
		return -ENOMEM;
	f.st = st;
	if (f.n) {
		f.shared = malloc(f.n * sizeof(*f.shared));
		if (!f.shared) {
			free(st);
			return -ENOMEM;
		}
		f.shared[0] = 0;
		for (i = 0; i < f.n; i++) {
			f.total += st[i].count;
			if (i)
				f.shared[i] = shared_frames(st[i - 1].stack, st[i].stack);
		}
		f.scale = (double)(SVG_W - 2 * PAD) / (double)f.total;
		f.min = MIN_PX / f.scale;
		for (count_frames(&f); f.kept > FRAMES_MAX; count_frames(&f))
			f.min *= 2;
	}
	f.base = TOP + (double)f.depth * FRAME_H;
	put_svg(&f, d);
	free(f.shared);
	free(st);
	return ferror(fp) ? -EIO : 0;
}

/*
 * --flamegraph FILE: 0, or -errno with what went wrong in err (the
 * command layer says it).  A file only whole, or none.
 */
int flame_write(struct session *d, const char *path, char *err, size_t errlen)
{
	struct out_file of;
	FILE *fp = NULL;
	int ret, fd;

	fd = out_create(&of, path, false, err, errlen);
	if (fd >= 0) {
		fp = fdopen(fd, "w");
		if (!fp) {
			snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
			close(fd);
			out_commit(&of, false, NULL, 0);
		}
	}
	if (!fp)
		return -EIO;
	ret = flame_print(d, fp);
	if (fclose(fp) && !ret)
		ret = -errno;
	/* the SVG takes the name only whole; a failed one is removed */
	if (!ret && out_commit(&of, true, err, errlen))
		return -EIO;
	out_commit(&of, false, NULL, 0);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory for the flame graph");
	else if (ret)
		snprintf(err, errlen, "writing %s: %s", path, strerror(ret == -EIO ? EIO : -ret));
	return ret;
}
