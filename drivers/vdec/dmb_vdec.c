// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_vdec - a sample video decoder on a Designated Movable Block
 *
 * An emulated decoder without an IOMMU: when playback starts it claims its
 * frame buffers, physically contiguous, from the block its device tree node
 * references (memory-region), on the DRAM controller it is attached to;
 * when playback stops it gives them back and user pages use that memory
 * again.  "Decoding" writes a known pattern into each buffer through the
 * kernel's mapping, as the decoder's DMA would, after checking that the
 * buffer is contiguous, inside the block and on the right controller;
 * userspace reads the frames back through mmap().
 *
 * One misc device per decoder, /dev/dmb-vdec-<label>, mode 0600; see
 * include/uapi/linux/dmb_vdec.h.  A session belongs to the file that
 * started it: closing the file, or the death of its process, ends it.  A
 * buffer is never freed while it is mapped: the mappings hold the file.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dmb.h>
#include <linux/dmb_alloc.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/platform_device.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/dmb_vdec.h>

/**
 * struct vdec_session - buffers claimed by one file
 * @owner: the file that started it
 * @count: buffers
 * @pages: first page of each buffer
 * @sizes: size of each buffer, in bytes
 * @offsets: mmap() offset of each buffer
 * @claim_ns: time the claims took
 * @maps: live mappings of the buffers
 */
struct vdec_session {
	struct file *owner;
	unsigned int count;
	struct page *pages[DMB_VDEC_MAX_BUFS];
	size_t sizes[DMB_VDEC_MAX_BUFS];
	u64 offsets[DMB_VDEC_MAX_BUFS];
	u64 claim_ns;
	atomic_t maps;
};

/**
 * struct vdec - one decoder
 * @ref: held by the bound device and by every open file
 * @dev: the platform device
 * @handle: the decoder's block, through dmb_alloc
 * @misc: /dev/dmb-vdec-<label>
 * @name: the misc device's name
 * @controller: index of the DRAM controller the block is on, or -1
 * @ctrl_label: its label
 * @ctrl_base: its first byte
 * @ctrl_end: first byte past it
 * @lock: protects @session
 * @session: the active session, or NULL
 */
struct vdec {
	struct kref ref;
	struct device *dev;
	struct dmb_handle *handle;
	struct miscdevice misc;
	char name[32];
	int controller;
	char ctrl_label[16];
	phys_addr_t ctrl_base;
	phys_addr_t ctrl_end;
	struct mutex lock;		/* protects @session */
	struct vdec_session *session;
};

static void vdec_free(struct kref *ref)
{
	struct vdec *vdec = container_of(ref, struct vdec, ref);

	dmb_handle_put(vdec->handle);
	put_device(vdec->dev);
	kfree(vdec);
}

/* Give back every buffer of a session; the caller holds vdec->lock */
static void vdec_session_end(struct vdec *vdec)
{
	struct vdec_session *s = vdec->session;
	unsigned int i;

	for (i = 0; i < s->count; i++)
		WARN_ON_ONCE(dmb_release(vdec->handle, s->pages[i], s->sizes[i]));
	vdec->session = NULL;
	kfree(s);
}

static long vdec_start(struct vdec *vdec, struct file *file,
		       struct dmb_vdec_start __user *uarg)
{
	struct dmb_vdec_start arg;
	struct vdec_session *s;
	u64 offset = 0, total = 0, t0;
	unsigned int i;
	long ret;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	if (!arg.count || arg.count > DMB_VDEC_MAX_BUFS || arg.flags)
		return -EINVAL;
	for (i = 0; i < arg.count; i++) {
		if (!arg.sizes[i] || arg.sizes[i] > dmb_handle_size(vdec->handle))
			return -EINVAL;
		total += PAGE_ALIGN(arg.sizes[i]);
	}
	if (total > dmb_handle_size(vdec->handle))
		return -EINVAL;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_lock(&vdec->lock);
	if (vdec->session) {
		ret = -EBUSY;
		goto free_session;
	}
	s->owner = file;
	t0 = ktime_get_ns();
	for (i = 0; i < arg.count; i++) {
		struct page *page = dmb_alloc(vdec->handle, arg.sizes[i], 0,
					      GFP_KERNEL | __GFP_NOWARN);

		if (IS_ERR(page)) {
			ret = PTR_ERR(page);
			goto release;
		}
		s->pages[i] = page;
		s->sizes[i] = PAGE_ALIGN(arg.sizes[i]);
		s->offsets[i] = offset;
		offset += s->sizes[i];
		s->count = i + 1;
	}
	s->claim_ns = ktime_get_ns() - t0;
	vdec->session = s;
	mutex_unlock(&vdec->lock);
	return 0;

release:
	/* unwind in reverse: what was claimed goes back */
	while (i--)
		dmb_release(vdec->handle, s->pages[i], s->sizes[i]);
free_session:
	mutex_unlock(&vdec->lock);
	kfree(s);
	return ret;
}

static long vdec_query(struct vdec *vdec, struct dmb_vdec_query __user *uarg)
{
	struct dmb_vdec_query q = {};
	struct vdec_session *s;
	unsigned int i;

	q.controller = vdec->controller;
	strscpy(q.controller_label, vdec->ctrl_label, sizeof(q.controller_label));
	q.dmb_base = dmb_handle_base(vdec->handle);
	q.dmb_size = dmb_handle_size(vdec->handle);
	mutex_lock(&vdec->lock);
	s = vdec->session;
	if (s) {
		q.count = s->count;
		q.claim_ns = s->claim_ns;
		for (i = 0; i < s->count; i++) {
			q.bufs[i].phys = page_to_phys(s->pages[i]);
			q.bufs[i].size = s->sizes[i];
			q.bufs[i].offset = s->offsets[i];
		}
	}
	mutex_unlock(&vdec->lock);
	return copy_to_user(uarg, &q, sizeof(q)) ? -EFAULT : 0;
}

/* Is the buffer what the hardware needs: contiguous, in the block, on its controller? */
static bool vdec_buffer_ok(struct vdec *vdec, struct page *page, size_t size)
{
	phys_addr_t base = dmb_handle_base(vdec->handle);
	phys_addr_t pa = page_to_phys(page);
	unsigned long i, pfn = page_to_pfn(page);

	for (i = 1; i < size >> PAGE_SHIFT; i++)
		if (page_to_pfn(nth_page(page, i)) != pfn + i)
			return false;
	if (pa < base || pa + size > base + dmb_handle_size(vdec->handle))
		return false;
	return vdec->controller < 0 ||
	       (pa >= vdec->ctrl_base && pa + size <= vdec->ctrl_end);
}

static long vdec_decode(struct vdec *vdec, struct file *file,
			struct dmb_vdec_decode __user *uarg)
{
	struct dmb_vdec_decode arg;
	struct vdec_session *s;
	unsigned int b;
	long ret = 0;

	if (copy_from_user(&arg, uarg, sizeof(arg)))
		return -EFAULT;
	mutex_lock(&vdec->lock);
	s = vdec->session;
	if (!s || s->owner != file) {
		ret = -EINVAL;
		goto out;
	}
	arg.checked = 0;
	for (b = 0; b < s->count; b++) {
		u32 *words = page_address(s->pages[b]);
		size_t i, n = s->sizes[b] / sizeof(u32);

		if (!vdec_buffer_ok(vdec, s->pages[b], s->sizes[b])) {
			dev_err(vdec->dev, "buffer %u at %pa is not where the decoder can use it\n",
				b, &(phys_addr_t){ page_to_phys(s->pages[b]) });
			ret = -EIO;
			goto out;
		}
		arg.checked++;
		/* the "DMA" of the decoder writes the frame */
		for (i = 0; i < n; i++) {
			words[i] = arg.seed ^ (b << 24) ^ (u32)i;
			if (!(i & 0xfffff) && fatal_signal_pending(current)) {
				ret = -EINTR;
				goto out;
			}
		}
	}
out:
	mutex_unlock(&vdec->lock);
	/* not under vdec->lock: a fault takes mmap_lock, which mmap() holds */
	if (!ret && copy_to_user(uarg, &arg, sizeof(arg)))
		ret = -EFAULT;
	return ret;
}

static long vdec_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vdec *vdec = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case DMB_VDEC_START:
		return vdec_start(vdec, file, uarg);
	case DMB_VDEC_STOP:
		mutex_lock(&vdec->lock);
		if (!vdec->session || vdec->session->owner != file)
			ret = -EINVAL;
		else if (atomic_read(&vdec->session->maps))
			ret = -EBUSY;	/* userspace still maps the frames */
		else
			ret = 0;
		if (!ret)
			vdec_session_end(vdec);
		mutex_unlock(&vdec->lock);
		return ret;
	case DMB_VDEC_QUERY:
		return vdec_query(vdec, uarg);
	case DMB_VDEC_DECODE:
		return vdec_decode(vdec, file, uarg);
	default:
		return -ENOTTY;
	}
}

static void vdec_vma_open(struct vm_area_struct *vma)
{
	struct vdec_session *s = vma->vm_private_data;

	atomic_inc(&s->maps);
}

static void vdec_vma_close(struct vm_area_struct *vma)
{
	struct vdec_session *s = vma->vm_private_data;

	atomic_dec(&s->maps);
}

static const struct vm_operations_struct vdec_vm_ops = {
	.open = vdec_vma_open,
	.close = vdec_vma_close,
};

static int vdec_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vdec *vdec = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	struct vdec_session *s;
	unsigned int b;
	int ret = -EINVAL;

	mutex_lock(&vdec->lock);
	s = vdec->session;
	if (!s || s->owner != file)
		goto out;
	for (b = 0; b < s->count; b++) {
		if (off < s->offsets[b] || off + len > s->offsets[b] + s->sizes[b])
			continue;
		ret = remap_pfn_range(vma, vma->vm_start,
				      page_to_pfn(s->pages[b]) +
				      ((off - s->offsets[b]) >> PAGE_SHIFT),
				      len, vma->vm_page_prot);
		if (!ret) {
			vma->vm_private_data = s;
			vma->vm_ops = &vdec_vm_ops;
			vdec_vma_open(vma);
		}
		break;
	}
out:
	mutex_unlock(&vdec->lock);
	return ret;
}

static int vdec_open(struct inode *inode, struct file *file)
{
	struct vdec *vdec = container_of(file->private_data, struct vdec, misc);

	kref_get(&vdec->ref);
	file->private_data = vdec;
	return 0;
}

static int vdec_release(struct inode *inode, struct file *file)
{
	struct vdec *vdec = file->private_data;

	/* the last close: no mapping of this file is left */
	mutex_lock(&vdec->lock);
	if (vdec->session && vdec->session->owner == file)
		vdec_session_end(vdec);
	mutex_unlock(&vdec->lock);
	kref_put(&vdec->ref, vdec_free);
	return 0;
}

static const struct file_operations vdec_fops = {
	.owner = THIS_MODULE,
	.open = vdec_open,
	.release = vdec_release,
	.unlocked_ioctl = vdec_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = vdec_mmap,
};

/* Which of the board's /dram-controllers holds the block? */
static void vdec_find_controller(struct vdec *vdec)
{
	phys_addr_t base = dmb_handle_base(vdec->handle);
	struct device_node *ctrls, *np;
	struct resource res;
	const char *label;
	int i = 0;

	vdec->controller = -1;
	strscpy(vdec->ctrl_label, "unknown", sizeof(vdec->ctrl_label));
	ctrls = of_find_node_by_path("/dram-controllers");
	if (!ctrls)
		return;
	for_each_child_of_node(ctrls, np) {
		if (of_address_to_resource(np, 0, &res)) {
			/* not translatable to CPU addresses: read reg raw */
			const __be32 *reg = of_get_property(np, "reg", NULL);

			if (!reg)
				continue;
			res.start = of_read_number(reg, 2);
			res.end = res.start + of_read_number(reg + 2, 2) - 1;
		}
		if (base >= res.start && base <= res.end) {
			vdec->controller = i;
			vdec->ctrl_base = res.start;
			vdec->ctrl_end = res.end + 1;
			if (!of_property_read_string(np, "label", &label))
				strscpy(vdec->ctrl_label, label,
					sizeof(vdec->ctrl_label));
			of_node_put(np);
			break;
		}
		i++;
	}
	of_node_put(ctrls);
}

static int vdec_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	const char *label = NULL;
	struct vdec *vdec;
	int ret;

	vdec = kzalloc(sizeof(*vdec), GFP_KERNEL);
	if (!vdec)
		return -ENOMEM;
	kref_init(&vdec->ref);
	mutex_init(&vdec->lock);
	vdec->dev = get_device(dev);
	vdec->handle = dmb_handle_get_by_name(dev, "frames");
	if (IS_ERR(vdec->handle)) {
		ret = dev_err_probe(dev, PTR_ERR(vdec->handle),
				    "no Designated Movable Block for the frames\n");
		vdec->handle = NULL;
		goto put;
	}
	vdec_find_controller(vdec);

	of_property_read_string(dev->of_node, "label", &label);
	snprintf(vdec->name, sizeof(vdec->name), "dmb-vdec-%s",
		 label ?: dev_name(dev));
	vdec->misc.minor = MISC_DYNAMIC_MINOR;
	vdec->misc.name = vdec->name;
	vdec->misc.fops = &vdec_fops;
	vdec->misc.mode = 0600;
	vdec->misc.parent = dev;
	ret = misc_register(&vdec->misc);
	if (ret)
		goto put;
	platform_set_drvdata(pdev, vdec);
	dev_info(dev, "/dev/%s: frames from a %llu MiB block at %pa on %s\n",
		 vdec->name, (u64)dmb_handle_size(vdec->handle) >> 20,
		 &(phys_addr_t){ dmb_handle_base(vdec->handle) }, vdec->ctrl_label);
	return 0;

put:
	kref_put(&vdec->ref, vdec_free);
	return ret;
}

static void vdec_remove(struct platform_device *pdev)
{
	struct vdec *vdec = platform_get_drvdata(pdev);

	/*
	 * Open files keep the decoder, and their buffers, until they are
	 * closed: the frames may still be mapped.
	 */
	misc_deregister(&vdec->misc);
	kref_put(&vdec->ref, vdec_free);
}

static const struct of_device_id vdec_of_match[] = {
	{ .compatible = "dmb-test,video-decoder" },
	{ /* sentinel */ }
};
MODULE_DEVICE_TABLE(of, vdec_of_match);

static struct platform_driver vdec_driver = {
	.probe = vdec_probe,
	.remove = vdec_remove,
	.driver = {
		.name = "dmb-vdec",
		.of_match_table = vdec_of_match,
	},
};
module_platform_driver(vdec_driver);

MODULE_DESCRIPTION("Sample video decoder with frame buffers in a Designated Movable Block");
MODULE_LICENSE("GPL");
