// SPDX-License-Identifier: GPL-2.0
/*
 * dmaalloc: the ways into a Designated Movable Block that other code
 * already uses, with user data filling the block first: a dma-buf heap
 * (/dev/dma_heap/<name>, allocated and mmapped as Codec2 or GStreamer do)
 * or the DMA API of a device (dma_alloc_attrs() in the dma_client test
 * module, which knows nothing of DMBs).  Checks that every page frame of
 * the buffer lies in the expected block, on its controller, reads back as
 * zeroes, that the user data moved out intact, and that the memory serves
 * user pages again once freed.
 *
 * usage: dmaalloc --via=heap:<heap>|dma:<device>
 *                 --block=<dmb node name>|range:<base>+<size>
 *                 [--size=<bytes>|whole] [--anon=256M] [--mlock=32M]
 *                 [--tmpfs=64M] [--file=<bytes> (ext4 on /dev/vda, "disk:")]
 *                 [--test=alloc|errors] [--importer=<device>]
 *                 [expectations]
 * A heap buffer is imported by a dma_client device (dma-client-1 unless
 * --importer says) to learn where it lies.
 * alloc metrics: user_before (user pages in the block), ret (0 or
 *   -errno), inside (1: every page in the block), ctrl_ok (1: on the
 *   block's controller), zero (1: reads back zeroes), corrupt (user pages
 *   damaged), user_in_buffer (user pages where the buffer is),
 *   reuse (user pages where the buffer was, after the free and a new
 *   fill of --anon bytes).
 * errors metrics (heaps): too_large, size0, bad_heap_flags, bad_fd_flags,
 *   and with --busy=<heap>, busy (a heap whose block a device holds):
 *   0 or -errno each.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <unistd.h>

#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "guest.h"

static int heap_alloc(const char *heap, uint64_t len, uint64_t heap_flags,
		      uint32_t fd_flags)
{
	struct dma_heap_allocation_data d = {
		.len = len, .fd_flags = fd_flags, .heap_flags = heap_flags,
	};
	char path[128];
	int fd, ret;

	snprintf(path, sizeof(path), "/dev/dma_heap/%s", heap);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, DMA_HEAP_IOCTL_ALLOC, &d);
	ret = ret ? -errno : (int)d.fd;
	close(fd);
	return ret;
}

struct buf {
	uint64_t pa_min, pa_max;	/* page frames seen, as addresses */
	size_t outside;
	int zero;
	int dmabuf;
	char dev[64];
};

#define DC "/sys/kernel/debug/dma_client/"

/*
 * Where a dma-buf lies: pagemap cannot see a heap's VM_PFNMAP mapping, so
 * a device imports it (dma_buf_attach() and map, as a driver does) and
 * reports its DMA addresses, physical ones on this board.
 */
static int import(const char *dev, int dmabuf, struct buf *b)
{
	unsigned long long first, last, bytes;
	char path[128], res[128], num[16];
	unsigned int nents;
	int err;

	snprintf(path, sizeof(path), DC "%s/import", dev);
	snprintf(num, sizeof(num), "%d", dmabuf);
	if (file_write(path, num) || file_read_str(path, res, sizeof(res)))
		return -ENOENT;
	if (sscanf(res, "error %d", &err) == 1)
		return err;
	if (sscanf(res, "ok %llx %llx %llu %u", &first, &last, &bytes, &nents) != 4)
		return -EIO;
	b->pa_min = first;
	b->pa_max = last;
	t_diag("imported by %s: %llu bytes in %u segments at %#llx..%#llx",
	       dev, bytes, nents, first, last);
	return 0;
}

/* Allocate through the heap, map it, look at every page; 0 or -errno */
static int via_heap(const char *heap, uint64_t size, uint64_t base,
		    uint64_t bsize, struct buf *b, const char *importer)
{
	struct dma_buf_sync sync = { .flags = DMA_BUF_SYNC_START | DMA_BUF_SYNC_RW };
	long ps = page_size();
	uint64_t *w;
	size_t i, j;
	int ret;

	b->dmabuf = heap_alloc(heap, size, 0, O_RDWR | O_CLOEXEC);
	if (b->dmabuf < 0)
		return b->dmabuf;
	w = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, b->dmabuf, 0);
	if (w == MAP_FAILED)
		return -errno;
	if (ioctl(b->dmabuf, DMA_BUF_IOCTL_SYNC, &sync))
		return -errno;
	b->zero = 1;
	b->pa_min = UINT64_MAX;
	for (i = 0; i < size / 8; i += ps / 8) {
		for (j = 0; j < (size_t)ps / 8; j++)
			if (w[i + j])
				b->zero = 0;
		w[i] = 0xdb0000000000ull | i;	/* the buffer's own data */
	}
	sync.flags = DMA_BUF_SYNC_END | DMA_BUF_SYNC_RW;
	ioctl(b->dmabuf, DMA_BUF_IOCTL_SYNC, &sync);
	munmap(w, size);
	ret = import(importer, b->dmabuf, b);
	if (ret)
		return ret;
	/* contiguous: one segment, so first..last is all of it */
	b->outside = b->pa_min < base || b->pa_max + ps > base + bsize ||
		     b->pa_max + ps - b->pa_min != size ? size / ps : 0;
	return 0;
}

/* Allocate with dma_alloc_attrs() on a device; 0 or -errno */
static int via_dma(const char *dev, uint64_t size, uint64_t base,
		   uint64_t bsize, struct buf *b)
{
	char path[128], res[128], num[32];
	unsigned long long dma = 0, len = 0;
	int zero = 0, err = 0;

	snprintf(b->dev, sizeof(b->dev), "%s", dev);
	snprintf(path, sizeof(path), DC "%s/alloc", dev);
	snprintf(num, sizeof(num), "%llu", (unsigned long long)size);
	if (file_write(path, num) || file_read_str(path, res, sizeof(res)))
		return -ENOENT;
	if (sscanf(res, "error %d", &err) == 1)
		return err;
	if (sscanf(res, "ok %llx %llu zero=%d", &dma, &len, &zero) != 3)
		return -EIO;
	b->zero = zero;
	b->pa_min = dma;
	b->pa_max = dma + len - page_size();
	b->outside = dma < base || dma + len > base + bsize ? len / page_size() : 0;
	return 0;
}

static void buf_free(struct buf *b)
{
	char path[128];

	if (b->dmabuf > 0)
		close(b->dmabuf);
	if (b->dev[0]) {
		snprintf(path, sizeof(path), DC "%s/free", b->dev);
		file_write(path, "1");
	}
}

int main(int argc, char **argv)
{
	const char *via = opt_get(argc, argv, "via");
	const char *block = opt_get(argc, argv, "block");
	const char *test = opt_get(argc, argv, "test");
	const char *o;
	int64_t anon = (o = opt_get(argc, argv, "anon")) ? parse_size(o) : 256 << 20;
	int64_t mlk = (o = opt_get(argc, argv, "mlock")) ? parse_size(o) : 32 << 20;
	int64_t tmpfs = (o = opt_get(argc, argv, "tmpfs")) ? parse_size(o) : 64 << 20;
	int64_t file = (o = opt_get(argc, argv, "file")) ? parse_size(o) : 0;
	int nr = 3;
	struct dmb_range d[MAX_DMBS];
	struct ctrl c[MAX_CTRL];
	struct user_region r[5] = {};
	struct buf b = { .dmabuf = -1 };
	uint64_t base = 0, bsize = 0, size;
	int n, i, nc, ret, fd;
	size_t user;

	t_init("dmaalloc");
	if (!via || !block)
		t_bail("usage: dmaalloc --via=heap:<heap>|dma:<device> --block=<dmb> ...");
	if (load_module("dma_client"))
		t_bail("cannot load dma_client");
	if (!strncmp(block, "range:", 6)) {
		/* a pool that is not in a block: its own range */
		char *plus;

		base = strtoull(block + 6, &plus, 0);
		bsize = *plus == '+' ? (uint64_t)parse_size(plus + 1) : 0;
	}
	n = read_dmbs(d, MAX_DMBS);
	for (i = 0; i < n; i++) {
		const char *s = strrchr(d[i].name, '/');

		if (!strcmp(s ? s + 1 : d[i].name, block)) {
			base = d[i].base;
			bsize = d[i].size;
		}
	}
	if (!bsize)
		t_bail("no block %s", block);
	t_diag("block %s: %#llx + %#llx", block, (unsigned long long)base,
	       (unsigned long long)bsize);

	if (test && !strcmp(test, "errors")) {
		const char *heap = via + 5;

		if (strncmp(via, "heap:", 5))
			t_bail("--test=errors is for heaps");
		ret = heap_alloc(heap, bsize + (4 << 20), 0, O_RDWR);
		metric_set("too_large", ret < 0 ? ret : 0);
		if (ret >= 0)
			close(ret);
		ret = heap_alloc(heap, 0, 0, O_RDWR);
		metric_set("size0", ret < 0 ? ret : 0);
		ret = heap_alloc(heap, 1 << 20, 1, O_RDWR);
		metric_set("bad_heap_flags", ret < 0 ? ret : 0);
		ret = heap_alloc(heap, 1 << 20, 0, 0x40000000);
		metric_set("bad_fd_flags", ret < 0 ? ret : 0);
		/* a heap whose block a device holds has no room */
		if ((o = opt_get(argc, argv, "busy"))) {
			ret = heap_alloc(o, 1 << 20, 0, O_RDWR);
			metric_set("busy", ret < 0 ? ret : 0);
			if (ret >= 0)
				close(ret);
		}
		check_expectations(argc, argv);
		return t_finish();
	}

	o = opt_get(argc, argv, "size");
	size = o && strcmp(o, "whole") ? (uint64_t)parse_size(o) : bsize;

	/* a busy system: user data of several kinds, checksummed */
	if (region_fill(&r[0], anon, 0x11111111, -1) ||
	    region_fill(&r[1], mlk, 0x22222222, -1) || mlock(r[1].p, r[1].len))
		t_bail("cannot fill anonymous memory");
	fd = open("/tmp/dmaalloc.tmpfs", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || region_fill(&r[2], tmpfs, 0x33333333, fd))
		t_bail("cannot fill tmpfs");
	close(fd);
	/* ext4 page cache, dirty: the disk of the scenario ("disk:") */
	if (file > 0) {
		if (mount("/dev/vda", "/mnt", "ext4", 0, NULL))
			t_bail("cannot mount /dev/vda (ext4): %s", strerror(errno));
		fd = open("/mnt/dmaalloc.data", O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || region_fill(&r[3], file, 0x55555555, fd))
			t_bail("cannot fill the ext4 file");
		close(fd);
		nr = 4;
	}
	for (user = 0, i = 0; i < nr; i++)
		user += region_in(&r[i], base, bsize);
	metric_set("user_before", user);

	if (!strncmp(via, "heap:", 5))
		ret = via_heap(via + 5, size, base, bsize, &b,
			       (o = opt_get(argc, argv, "importer")) ? o : "dma-client-1");
	else if (!strncmp(via, "dma:", 4))
		ret = via_dma(via + 4, size, base, bsize, &b);
	else
		t_bail("--via must be heap:<name> or dma:<device>");
	metric_set("ret", ret);
	if (!ret) {
		nc = read_controllers(c, MAX_CTRL);
		metric_set("inside", b.outside == 0);
		metric_set("zero", b.zero);
		metric_set("ctrl_ok", nc > 0 && ctrl_of(c, nc, b.pa_min) >= 0 &&
			   ctrl_of(c, nc, b.pa_min) == ctrl_of(c, nc, base) &&
			   ctrl_of(c, nc, b.pa_max) == ctrl_of(c, nc, base));
		t_report("%s: %llu MiB at %#llx..%#llx, %zu pages outside %s",
			 via, (unsigned long long)size >> 20,
			 (unsigned long long)b.pa_min,
			 (unsigned long long)b.pa_max, b.outside, block);
	}
	/* none of the user's pages may be where the buffer is */
	for (user = 0, i = 0; i < nr && !ret; i++)
		user += region_in(&r[i], b.pa_min, b.pa_max + page_size() - b.pa_min);
	metric_set("user_in_buffer", user);
	for (user = 0, i = 0; i < nr; i++)
		user += region_bad(&r[i]);
	if (file > 0) {
		/* written back and read again from the disk: still intact */
		if (msync(r[3].p, r[3].len, MS_SYNC))
			t_bail("msync: %s", strerror(errno));
		munmap(r[3].p, r[3].len);
		file_write("/proc/sys/vm/drop_caches", "3");
		fd = open("/mnt/dmaalloc.data", O_RDWR);
		if (fd < 0)
			t_bail("cannot reopen the ext4 file");
		r[3].p = mmap(NULL, r[3].len, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
		if (r[3].p == MAP_FAILED)
			t_bail("cannot map the ext4 file again");
		user += region_bad(&r[3]);
		munmap(r[3].p, r[3].len);
		umount("/mnt");
	}
	metric_set("corrupt", user);
	buf_free(&b);

	/* freed: the block serves user pages again */
	if (region_fill(&r[4], anon, 0x44444444, -1))
		t_bail("cannot fill anonymous memory again");
	metric_set("reuse", ret ? 0 :
		   region_in(&r[4], b.pa_min, b.pa_max + page_size() - b.pa_min));
	check_expectations(argc, argv);
	return t_finish();
}
