// SPDX-License-Identifier: GPL-2.0
/*
 * dma_client - an ordinary DMA-API driver, for tests
 *
 * A platform driver for "dmb-test,dma-client" nodes written the way most
 * drivers are: probe calls of_reserved_mem_device_init() (a device without
 * memory-region keeps the default CMA pool) and the device allocates with
 * dma_alloc_attrs().  Nothing in it knows about Designated Movable Blocks:
 * it shows that unmodified DMA-API code gets a block's memory when its
 * memory-region names one.
 *
 * /sys/kernel/debug/dma_client/<device>/ (root only):
 *   alloc  write "<bytes>": dma_alloc_attrs() of that size; read: the
 *          result of the last write, "ok <dma address> <bytes> zero=<0|1>
 *          ns=<time in dma_alloc_attrs()>" (zero=1: every byte read back
 *          as 0) or "error <errno>"
 *   list   the live buffers, "<dma address> <bytes>" per line
 *   free   write anything: dma_free_attrs() of every buffer
 *   import write "<dma-buf fd>": attach the dma-buf to the device and map
 *          it, as an importing driver does; read: "ok <first dma address>
 *          <last dma address> <bytes> <segments>" or "error <errno>"
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dma-mapping.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

/* A buffer larger than this is refused up front */
#define DMA_CLIENT_MAX	SZ_1G

struct dma_client_buf {
	struct list_head node;
	void *cpu;
	dma_addr_t dma;
	size_t size;
};

struct dma_client {
	struct device *dev;
	struct dentry *dir;
	struct mutex lock;		/* @bufs, @last */
	struct list_head bufs;
	char last[96];
	bool rmem;
};

static struct dentry *dma_client_root;

/* the buffer reads back as zeroes: nobody's data leaked into it */
static bool dma_client_zeroed(const void *cpu, size_t size)
{
	const unsigned long *p = cpu;
	size_t i;

	for (i = 0; i < size / sizeof(*p); i++) {
		if (p[i])
			return false;
		if (!(i & 0xffff))
			cond_resched();
	}
	return true;
}

static ssize_t dma_client_alloc_write(struct file *file,
				      const char __user *ubuf, size_t len,
				      loff_t *ppos)
{
	struct dma_client *dc = file->private_data;
	struct dma_client_buf *buf;
	u64 size, t0;
	int ret;

	ret = kstrtou64_from_user(ubuf, len, 0, &size);
	if (ret)
		return ret;
	if (!size || size > DMA_CLIENT_MAX)
		return -EINVAL;
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	buf->size = size;
	t0 = ktime_get_ns();
	buf->cpu = dma_alloc_attrs(dc->dev, size, &buf->dma, GFP_KERNEL,
				   DMA_ATTR_NO_WARN);
	t0 = ktime_get_ns() - t0;
	mutex_lock(&dc->lock);
	if (!buf->cpu) {
		snprintf(dc->last, sizeof(dc->last), "error %d\n", -ENOMEM);
		kfree(buf);
	} else {
		bool zero = dma_client_zeroed(buf->cpu, size);

		/* the device's data, for the next test to find intact */
		memset(buf->cpu, 0xa5, size);
		list_add_tail(&buf->node, &dc->bufs);
		snprintf(dc->last, sizeof(dc->last), "ok %pad %zu zero=%d ns=%llu\n",
			 &buf->dma, buf->size, zero, t0);
	}
	mutex_unlock(&dc->lock);
	return len;
}

static ssize_t dma_client_alloc_read(struct file *file, char __user *ubuf,
				     size_t len, loff_t *ppos)
{
	struct dma_client *dc = file->private_data;
	char last[sizeof(dc->last)];

	mutex_lock(&dc->lock);
	strscpy(last, dc->last, sizeof(last));
	mutex_unlock(&dc->lock);
	return simple_read_from_buffer(ubuf, len, ppos, last, strlen(last));
}

static const struct file_operations dma_client_alloc_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= dma_client_alloc_read,
	.write	= dma_client_alloc_write,
	.llseek	= default_llseek,
};

static int dma_client_list_show(struct seq_file *m, void *v)
{
	struct dma_client *dc = m->private;
	struct dma_client_buf *buf;

	mutex_lock(&dc->lock);
	list_for_each_entry(buf, &dc->bufs, node)
		seq_printf(m, "%pad %zu\n", &buf->dma, buf->size);
	mutex_unlock(&dc->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dma_client_list);

static void dma_client_free_all(struct dma_client *dc)
{
	struct dma_client_buf *buf, *tmp;

	mutex_lock(&dc->lock);
	list_for_each_entry_safe(buf, tmp, &dc->bufs, node) {
		list_del(&buf->node);
		dma_free_attrs(dc->dev, buf->size, buf->cpu, buf->dma, 0);
		kfree(buf);
	}
	mutex_unlock(&dc->lock);
}

static ssize_t dma_client_free_write(struct file *file,
				     const char __user *ubuf, size_t len,
				     loff_t *ppos)
{
	dma_client_free_all(file->private_data);
	return len;
}

static const struct file_operations dma_client_free_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= dma_client_free_write,
	.llseek	= default_llseek,
};

/* Import a dma-buf the way a driver does, and say where it lies */
static ssize_t dma_client_import_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *ppos)
{
	struct dma_client *dc = file->private_data;
	struct dma_buf_attachment *at;
	dma_addr_t first = 0, last = 0;
	struct scatterlist *sg;
	struct dma_buf *dmabuf;
	struct sg_table *sgt;
	size_t bytes = 0;
	int fd, ret, i;

	ret = kstrtoint_from_user(ubuf, len, 0, &fd);
	if (ret)
		return ret;
	dmabuf = dma_buf_get(fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	at = dma_buf_attach(dmabuf, dc->dev);
	if (IS_ERR(at)) {
		ret = PTR_ERR(at);
		goto put;
	}
	sgt = dma_buf_map_attachment_unlocked(at, DMA_BIDIRECTIONAL);
	if (IS_ERR(sgt)) {
		ret = PTR_ERR(sgt);
		goto detach;
	}
	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (!i)
			first = sg_dma_address(sg);
		last = sg_dma_address(sg) + sg_dma_len(sg) - PAGE_SIZE;
		bytes += sg_dma_len(sg);
	}
	mutex_lock(&dc->lock);
	snprintf(dc->last, sizeof(dc->last), "ok %pad %pad %zu %u\n", &first,
		 &last, bytes, sgt->nents);
	mutex_unlock(&dc->lock);
	dma_buf_unmap_attachment_unlocked(at, sgt, DMA_BIDIRECTIONAL);
detach:
	dma_buf_detach(dmabuf, at);
put:
	dma_buf_put(dmabuf);
	if (ret) {
		mutex_lock(&dc->lock);
		snprintf(dc->last, sizeof(dc->last), "error %d\n", ret);
		mutex_unlock(&dc->lock);
	}
	return len;
}

static const struct file_operations dma_client_import_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= dma_client_alloc_read,
	.write	= dma_client_import_write,
	.llseek	= default_llseek,
};

/* Did the memory-region give the device a CMA pool of its own? */
static bool dma_client_has_pool(struct device *dev)
{
#ifdef CONFIG_DMA_CMA
	return dev->cma_area;
#else
	return false;
#endif
}

static int dma_client_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct dma_client *dc;
	int ret;

	dc = devm_kzalloc(dev, sizeof(*dc), GFP_KERNEL);
	if (!dc)
		return -ENOMEM;
	dc->dev = dev;
	mutex_init(&dc->lock);
	INIT_LIST_HEAD(&dc->bufs);

	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	/*
	 * The usual pattern: a memory-region, if any, is the device's pool.
	 * One that gives it no CMA pool (a disabled node, a block refused at
	 * boot, a pool of another kind) fails the probe: the default pool
	 * would serve the device without a word.
	 */
	if (of_property_present(dev->of_node, "memory-region")) {
		ret = of_reserved_mem_device_init(dev);
		if (!ret && !dma_client_has_pool(dev)) {
			of_reserved_mem_device_release(dev);
			ret = -ENODEV;
		}
		if (ret)
			return dev_err_probe(dev, ret,
					     "memory-region gives no CMA pool\n");
		dc->rmem = true;
	}

	dc->dir = debugfs_create_dir(dev_name(dev), dma_client_root);
	debugfs_create_file("alloc", 0600, dc->dir, dc, &dma_client_alloc_fops);
	debugfs_create_file("list", 0400, dc->dir, dc, &dma_client_list_fops);
	debugfs_create_file("free", 0200, dc->dir, dc, &dma_client_free_fops);
	debugfs_create_file("import", 0600, dc->dir, dc, &dma_client_import_fops);
	platform_set_drvdata(pdev, dc);
	dev_info(dev, "DMA allocations from %s\n",
		 dc->rmem ? "its memory-region" : "the default pool");
	return 0;
}

static void dma_client_remove(struct platform_device *pdev)
{
	struct dma_client *dc = platform_get_drvdata(pdev);

	/* no file operation runs once the files are gone */
	debugfs_remove(dc->dir);
	dma_client_free_all(dc);
	if (dc->rmem)
		of_reserved_mem_device_release(dc->dev);
}

static const struct of_device_id dma_client_of_match[] = {
	{ .compatible = "dmb-test,dma-client" },
	{ }
};
MODULE_DEVICE_TABLE(of, dma_client_of_match);

static struct platform_driver dma_client_driver = {
	.probe	= dma_client_probe,
	.remove_new = dma_client_remove,
	.driver	= {
		.name		= "dma_client",
		.of_match_table	= dma_client_of_match,
	},
};

static int __init dma_client_init(void)
{
	int ret;

	dma_client_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = platform_driver_register(&dma_client_driver);
	if (ret)
		debugfs_remove(dma_client_root);
	return ret;
}
module_init(dma_client_init);

static void __exit dma_client_exit(void)
{
	platform_driver_unregister(&dma_client_driver);
	debugfs_remove(dma_client_root);
}
module_exit(dma_client_exit);

MODULE_DESCRIPTION("An ordinary DMA-API driver, for tests");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(DMA_BUF);
