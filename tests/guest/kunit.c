// SPDX-License-Identifier: GPL-2.0
/*
 * kunit: the results of KUnit suites built into the kernel, which ran at
 * boot, read back from /sys/kernel/debug/kunit/<suite>/results (KTAP) and
 * passed on as nested subtests, so the host parser counts every case.
 *
 * usage: kunit [--module=NAME] --suite=NAME [--suite=NAME...]
 * --module loads /lib/modules/NAME.ko first: a KUnit module runs its
 * suites when it is loaded.
 */
#include <stdlib.h>
#include <string.h>

#include "guest.h"

int main(int argc, char **argv)
{
	const char *module = opt_get(argc, argv, "module");
	int i, n = 0, failed = 0;

	if (module && load_module(module)) {
		printf("    KTAP version 1\n    # Subtest: kunit\n    1..1\n");
		printf("    not ok 1 %s # cannot load /lib/modules/%s.ko\n",
		       module, module);
		return 1;
	}

	/* first pass: count the suites for the plan */
	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--suite=", 8))
			n++;
	printf("    KTAP version 1\n    # Subtest: kunit\n    1..%d\n", n ? n : 1);
	if (!n) {
		printf("    not ok 1 kunit # usage: kunit --suite=NAME\n");
		return 1;
	}

	n = 0;
	for (i = 1; i < argc; i++) {
		const char *suite = argv[i] + 8;
		char path[256], line[1024];
		int lineno = 0, verdict = -1;
		FILE *f;

		if (strncmp(argv[i], "--suite=", 8))
			continue;
		n++;
		snprintf(path, sizeof(path), "/sys/kernel/debug/kunit/%s/results", suite);
		f = fopen(path, "r");
		if (!f) {
			printf("    not ok %d %s # no %s: suite not built in?\n", n, suite, path);
			failed++;
			continue;
		}
		while (fgets(line, sizeof(line), f)) {
			lineno++;
			line[strcspn(line, "\n")] = '\0';
			/* the file is a document of its own: drop its header */
			if (lineno <= 2 && (!strncmp(line, "KTAP version", 12) ||
					    !strncmp(line, "1..", 3)))
				continue;
			if (!strncmp(line, "ok ", 3) || !strncmp(line, "not ok ", 7)) {
				verdict = line[0] == 'o';
				printf("    %s %d %s\n", verdict ? "ok" : "not ok", n,
				       strchr(line + (verdict ? 3 : 7), ' ') ?
				       strchr(line + (verdict ? 3 : 7), ' ') + 1 : suite);
				continue;
			}
			printf("    %s\n", line);
		}
		fclose(f);
		if (verdict < 0) {
			printf("    not ok %d %s # no verdict in %s\n", n, suite, path);
			failed++;
		} else if (!verdict) {
			failed++;
		}
	}
	fflush(stdout);
	return failed ? 1 : 0;
}
