// SPDX-License-Identifier: GPL-2.0
/*
 * steal: a claim's evicted user pages never take pageblocks of another
 * migratetype from the kernel's zones (patch 0012).  The scene: ZONE_DMA
 * (the kernel's zone on the default board) has free pages only in
 * unmovable pageblocks (pipe buffers, unmovable, are freed after user data
 * filled the rest), PiP's block is free (ZONE_MOVABLE has room) and main's
 * block is full of user data.  A whole-block claim of main's block
 * (dmb_test, dmb_alloc()) then evicts 256 MiB of user pages: taken from
 * the free movable lists below ZONE_MOVABLE only, or from ZONE_MOVABLE,
 * never by stealing the kernel's unmovable blocks.  With --pip-full PiP's
 * block stays full too: ZONE_MOVABLE has no room, and the claim fails
 * (-ENOMEM) rather than take the kernel's free unmovable pageblocks.
 * With --pip-cache=SIZE PiP's block is full of clean page cache instead
 * (a file of SIZE written to the ext4 disk, "disk:", and synced; PiP's
 * block is held while the user data is written, so that the data fills
 * main's block and the cache PiP's): the claim reclaims it, and succeeds,
 * again without taking the kernel's unmovable pageblocks.
 *
 * usage: steal [--pipes=320M] [--pip-full] [--pip-cache=SIZE] [expectations]
 * Metrics: free_mib (MemFree before the claim, most of it the pipes'
 * pages in ZONE_DMA's unmovable pageblocks),
 * user_in_main (user pages in main's block before the claim), pip_free
 * (pages of PiP's block given back), claim (0 or -errno), extfrag_movable
 * (mm_page_alloc_extfrag events of movable allocations, each a fallback
 * into another migratetype's free pages, during the claim),
 * unmovable_blocks_before, unmovable_blocks_after (ZONE_DMA's unmovable
 * pageblocks, /proc/pagetypeinfo), unmovable_lost, corrupt, migrated
 * (pgmigrate_success during the claim), reclaimed (pgsteal_direct and
 * pgsteal_kswapd during the claim: kswapd, woken by the claim, may do it),
 * cache_in_pip (pages of the file in PiP's block).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "guest.h"

#define DBG	"/sys/kernel/debug/"
#define CLAIM	DBG "dmb_test/dmb@60000000/"
#define PIP	DBG "dmb_test/dmb@a0000000/"
#define CACHE_FILE	"/mnt/steal-cache"
#define TRACE	"/sys/kernel/tracing/"
#define MAIN_PFN	0x60000ULL
#define PIP_PFN		0xa0000ULL
#define BLOCK_PAGES	0x10000ULL
#define PIPE_BYTES	(64 << 20)
#define MAX_PIPES	16
#define CHUNK		(16UL << 20)
#define MAX_CHUNKS	160

/* ZONE_DMA's pageblocks of migratetype @col (0: Unmovable), -1 */
static long dma_blocks(int col)
{
	FILE *f = fopen("/proc/pagetypeinfo", "r");
	char line[512];
	int in = 0;
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Number of blocks type", 21)) {
			in = 1;
		} else if (in && strstr(line, "zone      DMA")) {
			char *p = strstr(line, "DMA") + 3;
			int i;

			for (i = 0; i <= col; i++)
				v = strtol(p, &p, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

/*
 * PiP's block given back, then filled with the clean page cache of a file
 * of @size on the ext4 disk; reports cache_in_pip.
 */
static void fill_cache(int64_t size)
{
	static uint64_t pfns[(64 << 20) / 4096];
	size_t pages = (64 << 20) / page_size(), j;
	int64_t off, in_pip = 0;
	char *buf, *map;
	volatile char c;
	int fd;

	if (file_write(PIP "free", "all"))
		t_bail("cannot give /video-decoder-1's block back");
	if (mount("/dev/vda", "/mnt", "ext4", 0, NULL))
		t_bail("cannot mount /dev/vda (ext4): %s", strerror(errno));
	fd = open(CACHE_FILE, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	buf = malloc(1 << 20);
	if (fd < 0 || !buf)
		t_bail("cannot create %s: %s", CACHE_FILE, strerror(errno));
	memset(buf, 0xc5, 1 << 20);
	for (off = 0; off < size; off += 1 << 20)
		if (write(fd, buf, 1 << 20) != 1 << 20)
			t_bail("write %s: %s", CACHE_FILE, strerror(errno));
	if (fsync(fd))
		t_bail("fsync %s: %s", CACHE_FILE, strerror(errno));
	free(buf);
	/* where the cache is: mapped a piece at a time, through pagemap */
	for (off = 0; off < size; off += 64 << 20) {
		/* the file's last piece may be shorter */
		size_t n = size - off < 64 << 20 ? (size - off) / page_size() : pages;

		map = mmap(NULL, 64 << 20, PROT_READ, MAP_SHARED, fd, off);
		if (map == MAP_FAILED)
			t_bail("mmap %s: %s", CACHE_FILE, strerror(errno));
		for (j = 0; j < n; j++)
			c = map[j * page_size()];
		(void)c;
		if (virt_to_pfns(map, n, pfns))
			t_bail("pagemap");
		for (j = 0; j < n; j++)
			in_pip += pfns[j] >= PIP_PFN && pfns[j] < PIP_PFN + BLOCK_PAGES;
		munmap(map, 64 << 20);
	}
	close(fd);
	metric_set("cache_in_pip", in_pip);
}

static uint32_t word(size_t chunk, size_t i)
{
	return (uint32_t)(chunk * 0x9e3779b9u) ^ (uint32_t)(i * 2654435761u);
}

int main(int argc, char **argv)
{
	const char *o = opt_get(argc, argv, "pipes");
	const char *oc = opt_get(argc, argv, "pip-cache");
	int64_t cache = oc ? parse_size(oc) : 0;
	int pip_full = opt_get(argc, argv, "pip-full") || cache > 0;
	int64_t mig0, rec0;
	int64_t pipes_bytes = o ? parse_size(o) : 320 << 20;
	static uint64_t pfn[CHUNK / 4096];
	static char tr[1 << 22];
	uint32_t *chunk[MAX_CHUNKS];
	int pfd[MAX_PIPES][2], np = 0, nc = 0, i;
	size_t j, user = 0, freed = 0, bad = 0, n, pages = CHUNK / page_size();
	long before, after;
	char *buf, *l;
	int events = 0;

	t_init("steal");
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		t_diag("PR_SET_THP_DISABLE: %s", strerror(errno));
	if (load_module("dmb_test") ||
	    file_write(DBG "dmb_test/get", "handle /video-decoder-0 0"))
		t_bail("no dmb_test handle on /video-decoder-0's block");
	/* PiP's block held: the user data goes to main's and ZONE_DMA */
	if (cache > 0 &&
	    (file_write(DBG "dmb_test/get", "handle /video-decoder-1 0") ||
	     file_write(PIP "alloc", "268435456")))
		t_bail("cannot hold /video-decoder-1's block");

	/* unmovable pages: pipe buffers, freed once user data fills the rest */
	file_write("/proc/sys/fs/pipe-max-size", "67108864");
	buf = malloc(1 << 20);
	if (!buf)
		t_bail("malloc");
	memset(buf, 0x5a, 1 << 20);
	while (np < MAX_PIPES && (int64_t)np * PIPE_BYTES < pipes_bytes) {
		if (pipe2(pfd[np], O_NONBLOCK | O_CLOEXEC) ||
		    fcntl(pfd[np][1], F_SETPIPE_SZ, PIPE_BYTES) < 0)
			t_bail("pipe of %d MiB: %s", PIPE_BYTES >> 20, strerror(errno));
		for (j = 0; j < PIPE_BYTES >> 20; j++)
			if (write(pfd[np][1], buf, 1 << 20) != 1 << 20)
				break;
		np++;
	}
	/* user data until little is free: ZONE_MOVABLE first, then ZONE_DMA */
	/* with PiP's block held, the cache takes its place once given back */
	while (nc < MAX_CHUNKS && meminfo_kb("MemFree") > 128 << 10) {
		chunk[nc] = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (chunk[nc] == MAP_FAILED)
			t_bail("mmap: %s", strerror(errno));
		for (j = 0; j < CHUNK / 4; j++)
			chunk[nc][j] = word(nc, j);
		nc++;
	}
	if (cache > 0)
		fill_cache(cache);
	/* PiP's block given back: ZONE_MOVABLE has room for the evicted */
	if (pip_full)
		t_diag("PiP's block kept full: ZONE_MOVABLE has no room");
	for (i = 0; i < nc; i++) {
		if (virt_to_pfns(chunk[i], pages, pfn))
			t_bail("pagemap");
		for (j = 0; j < pages; j++) {
			if (!pip_full && pfn[j] >= PIP_PFN &&
			    pfn[j] < PIP_PFN + BLOCK_PAGES) {
				madvise((char *)chunk[i] + j * page_size(),
					page_size(), MADV_DONTNEED);
				freed++;
			}
			user += pfn[j] >= MAIN_PFN && pfn[j] < MAIN_PFN + BLOCK_PAGES;
		}
	}
	for (i = 0; i < np; i++) {
		close(pfd[i][0]);
		close(pfd[i][1]);
	}
	metric_set("pipes_mib", (double)np * PIPE_BYTES / (1 << 20));
	metric_set("user_in_main", user);
	metric_set("pip_free", freed);
	metric_set("free_mib", meminfo_kb("MemFree") >> 10);

	/* the trace first: its buffers are unmovable pages too */
	if (file_write(TRACE "buffer_size_kb", "4096") ||
	    file_write(TRACE "events/kmem/mm_page_alloc_extfrag/filter",
		       "alloc_migratetype == 1") ||
	    file_write(TRACE "trace", ""))
		t_bail("cannot set up the mm_page_alloc_extfrag trace");
	before = dma_blocks(0);
	if (before <= 0)
		t_bail("no ZONE_DMA line in /proc/pagetypeinfo");
	if (file_write(TRACE "events/kmem/mm_page_alloc_extfrag/enable", "1"))
		t_bail("cannot enable mm_page_alloc_extfrag");
	mig0 = vmstat("pgmigrate_success");
	rec0 = vmstat("pgsteal_direct") + vmstat("pgsteal_kswapd");
	metric_set("claim", file_write(CLAIM "alloc", "268435456"));
	metric_set("migrated", vmstat("pgmigrate_success") - mig0);
	metric_set("reclaimed", vmstat("pgsteal_direct") +
		   vmstat("pgsteal_kswapd") - rec0);
	file_write(TRACE "events/kmem/mm_page_alloc_extfrag/enable", "0");
	after = dma_blocks(0);
	if (file_read_str(TRACE "trace", tr, sizeof(tr)))
		tr[0] = '\0';
	for (l = tr; (l = strstr(l, "mm_page_alloc_extfrag:")); l++)
		events++;
	file_write(TRACE "events/kmem/mm_page_alloc_extfrag/filter", "0");
	file_write(CLAIM "free", "all");
	metric_set("extfrag_movable", events);
	metric_set("unmovable_blocks_before", before);
	metric_set("unmovable_blocks_after", after);
	metric_set("unmovable_lost", before - after);

	/* every word of the user data that stayed mapped is intact */
	for (i = 0; i < nc; i++) {
		if (virt_to_pfns(chunk[i], pages, pfn))
			t_bail("pagemap");
		for (n = 0; n < pages; n++) {
			if (!pfn[n])	/* given back (PiP's block) */
				continue;
			for (j = n * page_size() / 4; j < (n + 1) * page_size() / 4; j += 97)
				bad += chunk[i][j] != word(i, j);
		}
	}
	metric_set("corrupt", bad);
	t_report("a whole-block claim of a block with %zu user pages, ZONE_DMA's free pages in unmovable blocks (%lld MiB free) and PiP's block %s: %d fallbacks of movable allocations into other migratetypes, ZONE_DMA's unmovable blocks %ld -> %ld",
		 user, (long long)(meminfo_kb("MemFree") >> 10),
		 cache > 0 ? "full of clean page cache" : pip_full ? "full" : "free",
		 events, before, after);
	check_expectations(argc, argv);
	return t_finish();
}
