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
 * /sys/kernel/debug/dmb_alloc/<name> directory appear (with the claim
 * hooks if dmb_alloc was loaded with test_hooks=1); "unhandle" drops
 * every handle kept.  Reading it returns the last result: "ok <name> <base>
 * <size>" or "error <errno>".
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
#include <linux/seq_file.h>
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

static void unhandle_all(void)
{
	int i;

	for (i = 0; i < DMB_TEST_HELD; i++) {
		dmb_handle_put(handles[i]);
		handles[i] = NULL;
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
	struct dmb_handle *h;
	unsigned int index;
	int i;

	pdev = node_device(path);
	if (!pdev)
		return -ENODEV;
	if (!kstrtouint(which, 0, &index))
		h = dmb_handle_get(&pdev->dev, index);
	else
		h = dmb_handle_get_by_name(&pdev->dev, which);
	put_device(&pdev->dev);
	if (IS_ERR(h))
		return PTR_ERR(h);
	for (i = 0; i < DMB_TEST_HELD && handles[i]; i++)
		;
	if (i == DMB_TEST_HELD) {
		dmb_handle_put(h);
		return -ENOSPC;
	}
	handles[i] = h;
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
	debugfs_remove(dmb_test_dir);
	mutex_lock(&get_lock);
	unhandle_all();
	put_all();
	do_deldev();
	mutex_unlock(&get_lock);
}
module_exit(dmb_test_exit);

MODULE_DESCRIPTION("Test helpers for Designated Movable Blocks: page frame to zone map");
MODULE_LICENSE("GPL");
