// SPDX-License-Identifier: GPL-2.0
/*
 * dmbs: the Designated Movable Blocks of the booted kernel, from its list
 * in /sys/kernel/debug/dmb/blocks, and how they fall on the DRAM
 * controllers.
 *
 * Metrics: count, dt (declared in the device tree), cmdline, pages,
 * dram<N>.pages, dmb<I>.base, dmb<I>.size (in address order).
 */
#include <string.h>

#include "guest.h"

int main(int argc, char **argv)
{
	struct dmb_range d[MAX_DMBS];
	struct ctrl c[MAX_CTRL];
	double pages = 0, dt = 0, on[MAX_CTRL] = { 0 };
	char name[64];
	int n, nc, i, k;

	t_init("dmbs");
	n = read_dmbs(d, MAX_DMBS);
	if (n < 0)
		t_bail("cannot read /sys/kernel/debug/memblock/memory");
	nc = read_controllers(c, MAX_CTRL);
	for (i = 0; i < n; i++) {
		uint64_t pa;

		t_report("DMB %d: [0x%llx, 0x%llx) %4llu MiB on %s, %s, owner %s", i,
			 (unsigned long long)d[i].base,
			 (unsigned long long)(d[i].base + d[i].size),
			 (unsigned long long)(d[i].size >> 20),
			 ctrl_of(c, nc, d[i].base) >= 0 ?
			 c[ctrl_of(c, nc, d[i].base)].label : "no controller",
			 d[i].name[0] ? d[i].name : "?",
			 d[i].owner[0] ? d[i].owner : "?");
		dt += d[i].from_dt;
		snprintf(name, sizeof(name), "dmb%d.base", i);
		metric_set(name, d[i].base);
		snprintf(name, sizeof(name), "dmb%d.size", i);
		metric_set(name, d[i].size);
		pages += d[i].size / page_size();
		for (pa = d[i].base; pa < d[i].base + d[i].size; pa += page_size()) {
			k = ctrl_of(c, nc, pa);
			if (k >= 0)
				on[k]++;
		}
	}
	metric_set("count", n);
	metric_set("dt", dt);
	metric_set("cmdline", n - dt);
	metric_set("pages", pages);
	for (k = 0; k < nc; k++) {
		snprintf(name, sizeof(name), "dram%d.pages", k);
		metric_set(name, on[k]);
	}
	check_expectations(argc, argv);
	return t_finish();
}
