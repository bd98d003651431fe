// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: run one of the kernel's own selftests (built static from
 * build/linux, unchanged) and check its totals.  Its output is kept as
 * diagnostics, so a failure shows which test case failed and why.
 *
 * usage: kselftest --run=/bin/<test> [--args="..."] [--load=mod,mod]
 *                  [expectations]
 * --load loads our modules first (/lib/modules/<mod>.ko).
 * Metrics: pass, fail, skip, error (the "# Totals:" line of kselftest.h),
 * exit (the exit status: 0 pass, 4 skip, other fail), totals (1 if the
 * totals line was seen).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guest.h"

static int pass, fail, xfail, xpass, skip, error, totals;

static void totals_line(const char *line)
{
	if (sscanf(line, "# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:%d",
		   &pass, &fail, &xfail, &xpass, &skip, &error) == 6)
		totals = 1;
}

int main(int argc, char **argv)
{
	const char *run = opt_get(argc, argv, "run");
	const char *args = opt_get(argc, argv, "args");
	char cmd[512], *av[32], *a, *save;
	const char *o;
	int ac = 0, status;

	t_init("kselftest");
	if ((o = opt_get(argc, argv, "load"))) {
		char mods[256], *m, *msave;

		snprintf(mods, sizeof(mods), "%s", o);
		for (m = strtok_r(mods, ",", &msave); m; m = strtok_r(NULL, ",", &msave))
			if (load_module(m))
				t_bail("cannot load %s", m);
	}
	if (!run)
		t_bail("usage: kselftest --run=/bin/<test> [--args=...] [expectations]");
	snprintf(cmd, sizeof(cmd), "%s", args ? args : "");
	av[ac++] = (char *)run;
	for (a = strtok_r(cmd, " ", &save); a && ac < 31; a = strtok_r(NULL, " ", &save))
		av[ac++] = a;
	av[ac] = NULL;
	status = run_program(av, totals_line, NULL);
	metric_set("pass", pass);
	metric_set("fail", fail + xpass);
	metric_set("skip", skip);
	metric_set("error", error);
	metric_set("totals", totals);
	metric_set("exit", status);
	check_expectations(argc, argv);
	return t_finish();
}
