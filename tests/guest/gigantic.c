// SPDX-License-Identifier: GPL-2.0
/*
 * gigantic: allocate gigantic hugetlb pages at run time (they come from
 * alloc_contig_pages()), map and touch them, and check where they lie
 * against the Designated Movable Blocks.
 *
 * usage: gigantic [--size=32M] [--count=16] [expectations]
 * Metrics: allocated (pages the pool grew by), mapped (pages located
 * through pagemap), in_dmb (pages that touch a DMB), dmbs.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guest.h"

#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

static int write_count(const char *path, long n)
{
	char buf[32];
	int fd = open(path, O_WRONLY), len, ret;

	if (fd < 0)
		return -1;
	len = snprintf(buf, sizeof(buf), "%ld\n", n);
	ret = write(fd, buf, len) == len ? 0 : -1;
	close(fd);
	return ret;
}

static long read_count(const char *path)
{
	char buf[32] = "";
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	if (read(fd, buf, sizeof(buf) - 1) < 0)
		buf[0] = '\0';
	close(fd);
	return strtol(buf, NULL, 10);
}

int main(int argc, char **argv)
{
	const char *o_size = opt_get(argc, argv, "size");
	const char *o_count = opt_get(argc, argv, "count");
	int64_t size = o_size ? parse_size(o_size) : 32 << 20;
	long count = o_count ? strtol(o_count, NULL, 10) : 16, got, i;
	struct dmb_range d[MAX_DMBS];
	double mapped = 0, in_dmb = 0;
	char path[128];
	int nd, j, shift = 0;
	char *buf;

	t_init("gigantic");
	if (size <= 0 || count <= 0)
		t_bail("bad --size or --count");
	while ((1LL << shift) < size)
		shift++;
	nd = read_dmbs(d, MAX_DMBS);
	if (nd < 0)
		t_bail("cannot read the DMBs from memblock");
	snprintf(path, sizeof(path),
		 "/sys/kernel/mm/hugepages/hugepages-%lldkB/nr_hugepages",
		 (long long)(size >> 10));
	if (write_count(path, count))
		t_bail("cannot write %s (hugetlb size not supported?)", path);
	got = read_count(path);
	t_report("asked for %ld gigantic pages of %lld MiB, got %ld", count,
		 (long long)(size >> 20), got);

	if (got > 0) {
		buf = mmap(NULL, got * size, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			   (shift << MAP_HUGE_SHIFT), -1, 0);
		if (buf == MAP_FAILED)
			t_bail("mmap of %ld hugetlb pages failed", got);
		for (i = 0; i < got; i++) {
			uint64_t pfn, pa;

			buf[i * size] = 1;
			pfn = virt_to_pfn(buf + i * size);
			if (!pfn)
				continue;
			mapped++;
			pa = pfn * page_size();
			for (j = 0; j < nd; j++) {
				if (pa < d[j].base + d[j].size &&
				    d[j].base < pa + size) {
					in_dmb++;
					t_diag("page %ld at 0x%llx touches DMB [0x%llx, +0x%llx)",
					       i, (unsigned long long)pa,
					       (unsigned long long)d[j].base,
					       (unsigned long long)d[j].size);
				}
			}
			t_diag("page %ld at 0x%llx", i, (unsigned long long)pa);
		}
		munmap(buf, got * size);
	}
	write_count(path, 0);
	metric_set("allocated", got);
	metric_set("mapped", mapped);
	metric_set("in_dmb", in_dmb);
	metric_set("dmbs", nd);
	check_expectations(argc, argv);
	return t_finish();
}
