// SPDX-License-Identifier: GPL-2.0
/*
 * playback: the story of the project, end to end.  A busy system fills
 * memory, and so the Designated Movable Blocks, with user data of every
 * kind (anonymous memory, some mlocked, tmpfs files, file page cache with
 * dirty pages on an ext4 disk), all checksummed.  Both sample decoders
 * then start playback and claim their whole block; their frames must be
 * contiguous and on their own DRAM controller, and every byte of user data
 * must be intact, also after sync and a drop of the page cache.  Playback
 * stops; the blocks go back to the system and fill with user pages again.
 *
 * usage: playback [--anon=400M] [--mlock=64M] [--tmpfs=128M] [--file=256M]
 *                 [--cycles=1] [expectations]
 * Needs /dev/vda (an ext4 disk: "disk:" in the scenario).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <linux/dmb_vdec.h>

#include "guest.h"

struct region {
	const char *what;
	char *p;
	size_t len;
	uint32_t salt;
};

static uint32_t word(uint32_t salt, size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ salt;
}

/* Write the pattern one word every 256 bytes (enough to catch a lost page) */
static void stamp(struct region *r)
{
	size_t i;

	for (i = 0; i < r->len / 4; i += 64)
		((uint32_t *)r->p)[i] = word(r->salt, i);
}

static size_t bad_pages(const struct region *r)
{
	size_t i, bad = 0, last = (size_t)-1;
	long ps = page_size();

	for (i = 0; i < r->len / 4; i += 64)
		if (((uint32_t *)r->p)[i] != word(r->salt, i) && i * 4 / ps != last) {
			last = i * 4 / ps;
			bad++;
		}
	return bad;
}

/* Pages of r in [base, base+size) */
static size_t in_range(const struct region *r, uint64_t base, uint64_t size)
{
	size_t i, n = 0;
	long ps = page_size();

	for (i = 0; i < r->len; i += ps) {
		uint64_t pa = virt_to_pfn(r->p + i) * ps;

		n += pa >= base && pa < base + size;
	}
	return n;
}

static int map_file(struct region *r, const char *path, int flags)
{
	int fd = open(path, O_RDWR | O_CREAT | flags, 0600);

	if (fd < 0 || ftruncate(fd, r->len))
		return -1;
	r->p = mmap(NULL, r->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return r->p == MAP_FAILED ? -1 : 0;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

struct dec {
	const char *label;
	int fd;
	struct dmb_vdec_info q;
	struct dmb_vdec_buf b;
};

static int dec_start(struct dec *d)
{
	uint64_t size;
	struct dmb_vdec_start st = { .count = 1, .sizes_ptr = (uintptr_t)&size };
	char path[64];

	snprintf(path, sizeof(path), "/dev/dmb-vdec-%s", d->label);
	d->fd = open(path, O_RDWR | O_CLOEXEC);
	if (d->fd < 0)
		return -errno;
	memset(&d->q, 0, sizeof(d->q));
	if (ioctl(d->fd, DMB_VDEC_INFO, &d->q))
		return -errno;
	size = d->q.dmb_size;	/* the whole block */
	if (ioctl(d->fd, DMB_VDEC_START, &st))
		return -errno;
	memset(&d->b, 0, sizeof(d->b));
	if (ioctl(d->fd, DMB_VDEC_INFO, &d->q) || ioctl(d->fd, DMB_VDEC_BUF, &d->b))
		return -errno;
	return 0;
}

/* Decode a frame and read it back through mmap: bad words, or -1 */
static long dec_frame(struct dec *d, uint32_t seed)
{
	struct dmb_vdec_decode dd = { .seed = seed };
	uint32_t *w;
	size_t i, n = d->b.size / 4;
	long bad = 0;

	if (ioctl(d->fd, DMB_VDEC_DECODE, &dd) || dd.checked != 1)
		return -1;
	w = mmap(NULL, d->b.size, PROT_READ, MAP_SHARED, d->fd, 0);
	if (w == MAP_FAILED)
		return -1;
	for (i = 0; i < n; i += 4099)
		bad += w[i] != (seed ^ (uint32_t)i);
	munmap(w, d->b.size);
	return bad;
}

int main(int argc, char **argv)
{
	const char *o;
	int64_t anon = (o = opt_get(argc, argv, "anon")) ? parse_size(o) : 400 << 20;
	int64_t mlk = (o = opt_get(argc, argv, "mlock")) ? parse_size(o) : 64 << 20;
	int64_t tmpfs = (o = opt_get(argc, argv, "tmpfs")) ? parse_size(o) : 128 << 20;
	int64_t file = (o = opt_get(argc, argv, "file")) ? parse_size(o) : 256 << 20;
	struct region r[4] = {
		{ "anonymous", NULL, anon, 0x11111111 },
		{ "mlocked", NULL, mlk, 0x22222222 },
		{ "tmpfs", NULL, tmpfs, 0x33333333 },
		{ "file", NULL, file, 0x44444444 },
	};
	struct dec d[2] = { { .label = "main" }, { .label = "pip" } };
	double t0, bad = 0, in_dmb = 0, dmb_pages = 0, free0, refill_in = 0;
	struct region refill;
	int i, k, fd;

	t_init("playback");
	if (load_module("dmb_vdec"))
		t_bail("cannot load the decoder module");
	mkdir("/mnt", 0755);
	if (mount("/dev/vda", "/mnt", "ext4", 0, NULL))
		t_bail("cannot mount /dev/vda (ext4): %s", strerror(errno));
	free0 = meminfo_kb("MemFree");

	/* The busy system */
	r[0].p = mmap(NULL, r[0].len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	r[1].p = mmap(NULL, r[1].len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (r[0].p == MAP_FAILED || r[1].p == MAP_FAILED ||
	    mlock(r[1].p, r[1].len) ||
	    map_file(&r[2], "/tmp/playback.tmpfs", 0) ||
	    map_file(&r[3], "/mnt/playback.data", 0))
		t_bail("cannot set up the workload: %s", strerror(errno));
	for (i = 0; i < 4; i++)
		stamp(&r[i]);

	/* Where the user data sits, per block */
	for (k = 0; k < 2; k++) {
		int dfd;
		char path[64];

		snprintf(path, sizeof(path), "/dev/dmb-vdec-%s", d[k].label);
		dfd = open(path, O_RDWR | O_CLOEXEC);
		if (dfd < 0 || ioctl(dfd, DMB_VDEC_INFO, &d[k].q))
			t_bail("cannot query %s", path);
		close(dfd);
		dmb_pages += d[k].q.dmb_size / page_size();
		for (i = 0; i < 4; i++)
			in_dmb += in_range(&r[i], d[k].q.dmb_base, d[k].q.dmb_size);
	}
	t_report("user data: %lld MiB anonymous (%lld MiB mlocked), %lld MiB tmpfs, %lld MiB file on ext4",
		 (long long)((anon + mlk) >> 20), (long long)(mlk >> 20),
		 (long long)(tmpfs >> 20), (long long)(file >> 20));
	t_report("before playback: the decoders' blocks hold %.0f MiB of user data (%.0f%% of them)",
		 in_dmb * page_size() / 1048576.0, 100.0 * in_dmb / dmb_pages);
	metric_set("user_in_dmb_pct", 100.0 * in_dmb / dmb_pages);

	/* Playback starts: each decoder claims its whole block */
	for (k = 0; k < 2; k++) {
		int ret;

		t0 = now_ms();
		ret = dec_start(&d[k]);
		if (ret)
			t_bail("%s decoder could not start: %d", d[k].label, ret);
		t_report("%s decoder started: %llu MiB contiguous at 0x%llx on %s, claimed in %.0f ms",
			 d[k].label, (unsigned long long)(d[k].b.size >> 20),
			 (unsigned long long)d[k].b.phys,
			 d[k].q.controller_label, now_ms() - t0);
	}
	metric_set("main.controller", d[0].q.controller);
	metric_set("pip.controller", d[1].q.controller);
	metric_set("main.claim_ms", d[0].q.claim_ns / 1e6);
	metric_set("pip.claim_ms", d[1].q.claim_ns / 1e6);
	metric_set("frame_bad", dec_frame(&d[0], 0xfeed0000) + dec_frame(&d[1], 0xfeed0001));

	for (in_dmb = 0, k = 0; k < 2; k++)
		for (i = 0; i < 4; i++)
			in_dmb += in_range(&r[i], d[k].q.dmb_base, d[k].q.dmb_size);
	metric_set("user_in_dmb_during", in_dmb);
	for (i = 0; i < 4; i++) {
		char name[64];
		size_t b = bad_pages(&r[i]);

		snprintf(name, sizeof(name), "corrupt.%s", r[i].what);
		metric_set(name, b);
		bad += b;
	}
	t_report("the claims moved %.0f MiB (%.0f pages) of user data out of the blocks",
		 metric_get("user_in_dmb_pct", &t0) ? 0 :
		 t0 / 100 * dmb_pages * page_size() / 1048576.0,
		 metric_get("user_in_dmb_pct", &t0) ? 0 : t0 / 100 * dmb_pages);
	t_report("during playback: %.0f user pages left in the blocks, %.0f damaged pages of user data",
		 in_dmb, bad);

	/* Dirty file data reaches the disk and reads back */
	munmap(r[3].p, r[3].len);
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		t_bail("cannot drop caches");
	close(fd);
	if (map_file(&r[3], "/mnt/playback.data", 0))
		t_bail("cannot map the file again");
	metric_set("corrupt.file_reread", bad_pages(&r[3]));
	t_report("after sync and a drop of the page cache the file reads back with %zu damaged pages",
		 bad_pages(&r[3]));

	/* Playback stops: the blocks go back to the system */
	for (k = 0; k < 2; k++) {
		metric_set(k ? "pip.stop" : "main.stop",
			   ioctl(d[k].fd, DMB_VDEC_STOP) ? -errno : 0);
		close(d[k].fd);
	}
	for (i = 0; i < 4; i++)
		munmap(r[i].p, r[i].len);
	unlink("/tmp/playback.tmpfs");
	unlink("/mnt/playback.data");
	sync();
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (fd >= 0) {
		if (write(fd, "3\n", 2) != 2)
			t_diag("drop_caches failed");
		close(fd);
	}
	metric_set("memfree_back_pct", 100.0 * meminfo_kb("MemFree") / free0);
	t_report("after playback: MemFree is %.0f%% of what it was before the workload",
		 100.0 * meminfo_kb("MemFree") / free0);

	/* and user pages fill them again */
	refill.len = (size_t)(dmb_pages * page_size() * 0.9);
	refill.salt = 0x55555555;
	refill.p = mmap(NULL, refill.len, PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (refill.p == MAP_FAILED)
		t_bail("cannot refill");
	stamp(&refill);
	for (k = 0; k < 2; k++)
		refill_in += in_range(&refill, d[k].q.dmb_base, d[k].q.dmb_size);
	metric_set("refill_in_dmb_pct", 100.0 * refill_in * page_size() / refill.len);
	t_report("a new %.0f MiB user workload lands %.0f%% in the blocks again",
		 refill.len / 1048576.0, 100.0 * refill_in * page_size() / refill.len);
	umount("/mnt");
	check_expectations(argc, argv);
	return t_finish();
}
