// SPDX-License-Identifier: GPL-2.0
/*
 * show: print files of the guest (procfs, sysfs, debugfs) into the log as
 * diagnostics, for scenarios that want the raw state next to their checks.
 *
 * usage: show --path=FILE [--path=FILE...] [lines>=N]
 * Metrics: lines (total over all files), missing (files that could not be
 * opened).
 */
#include <string.h>

#include "guest.h"

int main(int argc, char **argv)
{
	double lines = 0, missing = 0;
	char line[1024];
	int i;

	t_init("show");
	for (i = 1; i < argc; i++) {
		FILE *f;

		if (strncmp(argv[i], "--path=", 7))
			continue;
		f = fopen(argv[i] + 7, "r");
		if (!f) {
			t_diag("%s: cannot open", argv[i] + 7);
			missing++;
			continue;
		}
		t_diag("---- %s", argv[i] + 7);
		while (fgets(line, sizeof(line), f)) {
			line[strcspn(line, "\n")] = '\0';
			t_diag("%s", line);
			lines++;
		}
		fclose(f);
	}
	metric_set("lines", lines);
	metric_set("missing", missing);
	check_expectations(argc, argv);
	return t_finish();
}
