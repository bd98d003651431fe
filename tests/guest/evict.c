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
 * A decoder starts as a player of the V4L2 sample decoder (dmb_v4l2dec)
 * does in a session that claims with dmb_alloc() (use_dmb_alloc, set for
 * the run): it asks for its whole block with the prepare control
 * (V4L2_CID_USER_BASE | 0xf000, in MiB), waits until the prepared claim
 * has ended (V4L2_CID_USER_BASE | 0xf001, at most 120 s), sets the
 * OUTPUT format (FWHT, 1920x1088) and asks for one MMAP OUTPUT buffer,
 * which takes the whole prepared run.
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
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "guest.h"

/* dmb_v4l2dec's controls of a session that claims with dmb_alloc() */
#define PREPARE_MS	120000

struct dec {
	const char *label;
	char node[64], pdev[128];
	int fd;
	uint64_t base, size;	/* its block */
};

/* sessions opened from now on claim through the DMA API again */
static void use_dmb_off(void)
{
	file_write(V4L2DEC_USE_DMB, "N");
}

static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/*
 * Find the decoder labelled d->label and its block (the DMB its device
 * holds, "<device>(dma)" in /sys/kernel/debug/dmb/blocks), and open a
 * session of it, which claims with dmb_alloc()
 */
static void dec_open(struct dec *d)
{
	struct v4l2_queryctrl q = { .id = V4L2DEC_CID_PREPARE };
	struct dmb_range r[MAX_DMBS];
	size_t len;
	int n, i;

	if (v4l2_find_decoder(d->label, d->node, sizeof(d->node), d->pdev,
			      sizeof(d->pdev)))
		t_bail("no V4L2 decoder labelled %s", d->label);
	len = strlen(d->pdev);
	n = read_dmbs(r, MAX_DMBS);
	for (i = 0; i < n; i++)
		if (!strncmp(r[i].owner, d->pdev, len) &&
		    (!r[i].owner[len] || r[i].owner[len] == '(')) {
			d->base = r[i].base;
			d->size = r[i].size;
		}
	if (!d->size)
		t_bail("no block held by %s (root needed for /sys/kernel/debug/dmb/blocks)",
		       d->pdev);
	d->fd = open(d->node, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		t_bail("cannot open %s: %s", d->node, strerror(errno));
	if (ioctl(d->fd, VIDIOC_QUERYCTRL, &q))
		t_bail("%s (%s): no prepare control, not a session of dmb_alloc(): %s",
		       d->node, d->label, strerror(errno));
	if ((uint64_t)q.maximum << 20 < d->size)
		t_bail("%s: the prepare control stops at %d MiB, the block has %llu",
		       d->node, q.maximum, (unsigned long long)(d->size >> 20));
}

/*
 * The whole block, prepared then taken by one OUTPUT buffer's REQBUFS,
 * as a player asks for its frames once it knows what the stream needs
 */
static int dec_start(struct dec *d)
{
	struct v4l2_control c = { .id = V4L2DEC_CID_PREPARE, .value = d->size >> 20 };
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	struct v4l2_requestbuffers rb = { .count = 1, .memory = V4L2_MEMORY_MMAP,
					  .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	double t0 = now_ms();

	if (ioctl(d->fd, VIDIOC_S_CTRL, &c))
		return -errno;
	for (;;) {
		struct v4l2_control p = { .id = V4L2DEC_CID_PREPARED };

		if (ioctl(d->fd, VIDIOC_G_CTRL, &p))
			return -errno;
		if (p.value)
			break;
		if (now_ms() - t0 > PREPARE_MS)
			return -ETIMEDOUT;
		usleep(2000);
	}
	t_diag("%s: the prepared claim of %llu MiB ended after %.0f ms", d->label,
	       (unsigned long long)(d->size >> 20), now_ms() - t0);
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	f.fmt.pix.width = 1920;
	f.fmt.pix.height = 1088;
	if (ioctl(d->fd, VIDIOC_S_FMT, &f) || ioctl(d->fd, VIDIOC_REQBUFS, &rb))
		return -errno;
	/* vb2 says -ENOMEM when no buffer could be allocated */
	return rb.count == 1 ? 0 : -ENOMEM;
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

	return pfn && pa >= d->base && pa - d->base < d->size;
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
	if (load_module("dmb_v4l2dec"))
		t_bail("cannot load dmb_v4l2dec");
	/* read at open: the sessions below claim with dmb_alloc() */
	atexit(use_dmb_off);
	if (file_write(V4L2DEC_USE_DMB, "Y"))
		t_bail("cannot write %s", V4L2DEC_USE_DMB);
	for (k = 0; k < 2; k++)
		dec_open(&dec[k]);

	/* both blocks full, and a little more */
	len = (dec[0].size + dec[1].size) / 100 * 105;
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
	/* the buffers and the runs go with the sessions */
	for (k = 0; k < 2; k++)
		close(dec[k].fd);
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
