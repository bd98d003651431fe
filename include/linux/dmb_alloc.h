/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dmb_alloc: physically contiguous buffers from a device's Designated
 * Movable Block, for drivers of devices without an IOMMU.
 *
 * A driver takes a handle on the DMB its device tree node references with
 * memory-region, claims runs of it with dmb_alloc() (whatever user or page
 * cache data lives there is migrated away first) and gives them back with
 * dmb_release(), after which user pages can use them again.
 */
#ifndef _LINUX_DMB_ALLOC_H
#define _LINUX_DMB_ALLOC_H

#include <linux/gfp_types.h>
#include <linux/types.h>

struct device;
struct page;
struct dmb_handle;

struct dmb_handle *dmb_handle_get(struct device *dev, unsigned int index);
struct dmb_handle *dmb_handle_get_by_name(struct device *dev,
					  const char *name);
void dmb_handle_put(struct dmb_handle *handle);

phys_addr_t dmb_handle_base(const struct dmb_handle *handle);
phys_addr_t dmb_handle_size(const struct dmb_handle *handle);

/**
 * DMB_ALLOC_NOZERO - flag of dmb_alloc(): do not zero the run
 *
 * Only for a driver that overwrites every byte of the run before its
 * device or userspace can read any: the run otherwise shows data of other
 * processes.
 */
#define DMB_ALLOC_NOZERO	0x1u

struct page *dmb_alloc(struct dmb_handle *handle, size_t size, size_t align,
		       gfp_t gfp, unsigned int flags);
int dmb_release(struct dmb_handle *handle, struct page *pages, size_t size);

/**
 * DOC: prepared claims
 *
 * A claim started early and taken later: dmb_alloc_prepare() starts
 * migrating in the background, dmb_alloc_commit() waits for what is left
 * and returns dmb_alloc()'s result, dmb_alloc_cancel() stops it and gives
 * back what it took (a claim under way gives its run back when it ends).
 * Each prepared claim is committed or cancelled once.
 */
struct dmb_prep;

struct dmb_prep *dmb_alloc_prepare(struct dmb_handle *handle, size_t size,
				   size_t align, gfp_t gfp, unsigned int flags);
bool dmb_alloc_prepared(struct dmb_prep *prep);
struct page *dmb_alloc_commit(struct dmb_prep *prep);
void dmb_alloc_cancel(struct dmb_prep *prep);

#endif /* _LINUX_DMB_ALLOC_H */
