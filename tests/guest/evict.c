// SPDX-License-Identifier: GPL-2.0
/*
 * evict: how often the pages of the decoders' blocks move when both
 * decoders start, one after the other (issue 13, "migrate each page
 * once").  Anonymous user data first fills the two blocks (ZONE_MOVABLE
 * is filled first: the blocks are all of it on the default board); then
 * 2 MiB pieces of it, spread evenly, are given back until --fill percent
 * is left, so that both blocks are that full whatever order the allocator
 * filled them in.  Whole 2 MiB pieces, aligned: a transparent huge page
 * is kept or freed whole (migration moves and counts a huge page whole,
 * even the part of it that is not mapped).  Then main starts, claiming its whole block,
 * then PiP does.  A page evicted from main's block into PiP's free space
 * is moved a second time when PiP starts.
 *
 * usage: evict [--fill=50] [expectations]
 * Metrics: user_pages (user pages in the two blocks before the starts),
 * migrated (pgmigrate_success during the two starts), migrations_per_page
 * (migrated / user_pages; 1.00 when each page moves once), and from
 * pagemap snapshots before, between and after the starts: chased (pages
 * main's start put in PiP's block), moved_twice and moved_twice_pct
 * (pages whose frame changed at both starts); start_main, start_pip (0
 * or -errno), left_in_blocks (user pages still in the blocks while both
 * sessions run), corrupt (damaged pages of the kept data).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/dmb_vdec.h>

#include "guest.h"

static int64_t vmstat(const char *field)
{
	FILE *f = fopen("/proc/vmstat", "r");
	size_t n = strlen(field);
	char line[128];
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ' ') {
			v = strtoll(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

struct dec {
	const char *label;
	int fd;
	struct dmb_vdec_info info;
};

static void dec_open(struct dec *d)
{
	char path[64];

	snprintf(path, sizeof(path), "/dev/dmb-vdec-%s", d->label);
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	memset(&d->info, 0, sizeof(d->info));
	if (d->fd < 0 || ioctl(d->fd, DMB_VDEC_INFO, &d->info) ||
	    !(d->info.flags & DMB_VDEC_INFO_BASE))
		t_bail("cannot query %s (root needed for the block's base)", path);
}

/* The whole block, in four buffers, as a player asks for its frames */
static int dec_start(struct dec *d)
{
	uint64_t sizes[4];
	struct dmb_vdec_start st = { .count = 4, .sizes_ptr = (uintptr_t)sizes };
	int i;

	for (i = 0; i < 4; i++)
		sizes[i] = d->info.dmb_size / 4;
	return ioctl(d->fd, DMB_VDEC_START, &st) ? -errno : 0;
}

#define PIECE (2UL << 20)

static uint32_t word(size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ 0xe51c7u;
}

/* Of every 100 pieces, @fill are kept, spread evenly */
static int in(uint64_t pfn, const struct dec *d)
{
	uint64_t pa = pfn * page_size();

	return pfn && pa >= d->info.dmb_base && pa - d->info.dmb_base < d->info.dmb_size;
}

static int kept(size_t piece, int fill)
{
	return (piece + 1) * fill / 100 > piece * fill / 100;
}

int main(int argc, char **argv)
{
	const char *o = opt_get(argc, argv, "fill");
	int fill = o ? atoi(o) : 50;
	struct dec dec[2] = { { .label = "main" }, { .label = "pip" } };
	size_t user = 0, left = 0, len, i, n, bad = 0, last = (size_t)-1;
	size_t chased = 0, twice = 0;
	uint64_t *pfn[3];
	int64_t mig0, mig1;
	uint32_t *p;
	void *map;
	int k, ret;

	t_init("evict");
	if (fill < 1 || fill > 100)
		t_bail("--fill=%d: want 1 to 100 (percent of the two blocks)", fill);
	if (load_module("dmb_vdec"))
		t_bail("cannot load dmb_vdec");
	for (k = 0; k < 2; k++)
		dec_open(&dec[k]);

	/* both blocks full, and a little more */
	len = (dec[0].info.dmb_size + dec[1].info.dmb_size) / 100 * 105;
	len = len / PIECE * PIECE;
	map = mmap(NULL, len + PIECE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (map == MAP_FAILED)
		t_bail("cannot map %zu bytes of user data", len);
	p = (uint32_t *)(((uintptr_t)map + PIECE - 1) & ~(PIECE - 1));
	for (i = 0; i < len / 4; i += 64)
		p[i] = word(i);
	for (i = 0; i < len / PIECE; i++)
		if (!kept(i, fill) &&
		    madvise((char *)p + i * PIECE, PIECE, MADV_DONTNEED))
			t_bail("madvise(MADV_DONTNEED): %s", strerror(errno));
	n = len / page_size();
	for (k = 0; k < 3; k++)
		if (!(pfn[k] = calloc(n, sizeof(*pfn[k]))))
			t_bail("no memory for %zu page frame numbers", n);
	if (virt_to_pfns(p, n, pfn[0]))
		t_bail("cannot read pagemap");

	mig0 = vmstat("pgmigrate_success");
	for (k = 0; k < 2; k++) {
		ret = dec_start(&dec[k]);
		metric_set(k ? "start_pip" : "start_main", ret);
		if (virt_to_pfns(p, n, pfn[k + 1]))
			t_bail("cannot read pagemap");
	}
	mig1 = vmstat("pgmigrate_success");
	for (i = 0; i < n; i++) {
		user += in(pfn[0][i], &dec[0]) || in(pfn[0][i], &dec[1]);
		left += in(pfn[2][i], &dec[0]) || in(pfn[2][i], &dec[1]);
		chased += in(pfn[1][i], &dec[1]) && !in(pfn[0][i], &dec[1]);
		twice += pfn[0][i] && pfn[1][i] && pfn[2][i] &&
			 pfn[0][i] != pfn[1][i] && pfn[1][i] != pfn[2][i];
	}
	metric_set("chased", chased);
	metric_set("moved_twice", twice);
	metric_set("moved_twice_pct", user ? 100.0 * twice / user : -1);

	metric_set("user_pages", user);
	metric_set("migrated", mig1 - mig0);
	metric_set("migrations_per_page", user ? (double)(mig1 - mig0) / user : -1);
	metric_set("left_in_blocks", left);
	t_report("evict: blocks %d%% full: %zu user pages in them, %lld migrations while main then PiP started: %.2f per page; %zu moved twice, %zu chased into PiP's block",
		 fill, user, (long long)(mig1 - mig0),
		 user ? (double)(mig1 - mig0) / user : -1.0, twice, chased);
	for (k = 0; k < 2; k++) {
		ioctl(dec[k].fd, DMB_VDEC_STOP);
		close(dec[k].fd);
	}
	for (i = 0; i < len / 4; i += 64)
		if (kept(i * 4 / PIECE, fill) && p[i] != word(i) &&
		    i * 4 / page_size() != last) {
			last = i * 4 / page_size();
			bad++;
		}
	metric_set("corrupt", bad);
	munmap(map, len + PIECE);
	check_expectations(argc, argv);
	return t_finish();
}
