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
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

int main(int argc, char **argv)
{
	const char *run = opt_get(argc, argv, "run");
	const char *args = opt_get(argc, argv, "args");
	const char *o;
	int pass = 0, fail = 0, xfail = 0, xpass = 0, skip = 0, error = 0;
	int totals = 0, status;
	char cmd[512], line[1024], *av[32], *a, *save;
	int fds[2], ac = 0;
	pid_t pid;
	FILE *p;

	t_init("kselftest");
	if ((o = opt_get(argc, argv, "load"))) {
		char mods[256], *m, *save;

		snprintf(mods, sizeof(mods), "%s", o);
		for (m = strtok_r(mods, ",", &save); m; m = strtok_r(NULL, ",", &save))
			if (load_module(m))
				t_bail("cannot load %s", m);
	}
	if (!run)
		t_bail("usage: kselftest --run=/bin/<test> [--args=...] [expectations]");
	if (pipe(fds))
		t_bail("pipe: %s", strerror(errno));
	snprintf(cmd, sizeof(cmd), "%s", args ? args : "");
	av[ac++] = (char *)run;
	for (a = strtok_r(cmd, " ", &save); a && ac < 31; a = strtok_r(NULL, " ", &save))
		av[ac++] = a;
	av[ac] = NULL;
	pid = fork();
	if (pid < 0)
		t_bail("fork: %s", strerror(errno));
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		execv(run, av);
		fprintf(stderr, "cannot run %s: %s\n", run, strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	p = fdopen(fds[0], "r");
	if (!p)
		t_bail("fdopen: %s", strerror(errno));
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		t_diag("%s", line);
		if (sscanf(line, "# Totals: pass:%d fail:%d xfail:%d xpass:%d skip:%d error:%d",
			   &pass, &fail, &xfail, &xpass, &skip, &error) == 6)
			totals = 1;
	}
	fclose(p);
	if (waitpid(pid, &status, 0) != pid)
		t_bail("waitpid: %s", strerror(errno));
	metric_set("pass", pass);
	metric_set("fail", fail + xpass);
	metric_set("skip", skip);
	metric_set("error", error);
	metric_set("totals", totals);
	metric_set("exit", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	check_expectations(argc, argv);
	return t_finish();
}
