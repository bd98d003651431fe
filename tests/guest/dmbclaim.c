// SPDX-License-Identifier: GPL-2.0
/*
 * dmbclaim: claims and releases through the dmb_alloc module, as a decoder
 * driver makes them, on the blocks of the default board's decoders: the
 * dmb_test module takes the handles and claims through them.
 *
 * usage: dmbclaim --test=NAME [--fill=SIZE] [--fill-this-block=1] [expectations]
 * --fill-this-block=1: while loaded/signal fill memory, the other decoder's
 * block is claimed whole, so that the user pages land in this one first
 * (a small fill then still puts thousands of pages in the block).
 *   idle        claim 64M of an idle block and release it
 *   whole       claim the whole block
 *   fragment    64 runs of 4M, every other released: 8M does not fit
 *               (-ENOSPC), after releasing the rest the whole block does
 *   misuse      bad sizes and alignments, unclaimed, double, partial and
 *               foreign releases: each -EINVAL, nothing changes
 *   loaded      user pages (checksummed) fill the blocks; claim a whole
 *               block; every byte still reads back, none is left inside
 *   enomem      as loaded, but memory outside the block is nearly full:
 *               -ENOMEM, nothing claimed, every byte intact
 *   signal      a claim killed by SIGKILL while it migrates: nothing
 *               claimed, every byte intact
 *   concurrent  both decoders claim their whole block at the same time
 *   trace       the dmb_alloc tracepoints fire for a claim and a release,
 *               with key=value fields, errno and duration
 *   orphan      the last handle goes with a run claimed: the run stays
 *               claimed and dmb_alloc cannot be unloaded until it is
 *               released (by a new handle on the block), then it can
 *   pipepin     an unprivileged process holds a page of the block with
 *               vmsplice() into a pipe it never reads: half the block is
 *               claimed around it, the whole block fails with -EBUSY in
 *               bounded time, CMA's trace event and message name the pfn,
 *               and another process keeps running meanwhile; each whole
 *               attempt migrated in chunks on several CPUs (chunks, the
 *               mm_alloc_contig_migrate_range_info events) and leaked
 *               none (half_again: the half is claimed again)
 *   lastput     a prepared whole-block claim (dmb_test "prep"), its run
 *               taken in CMA's bitmap and migrating user pages, when the
 *               last handle goes: its commit fails with -ENODEV, nothing
 *               stays claimed, no user data is lost, and dmb_alloc
 *               unloads (tries: how many preparations it took for one to
 *               be still migrating when the handle went)
 *   cancel      a prepared whole-block claim cancelled while it migrates
 *               user pages: a whole-block claim made meanwhile finds no
 *               free run (retry_enospc), waits for the cancelled claim to
 *               give its run back and succeeds (retry_ret; tries: how
 *               many preparations it took for one to be still running at
 *               the cancel); then eight claims of 16 MiB prepared and
 *               cancelled at once: most_running, the most cancelled
 *               claims seen still running after a cancel returned (the
 *               cancel waits above two); all end (running_after,
 *               used_after)
 *   dyndev      a device registered at run time (dmb_test "newdev") takes
 *               the block and claims, is unregistered, and drops its last
 *               handle: the run stays claimed and the warning names the
 *               gone device (the core's owner and the area's device
 *               hold it: under KASAN no use-after-free); while its handle
 *               lives a second device is refused the block (-EBUSY);
 *               afterwards a second device takes the block, finds
 *               the run, frees it, and the area goes with the first
 *               device's last reference; both modules then unload
 *   driver_run  dmb_test's "free" refuses a run that a driver (the V4L2
 *               sample decoder, in a session that claims with dmb_alloc())
 *               claimed and userspace maps, also as "any" while the
 *               decoder is bound: -EPERM, and the decoded frame stays
 *               intact.  The session prepares a run of 4 MiB, its OUTPUT
 *               and CAPTURE buffers (640x480) are carved from it, and it
 *               decodes one frame
 *   sessionrun  the V4L2 sample decoder, in a session that claims with
 *               dmb_alloc(), carves both queues' buffers (32 OUTPUT and
 *               32 CAPTURE of 1920x1088, about 2 x 96 MiB) from the one
 *               run of 192 MiB it prepared, one after the other; with a
 *               run held in the middle of the block (124 MiB in, through
 *               debugfs) no free run holds both: the prepared claim fails,
 *               the player cancels it, and each REQBUFS claims a run of
 *               its own, clear of the held one
 * Metrics depend on the test; every one reports claimed (pages still
 * claimed at the end, before cleanup), claimed_after_cleanup, and what the
 * block's CMA area counted during the test (/sys/kernel/mm/cma/<area>/:
 * cma.pages_claimed, cma.pages_failed, cma.pages_released, cma.fail_busy,
 * cma.fail_nomem; dmb_alloc() keeps no counters of its own).
 */
#define _GNU_SOURCE
#include <sys/klog.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "guest.h"

#define TEST_FILE "/sys/kernel/debug/dmb_test/get"

struct blk {
	uint64_t base, size;
	char dir[256];
};

/* dmb_test's last result: 0 for "ok ...", the errno of "error <errno>" */
static int read_result(char *res, size_t len)
{
	int err;

	if (file_read_str(TEST_FILE, res, len))
		return -1;
	if (!strncmp(res, "ok", 2))
		return 0;
	return sscanf(res, "error %d", &err) == 1 ? err : -1;
}

/* dmb_test "newdev" on the first decoder's node: 0 and its name, or -1 */
static int newdev(char name[64])
{
	char res[160];

	if (file_write(TEST_FILE, "newdev /video-decoder-0") ||
	    file_read_str(TEST_FILE, res, sizeof(res)) ||
	    sscanf(res, "ok newdev %63s", name) != 1)
		return -1;
	return 0;
}

/* A number in a file, or -1 */
static long read_num(const char *path)
{
	char buf[32];

	return file_read_str(path, buf, sizeof(buf)) ? -1 : strtol(buf, NULL, 0);
}

/* Take a dmb_alloc handle on a decoder's block and find its debugfs dir. */
static int take(const char *node, struct blk *b)
{
	return dmb_alloc_take(node, b->dir, sizeof(b->dir), &b->base, &b->size);
}

static long info_val(const struct blk *b, const char *key)
{
	char path[300], info[512], *p;

	snprintf(path, sizeof(path), "%s/info", b->dir);
	if (file_read_str(path, info, sizeof(info)))
		return -1;
	p = strstr(info, key);
	return p ? strtol(p + strlen(key) + 2, NULL, 10) : -1;
}

/* The name of the block's CMA area ("cma:" of its info); 0, or -1 */
static int cma_name(const struct blk *b, char *name, size_t len)
{
	char path[300], info[512], fmt[16], *p;

	snprintf(path, sizeof(path), "%s/info", b->dir);
	if (file_read_str(path, info, sizeof(info)))
		return -1;
	p = strstr(info, "cma: ");
	snprintf(fmt, sizeof(fmt), "cma: %%%zus", len - 1);
	return p && sscanf(p, fmt, name) == 1 ? 0 : -1;
}

/* A counter of the block's CMA area (/sys/kernel/mm/cma/<area>/), or -1 */
static double cma_ctr(const struct blk *b, const char *ctr)
{
	char path[400], name[64], buf[32];

	if (cma_name(b, name, sizeof(name)))
		return -1;
	snprintf(path, sizeof(path), "/sys/kernel/mm/cma/%s/%s", name, ctr);
	return file_read_str(path, buf, sizeof(buf)) ? -1 : strtod(buf, NULL);
}

/*
 * The longest free run of the block's CMA area, which hands out its pages
 * (/sys/kernel/debug/cma/<area>/maxchunk, the area named in "cma:" of the
 * block's info), or -1
 */
static long cma_maxchunk(const struct blk *b)
{
	char path[300], name[64];

	if (cma_name(b, name, sizeof(name)))
		return -1;
	snprintf(path, sizeof(path), "/sys/kernel/debug/cma/%s/maxchunk", name);
	return read_num(path);
}

/* "ok ..." in a dmb_test file: 0; "error <errno>": the errno; else -1 */
static int read_result_file(const char *path)
{
	char res[64];
	int err;

	if (file_read_str(path, res, sizeof(res)))
		return -1;
	if (!strncmp(res, "ok", 2))
		return 0;
	return sscanf(res, "error %d", &err) == 1 ? err : -1;
}

/* Claim @size bytes; 0 and the run's pfn, or -errno. */
static int claim(const struct blk *b, uint64_t size, uint64_t align,
		 uint64_t *pfn)
{
	char path[300], buf[64];
	unsigned long long p, s;
	int ret;

	dmb_test_file(b->dir, "alloc", path, sizeof(path));
	snprintf(buf, sizeof(buf), "%llu %llu", (unsigned long long)size,
		 (unsigned long long)align);
	ret = file_write(path, buf);
	if (ret)
		return ret;
	if (pfn && !file_read_str(path, buf, sizeof(buf)) &&
	    sscanf(buf, "%llx %llu", &p, &s) == 2)
		*pfn = p;
	return 0;
}

/*
 * Release a run claimed through dmb_test (every one with @size 0); with
 * @any, whatever run it is, through dmb_release() as it stands.
 */
static int release_as(const struct blk *b, uint64_t pfn, uint64_t size,
		      int any)
{
	char path[300], buf[64];

	dmb_test_file(b->dir, "free", path, sizeof(path));
	if (!size)
		return file_write(path, "all");
	snprintf(buf, sizeof(buf), "%s%llx %llu", any ? "any " : "",
		 (unsigned long long)pfn, (unsigned long long)size);
	return file_write(path, buf);
}

static int release(const struct blk *b, uint64_t pfn, uint64_t size)
{
	return release_as(b, pfn, size, 0);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* ---- a session of the V4L2 sample decoder that claims with dmb_alloc() -- */


/* sessions opened from now on claim through the DMA API again */
static void use_dmb_off(void)
{
	file_write(V4L2DEC_USE_DMB, "N");
}

/*
 * Load the decoder, have sessions claim with dmb_alloc() until the check
 * ends, and find the main decoder: its node, its debugfs buffer report
 */
static void dec_find(char *node, size_t nlen, char *report, size_t rlen)
{
	char pdev[128];

	if (load_module("dmb_v4l2dec"))
		t_bail("cannot load dmb_v4l2dec");
	atexit(use_dmb_off);
	if (file_write(V4L2DEC_USE_DMB, "Y"))
		t_bail("cannot write %s", V4L2DEC_USE_DMB);
	if (v4l2_find_decoder("main", node, nlen, pdev, sizeof(pdev)))
		t_bail("no V4L2 decoder labelled main");
	snprintf(report, rlen, "/sys/kernel/debug/dmb_v4l2dec/%s/buffers", pdev);
}

/* A session of it, which its controls show to claim with dmb_alloc() */
static int dec_open(const char *node)
{
	struct v4l2_queryctrl q = { .id = V4L2DEC_CID_PREPARE };
	int fd = open(node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		t_bail("cannot open %s: %s", node, strerror(errno));
	if (ioctl(fd, VIDIOC_QUERYCTRL, &q))
		t_bail("%s: no prepare control, not a session of dmb_alloc(): %s",
		       node, strerror(errno));
	return fd;
}

static int dec_fmt(int fd, uint32_t w, uint32_t h)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };

	f.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	f.fmt.pix.width = w;
	f.fmt.pix.height = h;
	return ioctl(fd, VIDIOC_S_FMT, &f) ? -errno : 0;
}

static int dec_ctrl(int fd, uint32_t id, int32_t *val, int set)
{
	struct v4l2_control c = { .id = id, .value = *val };

	if (ioctl(fd, set ? VIDIOC_S_CTRL : VIDIOC_G_CTRL, &c))
		return -errno;
	*val = c.value;
	return 0;
}

/*
 * Prepare a claim of @mib MiB and wait until it has ended, one way or the
 * other (at most 120 s): 0 or -errno
 */
static int dec_prepare(int fd, int32_t mib)
{
	double t0 = now_ms();
	int32_t done = 0;
	int ret = dec_ctrl(fd, V4L2DEC_CID_PREPARE, &mib, 1);

	while (!ret && !done) {
		if (now_ms() - t0 > 120000)
			return -ETIMEDOUT;
		usleep(2000);
		ret = dec_ctrl(fd, V4L2DEC_CID_PREPARED, &done, 0);
	}
	return ret;
}

/* @count MMAP buffers on queue @type: 0, -errno, -ENOMEM for fewer */
static int dec_reqbufs(int fd, uint32_t type, uint32_t count)
{
	struct v4l2_requestbuffers rb = { .count = count, .type = type,
					  .memory = V4L2_MEMORY_MMAP };

	if (ioctl(fd, VIDIOC_REQBUFS, &rb))
		return -errno;
	return rb.count == count ? 0 : -ENOMEM;
}

struct dbuf {
	uint64_t addr, len;
};

/*
 * The buffers of queue @q ("out" or "cap") of the one session open, from
 * the decoder's debugfs report ("<context> <queue> <index> <dma address>
 * <bytes>"; the DMA address is the physical one on this board): how many
 */
static int dec_bufs(const char *report, const char *q, struct dbuf *b, int max)
{
	FILE *f = fopen(report, "r");
	unsigned long long a, l;
	unsigned int ctx, i;
	char line[160], qn[8];
	int n = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%u %7s %u %llx %llu", &ctx, qn, &i, &a, &l) == 5 &&
		    !strcmp(qn, q) && i < (unsigned int)max) {
			b[i].addr = a;
			b[i].len = l;
			n = n > (int)i + 1 ? n : (int)i + 1;
		}
	fclose(f);
	return n;
}

/* Does buffer @b start where @prev ends (its bytes rounded up to pages)? */
static int follows(const struct dbuf *prev, const struct dbuf *b)
{
	uint64_t ps = page_size();

	return b->addr == prev->addr + (prev->len + ps - 1) / ps * ps;
}

/* FNV-1a, as the decoder sums an OUTPUT payload */
static uint32_t fnv1a(const uint8_t *p, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

/*
 * Words of a decoded frame that are not what the decoder writes for
 * CAPTURE sequence @seq of a payload summed @sum of @bytes: a header
 * (magic "DMBD", sequence, sum, bytes), then word i is
 * (i * 2654435761) ^ (seq * 0x9e3779b9) ^ sum
 */
static size_t frame_bad(const uint32_t *w, size_t words, uint32_t seq,
			uint32_t sum, uint32_t bytes)
{
	uint32_t mix = seq * 0x9e3779b9u ^ sum;
	size_t i, bad = (w[0] != 0x44424d44) + (w[1] != seq) + (w[2] != sum) +
			(w[3] != bytes);

	for (i = 4; i < words; i++)
		bad += w[i] != ((uint32_t)(i * 2654435761u) ^ mix);
	return bad;
}

/* ---- a checksummed user workload ----------------------------------------- */

struct load {
	char *buf;
	size_t pages;
};

static uint32_t pattern(size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ 0xd6b1a5c3u;
}

/*
 * Fill @bytes of anonymous memory with a pattern.  @nohuge: base pages
 * only.  A THP fault takes a free 2 MiB page wherever one is, below
 * ZONE_MOVABLE when ZONE_MOVABLE's free memory is in smaller pieces (a
 * block after claims), so a fill that must leave its room to the kernel
 * uses base pages, which take ZONE_MOVABLE's first.
 */
static int fill(struct load *l, int64_t bytes, int nohuge)
{
	size_t i, j;

	l->pages = bytes / page_size();
	l->buf = mmap(NULL, l->pages * page_size(), PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (l->buf == MAP_FAILED)
		return -1;
	if (nohuge && madvise(l->buf, l->pages * page_size(), MADV_NOHUGEPAGE))
		return -1;
	for (i = 0; i < l->pages; i++) {
		uint32_t *w = (uint32_t *)(l->buf + i * page_size());

		for (j = 0; j < (size_t)page_size() / 4; j += 64)
			w[j] = pattern(i * 4096 + j);
	}
	return 0;
}

static size_t corrupt(const struct load *l)
{
	size_t i, j, bad = 0;

	for (i = 0; i < l->pages; i++) {
		const uint32_t *w = (const uint32_t *)(l->buf + i * page_size());

		for (j = 0; j < (size_t)page_size() / 4; j += 64)
			if (w[j] != pattern(i * 4096 + j)) {
				bad++;
				break;
			}
	}
	return bad;
}

static size_t pages_in(const struct load *l, const struct blk *b)
{
	return pages_in_range(l->buf, l->pages, b->base, b->size);
}

static void report_load(const char *when, const struct load *l,
			const struct blk *b)
{
	size_t in = pages_in(l, b);

	t_report("%s: %zu of %zu user pages in the block (%.0f%% of it)", when,
		 in, l->pages, 100.0 * in * page_size() / b->size);
}

/*
 * A process that must keep running while claims fail: it spins and
 * records the longest gap between two of its iterations, in ms.
 */
static pid_t runner(volatile double *max_gap)
{
	pid_t pid = fork();
	double last, t;

	if (pid)
		return pid;
	last = now_ms();
	for (;;) {
		t = now_ms();
		if (t - last > *max_gap)
			*max_gap = t - last;
		last = t;
	}
}

/*
 * An unprivileged process that keeps one page inside @b referenced from a
 * pipe (vmsplice() without reading): it fills memory as root to find such
 * a page (pagemap shows frames to root only), 2 MiB at a time, stopping at
 * the first page in the first half of the block past its first 8 MiB (or
 * taking the first page anywhere in the block once 384 MiB are filled),
 * then drops to nobody before it splices.  Returns its pid and the page's
 * frame in *pfn (0 if none).
 */
static pid_t pipe_pinner(const struct blk *b, uint64_t *pfn)
{
	int rep[2], data[2];
	uint64_t found = 0;
	pid_t pid;

	if (pipe(rep) || pipe(data))
		return -1;
	pid = fork();
	if (!pid) {
		size_t len = 384 << 20, step = 2 << 20, i, k, best = (size_t)-1;
		size_t n = step / page_size();
		uint64_t lo = b->base + (8 << 20), mid = b->base + b->size / 2;
		uint64_t *pf = calloc(n, sizeof(*pf));
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		struct iovec iov;

		if (m == MAP_FAILED || !pf)
			_exit(1);
		for (i = 0; i < len; i += step) {
			memset(m + i, 0x5a, step);
			if (virt_to_pfns(m + i, n, pf))
				_exit(1);
			for (k = 0; k < n; k++) {
				uint64_t pa = pf[k] * page_size();

				if (pa >= lo && pa < mid)
					break;
				if (best == (size_t)-1 && pa >= b->base &&
				    pa < b->base + b->size)
					best = i + k * page_size();
			}
			if (k < n) {
				best = i + k * page_size();
				break;
			}
		}
		if (best != (size_t)-1)
			found = virt_to_pfn(m + best);
		if (setgid(65534) || setuid(65534) || !getuid())
			_exit(1);
		iov.iov_base = m + best;
		iov.iov_len = page_size();
		if (!found || vmsplice(data[1], &iov, 1, 0) != (ssize_t)page_size())
			found = 0;
		if (write(rep[1], &found, sizeof(found)) != sizeof(found))
			_exit(1);
		for (;;)
			pause();
	}
	close(rep[1]);
	if (read(rep[0], &found, sizeof(found)) != sizeof(found))
		found = 0;
	close(rep[0]);
	*pfn = found;
	return pid;
}

/* Is there a line in @text that has both @a and @b? */
static int line_has(char *text, const char *a, const char *b)
{
	char *line, *save, *copy = strdup(text);
	int hit = 0;

	for (line = strtok_r(copy, "\n", &save); line && !hit;
	     line = strtok_r(NULL, "\n", &save))
		hit = strstr(line, a) && strstr(line, b);
	free(copy);
	return hit;
}

/*
 * User pages in @b0's block (@b1's claimed meanwhile so that they land
 * there), which a whole claim then migrates a while; reports user_before.
 * @used: the block's CMA "used" file; @prep: dmb_test's "prep" file.
 */
static void fill_block(struct load *l, int64_t want, const struct blk *b0,
		       struct blk *b1, char *used, size_t ulen, char *prep,
		       size_t plen)
{
	char cma[64];

	if (take("/video-decoder-1", b1) || claim(b1, b1->size, 0, NULL))
		t_bail("cannot claim /video-decoder-1's block");
	if (fill(l, want, 0))
		t_bail("cannot fill %lld bytes", (long long)want);
	release(b1, 0, 0);
	metric_set("user_before", pages_in(l, b0));
	if (cma_name(b0, cma, sizeof(cma)))
		t_bail("no CMA area in %s/info", b0->dir);
	snprintf(used, ulen, "/sys/kernel/debug/cma/%s/used", cma);
	dmb_test_file(b0->dir, "prep", prep, plen);
}

/* The block's CMA area counters reported, as deltas over the test */
static const struct {
	const char *file, *metric;
} cma_ctrs[] = {
	{ "alloc_pages_success", "cma.pages_claimed" },
	{ "alloc_pages_fail", "cma.pages_failed" },
	{ "release_pages_success", "cma.pages_released" },
	{ "alloc_fail_busy", "cma.fail_busy" },
	{ "alloc_fail_nomem", "cma.fail_nomem" },
};
#define NR_CMA_CTRS (sizeof(cma_ctrs) / sizeof(cma_ctrs[0]))

int main(int argc, char **argv)
{
	const char *test = opt_get(argc, argv, "test");
	const char *o_fill = opt_get(argc, argv, "fill");
	double cma0[NR_CMA_CTRS];
	struct blk b0, b1;
	struct load l = { 0 };
	uint64_t pfn = 0, other = 0;
	unsigned int i;
	int ret;

	t_init("dmbclaim");
	if (!test)
		t_bail("usage: dmbclaim --test=NAME");
	/* claims through dmb_test's handles, as a driver makes them */
	if (load_module("dmb_alloc") || load_module("dmb_test"))
		t_bail("cannot load dmb_alloc and dmb_test");
	if (take("/video-decoder-0", &b0))
		t_bail("cannot take a handle on /video-decoder-0's block");
	metric_set("blocksize", b0.size);
	for (i = 0; i < NR_CMA_CTRS; i++)
		cma0[i] = cma_ctr(&b0, cma_ctrs[i].file);

	if (!strcmp(test, "idle")) {
		metric_set("ret", claim(&b0, 64 << 20, 0, &pfn));
		metric_set("inside", pfn * page_size() >= b0.base &&
			   pfn * page_size() + (64 << 20) <= b0.base + b0.size);
		metric_set("claimed_during", info_val(&b0, "claimed"));
		metric_set("release", release(&b0, pfn, 64 << 20));
	} else if (!strcmp(test, "whole")) {
		metric_set("ret", claim(&b0, b0.size, 0, &pfn));
		metric_set("pfn", pfn);
		metric_set("maxchunk_during", cma_maxchunk(&b0));
		metric_set("release", release(&b0, pfn, b0.size));
	} else if (!strcmp(test, "fragment")) {
		uint64_t runs = b0.size / (4 << 20), i, p[1024];
		int errs = 0;

		for (i = 0; i < runs && i < 1024; i++)
			errs += !!claim(&b0, 4 << 20, 0, &p[i]);
		for (i = 0; i < runs && i < 1024; i += 2)
			errs += !!release(&b0, p[i], 4 << 20);
		metric_set("errors", errs);
		metric_set("maxchunk", cma_maxchunk(&b0));
		metric_set("ret_8m", claim(&b0, 8 << 20, 0, NULL));
		release(&b0, 0, 0);
		metric_set("ret_whole", claim(&b0, b0.size, 0, &pfn));
	} else if (!strcmp(test, "misuse")) {
		if (take("/video-decoder-1", &b1))
			t_bail("cannot take /video-decoder-1's block");
		metric_set("size0", claim(&b0, 0, 0, NULL));
		metric_set("too_large", claim(&b0, b0.size + 4096, 0, NULL));
		metric_set("bad_align", claim(&b0, 4096, 3 * 4096, NULL));
		/* dmb_release() itself judges these: "any" */
		metric_set("unclaimed", release_as(&b0, b0.base / page_size(), 4096, 1));
		claim(&b0, 8 << 20, 0, &pfn);
		metric_set("partial", release_as(&b0, pfn, 4 << 20, 1));
		metric_set("inside_run", release_as(&b0, pfn + 1, 4096, 1));
		metric_set("release", release(&b0, pfn, 8 << 20));
		metric_set("double", release_as(&b0, pfn, 8 << 20, 1));
		claim(&b1, 4 << 20, 0, &other);
		metric_set("foreign", release_as(&b0, other, 4 << 20, 1));
		metric_set("claimed_b1", info_val(&b1, "claimed"));
		release(&b1, 0, 0);
	} else if (!strcmp(test, "loaded") || !strcmp(test, "enomem") ||
		   !strcmp(test, "signal")) {
		int64_t want = o_fill ? parse_size(o_fill) : 600 << 20;

		if (!strcmp(test, "enomem"))	/* leave ~192M free */
			/*
			 * MemFree, not MemAvailable: the initramfs's page
			 * cache counts as available but cannot be reclaimed,
			 * and the OOM killer would step in.
			 */
			want = (meminfo_kb("MemFree") << 10) - (192 << 20);
		if (opt_get(argc, argv, "fill-this-block") &&
		    (take("/video-decoder-1", &b1) || claim(&b1, b1.size, 0, NULL)))
			t_bail("cannot claim /video-decoder-1's block");
		if (want <= 0 || fill(&l, want, !strcmp(test, "enomem")))
			t_bail("cannot fill %lld bytes", (long long)want);
		if (opt_get(argc, argv, "fill-this-block"))
			release(&b1, 0, 0);	/* free for the migration */
		metric_set("user_before", pages_in(&l, &b0));
		report_load("before the claim", &l, &b0);
		if (strcmp(test, "signal")) {
			metric_set("ret", claim(&b0, b0.size, 0, &pfn));
		} else {
			pid_t pid = fork();
			int status = 0;

			if (!pid)
				_exit(claim(&b0, b0.size, 0, NULL) ? 1 : 0);
			usleep(30000);
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			metric_set("killed", WIFSIGNALED(status) &&
				   WTERMSIG(status) == SIGKILL);
		}
		metric_set("user_after", pages_in(&l, &b0));
		report_load("after the claim", &l, &b0);
		metric_set("corrupt", corrupt(&l));
	} else if (!strcmp(test, "concurrent")) {
		pid_t p0, p1;
		int s0 = 0, s1 = 0;

		if (take("/video-decoder-1", &b1))
			t_bail("cannot take /video-decoder-1's block");
		p0 = fork();
		if (!p0)
			_exit(claim(&b0, b0.size, 0, NULL) ? 1 : 0);
		p1 = fork();
		if (!p1)
			_exit(claim(&b1, b1.size, 0, NULL) ? 1 : 0);
		waitpid(p0, &s0, 0);
		waitpid(p1, &s1, 0);
		metric_set("ok", (WIFEXITED(s0) && !WEXITSTATUS(s0)) +
			   (WIFEXITED(s1) && !WEXITSTATUS(s1)));
		metric_set("claimed_b1", info_val(&b1, "claimed"));
		release(&b1, 0, 0);
	} else if (!strcmp(test, "trace")) {
		static char tr[65536];
		const char *ev = "/sys/kernel/tracing/events/dmb_alloc/enable";
		char *line, *save;
		double start = 0, finish_ok = 0, finish_err = 0, rel = 0;

		if (file_write("/sys/kernel/tracing/trace", "") || file_write(ev, "1"))
			t_bail("cannot enable the dmb_alloc tracepoints");
		claim(&b0, 4 << 20, 0, &pfn);
		release(&b0, pfn, 4 << 20);
		claim(&b0, 0, 0, NULL);			/* refused: no event */
		claim(&b0, b0.size + (4 << 20), 0, NULL);	/* refused too */
		claim(&b0, b0.size, 0, &pfn);
		claim(&b0, 4 << 20, 0, NULL);		/* no room: -ENOSPC */
		release(&b0, 0, 0);
		file_write(ev, "0");
		if (file_read_str("/sys/kernel/tracing/trace", tr, sizeof(tr)))
			t_bail("cannot read the trace");
		for (line = strtok_r(tr, "\n", &save); line;
		     line = strtok_r(NULL, "\n", &save)) {
			if (line[0] == '#')
				continue;
			if (strstr(line, "dmb_alloc_start: name=") && strstr(line, " nr="))
				start++;
			if (strstr(line, "dmb_alloc_finish: name=") &&
			    strstr(line, " err=0 duration_ns="))
				finish_ok++;
			if (strstr(line, "dmb_alloc_finish: name=") &&
			    strstr(line, " err=-28 duration_ns="))
				finish_err++;
			if (strstr(line, "dmb_release: name=") && strstr(line, " pfn=0x"))
				rel++;
			t_diag("%s", line);
		}
		metric_set("ev_start", start);
		metric_set("ev_finish_ok", finish_ok);
		metric_set("ev_finish_enospc", finish_err);
		metric_set("ev_release", rel);
	} else if (!strcmp(test, "pipepin")) {
		static char tr[1 << 17], kl[1 << 18];
		const char *ev = "/sys/kernel/tracing/events/cma/cma_alloc_busy_retry/enable";
		const char *ev_mt = "/sys/kernel/tracing/events/kmem/mm_alloc_contig_migrate_range_info/enable";
		volatile double *gap = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
					    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		uint64_t pinned = 0;
		char needle[64];
		pid_t pin, run;
		double t0;
		int len;

		pin = pipe_pinner(&b0, &pinned);
		if (pin < 0 || !pinned)
			t_bail("no page of the block could be spliced into a pipe");
		metric_set("pinned_offset_mb", (pinned * page_size() - b0.base) >> 20);
		file_write("/sys/kernel/tracing/trace", "");
		if (file_write(ev, "1") || file_write(ev_mt, "1"))
			t_bail("cannot enable the cma and contiguous migration tracepoints");
		*gap = 0;
		run = runner(gap);
		/* half the block fits around the pinned page */
		t0 = now_ms();
		metric_set("half", claim(&b0, b0.size / 2, 0, &pfn));
		metric_set("half_ms", now_ms() - t0);
		metric_set("around", pinned < pfn || pinned >= pfn + b0.size / 2 / page_size());
		release(&b0, 0, 0);
		/* the whole block cannot: -EBUSY, in bounded time */
		file_write("/sys/kernel/tracing/trace", "");
		t0 = now_ms();
		metric_set("whole", claim(&b0, b0.size, 0, NULL));
		metric_set("whole_ms", now_ms() - t0);
		/*
		 * Each attempt isolated the whole run and migrated its chunks
		 * on every CPU: the run, with the chunks emptied before the
		 * busy one failed, was given back, not leaked, so the half
		 * around the pinned page can be claimed again.
		 */
		metric_set("half_again", claim(&b0, b0.size / 2, 0, NULL));
		release(&b0, 0, 0);
		metric_set("runner_max_gap_ms", *gap);
		kill(run, SIGKILL);
		waitpid(run, NULL, 0);
		file_write(ev, "0");
		file_write(ev_mt, "0");
		t_report("page 0x%llx (%llu MiB into the block) held by a pipe: half claimed in %.0f ms, whole refused in %.0f ms, longest stall of another process %.0f ms",
			 (unsigned long long)pinned,
			 (unsigned long long)(pinned * page_size() - b0.base) >> 20,
			 metric_get("half_ms", &t0) ? -1 : t0,
			 metric_get("whole_ms", &t0) ? -1 : t0, *gap);
		snprintf(needle, sizeof(needle), "busy_pfn=0x%llx ", (unsigned long long)pinned);
		if (file_read_str("/sys/kernel/tracing/trace", tr, sizeof(tr)))
			tr[0] = '\0';
		metric_set("trace_names_pfn", line_has(tr, "cma_alloc_busy_retry:", needle));
		metric_set("trace_refcount", line_has(tr, needle, "refcount=2 mapcount=1"));
		{
			double tries = 0;
			char *l = tr;

			while ((l = strstr(l, "cma_alloc_busy_retry:"))) {
				tries++;
				l++;
			}
			metric_set("busy_events", tries);
			/* chunks of the whole-block attempts, migrated apart */
			tries = 0;
			for (l = tr; (l = strstr(l, "mm_alloc_contig_migrate_range_info:")); l++)
				tries++;
			metric_set("chunks", tries);
		}
		len = klogctl(3, kl, sizeof(kl) - 1);
		kl[len > 0 ? len : 0] = '\0';
		/* the log says a page stayed busy, never which frame (the trace does) */
		metric_set("error_logged", strstr(kl, "busy attempts: a page stayed busy") != NULL);
		/* the held page's frame, in any format, anywhere in the log */
		metric_set("error_names_pfn", text_has_hex(kl, pinned));
		kill(pin, SIGKILL);
		waitpid(pin, NULL, 0);
	} else if (!strcmp(test, "sessionrun")) {
		/*
		 * 32 OUTPUT and 32 CAPTURE buffers of 1920x1088 (766 and 765
		 * pages each): about 2 x 96 MiB, which a run of 192 MiB holds
		 */
		enum { NB = 32, RUN_MIB = 192 };
		static struct dbuf ob[NB], cb[NB];
		uint64_t big = 0, hole = 0, hole_pa;
		char node[64], report[300], k[32];
		int fd, round, i;

		dec_find(node, sizeof(node), report, sizeof(report));
		for (round = 0; round < 2; round++) {
			const char *pre = round ? "held." : "free.";
			double ok0;
			int ret, one = 1, in = 1, clear = 1;
			int32_t zero = 0;

			if (round) {
				/* a 4 MiB run held 124 MiB into the block */
				metric_set("hold_before", claim(&b0, 124 << 20, 0, &big));
				metric_set("hold", claim(&b0, 4 << 20, 0, &hole));
				metric_set("hold_at_mb", (hole * page_size() - b0.base) >> 20);
				metric_set("hold_after", release(&b0, big, 124 << 20));
			}
			hole_pa = hole * page_size();
			fd = dec_open(node);
			ok0 = info_val(&b0, "runs");
			ret = dec_fmt(fd, 1920, 1088);
			if (!ret)
				ret = dec_prepare(fd, RUN_MIB);
			/*
			 * Did the prepared claim get its run?  If not (no
			 * free run that large), the player cancels it: the
			 * next REQBUFS would take its failure, and each
			 * REQBUFS then claims a run of its own.
			 */
			snprintf(k, sizeof(k), "%sprepared", pre);
			metric_set(k, info_val(&b0, "runs") - ok0 == 1);
			if (!ret && info_val(&b0, "runs") == ok0)
				ret = dec_ctrl(fd, V4L2DEC_CID_PREPARE, &zero, 1);
			if (!ret)
				ret = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, NB);
			if (!ret)
				ret = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, NB);
			snprintf(k, sizeof(k), "%sstart", pre);
			metric_set(k, ret);
			/* runs claimed: 1 for one run, 2 one by one */
			snprintf(k, sizeof(k), "%sclaims", pre);
			metric_set(k, info_val(&b0, "runs") - ok0);
			memset(ob, 0, sizeof(ob));
			memset(cb, 0, sizeof(cb));
			if (!ret && (dec_bufs(report, "out", ob, NB) != NB ||
				     dec_bufs(report, "cap", cb, NB) != NB))
				t_bail("cannot read the buffers from %s", report);
			/* one run: every buffer where the one before it ends */
			for (i = 0; i < NB; i++) {
				if (i)
					one &= follows(&ob[i - 1], &ob[i]) &&
					       follows(&cb[i - 1], &cb[i]);
				in &= ob[i].addr >= b0.base && cb[i].addr >= b0.base &&
				      ob[i].addr + ob[i].len <= b0.base + b0.size &&
				      cb[i].addr + cb[i].len <= b0.base + b0.size;
				clear &= (ob[i].addr + ob[i].len <= hole_pa ||
					  ob[i].addr >= hole_pa + (4 << 20)) &&
					 (cb[i].addr + cb[i].len <= hole_pa ||
					  cb[i].addr >= hole_pa + (4 << 20));
			}
			snprintf(k, sizeof(k), "%sone_run", pre);
			metric_set(k, !ret && one && follows(&ob[NB - 1], &cb[0]));
			snprintf(k, sizeof(k), "%sinside", pre);
			metric_set(k, !ret && in);
			snprintf(k, sizeof(k), "%sclear_of_hold", pre);
			metric_set(k, !round || (!ret && clear));
			/* the buffers go, and with the last of them the run(s) */
			ret = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 0);
			i = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 0);
			snprintf(k, sizeof(k), "%sstop", pre);
			metric_set(k, ret ? ret : i);
			close(fd);
		}
		metric_set("free_hold", release(&b0, hole, 4 << 20));
	} else if (!strcmp(test, "driver_run")) {
		/* a run of 4 MiB, prepared; 640x480 buffers carved from it */
		struct v4l2_buffer ob = { .index = 0, .memory = V4L2_MEMORY_MMAP,
					  .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
		struct v4l2_buffer cb = { .index = 0, .memory = V4L2_MEMORY_MMAP,
					  .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
		uint32_t types[2] = { V4L2_BUF_TYPE_VIDEO_CAPTURE,
				      V4L2_BUF_TYPE_VIDEO_OUTPUT };
		const uint64_t run_size = 4 << 20;
		const uint32_t payload = 4096;
		char node[64], report[300];
		struct dbuf run = { 0 };
		struct pollfd pfd;
		uint8_t *in;
		uint32_t *w, sum, i;
		int fd, ret;

		dec_find(node, sizeof(node), report, sizeof(report));
		fd = dec_open(node);
		ret = dec_fmt(fd, 640, 480);
		if (!ret)
			ret = dec_prepare(fd, run_size >> 20);
		/* OUTPUT first: its buffer 0 is carved at the run's start */
		if (!ret)
			ret = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 1);
		if (!ret)
			ret = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 1);
		metric_set("start", ret);
		if (ret || dec_bufs(report, "out", &run, 1) != 1 ||
		    ioctl(fd, VIDIOC_QUERYBUF, &ob) || ioctl(fd, VIDIOC_QUERYBUF, &cb))
			t_bail("no buffers to decode with (start %d)", ret);
		/* one frame: a payload in, the decoded frame out */
		in = mmap(NULL, ob.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			  ob.m.offset);
		if (in == MAP_FAILED)
			t_bail("cannot map the OUTPUT buffer");
		for (i = 0; i < payload; i++)
			in[i] = (uint8_t)(i * 7 + 0x5d);
		sum = fnv1a(in, payload);
		munmap(in, ob.length);
		ob.bytesused = payload;
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (ioctl(fd, VIDIOC_QBUF, &cb) || ioctl(fd, VIDIOC_STREAMON, &types[0]) ||
		    ioctl(fd, VIDIOC_QBUF, &ob) || ioctl(fd, VIDIOC_STREAMON, &types[1]))
			ret = -errno;
		else if (poll(&pfd, 1, 20000) != 1)
			ret = -ETIMEDOUT;
		else if (ioctl(fd, VIDIOC_DQBUF, &cb))
			ret = -errno;
		else if ((cb.flags & V4L2_BUF_FLAG_ERROR) || !cb.bytesused)
			ret = -EIO;
		metric_set("decode", ret);
		/* the frame, mapped while dmb_test tries to free its run */
		w = mmap(NULL, cb.length, PROT_READ, MAP_SHARED, fd, cb.m.offset);
		if (w == MAP_FAILED)
			t_bail("cannot map the decoder's buffer");
		metric_set("free_driver_run", release(&b0, run.addr / page_size(),
						      run_size));
		/* not even as "any": a bound driver's run is its own */
		metric_set("any_driver_run",
			   release_as(&b0, run.addr / page_size(), run_size, 1) ?
			   -errno : 0);
		metric_set("free_all", release(&b0, 0, 0));
		metric_set("claimed_during", info_val(&b0, "claimed"));
		metric_set("frames_bad", ret ? -1.0 :
			   (double)frame_bad(w, cb.bytesused / 4, cb.sequence, sum,
					     payload));
		munmap(w, cb.length);
		ret = ioctl(fd, VIDIOC_STREAMOFF, &types[1]) ||
		      ioctl(fd, VIDIOC_STREAMOFF, &types[0]) ? -errno : 0;
		if (!ret)
			ret = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 0);
		if (!ret)
			ret = dec_reqbufs(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 0);
		metric_set("stop", ret);
		close(fd);
	} else if (!strcmp(test, "lastput")) {
		int64_t want = o_fill ? parse_size(o_fill) : 128 << 20;
		char path[300], res[64];
		long used = -1;
		int tries, i;

		/* dmb_test's handles must be the last: no decoder driver */
		if (syscall(SYS_delete_module, "dmb_v4l2dec", O_NONBLOCK) && errno != ENOENT)
			t_bail("cannot unload dmb_v4l2dec: %s", strerror(errno));
		/* user pages in the block, which a whole claim migrates a while */
		fill_block(&l, want, &b0, &b1, path, sizeof(path), res, sizeof(res));
		/*
		 * A prepared whole-block claim, its run taken in CMA's bitmap
		 * and migrating, when the last handle goes: it must give the
		 * run back (-ENODEV).  When it ended before the handle went
		 * (a race lost), it is freed and tried again.
		 */
		for (tries = 1; tries <= 5; tries++) {
			char num[32];

			snprintf(num, sizeof(num), "%llu", (unsigned long long)b0.size);
			if (file_write(res, num))
				t_bail("cannot prepare a claim of the whole block");
			for (i = 0; i < 20000; i++) {
				used = read_num(path);
				if (used >= (long)(b0.size / page_size()))
					break;
				usleep(500);
			}
			file_write(TEST_FILE, "unhandle");	/* the last handles */
			file_write(res, "commit");
			if (file_read_str(res, num, sizeof(num)) || strncmp(num, "ok", 2))
				break;
			/* the claim won: give it back through a new handle */
			if (take("/video-decoder-0", &b0) || release(&b0, 0, 0))
				t_bail("cannot give back a prepared claim");
		}
		metric_set("tries", tries);
		metric_set("migrating", used >= (long)(b0.size / page_size()));
		metric_set("commit", read_result_file(res));
		metric_set("area_gone", access(b0.dir, F_OK) != 0);
		metric_set("rmmod_test", syscall(SYS_delete_module, "dmb_test",
						 O_NONBLOCK) ? -errno : 0);
		metric_set("rmmod_alloc", syscall(SYS_delete_module, "dmb_alloc",
						  O_NONBLOCK) ? -errno : 0);
		metric_set("corrupt", corrupt(&l));
		check_expectations(argc, argv);
		return t_finish();
	} else if (!strcmp(test, "cancel")) {
		int64_t want = o_fill ? parse_size(o_fill) : 128 << 20;
		static char tr[1 << 16];
		char path[300], res[64], num[32], *p;
		long used = -1, running = 0, most = 0;
		int tries, i, n;

		ret = -1;
		fill_block(&l, want, &b0, &b1, path, sizeof(path), res, sizeof(res));
		if (file_write("/sys/kernel/tracing/events/dmb_alloc/dmb_alloc_finish/filter",
			       "err == -28") ||
		    file_write("/sys/kernel/tracing/events/dmb_alloc/dmb_alloc_finish/enable", "1"))
			t_bail("cannot trace dmb_alloc_finish");
		/*
		 * A whole-block claim cancelled while it migrates keeps its run
		 * until it ends: a claim made meanwhile finds no free run, waits
		 * for it and tries once more.  When the preparation ended before
		 * the cancel (a race lost), the cancel gives its run back at once:
		 * tried again.
		 */
		snprintf(num, sizeof(num), "%llu", (unsigned long long)b0.size);
		for (tries = 1; tries <= 5; tries++) {
			file_write("/sys/kernel/tracing/trace", "");
			if (file_write(res, num))
				t_bail("cannot prepare a claim of the whole block");
			for (i = 0; i < 20000; i++) {
				used = read_num(path);
				if (used >= (long)(b0.size / page_size()))
					break;
				usleep(500);
			}
			file_write(res, "cancel");
			ret = claim(&b0, b0.size, 0, NULL);
			if (!ret)
				release(&b0, 0, 0);
			if (file_read_str("/sys/kernel/tracing/trace", tr, sizeof(tr)))
				tr[0] = '\0';
			for (n = 0, p = tr; (p = strstr(p, "dmb_alloc_finish:")); p++)
				n++;
			if (n > 0)	/* the claim met the cancelled one's run */
				break;
		}
		file_write("/sys/kernel/tracing/events/dmb_alloc/dmb_alloc_finish/enable", "0");
		file_write("/sys/kernel/tracing/events/dmb_alloc/dmb_alloc_finish/filter", "0");
		metric_set("tries", tries);
		metric_set("retry_ret", ret);
		metric_set("retry_enospc", n);
		/*
		 * Prepared claims of 16 MiB, each cancelled at once: a cancel
		 * waits while more than two cancelled claims still run, so no
		 * more than two are ever seen running after a cancel.
		 */
		snprintf(num, sizeof(num), "%d", 16 << 20);
		for (i = 0; i < 8; i++) {
			if (file_write(res, num) || file_write(res, "cancel"))
				t_bail("cannot prepare and cancel a claim of 16 MiB");
			running = info_val(&b0, "cancelled");
			if (running > most)
				most = running;
		}
		metric_set("most_running", most);
		for (i = 0; i < 600 && info_val(&b0, "cancelled") > 0; i++)
			usleep(50000);
		metric_set("running_after", info_val(&b0, "cancelled"));
		metric_set("used_after", read_num(path));
		metric_set("corrupt", corrupt(&l));
	} else if (!strcmp(test, "dyndev")) {
		char a[64] = "", b[64] = "", needle[128], res[160];
		static char kl[1 << 17];
		struct blk d;
		int len;

		/* the block must have no owner: no decoder, no handle of ours */
		if (syscall(SYS_delete_module, "dmb_v4l2dec", O_NONBLOCK) && errno != ENOENT)
			t_bail("cannot unload dmb_v4l2dec: %s", strerror(errno));
		file_write(TEST_FILE, "unhandle");
		metric_set("newdev_a", newdev(a));
		metric_set("handle_a", take("@dyn", &d));
		metric_set("claim_a", claim(&d, 4 << 20, 0, NULL));
		file_write(TEST_FILE, "deldev");	/* gone, still referenced */
		/* a's handle still holds the block: a new device is refused */
		metric_set("newdev_b_early", newdev(b));
		file_write(TEST_FILE, "handle @dyn 0");
		metric_set("handle_b_early", read_result(res, sizeof(res)));
		file_write(TEST_FILE, "deldev");
		file_write(TEST_FILE, "unhandle");	/* warns through it */
		len = klogctl(3, kl, sizeof(kl) - 1);
		kl[len > 0 ? len : 0] = '\0';
		snprintf(needle, sizeof(needle), "%s: dmb_alloc:", a);
		metric_set("warn_names_dev", a[0] && line_has(kl, needle, "last handle dropped"));
		metric_set("orphan_claimed", info_val(&d, "claimed"));
		metric_set("newdev_b", newdev(b));
		metric_set("handle_b", take("@dyn", &d));
		metric_set("claimed_b", info_val(&d, "claimed"));
		metric_set("free", release(&d, 0, 0));
		file_write(TEST_FILE, "unhandle");	/* the area and device a go */
		metric_set("area_gone", access(d.dir, F_OK) != 0);
		file_write(TEST_FILE, "deldev");
		metric_set("rmmod_test", syscall(SYS_delete_module, "dmb_test",
						 O_NONBLOCK) ? -errno : 0);
		metric_set("rmmod_alloc", syscall(SYS_delete_module, "dmb_alloc",
						  O_NONBLOCK) ? -errno : 0);
		/* b usually gets a's name: a is gone but still referenced */
		t_report("device %s claimed 4 MiB, went away and dropped its handle; %s took the block over",
			 a, b);
		check_expectations(argc, argv);
		return t_finish();
	} else if (!strcmp(test, "orphan")) {
		metric_set("ret", claim(&b0, 4 << 20, 0, &pfn));
		file_write(TEST_FILE, "unhandle");
		metric_set("claimed_orphan", info_val(&b0, "claimed"));
		metric_set("rmmod_test", syscall(SYS_delete_module, "dmb_test",
						 O_NONBLOCK) ? -errno : 0);
		metric_set("rmmod_busy", syscall(SYS_delete_module, "dmb_alloc",
						 O_NONBLOCK) ? -errno : 0);
		/* a new claimer of the block finds the run and frees it */
		if (load_module("dmb_test") || take("/video-decoder-0", &b0))
			t_bail("cannot take the block again");
		metric_set("free_orphan", release_as(&b0, pfn, 4 << 20, 1));
		file_write(TEST_FILE, "unhandle");
		syscall(SYS_delete_module, "dmb_test", O_NONBLOCK);
		metric_set("rmmod_after", syscall(SYS_delete_module, "dmb_alloc",
						  O_NONBLOCK) ? -errno : 0);
		check_expectations(argc, argv);
		return t_finish();
	} else {
		t_bail("unknown --test=%s", test);
	}

	metric_set("claimed", info_val(&b0, "claimed"));
	for (i = 0; i < NR_CMA_CTRS; i++)
		metric_set(cma_ctrs[i].metric,
			   cma_ctr(&b0, cma_ctrs[i].file) - cma0[i]);
	ret = release(&b0, 0, 0);
	metric_set("cleanup", ret);
	metric_set("claimed_after_cleanup", info_val(&b0, "claimed"));
	file_write(TEST_FILE, "unhandle");
	check_expectations(argc, argv);
	return t_finish();
}
