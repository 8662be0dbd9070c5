// SPDX-License-Identifier: GPL-2.0
/*
 * What the layers below the session have to say, gathered once each
 * for the command layer to print.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "diag.h"

void diag(struct machine *mach, const char *fmt, ...)
{
	struct diags *g = &mach->diags;
	char buf[DIAG_LEN];
	va_list ap;
	unsigned int i;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pthread_mutex_lock(&g->lock);
	for (i = 0; i < g->n && strcmp(g->msg[i], buf); i++)
		;
	if (i == g->n) {
		if (g->n < DIAG_MAX && (g->msg[g->n] = strdup(buf)))
			g->n++;
		else
			g->dropped++;
	}
	pthread_mutex_unlock(&g->lock);
}

void diag_print(struct machine *mach, FILE *fp)
{
	struct diags *g = &mach->diags;

	pthread_mutex_lock(&g->lock);
	for (; g->printed < g->n; g->printed++)
		fprintf(fp, "perfregs-dump: %s\n", g->msg[g->printed]);
	if (g->dropped)
		fprintf(fp, "perfregs-dump: and %u other messages\n", g->dropped);
	g->dropped = 0;
	pthread_mutex_unlock(&g->lock);
}

void diag_free(struct machine *mach)
{
	struct diags *g = &mach->diags;
	unsigned int i;

	for (i = 0; i < g->n; i++)
		free(g->msg[i]);
	memset(g->msg, 0, sizeof(g->msg));
	g->n = g->printed = g->dropped = 0;
}
