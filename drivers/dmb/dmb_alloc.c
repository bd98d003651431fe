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
 * Each block in use has an area: a bitmap of claimed pages under a short
 * spinlock, and a mutex around the migration (alloc_contig_range() or its
 * steps), which must not run on overlapping pageblocks concurrently.
 * Claims on different blocks do not wait for each other.
 *
 * Pages still claimed when the last handle goes are not freed: the device
 * may still be writing to them or userspace may have them mapped.  They
 * stay claimed (debugfs shows them) and the module cannot be unloaded
 * while any page is claimed.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitmap.h>
#include <linux/cpumask.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/dmb.h>
#include <linux/dmb_alloc.h>
#include <linux/gfp.h>
#include <linux/highmem.h>
#include <linux/kobject.h>
#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>
#include <linux/workqueue.h>

#include "dmb_alloc_book.h"

#define CREATE_TRACE_POINTS
#include "dmb_alloc_trace.h"

/* Passes over the block when pages are busy, then -EBUSY */
#define DMB_ALLOC_PASSES	3
/* Pause between passes, for transient pins and writeback to end */
#define DMB_ALLOC_PASS_MS	20
/* Busy alloc_contig_range() attempts of one claim, then -EBUSY */
#define DMB_ALLOC_MAX_TRIES	16
/* Time after which a claim that keeps finding busy pages gives up */
#define DMB_ALLOC_MAX_MS	10000

/**
 * struct dmb_area - a block in use through this module
 * @node: in dmb_area_list
 * @dmb: the core's block
 * @dev: the device that created the area, with a reference (an orphan
 *	area prints through it after its driver is gone); fixed for the
 *	area's life, so read without a lock
 * @name: short name (the block's device tree node or movablecore= item)
 * @base_pfn: first page frame of the block
 * @book: claimed pages, under @lock
 * @lock: protects @book
 * @mutex: serialises alloc_contig_range() on this block
 * @handles: handles given out and not put, under dmb_area_lock
 * @dying: the last handle went with nothing claimed and the area is being
 *	destroyed: a claim still in flight (debugfs) must not commit;
 *	written under @lock, read without it by the test hold
 * @kobj: /sys/kernel/mm/dmb_alloc/<name>, owns the area's memory
 * @debugfs: /sys/kernel/debug/dmb_alloc/<name>
 * @test_last_pfn: first page of the last run claimed through debugfs,
 *	under @lock
 * @test_last_size: its size in bytes, under @lock; 0 if none
 * @claims_ok: successful dmb_alloc() calls
 * @claims_failed: failed dmb_alloc() calls
 * @pages_claimed: pages handed out
 * @pages_released: pages given back
 * @busy_retries: runs alloc_contig_range() found busy
 * @preps: prepared claims not yet committed or cancelled, under @lock
 */
struct dmb_area {
	struct list_head node;
	struct dmb_block *dmb;
	struct device *dev;
	char name[64];
	unsigned long base_pfn;
	struct dmb_book book;
	spinlock_t lock;		/* protects @book */
	struct mutex mutex;		/* serialises alloc_contig_range() */
	unsigned int handles;
	bool dying;
	struct kobject kobj;
	struct dentry *debugfs;
	unsigned long test_last_pfn;
	size_t test_last_size;
	atomic_long_t claims_ok;
	atomic_long_t claims_failed;
	atomic_long_t pages_claimed;
	atomic_long_t pages_released;
	atomic_long_t busy_retries;
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

static struct dmb_counter_attr dmb_counters[] = {
	{ __ATTR(claims_ok, 0444, dmb_counter_show, NULL),
	  offsetof(struct dmb_area, claims_ok) },
	{ __ATTR(claims_failed, 0444, dmb_counter_show, NULL),
	  offsetof(struct dmb_area, claims_failed) },
	{ __ATTR(pages_claimed, 0444, dmb_counter_show, NULL),
	  offsetof(struct dmb_area, pages_claimed) },
	{ __ATTR(pages_released, 0444, dmb_counter_show, NULL),
	  offsetof(struct dmb_area, pages_released) },
	{ __ATTR(busy_retries, 0444, dmb_counter_show, NULL),
	  offsetof(struct dmb_area, busy_retries) },
};

static struct attribute *dmb_area_attrs[] = {
	&dmb_counters[0].attr.attr,
	&dmb_counters[1].attr.attr,
	&dmb_counters[2].attr.attr,
	&dmb_counters[3].attr.attr,
	&dmb_counters[4].attr.attr,
	NULL,
};

ATTRIBUTE_GROUPS(dmb_area);

static void dmb_area_release(struct kobject *kobj)
{
	struct dmb_area *area = container_of(kobj, struct dmb_area, kobj);

	put_device(area->dev);
	bitmap_free(area->book.bitmap);
	kfree(area);
}

static const struct kobj_type dmb_area_ktype = {
	.release = dmb_area_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = dmb_area_groups,
};

/* ---- test configuration ------------------------------------------------ */

/*
 * The claim hooks, "alloc" and "free", exist only with test_hooks=1: they
 * let root claim any amount of a block, which starves its driver.  "free"
 * releases only runs that "alloc" claimed, never a driver's (whose device
 * or userspace mappings may still use them).
 */
static bool test_hooks;
module_param(test_hooks, bool, 0444);
MODULE_PARM_DESC(test_hooks,
		 "Create the debugfs alloc/free claim hooks (test kernels only; default: off)");

/*
 * With test_hooks: writing 1 to /sys/kernel/debug/dmb_alloc/test_hold holds
 * every claim made through "alloc" between its migration and its commit
 * until its area starts to die (the last handle went with nothing else
 * claimed) or 0 is written, at most 30 s (also when the area never dies
 * because other runs stay claimed); test_held counts the claims held now.
 * Tests race a claim against the last handle deterministically with them:
 * wait until test_held is 1, then drop the handle.
 */
static bool test_hold;
static atomic_t test_held = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(test_hold_wq);

static int test_hold_get(void *data, u64 *val)
{
	*val = READ_ONCE(test_hold);
	return 0;
}

static int test_hold_set(void *data, u64 val)
{
	if (val > 1)
		return -EINVAL;
	WRITE_ONCE(test_hold, val);
	wake_up_all(&test_hold_wq);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(test_hold_fops, test_hold_get, test_hold_set, "%llu\n");

/* A debugfs claim with test_hold set, its run migrated: wait (see above) */
static void dmb_test_hold(struct dmb_area *area)
{
	if (!READ_ONCE(test_hold))
		return;
	atomic_inc(&test_held);
	wait_event_killable_timeout(test_hold_wq, !READ_ONCE(test_hold) ||
				    READ_ONCE(area->dying), 30 * HZ);
	atomic_dec(&test_held);
}

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

/**
 * struct dmb_busy - a page that kept a run from being claimed
 * @pfn: its page frame, or 0 if none was found (it went away meanwhile)
 * @flags: its page flags
 * @refcount: references to its folio
 * @mapcount: user mappings of its folio
 */
struct dmb_busy {
	unsigned long pfn;
	unsigned long flags;
	int refcount;
	int mapcount;
};

/*
 * After alloc_contig_range() returned -EBUSY, find the page that stayed:
 * what it migrated is free again, so the first page of the run that is
 * neither free nor a tail of a folio is the likely culprit.  The page is
 * not locked nor referenced, so this is a snapshot for the report (racy
 * reads of struct page, which always exists), never used to decide
 * anything but where to look next.
 */
static void dmb_find_busy(unsigned long pfn, unsigned long nr,
			  struct dmb_busy *busy)
{
	unsigned long i;

	busy->pfn = 0;
	for (i = 0; i < nr; i++) {
		struct page *page = pfn_to_page(pfn + i);
		struct folio *folio;

		if (PageBuddy(page) || !page_count(page))
			continue;
		folio = page_folio(page);
		busy->pfn = pfn + i;
		busy->flags = READ_ONCE(page->flags);
		busy->refcount = folio_ref_count(folio);
		busy->mapcount = folio_mapcount(folio);
		return;
	}
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

/* ---- parallel migration ------------------------------------------------ */

/*
 * A claim's run is isolated once (alloc_contig_range_begin()), migrated
 * in chunks by every online CPU at once (the caller and one worker per
 * other CPU each take the next chunk and run alloc_contig_range_migrate()
 * on it) and taken once (alloc_contig_range_finish()).  Chunk edges are
 * aligned to MAX_ORDER_NR_PAGES (a multiple of pageblock_nr_pages), so no
 * two chunks share a pageblock or a free buddy page.  The whole run is
 * isolated from the start: a page freed in a chunk not reached yet goes
 * to no one else, and no migration target lands in the run.  A chunk that
 * fails stops the others after their current chunk, and the run is given
 * back whole (alloc_contig_range_abort()).
 */
static unsigned int claim_cpus;
module_param(claim_cpus, uint, 0644);
MODULE_PARM_DESC(claim_cpus,
		 "CPUs that migrate one claim at once: 0 for every online CPU (default), 1 for the caller alone");

/* Chunks per CPU, so that a CPU slowed by other work takes fewer */
#define DMB_CHUNKS_PER_CPU	4

static struct workqueue_struct *dmb_claim_wq;

/**
 * struct dmb_par - one claim migrated in parallel
 * @area: the block
 * @start: first page frame of the run
 * @end: page frame after the run
 * @first: @start rounded down to MAX_ORDER_NR_PAGES
 * @chunk: pages per chunk, a multiple of MAX_ORDER_NR_PAGES
 * @nr_chunks: chunks in the run
 * @gfp: for alloc_contig_range_migrate()
 * @zero: the run is taken: zero its chunks instead of migrating them
 * @next: the next chunk to take
 * @stop: set when a chunk failed or the caller got a fatal signal
 * @cancel: a prepared claim's cancel flag, or NULL
 * @caller: the task that claims; its fatal signal stops the workers
 * @lock: protects @err and @err_pfn
 * @err: the first error
 * @err_pfn: the first page frame of the chunk that failed first
 */
struct dmb_par {
	struct dmb_area *area;
	unsigned long start, end, first, chunk, nr_chunks;
	gfp_t gfp;
	bool zero;
	atomic_long_t next;
	bool stop;
	const bool *cancel;
	struct task_struct *caller;
	spinlock_t lock;	/* protects @err and @err_pfn */
	int err;
	unsigned long err_pfn;
};

/**
 * struct dmb_par_worker - a CPU's share of a parallel claim
 * @work: runs dmb_par_work()
 * @par: the claim
 */
struct dmb_par_worker {
	struct work_struct work;
	struct dmb_par *par;
};

static void dmb_par_chunk(struct dmb_par *par, unsigned long i,
			  unsigned long *spfn, unsigned long *epfn)
{
	*spfn = max(par->start, par->first + i * par->chunk);
	*epfn = min(par->end, par->first + (i + 1) * par->chunk);
}

/*
 * Zero [@spfn, @epfn) of a taken run, as post_alloc_hook() would have
 * with __GFP_ZERO (KASAN tags included)
 */
static void dmb_zero_pages(unsigned long spfn, unsigned long epfn)
{
	unsigned long pfn;

	for (pfn = spfn; pfn < epfn; pfn++) {
		clear_highpage_kasan_tagged(pfn_to_page(pfn));
		if (!((pfn + 1) % pageblock_nr_pages))
			cond_resched();
	}
}

/* Take chunks until none is left or the claim stops */
static void dmb_par_run(struct dmb_par *par)
{
	unsigned long i, spfn, epfn;
	u64 t0;
	int ret;

	while (!READ_ONCE(par->stop)) {
		i = atomic_long_inc_return(&par->next) - 1;
		if (i >= par->nr_chunks)
			break;
		dmb_par_chunk(par, i, &spfn, &epfn);
		if (par->zero) {
			dmb_zero_pages(spfn, epfn);
			continue;
		}
		t0 = ktime_get_ns();
		if (par->cancel && READ_ONCE(*par->cancel))
			ret = -ECANCELED;
		else if (__fatal_signal_pending(par->caller))
			ret = -EINTR;
		else
			ret = alloc_contig_range_migrate(spfn, epfn, par->gfp);
		trace_dmb_alloc_chunk(par->area->name, spfn, epfn - spfn,
				      raw_smp_processor_id(), ret,
				      ktime_get_ns() - t0);
		if (!ret)
			continue;
		/*
		 * The first error wins, but for the caller's -EINTR, which
		 * the others outrank, and -EBUSY, which -ENOMEM outranks: a
		 * busy page is retried elsewhere, a lack of memory is not.
		 */
		spin_lock(&par->lock);
		if (!par->err || (par->err == -EINTR && ret != -EINTR) ||
		    (par->err == -EBUSY && ret == -ENOMEM)) {
			par->err = ret;
			par->err_pfn = spfn;
		}
		spin_unlock(&par->lock);
		WRITE_ONCE(par->stop, true);
	}
}

static void dmb_par_work(struct work_struct *work)
{
	struct dmb_par_worker *w = container_of(work, struct dmb_par_worker,
						work);

	dmb_par_run(w->par);
}

/*
 * Wait for the workers of a parallel claim: they stop after their current
 * chunk once none is left or ->stop is set; one that has not started yet
 * is not waited for.
 */
static void dmb_par_wait(struct dmb_par_worker *workers, unsigned int nw)
{
	unsigned int w;

	for (w = 0; w < nw; w++)
		if (!cancel_work(&workers[w].work))
			flush_work(&workers[w].work);
}

/*
 * Pages of [@pfn, @pfn + @nr) that a claim must move: in use (a page with
 * references or the tail of a folio; a free page has neither), but clean,
 * unmapped page cache, which the claim drops instead.  An estimate, read
 * without locks: pages come and go meanwhile.
 */
static unsigned long dmb_pages_to_move(unsigned long pfn, unsigned long nr)
{
	unsigned long i, used = 0;

	for (i = 0; i < nr; i++) {
		struct page *page = pfn_to_page(pfn + i);
		struct folio *folio;

		if (!((i + 1) % pageblock_nr_pages))
			cond_resched();
		if (!page_ref_count(page) && !PageTail(page))
			continue;
		folio = page_folio(page);
		if (folio_test_lru(folio) && !folio_test_anon(folio) &&
		    !folio_test_swapbacked(folio) && !folio_test_dirty(folio) &&
		    !folio_mapped(folio))
			continue;
		used++;
	}
	return used;
}

/*
 * alloc_contig_range() over [@pfn, @pfn + @nr) of @area, its migration on
 * every online CPU at once when the run has more than one chunk (see
 * above).  Called with @area->mutex held.  On failure nothing of the run
 * is taken and *@fail_pfn is the first page frame of the chunk that
 * failed.  @cancel (a prepared claim's) is looked at before each chunk:
 * -ECANCELED.
 */
static int dmb_claim_range(struct dmb_area *area, unsigned long pfn,
			   unsigned long nr, gfp_t gfp, const bool *cancel,
			   unsigned long *fail_pfn)
{
	struct dmb_par_worker *workers = NULL;
	unsigned int cpus, nw, w;
	struct dmb_par par = {
		.area = area,
		.start = pfn,
		.end = pfn + nr,
		.next = ATOMIC_LONG_INIT(0),
		.cancel = cancel,
		.caller = current,
	};
	unsigned long per, used;
	long avail;
	bool zero;
	int ret;

	*fail_pfn = pfn;
	if (cancel && READ_ONCE(*cancel))
		return -ECANCELED;
	/*
	 * What the run holds must fit in the memory available outside it,
	 * or the claim fails anyway, and only after it moved what fitted
	 * into the kernel's zones down to their min watermarks: with the run
	 * isolated, nothing can go back into it, and the next kernel
	 * allocation would call the OOM killer.  Refuse at once instead.
	 */
	used = dmb_pages_to_move(pfn, nr);
	avail = si_mem_available() - (long)(nr - used);
	if ((long)used > avail) {
		if (!(gfp & __GFP_NOWARN))
			dev_warn_ratelimited(area->dev, "dmb_alloc: %s: claim of %lu pages at pfn 0x%lx: %lu of them to move, %ld pages available elsewhere: not enough memory\n",
					     area->name, nr, pfn, used, max(avail, 0L));
		return -ENOMEM;
	}
	/* the workers allocate in the caller's scope (nofs, noio) */
	par.gfp = current_gfp_context(gfp);
	cpus = READ_ONCE(claim_cpus) ?: num_online_cpus();
	cpus = min(cpus, num_online_cpus());
	/*
	 * Short of memory, the claim runs on the caller alone: a worker may
	 * have to be created, and forking it then can call the OOM killer,
	 * where a lone claim just fails with -ENOMEM.
	 */
	if (si_mem_available() < 2 * nr)
		cpus = 1;
	per = DIV_ROUND_UP(nr, (unsigned long)cpus * DMB_CHUNKS_PER_CPU);
	par.chunk = round_up(max(per, 1UL), MAX_ORDER_NR_PAGES);
	par.first = ALIGN_DOWN(pfn, MAX_ORDER_NR_PAGES);
	par.nr_chunks = DIV_ROUND_UP(par.end - par.first, par.chunk);
	/* a prepared claim goes by chunks also on one CPU, to be cancelled */
	if ((cpus < 2 && !cancel) || par.nr_chunks < 2 || !dmb_claim_wq)
		return alloc_contig_range(pfn, pfn + nr, MIGRATE_MOVABLE, gfp);

	nw = min_t(unsigned long, cpus - 1, par.nr_chunks - 1);
	if (nw) {
		workers = kcalloc(nw, sizeof(*workers), GFP_KERNEL);
		if (!workers)
			nw = 0;		/* the caller migrates alone */
	}
	ret = alloc_contig_range_begin(pfn, pfn + nr, gfp);
	if (ret) {
		kfree(workers);
		return ret;
	}
	spin_lock_init(&par.lock);
	for (w = 0; w < nw; w++) {
		workers[w].par = &par;
		INIT_WORK(&workers[w].work, dmb_par_work);
		queue_work(dmb_claim_wq, &workers[w].work);
	}
	dmb_par_run(&par);
	dmb_par_wait(workers, nw);

	ret = par.err;
	if (ret) {
		kfree(workers);
		*fail_pfn = par.err_pfn;
		alloc_contig_range_abort(pfn, pfn + nr);
		return ret;
	}
	/*
	 * Nothing can be allocated in the isolated run any more: what can
	 * still fail is the replacement of free hugetlb folios (-ENOMEM).
	 * The page allocator would zero the run on this CPU alone: the
	 * claim's CPUs zero it in chunks instead, as post_alloc_hook()
	 * decides: not with init_on_free (the pages were zeroed when freed)
	 * nor with init_on_alloc (it zeroes every page anyway, here on one
	 * CPU).
	 */
	zero = (gfp & __GFP_ZERO) && !want_init_on_free() &&
	       !want_init_on_alloc(gfp & ~__GFP_ZERO);
	ret = alloc_contig_range_finish(pfn, pfn + nr,
					zero ? gfp & ~__GFP_ZERO : gfp);
	if (!ret && zero) {
		par.zero = true;
		atomic_long_set(&par.next, 0);
		for (w = 0; w < nw; w++)
			queue_work(dmb_claim_wq, &workers[w].work);
		dmb_par_run(&par);
		dmb_par_wait(workers, nw);
	}
	kfree(workers);
	return ret;
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

/*
 * The claim itself.  @test marks the run as made through the debugfs
 * "alloc" hook, the only runs its "free" may release.
 */
static struct page *__dmb_alloc(struct dmb_area *area, size_t size,
				size_t align, gfp_t gfp, unsigned int flags,
				bool test, const bool *cancel)
{
	unsigned long nr, mask, offset, bitno, start = 0, before, deadline;
	unsigned long fail_pfn;
	gfp_t zgfp;
	struct dmb_busy busy = {};
	struct dmb_claim *claim;
	unsigned int pass = 0, tries = 0;
	bool busy_seen = false;
	u64 t0 = ktime_get_ns();
	int ret;

	might_sleep();
	if (dmb_alloc_args_bad(area, size, align, gfp, flags, &nr, &mask)) {
		atomic_long_inc(&area->claims_failed);
		return ERR_PTR(-EINVAL);
	}
	/*
	 * The pages still hold what was migrated out of them: the page
	 * allocator zeroes them as it hands them over (once, also with
	 * init_on_alloc), unless the caller overwrites every byte itself.
	 */
	zgfp = flags & DMB_ALLOC_NOZERO ? gfp : gfp | __GFP_ZERO;
	claim = kmalloc(sizeof(*claim), GFP_KERNEL);
	if (!claim) {
		atomic_long_inc(&area->claims_failed);
		return ERR_PTR(-ENOMEM);
	}
	claim->test = test;
	offset = area->base_pfn & mask;
	deadline = jiffies + msecs_to_jiffies(DMB_ALLOC_MAX_MS);
	trace_dmb_alloc_start(area->name, nr, mask + 1);

	for (;;) {
		spin_lock(&area->lock);
		bitno = dmb_book_reserve(&area->book, start, nr, mask, offset);
		/*
		 * The run's bits are set: it is ours while we migrate without
		 * the lock, and other claims look elsewhere.
		 */
		spin_unlock(&area->lock);
		if (bitno >= area->book.count) {
			if (busy_seen && ++pass < DMB_ALLOC_PASSES) {
				busy_seen = false;
				start = 0;
				msleep(DMB_ALLOC_PASS_MS);
				if (fatal_signal_pending(current)) {
					ret = -EINTR;
					break;
				}
				if (cancel && READ_ONCE(*cancel)) {
					ret = -ECANCELED;
					break;
				}
				continue;
			}
			ret = pass ? -EBUSY : -ENOSPC;
			break;
		}

		ret = mutex_lock_killable(&area->mutex);
		if (!ret && cancel && READ_ONCE(*cancel)) {
			mutex_unlock(&area->mutex);
			ret = -ECANCELED;
		} else if (!ret) {
			ret = dmb_claim_range(area, area->base_pfn + bitno, nr,
					      zgfp, cancel, &fail_pfn);
			mutex_unlock(&area->mutex);
		} else {
			ret = -EINTR;
		}
		if (!ret)
			break;

		spin_lock(&area->lock);
		dmb_book_unreserve(&area->book, bitno, nr);
		spin_unlock(&area->lock);
		if (ret != -EBUSY)
			break;
		busy_seen = true;
		atomic_long_inc(&area->busy_retries);
		/* look first in the chunk that failed, then in the rest */
		dmb_find_busy(fail_pfn, area->base_pfn + bitno + nr - fail_pfn,
			      &busy);
		if (!busy.pfn)
			dmb_find_busy(area->base_pfn + bitno, nr, &busy);
		trace_dmb_alloc_busy_retry(area->name, area->base_pfn + bitno,
					   nr, busy.pfn, busy.flags,
					   busy.refcount, busy.mapcount);
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (cancel && READ_ONCE(*cancel)) {
			ret = -ECANCELED;
			break;
		}
		/*
		 * Every alloc_contig_range() isolates, drains the per-CPU
		 * lists of every CPU and migrates: a page that cannot move
		 * (an unprivileged process can hold one with a pipe) must
		 * not cost a call per page, nor keep the claim going.
		 */
		if (++tries >= DMB_ALLOC_MAX_TRIES || time_after(jiffies, deadline)) {
			ret = -EBUSY;
			break;
		}
		/* skip past the pageblock that held the busy page */
		if (busy.pfn)
			start = round_up(busy.pfn - area->base_pfn + 1,
					 pageblock_nr_pages);
		else
			start = round_up(bitno + 1, pageblock_nr_pages);
	}

	if (ret) {
		kfree(claim);
		atomic_long_inc(&area->claims_failed);
		trace_dmb_alloc_finish(area->name, 0, nr, ret, ktime_get_ns() - t0);
		if (ret == -EBUSY && busy.pfn)
			dev_warn_ratelimited(area->dev, "%s: %s: claim of %lu pages failed: %d after %u tries: pfn 0x%lx busy (refcount %d, mapcount %d, flags %pGp)\n",
					     __func__, area->name, nr, ret, tries + 1,
					     busy.pfn, busy.refcount, busy.mapcount,
					     &busy.flags);
		else if (!(gfp & __GFP_NOWARN) && ret != -ECANCELED)
			dev_warn_ratelimited(area->dev, "%s: %s: claim of %lu pages failed: %d\n",
					     __func__, area->name, nr, ret);
		return ERR_PTR(ret);
	}

	if (test)
		dmb_test_hold(area);

	spin_lock(&area->lock);
	if (unlikely(area->dying)) {
		/* a debugfs or prepared claim raced the last handle */
		dmb_book_unreserve(&area->book, bitno, nr);
		spin_unlock(&area->lock);
		free_contig_range(area->base_pfn + bitno, nr);
		kfree(claim);
		atomic_long_inc(&area->claims_failed);
		trace_dmb_alloc_finish(area->name, 0, nr, -ENODEV,
				       ktime_get_ns() - t0);
		return ERR_PTR(-ENODEV);
	}
	before = area->book.claimed;
	dmb_book_commit(&area->book, claim, bitno, nr);
	spin_unlock(&area->lock);
	dmb_area_claimed(area, before, before + nr);
	atomic_long_inc(&area->claims_ok);
	atomic_long_add(nr, &area->pages_claimed);
	trace_dmb_alloc_finish(area->name, area->base_pfn + bitno, nr, 0,
			       ktime_get_ns() - t0);
	return pfn_to_page(area->base_pfn + bitno);
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
 * Finds a free run of the block and migrates whatever user or page cache
 * data lives there to memory outside it.  If a page stays busy (pinned,
 * referenced from a pipe, under writeback) the search goes on past the
 * pageblock that holds it, and the block is walked a few times with a
 * short pause; a claim makes at most DMB_ALLOC_MAX_TRIES busy attempts and
 * gives up after DMB_ALLOC_MAX_MS, with -EBUSY and a message that names
 * the busy page.  A fatal signal aborts the claim once the chunks being
 * migrated are done.  On any failure nothing stays claimed and no data is
 * lost.
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
	return __dmb_alloc(handle->area, size, align, gfp, flags, false, NULL);
}
EXPORT_SYMBOL_GPL(dmb_alloc);

/* Free the pages of a claim forgotten by the book, @before pages claimed */
static void dmb_free_claim(struct dmb_area *area, struct dmb_claim *claim,
			   unsigned long before)
{
	unsigned long pfn = area->base_pfn + claim->bitno, nr = claim->nr;

	free_contig_range(pfn, nr);
	dmb_area_claimed(area, before, before - nr);
	atomic_long_add(nr, &area->pages_released);
	trace_dmb_release(area->name, pfn, nr);
	kfree(claim);
}

/*
 * Release a run of @area.  With @test, only a run claimed through the
 * debugfs "alloc" hook is released: any other claimed run belongs to a
 * driver, whose device or userspace mappings may still use it (-EPERM);
 * what is not a claimed run at all is judged as dmb_release() judges it.
 */
static int __dmb_release(struct dmb_area *area, struct page *pages,
			 size_t size, bool test)
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
	if (claim && test && !claim->test) {
		spin_unlock(&area->lock);
		return -EPERM;
	}
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
	return __dmb_release(handle->area, pages, size, false);
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
 * @cancel: set by dmb_alloc_cancel(): the claim stops before its next chunk
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

	prep->page = __dmb_alloc(prep->area, prep->size, prep->align,
				 prep->gfp, prep->flags, false, &prep->cancel);
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
 * only for what is left; dmb_alloc_cancel() stops it and gives back
 * whatever it took.  The claim is dmb_alloc()'s, run by a worker: it picks
 * its run when it starts, isolates it whole and migrates it in chunks on
 * every online CPU, so pages freed anywhere in the run are not handed to
 * anyone else and no page moved out lands back in it; the free pages of
 * the run stop counting as free memory meanwhile.  Every prepared claim must be
 * committed or cancelled; the last dmb_handle_put() cancels those left.
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
 * Waits for the chunk being migrated now (not for the rest), then
 * releases whatever the claim took.  To cancel several claims of one
 * block, use dmb_alloc_cancel_all(): each waits for the block otherwise.
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
		WARN_ON_ONCE(__dmb_release(prep->area, prep->page, prep->size,
					   false));
	dmb_prep_free(prep);
}
EXPORT_SYMBOL_GPL(dmb_alloc_cancel);

/**
 * dmb_alloc_cancel_all - cancel several prepared claims at once
 * @preps: prepared claims from dmb_alloc_prepare(), NULL entries skipped;
 *	all freed
 * @count: how many
 *
 * Stops them all before waiting for any, so that claims queued behind
 * one another on their block do not run while earlier ones are cancelled;
 * then cancels them, the last first.
 *
 * Context: process context, may sleep.
 */
void dmb_alloc_cancel_all(struct dmb_prep **preps, unsigned int count)
{
	unsigned int i;

	for (i = 0; i < count; i++)
		if (!IS_ERR_OR_NULL(preps[i]))
			WRITE_ONCE(preps[i]->cancel, true);
	while (count--)
		dmb_alloc_cancel(preps[count]);
}
EXPORT_SYMBOL_GPL(dmb_alloc_cancel_all);

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
	unsigned long claimed, maxchunk;

	spin_lock(&area->lock);
	claimed = area->book.claimed;
	maxchunk = dmb_book_maxchunk(&area->book);
	spin_unlock(&area->lock);
	seq_printf(m, "name: %s\nbase: %pa\nsize: %pa\npages: %lu\nclaimed: %lu\nmaxchunk: %lu\nowner: %s\n",
		   dmb_name(area->dmb), &base, &size, area->book.count, claimed,
		   maxchunk, area->handles ? dev_name(area->dev) : "-");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmb_info);

/* Claimed runs, "first_page last_page" counted from the block's start */
static int dmb_bitmap_show(struct seq_file *m, void *v)
{
	struct dmb_area *area = m->private;
	unsigned long start = 0, end;

	spin_lock(&area->lock);
	for (;;) {
		start = find_next_bit(area->book.bitmap, area->book.count, start);
		if (start >= area->book.count)
			break;
		end = find_next_zero_bit(area->book.bitmap, area->book.count, start);
		seq_printf(m, "%lu-%lu\n", start, end - 1);
		start = end;
	}
	spin_unlock(&area->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmb_bitmap);

/* "alloc": write "<bytes> [align]" to claim; read the last claim's pfn */
static ssize_t dmb_alloc_write(struct file *file, const char __user *ubuf,
			       size_t len, loff_t *ppos)
{
	struct dmb_area *area = file_inode(file)->i_private;
	unsigned long long size, align = 0;
	struct page *page;
	char buf[64];

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	if (sscanf(buf, "%llu %llu", &size, &align) < 1)
		return -EINVAL;
	page = __dmb_alloc(area, size, align, GFP_KERNEL, 0, true, NULL);
	if (IS_ERR(page))
		return PTR_ERR(page);
	spin_lock(&area->lock);
	area->test_last_pfn = page_to_pfn(page);
	area->test_last_size = size;
	spin_unlock(&area->lock);
	return len;
}

static ssize_t dmb_alloc_read(struct file *file, char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct dmb_area *area = file_inode(file)->i_private;
	char buf[64] = "none\n";

	spin_lock(&area->lock);
	if (area->test_last_size)
		snprintf(buf, sizeof(buf), "0x%lx %zu\n", area->test_last_pfn,
			 area->test_last_size);
	spin_unlock(&area->lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static const struct file_operations dmb_alloc_fops = {
	.owner = THIS_MODULE,
	.read = dmb_alloc_read,
	.write = dmb_alloc_write,
	.llseek = default_llseek,
};

/* Release every run claimed through "alloc" */
static void dmb_free_test_claims(struct dmb_area *area)
{
	struct dmb_claim *claim, *found;
	unsigned long before;

	for (;;) {
		found = NULL;
		spin_lock(&area->lock);
		list_for_each_entry(claim, &area->book.claims, node) {
			if (claim->test) {
				found = claim;
				break;
			}
		}
		if (found) {
			before = area->book.claimed;
			dmb_book_forget(&area->book, found);
		}
		spin_unlock(&area->lock);
		if (!found)
			return;
		dmb_free_claim(area, found, before);
		cond_resched();
	}
}

/*
 * "free": write "<pfn> <bytes>" to release a run that "alloc" claimed
 * (what is not a claimed run at all goes to the checks of dmb_release(),
 * to test them; a driver's run is refused with -EPERM), or "all" for
 * every run claimed via "alloc".
 */
static ssize_t dmb_free_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct dmb_area *area = file_inode(file)->i_private;
	unsigned long long pfn, size;
	char buf[64];
	int ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';

	if (sysfs_streq(buf, "all")) {
		dmb_free_test_claims(area);
		return len;
	}
	if (sscanf(buf, "%llx %llu", &pfn, &size) != 2 || !pfn_valid(pfn))
		return -EINVAL;
	ret = __dmb_release(area, pfn_to_page(pfn), size, true);
	return ret ? ret : len;
}

static const struct file_operations dmb_free_fops = {
	.owner = THIS_MODULE,
	.write = dmb_free_write,
	.llseek = default_llseek,
};

/* ---- handles ------------------------------------------------------------- */

static struct dmb_area *dmb_area_create(struct dmb_block *dmb, struct device *dev)
{
	const char *full = dmb_name(dmb), *slash = strrchr(full, '/');
	struct dmb_area *area;
	int ret;

	area = kzalloc(sizeof(*area), GFP_KERNEL);
	if (!area)
		return ERR_PTR(-ENOMEM);
	area->dmb = dmb;
	strscpy(area->name, slash ? slash + 1 : full, sizeof(area->name));
	area->base_pfn = PHYS_PFN(dmb_base(dmb));
	area->book.count = PHYS_PFN(dmb_size(dmb));
	INIT_LIST_HEAD(&area->book.claims);
	INIT_LIST_HEAD(&area->preps);
	spin_lock_init(&area->lock);
	mutex_init(&area->mutex);
	area->book.bitmap = bitmap_zalloc(area->book.count, GFP_KERNEL);
	if (!area->book.bitmap) {
		kfree(area);
		return ERR_PTR(-ENOMEM);
	}
	/* from here the kobject's release frees the area and puts @dev */
	area->dev = get_device(dev);
	ret = kobject_init_and_add(&area->kobj, &dmb_area_ktype, dmb_alloc_kobj,
				   "%s", area->name);
	if (ret) {
		/* the release callback frees the bitmap and the area */
		kobject_put(&area->kobj);
		return ERR_PTR(ret);
	}
	area->debugfs = debugfs_create_dir(area->name, dmb_alloc_debugfs);
	debugfs_create_file("info", 0444, area->debugfs, area, &dmb_info_fops);
	debugfs_create_file("bitmap", 0444, area->debugfs, area, &dmb_bitmap_fops);
	if (test_hooks) {
		debugfs_create_file("alloc", 0600, area->debugfs, area,
				    &dmb_alloc_fops);
		debugfs_create_file("free", 0200, area->debugfs, area,
				    &dmb_free_fops);
	}
	list_add_tail(&area->node, &dmb_area_list);
	return area;
}

/*
 * Called with dmb_area_lock held, when neither handles nor claims remain
 * and @dying is set: debugfs_remove() waits for a claim in flight through
 * "alloc", which then gives its run back instead of committing it.
 */
static void dmb_area_destroy(struct dmb_area *area)
{
	list_del(&area->node);
	debugfs_remove(area->debugfs);
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
	goto add;
found:
	/*
	 * area->dev stays the device that created the area (referenced):
	 * it is read without dmb_area_lock, for messages only.
	 */
add:
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
	struct dmb_block *dmb;
	struct dmb_prep *prep;
	unsigned int preps = 0;
	bool last;

	if (IS_ERR_OR_NULL(handle))
		return;
	area = handle->area;
	dmb = area->dmb;	/* the area may be gone below */
	mutex_lock(&dmb_area_lock);
	last = !--area->handles;
	spin_lock(&area->lock);
	claimed = area->book.claimed;
	/* with the count: a debugfs claim still in flight will not commit */
	if (last && !claimed)
		WRITE_ONCE(area->dying, true);
	/* preparations left behind: they stop before their next chunk */
	if (last) {
		list_for_each_entry(prep, &area->preps, node) {
			WRITE_ONCE(prep->cancel, true);
			preps++;
		}
	}
	spin_unlock(&area->lock);
	if (last && !claimed)
		wake_up_all(&test_hold_wq);	/* a held debugfs claim */
	if (last && preps)
		dev_warn(area->dev, "dmb_alloc: %s: last handle dropped with %u prepared claims; they are cancelled\n",
			 area->name, preps);
	if (last && claimed)
		dev_warn(area->dev, "dmb_alloc: %s: last handle dropped with %lu pages claimed; they stay claimed\n",
			 area->name, claimed);
	else if (last)
		list_del(&area->node);	/* nobody finds it any more */
	mutex_unlock(&dmb_area_lock);
	/*
	 * Outside the global lock: debugfs_remove() waits for a debugfs
	 * claim in flight, which can take seconds, and every other block's
	 * handles would wait with it.  Before dmb_put(): no other device can
	 * take the block, and so make an area of the same name, meanwhile.
	 */
	if (last && !claimed) {
		debugfs_remove(area->debugfs);
		/* out of sysfs now: a preparation may hold the area a while */
		kobject_del(&area->kobj);
		kobject_put(&area->kobj);
	}
	dmb_put(dmb);
	kfree(handle);
}
EXPORT_SYMBOL_GPL(dmb_handle_put);

static void devm_dmb_handle_release(void *handle)
{
	dmb_handle_put(handle);
}

/**
 * devm_dmb_handle_get - dmb_handle_get() released with the device
 * @dev: device whose device tree node has memory-region
 * @index: index in memory-region
 *
 * Context: process context, may sleep.
 * Return: the handle, or an ERR_PTR().
 */
struct dmb_handle *devm_dmb_handle_get(struct device *dev, unsigned int index)
{
	struct dmb_handle *handle = dmb_handle_get(dev, index);
	int ret;

	if (IS_ERR(handle))
		return handle;
	ret = devm_add_action_or_reset(dev, devm_dmb_handle_release, handle);
	return ret ? ERR_PTR(ret) : handle;
}
EXPORT_SYMBOL_GPL(devm_dmb_handle_get);

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
	/* without it claims migrate on the caller's CPU alone */
	dmb_claim_wq = alloc_workqueue("dmb_claim", WQ_UNBOUND | WQ_MEM_RECLAIM,
				       0);
	if (!dmb_claim_wq)
		pr_warn("no workqueue: claims migrate on one CPU\n");
	dmb_prep_wq = alloc_workqueue("dmb_prep", WQ_UNBOUND | WQ_MEM_RECLAIM,
				      0);
	if (!dmb_prep_wq) {
		if (dmb_claim_wq)
			destroy_workqueue(dmb_claim_wq);
		kobject_put(dmb_alloc_kobj);
		return -ENOMEM;
	}
	dmb_alloc_debugfs = debugfs_create_dir("dmb_alloc", NULL);
	if (test_hooks) {
		debugfs_create_file_unsafe("test_hold", 0600, dmb_alloc_debugfs,
					   NULL, &test_hold_fops);
		debugfs_create_atomic_t("test_held", 0400, dmb_alloc_debugfs,
					&test_held);
	}
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
	if (dmb_claim_wq)
		destroy_workqueue(dmb_claim_wq);
	kobject_put(dmb_alloc_kobj);
}
module_exit(dmb_alloc_exit);

MODULE_DESCRIPTION("Contiguous buffers from Designated Movable Blocks");
MODULE_LICENSE("GPL");
