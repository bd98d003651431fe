// SPDX-License-Identifier: GPL-2.0
/*
 * zones: the zone layout of node 0 from /proc/zoneinfo, and how each zone's
 * span falls on the DRAM controllers.
 *
 * Metrics per zone Z (DMA, DMA32, Normal, Movable...): Z.start, Z.end (first
 * PFN past the span), Z.spanned, Z.present, Z.managed, Z.span_dram<N>
 * (pages of Z's span on controller N); present (sum over zones).
 */
#include <string.h>

#include "guest.h"

int main(int argc, char **argv)
{
	struct zone_info z[8];
	struct ctrl c[MAX_CTRL];
	uint64_t present = 0;
	int nz, nc, i, k;
	char name[64];

	t_init("zones");
	nz = read_zones(z, 8);
	if (nz <= 0)
		t_bail("cannot parse /proc/zoneinfo");
	nc = read_controllers(c, MAX_CTRL);
	if (nc < 0)
		nc = 0;

	for (i = 0; i < nz; i++) {
		uint64_t s = z[i].start_pfn, e = s + z[i].spanned;
		char line[256];
		int len;

		if (!z[i].spanned)
			s = e = 0;
		len = snprintf(line, sizeof(line),
			       "%-8s pfn [0x%06llx, 0x%06llx) present %7llu managed %7llu",
			       z[i].name, (unsigned long long)s,
			       (unsigned long long)e,
			       (unsigned long long)z[i].present,
			       (unsigned long long)z[i].managed);
#define M(field, v) do { \
		snprintf(name, sizeof(name), "%s." field, z[i].name); \
		metric_set(name, v); } while (0)
		M("start", s);
		M("end", e);
		M("spanned", z[i].spanned);
		M("present", z[i].present);
		M("managed", z[i].managed);
		for (k = 0; k < nc; k++) {
			uint64_t cs = c[k].base / page_size();
			uint64_t ce = cs + c[k].size / page_size();
			uint64_t lo = s > cs ? s : cs, hi = e < ce ? e : ce;
			uint64_t pages = hi > lo ? hi - lo : 0;

			snprintf(name, sizeof(name), "%s.span_dram%d",
				 z[i].name, k);
			metric_set(name, pages);
			len += snprintf(line + len, sizeof(line) - len,
					" %s %4llu MiB", c[k].label,
					(unsigned long long)(pages * page_size() >> 20));
		}
		t_report("%s", line);
		present += z[i].present;
	}
	metric_set("present", present);
	check_expectations(argc, argv);
	return t_finish();
}
