// SPDX-License-Identifier: GPL-2.0
/*
 * rp_dlopen: code loaded after start-up, and an address used twice.
 * dlopen()s rp_plug_a.so (found through the run path, $ORIGIN), runs
 * plug_a_hot for SECONDS, dlclose()s it (it is gone from the maps
 * after), then dlopen()s rp_plug_b.so, which ld.so most likely maps at
 * the address A had, and runs plug_b_hot for SECONDS.  Both are called
 * from run_plugin: main -> load_and_run -> run_plugin -> plug_X_hot.
 *
 * usage: rp_dlopen SECONDS
 * Prints (realprog.h) each plugin's executable mappings while it is
 * loaded, "rp phase plug_X_hot START END" for the time spent in it, and
 * "rp unmapped plug_a yes|no" after the dlclose().
 */
#include <dlfcn.h>
#include "realprog.h"

typedef unsigned long (*hot_fn)(double end);
static volatile unsigned long sink;

__attribute__((noinline)) unsigned long run_plugin(hot_fn fn, double end)
{
	return fn(end) * 3 + sink;
}

/* not inlined either: the chain is main -> load_and_run -> run_plugin -> hot */
__attribute__((noinline)) int load_and_run(const char *file, const char *tag,
					   const char *fn, double secs)
{
	void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
	hot_fn hot;
	long long t0;

	if (!h) {
		fprintf(stderr, "rp_dlopen: %s\n", dlerror());
		return -1;
	}
	hot = (hot_fn)dlsym(h, fn);
	if (!hot || !rp_print_maps(tag, file)) {
		fprintf(stderr, "rp_dlopen: no %s in %s, or not mapped\n", fn, file);
		return -1;
	}
	t0 = rp_now_ns();
	sink = run_plugin(hot, rp_now() + secs) & 1;
	rp_phase(fn, t0, rp_now_ns());
	return dlclose(h);
}

int main(int argc, char **argv)
{
	double secs = rp_seconds(argc, argv, 1, "SECONDS");

	if (load_and_run("rp_plug_a.so", "plug_a", "plug_a_hot", secs))
		return 1;
	printf("rp unmapped plug_a %s\n", rp_print_maps("plug_a_after", "rp_plug_a.so") ? "no" : "yes");
	fflush(stdout);
	if (load_and_run("rp_plug_b.so", "plug_b", "plug_b_hot", secs))
		return 1;
	return 0;
}
