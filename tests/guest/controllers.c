// SPDX-License-Identifier: GPL-2.0
/*
 * controllers: the DRAM controller ranges as the booted kernel sees them in
 * the device tree, and how the System RAM of /proc/iomem falls on them.
 *
 * Metrics: count, dram<N>.base, dram<N>.size, dram<N>.ram (bytes of System
 * RAM on controller N), ram (all System RAM), ram_outside (System RAM on no
 * controller).
 */
#include <stdlib.h>
#include <string.h>

#include "guest.h"

int main(int argc, char **argv)
{
	struct ctrl c[MAX_CTRL];
	uint64_t ram = 0, outside = 0, on[MAX_CTRL] = { 0 };
	char line[256], name[64];
	int n, i;
	FILE *f;

	t_init("controllers");
	n = read_controllers(c, MAX_CTRL);
	if (n <= 0)
		t_bail("no /dram-controllers in the device tree");

	f = fopen("/proc/iomem", "r");
	if (!f)
		t_bail("cannot read /proc/iomem");
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, a;

		/* top-level entries only: no leading blank */
		if (line[0] == ' ' || !strstr(line, ": System RAM"))
			continue;
		if (sscanf(line, "%llx-%llx", &s, &e) != 2)
			continue;
		ram += e + 1 - s;
		for (a = s; a <= e; ) {
			int k = ctrl_of(c, n, a);
			unsigned long long lim;

			if (k < 0) {
				/* up to the next controller or the end */
				lim = e;
				for (i = 0; i < n; i++)
					if (c[i].base > a && c[i].base - 1 < lim)
						lim = c[i].base - 1;
				outside += lim + 1 - a;
			} else {
				lim = c[k].base + c[k].size - 1;
				if (lim > e)
					lim = e;
				on[k] += lim + 1 - a;
			}
			if (lim == e)
				break;
			a = lim + 1;
		}
	}
	fclose(f);

	metric_set("count", n);
	for (i = 0; i < n; i++) {
		t_diag("dram%d %s: [0x%llx, 0x%llx) %llu MiB of System RAM", i,
		       c[i].label, (unsigned long long)c[i].base,
		       (unsigned long long)(c[i].base + c[i].size),
		       (unsigned long long)(on[i] >> 20));
		snprintf(name, sizeof(name), "dram%d.base", i);
		metric_set(name, c[i].base);
		snprintf(name, sizeof(name), "dram%d.size", i);
		metric_set(name, c[i].size);
		snprintf(name, sizeof(name), "dram%d.ram", i);
		metric_set(name, on[i]);
	}
	metric_set("ram", ram);
	metric_set("ram_outside", outside);
	check_expectations(argc, argv);
	return t_finish();
}
