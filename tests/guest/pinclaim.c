// SPDX-License-Identifier: GPL-2.0
/*
 * pinclaim: an unprivileged process holds pages of a block from a pipe
 * (vmsplice() without reading, which no claim can move), spread over the
 * block, and the block is claimed through one way in: an 8 MiB claim, then
 * the whole block.  Each must end, succeeded or refused, within the bound
 * that cma_alloc_gfp() documents, name a held page (in the kernel log and
 * the cma_alloc_busy_retry tracepoint), and not hold up a 1 MiB claim on
 * another block started meanwhile, which must end first (an ordering
 * check: the times are reported, not judged).
 *
 * usage: pinclaim --via=WAY --block=<dmb name> --other=WAY
 *        [--other-block=<dmb name>] [--pins=64] [expectations]
 * WAY: heap:<heap>   a dma-buf heap allocation (closed to free)
 *      dma:<device>  dma_alloc_attrs() of the dma_client test device
 *      cma:<area>    the kernel's CMA debugfs (/sys/kernel/debug/cma/<area>/
 *                    alloc and free), which returns cma_alloc_gfp()'s errno
 *      dmb:<node>    dmb_alloc() through its debugfs hook, on a handle the
 *                    dmb_test module takes for the device tree node
 *      v4l2:<label>  VIDIOC_REQBUFS of CAPTURE buffers of the V4L2 sample
 *                    decoder labelled <label>, 1920x1088 frames (3 MiB
 *                    each), as many as the size asks for (at least one,
 *                    at most 32): the DMA API through videobuf2
 *      v4l2dmb:<label> the same in a session that claims with dmb_alloc()
 *                    (the decoder's use_dmb_alloc, set for its open)
 *      v4l2q:<label> a queue ioctl of another session of that decoder that
 *                    allocates nothing (REQBUFS of 0 CAPTURE buffers), as
 *                    the other way in: does a session wait for another's
 *                    REQBUFS?
 * Metrics: pins (pages held inside the block), ret_8m, ms_8m, ret_whole,
 * ms_whole (0 or -errno, and milliseconds), overlap_8m and overlap_whole
 * (the other block's 1 MiB claim, started 20 ms into the claim, or sooner
 * when the claim ended first, started before it ended), other_held_up_8m
 * and other_held_up_whole (it started during the claim, ended after it
 * and took more than three times its time alone plus 20 ms),
 * other_ret_8m, other_ret_whole,
 * trace_names_pin (a held page is named in cma_alloc_busy_retry),
 * log_names_busy (a "busy attempts" line was logged), log_names_pin (it
 * names a held page's frame: never, for any caller, since the caller may
 * act for the unprivileged process that holds the page), cma_err_whole (the errno CMA ended the
 * whole claim with: -16 when held pages stopped it), with --other-block
 * sysfs_fail_busy_whole (what /sys/kernel/mm/cma/<block>/alloc_fail_busy
 * grew by during the whole claim), other_before_first_attempt (the other block's claim ended before the
 * whole claim's first attempt did; reported, not judged: an attempt that
 * meets a held page early ends within milliseconds), after (the whole
 * block once the pipe is closed: 0).  other_held_up_whole is the ordering
 * check: 6.12's cma_alloc() made a single attempt at a whole block under
 * the global cma_mutex, so a claim on another block ended after it.
 *
 * pinclaim --speed=WAY+<dmb>,... [--size=16M] [--occ=50] [--reps=4]: the
 * ways side by side (make bench, part ways).
 *
 * pinclaim --load=WAY+<dmb>,... [--secs=60] [--claims=N] [--hold=200]
 * [--mem=256M]: whole blocks on a busy system.  Memory stressors that check their own
 * data (load_hog, load_splice, load_memfd, load_madvise, load_fork in
 * guest.c) and compaction every 5 s run while each way in turn claims
 * its whole block, holds it --hold ms and frees it, for --secs or until
 * each way has made --claims claims; then the load stops and each way
 * claims its block once more.  Metrics: <way>_claims, <way>_ok_pct,
 * <way>_moved (pages migrated by its claims, /proc/vmstat), min_ok_pct,
 * corrupt (stressors that found damage or could not run), final_ok (ways
 * that claimed their block after the load), trace_ebusy and trace_enomem
 * (failed cma_alloc() calls by errno, from the cma_alloc_finish
 * tracepoint); "bench: load" lines give p50/p99.  V4L2 claims per frame:
 * 32 CAPTURE buffers of 3 MiB, 96 MiB of a 128 MiB block, and a REQBUFS
 * that returns fewer buffers than asked counts as failed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/dma-heap.h>
#include <linux/videodev2.h>

#include "guest.h"

#define MAX_PINS	256
#define DC		"/sys/kernel/debug/dma_client/"
#define CMA_DBG		"/sys/kernel/debug/cma/"
#define TEST_FILE	"/sys/kernel/debug/dmb_test/get"
#define TRACE		"/sys/kernel/tracing/"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* One way into a block: what to claim with, and what was claimed */
struct way {
	char kind[8];
	char name[96];
	char dir[200];		/* dmb: the block's dmb_alloc debugfs dir */
	int fd;			/* heap: the dma-buf; v4l2: the video node */
	uint32_t frame;		/* v4l2: bytes of a CAPTURE buffer */
	double ms;		/* dma: the last claim's time in dma_alloc_attrs() */
	uint64_t cma_pages;	/* cma: pages claimed, for "free" */
	int dmb;		/* v4l2: a session of dmb_alloc() (v4l2dmb:) */
};

static int way_parse(const char *s, struct way *w)
{
	const char *c = s ? strchr(s, ':') : NULL;

	memset(w, 0, sizeof(*w));
	w->fd = -1;
	if (!c || c - s >= (long)sizeof(w->kind))
		return -1;
	memcpy(w->kind, s, c - s);
	snprintf(w->name, sizeof(w->name), "%s", c + 1);
	if (!strcmp(w->kind, "v4l2dmb")) {
		strcpy(w->kind, "v4l2");
		w->dmb = 1;
	}
	return strcmp(w->kind, "heap") && strcmp(w->kind, "dma") &&
	       strcmp(w->kind, "cma") && strcmp(w->kind, "dmb") && strcmp(w->kind, "v4l2") &&
	       strcmp(w->kind, "v4l2q") ? -1 : 0;
}

/* v4l2: open the decoder labelled w->name, frames of the largest size */
static int v4l2_open(struct way *w)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	char node[64], pdev[128];

	if (v4l2_find_decoder(w->name, node, sizeof(node), pdev, sizeof(pdev)))
		return -1;
	if (file_write(V4L2DEC_USE_DMB, w->dmb ? "Y" : "N"))
		return -1;
	w->fd = open(node, O_RDWR | O_CLOEXEC);
	file_write(V4L2DEC_USE_DMB, "N");
	if (w->fd < 0 || ioctl(w->fd, VIDIOC_G_FMT, &f))
		return -1;
	f.fmt.pix.width = 1920;
	f.fmt.pix.height = 1088;
	if (ioctl(w->fd, VIDIOC_S_FMT, &f))
		return -1;
	memset(&f, 0, sizeof(f));
	f.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (ioctl(w->fd, VIDIOC_G_FMT, &f) || !f.fmt.pix.sizeimage)
		return -1;
	w->frame = f.fmt.pix.sizeimage;
	return 0;
}

/* v4l2: CAPTURE buffers for @size bytes, or none (@size 0) */
static int v4l2_reqbufs(struct way *w, uint64_t size)
{
	struct v4l2_requestbuffers rb = {
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_MMAP,
	};

	uint32_t want;

	if (size) {
		rb.count = size / w->frame;
		rb.count = rb.count < 1 ? 1 : rb.count > 32 ? 32 : rb.count;
	}
	want = rb.count;
	if (ioctl(w->fd, VIDIOC_REQBUFS, &rb))
		return -errno;
	/* vb2 may hand out fewer than asked: that claim fell short */
	if (rb.count < want) {
		if (rb.count) {
			rb.count = 0;
			ioctl(w->fd, VIDIOC_REQBUFS, &rb);
		}
		return -ENOMEM;
	}
	return 0;
}

/* dmb: take a handle on the node's block, find its debugfs directory */
static int way_open(struct way *w)
{
	uint64_t base, size;

	if (!strcmp(w->kind, "v4l2") || !strcmp(w->kind, "v4l2q"))
		return v4l2_open(w);
	if (!strcmp(w->kind, "cma")) {
		char path[300];

		snprintf(path, sizeof(path), CMA_DBG "%s/alloc", w->name);
		return access(path, W_OK) ? -errno : 0;
	}
	if (strcmp(w->kind, "dmb"))
		return 0;
	return dmb_alloc_take(w->name, w->dir, sizeof(w->dir), &base, &size);
}

/* Claim @size bytes the way @w says; 0 or -errno */
static int way_claim(struct way *w, uint64_t size)
{
	char path[300], num[64], res[128], *p;
	int err = 0;

	snprintf(num, sizeof(num), "%llu", (unsigned long long)size);
	if (!strcmp(w->kind, "heap")) {
		struct dma_heap_allocation_data a = {
			.len = size, .fd_flags = O_RDWR | O_CLOEXEC,
		};
		int fd;

		snprintf(path, sizeof(path), "/dev/dma_heap/%s", w->name);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		err = ioctl(fd, DMA_HEAP_IOCTL_ALLOC, &a) ? -errno : 0;
		close(fd);
		if (!err)
			w->fd = a.fd;
		return err;
	}
	if (!strcmp(w->kind, "dma")) {
		snprintf(path, sizeof(path), DC "%s/alloc", w->name);
		if (file_write(path, num) || file_read_str(path, res, sizeof(res)))
			return -ENOENT;
		if (sscanf(res, "error %d", &err) == 1)
			return err;
		/* the client reads and fills the buffer afterwards: not the API's */
		p = strstr(res, " ns=");
		w->ms = p ? strtoull(p + 4, NULL, 10) / 1e6 : -1;
		return strncmp(res, "ok ", 3) ? -EIO : 0;
	}
	if (!strcmp(w->kind, "cma")) {
		/* the kernel's own CMA debugfs: a count of pages */
		snprintf(path, sizeof(path), CMA_DBG "%s/alloc", w->name);
		snprintf(num, sizeof(num), "%llu",
			 (unsigned long long)(size / page_size()));
		err = file_write(path, num);
		if (!err)
			w->cma_pages = size / page_size();
		return err;
	}
	if (!strcmp(w->kind, "v4l2"))
		return v4l2_reqbufs(w, size);
	if (!strcmp(w->kind, "v4l2q"))
		return v4l2_reqbufs(w, 0);
	return file_write(dmb_test_file(w->dir, "alloc", path, sizeof(path)), num);
}

static void way_free(struct way *w)
{
	char path[300], num[32];

	if (!strcmp(w->kind, "heap")) {
		if (w->fd >= 0)
			close(w->fd);
		w->fd = -1;
	} else if (!strcmp(w->kind, "dma")) {
		snprintf(path, sizeof(path), DC "%s/free", w->name);
		file_write(path, "1");
	} else if (!strcmp(w->kind, "cma")) {
		snprintf(path, sizeof(path), CMA_DBG "%s/free", w->name);
		snprintf(num, sizeof(num), "%llu", (unsigned long long)w->cma_pages);
		file_write(path, num);
		w->cma_pages = 0;
	} else if (!strcmp(w->kind, "v4l2") || !strcmp(w->kind, "v4l2q")) {
		v4l2_reqbufs(w, 0);
	} else {
		file_write(dmb_test_file(w->dir, "free", path, sizeof(path)), "all");
	}
}

/*
 * A process that fills memory as root until it has a page in each of
 * @want equal slices of [base, base + size) (pagemap shows frames to root
 * only; it gives up after 768 MiB), drops to nobody and splices them into
 * a pipe it never reads.  What it filled stays, for claims to move out.  Returns its pid; the frames are in @pfn, their
 * count in *@n.
 */
static pid_t pinner(uint64_t base, uint64_t size, int want, uint64_t *pfn,
		    int *n)
{
	int rep[2], data[2];
	pid_t pid;

	*n = 0;
	if (pipe(rep) || pipe(data))
		return -1;
	pid = fork();
	if (!pid) {
		size_t len = 768 << 20, step = 2 << 20, i, k;
		size_t np = step / page_size(), gap = size / want;
		uint64_t *pf = calloc(np, sizeof(*pf)), got[MAX_PINS] = { 0 };
		struct iovec iov[MAX_PINS], sel[MAX_PINS];
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		int cnt = 0;

		if (m == MAP_FAILED || !pf)
			_exit(1);
		for (i = 0; i < len && cnt < want; i += step) {
			memset(m + i, 0x5a, step);
			if (virt_to_pfns(m + i, np, pf))
				_exit(1);
			for (k = 0; k < np && cnt < want; k++) {
				uint64_t pa = pf[k] * page_size(), slice;

				if (pa < base || pa >= base + size)
					continue;
				slice = (pa - base) / gap;
				if (slice >= (uint64_t)want || got[slice])
					continue;
				got[slice] = pf[k];
				iov[slice].iov_base = m + i + k * page_size();
				iov[slice].iov_len = page_size();
				cnt++;
			}
		}
		/* in the order of the block, the slices that have a page */
		for (i = 0, cnt = 0; i < (size_t)want; i++)
			if (got[i]) {
				got[cnt] = got[i];
				sel[cnt++] = iov[i];
			}
		if (setgid(65534) || setuid(65534) || !getuid())
			_exit(1);
		/* the pipe must hold them all (nobody may grow it to 1 MiB) */
		if (fcntl(data[1], F_SETPIPE_SZ, MAX_PINS * page_size()) < 0 ||
		    (cnt && vmsplice(data[1], sel, cnt, SPLICE_F_NONBLOCK) !=
			    (ssize_t)(cnt * page_size())))
			cnt = 0;
		if (write(rep[1], &cnt, sizeof(cnt)) != sizeof(cnt) ||
		    write(rep[1], got, cnt * sizeof(got[0])) != (ssize_t)(cnt * sizeof(got[0])))
			_exit(1);
		/* the filled memory stays: claims have data to move out */
		for (;;)
			pause();
	}
	/* only the child keeps the pipe: its pages go when it does */
	close(data[0]);
	close(data[1]);
	close(rep[1]);
	if (read(rep[0], n, sizeof(*n)) != sizeof(*n) || *n < 0 || *n > MAX_PINS ||
	    read(rep[0], pfn, *n * sizeof(*pfn)) != (ssize_t)(*n * sizeof(*pfn)))
		*n = 0;
	close(rep[0]);
	return pid;
}

/* The longest of three 1 MiB claims through @w alone, in ms */
static double solo_ms(struct way *w)
{
	double t, mx = 0;
	int i;

	for (i = 0; i < 3; i++) {
		t = now_ms();
		if (way_claim(w, 1 << 20))
			return -1;
		t = now_ms() - t;
		way_free(w);
		if (t > mx)
			mx = t;
	}
	return mx;
}

/*
 * Claim @size through @w while a child claims 1 MiB through @other a
 * moment later; metrics <tag>: ret, ms, other_ret, overlap (the other
 * claim started before this one ended) and other_held_up (it started
 * during this one, ended after it, and took more than three times its
 * time alone plus 20 ms: it waited for this one).  A claim that ended
 * before the other started tells nothing: it is tried again, with the
 * other started sooner (20, 10, 5, 2, 1 ms), up to five times.
 */
static void claim_pair(struct way *w, struct way *other, uint64_t size,
		       const char *tag)
{
	static const int delay_us[] = { 20000, 10000, 5000, 2000, 1000 };
	volatile double *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				   MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	double t0, t1, solo = solo_ms(other);
	unsigned int try;
	char name[64];
	pid_t kid;
	int ret;

	if (sh == MAP_FAILED)
		t_bail("mmap: %s", strerror(errno));
	for (try = 0; try < 5; try++) {
		sh[0] = sh[1] = sh[2] = 0;
		t0 = now_ms();
		kid = fork();
		if (!kid) {
			usleep(delay_us[try]);
			sh[0] = now_ms();
			sh[2] = way_claim(other, 1 << 20);
			sh[1] = now_ms();
			if (!sh[2])
				way_free(other);
			_exit(0);
		}
		ret = way_claim(w, size);
		t1 = now_ms();
		if (!ret)
			way_free(w);
		waitpid(kid, NULL, 0);
		if (sh[0] < t1)
			break;
	}
	snprintf(name, sizeof(name), "ret_%s", tag);
	metric_set(name, ret);
	snprintf(name, sizeof(name), "ms_%s", tag);
	metric_set(name, t1 - t0);
	snprintf(name, sizeof(name), "other_ret_%s", tag);
	metric_set(name, sh[2]);
	snprintf(name, sizeof(name), "overlap_%s", tag);
	metric_set(name, sh[0] < t1);
	snprintf(name, sizeof(name), "other_held_up_%s", tag);
	metric_set(name, sh[0] < t1 && sh[1] >= t1 &&
		   (solo < 0 || sh[1] - sh[0] > 3 * solo + 20));
	t_report("%s: %s claim of %llu MiB: %d in %.0f ms (try %u); 1 MiB on the other block: %.0f ms (alone at most %.0f), started %.0f ms in",
		 tag, w->kind, (unsigned long long)size >> 20, ret, t1 - t0,
		 try + 1, sh[1] - sh[0], solo, sh[0] - t0);
	munmap((void *)sh, 4096);
}

/* /sys/kernel/mm/cma/<area>/<file>, or -1 */
static long cma_counter(const char *area, const char *file)
{
	char path[300], buf[32];

	snprintf(path, sizeof(path), "/sys/kernel/mm/cma/%s/%s", area, file);
	return file_read_str(path, buf, sizeof(buf)) ? -1 : atol(buf);
}

/* Does a line of @text holding @a also name one of the pins with @fmt? */
static int names_pin(const char *text, const char *a, const char *fmt,
		     const uint64_t *pfn, int n)
{
	char needle[64];
	const char *l, *e;
	int i;

	for (l = text; (l = strstr(l, a)); l++) {
		e = strchr(l, '\n');
		for (i = 0; i < n; i++) {
			const char *h;

			snprintf(needle, sizeof(needle), fmt, (unsigned long long)pfn[i]);
			h = strstr(l, needle);
			if (h && (!e || h < e))
				return 1;
		}
	}
	return 0;
}

/* ---- speed: the ways side by side ----------------------------------------- */

#define MAX_WAYS	8
#define FILL_STEP	(2 << 20)
#define FILL_MAX	(1200ull << 20)

static struct {
	char *m[FILL_MAX / FILL_STEP];
	int n;
} fill;

/* Pages of our fill inside [base, base + size) */
static long fill_in(uint64_t base, uint64_t size)
{
	size_t np = FILL_STEP / page_size();
	static uint64_t pf[FILL_STEP / 4096];
	long in = 0;
	size_t k;
	int i;

	for (i = 0; i < fill.n; i++) {
		if (virt_to_pfns(fill.m[i], np, pf))
			continue;
		for (k = 0; k < np; k++)
			in += pf[k] * page_size() >= base &&
			      pf[k] * page_size() < base + size;
	}
	return in;
}

/* Drop the fill: the next fill_to() starts from the same memory again */
static void fill_reset(void)
{
	while (fill.n)
		munmap(fill.m[--fill.n], FILL_STEP);
}

/* Fill memory until each block holds @occ % user pages (or FILL_MAX) */
static void fill_to(const uint64_t *base, const uint64_t *size, int nb,
		    int occ)
{
	int b, short_of;

	do {
		short_of = 0;
		for (b = 0; b < nb; b++)
			short_of |= (uint64_t)fill_in(base[b], size[b]) * page_size() * 100 <
				    size[b] * (uint64_t)occ;
		if (!short_of || fill.n == (int)(FILL_MAX / FILL_STEP))
			return;
		for (b = 0; b < 8 && fill.n < (int)(FILL_MAX / FILL_STEP); b++) {
			char *m = mmap(NULL, FILL_STEP, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (m == MAP_FAILED)
				return;
			memset(m, 0x3c, FILL_STEP);
			fill.m[fill.n++] = m;
		}
	} while (1);
}

/* The zones below ZONE_MOVABLE: free pages, watermarks, extfrag index */
static void zones_report(const char *phase)
{
	static char zi[1 << 16], ef[4096];
	char zone[16] = "", *l, *save;
	long v, fr = -1, mn = -1, lo = -1, hi = -1;

	if (file_read_str("/proc/zoneinfo", zi, sizeof(zi)))
		return;
	if (file_read_str("/sys/kernel/debug/extfrag/extfrag_index", ef, sizeof(ef)))
		ef[0] = '\0';
	for (l = strtok_r(zi, "\n", &save); ; l = strtok_r(NULL, "\n", &save)) {
		char z[16];

		if (!l || sscanf(l, "Node 0, zone %15s", z) == 1) {
			/* the zones below ZONE_MOVABLE that have memory */
			if (zone[0] && strcmp(zone, "Movable") && fr > 0) {
				char key[32], *e = NULL, idx[64] = "n/a";

				snprintf(key, sizeof(key), "zone %8s", zone);
				e = strstr(ef, key);
				if (e)
					sscanf(e + strlen(key), " %63[^\n]", idx);
				/* one value per order, a key=value field */
				idx[strcspn(idx, "\n")] = '\0';
				while (*idx && idx[strlen(idx) - 1] == ' ')
					idx[strlen(idx) - 1] = '\0';
				for (e = idx; *e; e++)
					if (*e == ' ')
						*e = ',';
				t_info("bench: zones phase=%s zone=%s free=%ld min=%ld low=%ld high=%ld extfrag=%s",
				       phase, zone, fr, mn, lo, hi, idx);
			}
			if (!l)
				break;
			snprintf(zone, sizeof(zone), "%s", z);
			fr = mn = lo = hi = -1;
			continue;
		}
		if (sscanf(l, " pages free %ld", &v) == 1)
			fr = v;
		else if (sscanf(l, " min %ld", &v) == 1)
			mn = v;
		else if (sscanf(l, " low %ld", &v) == 1)
			lo = v;
		else if (sscanf(l, " high %ld", &v) == 1)
			hi = v;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Open the ways of @list, "WAY+<dmb>,...", loading their modules; their
 * blocks' bases and sizes in @base and @bsz.  Returns how many.
 */
static int ways_open(const char *list, const char *opt, struct way *w,
		     uint64_t *base, uint64_t *bsz)
{
	struct dmb_range d[16];
	char buf[512], *tok, *save;
	int nw = 0, nd = read_dmbs(d, 16), i;

	snprintf(buf, sizeof(buf), "%s", list);
	for (tok = strtok_r(buf, ",", &save); tok && nw < MAX_WAYS;
	     tok = strtok_r(NULL, ",", &save)) {
		char *at = strchr(tok, '+');

		if (!at)
			t_bail("%s: %s: expected WAY+<dmb>", opt, tok);
		*at = '\0';
		if (way_parse(tok, &w[nw]))
			t_bail("%s: bad way %s", opt, tok);
		bsz[nw] = 0;
		for (i = 0; i < nd; i++)
			if (strstr(d[i].name, at + 1)) {
				base[nw] = d[i].base;
				bsz[nw] = d[i].size;
			}
		if (!bsz[nw])
			t_bail("no block %s", at + 1);
		if ((!strcmp(w[nw].kind, "dma") && load_module("dma_client")) ||
		    (!strcmp(w[nw].kind, "v4l2") && load_module("dmb_v4l2dec")) ||
		    (!strcmp(w[nw].kind, "dmb") &&
		     (load_module("dmb_alloc") || load_module("dmb_test"))))
			t_bail("cannot load the modules of %s", tok);
		if (way_open(&w[nw]))
			t_bail("cannot open %s", tok);
		nw++;
	}
	if (!nw)
		t_bail("%s: no way in", opt);
	return nw;
}

static int speed(int argc, char **argv)
{
	const char *list = opt_get(argc, argv, "speed"), *o;
	int64_t size = (o = opt_get(argc, argv, "size")) ? parse_size(o) : 16 << 20;
	int occ = (o = opt_get(argc, argv, "occ")) ? atoi(o) : 50;
	int reps = (o = opt_get(argc, argv, "reps")) ? atoi(o) : 4;
	struct way w[MAX_WAYS];
	uint64_t base[MAX_WAYS], bsz[MAX_WAYS];
	static double ms[MAX_WAYS][64];
	double occ_min[MAX_WAYS] = { 0 };
	int nw, n[MAX_WAYS] = { 0 }, err[MAX_WAYS] = { 0 }, i, r, k, ok = 0;

	if (size <= 0 || occ < 0 || occ > 100 || reps < 1 || reps > 64)
		t_bail("bad --size, --occ or --reps");
	nw = ways_open(list, "--speed", w, base, bsz);
	fill_to(base, bsz, nw, occ);
	zones_report("before");
	for (r = 0; r < reps; r++) {
		/*
		 * A fresh fill each round: the pages the last round moved out
		 * stay where they went, and filling on top of them would
		 * leave the blocks filled last short of @occ.
		 */
		fill_reset();
		fill_to(base, bsz, nw, occ);
		for (i = 0; i < nw; i++) {
			double o = 100.0 * fill_in(base[i], bsz[i]) * page_size() / bsz[i];

			if (!r || o < occ_min[i])
				occ_min[i] = o;
		}
		for (k = 0; k < nw; k++) {
			/* each way first in turn: none always meets the others' moves */
			i = (k + r) % nw;
			double t0 = now_ms();
			int ret;

			w[i].ms = -1;
			ret = way_claim(&w[i], size);
			if (ret) {
				err[i]++;
				continue;
			}
			ms[i][n[i]++] = w[i].ms >= 0 ? w[i].ms : now_ms() - t0;
		}
		if (r == reps - 1)
			zones_report("during");
		for (i = 0; i < nw; i++)
			way_free(&w[i]);
	}
	zones_report("after");
	for (i = 0; i < nw; i++) {
		double p50 = -1, p99 = -1, mx = -1;

		if (n[i]) {
			qsort(ms[i], n[i], sizeof(ms[i][0]), cmp_double);
			p50 = ms[i][(n[i] - 1) / 2];
			p99 = ms[i][(n[i] * 99 + 99) / 100 - 1];
			mx = ms[i][n[i] - 1];
		}
		ok += n[i] == reps;
		t_info("bench: ways way=%s size_mb=%lld occ=%d occ_reached=%.0f n=%d p50_ms=%.1f p99_ms=%.1f max_ms=%.1f errors=%d",
		       w[i].kind, (long long)size >> 20, occ, occ_min[i],
		       n[i], p50, p99, mx, err[i]);
	}
	metric_set("ways_ok", ok);
	if (file_write(TEST_FILE, "unhandle"))
		t_diag("no dmb_test handle to drop");
	check_expectations(argc, argv);
	return t_finish();
}

/* ---- load: whole claims on a busy system --------------------------------- */

#define LOAD_MAX	1024

/* Compaction every 5 s, as a busy box's own compaction would run */
static int load_compact(size_t unused)
{
	(void)unused;
	for (;;) {
		file_write("/proc/sys/vm/compact_memory", "1");
		sleep(5);
	}
	return 0;
}

static void kmsg_since(int fd, char *buf, size_t len);

/* The kernel's word on each busy failure since @kfd was opened */
static void load_busy_messages(int kfd)
{
	static char kl[1 << 18];
	char *l, *save;

	kmsg_since(kfd, kl, sizeof(kl));
	for (l = strtok_r(kl, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		if (strstr(l, "busy attempts"))
			t_diag("kernel: %s", strchr(l, ';') ? strchr(l, ';') + 1 : l);
}

/* The failed cma_alloc() calls of the load, each logged, counted by errno */
static void load_trace_causes(void)
{
	static char tr[4 << 20];
	int busy = 0, nomem = 0, other = 0, seen = 0, e;
	char *l, *save, *x;

	if (file_read_str(TRACE "trace", tr, sizeof(tr)))
		return;
	for (l = strtok_r(tr, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strstr(l, "cma_alloc_finish:") || !(x = strstr(l, "errorno=")))
			continue;
		seen++;
		e = atoi(x + 8);
		if (!e)
			continue;
		busy += e == -EBUSY;
		nomem += e == -ENOMEM;
		other += e != -EBUSY && e != -ENOMEM;
		t_diag("failed: %s", strstr(l, "cma_alloc_finish:"));
	}
	t_info("bench: load_causes cma_allocs=%d trace_ebusy=%d trace_enomem=%d trace_other=%d",
	       seen, busy, nomem, other);
	metric_set("trace_ebusy", busy);
	metric_set("trace_enomem", nomem);
}

static int load(int argc, char **argv)
{
	const char *list = opt_get(argc, argv, "load"), *o;
	int secs = (o = opt_get(argc, argv, "secs")) ? atoi(o) : 60;
	int hold = (o = opt_get(argc, argv, "hold")) ? atoi(o) : 200;
	int64_t mem = (o = opt_get(argc, argv, "mem")) ? parse_size(o) : 256 << 20;
	static double ms[MAX_WAYS][LOAD_MAX];
	int n[MAX_WAYS] = { 0 }, ok[MAX_WAYS] = { 0 }, ebusy[MAX_WAYS] = { 0 };
	int enomem[MAX_WAYS] = { 0 }, other[MAX_WAYS] = { 0 };
	long moved[MAX_WAYS] = { 0 };
	int claims = (o = opt_get(argc, argv, "claims")) ? atoi(o) : LOAD_MAX;
	uint64_t base[MAX_WAYS], bsz[MAX_WAYS];
	struct way w[MAX_WAYS];
	int nw, i, bad, final_ok = 0, min_pct = 100, kfd;
	char name[64];
	pid_t pids[6];
	double end;

	if (secs < 1 || hold < 0 || mem < (4 << 20))
		t_bail("bad --secs, --hold or --mem");
	nw = ways_open(list, "--load", w, base, bsz);

	/* what cma_alloc() itself ended each claim with, and said of it */
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	file_write(TRACE "buffer_size_kb", "4096");
	file_write(TRACE "trace", "");
	file_write(TRACE "events/cma/cma_alloc_finish/enable", "1");
	pids[0] = load_spawn(load_hog, mem);
	pids[1] = load_spawn(load_splice, mem / 16);
	pids[2] = load_spawn(load_memfd, mem / 4);
	pids[3] = load_spawn(load_madvise, mem / 4);
	pids[4] = load_spawn(load_fork, mem / 8);
	pids[5] = load_spawn(load_compact, 0);
	sleep(2);
	if (claims < 1 || claims > LOAD_MAX)
		t_bail("bad --claims");
	/*
	 * Whole blocks, one way after the other, each held a moment, for
	 * --secs or until every way has made --claims claims
	 */
	for (end = now_ms() + secs * 1e3; now_ms() < end && n[nw - 1] < claims; ) {
		for (i = 0; i < nw; i++) {
			long mig = vmstat("pgmigrate_success");
			double t0 = now_ms();
			int ret = way_claim(&w[i], bsz[i]);

			ms[i][n[i]++] = now_ms() - t0;
			/* the block held user pages: the claim moved some */
			moved[i] += vmstat("pgmigrate_success") - mig;
			if (!ret) {
				ok[i]++;
				usleep(hold * 1000);
				way_free(&w[i]);
			} else if (ret == -EBUSY) {
				ebusy[i]++;
			} else if (ret == -ENOMEM) {
				enomem[i]++;
			} else {
				other[i]++;
			}
		}
	}
	kill(pids[5], SIGKILL);
	waitpid(pids[5], NULL, 0);
	pids[5] = 0;
	bad = load_end(pids, 6);
	file_write(TRACE "events/cma/cma_alloc_finish/enable", "0");
	load_trace_causes();
	load_busy_messages(kfd);
	if (kfd >= 0)
		close(kfd);
	/* the load gone, every way claims its whole block at once */
	for (i = 0; i < nw; i++) {
		if (!way_claim(&w[i], bsz[i])) {
			final_ok++;
			way_free(&w[i]);
		}
	}
	for (i = 0; i < nw; i++) {
		double p50 = -1, p99 = -1, pct = n[i] ? 100.0 * ok[i] / n[i] : 0;

		if (n[i]) {
			qsort(ms[i], n[i], sizeof(ms[i][0]), cmp_double);
			p50 = ms[i][(n[i] - 1) / 2];
			p99 = ms[i][(n[i] * 99 + 99) / 100 - 1];
		}
		t_info("bench: load way=%s size_mb=%llu n=%d ok=%d ok_pct=%.1f p50_ms=%.1f p99_ms=%.1f ebusy=%d enomem=%d other=%d moved=%ld",
		       w[i].kind, (unsigned long long)bsz[i] >> 20, n[i], ok[i],
		       pct, p50, p99, ebusy[i], enomem[i], other[i], moved[i]);
		snprintf(name, sizeof(name), "%s_moved", w[i].kind);
		metric_set(name, moved[i]);
		snprintf(name, sizeof(name), "%s_claims", w[i].kind);
		metric_set(name, n[i]);
		snprintf(name, sizeof(name), "%s_ok_pct", w[i].kind);
		metric_set(name, pct);
		if (pct < min_pct)
			min_pct = (int)pct;
	}
	metric_set("min_ok_pct", min_pct);
	metric_set("corrupt", bad);
	metric_set("final_ok", final_ok);
	if (file_write(TEST_FILE, "unhandle"))
		t_diag("no dmb_test handle to drop");
	check_expectations(argc, argv);
	return t_finish();
}

/* Timestamp (s) of the first line of @tr with ": @ev: name=@name ", or -1 */
static double trace_first(const char *tr, const char *ev, const char *name)
{
	char key[128];
	const char *e, *p;

	snprintf(key, sizeof(key), ": %s: name=%s ", ev, name);
	e = strstr(tr, key);
	if (!e)
		return -1;
	for (p = e; p > tr && p[-1] != ' '; p--)
		;
	return atof(p);
}

/* errorno= of the last cma_alloc_finish of area @name in @tr, or 1 */
static int trace_last_err(const char *tr, const char *name)
{
	char key[128];
	const char *e, *last = NULL;

	snprintf(key, sizeof(key), ": cma_alloc_finish: name=%s ", name);
	for (e = tr; (e = strstr(e, key)); e++)
		last = e;
	e = last ? strstr(last, "errorno=") : NULL;
	return e ? atoi(e + 8) : 1;
}

/* What the kernel logged since @fd was opened at the log's end */
static void kmsg_since(int fd, char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;

	buf[0] = '\0';
	while (fd >= 0 && off + 1 < len) {
		n = read(fd, buf + off, len - off - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten records: go on */
		if (n <= 0)
			break;
		off += n;
		buf[off] = '\0';
	}
}

int main(int argc, char **argv)
{
	const char *block = opt_get(argc, argv, "block");
	const char *o = opt_get(argc, argv, "pins");
	int want = o ? atoi(o) : 64, n = 0, i, nd;
	static char tr[1 << 18], kl[1 << 18];
	struct dmb_range d[16];
	struct way w, other;
	uint64_t pfn[MAX_PINS], base = 0, size = 0;
	const char *other_block = opt_get(argc, argv, "other-block");
	double t_busy, t_other;
	long fail_busy;
	int kfd, named;
	pid_t pin;

	t_init("pinclaim");
	if (opt_get(argc, argv, "speed"))
		return speed(argc, argv);
	if (opt_get(argc, argv, "load"))
		return load(argc, argv);
	if (!block || way_parse(opt_get(argc, argv, "via"), &w) ||
	    way_parse(opt_get(argc, argv, "other"), &other) || want < 1 || want > MAX_PINS)
		t_bail("usage: pinclaim --via=WAY --block=<dmb> --other=WAY [--pins=N]");
	nd = read_dmbs(d, 16);
	for (i = 0; i < nd; i++)
		if (strstr(d[i].name, block)) {
			base = d[i].base;
			size = d[i].size;
		}
	if (!size)
		t_bail("no block %s", block);
	if ((!strcmp(w.kind, "dma") || !strcmp(other.kind, "dma")) &&
	    load_module("dma_client"))
		t_bail("cannot load dma_client");
	if ((!strcmp(w.kind, "dmb") || !strcmp(other.kind, "dmb")) &&
	    (load_module("dmb_alloc") || load_module("dmb_test")))
		t_bail("cannot load dmb_alloc and dmb_test");
	if (way_open(&w) || way_open(&other))
		t_bail("cannot open the ways in (a dmb_alloc handle, a decoder)");
	if (!strcmp(other.kind, "dmb") && !strcmp(w.kind, "dmb") &&
	    !strcmp(other.dir, w.dir))
		t_bail("--other names the same block");

	pin = pinner(base, size, want, pfn, &n);
	metric_set("pins", n);
	if (pin < 0 || !n)
		t_bail("no page of %s could be held from a pipe", block);
	t_diag("%d pages of %s held from a pipe, 0x%llx..0x%llx", n, block,
	       (unsigned long long)pfn[0], (unsigned long long)pfn[n - 1]);
	/* this run's kernel messages only */
	kfd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (kfd >= 0)
		lseek(kfd, 0, SEEK_END);
	file_write(TRACE "events/cma/enable", "1");

	file_write(TRACE "trace", "");
	claim_pair(&w, &other, 8 << 20, "8m");
	if (file_read_str(TRACE "trace", tr, sizeof(tr)))
		tr[0] = '\0';
	named = names_pin(tr, "cma_alloc_busy_retry:", "busy_pfn=0x%llx ", pfn, n);

	file_write(TRACE "trace", "");
	fail_busy = cma_counter(block, "alloc_fail_busy");
	claim_pair(&w, &other, size, "whole");
	/* the area counts the busy failure, whatever the way in said */
	metric_set("sysfs_fail_busy_whole",
		   cma_counter(block, "alloc_fail_busy") - fail_busy);
	file_write(TRACE "events/cma/enable", "0");
	if (file_read_str(TRACE "trace", tr, sizeof(tr)))
		tr[0] = '\0';
	named |= names_pin(tr, "cma_alloc_busy_retry:", "busy_pfn=0x%llx ", pfn, n);
	metric_set("trace_names_pin", named);
	/* why the whole claim failed, as CMA saw it (-EBUSY: a held page) */
	metric_set("cma_err_whole", trace_last_err(tr, block));
	/*
	 * The other block's claim, started during the first attempt of the
	 * whole one, ends before that attempt does: no lock is shared.
	 */
	if (other_block && strcmp(other_block, block)) {
		t_busy = trace_first(tr, "cma_alloc_busy_retry", block);
		t_other = trace_first(tr, "cma_alloc_finish", other_block);
		metric_set("other_before_first_attempt", t_busy > 0 && t_other > 0 &&
			   t_other < t_busy);
		t_report("whole: first attempt on %s ended at %.3f s, the claim on %s at %.3f s",
			 block, t_busy, other_block, t_other);
	}
	kmsg_since(kfd, kl, sizeof(kl));
	if (kfd >= 0)
		close(kfd);
	metric_set("log_names_busy", strstr(kl, "busy attempts") != NULL);
	/* a held page's frame, in any format, anywhere in what was logged */
	for (i = 0, named = 0; i < n && !named; i++)
		named = text_has_hex(kl, pfn[i]);
	metric_set("log_names_pin", named);

	/* the pipe closed, the whole block is claimed at once */
	kill(pin, SIGKILL);
	waitpid(pin, NULL, 0);
	metric_set("after", way_claim(&w, size));
	way_free(&w);
	if (!strcmp(w.kind, "dmb") || !strcmp(other.kind, "dmb"))
		file_write(TEST_FILE, "unhandle");
	check_expectations(argc, argv);
	return t_finish();
}
