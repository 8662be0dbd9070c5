// SPDX-License-Identifier: GPL-2.0
/* -F/--fields: which fields the text output shows of a sample, in what order. */
#include <string.h>
#include "types.h"
#include "output.h"

static const char *const field_names[FIELD_MAX] = {
	[F_COMM] = "comm", [F_PID] = "pid", [F_TID] = "tid", [F_CPU] = "cpu",
	[F_TIME] = "time", [F_EVENT] = "event", [F_IP] = "ip", [F_SYM] = "sym",
	[F_MODE] = "mode", [F_ABI] = "abi", [F_CONTEXT] = "context",
	[F_UREGS_SOURCE] = "uregs_source", [F_SKID] = "skid", [F_DSO] = "dso",
	[F_PERIOD] = "period", [F_SYMOFF] = "symoff", [F_SRCLINE] = "srcline",
	[F_IREGS] = "iregs", [F_UREGS] = "uregs", [F_SIMD] = "simd", [F_STACK] = "stack",
	[F_CALLCHAIN] = "callchain",
};

/* The field named by the len bytes at name, or FIELD_MAX. */
static enum field field_find(const char *name, size_t len)
{
	int f;

	for (f = 0; f < FIELD_MAX; f++)
		if (strlen(field_names[f]) == len && !memcmp(name, field_names[f], len))
			return f;
	return FIELD_MAX;
}

/*
 * Why LIST is refused, into err: what, the item (at most 32 bytes of
 * it, control bytes as '?': it goes to a terminal) and the names.
 */
static int fields_refuse(char *err, size_t errlen, const char *what,
			 const char *item, size_t len)
{
	char shown[40], names[FIELD_MAX * 16];
	size_t i, n = len > 32 ? 32 : len;
	int f, off = 0;

	for (i = 0; i < n; i++)
		shown[i] = item[i] >= ' ' && item[i] < 0x7f ? item[i] : '?';
	strcpy(shown + n, len > n ? "..." : "");
	for (f = 0; f < FIELD_MAX && off < (int)sizeof(names); f++)
		off += snprintf(names + off, sizeof(names) - off, "%s%s",
				f ? "," : "", field_names[f]);
	snprintf(err, errlen, "%s%s%s%s; the fields are %s, or +FIELD,-FIELD... to "
		 "add to or take from them all", what, item ? " '" : "",
		 item ? shown : "", item ? "'" : "", names);
	return -1;
}

/*
 * -F/--fields LIST into o: field names, comma-separated, shown in that
 * order; or each with + or - (perf's spelling) to add to or take from
 * the default, every default field in enum field's order (dso, period,
 * symoff and srcline are off by default).  A name given twice,
 * an empty name, + or - beside plain names, nothing left to show and a
 * LIST of more than FIELDS_LIST_MAX bytes are refused.  Returns 0, or -1
 * with what is wrong in err.
 */
int fields_parse(const char *list, struct opts *o, char *err, size_t errlen)
{
	size_t len = strnlen(list, FIELDS_LIST_MAX + 1), n;
	bool change = list[0] == '+' || list[0] == '-';
	bool seen[FIELD_MAX] = { false }, on[FIELD_MAX];
	uint8_t order[FIELD_MAX];
	const char *p = list, *end;
	unsigned int k = 0, i;
	enum field f;
	char op;

	if (len > FIELDS_LIST_MAX)
		return fields_refuse(err, errlen, "the list is longer than "
				     FIELDS_LIST_MAX_S " bytes:", list, len);
	if (!len)
		return fields_refuse(err, errlen, "the list is empty", NULL, 0);
	for (f = 0; f < FIELD_MAX; f++)
		on[f] = field_default(f);
	for (;; p = end + 1) {
		end = strchr(p, ',');
		if (!end)
			end = p + strlen(p);
		op = *p == '+' || *p == '-' ? *p : 0;
		n = end - p - !!op;
		f = field_find(p + !!op, n);
		if (!n)
			return fields_refuse(err, errlen, "an empty field name", NULL, 0);
		if (!op != !change)
			return fields_refuse(err, errlen, "plain fields and +FIELD or "
					     "-FIELD do not mix:", p, end - p);
		if (f == FIELD_MAX)
			return fields_refuse(err, errlen, "unknown field", p + !!op, n);
		if (seen[f])
			return fields_refuse(err, errlen, "field given twice:", p + !!op, n);
		seen[f] = true;
		if (change)
			on[f] = op == '+';
		else
			order[k++] = f;		/* each once: k < FIELD_MAX */
		if (!*end)
			break;
	}
	for (f = 0; change && f < FIELD_MAX; f++)
		if (on[f])
			order[k++] = f;
	if (!k)
		return fields_refuse(err, errlen, "no field is left to show", NULL, 0);
	/* the first line's fields, then the lines', each in LIST's order */
	o->nline = 0;
	for (i = 0; i < k; i++)
		if (order[i] < F_IREGS)
			o->fields[o->nline++] = order[i];
	o->nfields = o->nline;
	for (i = 0; i < k; i++)
		if (order[i] >= F_IREGS)
			o->fields[o->nfields++] = order[i];
	return 0;
}

