// SPDX-License-Identifier: GPL-2.0
/*
 * dma-buf heap per Designated Movable Block: /dev/dma_heap/<block>
 *
 * Based on drivers/dma-buf/heaps/cma_heap.c of Linux 6.12 (Copyright (C)
 * 2012, 2019, 2020 Linaro Ltd., Benjamin Gaignard; parts of Andrew Davis'
 * SRAM heap, Copyright (C) 2019 Texas Instruments Incorporated): the buffer
 * operations are that heap's.  What differs is where the memory comes from:
 * each block's own CMA area, a movable one, whose pages serve user memory
 * while no buffer holds them.
 *
 * Only blocks that no device tree node names in its memory-region get a
 * heap: a device's block is that device's, and a heap user holding a
 * buffer would keep the device from it.  A heap takes its block
 * (dmb_take_cma()) when its first buffer is allocated and returns it when
 * its last buffer is freed; allocations fail with -ENOMEM, as the CMA
 * heap's do when its area is full, when the block cannot hold them.
 *
 * 6.12 has no dma_heap_remove(): once its heaps exist, the module cannot be
 * unloaded (it has no exit function).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cma.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/dma-map-ops.h>
#include <linux/dmb.h>
#include <linux/err.h>
#include <linux/highmem.h>
#include <linux/io.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

/**
 * struct dmb_heap - the heap of one block
 * @heap: the dma-buf heap, /dev/dma_heap/<name>
 * @dmb: the block
 * @cma: the block's CMA area while @buffers is not zero, else NULL
 * @lock: serialises @buffers and taking or returning the block
 * @buffers: buffers allocated and not yet released
 */
struct dmb_heap {
	struct dma_heap *heap;
	struct dmb_block *dmb;
	struct cma *cma;
	struct mutex lock;	/* @buffers, @cma, taking the block */
	unsigned long buffers;
};

/* the device that holds a block for its heap */
static struct platform_device *dmb_heap_pdev;

struct dmb_heap_buffer {
	struct dmb_heap *heap;
	struct list_head attachments;
	struct mutex lock;	/* @attachments, @vmap_cnt, @vaddr */
	unsigned long len;
	struct page *cma_pages;
	struct page **pages;
	pgoff_t pagecount;
	int vmap_cnt;
	void *vaddr;
};

struct dmb_heap_attachment {
	struct device *dev;
	struct sg_table table;
	struct list_head list;
	bool mapped;
};

static int dmb_heap_attach(struct dma_buf *dmabuf,
			   struct dma_buf_attachment *attachment)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;
	struct dmb_heap_attachment *a;
	int ret;

	a = kzalloc(sizeof(*a), GFP_KERNEL);
	if (!a)
		return -ENOMEM;

	ret = sg_alloc_table_from_pages(&a->table, buffer->pages,
					buffer->pagecount, 0,
					buffer->pagecount << PAGE_SHIFT,
					GFP_KERNEL);
	if (ret) {
		kfree(a);
		return ret;
	}

	a->dev = attachment->dev;
	INIT_LIST_HEAD(&a->list);
	a->mapped = false;

	attachment->priv = a;

	mutex_lock(&buffer->lock);
	list_add(&a->list, &buffer->attachments);
	mutex_unlock(&buffer->lock);

	return 0;
}

static void dmb_heap_detach(struct dma_buf *dmabuf,
			    struct dma_buf_attachment *attachment)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;
	struct dmb_heap_attachment *a = attachment->priv;

	mutex_lock(&buffer->lock);
	list_del(&a->list);
	mutex_unlock(&buffer->lock);

	sg_free_table(&a->table);
	kfree(a);
}

static struct sg_table *dmb_heap_map_dma_buf(struct dma_buf_attachment *attachment,
					     enum dma_data_direction direction)
{
	struct dmb_heap_attachment *a = attachment->priv;
	struct sg_table *table = &a->table;
	int ret;

	ret = dma_map_sgtable(attachment->dev, table, direction, 0);
	if (ret)
		return ERR_PTR(-ENOMEM);
	a->mapped = true;
	return table;
}

static void dmb_heap_unmap_dma_buf(struct dma_buf_attachment *attachment,
				   struct sg_table *table,
				   enum dma_data_direction direction)
{
	struct dmb_heap_attachment *a = attachment->priv;

	a->mapped = false;
	dma_unmap_sgtable(attachment->dev, table, direction, 0);
}

static int dmb_heap_dma_buf_begin_cpu_access(struct dma_buf *dmabuf,
					     enum dma_data_direction direction)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;
	struct dmb_heap_attachment *a;

	mutex_lock(&buffer->lock);

	if (buffer->vmap_cnt)
		invalidate_kernel_vmap_range(buffer->vaddr, buffer->len);

	list_for_each_entry(a, &buffer->attachments, list) {
		if (!a->mapped)
			continue;
		dma_sync_sgtable_for_cpu(a->dev, &a->table, direction);
	}
	mutex_unlock(&buffer->lock);

	return 0;
}

static int dmb_heap_dma_buf_end_cpu_access(struct dma_buf *dmabuf,
					   enum dma_data_direction direction)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;
	struct dmb_heap_attachment *a;

	mutex_lock(&buffer->lock);

	if (buffer->vmap_cnt)
		flush_kernel_vmap_range(buffer->vaddr, buffer->len);

	list_for_each_entry(a, &buffer->attachments, list) {
		if (!a->mapped)
			continue;
		dma_sync_sgtable_for_device(a->dev, &a->table, direction);
	}
	mutex_unlock(&buffer->lock);

	return 0;
}

static vm_fault_t dmb_heap_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct dmb_heap_buffer *buffer = vma->vm_private_data;

	if (vmf->pgoff >= buffer->pagecount)
		return VM_FAULT_SIGBUS;

	return vmf_insert_pfn(vma, vmf->address, page_to_pfn(buffer->pages[vmf->pgoff]));
}

static const struct vm_operations_struct dma_heap_vm_ops = {
	.fault = dmb_heap_vm_fault,
};

static int dmb_heap_mmap(struct dma_buf *dmabuf, struct vm_area_struct *vma)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;

	if ((vma->vm_flags & (VM_SHARED | VM_MAYSHARE)) == 0)
		return -EINVAL;

	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP);

	vma->vm_ops = &dma_heap_vm_ops;
	vma->vm_private_data = buffer;

	return 0;
}

static void *dmb_heap_do_vmap(struct dmb_heap_buffer *buffer)
{
	void *vaddr;

	vaddr = vmap(buffer->pages, buffer->pagecount, VM_MAP, PAGE_KERNEL);
	if (!vaddr)
		return ERR_PTR(-ENOMEM);

	return vaddr;
}

static int dmb_heap_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;
	void *vaddr;
	int ret = 0;

	mutex_lock(&buffer->lock);
	if (buffer->vmap_cnt) {
		buffer->vmap_cnt++;
		iosys_map_set_vaddr(map, buffer->vaddr);
		goto out;
	}

	vaddr = dmb_heap_do_vmap(buffer);
	if (IS_ERR(vaddr)) {
		ret = PTR_ERR(vaddr);
		goto out;
	}
	buffer->vaddr = vaddr;
	buffer->vmap_cnt++;
	iosys_map_set_vaddr(map, buffer->vaddr);
out:
	mutex_unlock(&buffer->lock);

	return ret;
}

static void dmb_heap_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;

	mutex_lock(&buffer->lock);
	if (!--buffer->vmap_cnt) {
		vunmap(buffer->vaddr);
		buffer->vaddr = NULL;
	}
	mutex_unlock(&buffer->lock);
	iosys_map_clear(map);
}

/* Take the block for a new buffer: its CMA area, or NULL */
static struct cma *dmb_heap_get(struct dmb_heap *dmb_heap)
{
	struct cma *cma = NULL;

	mutex_lock(&dmb_heap->lock);
	if (!dmb_heap->buffers) {
		cma = dmb_take_cma(dmb_heap->dmb, &dmb_heap_pdev->dev);
		if (IS_ERR(cma))
			cma = NULL;
		dmb_heap->cma = cma;
	}
	if (dmb_heap->cma)
		dmb_heap->buffers++;
	cma = dmb_heap->cma;
	mutex_unlock(&dmb_heap->lock);
	return cma;
}

static void dmb_heap_put(struct dmb_heap *dmb_heap)
{
	mutex_lock(&dmb_heap->lock);
	if (!WARN_ON_ONCE(!dmb_heap->buffers) && !--dmb_heap->buffers) {
		dmb_heap->cma = NULL;
		dmb_put(dmb_heap->dmb);
	}
	mutex_unlock(&dmb_heap->lock);
}

static void dmb_heap_dma_buf_release(struct dma_buf *dmabuf)
{
	struct dmb_heap_buffer *buffer = dmabuf->priv;
	struct dmb_heap *dmb_heap = buffer->heap;

	if (buffer->vmap_cnt > 0) {
		WARN(1, "%s: buffer still mapped in the kernel\n", __func__);
		vunmap(buffer->vaddr);
		buffer->vaddr = NULL;
	}

	/* free page list */
	kfree(buffer->pages);
	/* release memory */
	cma_release(dmb_heap->cma, buffer->cma_pages, buffer->pagecount);
	kfree(buffer);
	dmb_heap_put(dmb_heap);
}

static const struct dma_buf_ops dmb_heap_buf_ops = {
	.attach = dmb_heap_attach,
	.detach = dmb_heap_detach,
	.map_dma_buf = dmb_heap_map_dma_buf,
	.unmap_dma_buf = dmb_heap_unmap_dma_buf,
	.begin_cpu_access = dmb_heap_dma_buf_begin_cpu_access,
	.end_cpu_access = dmb_heap_dma_buf_end_cpu_access,
	.mmap = dmb_heap_mmap,
	.vmap = dmb_heap_vmap,
	.vunmap = dmb_heap_vunmap,
	.release = dmb_heap_dma_buf_release,
};

static struct dma_buf *dmb_heap_allocate(struct dma_heap *heap,
					 unsigned long len,
					 u32 fd_flags,
					 u64 heap_flags)
{
	struct dmb_heap *dmb_heap = dma_heap_get_drvdata(heap);
	struct dmb_heap_buffer *buffer;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	size_t size = PAGE_ALIGN(len);
	pgoff_t pagecount = size >> PAGE_SHIFT;
	unsigned long align = get_order(size);
	struct page *cma_pages, *page;
	struct dma_buf *dmabuf;
	struct cma *cma;
	int ret = -ENOMEM;
	pgoff_t pg;

	/* the heap core refuses unknown flags and a zero length */
	buffer = kzalloc(sizeof(*buffer), GFP_KERNEL);
	if (!buffer)
		return ERR_PTR(-ENOMEM);

	INIT_LIST_HEAD(&buffer->attachments);
	mutex_init(&buffer->lock);
	buffer->len = size;

	if (align > CONFIG_CMA_ALIGNMENT)
		align = CONFIG_CMA_ALIGNMENT;

	/* never take the block for what cannot fit */
	if (size > dmb_size(dmb_heap->dmb))
		goto free_buffer;
	cma = dmb_heap_get(dmb_heap);
	if (!cma)
		goto free_buffer;
	/* a full block is the caller's -ENOMEM, not a log report */
	cma_pages = cma_alloc(cma, pagecount, align, true);
	if (!cma_pages)
		goto put_heap;

	/* the pages held user data moments ago: clear them */
	for (pg = 0, page = cma_pages; pg < pagecount; pg++, page++) {
		void *vaddr = kmap_local_page(page);

		memset(vaddr, 0, PAGE_SIZE);
		kunmap_local(vaddr);
		/* do not waste time zeroing for a process SIGKILL ended */
		if (fatal_signal_pending(current))
			goto free_cma;
		cond_resched();
	}

	buffer->pages = kmalloc_array(pagecount, sizeof(*buffer->pages), GFP_KERNEL);
	if (!buffer->pages) {
		ret = -ENOMEM;
		goto free_cma;
	}

	for (pg = 0; pg < pagecount; pg++)
		buffer->pages[pg] = &cma_pages[pg];

	buffer->cma_pages = cma_pages;
	buffer->heap = dmb_heap;
	buffer->pagecount = pagecount;

	/* create the dmabuf */
	exp_info.exp_name = dma_heap_get_name(heap);
	exp_info.ops = &dmb_heap_buf_ops;
	exp_info.size = buffer->len;
	exp_info.flags = fd_flags;
	exp_info.priv = buffer;
	dmabuf = dma_buf_export(&exp_info);
	if (IS_ERR(dmabuf)) {
		ret = PTR_ERR(dmabuf);
		goto free_pages;
	}
	return dmabuf;

free_pages:
	kfree(buffer->pages);
free_cma:
	cma_release(cma, cma_pages, pagecount);
put_heap:
	dmb_heap_put(dmb_heap);
free_buffer:
	kfree(buffer);

	return ERR_PTR(ret);
}

static const struct dma_heap_ops dmb_heap_ops = {
	.allocate = dmb_heap_allocate,
};

/* Does a device tree node name @dmb in its memory-region? */
static bool __init dmb_heap_block_referenced(struct dmb_block *dmb)
{
	struct device_node *blk, *np;
	bool found = false;
	int i;

	blk = of_find_node_by_path(dmb_name(dmb));
	if (!blk)
		return false;	/* a command-line block */
	for_each_node_with_property(np, "memory-region") {
		struct device_node *r;

		for (i = 0; !found && (r = of_parse_phandle(np, "memory-region", i)); i++) {
			found = r == blk;
			of_node_put(r);
		}
		if (found) {
			pr_info("%s: no heap: %pOF uses it\n", dmb_name(dmb), np);
			of_node_put(np);
			break;
		}
	}
	of_node_put(blk);
	return found;
}

static int __init dmb_heap_add(struct dmb_block *dmb)
{
	struct dma_heap_export_info exp_info;
	struct dmb_heap *dmb_heap;
	const char *name;

	/* a block holding a CMA pool is served by the pool */
	if (!dmb_cma(dmb) || dmb_heap_block_referenced(dmb))
		return -ENODEV;
	/* the block's CMA area is named after it: dmb@60000000 */
	name = cma_get_name(dmb_cma(dmb));
	dmb_heap = kzalloc(sizeof(*dmb_heap), GFP_KERNEL);
	if (!dmb_heap)
		return -ENOMEM;
	dmb_heap->dmb = dmb;
	mutex_init(&dmb_heap->lock);

	exp_info.name = name;
	exp_info.ops = &dmb_heap_ops;
	exp_info.priv = dmb_heap;

	dmb_heap->heap = dma_heap_add(&exp_info);
	if (IS_ERR(dmb_heap->heap)) {
		int ret = PTR_ERR(dmb_heap->heap);

		pr_err("%s: no heap: %d\n", name, ret);
		kfree(dmb_heap);
		return ret;
	}
	pr_info("/dev/dma_heap/%s: %pa bytes at %pa\n", name,
		&(phys_addr_t){ dmb_size(dmb) }, &(phys_addr_t){ dmb_base(dmb) });
	return 0;
}

static int __init dmb_heap_init(void)
{
	unsigned int i, added = 0;
	struct dmb_block *dmb;

	dmb_heap_pdev = platform_device_register_simple("dmb-heap",
							PLATFORM_DEVID_NONE,
							NULL, 0);
	if (IS_ERR(dmb_heap_pdev))
		return PTR_ERR(dmb_heap_pdev);
	for (i = 0; (dmb = dmb_find_block(i)); i++)
		if (!dmb_heap_add(dmb))
			added++;
	if (!added) {
		pr_info("no Designated Movable Block to serve\n");
		platform_device_unregister(dmb_heap_pdev);
		return -ENODEV;
	}
	return 0;
}
module_init(dmb_heap_init);

MODULE_DESCRIPTION("dma-buf heap per Designated Movable Block");
MODULE_IMPORT_NS(DMA_BUF);
MODULE_LICENSE("GPL");
