// SPDX-License-Identifier: GPL-2.0
/*
 * bench - the in-guest half of make bench.  Prints its figures as
 * "# bench: <what> key=value..." lines that scripts/bench.sh collects from
 * the console; the KTAP results only say that each part ran and that no
 * user data was harmed.  Parts (--part=):
 *
 * claim    On the bench board (dmb_bench module): for each region (dmb,
 *          cma; the carve-out at 0%, it never holds user pages), size
 *          (--sizes) and occupancy (--occ, % of the region's pages held by
 *          this program's anonymous pages, reached by filling and verified
 *          through pagemap before every claim), --reps claims, each timed
 *          in the kernel.  User pages are steered into the CMA region the
 *          only way CMA allows: while filling it the DMB is claimed and
 *          unmovable kernel "ballast" holds the rest of free memory, so
 *          that CMA is where free memory is; both are let go before the
 *          claim is timed, so every claim runs with the same free memory.
 *          Every filler page carries a stamp checked after each claim.
 *          The DMB is claimed twice per cell: as configured (its chunks
 *          migrated on every online CPU, "dmb") and with
 *          page_alloc.contig_threads=1 (the caller's CPU alone, "dmb1").
 * reuse    Fixed anonymous workloads of --levels % of the memory available
 *          at start: the share of each idle region holding user pages and
 *          of it free; --first names the movable block whose node comes
 *          first on the board (the one that keeps ZONE_MOVABLE's free pages).
 * balance  A --workload of anonymous memory: its share on each DRAM
 *          controller.
 * boot     Time from power-on to this program (/proc/uptime) and the zone
 *          layout, for the cost of the series when no DMB is configured.
 * tlb      Parallel migration with and without TLB shootdowns: see
 *          part_tlb().
 * compact  Compaction of fragmented memory, --reps times: --fill of
 *          anonymous memory, every other page of it freed, then
 *          /proc/sys/vm/compact_memory timed, with what it scanned, the
 *          time per scanned page and the free blocks of order 9 and up
 *          before and after (the same on boards with and without DMBs,
 *          whose ZONE_MOVABLE is not contiguous).
 * kernelmem  Unmovable kernel memory (pipe buffers) taken by a child until
 *          the OOM killer ends it: how much the kernel's zones gave, and
 *          how much of ZONE_MOVABLE was free then (the premature OOM a
 *          large movablecore= can cause).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

#define BENCH_DIR	"/sys/kernel/debug/dmb_bench/"
#define CHUNK_PAGES	1024
#define MAX_CHUNKS	4096
#define MAX_REPS	64
#define RESERVE_KB	(48 * 1024)	/* stop filling below this MemFree */
#define NONCMA_MARGIN_KB (16 * 1024)	/* ... or this much above the high
					 * watermarks outside CMA */
#define STALL_CHUNKS	4		/* region full: chunks that missed it */

enum { R_DMB, R_CMA, R_CARVEOUT, R_CMADMB, NR_REGIONS };
static const char *const rname[NR_REGIONS] = {
	"dmb", "cma", "carveout", "cmadmb"
};

static struct {
	uint64_t base, size;	/* bytes */
} reg[NR_REGIONS];

/* dmb_alloc's CPUs per claim: 0 every online CPU, 1 the caller alone */
#define CLAIM_CPUS "/sys/module/page_alloc/parameters/contig_threads"

static char *chunks[MAX_CHUNKS];
static int nchunks;
static long lost;		/* filler pages whose stamp changed */
static int pagemap_fd = -1;

/* ---- the bench module's debugfs ---------------------------------------- */

static int bench_write(const char *file, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int bench_write(const char *file, const char *fmt, ...)
{
	char path[128], buf[128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	snprintf(path, sizeof(path), BENCH_DIR "%s", file);
	return file_write(path, buf);
}

static int bench_read(const char *file, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), BENCH_DIR "%s", file);
	return file_read_str(path, buf, len);
}

static int read_regions(void)
{
	char buf[512], name[16], *line, *save;
	unsigned long long base, size;
	int i, found = 0;

	if (bench_read("regions", buf, sizeof(buf)))
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (sscanf(line, "%15s %llx %llx", name, &base, &size) != 3)
			continue;
		for (i = 0; i < NR_REGIONS; i++)
			if (!strcmp(name, rname[i])) {
				reg[i].base = base;
				reg[i].size = size;
				found++;
			}
	}
	return found == NR_REGIONS ? 0 : -1;
}

/*
 * Sum over /proc/zoneinfo of @field ("high", "low", "nr_free_pages"...) in kB, of
 * the zone named @zone, or (zone NULL) of every zone but Movable: those
 * the kernel itself allocates from.
 */
static long zone_field_kb(const char *zone, const char *field)
{
	char line[256], name[32] = "", key[32];
	long pages, sum = 0;
	FILE *f = fopen("/proc/zoneinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %*d, zone %31s", name) == 1)
			continue;
		if (sscanf(line, " %31s %ld", key, &pages) != 2 || strcmp(key, field))
			continue;
		if (zone ? !strcmp(name, zone) : !!strcmp(name, "Movable"))
			sum += pages;
	}
	fclose(f);
	return sum * (page_size() / 1024);
}

/* ---- filler pages ------------------------------------------------------- */

static uint64_t stamp(const char *p)
{
	return (uintptr_t)p ^ 0x5deece66d1234567ULL;
}

static int region_of_pfn(uint64_t pfn)
{
	uint64_t pa = pfn * page_size();
	int i;

	for (i = 0; i < NR_REGIONS; i++)
		if (pa >= reg[i].base && pa < reg[i].base + reg[i].size)
			return i;
	return -1;
}

/* One more chunk of touched, stamped anonymous pages; 0 or -1. */
static int chunk_add(void)
{
	long ps = page_size();
	char *p;
	int i;

	if (nchunks == MAX_CHUNKS)
		return -1;
	p = mmap(NULL, CHUNK_PAGES * ps, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -1;
	/* base pages: a THP would move as one and blur the occupancy */
	madvise(p, CHUNK_PAGES * ps, MADV_NOHUGEPAGE);
	for (i = 0; i < CHUNK_PAGES; i++)
		*(uint64_t *)(p + i * ps) = stamp(p + i * ps);
	chunks[nchunks++] = p;
	return 0;
}

static void chunks_free_all(void)
{
	while (nchunks)
		munmap(chunks[--nchunks], CHUNK_PAGES * page_size());
}

/* The pagemap entries of chunk @c, in a buffer the next call reuses. */
static const uint64_t *chunk_pagemap(int c)
{
	static uint64_t ent[CHUNK_PAGES];
	long ps = page_size();

	if (pread(pagemap_fd, ent, sizeof(ent),
		  (uintptr_t)chunks[c] / ps * sizeof(ent[0])) != sizeof(ent))
		t_bail("reading pagemap: %s", strerror(errno));
	return ent;
}

#define PM_PRESENT(e)	((e) >> 63)
#define PM_PFN(e)	((e) & ((1ULL << 55) - 1))

/* Add chunk @c's present pages to @per_region (NR_REGIONS: elsewhere). */
static void chunk_count(int c, long *per_region)
{
	const uint64_t *ent = chunk_pagemap(c);
	int i, where;

	for (i = 0; i < CHUNK_PAGES; i++) {
		if (!PM_PRESENT(ent[i]))
			continue;
		where = region_of_pfn(PM_PFN(ent[i]));
		per_region[where < 0 ? NR_REGIONS : where]++;
	}
}

/*
 * Which pages of a region the filler keeps at occupancy @occ percent: a
 * hash of the PFN, so that every part of the region, and so the run a
 * claim takes, is filled to the same share.
 */
static int keep_pfn(uint64_t pfn, int occ)
{
	return (int)(((pfn * 0x9e3779b97f4a7c15ULL) >> 40) % 100) < occ;
}

/*
 * Walk every filler page through pagemap: check its stamp, keep it if it
 * is in region @r and chosen by keep_pfn(@occ), free it otherwise.  The
 * PFNs kept go to @pfns (may be NULL).  Returns how many pages are kept.
 */
static long chunks_scan(int r, int occ, uint64_t *pfns)
{
	long ps = page_size(), kept = 0;
	int c, i, out = 0;

	for (c = 0; c < nchunks; c++) {
		const uint64_t *ent = chunk_pagemap(c);
		char *p = chunks[c];
		int run = -1, present = 0;

		for (i = 0; i <= CHUNK_PAGES; i++) {
			int drop = 0;

			if (i < CHUNK_PAGES && PM_PRESENT(ent[i])) {
				uint64_t pfn = PM_PFN(ent[i]);

				if (*(uint64_t *)(p + i * ps) != stamp(p + i * ps))
					lost++;
				if (region_of_pfn(pfn) == r && keep_pfn(pfn, occ)) {
					if (pfns)
						pfns[kept] = pfn;
					kept++;
					present++;
				} else {
					drop = 1;
				}
			}
			/* free runs of dropped pages with one madvise each */
			if (drop && run < 0)
				run = i;
			if (!drop && run >= 0) {
				madvise(p + run * ps, (i - run) * ps, MADV_DONTNEED);
				run = -1;
			}
		}
		if (!present) {
			munmap(p, CHUNK_PAGES * ps);
			continue;
		}
		chunks[out++] = p;
	}
	nchunks = out;
	return kept;
}

/* Count present filler pages by region without changing anything. */
static void chunks_count(long *per_region)
{
	int c;

	memset(per_region, 0, sizeof(long) * (NR_REGIONS + 1));
	for (c = 0; c < nchunks; c++)
		chunk_count(c, per_region);
}

/*
 * Fill region @r to @occ percent: take every page of it user pages can
 * get, then keep those keep_pfn() chooses.  For CMA the DMB is claimed and
 * the ballast takes free memory outside CMA while filling: CMA only hands
 * pages to user space while more of it is free than of the rest.  Returns
 * the pages of @r held; their PFNs are in @pfns.
 */
static long fill(int r, int occ, uint64_t *pfns)
{
	int steered = 0, stalled = 0, ballast = -1;
	long have, noncma_reserve = zone_field_kb(NULL, "high") + NONCMA_MARGIN_KB;

	if (!occ)
		return chunks_scan(r, 0, pfns);
	have = chunks_scan(r, occ, NULL);
	if (r == R_CMA) {
		/* the module keeps what the kernel needs: ask for everything */
		char buf[32] = "?";
		int ret, n;

		ret = bench_write("claim", "dmb %llu", (unsigned long long)reg[R_DMB].size);
		steered = !ret;
		ballast = open(BENCH_DIR "ballast", O_RDWR);
		if (ballast >= 0) {
			dprintf(ballast, "%lld", (long long)meminfo_kb("MemTotal") / 1024);
			n = pread(ballast, buf, sizeof(buf) - 1, 0);
			buf[n > 0 ? n - 1 : 0] = '\0';
		}
		t_diag("steer: dmb claim %d, ballast %s MiB, MemFree %lld kB, CmaFree %lld kB",
		       ret, buf, (long long)meminfo_kb("MemFree"),
		       (long long)meminfo_kb("CmaFree"));
	}
	/*
	 * Until the region is full: a full ZONE_MOVABLE keeps its watermark
	 * free (~0.6% here), a CMA region the share the heuristic above
	 * leaves; and never below RESERVE_KB free, nor outside CMA.
	 */
	while (stalled < STALL_CHUNKS && have < (long)(reg[r].size / page_size()) &&
	       meminfo_kb("MemFree") > RESERVE_KB &&
	       meminfo_kb("MemFree") - meminfo_kb("CmaFree") > noncma_reserve) {
		long per[NR_REGIONS + 1] = { 0 }, in;

		if (chunk_add())
			break;
		chunk_count(nchunks - 1, per);
		in = per[r];
		have += in;
		/*
		 * ZONE_MOVABLE is always tried first: chunks that miss the
		 * DMB mean it is full.  CMA is used or not as its free share
		 * swings: only memory says when to stop.
		 */
		/*
		 * Chunks that land in the other block of ZONE_MOVABLE (the
		 * DMB and the DMB holding the nested pool) are no stall:
		 * that block fills first, then this one.
		 */
		if (r == R_DMB || r == R_CMADMB) {
			long other = per[r == R_DMB ? R_CMADMB : R_DMB];

			stalled = in ? 0 : other ? stalled : stalled + 1;
		}
	}
	if (r == R_CMA) {
		if (ballast >= 0)
			close(ballast);
		if (steered)
			bench_write("release", "dmb");
	}
	return chunks_scan(r, occ, pfns);
}

/* ---- statistics --------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n sorted values. */
static uint64_t pct(const uint64_t *v, int n, int p)
{
	int rank = (p * n + 99) / 100;

	if (!n)
		return 0;
	return v[rank < 1 ? 0 : rank - 1];
}

static void stats(const char *what, uint64_t *v, int n, char *out, size_t len)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	snprintf(out, len, "%s_p50_us=%llu %s_p99_us=%llu %s_max_us=%llu",
		 what, (unsigned long long)pct(v, n, 50) / 1000,
		 what, (unsigned long long)pct(v, n, 99) / 1000,
		 what, (unsigned long long)(n ? v[n - 1] : 0) / 1000);
}

/* ---- parts -------------------------------------------------------------- */

static int parse_list(const char *s, int64_t *out, int max)
{
	char buf[256], *tok, *save;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save)) {
		out[n] = parse_size(tok);
		if (out[n] < 0)
			return -1;
		n++;
	}
	return n;
}

static void claim_cell(int r, uint64_t size, int occ, int reps, uint64_t *pfns,
		       int one_cpu)
{
	const char *label = one_cpu ? "dmb1" : rname[r];
	uint64_t claim[MAX_REPS], total[MAX_REPS], zero[MAX_REPS];
	long region_pages = reg[r].size / page_size();
	double occ_sum = 0, range_sum = 0, migrated_sum = 0;
	int i, ok = 0, fail = 0, outside = 0, last_err = 0;
	char s1[160], s2[160], s3[160];

	for (i = 0; i < reps; i++) {
		long have = 0, migrated = 0, j;
		unsigned long long pfn, pages, ns, zns;
		char buf[128], name[16];
		int ret;

		if (r != R_CARVEOUT)
			have = fill(r, occ, pfns);
		if (one_cpu && file_write(CLAIM_CPUS, "1"))
			t_bail("cannot write 1 to " CLAIM_CPUS);
		ret = bench_write("claim", "%s %llu", rname[r], (unsigned long long)size);
		if (one_cpu && file_write(CLAIM_CPUS, "0"))
			t_bail("cannot write 0 to " CLAIM_CPUS);
		if (ret) {
			bench_read("claim", buf, sizeof(buf));
			sscanf(buf, "error %*s %d", &last_err);
			fail++;
			continue;
		}
		if (bench_read("claim", buf, sizeof(buf)) ||
		    sscanf(buf, "ok %15s %llx %llu %llu %llu", name, &pfn, &pages, &ns, &zns) != 5)
			t_bail("unexpected claim result: %s", buf);
		if (pfn * page_size() < reg[r].base ||
		    (pfn + pages) * page_size() > reg[r].base + reg[r].size)
			outside++;
		for (j = 0; j < have; j++)
			if (pfns[j] >= pfn && pfns[j] < pfn + pages)
				migrated++;
		if (bench_write("release", "%s", rname[r]))
			t_bail("release %s failed", rname[r]);
		t_diag("rep region=%s size_mb=%llu occ_target=%d occ=%.1f migrated=%ld claim_us=%llu zero_us=%llu",
		       label, (unsigned long long)size >> 20, occ,
		       100.0 * have / region_pages, migrated, ns / 1000, zns / 1000);
		/*
		 * Every region's claim zeroes (dmb_alloc() and the DMA API
		 * do, the carve-out claim zeroes itself): ns is the whole
		 * claim, zns the zeroing timed apart, ns - zns the rest.
		 */
		claim[ok] = ns > zns ? ns - zns : 0;
		zero[ok] = zns;
		total[ok] = ns;
		occ_sum += 100.0 * have / region_pages;
		range_sum += 100.0 * migrated / pages;
		migrated_sum += (double)migrated * page_size();
		ok++;
	}
	stats("claim", claim, ok, s1, sizeof(s1));
	stats("total", total, ok, s2, sizeof(s2));
	stats("zero", zero, ok, s3, sizeof(s3));
	t_info("claim region=%s size_mb=%llu occ_target=%d occ=%.1f range_occ=%.1f migrated_mb=%.1f n=%d failed=%d errno=%d %s %s %s",
	       label, (unsigned long long)size >> 20, occ,
	       ok ? occ_sum / ok : 0, ok ? range_sum / ok : 0,
	       ok ? migrated_sum / ok / (1 << 20) : 0, ok, fail, -last_err,
	       s1, s2, s3);
	t_result(!outside, "%s %lluM at %d%%: every claimed run inside the region",
		 label, (unsigned long long)size >> 20, occ);
	if (r == R_DMB)
		t_result(fail == 0, "%s %lluM at %d%%: %d of %d claims succeeded (last error %d)",
			 label, (unsigned long long)size >> 20, occ, ok, reps, last_err);
}

#define TRACING "/sys/kernel/tracing/"

static const char *const trace_events[] = {
	"dmb_alloc/dmb_alloc_start", "dmb_alloc/dmb_alloc_finish",
	"cma/cma_alloc_start", "cma/cma_alloc_finish",
	"kmem/mm_alloc_contig_migrate_range_info",
};

static void trace_enable(const char *on)
{
	char path[160];
	unsigned int i;

	for (i = 0; i < sizeof(trace_events) / sizeof(trace_events[0]); i++) {
		snprintf(path, sizeof(path), TRACING "events/%s/enable", trace_events[i]);
		if (file_write(path, on))
			t_diag("cannot switch trace event %s", trace_events[i]);
	}
}

/* Timestamp (s) of the trace line holding ": <event>:", or -1. */
static double trace_ts(const char *line, const char *event)
{
	char key[64];
	const char *e, *p;

	snprintf(key, sizeof(key), ": %s:", event);
	e = strstr(line, key);
	if (!e)
		return -1;
	for (p = e; p > line && p[-1] != ' '; p--)
		;
	return atof(p);
}

/*
 * Where a claim's time goes: one claim of @size from region @r, full,
 * with the allocator's trace events on.  From the claim's start to the
 * end of alloc_contig_range()'s migration (isolation, LRU drain, the
 * migration itself), from there to the claim's end (taking the freed
 * range; for the DMB that includes dmb_alloc()'s zeroing), and what the
 * module measured around it (for CMA the DMA API's zeroing after
 * cma_alloc()); zero_ms is the zeroing timed apart.  A claim migrated
 * in chunks on several CPUs adds their count and the CPUs that ran them
 * (a mm_alloc_contig_migrate_range_info event per chunk).
 */
static void trace_claim(int r, uint64_t size, uint64_t *pfns, double copy_mb_s)
{
	static char tr[1 << 16];
	const char *start_ev = r == R_DMB ? "dmb_alloc_start" : "cma_alloc_start";
	const char *finish_ev = r == R_DMB ? "dmb_alloc_finish" : "cma_alloc_finish";
	double t0 = -1, tmig = -1, tfin = -1, ts;
	unsigned long long pfn, pages, ns, zns, migrated = 0, cpus = 0;
	int chunks = 0;
	char buf[128], name[16], *line, *save, *m;
	long have = fill(r, 100, pfns);
	int ret;

	file_write(TRACING "trace", "");
	trace_enable("1");
	ret = bench_write("claim", "%s %llu", rname[r], (unsigned long long)size);
	trace_enable("0");
	if (ret) {
		t_info("trace region=%s size_mb=%llu error=%d", rname[r],
		       (unsigned long long)size >> 20, ret);
		return;
	}
	if (bench_read("claim", buf, sizeof(buf)) ||
	    sscanf(buf, "ok %15s %llx %llu %llu %llu", name, &pfn, &pages, &ns, &zns) != 5)
		t_bail("unexpected claim result: %s", buf);
	bench_write("release", "%s", rname[r]);
	if (file_read_str(TRACING "trace", tr, sizeof(tr)))
		tr[0] = '\0';
	for (line = strtok_r(tr, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if ((ts = trace_ts(line, start_ev)) >= 0 && t0 < 0)
			t0 = ts;
		if ((ts = trace_ts(line, finish_ev)) >= 0)
			tfin = ts;
		if ((ts = trace_ts(line, "mm_alloc_contig_migrate_range_info")) >= 0) {
			/* the CPU that ran the chunk: "[001]" */
			char *c = strchr(line, '[');

			chunks++;
			if (c && atoi(c + 1) >= 0 && atoi(c + 1) < 64)
				cpus |= 1ULL << atoi(c + 1);
			if (ts > tmig)
				tmig = ts;
			/*
			 * 6.12 passes this event's arguments in another
			 * order than its prototype: the count of migrated
			 * pages lands in the field printed as nr_reclaimed.
			 */
			m = strstr(line, "nr_reclaimed=");
			if (m)
				migrated += strtoull(m + 13, NULL, 10);
		}
	}
	t_info("trace region=%s size_mb=%llu occ=%.1f claim_ms=%.1f start_to_migrated_ms=%.1f migrated_to_end_ms=%.1f around_ms=%.1f zero_ms=%.1f nr_migrated=%llu floor_ms=%.1f chunks=%d chunk_cpus=%d",
	       rname[r], (unsigned long long)size >> 20,
	       100.0 * have * page_size() / reg[r].size, ns / 1e6,
	       t0 >= 0 && tmig >= 0 ? (tmig - t0) * 1e3 : -1,
	       tmig >= 0 && tfin >= 0 ? (tfin - tmig) * 1e3 : -1,
	       t0 >= 0 && tfin >= 0 ? ns / 1e6 - (tfin - t0) * 1e3 : -1, zns / 1e6,
	       migrated, migrated * page_size() / 1048576.0 / copy_mb_s * 1e3,
	       chunks, __builtin_popcountll(cpus));
	t_result(t0 >= 0 && tfin >= 0, "%s claim traced", rname[r]);
}

static void part_claim(int argc, char **argv)
{
	const char *sizes_s = opt_get(argc, argv, "sizes") ?: "64M,128M,256M";
	const char *occ_s = opt_get(argc, argv, "occ") ?: "0,25,50,75,100";
	int reps = atoi(opt_get(argc, argv, "reps") ?: "8");
	int64_t sizes[8], occs[8];
	int ns, no, r, s, o;
	unsigned long long cb, cns, zb, zns;
	uint64_t *pfns, most;
	char buf[128];

	ns = parse_list(sizes_s, sizes, 8);
	no = parse_list(occ_s, occs, 8);
	if (ns <= 0 || no <= 0 || reps < 1 || reps > MAX_REPS)
		t_bail("bad --sizes=%s, --occ=%s or --reps=%d (1..%d)", sizes_s, occ_s,
		       reps, MAX_REPS);
	if (load_module("dmb_bench") || read_regions())
		t_bail("no bench device: dmb_bench not loaded or regions missing");
	for (r = 0; r < NR_REGIONS; r++)
		t_info("region name=%s base=0x%llx size_mb=%llu", rname[r],
		       (unsigned long long)reg[r].base,
		       (unsigned long long)reg[r].size >> 20);

	if (bench_read("copy", buf, sizeof(buf)) ||
	    sscanf(buf, "copy %llu %llu zero %llu %llu", &cb, &cns, &zb, &zns) != 4)
		t_bail("no memory speed from " BENCH_DIR "copy");
	t_info("floor copy_mb_s=%.0f zero_mb_s=%.0f",
	       cb / 1048576.0 / (cns / 1e9), zb / 1048576.0 / (zns / 1e9));
	t_result(1, "memory speed measured");
	t_info("cpus online=%ld", sysconf(_SC_NPROCESSORS_ONLN));

	for (r = 0, most = 0; r < NR_REGIONS; r++)
		if (reg[r].size > most)
			most = reg[r].size;
	pfns = calloc(most / page_size(), sizeof(*pfns));
	if (!pfns)
		t_bail("out of memory");
	for (s = 0; s < ns; s++) {
		claim_cell(R_CARVEOUT, sizes[s], 0, reps, pfns, 0);
		for (o = 0; o < no; o++) {
			for (r = 0; r < NR_REGIONS; r++)
				if (r != R_CARVEOUT && reg[r].size)
					claim_cell(r, sizes[s], occs[o], reps, pfns, 0);
			/* the DMB again, migrating on one CPU (dmb1) */
			claim_cell(R_DMB, sizes[s], occs[o], reps, pfns, 1);
		}
	}
	for (r = 0; r < NR_REGIONS; r++)
		if (r != R_CARVEOUT && reg[r].size)
			trace_claim(r, sizes[ns - 1], pfns, cb / 1048576.0 / (cns / 1e9));
	chunks_free_all();
	t_result(lost == 0, "user data intact across all claims (%ld pages changed)", lost);
	free(pfns);
}

/*
 * Where the pages of region @r are, from /proc/kpageflags: user pages on
 * the LRU lists (anonymous or page cache, whoever owns them; returned),
 * in @buddy those free in the buddy allocator (6.12 marks every page of
 * a free block KPF_BUDDY) and in @idle those with no flag at all: in an
 * idle region, free pages on a per-CPU list.  -1 if it cannot be read.
 */
static long region_pages(int r, long *buddy, long *idle)
{
	uint64_t first = reg[r].base / page_size(), n = reg[r].size / page_size();
	static uint64_t fl[4096];
	uint64_t done, i;
	long lru = 0;
	int fd = open("/proc/kpageflags", O_RDONLY);

	*buddy = 0;
	*idle = 0;
	if (fd < 0)
		return -1;
	for (done = 0; done < n; done += 4096) {
		uint64_t want = n - done < 4096 ? n - done : 4096;

		if (pread(fd, fl, want * 8, (first + done) * 8) != (ssize_t)(want * 8)) {
			close(fd);
			return -1;
		}
		for (i = 0; i < want; i++) {
			lru += (fl[i] >> 5) & 1;	/* KPF_LRU */
			*buddy += (fl[i] >> 10) & 1;	/* KPF_BUDDY */
			*idle += !fl[i];
		}
	}
	close(fd);
	return lru;
}

static void part_reuse(int argc, char **argv)
{
	const char *levels_s = opt_get(argc, argv, "levels") ?: "60,80,95";
	/* the movable block whose node comes first (the bench board's) */
	const char *first = opt_get(argc, argv, "first") ?: "unnamed";
	int64_t levels[8];
	long avail_kb = meminfo_kb("MemAvailable"), ps_kb = page_size() / 1024;
	int n, l, r;

	n = parse_list(levels_s, levels, 8);
	if (n <= 0)
		t_bail("bad --levels=%s", levels_s);
	if (load_module("dmb_bench") || read_regions())
		t_bail("no bench device: dmb_bench not loaded or regions missing");
	for (l = 0; l < n; l++) {
		long want = avail_kb * levels[l] / 100 / ps_kb;
		long per[NR_REGIONS + 1];
		char shares[768];
		int len = 0;

		while ((long)nchunks * CHUNK_PAGES < want && !chunk_add())
			;
		chunks_count(per);
		for (r = 0; r < NR_REGIONS; r++) {
			long lru, buddy, idle;

			if (!reg[r].size)
				continue;
			lru = region_pages(r, &buddy, &idle);

			/*
			 * user pages of any owner, the workload's own, and
			 * the region's free pages: in the buddy allocator and
			 * on per-CPU lists
			 */
			len += snprintf(shares + len, sizeof(shares) - len,
					" %s_pct=%.1f %s_workload_pct=%.1f %s_buddy_kb=%ld %s_pcp_kb=%ld",
					rname[r], 100.0 * lru * page_size() / reg[r].size,
					rname[r], 100.0 * per[r] * page_size() / reg[r].size,
					rname[r], buddy * ps_kb, rname[r], idle * ps_kb);
			t_result(lru >= 0, "user pages of %s counted", rname[r]);
		}
		/*
		 * What ZONE_MOVABLE keeps: free pages (its watermarks) and
		 * the per-CPU free lists ("count:" of each pageset).
		 */
		t_info("reuse first=%s level=%d workload_mb=%ld%s movable_free_kb=%ld movable_pcp_kb=%ld movable_low_kb=%ld movable_high_kb=%ld",
		       first, (int)levels[l], (long)nchunks * CHUNK_PAGES * ps_kb / 1024, shares,
		       zone_field_kb("Movable", "nr_free_pages"), zone_field_kb("Movable", "count:"),
		       zone_field_kb("Movable", "low"), zone_field_kb("Movable", "high"));
		t_result((long)nchunks * CHUNK_PAGES >= want,
			 "workload of %d%% of available memory allocated", (int)levels[l]);
		chunks_free_all();
	}
	t_result(lost == 0, "workload pages intact");
}

#define PC_DIR "/mnt/bench-pc"
/* the same in 2 MiB page-cache folios: tmpfs with huge=always */
#define PC_HUGE_DIR "/mnt/bench-pc-huge"

/*
 * A page of pc_fill()'s file: its page index in the first 8 bytes, the
 * rest a byte of it, so that a page moved to the wrong place shows.
 */
static void pc_page(char *p, uint64_t index)
{
	memset(p, (int)(index * 7 + 1), page_size());
	memcpy(p, &index, sizeof(index));
}

/* @mb MiB of page cache in a tmpfs file in @dir, written and never mapped */
static void pc_fill(const char *dir, long mb)
{
	static char buf[1 << 20];
	long ppm = (1 << 20) / page_size();
	char path[64];
	long i, j;
	int fd;

	snprintf(path, sizeof(path), "%s/fill", dir);
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
	if (fd < 0)
		t_bail("cannot create %s: %s", path, strerror(errno));
	for (i = 0; i < mb; i++) {
		for (j = 0; j < ppm; j++)
			pc_page(buf + j * page_size(), i * ppm + j);
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			t_bail("writing %s: %s", path, strerror(errno));
	}
	close(fd);
}

/* Check what pc_fill() wrote in @dir and remove it; pages changed */
static long pc_check_free(const char *dir, long mb)
{
	static char buf[1 << 20], want[1 << 20];
	long ppm = (1 << 20) / page_size();
	char path[64];
	long i, j, bad = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/fill", dir);
	fd = open(path, O_RDONLY);
	if (fd < 0)
		t_bail("cannot open %s: %s", path, strerror(errno));
	for (i = 0; i < mb; i++) {
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			t_bail("reading %s: %s", path, strerror(errno));
		for (j = 0; j < ppm; j++) {
			pc_page(want, i * ppm + j);
			bad += !!memcmp(buf + j * page_size(), want, page_size());
		}
	}
	close(fd);
	unlink(path);
	return bad;
}

static char *thp_raw;	/* thp_fill()'s mapping, 2 MiB longer than asked */

/* @mb MiB of anonymous memory in transparent huge pages, stamped */
static char *thp_fill(long mb)
{
	size_t len = (size_t)mb << 20, hp = 2 << 20, i;
	char *raw = mmap(NULL, len + hp, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), *p;

	if (raw == MAP_FAILED)
		t_bail("cannot map %ld MiB for THPs", mb);
	thp_raw = raw;
	p = (char *)(((uintptr_t)raw + hp - 1) & ~(hp - 1));
	if (madvise(p, len, MADV_HUGEPAGE))
		t_diag("MADV_HUGEPAGE: %s", strerror(errno));
	for (i = 0; i < len; i += page_size())
		*(uint64_t *)(p + i) = stamp(p + i);
	return p;
}

/* Check thp_fill()'s stamps and unmap it; pages changed */
static long thp_check_free(char *p, long mb)
{
	size_t len = (size_t)mb << 20, hp = 2 << 20, i;
	long bad = 0;

	for (i = 0; i < len; i += page_size())
		bad += *(uint64_t *)(p + i) != stamp(p + i);
	munmap(thp_raw, len + hp);
	return bad;
}

/*
 * Parallel migration with and without TLB shootdowns: the DMB claimed on
 * every CPU and on one (page_alloc.contig_threads=1), with ZONE_MOVABLE (the blocks)
 * first filled by mapped anonymous pages ("mapped": each page moved is
 * unmapped, one TLB invalidation broadcast to every CPU) or by tmpfs page
 * cache never mapped ("unmapped": no TLB invalidation), or by anonymous
 * transparent huge pages ("thp": a 2 MiB folio moves with one unmap and
 * one invalidation), or by large page-cache folios never mapped ("pcthp":
 * tmpfs with huge=always; ext4 has no large folios in 6.12).  Time per MiB
 * migrated (pgmigrate_success counts base pages), claims alternating
 * between the modes; the share of the migrated pages that moved as
 * huge pages (thp_migration_success).
 */
static void part_tlb(int argc, char **argv)
{
	int64_t size = parse_size(opt_get(argc, argv, "size") ?: "64M");
	int reps = atoi(opt_get(argc, argv, "reps") ?: "4");
	static const char *const kinds[] = { "mapped", "unmapped", "thp", "pcthp" };
	uint64_t per[4][2][MAX_REPS];	/* kind, cpus: ns per migrated MiB */
	double mig_sum[4][2] = { { 0 } }, thp_sum[4][2] = { { 0 } };
	int n[4][2] = { { 0 } }, k, c, i;
	long fill_mb;
	char *thp = NULL;
	char buf[128], name[16];

	if (size <= 0 || reps < 1 || reps > MAX_REPS)
		t_bail("bad --size or --reps=%d (1..%d)", reps, MAX_REPS);
	if (load_module("dmb_bench") || read_regions())
		t_bail("no bench device: dmb_bench not loaded or regions missing");
	/* what ZONE_MOVABLE holds: both blocks of the bench board */
	fill_mb = (reg[R_DMB].size + reg[R_CMADMB].size) >> 20;
	mkdir(PC_DIR, 0700);
	if (mount("tmpfs", PC_DIR, "tmpfs", 0, "size=1g,huge=never"))
		t_bail("cannot mount a tmpfs on " PC_DIR ": %s", strerror(errno));
	mkdir(PC_HUGE_DIR, 0700);
	if (mount("tmpfs", PC_HUGE_DIR, "tmpfs", 0, "size=1g,huge=always"))
		t_bail("cannot mount a tmpfs on " PC_HUGE_DIR ": %s", strerror(errno));
	/*
	 * Where a fill lands is up to the page allocator: a claim that moved
	 * under a MiB gives no figure and is tried again, twice at most.
	 */
	for (i = 0; i < reps + 2; i++)
		for (k = 0; k < 4; k++)
			for (c = 0; c < 2; c++) {
				unsigned long long pfn, pages, ns, zns;
				long long m0, m1, h0, h1;
				int ret;

				if (n[k][c] >= reps)
					continue;
				if (k == 0)
					while ((long)nchunks * CHUNK_PAGES * page_size() <
					       fill_mb << 20 && !chunk_add())
						;
				else if (k == 1)
					pc_fill(PC_DIR, fill_mb);
				else if (k == 2)
					thp = thp_fill(fill_mb);
				else
					pc_fill(PC_HUGE_DIR, fill_mb);
				m0 = vmstat("pgmigrate_success");
				h0 = vmstat("thp_migration_success");
				if (c && file_write(CLAIM_CPUS, "1"))
					t_bail("cannot write 1 to " CLAIM_CPUS);
				ret = bench_write("claim", "dmb %llu", (unsigned long long)size);
				if (c)
					file_write(CLAIM_CPUS, "0");
				m1 = vmstat("pgmigrate_success");
				h1 = vmstat("thp_migration_success");
				if (k == 2) {
					lost += thp_check_free(thp, fill_mb);
					thp = NULL;
				} else if (k == 0) {
					int ch, pg;

					for (ch = 0; ch < nchunks; ch++)
						for (pg = 0; pg < CHUNK_PAGES; pg++) {
							char *a = chunks[ch] + pg * page_size();

							lost += *(uint64_t *)a != stamp(a);
						}
					chunks_free_all();
				}
				else
					lost += pc_check_free(k == 1 ? PC_DIR : PC_HUGE_DIR, fill_mb);
				if (ret || bench_read("claim", buf, sizeof(buf)) ||
				    sscanf(buf, "ok %15s %llx %llu %llu %llu", name, &pfn,
					   &pages, &ns, &zns) != 5) {
					t_diag("tlb: %s claim on %s failed: %d", kinds[k],
					       c ? "one CPU" : "every CPU", ret);
					continue;
				}
				bench_write("release", "dmb");
				if (m1 - m0 < 256) {	/* under a MiB moved: no figure */
					t_diag("tlb: %s claim on %s moved %lld pages: again",
					       kinds[k], c ? "one CPU" : "every CPU", m1 - m0);
					continue;
				}
				per[k][c][n[k][c]++] = ns * 256 / (m1 - m0);
				mig_sum[k][c] += (m1 - m0) / 256.0;
				/* huge pages moved, in base pages (512 a THP) */
				thp_sum[k][c] += 100.0 * (h1 - h0) * 512 / (m1 - m0);
			}
	umount(PC_DIR);
	umount(PC_HUGE_DIR);
	for (k = 0; k < 4; k++)
		for (c = 0; c < 2; c++) {
			qsort(per[k][c], n[k][c], sizeof(uint64_t), cmp_u64);
			t_info("tlb kind=%s cpus=%s size_mb=%lld n=%d migrated_mb=%.1f ms_per_mib_p50=%.2f thp_pct=%.0f",
			       kinds[k], c ? "one" : "every", (long long)size >> 20, n[k][c],
			       n[k][c] ? mig_sum[k][c] / n[k][c] : 0,
			       pct(per[k][c], n[k][c], 50) / 1e6,
			       n[k][c] ? thp_sum[k][c] / n[k][c] : 0);
			t_result(n[k][c] > 0, "%s pages, claims on %s CPU timed", kinds[k],
				 c ? "one" : "every");
		}
	t_result(lost == 0, "user data intact across all claims (%ld pages changed)",
		 lost);
}

static void part_balance(int argc, char **argv)
{
	int64_t size = parse_size(opt_get(argc, argv, "workload") ?: "512M");
	const char *label = opt_get(argc, argv, "label") ?: "unnamed";
	struct ctrl c[MAX_CTRL];
	long count[MAX_CTRL + 1] = { 0 }, total = 0, ps = page_size();
	int nc = read_controllers(c, MAX_CTRL), i, k;
	char buf[32] = "?", line[256];
	int len;
	FILE *f;

	if (nc < 1 || size <= 0)
		t_bail("no DRAM controllers in the device tree, or a bad --workload");
	f = fopen("/sys/module/page_alloc/parameters/shuffle", "r");
	if (f) {
		if (fscanf(f, "%31s", buf) != 1)
			strcpy(buf, "?");
		fclose(f);
	}
	while ((int64_t)nchunks * CHUNK_PAGES * ps < size && !chunk_add())
		;
	for (k = 0; k < nchunks; k++)
		for (i = 0; i < CHUNK_PAGES; i++) {
			uint64_t pfn = virt_to_pfn(chunks[k] + i * ps);
			int at = pfn ? ctrl_of(c, nc, pfn * ps) : -1;

			count[at < 0 ? nc : at]++;
			total++;
		}
	len = snprintf(line, sizeof(line), "balance label=%s shuffle=%s workload_mb=%lld",
		       label, buf, (long long)(size >> 20));
	for (i = 0; i < nc; i++)
		len += snprintf(line + len, sizeof(line) - len, " ctrl%d_pct=%.1f", i,
				100.0 * count[i] / total);
	t_info("%s", line);
	t_result(count[nc] == 0, "every workload page on a DRAM controller");
	chunks_free_all();
}

static double mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* Free blocks of order >= @order in every zone, from /proc/buddyinfo */
static long buddy_free_blocks(int order)
{
	char line[512], *p;
	long sum = 0, v;
	int o, n;
	FILE *f = fopen("/proc/buddyinfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		p = strstr(line, "zone");
		if (!p)
			continue;
		p += 4;
		while (*p == ' ')
			p++;
		while (*p && *p != ' ')	/* the zone's name */
			p++;
		for (o = 0; sscanf(p, " %ld%n", &v, &n) == 1; o++, p += n)
			if (o >= order)
				sum += v;
	}
	fclose(f);
	return sum;
}

/*
 * Compaction of fragmented memory: fill, free every other page, compact.
 * What the same run takes on a board without DMBs and on one with a DMB
 * per controller says what non-contiguous zones cost compaction.
 */
static void part_compact(int argc, char **argv)
{
	int64_t fill = parse_size(opt_get(argc, argv, "fill") ?: "1G");
	const char *label = opt_get(argc, argv, "label") ?: "unnamed";
	int reps = atoi(opt_get(argc, argv, "reps") ?: "3");
	long ps = page_size(), bad = 0, hi_before, hi_after;
	int64_t mig0, free0, iso0, mig, fre;
	double t0, ms;
	int c, i, r;

	if (fill <= 0 || reps < 1)
		t_bail("--fill=%s --reps=%d: expected a size and a count",
		       opt_get(argc, argv, "fill"), reps);
	for (r = 0; r < reps; r++) {
		while ((int64_t)nchunks * CHUNK_PAGES * ps < fill && !chunk_add())
			;
		for (c = 0; c < nchunks; c++)
			for (i = 1; i < CHUNK_PAGES; i += 2)
				madvise(chunks[c] + i * ps, ps, MADV_DONTNEED);
		hi_before = buddy_free_blocks(9);
		mig0 = vmstat("compact_migrate_scanned");
		free0 = vmstat("compact_free_scanned");
		iso0 = vmstat("compact_isolated");
		t0 = mono_ms();
		if (file_write("/proc/sys/vm/compact_memory", "1"))
			t_bail("cannot write /proc/sys/vm/compact_memory");
		ms = mono_ms() - t0;
		hi_after = buddy_free_blocks(9);
		mig = vmstat("compact_migrate_scanned") - mig0;
		fre = vmstat("compact_free_scanned") - free0;
		for (c = 0; c < nchunks; c++)
			for (i = 0; i < CHUNK_PAGES; i += 2)
				bad += *(uint64_t *)(chunks[c] + i * ps) !=
				       stamp(chunks[c] + i * ps);
		t_info("compact label=%s rep=%d fill_mb=%lld ms=%.1f migrate_scanned=%lld free_scanned=%lld isolated=%lld us_per_scanned_page=%.2f order9_free_before=%ld order9_free_after=%ld",
		       label, r, (long long)(fill >> 20), ms, (long long)mig,
		       (long long)fre,
		       (long long)(vmstat("compact_isolated") - iso0),
		       mig + fre ? ms * 1000 / (mig + fre) : 0,
		       hi_before, hi_after);
		chunks_free_all();
	}
	t_result(bad == 0, "user data intact after compaction (%ld pages bad)", bad);
}

/*
 * Unmovable kernel memory until the OOM killer: a child (oom_score_adj
 * 1000, so that it is the one killed) fills pipes of 1 MiB and never reads
 * them; pipe buffers are not movable, so they come from the zones below
 * ZONE_MOVABLE.  The child reports after each pipe, in shared memory, what
 * it holds and what ZONE_MOVABLE has free.
 */
static void part_kernelmem(int argc, char **argv)
{
	const char *label = opt_get(argc, argv, "label") ?: "unnamed";
	struct progress { long held_kb, movable_free_kb, err; } *pr;
	long kernel_kb = zone_field_kb(NULL, "managed");
	long movable_kb = zone_field_kb("Movable", "managed");
	static char buf[1 << 20];
	int status = 0;
	pid_t pid;

	pr = mmap(NULL, sizeof(*pr), PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (pr == MAP_FAILED)
		t_bail("mmap: %s", strerror(errno));
	memset(buf, 0xdb, sizeof(buf));
	pid = fork();
	if (pid < 0)
		t_bail("fork: %s", strerror(errno));
	if (!pid) {
		struct rlimit rl = { 65536, 65536 };
		int fd[2];

		if (file_write("/proc/self/oom_score_adj", "1000") ||
		    setrlimit(RLIMIT_NOFILE, &rl)) {
			pr->err = errno;
			_exit(1);
		}
		for (;;) {
			pr->movable_free_kb = movable_kb > 0 ?
				zone_field_kb("Movable", "nr_free_pages") : 0;
			if (pipe2(fd, O_NONBLOCK)) {
				pr->err = errno;
				_exit(1);
			}
			if (fcntl(fd[1], F_SETPIPE_SZ, sizeof(buf)) < 0 ||
			    write(fd[1], buf, sizeof(buf)) != sizeof(buf)) {
				pr->err = errno;
				_exit(1);
			}
			pr->held_kb += sizeof(buf) >> 10;
		}
	}
	if (waitpid(pid, &status, 0) != pid)
		t_bail("waitpid: %s", strerror(errno));
	t_info("kernelmem label=%s kernel_managed_mb=%ld movable_managed_mb=%ld held_mb=%ld movable_free_mb=%ld ended=%s errno=%ld",
	       label, kernel_kb >> 10, movable_kb > 0 ? movable_kb >> 10 : 0,
	       pr->held_kb >> 10, pr->movable_free_kb >> 10,
	       WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL ? "oom" : "error",
	       pr->err);
	t_result(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		 "the child holding pipe buffers was the one the OOM killer ended");
	munmap(pr, sizeof(*pr));
}

static void part_boot(int argc, char **argv)
{
	const char *label = opt_get(argc, argv, "label") ?: "unnamed";
	struct zone_info z[8];
	double up = 0;
	int n, i;
	FILE *f = fopen("/proc/uptime", "r");

	if (!f || fscanf(f, "%lf", &up) != 1)
		t_bail("no /proc/uptime");
	fclose(f);
	t_info("boot label=%s uptime_ms=%.0f memtotal_kb=%lld", label, up * 1000,
	       (long long)meminfo_kb("MemTotal"));
	n = read_zones(z, 8);
	for (i = 0; i < n; i++)
		t_info("zone label=%s name=%s start_pfn=0x%llx spanned=%llu present=%llu managed=%llu",
		       label, z[i].name, (unsigned long long)z[i].start_pfn,
		       (unsigned long long)z[i].spanned, (unsigned long long)z[i].present,
		       (unsigned long long)z[i].managed);
	t_result(n > 0, "zone layout read");
}

/*
 * Unbind the bench device while its "ballast" file is open and holds
 * memory, then close the file: debugfs calls ->release after the removal,
 * which must not touch the unbound device's state (KASAN on the debug
 * kernel), and the ballast is freed.  Then bind again.
 */
static void part_unbind(int argc, char **argv)
{
	char buf[32];
	int fd, n;
	int64_t free0, free1;

	if (load_module("dmb_bench"))
		t_bail("cannot load dmb_bench");
	fd = open(BENCH_DIR "ballast", O_RDWR);
	if (fd < 0)
		t_bail("cannot open the ballast: %s", strerror(errno));
	free0 = free_kb();
	metric_set("ballast_write", dprintf(fd, "64") > 0 ? 0 : -1);
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n > 0 ? n : 0] = '\0';
	metric_set("ballast_mb", atoi(buf));
	metric_set("unbind", file_write("/sys/bus/platform/drivers/dmb-bench/unbind", "bench"));
	metric_set("write_after_unbind", dprintf(fd, "32") > 0 ? 0 : -errno);
	free1 = free_kb();
	close(fd);		/* ->release after the device is gone */
	metric_set("freed_on_close_mb", (free_kb() - free1) / 1024.0);
	metric_set("held_mb", (free0 - free1) / 1024.0);
	metric_set("bind", file_write("/sys/bus/platform/drivers/dmb-bench/bind", "bench"));
	metric_set("regions_after_bind", read_regions());
	check_expectations(argc, argv);
}

int main(int argc, char **argv)
{
	const char *part = opt_get(argc, argv, "part") ?: "";

	t_init("bench");
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap_fd < 0)
		t_bail("no /proc/self/pagemap: %s", strerror(errno));
	if (!strcmp(part, "claim"))
		part_claim(argc, argv);
	else if (!strcmp(part, "reuse"))
		part_reuse(argc, argv);
	else if (!strcmp(part, "balance"))
		part_balance(argc, argv);
	else if (!strcmp(part, "boot"))
		part_boot(argc, argv);
	else if (!strcmp(part, "unbind"))
		part_unbind(argc, argv);
	else if (!strcmp(part, "tlb"))
		part_tlb(argc, argv);
	else if (!strcmp(part, "compact"))
		part_compact(argc, argv);
	else if (!strcmp(part, "kernelmem"))
		part_kernelmem(argc, argv);
	else
		t_bail("--part=%s: expected claim, reuse, balance, boot, unbind, tlb, compact or kernelmem", part);
	return t_finish();
}
