// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_alloc - physically contiguous buffers from Designated Movable Blocks
 *
 * A Designated Movable Block (DMB) is memory the page allocator lends to
 * movable data, such as user pages, and that the device it was declared for
 * takes back when it needs it.  This module is the driver side: a driver
 * takes a handle on its device's block (memory-region in the device tree),
 * claims runs of it with dmb_alloc(), which migrates whatever lives there
 * with alloc_contig_range(), and returns them with dmb_release().
 *
 * A block's pages are handed out by the block's CMA area, the one the DMA
 * API and the dma-buf heap use too: a claim here is cma_alloc_gfp() on
 * it, so the two never hand out the same page, and every improvement of
 * cma_alloc() (bounded retries that name the busy page, a lock per area,
 * migration and zeroing on every CPU) is this module's as well.  What is
 * left here is a driver API: handles, exact releases, the prepared claim,
 * counters, tracepoints and debugfs.
 *
 * Pages still claimed when the last handle goes are not freed: the device
 * may still be writing to them or userspace may have them mapped.  They
 * stay claimed (debugfs shows them) and the module cannot be unloaded
 * while any page is claimed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cma.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dmb.h>
#include <linux/dmb_alloc.h>
#include <linux/gfp.h>
#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "dmb_alloc_book.h"

#define CREATE_TRACE_POINTS
#include "dmb_alloc_trace.h"

/**
 * struct dmb_area - a block in use through this module
 * @node: in dmb_area_list
 * @dmb: the core's block
 * @cma: the block's CMA area, which hands out its pages
 * @dev: the device that created the area, with a reference (an orphan
 *	area prints through it after its driver is gone); fixed for the
 *	area's life, so read without a lock
 * @name: short name (the block's device tree node or movablecore= item)
 * @base_pfn: first page frame of the block
 * @book: runs handed out, under @lock
 * @lock: protects @book
 * @handles: handles given out and not put, under dmb_area_lock
 * @dying: the last handle went with nothing claimed and the area is being
 *	destroyed: a prepared claim still in flight must not commit; under
 *	@lock
 * @kobj: /sys/kernel/mm/dmb_alloc/<name>, owns the area's memory
 * @debugfs: /sys/kernel/debug/dmb_alloc/<name>
 * @claims_ok: successful dmb_alloc() calls
 * @claims_failed: failed dmb_alloc() calls
 * @pages_claimed: pages handed out
 * @pages_released: pages given back
 * @claims_busy: failed claims that found every candidate run busy
 * @claims_nomem: failed claims with no memory to move the data to
 * @preps: prepared claims not yet committed or cancelled, under @lock
 */
struct dmb_area {
	struct list_head node;
	struct dmb_block *dmb;
	struct cma *cma;
	struct device *dev;
	char name[64];
	unsigned long base_pfn;
	struct dmb_book book;
	spinlock_t lock;		/* protects @book */
	unsigned int handles;
	bool dying;
	struct kobject kobj;
	struct dentry *debugfs;
	atomic_long_t claims_ok;
	atomic_long_t claims_failed;
	atomic_long_t pages_claimed;
	atomic_long_t pages_released;
	atomic_long_t claims_busy;
	atomic_long_t claims_nomem;
	struct list_head preps;
};

/**
 * struct dmb_handle - what a driver holds
 * @area: the block's area
 */
struct dmb_handle {
	struct dmb_area *area;
};

static LIST_HEAD(dmb_area_list);
/* areas, their handle counts, directories and ends */
static DEFINE_MUTEX(dmb_area_lock);
static struct kobject *dmb_alloc_kobj;
static struct dentry *dmb_alloc_debugfs;

/* ---- sysfs counters ---------------------------------------------------- */

/* A counter of struct dmb_area shown in sysfs */
struct dmb_counter_attr {
	struct kobj_attribute attr;
	size_t offset;
};

static ssize_t dmb_counter_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct dmb_area *area = container_of(kobj, struct dmb_area, kobj);
	struct dmb_counter_attr *ca = container_of(attr, struct dmb_counter_attr,
						   attr);

	return sysfs_emit(buf, "%ld\n",
			  atomic_long_read((atomic_long_t *)((char *)area +
							     ca->offset)));
}

#define DMB_COUNTER(_name)						\
	static struct dmb_counter_attr dmb_counter_##_name = {		\
		__ATTR(_name, 0444, dmb_counter_show, NULL),		\
		offsetof(struct dmb_area, _name)			\
	}

DMB_COUNTER(claims_ok);
DMB_COUNTER(claims_failed);
DMB_COUNTER(pages_claimed);
DMB_COUNTER(pages_released);
DMB_COUNTER(claims_busy);
DMB_COUNTER(claims_nomem);

static struct attribute *dmb_area_attrs[] = {
	&dmb_counter_claims_ok.attr.attr,
	&dmb_counter_claims_failed.attr.attr,
	&dmb_counter_pages_claimed.attr.attr,
	&dmb_counter_pages_released.attr.attr,
	&dmb_counter_claims_busy.attr.attr,
	&dmb_counter_claims_nomem.attr.attr,
	NULL,
};

ATTRIBUTE_GROUPS(dmb_area);

static void dmb_area_release(struct kobject *kobj)
{
	struct dmb_area *area = container_of(kobj, struct dmb_area, kobj);

	put_device(area->dev);
	kfree(area);
}

static const struct kobj_type dmb_area_ktype = {
	.release = dmb_area_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = dmb_area_groups,
};

/* ---- claiming ------------------------------------------------------------ */

/* Pages claimed went from none to some, or back: pin the module meanwhile */
static void dmb_area_claimed(struct dmb_area *area, unsigned long before,
			     unsigned long after)
{
	if (!before && after)
		__module_get(THIS_MODULE);
	else if (before && !after)
		module_put(THIS_MODULE);
}

/*
 * Can dmb_alloc() migrate with this gfp?  It must allow sleeping (the
 * migration waits for page locks and writeback) and carry nothing but
 * reclaim modifiers: checked before anything is reserved.
 */
static bool dmb_gfp_ok(gfp_t gfp)
{
	return gfpflags_allow_blocking(gfp) &&
	       !(gfp & ~(GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL));
}

/* Are dmb_alloc()'s arguments wrong?  Says why; else gives pages and mask */
static bool dmb_alloc_args_bad(struct dmb_area *area, size_t size,
			       size_t align, gfp_t gfp, unsigned int flags,
			       unsigned long *nr, unsigned long *mask)
{
	const char *why = NULL;

	if (flags & ~DMB_ALLOC_NOZERO)
		why = "unknown flags";
	else if (!dmb_gfp_ok(gfp))
		why = "gfp must allow sleeping, with no zone or action modifiers";
	else
		dmb_book_check_alloc(&area->book, size, align, nr, mask, &why);
	if (why)
		dev_warn_ratelimited(area->dev, "dmb_alloc: %s: %zu bytes aligned to %zu, flags 0x%x, gfp %pGg: %s\n",
				     area->name, size, align, flags, &gfp, why);
	return why;
}

/* The claim itself, for a handle or a prepared claim */
static struct page *__dmb_alloc(struct dmb_area *area, size_t size,
				size_t align, gfp_t gfp, unsigned int flags)
{
	unsigned long nr, mask, before, pfn;
	struct dmb_claim *claim;
	struct page *page;
	u64 t0 = ktime_get_ns();
	int ret;

	might_sleep();
	if (dmb_alloc_args_bad(area, size, align, gfp, flags, &nr, &mask)) {
		atomic_long_inc(&area->claims_failed);
		return ERR_PTR(-EINVAL);
	}
	claim = kmalloc(sizeof(*claim), GFP_KERNEL);
	if (!claim) {
		atomic_long_inc(&area->claims_failed);
		return ERR_PTR(-ENOMEM);
	}
	trace_dmb_alloc_start(area->name, nr, mask + 1);

	/*
	 * The pages still hold what was migrated out of them: the page
	 * allocator zeroes them as it hands them over (once, also with
	 * init_on_alloc), unless the caller overwrites every byte itself.
	 * alloc_contig_range() adds __GFP_RETRY_MAYFAIL itself.
	 */
	gfp &= ~__GFP_RETRY_MAYFAIL;
	if (!(flags & DMB_ALLOC_NOZERO))
		gfp |= __GFP_ZERO;
	page = cma_alloc_gfp(area->cma, nr, mask ? ilog2(mask + 1) : 0, gfp);
	if (IS_ERR(page)) {
		ret = PTR_ERR(page);
		goto fail;
	}
	pfn = page_to_pfn(page);

	spin_lock(&area->lock);
	if (unlikely(area->dying)) {
		/* a prepared claim raced the last handle */
		spin_unlock(&area->lock);
		cma_release(area->cma, page, nr);
		ret = -ENODEV;
		goto fail;
	}
	before = area->book.claimed;
	dmb_book_commit(&area->book, claim, pfn - area->base_pfn, nr);
	spin_unlock(&area->lock);
	dmb_area_claimed(area, before, before + nr);
	atomic_long_inc(&area->claims_ok);
	atomic_long_add(nr, &area->pages_claimed);
	trace_dmb_alloc_finish(area->name, pfn, nr, 0, ktime_get_ns() - t0);
	return page;

fail:
	kfree(claim);
	atomic_long_inc(&area->claims_failed);
	if (ret == -EBUSY)
		atomic_long_inc(&area->claims_busy);
	else if (ret == -ENOMEM)
		atomic_long_inc(&area->claims_nomem);
	trace_dmb_alloc_finish(area->name, 0, nr, ret, ktime_get_ns() - t0);
	return ERR_PTR(ret);
}

/**
 * dmb_alloc - claim a physically contiguous run of a device's block
 * @handle: from dmb_handle_get()
 * @size: bytes, rounded up to pages
 * @align: alignment of the run's physical address, a power of two; 0 for
 *	a page
 * @gfp: GFP_KERNEL, optionally with __GFP_NOWARN, for the migration
 *	targets; alloc_contig_range() adds __GFP_RETRY_MAYFAIL itself, so a
 *	claim never invokes the OOM killer, it fails with -ENOMEM.  Any
 *	other gfp (one that cannot sleep, in particular) is refused at once.
 * @flags: 0, or DMB_ALLOC_NOZERO
 *
 * Finds a free run of the block's CMA area and migrates whatever user or
 * page cache data lives there to memory outside it, with cma_alloc_gfp():
 * a page that stays busy (pinned, referenced from a pipe) is passed by, a
 * claim's attempts and time are bounded, and the busy page is named in
 * the cma_alloc_busy_retry tracepoint and a rate-limited message.  A fatal
 * signal aborts the claim.  On any failure nothing stays claimed and no
 * data is lost.
 *
 * The run is zeroed before it is returned, as the DMA API and the CMA heap
 * do: the pages held other processes' data until the migration copied it
 * out.  Only a driver that overwrites every byte of the run before anyone
 * (its device, userspace) can read it may pass DMB_ALLOC_NOZERO.
 *
 * Context: process context, may sleep.
 * Return: the first page of the run; ERR_PTR(-EINVAL) for bad arguments,
 * ERR_PTR(-ENOSPC) if the block has no free run of that size and
 * alignment, ERR_PTR(-EBUSY) if every candidate stayed busy,
 * ERR_PTR(-ENOMEM) if the data could not be moved out (not enough free
 * memory elsewhere), ERR_PTR(-EINTR) on a fatal signal.
 */
struct page *dmb_alloc(struct dmb_handle *handle, size_t size, size_t align,
		       gfp_t gfp, unsigned int flags)
{
	if (WARN_ON_ONCE(IS_ERR_OR_NULL(handle)))
		return ERR_PTR(-EINVAL);
	return __dmb_alloc(handle->area, size, align, gfp, flags);
}
EXPORT_SYMBOL_GPL(dmb_alloc);

/* Free the pages of a claim forgotten by the book, @before pages claimed */
static void dmb_free_claim(struct dmb_area *area, struct dmb_claim *claim,
			   unsigned long before)
{
	unsigned long pfn = area->base_pfn + claim->bitno, nr = claim->nr;

	cma_release(area->cma, pfn_to_page(pfn), nr);
	dmb_area_claimed(area, before, before - nr);
	atomic_long_add(nr, &area->pages_released);
	trace_dmb_release(area->name, pfn, nr);
	kfree(claim);
}

/* Release a run of @area, which must be exactly one claimed run */
static int __dmb_release(struct dmb_area *area, struct page *pages,
			 size_t size)
{
	struct dmb_claim *claim = NULL;
	unsigned long pfn, nr, before = 0;
	const char *why = "size is 0";

	might_sleep();
	if (!pages) {
		why = "no pages";
		goto misuse;
	}
	pfn = page_to_pfn(pages);
	nr = DIV_ROUND_UP(size, PAGE_SIZE);
	if (!nr)
		goto misuse;
	if (!dmb_contains(area->dmb, pfn, nr)) {
		why = "the run is not in this block";
		goto misuse;
	}

	spin_lock(&area->lock);
	claim = dmb_book_find(&area->book, pfn - area->base_pfn, nr, &why);
	if (claim) {
		before = area->book.claimed;
		dmb_book_forget(&area->book, claim);
	}
	spin_unlock(&area->lock);
	if (!claim)
		goto misuse;
	dmb_free_claim(area, claim, before);
	return 0;

misuse:
	WARN_ONCE(1, "%s: %s: refused run at pfn 0x%lx, %zu bytes: %s\n",
		  "dmb_release", area->name, pages ? page_to_pfn(pages) : 0,
		  size, why);
	dev_err(area->dev, "%s: %s: %zu bytes at pfn 0x%lx refused: %s\n",
		"dmb_release", area->name, size,
		pages ? page_to_pfn(pages) : 0, why);
	return -EINVAL;
}

/**
 * dmb_release - give back a run claimed with dmb_alloc()
 * @handle: a handle on the block it was claimed from
 * @pages: what dmb_alloc() returned
 * @size: the size passed to dmb_alloc()
 *
 * The pages return to the page allocator, in ZONE_MOVABLE, where user
 * pages can use them at once.  Claims belong to the block, not to the
 * handle: any handle on the block releases any of its runs, so the caller
 * must release only runs it claimed.  A run that is not exactly one
 * claimed run of the block (never claimed, already released, of another
 * block, another size, part of a run) is refused with a warning and
 * nothing changes.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL for a run that is not a claimed run of the block.
 */
int dmb_release(struct dmb_handle *handle, struct page *pages, size_t size)
{
	if (WARN_ON_ONCE(IS_ERR_OR_NULL(handle)))
		return -EINVAL;
	return __dmb_release(handle->area, pages, size);
}
EXPORT_SYMBOL_GPL(dmb_release);

/* ---- prepared claims ---------------------------------------------------- */

/**
 * struct dmb_prep - a claim migrating in the background
 * @area: the block; its kobject is referenced until the prep is freed
 * @size: as given to dmb_alloc_prepare()
 * @align: likewise
 * @gfp: likewise
 * @flags: likewise
 * @cancel: set by dmb_alloc_cancel(): a claim not started yet does not start
 * @work: runs the claim on dmb_prep_wq
 * @done: completed when the claim has ended, one way or the other
 * @page: its result: the run's first page or an ERR_PTR()
 * @node: in the area's list of preparations
 */
struct dmb_prep {
	struct dmb_area *area;
	size_t size, align;
	gfp_t gfp;
	unsigned int flags;
	bool cancel;
	struct work_struct work;
	struct completion done;
	struct page *page;
	struct list_head node;
};

static struct workqueue_struct *dmb_prep_wq;

static void dmb_prep_work(struct work_struct *work)
{
	struct dmb_prep *prep = container_of(work, struct dmb_prep, work);

	if (READ_ONCE(prep->cancel))
		prep->page = ERR_PTR(-ECANCELED);
	else
		prep->page = __dmb_alloc(prep->area, prep->size, prep->align,
					 prep->gfp, prep->flags);
	complete_all(&prep->done);
}

static void dmb_prep_free(struct dmb_prep *prep)
{
	struct dmb_area *area = prep->area;

	flush_work(&prep->work);
	spin_lock(&area->lock);
	list_del(&prep->node);
	spin_unlock(&area->lock);
	kfree(prep);
	kobject_put(&area->kobj);
}

/**
 * dmb_alloc_prepare - start a claim in the background
 * @handle: from dmb_handle_get()
 * @size: as for dmb_alloc()
 * @align: as for dmb_alloc()
 * @gfp: as for dmb_alloc()
 * @flags: as for dmb_alloc()
 *
 * A driver that knows it will need a buffer soon (a player opened the
 * device, the stream's format is known) starts emptying the run now and
 * takes it with dmb_alloc_commit() when streaming starts, which then waits
 * only for what is left; dmb_alloc_cancel() gives back what it took.  The
 * claim is dmb_alloc()'s, run by a worker.  Every prepared claim must be
 * committed or cancelled; the last dmb_handle_put() cancels those that
 * have not started.
 *
 * Context: process context, may sleep.
 * Return: the prepared claim; ERR_PTR(-EINVAL) for the arguments
 * dmb_alloc() refuses, ERR_PTR(-ENOMEM).
 */
struct dmb_prep *dmb_alloc_prepare(struct dmb_handle *handle, size_t size,
				   size_t align, gfp_t gfp, unsigned int flags)
{
	unsigned long nr, mask;
	struct dmb_area *area;
	struct dmb_prep *prep;

	might_sleep();
	if (WARN_ON_ONCE(IS_ERR_OR_NULL(handle)))
		return ERR_PTR(-EINVAL);
	area = handle->area;
	if (dmb_alloc_args_bad(area, size, align, gfp, flags, &nr, &mask))
		return ERR_PTR(-EINVAL);
	prep = kzalloc(sizeof(*prep), GFP_KERNEL);
	if (!prep)
		return ERR_PTR(-ENOMEM);
	kobject_get(&area->kobj);
	spin_lock(&area->lock);
	list_add(&prep->node, &area->preps);
	spin_unlock(&area->lock);
	prep->area = area;
	prep->size = size;
	prep->align = align;
	prep->gfp = gfp;
	prep->flags = flags;
	INIT_WORK(&prep->work, dmb_prep_work);
	init_completion(&prep->done);
	queue_work(dmb_prep_wq, &prep->work);
	return prep;
}
EXPORT_SYMBOL_GPL(dmb_alloc_prepare);

/**
 * dmb_alloc_prepared - has a prepared claim ended?
 * @prep: from dmb_alloc_prepare()
 *
 * Return: true when dmb_alloc_commit() would not wait.
 */
bool dmb_alloc_prepared(struct dmb_prep *prep)
{
	return completion_done(&prep->done);
}
EXPORT_SYMBOL_GPL(dmb_alloc_prepared);

/**
 * dmb_alloc_cancel - stop a prepared claim and give back what it took
 * @prep: from dmb_alloc_prepare(); freed
 *
 * A claim not started yet does not start; one under way is waited for
 * (its time is bounded, see cma_alloc_gfp()) and what it took is released.
 *
 * Context: process context, may sleep.
 */
void dmb_alloc_cancel(struct dmb_prep *prep)
{
	if (IS_ERR_OR_NULL(prep))
		return;
	WRITE_ONCE(prep->cancel, true);
	wait_for_completion(&prep->done);
	if (!IS_ERR(prep->page))
		WARN_ON_ONCE(__dmb_release(prep->area, prep->page, prep->size));
	dmb_prep_free(prep);
}
EXPORT_SYMBOL_GPL(dmb_alloc_cancel);

/**
 * dmb_alloc_commit - take a prepared claim
 * @prep: from dmb_alloc_prepare(); freed
 *
 * Waits for what is left of the claim.  A fatal signal while it waits
 * cancels the claim.  The run is then an ordinary claim, given back with
 * dmb_release().
 *
 * Context: process context, may sleep.
 * Return: as dmb_alloc(), ERR_PTR(-EINTR) on a fatal signal, and
 * ERR_PTR(-ENODEV) or ERR_PTR(-ECANCELED) when the last handle went
 * meanwhile.
 */
struct page *dmb_alloc_commit(struct dmb_prep *prep)
{
	struct page *page;

	if (WARN_ON_ONCE(IS_ERR_OR_NULL(prep)))
		return ERR_PTR(-EINVAL);
	if (wait_for_completion_killable(&prep->done)) {
		dmb_alloc_cancel(prep);
		return ERR_PTR(-EINTR);
	}
	page = prep->page;
	dmb_prep_free(prep);
	return page;
}
EXPORT_SYMBOL_GPL(dmb_alloc_commit);

/* ---- debugfs ------------------------------------------------------------- */

static int dmb_info_show(struct seq_file *m, void *v)
{
	struct dmb_area *area = m->private;
	phys_addr_t base = dmb_base(area->dmb), size = dmb_size(area->dmb);
	unsigned long claimed;

	spin_lock(&area->lock);
	claimed = area->book.claimed;
	spin_unlock(&area->lock);
	seq_printf(m, "name: %s\nbase: %pa\nsize: %pa\npages: %lu\nclaimed: %lu\ncma: %s\nowner: %s\n",
		   dmb_name(area->dmb), &base, &size, area->book.count, claimed,
		   cma_get_name(area->cma),
		   area->handles ? dev_name(area->dev) : "-");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmb_info);

/* Claimed runs, "first_page last_page" counted from the block's start */
static int dmb_claims_show(struct seq_file *m, void *v)
{
	struct dmb_area *area = m->private;
	struct dmb_claim *claim;

	spin_lock(&area->lock);
	list_for_each_entry(claim, &area->book.claims, node)
		seq_printf(m, "%lu-%lu\n", claim->bitno,
			   claim->bitno + claim->nr - 1);
	spin_unlock(&area->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmb_claims);

/* ---- handles ------------------------------------------------------------- */

static struct dmb_area *dmb_area_create(struct dmb_block *dmb, struct device *dev)
{
	const char *full = dmb_name(dmb), *slash = strrchr(full, '/');
	struct dmb_area *area;
	int ret;

	/* the block's CMA area hands out its pages: without one, no claims */
	if (!dmb_cma(dmb)) {
		dev_err(dev, "dmb_alloc: %s has no CMA area of its own (a CMA pool lies inside it, or none was left at boot): claim from its pools with the DMA API\n",
			full);
		return ERR_PTR(-ENODEV);
	}
	area = kzalloc(sizeof(*area), GFP_KERNEL);
	if (!area)
		return ERR_PTR(-ENOMEM);
	area->dmb = dmb;
	area->cma = dmb_cma(dmb);
	strscpy(area->name, slash ? slash + 1 : full, sizeof(area->name));
	area->base_pfn = PHYS_PFN(dmb_base(dmb));
	area->book.count = PHYS_PFN(dmb_size(dmb));
	INIT_LIST_HEAD(&area->book.claims);
	INIT_LIST_HEAD(&area->preps);
	spin_lock_init(&area->lock);
	/* from here the kobject's release frees the area and puts @dev */
	area->dev = get_device(dev);
	ret = kobject_init_and_add(&area->kobj, &dmb_area_ktype, dmb_alloc_kobj,
				   "%s", area->name);
	if (ret) {
		/* the release callback frees the area */
		kobject_put(&area->kobj);
		return ERR_PTR(ret);
	}
	area->debugfs = debugfs_create_dir(area->name, dmb_alloc_debugfs);
	debugfs_create_file("info", 0444, area->debugfs, area, &dmb_info_fops);
	debugfs_create_file("claims", 0444, area->debugfs, area, &dmb_claims_fops);
	list_add_tail(&area->node, &dmb_area_list);
	return area;
}

/*
 * Called with dmb_area_lock held, when neither handles nor claims remain
 * and @dying is set.  The directories go at once, so that a new area of
 * the same name can be made; a prepared claim may keep the memory a while.
 */
static void dmb_area_destroy(struct dmb_area *area)
{
	list_del(&area->node);
	debugfs_remove(area->debugfs);
	kobject_del(&area->kobj);
	kobject_put(&area->kobj);
}

static struct dmb_handle *dmb_handle_wrap(struct device *dev, struct dmb_block *dmb)
{
	struct dmb_handle *handle;
	struct dmb_area *area;

	if (IS_ERR(dmb))
		return ERR_CAST(dmb);
	handle = kzalloc(sizeof(*handle), GFP_KERNEL);
	if (!handle) {
		dmb_put(dmb);
		return ERR_PTR(-ENOMEM);
	}
	mutex_lock(&dmb_area_lock);
	list_for_each_entry(area, &dmb_area_list, node)
		if (area->dmb == dmb)
			goto found;
	area = dmb_area_create(dmb, dev);
	if (IS_ERR(area)) {
		mutex_unlock(&dmb_area_lock);
		kfree(handle);
		dmb_put(dmb);
		return ERR_CAST(area);
	}
found:
	/* area->dev stays the device that made the area, for messages */
	area->handles++;
	handle->area = area;
	mutex_unlock(&dmb_area_lock);
	return handle;
}

/**
 * dmb_handle_get - take a handle on the block a device references
 * @dev: device whose device tree node has memory-region
 * @index: index in memory-region
 *
 * Only a device whose node references a Designated Movable Block gets a
 * handle; the core refuses every other one with a message naming it.
 *
 * Context: process context, may sleep.
 * Return: the handle, or an ERR_PTR() from dmb_get().
 */
struct dmb_handle *dmb_handle_get(struct device *dev, unsigned int index)
{
	return dmb_handle_wrap(dev, dmb_get(dev, index));
}
EXPORT_SYMBOL_GPL(dmb_handle_get);

/**
 * dmb_handle_get_by_name - take a handle on a block by memory-region-names
 * @dev: device whose device tree node has memory-region-names
 * @name: entry of memory-region-names
 *
 * Context: process context, may sleep.
 * Return: the handle, or an ERR_PTR() from dmb_get_by_name().
 */
struct dmb_handle *dmb_handle_get_by_name(struct device *dev, const char *name)
{
	return dmb_handle_wrap(dev, dmb_get_by_name(dev, name));
}
EXPORT_SYMBOL_GPL(dmb_handle_get_by_name);

/**
 * dmb_handle_put - drop a handle
 * @handle: from dmb_handle_get(); NULL or an ERR_PTR() is ignored
 *
 * Runs still claimed stay claimed: the device may still use them.  They
 * are reported, and the module stays loaded while they exist.
 *
 * Context: process context, may sleep.
 */
void dmb_handle_put(struct dmb_handle *handle)
{
	struct dmb_area *area;
	unsigned long claimed;
	struct dmb_prep *prep;
	unsigned int preps = 0;

	if (IS_ERR_OR_NULL(handle))
		return;
	area = handle->area;
	mutex_lock(&dmb_area_lock);
	/*
	 * Under the lock, which the next device to take the block waits for:
	 * it finds this area, or none.
	 */
	dmb_put(area->dmb);
	if (--area->handles)
		goto out;
	spin_lock(&area->lock);
	claimed = area->book.claimed;
	/* with the count: a prepared claim still in flight will not commit */
	WRITE_ONCE(area->dying, !claimed);
	/* preparations left behind: those not started do not start */
	list_for_each_entry(prep, &area->preps, node) {
		WRITE_ONCE(prep->cancel, true);
		preps++;
	}
	spin_unlock(&area->lock);
	if (preps)
		dev_warn(area->dev, "dmb_alloc: %s: last handle dropped with %u prepared claims; they are cancelled\n",
			 area->name, preps);
	if (claimed)
		dev_warn(area->dev, "dmb_alloc: %s: last handle dropped with %lu pages claimed; they stay claimed\n",
			 area->name, claimed);
	else
		dmb_area_destroy(area);
out:
	mutex_unlock(&dmb_area_lock);
	kfree(handle);
}
EXPORT_SYMBOL_GPL(dmb_handle_put);

/**
 * dmb_handle_base - physical base address of a handle's block
 * @handle: the handle
 *
 * Return: the block's first byte.
 */
phys_addr_t dmb_handle_base(const struct dmb_handle *handle)
{
	return dmb_base(handle->area->dmb);
}
EXPORT_SYMBOL_GPL(dmb_handle_base);

/**
 * dmb_handle_size - size of a handle's block
 * @handle: the handle
 *
 * Return: its size in bytes.
 */
phys_addr_t dmb_handle_size(const struct dmb_handle *handle)
{
	return dmb_size(handle->area->dmb);
}
EXPORT_SYMBOL_GPL(dmb_handle_size);

/* ---- module ------------------------------------------------------------- */

static int __init dmb_alloc_init(void)
{
	dmb_alloc_kobj = kobject_create_and_add("dmb_alloc", mm_kobj);
	if (!dmb_alloc_kobj)
		return -ENOMEM;
	dmb_prep_wq = alloc_workqueue("dmb_prep", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      0);
	if (!dmb_prep_wq) {
		kobject_put(dmb_alloc_kobj);
		return -ENOMEM;
	}
	dmb_alloc_debugfs = debugfs_create_dir("dmb_alloc", NULL);
	return 0;
}
module_init(dmb_alloc_init);

static void __exit dmb_alloc_exit(void)
{
	struct dmb_area *area, *tmp;

	/* claims pin the module and handles pin it through their users */
	mutex_lock(&dmb_area_lock);
	list_for_each_entry_safe(area, tmp, &dmb_area_list, node) {
		spin_lock(&area->lock);
		WRITE_ONCE(area->dying, true);
		spin_unlock(&area->lock);
		dmb_area_destroy(area);
	}
	mutex_unlock(&dmb_area_lock);
	debugfs_remove(dmb_alloc_debugfs);
	destroy_workqueue(dmb_prep_wq);
	kobject_put(dmb_alloc_kobj);
}
module_exit(dmb_alloc_exit);

MODULE_DESCRIPTION("Contiguous buffers from Designated Movable Blocks");
MODULE_LICENSE("GPL");
