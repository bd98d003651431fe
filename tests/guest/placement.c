// SPDX-License-Identifier: GPL-2.0
/*
 * placement: where the pages of a user workload land.  Allocates --size
 * (default 256M) of anonymous memory, writes every page, and counts the
 * backing PFNs per DRAM controller through /proc/self/pagemap.
 *
 * Metrics: pages, unmapped (pages pagemap did not resolve), dram<N>.pages,
 * dram<N>.pct (share of the workload on controller N, in percent).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "guest.h"

int main(int argc, char **argv)
{
	const char *opt = opt_get(argc, argv, "size");
	int64_t size = opt ? parse_size(opt) : 256 << 20;
	uint64_t pages, unmapped = 0, on[MAX_CTRL] = { 0 }, i, *pfns;
	struct ctrl c[MAX_CTRL];
	char name[64];
	long ps = page_size();
	int nc, k;
	char *buf;

	t_init("placement");
	if (size <= 0)
		t_bail("bad --size=%s", opt);
	nc = read_controllers(c, MAX_CTRL);
	if (nc <= 0)
		t_bail("no /dram-controllers in the device tree");

	pages = size / ps;
	buf = mmap(NULL, pages * ps, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		t_bail("mmap of %lld bytes failed", (long long)size);
	for (i = 0; i < pages; i++)
		memset(buf + i * ps, (int)(i & 0xff) | 1, 64);

	pfns = calloc(pages, sizeof(*pfns));
	if (!pfns || virt_to_pfns(buf, pages, pfns))
		t_bail("cannot read /proc/self/pagemap");
	for (i = 0; i < pages; i++) {
		uint64_t pfn = pfns[i];

		k = pfn ? ctrl_of(c, nc, pfn * ps) : -1;
		if (k < 0)
			unmapped++;
		else
			on[k]++;
	}
	metric_set("pages", pages);
	metric_set("unmapped", unmapped);
	for (k = 0; k < nc; k++) {
		double pct = 100.0 * on[k] / pages;

		t_report("%s holds %llu of %llu pages (%.1f%%)", c[k].label,
		       (unsigned long long)on[k], (unsigned long long)pages, pct);
		snprintf(name, sizeof(name), "dram%d.pages", k);
		metric_set(name, on[k]);
		snprintf(name, sizeof(name), "dram%d.pct", k);
		metric_set(name, pct);
	}
	check_expectations(argc, argv);
	return t_finish();
}
