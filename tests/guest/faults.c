// SPDX-License-Identifier: GPL-2.0
/*
 * faults: claims, releases, decoder sessions and unbinds with the kernel's
 * own fault injection (failslab and fail_page_alloc, debug kernel) failing
 * allocations of the working process at random: every failure must unwind
 * (nothing claimed at the end, no leak for kmemleak), reach the caller as
 * an errno, and leave other processes' data intact.
 *
 * A decoder session is one of the main V4L2 sample decoder (dmb_v4l2dec,
 * bound to video-decoder-0) that claims with dmb_alloc() (use_dmb_alloc,
 * set for the run): open, OUTPUT format FWHT 640x480, two MMAP OUTPUT
 * buffers (one run of the block), one of them mapped and read back as
 * zeroes, unmapped, freed (REQBUFS 0), closed.
 *
 * usage: faults [--rounds=200] [--probability=10] [expectations]
 * Only the working process fails (task-filter, /proc/self/make-it-fail);
 * sleeping allocations fail too (ignore-gfp-wait=N).
 * Metrics: rounds; claim_ok, claim_err, session_ok, session_err, bind_err
 * (operations that succeeded or failed with an errno); bad_errno
 * (failures with an errno no path should return); failslab_injected,
 * page_alloc_injected (failures the kernel injected, from "times");
 * claimed_after (pages of the block still claimed after the run);
 * whole_after (a claim of the whole block after the run, 0); corrupt
 * (damaged pages of a bystander's checksummed data, and of the data put
 * in the claimed range for the nth_claim pass); leaks (kmemleak's
 * suspects after two scans).
 * Then, without randomness, each allocation of a claim, of a decoder
 * session and of a rebind fails once in turn (/proc/thread-self/fail-nth):
 * nth_<op>_sites, nth_<op>_err, nth_<op>_covered, nth_<op>_left_claimed,
 * nth_bad_errno (see fail_each()); nth_claim_dmb_failed counts the claims
 * that failed in the block's CMA area (its alloc_pages_fail), not only in
 * the system calls on the way to it: nth_claim_user_pages user pages are
 * put in the claimed range first, so that its migration has work.  A
 * single failed migration target no longer fails a claim (patch 0012
 * falls back to ZONE_MOVABLE), so twice_claim_dmb_failed counts claims
 * whose first two page allocations fail, which must fail inside
 * dmb_alloc() and unwind (twice_claim_err: attempts that failed at all).
 * The claims of this part migrate on the failing thread's CPU alone
 * (page_alloc.contig_threads=1): its helpers on other CPUs would not fail.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "guest.h"

#define DBG "/sys/kernel/debug/"
#define BLK DBG "dmb_alloc/dmb@60000000/"
/* dmb_test's claim files of that block */
#define CLAIM DBG "dmb_test/dmb@60000000/"
#define TIMES 1000000
/* the main decoder: its driver, its device, sessions of dmb_alloc() */
#define DRV "/sys/bus/platform/drivers/dmb_v4l2dec/"
#define DEC_DEV "video-decoder-0"

static const char *const fail[] = { "failslab", "fail_page_alloc" };

static void inject(int on, int probability)
{
	char path[128], v[16];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), DBG "%s/probability", fail[i]);
		snprintf(v, sizeof(v), "%d", on ? probability : 0);
		file_write(path, v);
		if (!on)
			continue;
		snprintf(path, sizeof(path), DBG "%s/task-filter", fail[i]);
		file_write(path, "Y");
		snprintf(path, sizeof(path), DBG "%s/interval", fail[i]);
		file_write(path, "1");
		snprintf(path, sizeof(path), DBG "%s/times", fail[i]);
		snprintf(v, sizeof(v), "%d", TIMES);
		file_write(path, v);
		snprintf(path, sizeof(path), DBG "%s/verbose", fail[i]);
		file_write(path, "0");
		snprintf(path, sizeof(path), DBG "%s/ignore-gfp-wait", fail[i]);
		file_write(path, "N");
	}
	file_write(DBG "fail_page_alloc/ignore-gfp-highmem", "N");
	file_write(DBG "fail_page_alloc/min-order", "0");
}

static long injected(const char *which)
{
	char path[128], b[32];

	snprintf(path, sizeof(path), DBG "%s/times", which);
	return file_read_str(path, b, sizeof(b)) ? -1 : TIMES - atol(b);
}

static long info_claimed(void)
{
	char b[512], *p;
	int ret = file_read_str(BLK "info", b, sizeof(b));

	if (ret)
		return ret == -ENOENT ? 0 : -1;
	p = strstr(b, "claimed: ");
	return p ? strtol(p + 9, NULL, 10) : -1;
}

/* Errors a claim, a session or a bind may return when memory fails */
static int expected_errno(int e)
{
	/* 517 is EPROBE_DEFER, which a bind may pass on */
	return e == ENOMEM || e == EBUSY || e == EINTR || e == ENOSPC ||
	       e == ENODEV || e == ENOENT || e == ENXIO || e == 517;
}

struct counts {
	double claim_ok, claim_err, session_ok, session_err, bind_err, bad_errno;
};

static void tally(struct counts *c, double *ok, double *err, int ret)
{
	if (!ret) {
		(*ok)++;
		return;
	}
	(*err)++;
	if (!expected_errno(-ret)) {
		c->bad_errno++;
		t_diag("unexpected errno %d", ret);
	}
}

/*
 * The main decoder's /dev/videoN, found with nothing failing: at the
 * start and after each bind (empty when it is not bound: a session then
 * fails with -ENOENT)
 */
static char node[64];

static void find_node(void)
{
	char pdev[128];

	if (v4l2_find_decoder("main", node, sizeof(node), pdev, sizeof(pdev)))
		node[0] = '\0';
}

/* sessions opened from now on claim through the DMA API again */
static void use_dmb_off(void)
{
	file_write(V4L2DEC_USE_DMB, "N");
}

/*
 * One decoder session: the format, two OUTPUT buffers (one run claimed
 * with dmb_alloc()), the second mapped and read (dmb_alloc() zeroes the
 * run), the buffers freed; 0 or -errno
 */
static int session(void)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	struct v4l2_requestbuffers rb = { .count = 2, .memory = V4L2_MEMORY_MMAP,
					  .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	struct v4l2_buffer b = { .index = 1, .memory = V4L2_MEMORY_MMAP,
				 .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	int fd = open(node, O_RDWR | O_CLOEXEC), ret = 0;
	uint32_t *w;
	size_t i;

	if (fd < 0)
		return -errno;
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	f.fmt.pix.width = 640;
	f.fmt.pix.height = 480;
	if (ioctl(fd, VIDIOC_S_FMT, &f) || ioctl(fd, VIDIOC_REQBUFS, &rb)) {
		ret = -errno;
		goto out;
	}
	/* vb2 hands out the buffers it could allocate */
	if (rb.count != 2) {
		ret = -ENOMEM;
		goto free;
	}
	if (ioctl(fd, VIDIOC_QUERYBUF, &b)) {
		ret = -errno;
		goto free;
	}
	w = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, b.m.offset);
	if (w == MAP_FAILED) {
		ret = -errno;
		goto free;
	}
	for (i = 0; i < b.length / 4; i++)
		if (w[i]) {
			ret = -EIO;	/* not an allocation failure: counted as bad */
			break;
		}
	munmap(w, b.length);
free:
	rb.count = 0;
	if (ioctl(fd, VIDIOC_REQBUFS, &rb) && !ret)
		ret = -errno;
out:
	close(fd);
	return ret;
}

static int rebind(void)
{
	file_write(DRV "unbind", DEC_DEV);
	return file_write(DRV "bind", DEC_DEV);
}

/*
 * Let this process's allocations fail, or not.  Opening the file can fail
 * too (a struct file is a slab object): try until it takes.
 */
static void make_it_fail(int on)
{
	int i;

	for (i = 0; i < 1000; i++)
		if (!file_write("/proc/self/make-it-fail", on ? "1" : "0"))
			return;
	t_diag("cannot set make-it-fail to %d", on);
}

/* The working process: every allocation of it may fail */
static void work(int rounds, int out)
{
	struct counts c = { 0 };
	int i, ret;

	make_it_fail(1);
	for (i = 0; i < rounds; i++) {
		ret = file_write(CLAIM "alloc", "16777216");
		tally(&c, &c.claim_ok, &c.claim_err, ret);
		/*
		 * dmb_release() allocates nothing, but the debugfs write that
		 * reaches it does (the file, the copied text): release with
		 * faults off, so that what stays claimed is the kernel's doing.
		 */
		make_it_fail(0);
		if (!ret && file_write(CLAIM "free", "all"))
			c.bad_errno++;
		make_it_fail(1);
		tally(&c, &c.session_ok, &c.session_err, session());
		if (i % 25 == 24) {
			ret = rebind();
			/* without faults: bind again if it failed, find the node */
			make_it_fail(0);
			if (ret) {
				c.bind_err++;
				file_write(DRV "bind", DEC_DEV);
			}
			find_node();
			make_it_fail(1);
		}
	}
	/* the pipe's page is an allocation too: report without faults */
	make_it_fail(0);
	if (write(out, &c, sizeof(c)) != sizeof(c))
		_exit(1);
	_exit(0);
}

/* ---- every allocation site once: /proc/thread-self/fail-nth ------------ */

/* dmb_alloc's CPUs per claim (0: every online CPU, 1: the caller alone) */
#define CLAIM_CPUS "/sys/module/page_alloc/parameters/contig_threads"

/* The block is free before each claim: it takes the block's first 16 MiB */
#define CLAIM_BASE 0x60000000ULL
#define CLAIM_SIZE (16ULL << 20)

static int op_claim(void)
{
	return file_write(CLAIM "alloc", "16777216");
}

/*
 * Anonymous memory in chunks of 32 MiB (at most 16 of them, never below
 * 256 MiB available) until some of it lies in the range op_claim() takes
 * (ZONE_MOVABLE is tried first, the block is free again): how many
 * pages do, 0 if none could be put there.  The chunks stay in @r.
 */
#define FILL_CHUNKS 16
static size_t user_in_claim(struct user_region *r)
{
	size_t in = 0;
	int n;

	for (n = 0; n < FILL_CHUNKS && in < 64; n++) {
		if (meminfo_kb("MemAvailable") < (32 + 256) << 10 ||
		    region_fill(&r[n], 32 << 20, 0xc1a1 + n, -1)) {
			r[n].p = NULL;
			break;
		}
		in += region_in(&r[n], CLAIM_BASE, CLAIM_SIZE);
	}
	return in;
}

/* After a claim, with nothing failing: give back what it took */
static void undo_claim(int ret)
{
	if (!ret && file_write(CLAIM "free", "all"))
		t_diag("nth_claim: cannot free the claim");
}

/*
 * A claim whose first two page allocations fail: with user pages in the
 * range, the migration target of the first page and the fallback after
 * it (patch 0012 tries memory below ZONE_MOVABLE first, then ZONE_MOVABLE),
 * so that the claim fails inside dmb_alloc() and unwinds.  Slab pages
 * taken on the way may use up the two failures first: a few attempts.
 * Returns how many attempts failed inside dmb_alloc(); *errs counts the
 * attempts that returned an error at all.
 */
static long claim_failing_twice(const char *cma_failed, int *errs,
				struct user_region *base, size_t *bad)
{
	char buf[32], v[16], pro[16] = "";
	long before, after, inside = 0;
	ssize_t ret;
	int i, k, fd;
	size_t in;

	/*
	 * Compaction (proactive, or woken by the failed allocations of the
	 * random rounds) moves pages from the start of ZONE_MOVABLE, where
	 * the claimed range is, to its end: a claim with nothing left to
	 * move would fail nothing.  No proactive compaction meanwhile, and
	 * the user pages are counted again before each attempt.
	 */
	if (!file_read_str("/proc/sys/vm/compaction_proactiveness", pro, sizeof(pro)))
		file_write("/proc/sys/vm/compaction_proactiveness", "0");

	*errs = 0;
	file_write(DBG "failslab/probability", "0");
	file_write(DBG "fail_page_alloc/task-filter", "Y");
	file_write(DBG "fail_page_alloc/interval", "1");
	file_write(DBG "fail_page_alloc/ignore-gfp-wait", "N");
	file_write(DBG "fail_page_alloc/ignore-gfp-highmem", "N");
	file_write(DBG "fail_page_alloc/min-order", "0");
	for (i = 0; i < 5 && !inside; i++) {
		for (in = 0, k = 0; k < FILL_CHUNKS && base[k].p; k++)
			in += region_in(&base[k], CLAIM_BASE, CLAIM_SIZE);
		if (in < 64) {
			t_diag("twice_claim: only %zu user pages left in the range: refilled", in);
			for (k = 0; k < FILL_CHUNKS && base[k].p; k++) {
				*bad += region_bad(&base[k]);
				munmap(base[k].p, base[k].len);
				base[k].p = NULL;
			}
			user_in_claim(base);
		}
		before = file_read_str(cma_failed, buf, sizeof(buf)) ? -1 : atol(buf);
		fd = open(CLAIM "alloc", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || before < 0) {
			if (pro[0])
				file_write("/proc/sys/vm/compaction_proactiveness", pro);
			t_bail("cannot open %salloc or read %s", BLK, cma_failed);
		}
		file_write(DBG "fail_page_alloc/times", "2");
		file_write(DBG "fail_page_alloc/probability", "100");
		make_it_fail(1);
		snprintf(v, sizeof(v), "%llu", CLAIM_SIZE);
		ret = write(fd, v, strlen(v));
		/* nothing may fail while a successful claim is given back */
		make_it_fail(0);
		file_write(DBG "fail_page_alloc/probability", "0");
		if (ret < 0)
			(*errs)++;
		else
			undo_claim(0);
		close(fd);
		after = file_read_str(cma_failed, buf, sizeof(buf)) ? -1 : atol(buf);
		inside += after > before;
	}
	if (pro[0])
		file_write("/proc/sys/vm/compaction_proactiveness", pro);
	return inside;
}

static int op_session(void)
{
	return session();
}

static int op_bind(void)
{
	int ret = rebind();

	/*
	 * The driver core's device_add() says EINVAL when dev_set_name()
	 * could not allocate the name (a video device's, in
	 * __video_register_device()): a failed allocation, as ENOMEM
	 */
	return ret == -EINVAL ? -ENOMEM : ret;
}

/* A failed bind leaves the decoder unbound: bind it for the next round */
static void undo_bind(int ret)
{
	if (ret)
		file_write(DRV "bind", DEC_DEV);
}

/*
 * Fail the n-th allocation (slab or pages) this thread makes in @op, for
 * n = 1, 2, ... until @op makes fewer than n: each allocation on its path
 * fails once, in order, whatever the random phase hit or missed.  After
 * each, nothing may stay claimed and a failure must reach the caller as
 * an errno we expect.  Metrics <name>_sites (allocations seen, each failed
 * once), <name>_err (of them, the ones the operation returned as an
 * error), <name>_covered (1: the last n found no allocation left to fail).
 */
static void fail_each(const char *name, int (*op)(void), void (*undo)(int),
		      int max, double *bad)
{
	int fd = open("/proc/thread-self/fail-nth", O_RDWR | O_CLOEXEC);
	double err = 0, claimed = 0;
	char v[16], m[64];
	int n, ret;
	ssize_t len;

	if (fd < 0)
		t_bail("no /proc/thread-self/fail-nth: %s", strerror(errno));
	for (n = 1; n <= max; n++) {
		snprintf(v, sizeof(v), "%d", n);
		if (pwrite(fd, v, strlen(v), 0) < 0)
			t_bail("fail-nth: %s", strerror(errno));
		ret = op();
		/* what is left of n: 0 once the n-th allocation failed */
		len = pread(fd, v, sizeof(v) - 1, 0);
		if (pwrite(fd, "0", 1, 0) < 0 || len <= 0)
			t_bail("fail-nth: %s", strerror(errno));
		v[len] = '\0';
		if (undo)
			undo(ret);
		if (atoi(v))
			break;
		if (ret) {
			err++;
			if (!expected_errno(-ret)) {
				(*bad)++;
				t_diag("%s: allocation %d failed: unexpected errno %d",
				       name, n, ret);
			}
		}
		if (info_claimed()) {
			claimed++;
			t_diag("%s: allocation %d failed: %ld pages stay claimed",
			       name, n, info_claimed());
		}
	}
	close(fd);
	snprintf(m, sizeof(m), "%s_sites", name);
	metric_set(m, n - 1);
	snprintf(m, sizeof(m), "%s_err", name);
	metric_set(m, err);
	snprintf(m, sizeof(m), "%s_covered", name);
	metric_set(m, n <= max);
	snprintf(m, sizeof(m), "%s_left_claimed", name);
	metric_set(m, claimed);
	t_report("%s: each of its %d allocations failed once, %.0f of them reached the caller as an error",
		 name, n - 1, err);
}

static uint32_t pattern(size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ 0x0fa17ed5u;
}

int main(int argc, char **argv)
{
	const char *o_rounds = opt_get(argc, argv, "rounds");
	const char *o_prob = opt_get(argc, argv, "probability");
	int rounds = o_rounds ? atoi(o_rounds) : 200;
	int prob = o_prob ? atoi(o_prob) : 10;
	size_t len = 256 << 20, i, bad = 0;
	struct counts c = { 0 };
	char res[160];
	int p[2], status = 0;
	long slab, pages;
	uint32_t *data;
	pid_t pid;

	t_init("faults");
	if (access(DBG "failslab/probability", F_OK) ||
	    access(DBG "fail_page_alloc/probability", F_OK)) {
		t_skip("no failslab/fail_page_alloc in this kernel", "fault injection");
		return t_finish();
	}
	if (load_module("dmb_alloc") || load_module("dmb_test") ||
	    load_module("dmb_v4l2dec"))
		t_bail("cannot load the modules");
	/* read at open: every session below claims with dmb_alloc() */
	atexit(use_dmb_off);
	if (file_write(V4L2DEC_USE_DMB, "Y"))
		t_bail("cannot write %s", V4L2DEC_USE_DMB);
	find_node();
	{
		struct v4l2_queryctrl q = { .id = V4L2DEC_CID_PREPARE };
		int fd = open(node, O_RDWR | O_CLOEXEC);

		/* its controls say so: a session of the DMA API would not count */
		if (fd < 0 || ioctl(fd, VIDIOC_QUERYCTRL, &q))
			t_bail("no session of dmb_alloc() on the main decoder (%s): %s",
			       node[0] ? node : "not found", strerror(errno));
		close(fd);
	}
	if (file_write(DBG "dmb_test/get", "handle /video-decoder-0 0") ||
	    file_read_str(DBG "dmb_test/get", res, sizeof(res)) ||
	    strncmp(res, "ok handle", 9))
		t_bail("no handle on /video-decoder-0's block");

	/* a bystander's data, some of it in the block */
	data = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (data == MAP_FAILED)
		t_bail("no memory for the bystander");
	for (i = 0; i < len / 4; i += 512)
		data[i] = pattern(i);

	inject(1, prob);
	if (pipe(p))
		t_bail("pipe");
	pid = fork();
	if (!pid)
		work(rounds, p[1]);
	close(p[1]);
	if (read(p[0], &c, sizeof(c)) != sizeof(c))
		t_diag("the working process died before it reported");
	waitpid(pid, &status, 0);
	slab = injected("failslab");
	pages = injected("fail_page_alloc");
	metric_set("failslab_injected", slab);
	metric_set("page_alloc_injected", pages);
	inject(0, 0);

	metric_set("rounds", rounds);
	metric_set("worker_exit", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	metric_set("claim_ok", c.claim_ok);
	metric_set("claim_err", c.claim_err);
	metric_set("session_ok", c.session_ok);
	metric_set("session_err", c.session_err);
	metric_set("bind_err", c.bind_err);
	metric_set("bad_errno", c.bad_errno);
	/* the decoder may have failed to bind at the end: bind it */
	file_write(DRV "bind", DEC_DEV);
	find_node();

	/* then every allocation of a claim, a session and a bind, in turn */
	{
		const char *cf = "/sys/kernel/mm/cma/dmb@60000000/alloc_pages_fail";
		struct user_region fill[FILL_CHUNKS] = { 0 };
		double nth_bad = 0;
		size_t in_claim;
		char buf[32];
		long before = file_read_str(cf, buf, sizeof(buf)) ? -1 : atol(buf);
		int k;

		/*
		 * Only this thread fails (task-filter): the claims below
		 * migrate on its CPU alone, not also in dmb_alloc's workers.
		 */
		if (file_write(CLAIM_CPUS, "1"))
			t_diag("cannot write %s", CLAIM_CPUS);

		/*
		 * The random rounds moved the user pages out of the range the
		 * claim takes: put some back, so that its migration has work
		 * (and allocations to fail) whatever else the boot left there.
		 */
		{
			/*
			 * Base pages for the two failures: a huge page whose
			 * target fails is split and moved page by page.
			 */
			struct user_region base[FILL_CHUNKS] = { 0 };
			int errs;

			if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
				t_diag("PR_SET_THP_DISABLE: %s", strerror(errno));
			metric_set("twice_claim_user_pages", user_in_claim(base));
			metric_set("twice_claim_dmb_failed",
				   claim_failing_twice(cf, &errs, base, &bad));
			prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
			metric_set("twice_claim_err", errs);
			for (k = 0; k < FILL_CHUNKS && base[k].p; k++) {
				bad += region_bad(&base[k]);
				munmap(base[k].p, base[k].len);
			}
		}
		/*
		 * Base pages here too: after the failed claims above, the
		 * claimed range's free memory may be in pieces smaller than
		 * a huge page, and THPs would all land elsewhere.
		 */
		if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
			t_diag("PR_SET_THP_DISABLE: %s", strerror(errno));
		in_claim = user_in_claim(fill);
		prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0);
		metric_set("nth_claim_user_pages", in_claim);
		fail_each("nth_claim", op_claim, undo_claim, 400, &nth_bad);
		for (k = 0; k < FILL_CHUNKS && fill[k].p; k++) {
			bad += region_bad(&fill[k]);
			munmap(fill[k].p, fill[k].len);
		}
		/* failures inside dmb_alloc() itself, not only on the way in */
		metric_set("nth_claim_dmb_failed", before < 0 ||
			   file_read_str(cf, buf, sizeof(buf)) ? -1 :
			   atol(buf) - before);
		/*
		 * A session allocates at a few dozen sites: the path name
		 * and the file, the context, its controls, the m2m context
		 * and its queues' buffer arrays, the copies of the larger
		 * ioctl arguments, the two vb2 buffers, the run and its
		 * claim, the buffers carved from it, the mapping.  A rebind
		 * (the sysfs writes, the probe with its DMA pool, dmb_alloc
		 * handle, video device, sysfs files and uevents) at more.
		 * The scenarios' nth_*_sites>=5 are floors both pass by far;
		 * 400 is a ceiling both stay under (nth_*_covered).
		 */
		fail_each("nth_session", op_session, NULL, 400, &nth_bad);
		fail_each("nth_bind", op_bind, undo_bind, 400, &nth_bad);
		metric_set("nth_bad_errno", nth_bad);
		file_write(DRV "bind", DEC_DEV);
		find_node();
		file_write(CLAIM_CPUS, "0");
	}
	metric_set("claimed_after", info_claimed());
	metric_set("whole_after", file_write(CLAIM "alloc", "268435456"));
	file_write(CLAIM "free", "all");
	metric_set("session_after", session());
	for (i = 0; i < len / 4; i += 512)
		bad += data[i] != pattern(i);
	metric_set("corrupt", bad);
	/* kmemleak needs two scans to call an object leaked */
	file_write(DBG "kmemleak", "scan");
	sleep(1);
	file_write(DBG "kmemleak", "scan");
	{
		static char rep[1 << 16];
		char *s = rep, *e, c;
		double n = 0, core = 0;

		if (file_read_str(DBG "kmemleak", rep, sizeof(rep)))
			rep[0] = '\0';
		/*
		 * One leak is the V4L2 core's, not ours: when device_register()
		 * fails in __video_register_device() (a failed allocation in a
		 * bind), the device's name is never freed.  Upstream's fix
		 * (2a934fdb01db) was reverted in the stable kernels; it is
		 * counted apart (v4l2_core_leaks), every other leak fails.
		 */
		while ((s = strstr(s, "unreferenced object"))) {
			e = strstr(s + 1, "unreferenced object");
			if (e) {
				c = *e;
				*e = '\0';
			}
			if (strstr(s, "__video_register_device") && strstr(s, "dev_set_name"))
				core++;
			else
				n++;
			if (e)
				*e = c;
			s++;
		}
		metric_set("leaks", n);
		metric_set("v4l2_core_leaks", core);
		if (n || core)
			t_diag("%.2000s", rep);
	}
	t_report("%d rounds: %ld + %ld injected failures (slab, pages); claims %.0f ok %.0f failed, sessions %.0f ok %.0f failed, binds %.0f failed",
		 rounds, slab, pages, c.claim_ok, c.claim_err, c.session_ok,
		 c.session_err, c.bind_err);
	check_expectations(argc, argv);
	return t_finish();
}
