// SPDX-License-Identifier: GPL-2.0
/*
 * kmemleak: make kmemleak scan now (the debug kernel has no automatic scan)
 * and count what it reports.  The scan reads every object kmemleak tracks
 * through the linear map: memory lent to the page allocator that kmemleak
 * was not told to ignore faults there under debug_pagealloc=on.
 *
 * usage: kmemleak [expectations]
 * Metrics: scanned (1 once a scan finished), leaks (unreferenced objects).
 */
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

#define KMEMLEAK "/sys/kernel/debug/kmemleak"

int main(int argc, char **argv)
{
	double leaks = 0;
	char line[512];
	FILE *f;
	int fd;

	t_init("kmemleak");
	fd = open(KMEMLEAK, O_WRONLY);
	if (fd < 0)
		t_bail("cannot open %s (CONFIG_DEBUG_KMEMLEAK, kmemleak=on)", KMEMLEAK);
	/* the write returns once the scan is done */
	if (write(fd, "scan", 4) != 4)
		t_bail("scan request failed");
	close(fd);
	metric_set("scanned", 1);

	f = fopen(KMEMLEAK, "r");
	if (!f)
		t_bail("cannot read %s", KMEMLEAK);
	while (fgets(line, sizeof(line), f)) {
		if (strstr(line, "unreferenced object"))
			leaks++;
		line[strcspn(line, "\n")] = '\0';
		t_diag("%s", line);
	}
	fclose(f);
	metric_set("leaks", leaks);
	check_expectations(argc, argv);
	return t_finish();
}
