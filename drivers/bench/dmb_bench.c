// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_bench - claim latency of a DMB, a CMA region and a carve-out, side by
 * side in one boot, through the paths a driver uses
 *
 * The bench device's node references three or four regions of one size on
 * one DRAM controller (memory-region-names "dmb", "cma", "carveout" and
 * optionally "cmadmb"):
 *
 *  - dmb: a Designated Movable Block, claimed with dmb_alloc();
 *  - cma: a reusable shared-dma-pool, the device's own CMA area, claimed
 *    with dma_alloc_pages(), the DMA API's call for a buffer the driver
 *    maps itself;
 *  - carveout: a no-map region, memremap()ed and handed out with a
 *    genalloc pool, the way drivers use carve-outs;
 *  - cmadmb (optional): a reusable shared-dma-pool inside a DMB, a CMA
 *    area that keeps MIGRATE_MOVABLE behaviour, claimed with cma_alloc()
 *    and zeroed in the timed claim as dma_alloc_pages() zeroes (the DMA
 *    API gives a device one CMA area, and this device's is "cma").
 *
 * Every claim returns zeroed memory, as a driver must hand it out: the
 * DMA API and dmb_alloc() zero what they return, and the carve-out claim
 * zeroes its run inside the timed claim, so like is compared with like.
 * The zeroing alone is then timed on its own by zeroing the claimed run a
 * second time (the same work on the same pages), and reported apart.
 *
 * debugfs, /sys/kernel/debug/dmb_bench/:
 *
 *  regions   read: "<name> <base> <size>" per region, hex
 *  claim     write "<region> <bytes> [zero]": claim a zeroed run (one
 *            claim per region at a time; "zero" is accepted and changes
 *            nothing); read: "ok <region> <pfn> <pages> <ns> <zero ns>"
 *            (pfn in hex; ns is the whole claim, zeroing included; zero
 *            ns is what zeroing the run takes, measured apart) or
 *            "error <region> <errno>"
 *  release   write "<region>": give the claim back
 *  ballast   write "<MiB>": hold that much unmovable kernel memory (never
 *            in ZONE_MOVABLE nor in CMA), allocating or freeing to get
 *            there, but never leaving less than 32 MiB above the
 *            watermarks, until the file is closed (also after an
 *            unbind: the ballast belongs to the open file); it steers
 *            where user pages land while the guest fills a region;
 *            read: MiB held
 *  copy      read: copies and zeroes 64 MiB of kernel pages, page by page
 *            as migration does, three times, and prints "copy <bytes>
 *            <best ns>" and "zero <bytes> <best ns>": the memory speed
 *            floor of this machine
 *
 * A test and benchmark module: root only, not for production kernels.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cma.h>
#include <linux/debugfs.h>
#include <linux/dma-map-ops.h>
#include <linux/dma-mapping.h>
#include <linux/dmb_alloc.h>
#include <linux/genalloc.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/platform_device.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

enum bench_region {
	BENCH_DMB, BENCH_CMA, BENCH_CARVEOUT, BENCH_CMADMB, BENCH_REGIONS
};

static const char *const region_names[BENCH_REGIONS] = {
	[BENCH_DMB] = "dmb",
	[BENCH_CMA] = "cma",
	[BENCH_CARVEOUT] = "carveout",
	[BENCH_CMADMB] = "cmadmb",
};

#define BENCH_COPY_BYTES	SZ_64M
#define BENCH_BALLAST_FLOOR	SZ_32M

/**
 * struct bench_claim - the outstanding claim of one region
 * @page: first page (dmb, cma)
 * @phys: physical address of the run (all regions)
 * @dma: the DMA address dma_alloc_pages() returned (cma)
 * @size: bytes; 0 when nothing is claimed
 */
struct bench_claim {
	struct page *page;
	phys_addr_t phys;
	dma_addr_t dma;
	size_t size;
};

/**
 * struct bench - the bench device
 * @dev: the platform device
 * @lock: serialises everything below
 * @dmb: the DMB's handle
 * @base: first byte of each region
 * @size: size of each region
 * @carve: the carve-out, mapped
 * @pool: allocator of the carve-out
 * @cmadmb: the CMA area of the pool inside a DMB, or NULL
 * @claims: outstanding claim per region
 * @result: what reading "claim" returns
 * @dir: debugfs directory
 */
struct bench {
	struct device *dev;
	struct mutex lock;	/* protects claims and result */
	struct dmb_handle *dmb;
	phys_addr_t base[BENCH_REGIONS];
	phys_addr_t size[BENCH_REGIONS];
	void *carve;
	struct gen_pool *pool;
	struct cma *cmadmb;
	struct bench_claim claims[BENCH_REGIONS];
	char result[128];
	struct dentry *dir;
};

static int region_parse(const char *word)
{
	int i;

	for (i = 0; i < BENCH_REGIONS; i++)
		if (!strcmp(word, region_names[i]))
			return i;
	return -EINVAL;
}

/* Zero a claimed run through the kernel's mapping; nanoseconds taken. */
static u64 bench_zero(struct bench *b, int r, struct bench_claim *c)
{
	u64 t0 = ktime_get_ns();
	unsigned long i;

	if (r == BENCH_CARVEOUT) {
		memset(b->carve + (c->phys - b->base[r]), 0, c->size);
	} else {
		for (i = 0; i < c->size >> PAGE_SHIFT; i++) {
			clear_highpage(nth_page(c->page, i));
			if (!(i & 1023))
				cond_resched();
		}
	}
	return ktime_get_ns() - t0;
}

static int bench_claim(struct bench *b, int r, size_t size)
{
	struct bench_claim *c = &b->claims[r];
	u64 t0, ns, zero_ns;

	if (c->size)
		return -EBUSY;
	if (!size || size > b->size[r] || !PAGE_ALIGNED(size))
		return -EINVAL;

	t0 = ktime_get_ns();
	switch (r) {
	case BENCH_DMB:
		/* zeroed by dmb_alloc(), as the DMA API zeroes */
		c->page = dmb_alloc(b->dmb, size, 0, GFP_KERNEL | __GFP_NOWARN, 0);
		if (IS_ERR(c->page))
			return PTR_ERR(c->page);
		c->phys = page_to_phys(c->page);
		break;
	case BENCH_CMA:
		/* the DMA API zeroes */
		c->page = dma_alloc_pages(b->dev, size, &c->dma,
					  DMA_BIDIRECTIONAL, GFP_KERNEL | __GFP_NOWARN);
		if (!c->page)
			return -ENOMEM;
		c->phys = page_to_phys(c->page);
		if (c->phys < b->base[r] || c->phys + size > b->base[r] + b->size[r]) {
			dev_warn(b->dev, "the DMA API gave %pa, outside the CMA region\n",
				 &c->phys);
			dma_free_pages(b->dev, size, c->page, c->dma,
				       DMA_BIDIRECTIONAL);
			return -ERANGE;
		}
		break;
	case BENCH_CARVEOUT:
		c->phys = gen_pool_alloc(b->pool, size);
		if (!c->phys)
			return -ENOMEM;
		c->size = size;
		/* what the other two do inside their claim */
		bench_zero(b, r, c);
		break;
	case BENCH_CMADMB:
		if (!b->cmadmb)
			return -ENODEV;
		/* as dma_alloc_pages() asks its CMA area, then zeroes */
		c->page = cma_alloc(b->cmadmb, size >> PAGE_SHIFT,
				    min(get_order(size), CONFIG_CMA_ALIGNMENT),
				    true);
		if (!c->page)
			return -ENOMEM;
		c->phys = page_to_phys(c->page);
		c->size = size;
		bench_zero(b, r, c);
		break;
	}
	ns = ktime_get_ns() - t0;
	c->size = size;
	/* the zeroing alone: the same work again, on the same pages */
	zero_ns = bench_zero(b, r, c);
	snprintf(b->result, sizeof(b->result), "ok %s %llx %zu %llu %llu\n",
		 region_names[r], (u64)PHYS_PFN(c->phys), size >> PAGE_SHIFT,
		 ns, zero_ns);
	return 0;
}

static int bench_release(struct bench *b, int r)
{
	struct bench_claim *c = &b->claims[r];
	int ret = 0;

	if (!c->size)
		return -ENOENT;
	switch (r) {
	case BENCH_DMB:
		ret = dmb_release(b->dmb, c->page, c->size);
		break;
	case BENCH_CMA:
		dma_free_pages(b->dev, c->size, c->page, c->dma, DMA_BIDIRECTIONAL);
		break;
	case BENCH_CARVEOUT:
		gen_pool_free(b->pool, c->phys, c->size);
		break;
	case BENCH_CMADMB:
		if (!cma_release(b->cmadmb, c->page, c->size >> PAGE_SHIFT))
			ret = -EINVAL;
		break;
	}
	if (!ret)
		c->size = 0;
	return ret;
}

/*
 * Free pages the ballast may still take: what unmovable allocations can
 * use (no ZONE_MOVABLE, no CMA) above each zone's high watermark and a
 * floor of BENCH_BALLAST_FLOOR, so that page tables and the rest of the
 * kernel never starve because of the bench.
 */
static unsigned long ballast_room(void)
{
	long room = -(long)(BENCH_BALLAST_FLOOR >> PAGE_SHIFT);
	struct zone *zone;
	int nid, z;

	for_each_online_node(nid)
		for (z = 0; z < ZONE_MOVABLE; z++) {
			zone = &NODE_DATA(nid)->node_zones[z];
			if (!populated_zone(zone))
				continue;
			room += zone_page_state(zone, NR_FREE_PAGES) -
				zone_page_state(zone, NR_FREE_CMA_PAGES) -
				high_wmark_pages(zone);
		}
	return max(room, 0L);
}

/**
 * struct bench_ballast - ballast held by one open "ballast" file
 * @lock: serialises writers of that file
 * @pages: the pages, linked through page->lru, order in page->private
 * @nr: how many pages
 *
 * Not part of the bench state: debugfs calls ->release when the file is
 * closed, which may be after the device was unbound and its devm memory
 * freed.  The ballast lives with the file, and the open file keeps the
 * module.
 */
struct bench_ballast {
	struct mutex lock;	/* serialises writers */
	struct list_head pages;
	unsigned long nr;
};

static void ballast_set(struct bench_ballast *bl, unsigned long pages)
{
	/*
	 * Unmovable, so never ZONE_MOVABLE nor a CMA pageblock; no retries,
	 * no warnings: the guest asks for what it thinks is free and takes
	 * what it gets.
	 */
	const gfp_t gfp = GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN;
	unsigned int order = pageblock_order;
	struct page *page;

	lockdep_assert_held(&bl->lock);
	while (bl->nr < pages) {
		unsigned long room = ballast_room();

		if (!room)
			break;
		while (order && ((1UL << order) > room ||
				 bl->nr + (1UL << order) > pages))
			order--;
		page = alloc_pages(gfp, order);
		if (!page) {
			if (!order)
				break;
			order--;
			continue;
		}
		page->private = order;
		list_add(&page->lru, &bl->pages);
		bl->nr += 1UL << order;
		cond_resched();
	}
	while (bl->nr > pages) {
		page = list_first_entry(&bl->pages, struct page, lru);
		list_del(&page->lru);
		order = page->private;
		page->private = 0;
		bl->nr -= 1UL << order;
		__free_pages(page, order);
	}
}

/* A command written to a debugfs file, as a string in @buf. */
static int bench_get_cmd(char *buf, size_t size, const char __user *ubuf,
			 size_t len)
{
	if (len >= size)
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	return 0;
}

static ssize_t claim_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct bench *b = file->private_data;
	char buf[64], name[16], mode[8] = "";
	unsigned long long size;
	int r, n, ret;

	ret = bench_get_cmd(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;
	n = sscanf(buf, "%15s %llu %7s", name, &size, mode);
	r = region_parse(name);
	if (n < 2 || r < 0 || (n == 3 && strcmp(mode, "zero"))) {
		dev_warn_ratelimited(b->dev, "claim: expected \"<dmb|cma|carveout|cmadmb> <bytes> [zero]\", got \"%s\"\n",
				     strim(buf));
		return -EINVAL;
	}
	mutex_lock(&b->lock);
	ret = bench_claim(b, r, size);
	if (ret)
		snprintf(b->result, sizeof(b->result), "error %s %d\n",
			 region_names[r], ret);
	mutex_unlock(&b->lock);
	return ret ?: len;
}

static ssize_t claim_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	struct bench *b = file->private_data;
	char buf[sizeof(b->result)];

	mutex_lock(&b->lock);
	strscpy(buf, b->result, sizeof(buf));
	mutex_unlock(&b->lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static const struct file_operations claim_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = claim_write,
	.read = claim_read,
	.llseek = default_llseek,
};

static ssize_t release_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct bench *b = file->private_data;
	char buf[16];
	int r, ret;

	ret = bench_get_cmd(buf, sizeof(buf), ubuf, len);
	if (ret)
		return ret;
	r = region_parse(strim(buf));
	if (r < 0) {
		dev_warn_ratelimited(b->dev, "release: no region \"%s\"\n", strim(buf));
		return r;
	}
	mutex_lock(&b->lock);
	ret = bench_release(b, r);
	mutex_unlock(&b->lock);
	return ret ?: len;
}

static const struct file_operations release_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.write = release_write,
	.llseek = default_llseek,
};

static int ballast_open(struct inode *inode, struct file *file)
{
	struct bench_ballast *bl = kzalloc(sizeof(*bl), GFP_KERNEL);

	if (!bl)
		return -ENOMEM;
	mutex_init(&bl->lock);
	INIT_LIST_HEAD(&bl->pages);
	file->private_data = bl;
	return 0;
}

static ssize_t ballast_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	struct bench_ballast *bl = file->private_data;
	unsigned long long mib;
	int ret;

	ret = kstrtoull_from_user(ubuf, len, 0, &mib);
	if (ret) {
		pr_warn_ratelimited("ballast: expected a number of MiB\n");
		return ret;
	}
	/* more than there is means "all it may take" */
	mib = min_t(u64, mib, totalram_pages() >> (20 - PAGE_SHIFT));
	mutex_lock(&bl->lock);
	ballast_set(bl, mib << (20 - PAGE_SHIFT));
	mutex_unlock(&bl->lock);
	return len;
}

static ssize_t ballast_read(struct file *file, char __user *ubuf, size_t len,
			    loff_t *ppos)
{
	struct bench_ballast *bl = file->private_data;
	char buf[24];
	int n;

	mutex_lock(&bl->lock);
	n = scnprintf(buf, sizeof(buf), "%lu\n", bl->nr >> (20 - PAGE_SHIFT));
	mutex_unlock(&bl->lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

/*
 * The ballast lives as long as the file stays open: a killed bench frees
 * it.  Also called after an unbind: touches nothing of the bench state.
 */
static int ballast_release(struct inode *inode, struct file *file)
{
	struct bench_ballast *bl = file->private_data;

	mutex_lock(&bl->lock);
	ballast_set(bl, 0);
	mutex_unlock(&bl->lock);
	mutex_destroy(&bl->lock);
	kfree(bl);
	return 0;
}

static const struct file_operations ballast_fops = {
	.owner = THIS_MODULE,
	.open = ballast_open,
	.write = ballast_write,
	.read = ballast_read,
	.release = ballast_release,
	.llseek = default_llseek,
};

static int regions_show(struct seq_file *m, void *v)
{
	struct bench *b = m->private;
	int i;

	for (i = 0; i < BENCH_REGIONS; i++)
		seq_printf(m, "%s %llx %llx\n", region_names[i],
			   (u64)b->base[i], (u64)b->size[i]);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(regions);

/* Free the pages of a list built by bench_pages(). */
static void bench_pages_free(struct list_head *list)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, list, lru) {
		list_del(&page->lru);
		__free_pages(page, pageblock_order);
	}
}

/* @bytes of pageblock-sized runs of ordinary kernel memory; 0 or -ENOMEM. */
static int bench_pages(struct list_head *list, size_t bytes)
{
	struct page *page;
	size_t done;

	for (done = 0; done < bytes; done += PAGE_SIZE << pageblock_order) {
		page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, pageblock_order);
		if (!page) {
			bench_pages_free(list);
			return -ENOMEM;
		}
		list_add_tail(&page->lru, list);
	}
	return 0;
}

/*
 * The speed of copying and of zeroing pages, the way migration and
 * clear_highpage() do it, between ordinary pages of the linear map: best
 * of three rounds over BENCH_COPY_BYTES.
 */
static int copy_show(struct seq_file *m, void *v)
{
	const unsigned long per = 1UL << pageblock_order;
	LIST_HEAD(src);
	LIST_HEAD(dst);
	u64 copy = U64_MAX, zero = U64_MAX, t0;
	struct page *s, *d;
	unsigned long i;
	int round;

	if (bench_pages(&src, BENCH_COPY_BYTES))
		return -ENOMEM;
	if (bench_pages(&dst, BENCH_COPY_BYTES)) {
		bench_pages_free(&src);
		return -ENOMEM;
	}
	list_for_each_entry(s, &src, lru)
		for (i = 0; i < per; i++)
			memset(page_address(s + i), 0x5a, PAGE_SIZE);
	for (round = 0; round < 3; round++) {
		t0 = ktime_get_ns();
		d = list_first_entry(&dst, struct page, lru);
		list_for_each_entry(s, &src, lru) {
			for (i = 0; i < per; i++)
				copy_highpage(d + i, s + i);
			d = list_next_entry(d, lru);
		}
		copy = min(copy, ktime_get_ns() - t0);
		cond_resched();
		t0 = ktime_get_ns();
		list_for_each_entry(d, &dst, lru)
			for (i = 0; i < per; i++)
				clear_highpage(d + i);
		zero = min(zero, ktime_get_ns() - t0);
		cond_resched();
	}
	bench_pages_free(&dst);
	bench_pages_free(&src);
	seq_printf(m, "copy %lu %llu\nzero %lu %llu\n",
		   (unsigned long)BENCH_COPY_BYTES, copy,
		   (unsigned long)BENCH_COPY_BYTES, zero);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(copy);

static int bench_carveout(struct bench *b, int idx)
{
	struct device_node *np;
	struct reserved_mem *rmem;
	phys_addr_t base, size;
	int ret;

	np = of_parse_phandle(b->dev->of_node, "memory-region", idx);
	if (!np)
		return dev_err_probe(b->dev, -EINVAL, "carveout: no memory-region %d\n", idx);
	rmem = of_reserved_mem_lookup(np);
	of_node_put(np);
	if (!rmem)
		return dev_err_probe(b->dev, -EINVAL,
				     "carveout: memory-region %d is not reserved memory\n", idx);
	base = rmem->base;
	size = rmem->size;
	b->carve = devm_memremap(b->dev, base, size, MEMREMAP_WB);
	if (IS_ERR(b->carve))
		return dev_err_probe(b->dev, PTR_ERR(b->carve),
				     "carveout: cannot map %pa\n", &base);
	b->pool = devm_gen_pool_create(b->dev, PAGE_SHIFT, -1, "dmb-bench-carveout");
	if (IS_ERR(b->pool))
		return PTR_ERR(b->pool);
	ret = gen_pool_add(b->pool, base, size, -1);
	if (ret)
		return ret;
	b->base[BENCH_CARVEOUT] = base;
	b->size[BENCH_CARVEOUT] = size;
	return 0;
}

static int bench_cma(struct bench *b, int idx)
{
	struct device_node *np;
	struct reserved_mem *rmem;
	int ret;

	ret = dma_set_mask_and_coherent(b->dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(b->dev, ret, "cma: no 64-bit DMA mask\n");
	ret = of_reserved_mem_device_init_by_idx(b->dev, b->dev->of_node, idx);
	if (ret)
		return dev_err_probe(b->dev, ret,
				     "cma: memory-region %d is not a reusable shared-dma-pool\n",
				     idx);
	np = of_parse_phandle(b->dev->of_node, "memory-region", idx);
	rmem = np ? of_reserved_mem_lookup(np) : NULL;
	of_node_put(np);
	if (!rmem || !b->dev->cma_area) {
		of_reserved_mem_device_release(b->dev);
		return dev_err_probe(b->dev, -EINVAL,
				     "cma: memory-region %d did not give the device a CMA area\n",
				     idx);
	}
	b->base[BENCH_CMA] = rmem->base;
	b->size[BENCH_CMA] = rmem->size;
	return 0;
}

/*
 * The optional "cmadmb" region: a reusable shared-dma-pool that the core
 * nested in a DMB.  Its CMA area is the reserved-memory region's private
 * data (rmem_cma_setup()); cma_alloc() on it isolates MIGRATE_MOVABLE.
 */
static int bench_cmadmb(struct bench *b, int idx)
{
	struct device_node *np;
	struct reserved_mem *rmem;
	struct cma *cma;

	np = of_parse_phandle(b->dev->of_node, "memory-region", idx);
	rmem = np && of_device_is_compatible(np, "shared-dma-pool") &&
	       of_property_read_bool(np, "reusable") ?
	       of_reserved_mem_lookup(np) : NULL;
	of_node_put(np);
	/* rmem_cma_setup() names the area after the node */
	cma = rmem && rmem->ops ? rmem->priv : NULL;
	if (!cma || strcmp(cma_get_name(cma), rmem->name))
		return dev_err_probe(b->dev, -EINVAL,
				     "cmadmb: memory-region %d is not a CMA pool\n",
				     idx);
	b->cmadmb = cma;
	b->base[BENCH_CMADMB] = rmem->base;
	b->size[BENCH_CMADMB] = rmem->size;
	return 0;
}

static int bench_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct bench *b;
	int idx, ret;

	b = devm_kzalloc(dev, sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->dev = dev;
	mutex_init(&b->lock);
	strscpy(b->result, "none\n", sizeof(b->result));

	b->dmb = dmb_handle_get_by_name(dev, "dmb");
	if (IS_ERR(b->dmb))
		return dev_err_probe(dev, PTR_ERR(b->dmb), "no \"dmb\" region\n");
	b->base[BENCH_DMB] = dmb_handle_base(b->dmb);
	b->size[BENCH_DMB] = dmb_handle_size(b->dmb);

	idx = of_property_match_string(dev->of_node, "memory-region-names", "carveout");
	ret = idx < 0 ? dev_err_probe(dev, idx, "no \"carveout\" region\n") :
		bench_carveout(b, idx);
	if (ret)
		goto put;
	idx = of_property_match_string(dev->of_node, "memory-region-names", "cma");
	ret = idx < 0 ? dev_err_probe(dev, idx, "no \"cma\" region\n") :
		bench_cma(b, idx);
	if (ret)
		goto put;
	idx = of_property_match_string(dev->of_node, "memory-region-names", "cmadmb");
	if (idx >= 0) {
		ret = bench_cmadmb(b, idx);
		if (ret)
			goto release;
	}

	b->dir = debugfs_create_dir("dmb_bench", NULL);
	debugfs_create_file("regions", 0400, b->dir, b, &regions_fops);
	debugfs_create_file("claim", 0600, b->dir, b, &claim_fops);
	debugfs_create_file("release", 0200, b->dir, b, &release_fops);
	debugfs_create_file("ballast", 0600, b->dir, b, &ballast_fops);
	debugfs_create_file("copy", 0400, b->dir, b, &copy_fops);
	platform_set_drvdata(pdev, b);
	dev_info(dev, "dmb %pa+%pa, cma %pa+%pa, carveout %pa+%pa, cmadmb %pa+%pa\n",
		 &b->base[0], &b->size[0], &b->base[1], &b->size[1],
		 &b->base[2], &b->size[2], &b->base[3], &b->size[3]);
	return 0;

release:
	of_reserved_mem_device_release(dev);
put:
	dmb_handle_put(b->dmb);
	return ret;
}

static void bench_remove(struct platform_device *pdev)
{
	struct bench *b = platform_get_drvdata(pdev);
	int r;

	debugfs_remove_recursive(b->dir);
	mutex_lock(&b->lock);
	for (r = 0; r < BENCH_REGIONS; r++)
		if (b->claims[r].size && bench_release(b, r))
			dev_warn(b->dev, "%s: claim not released\n", region_names[r]);
	mutex_unlock(&b->lock);
	of_reserved_mem_device_release(b->dev);
	dmb_handle_put(b->dmb);
}

static const struct of_device_id bench_of_match[] = {
	{ .compatible = "dmb-test,bench" },
	{ /* sentinel */ }
};
MODULE_DEVICE_TABLE(of, bench_of_match);

static struct platform_driver bench_driver = {
	.probe = bench_probe,
	.remove = bench_remove,
	.driver = {
		.name = "dmb-bench",
		.of_match_table = bench_of_match,
	},
};
module_platform_driver(bench_driver);

MODULE_DESCRIPTION("Claim latency of a DMB, a CMA region and a carve-out, side by side");
MODULE_LICENSE("GPL");
