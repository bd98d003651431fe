// SPDX-License-Identifier: GPL-2.0
/*
 * kmsg: what the kernel log says.  Counts the reports no test run should
 * produce, and the lines that contain --grep=TEXT.  Every matching line is
 * printed as a diagnostic, so a failure shows the report itself.
 *
 * Metrics: warn (WARNING:), bug (BUG:), oops (Oops / Unable to handle),
 * kasan (KASAN:), lockdep (possible ... locking / inconsistent lock),
 * leak (kmemleak: suspected memory leaks), bad (the sum of all those), matches (--grep lines),
 * oom (OOM killer invocations: not in bad, some scenarios drive memory to
 * its end on purpose; those that must not kill anything check oom=0).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>

#include "guest.h"

static const struct {
	const char *metric;
	const char *text;
} reports[] = {
	{ "warn", "WARNING:" },
	{ "bug", "BUG:" },
	{ "oops", "Oops" },
	{ "oops", "Unable to handle kernel" },
	{ "kasan", "KASAN:" },
	{ "lockdep", "possible circular locking" },
	{ "lockdep", "possible recursive locking" },
	{ "lockdep", "inconsistent lock state" },
	{ "lockdep", "suspicious RCU usage" },
	{ "leak", "suspected memory leak" },
};

int main(int argc, char **argv)
{
	const char *grep = opt_get(argc, argv, "grep");
	int len = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	double counts[sizeof(reports) / sizeof(reports[0])] = { 0 };
	double bad = 0, matches = 0, oom = 0, v;
	char *buf, *line, *save;
	size_t i;

	t_init("kmsg");
	if (len <= 0)
		t_bail("cannot size the kernel log");
	buf = malloc(len + 1);
	if (!buf)
		t_bail("out of memory");
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, len);
	if (len < 0)
		t_bail("cannot read the kernel log");
	buf[len] = '\0';

	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		for (i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
			if (strstr(line, reports[i].text)) {
				counts[i]++;
				bad++;
				t_diag("%s", line);
				break;
			}
		}
		if (strstr(line, "invoked oom-killer")) {
			oom++;
			t_diag("%s", line);
		}
		if (grep && strstr(line, grep)) {
			matches++;
			t_report("%s", line);
		}
	}
	for (i = 0; i < sizeof(reports) / sizeof(reports[0]); i++) {
		if (metric_get(reports[i].metric, &v))
			v = 0;
		metric_set(reports[i].metric, v + counts[i]);
	}
	metric_set("bad", bad);
	metric_set("oom", oom);
	metric_set("matches", matches);
	check_expectations(argc, argv);
	return t_finish();
}
