// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_test - what the tests need to see of the memory map from userspace
 *
 * /sys/kernel/debug/dmb_test/zones lists, for every online node, the runs
 * of page frames that belong to one zone: "<start pfn> <end pfn> <zone>"
 * in hex, end exclusive; page frames without a memory map are left out.
 * The in-guest check "pfnzones" reads it to prove that every page of a
 * Designated Movable Block, and no other, is in ZONE_MOVABLE.
 *
 * /sys/kernel/debug/dmb_test/get exercises the core's driver API the way a
 * driver would: writing "get <device tree path> <index or name>" calls
 * dmb_get() or dmb_get_by_name() for the platform device of that node and
 * keeps the block; "put" releases every block kept.  "handle <path>
 * <index>" takes a dmb_alloc handle instead, which makes the block's
 * /sys/kernel/debug/dmb_alloc/<name> directory appear; "unhandle" drops
 * every handle kept (it waits for claims made through them).  Reading it
 * returns the last result: "ok <name> <base> <size>" or "error <errno>".
 *
 * Claims as a driver makes them: taking a handle also creates
 * /sys/kernel/debug/dmb_test/<block>/ (the block's node name, as in
 * dmb_alloc's own directories), whose files claim and release through any
 * handle kept on that block:
 *   alloc  write "<bytes> [align]" to claim with dmb_alloc(); read the last
 *          claim, "0x<pfn> <bytes>" or "none"
 *   free   write "<pfn> <bytes>" to release a run claimed through "alloc"
 *          (any other run is refused with -EPERM: a driver's device or
 *          userspace mappings may still use it), "all" for every such run,
 *          or "any <pfn> <bytes>" to hand the run to dmb_release() as it
 *          is, whatever it is: to test dmb_release()'s refusals, and to
 *          free a run whose claimer is gone ("any" is refused with -EPERM
 *          while a driver is bound to a device a handle was taken for)
 *   prep   write "<bytes>" to start a claim with dmb_alloc_prepare(),
 *          "commit" to take it (a run kept as if "alloc" claimed it) or
 *          "cancel"; read "pending", "ok 0x<pfn> <bytes>" or "error <errno>"
 * The runs are remembered until they are released or the module goes.
 *
 * Devices that come and go: "newdev <path>" registers a platform device
 * "dmb-test-dyn" with that node's memory-region (driver_override "none":
 * the node's own driver does not bind it), and "@dyn" in place of a path
 * then names it; "deldev" unregisters it, even while handles or claims
 * still use it (the core's owner and dmb_alloc's area hold references).
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/debugfs.h>
#include <linux/dmb.h>
#include <linux/dmb_alloc.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_platform.h>
#include <linux/platform_device.h>
#include <linux/rwsem.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static struct dentry *dmb_test_dir;

static void zones_show_node(struct seq_file *m, int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pfn, run_start = 0, end = pgdat_end_pfn(pgdat);
	struct zone *run_zone = NULL;
	bool valid = false;

	for (pfn = pgdat->node_start_pfn; pfn < end; pfn++) {
		struct zone *zone = NULL;

		if (!(pfn & 0xffff))
			cond_resched();

		/*
		 * A memory map exists, or not, for a whole subsection:
		 * pfn_valid() once per subsection (under lockdep its RCU
		 * section cost the debug kernel most of its time here),
		 * the zone of every page frame.
		 */
		if (pfn == pgdat->node_start_pfn ||
		    !(pfn & (PAGES_PER_SUBSECTION - 1)))
			valid = pfn_valid(pfn);
		if (valid)
			zone = page_zone(pfn_to_page(pfn));
		if (zone == run_zone)
			continue;
		if (run_zone)
			seq_printf(m, "%lx %lx %s\n", run_start, pfn, run_zone->name);
		run_zone = zone;
		run_start = pfn;
	}
	if (run_zone)
		seq_printf(m, "%lx %lx %s\n", run_start, end, run_zone->name);
}

static int zones_show(struct seq_file *m, void *v)
{
	int nid;

	for_each_online_node(nid)
		zones_show_node(m, nid);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(zones);

#define DMB_TEST_HELD	8

static DEFINE_MUTEX(get_lock);
static struct dmb_block *held[DMB_TEST_HELD];
static char get_result[160] = "none\n";

static struct dmb_handle *handles[DMB_TEST_HELD];
/* the device each handle was taken for, referenced */
static struct device *handle_devs[DMB_TEST_HELD];
/* held for reading by a claim through a kept handle, for writing to drop one */
static DECLARE_RWSEM(claim_sem);

static void unhandle_all(void)
{
	int i;

	down_write(&claim_sem);
	for (i = 0; i < DMB_TEST_HELD; i++) {
		dmb_handle_put(handles[i]);
		handles[i] = NULL;
		put_device(handle_devs[i]);
		handle_devs[i] = NULL;
	}
	up_write(&claim_sem);
}

/* ---- claims ------------------------------------------------------------- */

/**
 * struct tblk - a block's claim files, made by the first handle on it
 * @node: in tblks
 * @base: the block's physical base, which finds a handle on it
 * @dir: /sys/kernel/debug/dmb_test/<block>
 * @runs: runs claimed through "alloc" or "prep", &struct tblk_run
 * @last_pfn: first page of the last run claimed through "alloc"
 * @last_size: its size; 0 if none
 * @prep: the claim prepared through "prep", or NULL
 * @prep_size: its size
 * @prep_result: what "prep" reads
 */
struct tblk {
	struct list_head node;
	phys_addr_t base;
	struct dentry *dir;
	struct list_head runs;
	unsigned long last_pfn;
	size_t last_size;
	struct dmb_prep *prep;
	size_t prep_size;
	char prep_result[64];
};

/* A run claimed through a block's files */
struct tblk_run {
	struct list_head node;
	struct page *page;
	size_t size;
};

/* tblks, their runs and fields; innermost lock */
static DEFINE_MUTEX(runs_lock);
static LIST_HEAD(tblks);

/*
 * A kept handle on @b's block, under get_lock; claim_sem keeps it alive
 * once get_lock is dropped.
 */
static struct dmb_handle *tblk_handle(const struct tblk *b)
{
	int i;

	for (i = 0; i < DMB_TEST_HELD; i++)
		if (handles[i] && dmb_handle_base(handles[i]) == b->base)
			return handles[i];
	return NULL;
}

/*
 * Has a driver bound a device this module took a handle for on @b's
 * block?  Its runs are then the driver's, mapped or in its device's
 * hands: "free any" must not release them.  Under get_lock.
 */
static bool tblk_driver_bound(const struct tblk *b)
{
	int i;

	for (i = 0; i < DMB_TEST_HELD; i++)
		if (handles[i] && dmb_handle_base(handles[i]) == b->base &&
		    device_is_bound(handle_devs[i]))
			return true;
	return false;
}

/* Remember a run claimed for @b; when memory fails, give it back */
static int tblk_keep(struct tblk *b, struct dmb_handle *h, struct page *page,
		     size_t size)
{
	struct tblk_run *r = kmalloc(sizeof(*r), GFP_KERNEL);

	if (!r) {
		if (h)
			dmb_release(h, page, size);
		return -ENOMEM;
	}
	r->page = page;
	r->size = size;
	mutex_lock(&runs_lock);
	list_add_tail(&r->node, &b->runs);
	b->last_pfn = page_to_pfn(page);
	b->last_size = size;
	mutex_unlock(&runs_lock);
	return 0;
}

/* A command written to a block's file, NUL-terminated, or an ERR_PTR() */
static char *tblk_cmd(const char __user *ubuf, size_t len)
{
	return len >= 64 ? ERR_PTR(-EINVAL) : memdup_user_nul(ubuf, len);
}

static ssize_t alloc_write(struct file *file, const char __user *ubuf,
			   size_t len, loff_t *ppos)
{
	struct tblk *b = file_inode(file)->i_private;
	unsigned long long size, align = 0;
	struct dmb_handle *h;
	struct page *page;
	char *buf = tblk_cmd(ubuf, len);
	int n;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	n = sscanf(buf, "%llu %llu", &size, &align);
	kfree(buf);
	if (n < 1)
		return -EINVAL;
	mutex_lock(&get_lock);
	h = tblk_handle(b);
	if (h)
		down_read(&claim_sem);
	mutex_unlock(&get_lock);
	if (!h)
		return -ENODEV;
	page = dmb_alloc(h, size, align, GFP_KERNEL, 0);
	n = IS_ERR(page) ? PTR_ERR(page) : tblk_keep(b, h, page, size);
	up_read(&claim_sem);
	return n ? n : len;
}

static ssize_t alloc_read(struct file *file, char __user *ubuf, size_t len,
			  loff_t *ppos)
{
	struct tblk *b = file_inode(file)->i_private;
	char buf[64] = "none\n";

	mutex_lock(&runs_lock);
	if (b->last_size)
		snprintf(buf, sizeof(buf), "0x%lx %zu\n", b->last_pfn,
			 b->last_size);
	mutex_unlock(&runs_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static const struct file_operations alloc_fops = {
	.owner = THIS_MODULE,
	.read = alloc_read,
	.write = alloc_write,
	.llseek = default_llseek,
};

/* Release @b's kept runs: all, or the one at @pfn of @size; under get_lock */
static int tblk_free(struct tblk *b, struct dmb_handle *h, bool all,
		     unsigned long pfn, size_t size)
{
	struct tblk_run *r, *tmp;
	LIST_HEAD(gone);
	int ret = all ? 0 : -EPERM;

	mutex_lock(&runs_lock);
	list_for_each_entry_safe(r, tmp, &b->runs, node) {
		if (all || (page_to_pfn(r->page) == pfn && r->size == size)) {
			list_move(&r->node, &gone);
			ret = 0;
			if (!all)
				break;
		}
	}
	mutex_unlock(&runs_lock);
	list_for_each_entry_safe(r, tmp, &gone, node) {
		if (dmb_release(h, r->page, r->size))
			ret = -EINVAL;
		kfree(r);
	}
	return ret;
}

static ssize_t free_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	struct tblk *b = file_inode(file)->i_private;
	unsigned long long pfn, size;
	struct dmb_handle *h;
	char *buf = tblk_cmd(ubuf, len);
	int ret = -EINVAL;
	bool any;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	any = str_has_prefix(buf, "any ");
	mutex_lock(&get_lock);
	h = tblk_handle(b);
	if (!h)
		ret = -ENODEV;
	else if (sysfs_streq(buf, "all"))
		ret = tblk_free(b, h, true, 0, 0);
	else if (sscanf(buf + (any ? 4 : 0), "%llx %llu", &pfn, &size) != 2 ||
		 !pfn_valid(pfn))
		ret = -EINVAL;
	else if (any && tblk_driver_bound(b))
		ret = -EPERM;
	else if (any)
		ret = dmb_release(h, pfn_to_page(pfn), size);
	else
		ret = tblk_free(b, h, false, pfn, size);
	mutex_unlock(&get_lock);
	kfree(buf);
	return ret ? ret : len;
}

static const struct file_operations free_fops = {
	.owner = THIS_MODULE,
	.write = free_write,
	.llseek = default_llseek,
};

static void prep_result(struct tblk *b, struct page *page, size_t size)
{
	if (IS_ERR(page))
		snprintf(b->prep_result, sizeof(b->prep_result), "error %ld\n",
			 PTR_ERR(page));
	else
		snprintf(b->prep_result, sizeof(b->prep_result),
			 "ok 0x%lx %zu\n", page_to_pfn(page), size);
}

static ssize_t prep_write(struct file *file, const char __user *ubuf,
			  size_t len, loff_t *ppos)
{
	struct tblk *b = file_inode(file)->i_private;
	struct dmb_prep *prep = NULL;
	unsigned long long size = 0;
	struct dmb_handle *h;
	struct page *page;
	char *buf = tblk_cmd(ubuf, len);
	bool commit;
	int ret = 0;

	if (IS_ERR(buf))
		return PTR_ERR(buf);
	commit = sysfs_streq(buf, "commit");
	mutex_lock(&get_lock);
	h = tblk_handle(b);
	if (commit || sysfs_streq(buf, "cancel")) {
		/* the last handle may be gone: the prepared claim is not */
		prep = b->prep;
		size = b->prep_size;
		b->prep = NULL;
		if (!prep)
			ret = -ENOENT;
	} else if (kstrtoull(buf, 0, &size)) {
		ret = -EINVAL;
	} else if (b->prep) {
		ret = -EBUSY;
	} else if (!h) {
		ret = -ENODEV;
	} else {
		prep = dmb_alloc_prepare(h, size, 0, GFP_KERNEL, 0);
		if (IS_ERR(prep)) {
			ret = PTR_ERR(prep);
		} else {
			b->prep = prep;
			b->prep_size = size;
			mutex_lock(&runs_lock);
			strscpy(b->prep_result, "pending\n");
			mutex_unlock(&runs_lock);
		}
		prep = NULL;
	}
	mutex_unlock(&get_lock);
	kfree(buf);
	if (!prep)
		return ret ? ret : len;
	if (!commit) {
		dmb_alloc_cancel(prep);
		page = ERR_PTR(-ECANCELED);
	} else {
		page = dmb_alloc_commit(prep);
		/* a run the last handle left behind stays claimed, kept here */
		if (!IS_ERR(page) && tblk_keep(b, NULL, page, size))
			page = ERR_PTR(-ENOMEM);
	}
	mutex_lock(&runs_lock);
	prep_result(b, page, size);
	mutex_unlock(&runs_lock);
	return len;
}

static ssize_t prep_read(struct file *file, char __user *ubuf, size_t len,
			 loff_t *ppos)
{
	struct tblk *b = file_inode(file)->i_private;
	char buf[64];

	mutex_lock(&runs_lock);
	strscpy(buf, b->prep_result[0] ? b->prep_result : "none\n");
	mutex_unlock(&runs_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, strlen(buf));
}

static const struct file_operations prep_fops = {
	.owner = THIS_MODULE,
	.read = prep_read,
	.write = prep_write,
	.llseek = default_llseek,
};

/* The claim files of the block @np names, made if needed; under get_lock */
static int tblk_make(const struct device_node *np, phys_addr_t base)
{
	struct tblk *b;

	list_for_each_entry(b, &tblks, node)
		if (b->base == base)
			return 0;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	b->base = base;
	INIT_LIST_HEAD(&b->runs);
	b->dir = debugfs_create_dir(kbasename(np->full_name), dmb_test_dir);
	debugfs_create_file("alloc", 0600, b->dir, b, &alloc_fops);
	debugfs_create_file("free", 0200, b->dir, b, &free_fops);
	debugfs_create_file("prep", 0600, b->dir, b, &prep_fops);
	mutex_lock(&runs_lock);
	list_add_tail(&b->node, &tblks);
	mutex_unlock(&runs_lock);
	return 0;
}

/*
 * At unload, once the files are gone (a write in flight was waited for):
 * a prepared claim is cancelled, and runs still kept stay claimed, as a
 * driver's would (dmb_alloc warned when the last handle went).
 */
static void tblk_remove_all(void)
{
	struct tblk *b, *tmp;
	struct tblk_run *r, *rtmp;

	list_for_each_entry_safe(b, tmp, &tblks, node) {
		dmb_alloc_cancel(b->prep);
		list_for_each_entry_safe(r, rtmp, &b->runs, node)
			kfree(r);
		list_del(&b->node);
		kfree(b);
	}
}

/* "newdev": the dynamically registered device, under get_lock */
static struct platform_device *dyn;

/* "newdev <path>": register a device with the node's memory-region */
static int do_newdev(const char *path)
{
	struct platform_device *pdev;
	struct device_node *np;
	int ret;

	if (dyn)
		return -EBUSY;
	np = of_find_node_by_path(path);
	if (!np)
		return -ENODEV;
	pdev = platform_device_alloc("dmb-test-dyn", PLATFORM_DEVID_AUTO);
	if (!pdev) {
		of_node_put(np);
		return -ENOMEM;
	}
	/* platform_device_release() puts the node */
	pdev->dev.of_node = np;
	pdev->dev.of_node_reused = true;
	ret = device_set_driver_override(&pdev->dev, "none");
	if (!ret)
		ret = platform_device_add(pdev);
	if (ret) {
		platform_device_put(pdev);
		return ret;
	}
	dyn = pdev;
	snprintf(get_result, sizeof(get_result), "ok newdev %s\n",
		 dev_name(&pdev->dev));
	return 0;
}

static void do_deldev(void)
{
	platform_device_unregister(dyn);	/* NULL is fine */
	dyn = NULL;
}

/* The platform device of a device tree node, with a reference, or NULL */
static struct platform_device *node_device(const char *path)
{
	struct platform_device *pdev;
	struct device_node *np;

	if (!strcmp(path, "@dyn")) {
		if (dyn)
			get_device(&dyn->dev);
		return dyn;
	}
	np = of_find_node_by_path(path);
	if (!np)
		return NULL;
	pdev = of_find_device_by_node(np);
	of_node_put(np);
	return pdev;
}

/* "handle <path> <index>": take a dmb_alloc handle as a driver would */
static int do_handle(const char *path, const char *which)
{
	struct platform_device *pdev;
	struct device_node *np;
	struct dmb_handle *h;
	unsigned int index;
	int i, ret;

	pdev = node_device(path);
	if (!pdev)
		return -ENODEV;
	if (!kstrtouint(which, 0, &index)) {
		h = dmb_handle_get(&pdev->dev, index);
	} else {
		h = dmb_handle_get_by_name(&pdev->dev, which);
		i = of_property_match_string(pdev->dev.of_node,
					     "memory-region-names", which);
		index = max(i, 0);
	}
	/* the node of the block, which names its claim files */
	np = NULL;
	if (!IS_ERR(h))
		np = of_parse_phandle(pdev->dev.of_node, "memory-region", index);
	if (IS_ERR(h)) {
		put_device(&pdev->dev);
		return PTR_ERR(h);
	}
	for (i = 0; i < DMB_TEST_HELD && handles[i]; i++)
		;
	ret = i == DMB_TEST_HELD ? -ENOSPC : !np ? -ENOENT :
	      tblk_make(np, dmb_handle_base(h));
	of_node_put(np);
	if (ret) {
		dmb_handle_put(h);
		put_device(&pdev->dev);
		return ret;
	}
	handles[i] = h;
	handle_devs[i] = &pdev->dev;
	snprintf(get_result, sizeof(get_result), "ok handle %pa %pa\n",
		 &(phys_addr_t){ dmb_handle_base(h) },
		 &(phys_addr_t){ dmb_handle_size(h) });
	return 0;
}

static void put_all(void)
{
	int i;

	for (i = 0; i < DMB_TEST_HELD; i++) {
		dmb_put(held[i]);
		held[i] = NULL;
	}
}

/* "get <path> <index|name>": take a device's block as its driver would */
static int do_get(const char *path, const char *which)
{
	struct platform_device *pdev;
	unsigned int index;
	struct dmb_block *dmb;
	int i;

	pdev = node_device(path);
	if (!pdev)
		return -ENODEV;
	if (!kstrtouint(which, 0, &index))
		dmb = dmb_get(&pdev->dev, index);
	else
		dmb = dmb_get_by_name(&pdev->dev, which);
	put_device(&pdev->dev);
	if (IS_ERR(dmb))
		return PTR_ERR(dmb);

	for (i = 0; i < DMB_TEST_HELD && held[i]; i++)
		;
	if (i == DMB_TEST_HELD) {
		dmb_put(dmb);
		return -ENOSPC;
	}
	held[i] = dmb;
	snprintf(get_result, sizeof(get_result), "ok %s %pa %pa\n",
		 dmb_name(dmb), &(phys_addr_t){ dmb_base(dmb) },
		 &(phys_addr_t){ dmb_size(dmb) });
	return 0;
}

static ssize_t get_write(struct file *file, const char __user *ubuf,
			 size_t len, loff_t *ppos)
{
	char buf[200], cmd[12], path[128], which[32];
	int n, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	n = sscanf(buf, "%11s %127s %31s", cmd, path, which);

	mutex_lock(&get_lock);
	if (n == 1 && !strcmp(cmd, "put")) {
		put_all();
		snprintf(get_result, sizeof(get_result), "ok put\n");
		ret = len;
	} else if (n == 1 && !strcmp(cmd, "unhandle")) {
		unhandle_all();
		snprintf(get_result, sizeof(get_result), "ok unhandle\n");
		ret = len;
	} else if (n == 2 && !strcmp(cmd, "newdev")) {
		ret = do_newdev(path);
		if (ret)
			snprintf(get_result, sizeof(get_result), "error %d\n", ret);
		ret = len;
	} else if (n == 1 && !strcmp(cmd, "deldev")) {
		do_deldev();
		snprintf(get_result, sizeof(get_result), "ok deldev\n");
		ret = len;
	} else if (n == 3 && !strcmp(cmd, "handle")) {
		ret = do_handle(path, which);
		if (ret)
			snprintf(get_result, sizeof(get_result), "error %d\n", ret);
		ret = len;
	} else if (n == 3 && !strcmp(cmd, "get")) {
		ret = do_get(path, which);
		if (ret)
			snprintf(get_result, sizeof(get_result), "error %d\n", ret);
		ret = len;
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&get_lock);
	return ret;
}

static ssize_t get_read(struct file *file, char __user *ubuf, size_t len,
			loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&get_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, get_result,
				      strlen(get_result));
	mutex_unlock(&get_lock);
	return ret;
}

static const struct file_operations get_fops = {
	.owner = THIS_MODULE,
	.read = get_read,
	.write = get_write,
	.llseek = default_llseek,
};

static int __init dmb_test_init(void)
{
	dmb_test_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("zones", 0400, dmb_test_dir, NULL, &zones_fops);
	debugfs_create_file("get", 0600, dmb_test_dir, NULL, &get_fops);
	return 0;
}
module_init(dmb_test_init);

static void __exit dmb_test_exit(void)
{
	/* waits for writes in flight, and removes every block's files */
	debugfs_remove(dmb_test_dir);
	mutex_lock(&get_lock);
	tblk_remove_all();
	unhandle_all();
	put_all();
	do_deldev();
	mutex_unlock(&get_lock);
}
module_exit(dmb_test_exit);

MODULE_DESCRIPTION("Test helpers for Designated Movable Blocks: zone map, blocks, handles and claims");
MODULE_LICENSE("GPL");
