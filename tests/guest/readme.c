// SPDX-License-Identifier: GPL-2.0
/*
 * readme: run a block of shell commands of docs/adopting.rst as a user
 * types them on the board, with Debian's busybox (sh, insmod, cat, grep,
 * dmesg), and check that what they print is what the document says it
 * shows.  The host puts the block, taken by scripts/readme-block.sh, at
 * /etc/readme/NAME.sh (build/initramfs/readme.cpio, appended to the boots
 * that run this check).
 *
 * usage: readme --block=NAME [--cwd=DIR] [--grep=TEXT] expectations
 *   runs "busybox sh -eu /etc/readme/NAME.sh" in DIR (default /), with the
 *   busybox applets first in PATH; every line it prints is a diagnostic.
 *
 * Metrics:
 *   status         the script's exit status (128 + signal if killed)
 *   lines          lines it printed
 *   matches        lines containing --grep=TEXT
 *   loaded         1 if dmb_alloc is in /proc/modules afterwards
 *   dmbs           blocks the kernel lists (/sys/kernel/debug/dmb/blocks)
 *   blocks_shown   of those, how many of its lines the script printed as is
 *   movable_shown  "present" of zone Movable as the script's zoneinfo lines
 *                  show it (-1 if they do not), and movable_present what
 *                  the kernel counts (read here)
 *   accepted       lines saying "is a Designated Movable Block"
 *   rejected       lines saying "rejected:"
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guest.h"

#define BUSYBOX		"/bin/busybox"
#define APPLETS		"/tmp/busybox"
#define MAX_OUT		(256 * 1024)

static int run(char *const argv[], const char *cwd, char *out, size_t max,
	       size_t *len)
{
	int pfd[2], status;
	ssize_t n;
	pid_t pid;

	char drop[4096];

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -1;
	}
	if (!pid) {
		close(pfd[0]);
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		if (cwd && chdir(cwd)) {
			dprintf(1, "readme: cannot chdir to %s: %s\n", cwd,
				strerror(errno));
			_exit(126);
		}
		setenv("PATH", APPLETS ":/bin", 1);
		execv(argv[0], argv);
		dprintf(1, "readme: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(pfd[1]);
	/* keep what fits, read the rest away: the child must not block */
	*len = 0;
	for (;;) {
		if (*len < max - 1)
			n = read(pfd[0], out + *len, max - 1 - *len);
		else
			n = read(pfd[0], drop, sizeof(drop));
		if (n <= 0)
			break;
		if (*len < max - 1)
			*len += n;
	}
	out[*len] = '\0';
	close(pfd[0]);
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* Does @out hold @line as a whole line? */
static int has_line(const char *out, const char *line)
{
	size_t n = strlen(line);
	const char *p = out;

	while ((p = strstr(p, line))) {
		if ((p == out || p[-1] == '\n') && (p[n] == '\n' || !p[n]))
			return 1;
		p += n;
	}
	return 0;
}

/* dmb_alloc in /proc/modules */
static int module_loaded(const char *name)
{
	char line[256];
	size_t n = strlen(name);
	int found = 0;
	FILE *f = fopen("/proc/modules", "r");

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		found = !strncmp(line, name, n) && line[n] == ' ';
	fclose(f);
	return found;
}

int main(int argc, char **argv)
{
	const char *block = opt_get(argc, argv, "block");
	const char *cwd = opt_get(argc, argv, "cwd");
	const char *grep = opt_get(argc, argv, "grep");
	char *install[] = { BUSYBOX, "--install", "-s", APPLETS, NULL };
	double lines = 0, matches = 0, accepted = 0, rejected = 0;
	double movable_shown = -1, movable_present = -1, shown = 0, dmbs = 0;
	struct zone_info z[8];
	char script[256], line[512], *out, *p, *save;
	int status, in_movable = 0, nz, i;
	size_t len;
	FILE *f;

	t_init("readme");
	if (!block)
		t_bail("usage: readme --block=NAME [--cwd=DIR] [--grep=TEXT]");
	snprintf(script, sizeof(script), "/etc/readme/%s.sh", block);
	if (access(script, R_OK))
		t_bail("no %s: is build/initramfs/readme.cpio in this boot?", script);
	out = malloc(MAX_OUT);
	if (!out)
		t_bail("out of memory");
	mkdir(APPLETS, 0755);
	if (run(install, NULL, out, MAX_OUT, &len))
		t_bail("busybox --install failed: %s", out);

	{
		char *sh[] = { BUSYBOX, "sh", "-eu", script, NULL };

		t_info("running docs/adopting.rst's '%s' block: busybox sh -eu %s in %s",
		       block, script, cwd ? cwd : "/");
		status = run(sh, cwd, out, MAX_OUT, &len);
	}
	if (status < 0)
		t_bail("cannot run busybox sh: %s", strerror(errno));

	/* A copy: strtok_r writes into what has_line() reads. */
	p = strdup(out);
	if (!p)
		t_bail("out of memory");
	for (char *l = strtok_r(p, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		t_diag("| %s", l);
		lines++;
		if (grep && strstr(l, grep))
			matches++;
		if (strstr(l, "is a Designated Movable Block"))
			accepted++;
		if (strstr(l, "rejected:"))
			rejected++;
		/* grep -E '^Node|^  +(present|managed)' /proc/zoneinfo */
		if (!strncmp(l, "Node ", 5))
			in_movable = strstr(l, "zone") && strstr(l, "Movable");
		else if (in_movable && sscanf(l, " present %lf", &movable_shown) == 1)
			in_movable = 0;
	}
	free(p);

	/* The kernel's own view, to compare with what the commands showed */
	f = fopen("/sys/kernel/debug/dmb/blocks", "r");
	if (f) {
		/* the first line is the header */
		for (i = 0; fgets(line, sizeof(line), f); i++) {
			line[strcspn(line, "\n")] = '\0';
			if (!i)
				continue;
			dmbs++;
			if (has_line(out, line))
				shown++;
			else
				t_diag("not shown: %s", line);
		}
		fclose(f);
	}
	nz = read_zones(z, 8);
	for (i = 0; i < nz; i++)
		if (!strcmp(z[i].name, "Movable"))
			movable_present = z[i].present;
	free(out);

	metric_set("status", status);
	metric_set("lines", lines);
	metric_set("matches", matches);
	metric_set("loaded", module_loaded("dmb_alloc"));
	metric_set("dmbs", dmbs);
	metric_set("blocks_shown", shown);
	metric_set("movable_shown", movable_shown);
	metric_set("movable_present", movable_present);
	metric_set("accepted", accepted);
	metric_set("rejected", rejected);
	check_expectations(argc, argv);
	return t_finish();
}
