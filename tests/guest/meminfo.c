// SPDX-License-Identifier: GPL-2.0
/*
 * meminfo: every /proc/meminfo field as a metric (kB, or a count for the
 * HugePages_* fields), for expectations such as MemTotal=2000000.
 */
#include <stdlib.h>
#include <string.h>

#include "guest.h"

int main(int argc, char **argv)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256], *colon;

	t_init("meminfo");
	if (!f)
		t_bail("cannot read /proc/meminfo");
	while (fgets(line, sizeof(line), f)) {
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = '\0';
		metric_set(line, strtod(colon + 1, NULL));
	}
	fclose(f);
	check_expectations(argc, argv);
	return t_finish();
}
