// SPDX-License-Identifier: GPL-2.0
/*
 * /init of the test initramfs.  Mounts what the checks need, runs each line
 * of /etc/checks ("program arg...", written by the host runner from the
 * scenario file) as /bin/<program>, wraps their KTAP subtests into one KTAP
 * document on the console, and powers the machine off.  A check that
 * crashes, hangs past its time limit or cannot start is reported as failed
 * here, so the host always gets one result per check.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHECKS	64
#define MAX_ARGS	64
#define CHECK_TIMEOUT	1800	/* seconds; the host has its own limit too */

static void do_mount(const char *src, const char *dst, const char *type)
{
	mkdir(dst, 0755);
	if (mount(src, dst, type, 0, NULL) && errno != EBUSY)
		printf("# init: mount %s on %s: %s\n", type, dst, strerror(errno));
}

static void power_off(void)
{
	sync();
	reboot(RB_POWER_OFF);
	/* Not reached unless PSCI is missing; panic=-1 makes QEMU exit. */
	for (;;)
		pause();
}

/*
 * Split a line into words at blanks; double quotes, anywhere in a word,
 * protect blanks and are dropped: --grep="a b" is the word --grep=a b.
 */
static int split(char *s, char **argv, int max)
{
	int n = 0;

	while (*s && n < max - 1) {
		char *out;
		int quoted = 0;

		while (*s == ' ' || *s == '\t')
			s++;
		if (!*s)
			break;
		argv[n++] = out = s;
		for (; *s && (quoted || (*s != ' ' && *s != '\t')); s++) {
			if (*s == '"')
				quoted = !quoted;
			else
				*out++ = *s;
		}
		if (*s)
			s++;
		*out = '\0';
	}
	argv[n] = NULL;
	return n;
}

static volatile sig_atomic_t timed_out;

static void on_alarm(int sig)
{
	(void)sig;
	timed_out = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int run_check(int idx, char **argv)
{
	char path[256];
	int status;
	pid_t pid;
	double t0 = now();

	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("not ok %d %s # fork: %s\n", idx, argv[0], strerror(errno));
		return 1;
	}
	if (!pid) {
		execv(path, argv);
		printf("    # cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	timed_out = 0;
	alarm(CHECK_TIMEOUT);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno == EINTR && timed_out) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			printf("not ok %d %s # timed out after %d s\n", idx, argv[0],
			       CHECK_TIMEOUT);
			return 1;
		}
	}
	alarm(0);
	/* Where make test's time goes (scenario logs) */
	printf("    # %s took %.1f s\n", argv[0], now() - t0);
	if (WIFSIGNALED(status)) {
		printf("not ok %d %s # killed by signal %d\n", idx, argv[0],
		       WTERMSIG(status));
		return 1;
	}
	switch (WEXITSTATUS(status)) {
	case 0:
		printf("ok %d %s\n", idx, argv[0]);
		return 0;
	case 4:	/* KSFT_SKIP */
		printf("ok %d %s # SKIP\n", idx, argv[0]);
		return 0;
	default:
		printf("not ok %d %s # exit status %d\n", idx, argv[0],
		       WEXITSTATUS(status));
		return 1;
	}
}

int main(void)
{
	static char lines[MAX_CHECKS][1024];
	struct sigaction sa = { .sa_handler = on_alarm };
	char *argv[MAX_ARGS];
	int n = 0, i, failed = 0;
	FILE *f;

	do_mount("proc", "/proc", "proc");
	do_mount("sysfs", "/sys", "sysfs");
	do_mount("devtmpfs", "/dev", "devtmpfs");
	do_mount("debugfs", "/sys/kernel/debug", "debugfs");
	do_mount("tracefs", "/sys/kernel/tracing", "tracefs");
	do_mount("tmpfs", "/tmp", "tmpfs");
	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGALRM, &sa, NULL);
	setenv("PATH", "/bin", 1);

	f = fopen("/etc/checks", "r");
	if (!f) {
		printf("KTAP version 1\n1..1\nnot ok 1 init # no /etc/checks: %s\n",
		       strerror(errno));
		power_off();
	}
	while (n < MAX_CHECKS && fgets(lines[n], sizeof(lines[n]), f)) {
		lines[n][strcspn(lines[n], "\n")] = '\0';
		if (lines[n][0] && lines[n][0] != '#')
			n++;
	}
	fclose(f);

	/* A fresh line: firmware may have left escape codes on this one. */
	printf("\nKTAP version 1\n1..%d\n", n);
	for (i = 0; i < n; i++) {
		if (!split(lines[i], argv, MAX_ARGS)) {
			printf("not ok %d empty-check\n", i + 1);
			failed++;
			continue;
		}
		failed += run_check(i + 1, argv);
	}
	printf("# dmb-guest: %d checks, %d failed\n", n, failed);
	power_off();
	return 0;
}
