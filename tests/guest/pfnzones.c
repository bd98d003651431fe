// SPDX-License-Identifier: GPL-2.0
/*
 * pfnzones: the zone of every page frame, from the dmb_test module's
 * /sys/kernel/debug/dmb_test/zones (loaded here if needed), checked
 * against the Designated Movable Blocks memblock reports.
 *
 * Metrics: <Zone>.pages and <Zone>.dram<N> (page frames with a memory map,
 * per zone and controller), dmb.movable (DMB page frames in ZONE_MOVABLE),
 * dmb.other (DMB page frames in any other zone or without a memory map),
 * movable.outside (ZONE_MOVABLE page frames outside every DMB).
 */
#include <string.h>

#include "guest.h"

#define ZONES_FILE "/sys/kernel/debug/dmb_test/zones"

static const char *const zone_names[] = { "DMA", "DMA32", "Normal", "Movable" };
#define NZ (int)(sizeof(zone_names) / sizeof(zone_names[0]))

static uint64_t overlap(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
	uint64_t lo = a > c ? a : c, hi = b < d ? b : d;

	return hi > lo ? hi - lo : 0;
}

int main(int argc, char **argv)
{
	double per[NZ][MAX_CTRL + 1] = { { 0 } }, dmb_movable = 0, in_dmbs = 0;
	double movable_outside = 0;
	struct dmb_range d[MAX_DMBS];
	struct ctrl c[MAX_CTRL];
	unsigned long long s, e;
	char line[256], zone[32], name[64];
	int nd, nc, i, k, z;
	long ps = page_size();
	FILE *f;

	t_init("pfnzones");
	if (load_module("dmb_test"))
		t_bail("cannot load /lib/modules/dmb_test.ko");
	nd = read_dmbs(d, MAX_DMBS);
	if (nd < 0)
		t_bail("cannot read the DMBs from memblock");
	nc = read_controllers(c, MAX_CTRL);
	if (nc < 0)
		nc = 0;
	f = fopen(ZONES_FILE, "r");
	if (!f)
		t_bail("cannot read " ZONES_FILE);

	while (fgets(line, sizeof(line), f)) {
		uint64_t dmbp = 0;

		if (sscanf(line, "%llx %llx %31s", &s, &e, zone) != 3)
			continue;
		t_diag("pfn [0x%llx, 0x%llx) %s", s, e, zone);
		for (z = 0; z < NZ; z++)
			if (!strcmp(zone, zone_names[z]))
				break;
		if (z == NZ)
			t_bail("unknown zone '%s' in " ZONES_FILE, zone);
		for (k = 0; k < nc; k++)
			per[z][k] += overlap(s, e, c[k].base / ps,
					     (c[k].base + c[k].size) / ps);
		per[z][MAX_CTRL] += e - s;
		for (i = 0; i < nd; i++)
			dmbp += overlap(s, e, d[i].base / ps,
					(d[i].base + d[i].size) / ps);
		if (!strcmp(zone, "Movable")) {
			dmb_movable += dmbp;
			movable_outside += e - s - dmbp;
		}
	}
	fclose(f);

	for (i = 0; i < nd; i++)
		in_dmbs += d[i].size / ps;
	for (z = 0; z < NZ; z++) {
		char line[256];
		int len;

		if (!per[z][MAX_CTRL])
			continue;
		len = snprintf(line, sizeof(line), "%-8s", zone_names[z]);
		for (k = 0; k < nc; k++)
			len += snprintf(line + len, sizeof(line) - len,
					" %s %5.0f MiB", c[k].label,
					per[z][k] * ps / 1048576.0);
		t_report("%s", line);
	}
	for (z = 0; z < NZ; z++) {
		snprintf(name, sizeof(name), "%s.pages", zone_names[z]);
		metric_set(name, per[z][MAX_CTRL]);
		for (k = 0; k < nc; k++) {
			snprintf(name, sizeof(name), "%s.dram%d", zone_names[z], k);
			metric_set(name, per[z][k]);
		}
	}
	metric_set("dmb.movable", dmb_movable);
	metric_set("dmb.other", in_dmbs - dmb_movable);
	metric_set("movable.outside", movable_outside);
	check_expectations(argc, argv);
	return t_finish();
}
