// SPDX-License-Identifier: GPL-2.0
/*
 * kselftest: run one of the kernel's own selftests (built static from
 * build/linux, unchanged) and check its totals.  Its output is kept as
 * diagnostics, so a failure shows which test case failed and why.
 *
 * usage: kselftest --run=/bin/<test> [--args="..."] [--load=mod,mod]
 *                  [--write=path:value,...] [--known=N,N] [expectations]
 * --load loads our modules first (/lib/modules/<mod>.ko); --write sets
 * what the kernel's run_vmtests.sh would set before the test (e.g.
 * /proc/sys/vm/nr_hugepages:128) and puts the old values back after it.
 * --known names test numbers that fail on unpatched 6.12 too: a plain
 * "not ok N" of one of them (not an error, counted once) is in "known",
 * not in "fail".
 * Metrics: pass, fail, skip, error (the "# Totals:" line of kselftest.h),
 * known (failures among --known), exit (the exit status: 0 pass, 4 skip,
 * other fail), totals (number of totals lines: 1 unless something ran
 * twice), plan (N of the first "1..N"), ran (results the totals count),
 * dups (test numbers reported more than once).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guest.h"

static int pass, fail, xfail, xpass, skip, error, totals, known, plan, dups;

#define MAX_NR 4096

static unsigned char seen[MAX_NR], known_seen[MAX_NR];

#define MAX_KNOWN 8

static long known_nr[MAX_KNOWN];
static int nr_known;

static void known_setup(const char *spec)
{
	char buf[128], *w, *save, *end;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		long n = strtol(w, &end, 10);

		if (*end || n <= 0 || nr_known == MAX_KNOWN)
			t_bail("--known: '%s' is not a test number (at most %d)", w, MAX_KNOWN);
		known_nr[nr_known++] = n;
	}
}

#define MAX_WRITES 4

static struct {
	char path[128], old[64];
} writes[MAX_WRITES];
static int nr_writes;

/* path:value,...: write each value, keeping the old one for restore() */
static void setup(const char *spec)
{
	char buf[512], *w, *save, *colon;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		colon = strrchr(w, ':');
		if (!colon || colon == w || nr_writes == MAX_WRITES)
			t_bail("--write: '%s' is not path:value (at most %d)", w, MAX_WRITES);
		*colon = '\0';
		snprintf(writes[nr_writes].path, sizeof(writes[0].path), "%s", w);
		if (file_read_str(w, writes[nr_writes].old, sizeof(writes[0].old)))
			t_bail("--write: cannot read %s: %s", w, strerror(errno));
		writes[nr_writes].old[strcspn(writes[nr_writes].old, "\n")] = '\0';
		nr_writes++;
		if (file_write(w, colon + 1))
			t_bail("--write: cannot write '%s' to %s: %s", colon + 1, w, strerror(errno));
		t_diag("%s: %s (was %s)", w, colon + 1, writes[nr_writes - 1].old);
	}
}

static void restore(void)
{
	while (nr_writes > 0) {
		nr_writes--;
		if (file_write(writes[nr_writes].path, writes[nr_writes].old))
			t_diag("cannot restore %s to %s", writes[nr_writes].path,
			       writes[nr_writes].old);
	}
}

static void totals_line(const char *line)
{
	int n, i, notok = !strncmp(line, "not ok ", 7);

	if (!plan && sscanf(line, "1..%d", &n) == 1)
		plan = n;
	if ((notok && sscanf(line, "not ok %d", &n) == 1) ||
	    (!strncmp(line, "ok ", 3) && sscanf(line, "ok %d", &n) == 1)) {
		if (n > 0 && n < MAX_NR && seen[n]++)
			dups++;
		/* a known failure: "not ok N <text>", no "# SKIP/error" */
		if (notok && !strstr(line, " # ") && n > 0 && n < MAX_NR &&
		    !known_seen[n])
			for (i = 0; i < nr_known; i++)
				if (known_nr[i] == n) {
					known_seen[n] = 1;
					known++;
				}
	}
	if (sscanf(line, "# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:%d",
		   &pass, &fail, &xfail, &xpass, &skip, &error) == 6)
		totals++;
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
	if ((o = opt_get(argc, argv, "known")))
		known_setup(o);
	/* what --write changed goes back also when a check bails out */
	atexit(restore);
	if ((o = opt_get(argc, argv, "write")))
		setup(o);
	status = run_program(av, totals_line, NULL);
	restore();
	metric_set("pass", pass);
	if (known > fail)	/* cannot be: the totals disagree with the lines */
		t_diag("%d known failures but %d in the totals", known, fail);
	metric_set("fail", fail + xpass - (known < fail ? known : fail));
	metric_set("known", known);
	metric_set("plan", plan);
	metric_set("ran", pass + fail + xfail + xpass + skip + error);
	metric_set("dups", dups);
	metric_set("skip", skip);
	metric_set("error", error);
	metric_set("totals", totals);
	metric_set("exit", status);
	check_expectations(argc, argv);
	return t_finish();
}
