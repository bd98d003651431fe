// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_test - what the tests need to see of the memory map from userspace
 *
 * /sys/kernel/debug/dmb_test/zones lists, for every online node, the runs
 * of page frames that belong to one zone: "<start pfn> <end pfn> <zone>"
 * in hex, end exclusive; page frames without a memory map are left out.
 * The in-guest check "pfnzones" reads it to prove that every page of a
 * Designated Movable Block, and no other, is in ZONE_MOVABLE.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/seq_file.h>

static struct dentry *dmb_test_dir;

static void zones_show_node(struct seq_file *m, int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pfn, run_start = 0, end = pgdat_end_pfn(pgdat);
	struct zone *run_zone = NULL;

	for (pfn = pgdat->node_start_pfn; pfn < end; pfn++) {
		struct zone *zone = NULL;

		if (pfn_valid(pfn))
			zone = page_zone(pfn_to_page(pfn));
		if (zone == run_zone)
			continue;
		if (run_zone)
			seq_printf(m, "%lx %lx %s\n", run_start, pfn, run_zone->name);
		run_zone = zone;
		run_start = pfn;
		if (!(pfn & 0xffff))
			cond_resched();
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

static int __init dmb_test_init(void)
{
	dmb_test_dir = debugfs_create_dir(KBUILD_MODNAME, NULL);
	debugfs_create_file("zones", 0400, dmb_test_dir, NULL, &zones_fops);
	return 0;
}
module_init(dmb_test_init);

static void __exit dmb_test_exit(void)
{
	debugfs_remove(dmb_test_dir);
}
module_exit(dmb_test_exit);

MODULE_DESCRIPTION("Test helpers for Designated Movable Blocks: page frame to zone map");
MODULE_LICENSE("GPL");
