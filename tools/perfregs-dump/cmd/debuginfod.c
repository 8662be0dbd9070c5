// SPDX-License-Identifier: GPL-2.0
/*
 * --debuginfod: which servers a decode of a recording asks, told to
 * libdebuginfod through the environment it reads ($DEBUGINFOD_URLS,
 * $DEBUGINFOD_MAXTIME, $DEBUGINFOD_MAXSIZE), and only then.
 */
#define _GNU_SOURCE	/* environ */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <elfutils/debuginfod.h>
#include "../debuginfo.h"
#include "sample-opts.h"
#include "debuginfod.h"

static char *user_urls;		/* $DEBUGINFOD_URLS as the user set it */

void debuginfod_env_take(void)
{
	const char *urls = getenv(DEBUGINFOD_URLS_ENV_VAR);

	if (urls) {
		user_urls = strdup(urls);
		unsetenv(DEBUGINFOD_URLS_ENV_VAR);
	}
}

char **debuginfod_child_env(void)
{
	static const char name[] = DEBUGINFOD_URLS_ENV_VAR "=";
	char **env, *entry;
	size_t n;

	if (!user_urls || getenv(DEBUGINFOD_URLS_ENV_VAR))
		return environ;
	for (n = 0; environ[n]; n++)
		;
	env = malloc((n + 2) * sizeof(*env));
	entry = malloc(sizeof(name) + strlen(user_urls));
	if (!env || !entry) {
		free(env);
		free(entry);
		return environ;
	}
	memcpy(env, environ, n * sizeof(*env));
	sprintf(entry, "%s%s", name, user_urls);
	env[n] = entry;
	env[n + 1] = NULL;
	return env;
}

void debuginfod_child_env_free(char **env)
{
	size_t n;

	if (env == environ)
		return;
	for (n = 0; env[n + 1]; n++)
		;
	free(env[n]);	/* the one made here, last */
	free(env);
}

/*
 * $name's number when it is one above 0; else dflt, then set there for
 * libdebuginfod.  Its MAXSIZE (0: no limit) is also told to the server,
 * which refuses larger files.
 */
static uint64_t env_number(const char *name, uint64_t dflt)
{
	const char *e = getenv(name);
	char num[32];
	uint64_t v;

	if (e && !parse_u64(e, &v) && v)
		return v;
	snprintf(num, sizeof(num), "%" PRIu64, dflt);
	setenv(name, num, 1);
	return dflt;
}

int debuginfod_start(struct machine *mach, const struct decode_opts *d)
{
	const char *urls = d->debuginfod;
	uint64_t timeout, max;
	char err[256], num[16];

	if (!urls)
		return GO_ON;
	if (!*urls)
		urls = user_urls;
	if (!urls || !*urls) {
		fprintf(stderr, "perfregs-dump: --debuginfod: no URLS given, and "
			"DEBUGINFOD_URLS is not set\n");
		return EXIT_USAGE;
	}
	/* --debuginfod-timeout, else $DEBUGINFOD_MAXTIME, else ours */
	if (d->debuginfod_timeout) {
		snprintf(num, sizeof(num), "%u", d->debuginfod_timeout);
		setenv(DEBUGINFOD_MAXTIME_ENV_VAR, num, 1);
	}
	timeout = env_number(DEBUGINFOD_MAXTIME_ENV_VAR, DEBUGINFOD_TIMEOUT_DEFAULT);
	max = env_number(DEBUGINFOD_MAXSIZE_ENV_VAR, DEBUGINFOD_MAX_BYTES);
	if (timeout > UINT32_MAX)
		timeout = UINT32_MAX;	/* the user's: as good as none */
	if (debuginfo_server_use(mach, urls, (unsigned int)timeout, max, err, sizeof(err))) {
		fprintf(stderr, "perfregs-dump: --debuginfod: %s\n", err);
		return EXIT_USAGE;
	}
	setenv(DEBUGINFOD_URLS_ENV_VAR, urls, 1);
	if (d->o.verbose)
		fprintf(stderr, "perfregs-dump: debuginfod: the debug files not here are asked "
			"of %s (%" PRIu64 " s each at most, files up to %" PRIu64 " bytes)\n",
			urls, timeout, max);
	return GO_ON;
}

bool debuginfod_refused_live(const struct decode_opts *d)
{
	if (!d->debuginfod)
		return false;
	fprintf(stderr, "perfregs-dump: --debuginfod is for decoding a recording (-i, "
		"script, report, convert): a live run never waits on a server\n");
	return true;
}
