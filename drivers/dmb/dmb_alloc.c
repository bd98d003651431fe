// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_alloc - physically contiguous buffers from Designated Movable Blocks
 *
 * A driver takes a handle on the Designated Movable Block its device
 * references (memory-region), claims runs of it with dmb_alloc() and gives
 * them back with dmb_release().  The runs come from the block's CMA area,
 * the DMA API's, so one bitmap knows every claim and cma_alloc()'s bounds
 * are this module's; the area counts them in /sys/kernel/mm/cma/<block>/.
 * Runs still claimed when the last handle goes stay claimed and keep the
 * module loaded.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cma.h>
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/dmb.h>
#include <linux/dmb_alloc.h>
#include <linux/gfp.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "dmb_alloc_book.h"

#define CREATE_TRACE_POINTS
#include "dmb_alloc_trace.h"

/**
 * struct dmb_handle - a block in use through this module, one per block
 * @node: in dmb_handle_list
 * @dmb: the core's block
 * @cma: the block's CMA area, which hands out its pages
 * @dev: the device holding the block, referenced; replaced under
 *	dmb_handle_lock when another device takes over an orphan (runs
 *	claimed, no handle)
 * @name: short name (the block's node or movablecore= item)
 * @base_pfn: first page frame of the block
 * @book: runs handed out
 * @lock: protects @book, @dying and @preps
 * @users: handles not yet put, under dmb_handle_lock
 * @dying: being destroyed: a prepared claim in flight must not commit
 * @ref: the handle list's reference, and each prepared claim's
 * @debugfs: /sys/kernel/debug/dmb_alloc/<name>
 * @preps: prepared claims not yet freed
 * @preps_gone: woken when a prepared claim leaves @preps
 * @abandoned: cancelled claims still running, until their run is back
 */
struct dmb_handle {
	struct list_head node;
	struct dmb_block *dmb;
	struct cma *cma;
	struct device *dev;
	char name[64];
	unsigned long base_pfn;
	struct dmb_book book;
	spinlock_t lock;		/* protects @book, @dying, @preps */
	unsigned int users;
	bool dying;
	struct kref ref;
	struct dentry *debugfs;
	struct list_head preps;
	wait_queue_head_t preps_gone;
	atomic_t abandoned;
};

static LIST_HEAD(dmb_handle_list);
/* handles, their users, directories and ends */
static DEFINE_MUTEX(dmb_handle_lock);
static struct dentry *dmb_alloc_debugfs;

static void dmb_handle_destroy(struct dmb_handle *handle);

static void dmb_handle_release(struct kref *ref)
{
	struct dmb_handle *handle = container_of(ref, struct dmb_handle, ref);

	put_device(handle->dev);
	kfree(handle);
}

/* ---- claiming ------------------------------------------------------------ */

/* Are dmb_alloc()'s arguments wrong?  Says why; else gives pages and mask */
static bool dmb_alloc_args_bad(struct dmb_handle *handle, size_t size,
			       size_t align, gfp_t gfp, unsigned int flags,
			       unsigned long *nr, unsigned long *mask)
{
	const char *why = NULL;

	/* the migration sleeps: nothing but reclaim modifiers */
	if (flags & ~DMB_ALLOC_NOZERO)
		why = "unknown flags";
	else if (!gfpflags_allow_blocking(gfp) ||
		 (gfp & ~(GFP_KERNEL | __GFP_NOWARN | __GFP_RETRY_MAYFAIL)))
		why = "gfp must allow sleeping, with no zone or action modifiers";
	else
		dmb_book_check_alloc(&handle->book, size, align, nr, mask, &why);
	if (why)
		dev_warn_ratelimited(handle->dev, "dmb_alloc: %s: %zu bytes aligned to %zu, flags 0x%x, gfp %pGg: %s\n",
				     handle->name, size, align, flags, &gfp, why);
	return why;
}

/* The claim; a prepared claim's @cancel, once set, gives the run back */
static struct page *__dmb_alloc(struct dmb_handle *handle, size_t size,
				size_t align, gfp_t gfp, unsigned int flags,
				const bool *cancel)
{
	struct dmb_claim *claim = NULL;
	unsigned long nr = 0, mask, pfn;
	struct page *page;
	u64 t0 = ktime_get_ns();
	int ret = -EINVAL;

	might_sleep();
	if (dmb_alloc_args_bad(handle, size, align, gfp, flags, &nr, &mask))
		goto fail;
	ret = -ENOMEM;
	claim = kmalloc(sizeof(*claim), GFP_KERNEL);
	if (!claim)
		goto fail;
	trace_dmb_alloc_start(handle->name, nr, mask + 1);

	/* zeroed by alloc_contig_range(), on every CPU for a large run */
	gfp &= ~__GFP_RETRY_MAYFAIL;
	if (!(flags & DMB_ALLOC_NOZERO))
		gfp |= __GFP_ZERO;
	page = cma_alloc_gfp(handle->cma, nr, mask ? ilog2(mask + 1) : 0, gfp);
	if (IS_ERR(page)) {
		ret = PTR_ERR(page);
		goto fail;
	}
	pfn = page_to_pfn(page);

	spin_lock(&handle->lock);
	if (unlikely(handle->dying || (cancel && READ_ONCE(*cancel)))) {
		/* a prepared claim raced the last handle or its cancel */
		ret = handle->dying ? -ENODEV : -ECANCELED;
		spin_unlock(&handle->lock);
		cma_release(handle->cma, page, nr);
		goto fail;
	}
	/* the module stays while anything is claimed */
	if (!handle->book.claimed)
		__module_get(THIS_MODULE);
	dmb_book_commit(&handle->book, claim, pfn - handle->base_pfn, nr);
	spin_unlock(&handle->lock);
	trace_dmb_alloc_finish(handle->name, pfn, nr, 0, ktime_get_ns() - t0);
	return page;

fail:
	if (claim)
		trace_dmb_alloc_finish(handle->name, 0, nr, ret,
				       ktime_get_ns() - t0);
	kfree(claim);
	return ERR_PTR(ret);
}

static bool dmb_preps_abandoned(struct dmb_handle *handle);

/* How long a claim or the last put waits for cancelled preparations */
#define DMB_PREP_WAIT_MS	10000
/* Cancelled claims of a block that may run on before a cancel waits */
#define DMB_PREP_ABANDONED_MAX	2

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
 * Claims a free run of the block's CMA area with cma_alloc_gfp(), which
 * migrates what lives there out of the block, passes by a page that stays
 * busy, bounds the claim's attempts and time and names the busy page.  A
 * fatal signal aborts it; on any failure nothing stays claimed and no data
 * is lost.  With no free run while cancelled prepared claims still run, it
 * waits for them (the bound of one claim) and tries once more.
 *
 * The run is zeroed, as the DMA API does: it held other processes' data.
 * Only a driver that overwrites every byte before its device or userspace
 * can read it may pass DMB_ALLOC_NOZERO.
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
	struct page *page;
	long ret;

	if (WARN_ON_ONCE(IS_ERR_OR_NULL(handle)))
		return ERR_PTR(-EINVAL);
	page = __dmb_alloc(handle, size, align, gfp, flags, NULL);
	if (PTR_ERR_OR_ZERO(page) != -ENOSPC || !dmb_preps_abandoned(handle))
		return page;
	ret = wait_event_killable_timeout(handle->preps_gone,
					  !dmb_preps_abandoned(handle),
					  msecs_to_jiffies(DMB_PREP_WAIT_MS));
	if (ret < 0)
		return ERR_PTR(-EINTR);
	return ret ? __dmb_alloc(handle, size, align, gfp, flags, NULL) : page;
}
EXPORT_SYMBOL_GPL(dmb_alloc);

/**
 * dmb_release - give back a run claimed with dmb_alloc()
 * @handle: a handle on the block it was claimed from
 * @pages: what dmb_alloc() returned
 * @size: the size passed to dmb_alloc()
 *
 * The pages go back to ZONE_MOVABLE, for user pages.  Claims belong to
 * the block: the caller must release only runs it claimed.  A run that is
 * not exactly one claimed run of the block (never claimed, released
 * already, of another block or size, part of a run) is refused with a
 * warning and nothing changes.
 *
 * Context: process context, may sleep.
 * Return: 0, or -EINVAL for a run that is not a claimed run of the block.
 */
int dmb_release(struct dmb_handle *handle, struct page *pages, size_t size)
{
	unsigned long pfn = pages ? page_to_pfn(pages) : 0;
	unsigned long nr = DIV_ROUND_UP(size, PAGE_SIZE);
	struct dmb_claim *claim = NULL;
	const char *why = NULL;
	bool last = false;

	might_sleep();
	if (WARN_ON_ONCE(IS_ERR_OR_NULL(handle)))
		return -EINVAL;
	if (!pages)
		why = "no pages";
	else if (!nr)
		why = "size is 0";
	else if (!dmb_contains(handle->dmb, pfn, nr))
		why = "the run is not in this block";
	if (!why) {
		spin_lock(&handle->lock);
		claim = dmb_book_find(&handle->book, pfn - handle->base_pfn, nr,
				      &why);
		if (claim) {
			dmb_book_forget(&handle->book, claim);
			last = !handle->book.claimed;
		}
		spin_unlock(&handle->lock);
	}
	if (!claim) {
		dev_err(handle->dev, "%s: %s: %zu bytes at pfn 0x%lx refused: %s\n",
			__func__, handle->name, size, pfn, why);
		WARN_ON_ONCE(1);
		return -EINVAL;
	}
	kfree(claim);
	cma_release(handle->cma, pages, nr);
	trace_dmb_release(handle->name, pfn, nr);
	if (!last)
		return 0;
	/* an orphan (no handle left) whose last run went goes with it */
	mutex_lock(&dmb_handle_lock);
	spin_lock(&handle->lock);
	last = !handle->users && !handle->book.claimed && !handle->dying;
	if (last)
		WRITE_ONCE(handle->dying, true);
	spin_unlock(&handle->lock);
	if (last)
		dmb_handle_destroy(handle);
	mutex_unlock(&dmb_handle_lock);
	/* nothing claimed any more: the module may go (dmb_alloc() pinned it) */
	module_put(THIS_MODULE);
	return 0;
}
EXPORT_SYMBOL_GPL(dmb_release);

/* ---- prepared claims ---------------------------------------------------- */

/**
 * struct dmb_prep - a claim migrating in the background
 * @handle: the block; referenced (@ref) until the prep is freed
 * @size: as given to dmb_alloc_prepare()
 * @align: likewise
 * @gfp: likewise
 * @flags: likewise
 * @cancel: set by dmb_alloc_cancel() or the last dmb_handle_put(): a claim
 *	not started does not start, one under way gives its run back
 * @work: runs the claim on dmb_prep_wq
 * @done: completed when the claim has ended, one way or the other
 * @page: its result: the run's first page or an ERR_PTR()
 * @node: in the handle's list of preparations
 * @state: DMB_PREP_RUNNING, then whichever of DMB_PREP_DONE (the claim
 *	ended) and DMB_PREP_ABANDONED (cancelled) comes first; the second
 *	to come gives the run back and frees the prep
 */
struct dmb_prep {
	struct dmb_handle *handle;
	size_t size, align;
	gfp_t gfp;
	unsigned int flags;
	bool cancel;
	struct work_struct work;
	struct completion done;
	struct page *page;
	struct list_head node;
	atomic_t state;
};

enum { DMB_PREP_RUNNING, DMB_PREP_DONE, DMB_PREP_ABANDONED };

static struct workqueue_struct *dmb_prep_wq;

static void dmb_prep_free(struct dmb_prep *prep, bool in_work);

/* An abandoned claim has ended: what it took goes back */
static void dmb_prep_drop(struct dmb_prep *prep, bool abandoned)
{
	struct dmb_handle *handle = prep->handle;

	if (!IS_ERR(prep->page))
		WARN_ON_ONCE(dmb_release(handle, prep->page, prep->size));
	/* its run is back: no longer one a claim or the last put waits for */
	if (abandoned)
		atomic_dec(&handle->abandoned);
	dmb_prep_free(prep, abandoned);
}

static void dmb_prep_work(struct work_struct *work)
{
	struct dmb_prep *prep = container_of(work, struct dmb_prep, work);

	if (READ_ONCE(prep->cancel))
		prep->page = ERR_PTR(-ECANCELED);
	else
		prep->page = __dmb_alloc(prep->handle, prep->size, prep->align,
					 prep->gfp, prep->flags, &prep->cancel);
	complete_all(&prep->done);
	if (atomic_xchg(&prep->state, DMB_PREP_DONE) == DMB_PREP_ABANDONED)
		dmb_prep_drop(prep, true);
}

static void dmb_prep_free(struct dmb_prep *prep, bool in_work)
{
	struct dmb_handle *handle = prep->handle;

	if (!in_work)
		flush_work(&prep->work);
	spin_lock(&handle->lock);
	list_del(&prep->node);
	spin_unlock(&handle->lock);
	kfree(prep);
	wake_up_all(&handle->preps_gone);
	kref_put(&handle->ref, dmb_handle_release);
}

/* Is a cancelled prepared claim still running, to give its run back? */
static bool dmb_preps_abandoned(struct dmb_handle *handle)
{
	return atomic_read(&handle->abandoned) > 0;
}

/**
 * dmb_alloc_prepare - start a claim in the background
 * @handle: from dmb_handle_get()
 * @size: as for dmb_alloc()
 * @align: as for dmb_alloc()
 * @gfp: as for dmb_alloc()
 * @flags: as for dmb_alloc()
 *
 * A driver that will need a buffer soon (the stream's format is known)
 * starts dmb_alloc()'s claim in a worker now, and takes the run with
 * dmb_alloc_commit() when streaming starts, waiting only for what is left;
 * dmb_alloc_cancel() gives back what it took.  Every prepared claim must
 * be committed or cancelled, also after the last dmb_handle_put(), which
 * marks them cancelled.
 *
 * Context: process context, may sleep.
 * Return: the prepared claim; ERR_PTR(-EINVAL) for the arguments
 * dmb_alloc() refuses, ERR_PTR(-ENOMEM).
 */
struct dmb_prep *dmb_alloc_prepare(struct dmb_handle *handle, size_t size,
				   size_t align, gfp_t gfp, unsigned int flags)
{
	unsigned long nr, mask;
	struct dmb_prep *prep;

	might_sleep();
	if (WARN_ON_ONCE(IS_ERR_OR_NULL(handle)))
		return ERR_PTR(-EINVAL);
	if (dmb_alloc_args_bad(handle, size, align, gfp, flags, &nr, &mask))
		return ERR_PTR(-EINVAL);
	prep = kzalloc(sizeof(*prep), GFP_KERNEL);
	if (!prep)
		return ERR_PTR(-ENOMEM);
	kref_get(&handle->ref);
	prep->handle = handle;
	prep->size = size;
	prep->align = align;
	prep->gfp = gfp;
	prep->flags = flags;
	INIT_WORK(&prep->work, dmb_prep_work);
	init_completion(&prep->done);
	atomic_set(&prep->state, DMB_PREP_RUNNING);
	spin_lock(&handle->lock);
	list_add(&prep->node, &handle->preps);
	spin_unlock(&handle->lock);
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
 * @prep: from dmb_alloc_prepare(); freed, now or when its claim ends
 *
 * A claim not started does not start; one under way is not waited for
 * (a driver may cancel under a lock its users wait for) and gives its run
 * back when it ends, within cma_alloc_gfp()'s bound.  When more than two
 * cancelled claims of the block still run, the caller waits (killable)
 * for them, so that cancelling in a loop cannot outrun them.
 *
 * Context: process context, may sleep.
 */
void dmb_alloc_cancel(struct dmb_prep *prep)
{
	struct dmb_handle *handle;

	if (IS_ERR_OR_NULL(prep))
		return;
	handle = prep->handle;
	/* the worker may free the prep as soon as it is abandoned */
	kref_get(&handle->ref);
	atomic_inc(&handle->abandoned);
	WRITE_ONCE(prep->cancel, true);
	if (atomic_xchg(&prep->state, DMB_PREP_ABANDONED) == DMB_PREP_DONE) {
		atomic_dec(&handle->abandoned);
		dmb_prep_drop(prep, false);
	} else if (atomic_read(&handle->abandoned) > DMB_PREP_ABANDONED_MAX) {
		/* they hold bitmap bits and migrate for nothing */
		wait_event_killable(handle->preps_gone,
				    atomic_read(&handle->abandoned) <=
				    DMB_PREP_ABANDONED_MAX);
	}
	kref_put(&handle->ref, dmb_handle_release);
}
EXPORT_SYMBOL_GPL(dmb_alloc_cancel);

/**
 * dmb_alloc_commit - take a prepared claim
 * @prep: from dmb_alloc_prepare(); freed
 *
 * Waits for what is left of the claim (a fatal signal cancels it).  The
 * run is then an ordinary claim, given back with dmb_release().
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
	dmb_prep_free(prep, false);
	return page;
}
EXPORT_SYMBOL_GPL(dmb_alloc_commit);

/* ---- debugfs ------------------------------------------------------------- */

static int dmb_info_show(struct seq_file *m, void *v)
{
	struct dmb_handle *handle = m->private;
	phys_addr_t base = dmb_base(handle->dmb), size = dmb_size(handle->dmb);
	unsigned long claimed, runs = 0;
	struct list_head *pos;

	/* not dmb_handle_lock: it is held while this file is removed */
	spin_lock(&handle->lock);
	claimed = handle->book.claimed;
	list_for_each(pos, &handle->book.claims)
		runs++;
	spin_unlock(&handle->lock);
	seq_printf(m, "name: %s\nbase: %pa\nsize: %pa\npages: %lu\nclaimed: %lu\nruns: %lu\ncma: %s\nusers: %u\ncancelled: %d\n",
		   dmb_name(handle->dmb), &base, &size, handle->book.count, claimed,
		   runs, cma_get_name(handle->cma), READ_ONCE(handle->users),
		   atomic_read(&handle->abandoned));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmb_info);

/* ---- handles ------------------------------------------------------------- */

static struct dmb_handle *dmb_handle_create(struct dmb_block *dmb, struct device *dev)
{
	const char *full = dmb_name(dmb), *slash = strrchr(full, '/');
	struct dmb_handle *handle;

	/* the block's CMA area hands out its pages: without one, no claims */
	if (!dmb_cma(dmb)) {
		dev_err(dev, "dmb_alloc: %s has no CMA area of its own (a CMA pool lies inside it, or none was left at boot): claim from its pools with the DMA API\n",
			full);
		return ERR_PTR(-ENODEV);
	}
	handle = kzalloc(sizeof(*handle), GFP_KERNEL);
	if (!handle)
		return ERR_PTR(-ENOMEM);
	handle->dmb = dmb;
	handle->cma = dmb_cma(dmb);
	strscpy(handle->name, slash ? slash + 1 : full, sizeof(handle->name));
	handle->base_pfn = PHYS_PFN(dmb_base(dmb));
	handle->book.count = PHYS_PFN(dmb_size(dmb));
	INIT_LIST_HEAD(&handle->book.claims);
	INIT_LIST_HEAD(&handle->preps);
	init_waitqueue_head(&handle->preps_gone);
	atomic_set(&handle->abandoned, 0);
	spin_lock_init(&handle->lock);
	/* from here dmb_handle_release() frees the handle and puts @dev */
	handle->dev = get_device(dev);
	kref_init(&handle->ref);
	handle->debugfs = debugfs_create_dir(handle->name, dmb_alloc_debugfs);
	debugfs_create_file("info", 0444, handle->debugfs, handle, &dmb_info_fops);
	list_add_tail(&handle->node, &dmb_handle_list);
	return handle;
}

/* Under dmb_handle_lock, @dying set: the name is free for a new handle */
static void dmb_handle_destroy(struct dmb_handle *handle)
{
	list_del(&handle->node);
	debugfs_remove(handle->debugfs);
	kref_put(&handle->ref, dmb_handle_release);
}

static struct dmb_handle *dmb_handle_wrap(struct device *dev, struct dmb_block *dmb)
{
	struct dmb_handle *handle;

	if (IS_ERR(dmb))
		return ERR_CAST(dmb);
	mutex_lock(&dmb_handle_lock);
	list_for_each_entry(handle, &dmb_handle_list, node)
		if (handle->dmb == dmb)
			goto found;
	handle = dmb_handle_create(dmb, dev);
	if (IS_ERR(handle)) {
		mutex_unlock(&dmb_handle_lock);
		dmb_put(dmb);
		return handle;
	}
found:
	/* an orphan taken over: messages name its new device */
	if (!handle->users && handle->dev != dev) {
		put_device(handle->dev);
		handle->dev = get_device(dev);
	}
	WRITE_ONCE(handle->users, handle->users + 1);
	mutex_unlock(&dmb_handle_lock);
	return handle;
}

/**
 * dmb_handle_get - take a handle on the block a device references
 * @dev: device whose device tree node has memory-region
 * @index: index in memory-region
 *
 * The core refuses a device whose node references no block, naming it.
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
 * Runs still claimed stay claimed (the device may still use them), are
 * reported, and keep the module loaded.  The last put cancels prepared
 * claims and waits for those under way (the bound of one claim).
 *
 * Context: process context, may sleep.
 */
void dmb_handle_put(struct dmb_handle *handle)
{
	unsigned long claimed;
	struct dmb_prep *prep;
	struct device *dev = NULL;
	unsigned int preps = 0;
	bool wait = false;

	if (IS_ERR_OR_NULL(handle))
		return;
	mutex_lock(&dmb_handle_lock);
	/* the next device to take the block finds this handle, or none */
	dmb_put(handle->dmb);
	WRITE_ONCE(handle->users, handle->users - 1);
	if (handle->users)
		goto out;
	spin_lock(&handle->lock);
	claimed = handle->book.claimed;
	/* with the count: a prepared claim still in flight will not commit */
	WRITE_ONCE(handle->dying, !claimed);
	/* preparations left behind: those not started do not start */
	list_for_each_entry(prep, &handle->preps, node) {
		/* those cancelled already are on their way out */
		preps += !READ_ONCE(prep->cancel);
		WRITE_ONCE(prep->cancel, true);
	}
	spin_unlock(&handle->lock);
	wait = dmb_preps_abandoned(handle);
	if (preps)
		dev_warn(handle->dev, "dmb_alloc: %s: last handle dropped with %u prepared claims; they are cancelled\n",
			 handle->name, preps);
	if (claimed)
		dev_warn(handle->dev, "dmb_alloc: %s: last handle dropped with %lu pages claimed; they stay claimed\n",
			 handle->name, claimed);
	/* the next owner must not find cancelled claims' runs allocated */
	if (wait) {
		kref_get(&handle->ref);
		dev = get_device(handle->dev);
	}
	if (!claimed)
		dmb_handle_destroy(handle);
out:
	mutex_unlock(&dmb_handle_lock);
	if (!wait)
		return;
	if (!wait_event_timeout(handle->preps_gone, !dmb_preps_abandoned(handle),
				msecs_to_jiffies(DMB_PREP_WAIT_MS)))
		dev_warn(dev, "dmb_alloc: %s: a cancelled claim is still running\n",
			 handle->name);
	put_device(dev);
	kref_put(&handle->ref, dmb_handle_release);
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
	return dmb_base(handle->dmb);
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
	return dmb_size(handle->dmb);
}
EXPORT_SYMBOL_GPL(dmb_handle_size);

/* ---- module ------------------------------------------------------------- */

static int __init dmb_alloc_init(void)
{
	dmb_prep_wq = alloc_workqueue("dmb_prep", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      0);
	if (!dmb_prep_wq)
		return -ENOMEM;
	dmb_alloc_debugfs = debugfs_create_dir("dmb_alloc", NULL);
	return 0;
}
module_init(dmb_alloc_init);

static void __exit dmb_alloc_exit(void)
{
	struct dmb_handle *handle, *tmp;

	/* claims pin the module and handles pin it through their users */
	mutex_lock(&dmb_handle_lock);
	list_for_each_entry_safe(handle, tmp, &dmb_handle_list, node) {
		spin_lock(&handle->lock);
		WRITE_ONCE(handle->dying, true);
		spin_unlock(&handle->lock);
		dmb_handle_destroy(handle);
	}
	mutex_unlock(&dmb_handle_lock);
	debugfs_remove(dmb_alloc_debugfs);
	destroy_workqueue(dmb_prep_wq);
}
module_exit(dmb_alloc_exit);

MODULE_DESCRIPTION("Contiguous buffers from Designated Movable Blocks");
MODULE_LICENSE("GPL");
