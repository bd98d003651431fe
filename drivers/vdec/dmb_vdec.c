// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_vdec - a sample video decoder on a Designated Movable Block
 *
 * An emulated decoder without an IOMMU: when playback starts it claims its
 * frame buffers, physically contiguous, from the block its device tree node
 * references (its one memory-region), on the DRAM controller it is
 * attached to; when playback stops it gives them back and user pages use
 * that memory again.  "Decoding" writes a known pattern into each buffer
 * through the kernel's mapping, as the decoder's DMA would, after checking
 * that the buffer is inside the block and on the right controller;
 * userspace reads the frames back through mmap().
 *
 * One misc device per decoder, /dev/dmb-vdec-<label>, mode 0600: only root
 * opens it (a real decoder node would be group "video" through udev; a
 * file descriptor passed on delegates the right to use it).  The
 * interface is include/uapi/linux/dmb_vdec.h, described in
 * docs/userspace-api/dmb_vdec.rst.
 *
 * Lifetime.  A session belongs to the file that started it: STOP, the
 * last close of that file, or the unbinding of the device ends it.  A
 * mapping never reaches a buffer that went back to the block: its pages
 * are inserted at fault time under @lock, only while the session holds
 * them; ending a session marks it released under @lock, then zaps every
 * mapping of the file, then gives the buffers back (later accesses get
 * SIGBUS).  STOP also refuses while a mapping is counted (-EBUSY), and
 * close cannot happen while one exists (it holds the file).  The session
 * structure itself lives as long as a mapping refers to it.  After
 * unbinding, every call on a file still open fails with -ENODEV.
 *
 * Locking.  @op_lock serialises what starts, runs and ends sessions
 * (START, DECODE, STOP, close, unbind); it can be held for seconds while
 * claims migrate user data, so it is taken killably where a caller can
 * give up.  @lock is short: it guards the session pointer, its released
 * flag and the dead flag for mmap() and page faults, which run under the
 * caller's mmap_lock and so must never wait for a claim, and for INFO and
 * BUF.  Order: op_lock, then lock; mmap_lock, then lock.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/dmb.h>
#include <linux/dmb_alloc.h>
#include <linux/fs.h>
#include <linux/highmem.h>
#include <linux/kref.h>
#include <linux/ktime.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nospec.h>
#include <linux/of.h>
#include <linux/of_address.h>
#include <linux/platform_device.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/linux/dmb_vdec.h>

/* Buffers one session may claim (reported in dmb_vdec_info.max_bufs) */
#define VDEC_MAX_BUFS	64
/* Past this, START claims no further buffer (-EBUSY) */
#define VDEC_START_MAX_NS	(10 * NSEC_PER_SEC)

/**
 * struct vdec_buf - one claimed buffer
 * @page: its first page
 * @size: bytes, page aligned
 * @offset: its mmap() offset
 */
struct vdec_buf {
	struct page *page;
	size_t size;
	u64 offset;
};

/**
 * struct vdec_session - buffers claimed by one file
 * @ref: held by the decoder while the session runs and by every mapping
 * @owner: the file that started it
 * @released: the session ended: faults get SIGBUS (set under vdec->lock)
 * @maps: live mappings of the buffers
 * @claim_ns: time the claim took
 * @run: the one run of the block that holds every buffer, or NULL when
 *	they were claimed one by one
 * @run_size: its bytes, the buffers' sizes added
 * @count: buffers (all claimed once the session is published)
 * @bufs: the buffers, one after the other in @run if there is one
 */
struct vdec_session {
	struct kref ref;
	struct file *owner;
	bool released;
	atomic_t maps;
	u64 claim_ns;
	struct page *run;
	size_t run_size;
	unsigned int count;
	struct vdec_buf bufs[] __counted_by(count);
};

/**
 * struct vdec_prep - buffers being claimed ahead of START (PREPARE)
 * @owner: the file that asked
 * @sizes: the buffers' sizes, as PREPARE got them
 * @count: how many
 * @prep: the prepared claim of their one run, NULL once committed
 */
struct vdec_prep {
	struct file *owner;
	u64 *sizes;
	unsigned int count;
	struct dmb_prep *prep;
};

/**
 * struct vdec - one decoder
 * @ref: held by the bound device and by every open file
 * @dev: the platform device
 * @handle: the decoder's block, through dmb_alloc; NULL once unbound
 * @misc: /dev/dmb-vdec-<label>
 * @name: the misc device's name
 * @controller: index of the DRAM controller the block is on, or -1
 * @ctrl_label: its label
 * @ctrl_base: its first byte
 * @ctrl_end: first byte past it
 * @dmb_base: the block's first byte
 * @dmb_size: the block's size
 * @op_lock: serialises starting, decoding and ending sessions
 * @lock: protects @session and @dead; never held across a claim
 * @session: the active session, or NULL
 * @prep: buffers being prepared, or NULL; written under both locks
 * @dead: the device was unbound
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
	phys_addr_t dmb_base;
	phys_addr_t dmb_size;
	struct mutex op_lock;		/* starts, decodes, ends sessions */
	struct mutex lock;		/* protects @session, @dead */
	struct vdec_session *session;
	struct vdec_prep *prep;
	bool dead;
};

static void vdec_free(struct kref *ref)
{
	struct vdec *vdec = container_of(ref, struct vdec, ref);

	dmb_handle_put(vdec->handle);
	put_device(vdec->dev);
	kfree(vdec);
}

static void vdec_session_free(struct kref *ref)
{
	kfree(container_of(ref, struct vdec_session, ref));
}

/*
 * Give the session's buffers back to the block: its run, or the first
 * @count buffers when they were claimed one by one
 */
static void vdec_release_bufs(struct vdec *vdec, struct vdec_session *s,
			      unsigned int count)
{
	if (s->run) {
		WARN_ON_ONCE(dmb_release(vdec->handle, s->run, s->run_size));
		s->run = NULL;
		return;
	}
	while (count--)
		WARN_ON_ONCE(dmb_release(vdec->handle, s->bufs[count].page,
					 s->bufs[count].size));
}

/* Bytes of the one run that holds buffers of these sizes */
static size_t vdec_run_size(const u64 *sizes, unsigned int count)
{
	size_t total = 0;

	while (count--)
		total += PAGE_ALIGN(sizes[count]);
	return total;
}

/*
 * End the session: unpublish it, revoke what userspace still maps (only
 * at unbind: STOP refuses while mapped and close cannot happen), give the
 * buffers back.  The caller holds op_lock.
 */
static void vdec_session_end(struct vdec *vdec)
{
	struct vdec_session *s;

	lockdep_assert_held(&vdec->op_lock);
	mutex_lock(&vdec->lock);
	s = vdec->session;
	vdec->session = NULL;
	/* from now on a fault gets SIGBUS (vdec_fault() checks under lock) */
	if (s)
		s->released = true;
	mutex_unlock(&vdec->lock);
	if (!s)
		return;
	/*
	 * Pages are inserted at fault time only, under the lock: whatever
	 * was inserted before is zapped here, nothing is inserted after.
	 * Always: a mapping may be linked to the file after mmap() counted
	 * it, or counted after STOP looked.
	 */
	unmap_mapping_range(s->owner->f_mapping, 0, 0, 1);
	vdec_release_bufs(vdec, s, s->count);
	kref_put(&s->ref, vdec_session_free);
}

/* Cancel the prepared buffers, if any.  Holds op_lock. */
static void vdec_prep_cancel(struct vdec *vdec)
{
	struct vdec_prep *p;

	lockdep_assert_held(&vdec->op_lock);
	mutex_lock(&vdec->lock);
	p = vdec->prep;
	vdec->prep = NULL;
	mutex_unlock(&vdec->lock);
	if (!p)
		return;
	if (p->prep)
		dmb_alloc_cancel(p->prep);
	kfree(p->sizes);
	kfree(p);
}

/* The smallest size of each ioctl's structure userspace may pass */
static size_t vdec_size_ver0(unsigned int cmd)
{
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(DMB_VDEC_INFO):
		return DMB_VDEC_INFO_SIZE_VER0;
	case _IOC_NR(DMB_VDEC_START):
	case _IOC_NR(DMB_VDEC_PREPARE):
		return DMB_VDEC_START_SIZE_VER0;
	case _IOC_NR(DMB_VDEC_BUF):
		return DMB_VDEC_BUF_SIZE_VER0;
	case _IOC_NR(DMB_VDEC_DECODE):
		return DMB_VDEC_DECODE_SIZE_VER0;
	}
	return SIZE_MAX;
}

/*
 * Read an ioctl argument that may grow at its end: userspace passes the
 * size it was built with in the ioctl number, at least the first version's.
 * Bytes beyond what this driver knows must be zero (copy_struct_from_user()
 * gives -E2BIG); what an older, smaller structure lacks reads as zero.
 */
static int vdec_copy_in(void *karg, size_t ksize, unsigned int cmd,
			void __user *uarg)
{
	if (_IOC_SIZE(cmd) < vdec_size_ver0(cmd))
		return -EINVAL;
	return copy_struct_from_user(karg, ksize, uarg, _IOC_SIZE(cmd));
}

/* Write an ioctl result: no more than userspace has room for, zeroes beyond */
static int vdec_copy_out(void __user *uarg, unsigned int cmd,
			 const void *karg, size_t ksize)
{
	size_t usize = _IOC_SIZE(cmd);

	if (usize < vdec_size_ver0(cmd))
		return -EINVAL;
	if (copy_to_user(uarg, karg, min(usize, ksize)) ||
	    (usize > ksize && clear_user(uarg + ksize, usize - ksize)))
		return -EFAULT;
	return 0;
}

static_assert(sizeof(struct dmb_vdec_info) == DMB_VDEC_INFO_SIZE_VER0);
static_assert(sizeof(struct dmb_vdec_start) == DMB_VDEC_START_SIZE_VER0);
static_assert(sizeof(struct dmb_vdec_buf) == DMB_VDEC_BUF_SIZE_VER0);
static_assert(sizeof(struct dmb_vdec_decode) == DMB_VDEC_DECODE_SIZE_VER0);

/*
 * START's and PREPARE's argument: @arg and the buffer sizes (*@sizes, to
 * be freed), each of them and their sum within the block.
 */
static long vdec_start_args(struct vdec *vdec, unsigned int cmd,
			    void __user *uarg, struct dmb_vdec_start *arg,
			    u64 **sizes)
{
	u64 total = 0;
	unsigned int i;
	long ret;

	ret = vdec_copy_in(arg, sizeof(*arg), cmd, uarg);
	if (ret)
		return ret;
	if (arg->flags || arg->reserved || !arg->count ||
	    arg->count > VDEC_MAX_BUFS)
		return -EINVAL;
	*sizes = memdup_array_user(u64_to_user_ptr(arg->sizes_ptr), arg->count,
				   sizeof(**sizes));
	if (IS_ERR(*sizes))
		return PTR_ERR(*sizes);
	for (i = 0; i < arg->count; i++) {
		if (!(*sizes)[i] || (*sizes)[i] > vdec->dmb_size)
			break;
		total += PAGE_ALIGN((*sizes)[i]);
	}
	if (i < arg->count || total > vdec->dmb_size) {
		kfree(*sizes);
		return -EINVAL;
	}
	return 0;
}

/*
 * PREPARE: start claiming the buffers a START with the same sizes will
 * take, in the background; returns at once.  START then waits only for
 * what is left, STOP or close cancels.
 */
static long vdec_prepare(struct vdec *vdec, struct file *file,
			 unsigned int cmd, void __user *uarg)
{
	struct dmb_vdec_start arg;
	struct vdec_prep *p;
	u64 *sizes;
	long ret;

	ret = vdec_start_args(vdec, cmd, uarg, &arg, &sizes);
	if (ret)
		return ret;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p) {
		kfree(sizes);
		return -ENOMEM;
	}
	p->owner = file;
	p->sizes = sizes;
	p->count = arg.count;
	ret = mutex_lock_killable(&vdec->op_lock);
	if (ret)
		goto free;
	if (vdec->dead)
		ret = -ENODEV;
	else if (vdec->session || vdec->prep)
		ret = -EBUSY;
	if (ret)
		goto unlock;
	/* zeroed: a buffer may be mapped before anything decodes */
	p->prep = dmb_alloc_prepare(vdec->handle,
				    vdec_run_size(sizes, p->count), 0,
				    GFP_KERNEL, 0);
	if (IS_ERR(p->prep)) {
		ret = PTR_ERR(p->prep);
		goto unlock;
	}
	mutex_lock(&vdec->lock);
	vdec->prep = p;
	mutex_unlock(&vdec->lock);
	mutex_unlock(&vdec->op_lock);
	return 0;

unlock:
	mutex_unlock(&vdec->op_lock);
free:
	kfree(sizes);
	kfree(p);
	return ret;
}

/*
 * The run of a START's buffers, @size bytes: the prepared claim when
 * PREPARE asked for the same sizes (then @p is that preparation), else a
 * claim now.  One run for the whole session: the block is isolated,
 * drained and emptied once, and no buffer's claim moves pages another
 * buffer's claim has just moved.  A prepared claim is waited for until
 * @deadline (ktime ns): -EBUSY after it.
 */
static struct page *vdec_claim_run(struct vdec *vdec, struct vdec_prep *p,
				   size_t size, u64 deadline)
{
	struct page *page;

	if (!p)
		/* zeroed: a buffer may be mapped before anything decodes */
		return dmb_alloc(vdec->handle, size, 0, GFP_KERNEL, 0);
	while (!dmb_alloc_prepared(p->prep)) {
		if (fatal_signal_pending(current))
			return ERR_PTR(-EINTR);
		if (ktime_get_ns() > deadline)
			return ERR_PTR(-EBUSY);
		usleep_range(1000, 2000);
	}
	page = dmb_alloc_commit(p->prep);
	p->prep = NULL;
	return page;
}

static long vdec_start(struct vdec *vdec, struct file *file, unsigned int cmd,
		       void __user *uarg)
{
	struct dmb_vdec_start arg;
	struct vdec_session *s;
	struct vdec_prep *p = NULL;
	u64 offset = 0, t0, *sizes;
	struct page *run;
	unsigned int i;
	long ret;

	ret = vdec_start_args(vdec, cmd, uarg, &arg, &sizes);
	if (ret)
		return ret;

	s = kzalloc(struct_size(s, bufs, arg.count), GFP_KERNEL);
	if (!s) {
		ret = -ENOMEM;
		goto free_sizes;
	}
	kref_init(&s->ref);
	atomic_set(&s->maps, 0);
	s->owner = file;
	s->count = arg.count;

	/* claims take seconds: killable, and mmap() does not wait for them */
	ret = mutex_lock_killable(&vdec->op_lock);
	if (ret)
		goto free_session;
	if (vdec->dead) {
		ret = -ENODEV;
		goto unlock;
	}
	if (vdec->session || (vdec->prep && vdec->prep->owner != file)) {
		ret = -EBUSY;
		goto unlock;
	}
	/* this file's PREPARE: its claims if the sizes match, else cancelled */
	if (vdec->prep && vdec->prep->count == arg.count &&
	    !memcmp(vdec->prep->sizes, sizes, arg.count * sizeof(*sizes))) {
		mutex_lock(&vdec->lock);
		p = vdec->prep;
		vdec->prep = NULL;
		mutex_unlock(&vdec->lock);
	} else {
		vdec_prep_cancel(vdec);
	}
	for (i = 0; i < arg.count; i++) {
		s->bufs[i].size = PAGE_ALIGN(sizes[i]);
		s->bufs[i].offset = offset;
		offset += s->bufs[i].size;
	}
	s->run_size = offset;
	t0 = ktime_get_ns();
	i = 0;
	/* dmb_alloc() itself gives up after its time budget (-EBUSY) */
	run = vdec_claim_run(vdec, p, s->run_size, t0 + VDEC_START_MAX_NS);
	if (!IS_ERR(run)) {
		s->run = run;
		for (i = 0; i < arg.count; i++)
			s->bufs[i].page = nth_page(run, s->bufs[i].offset >>
						   PAGE_SHIFT);
	} else if (PTR_ERR(run) == -EBUSY || PTR_ERR(run) == -ENOSPC) {
		/*
		 * No free run for the buffers together (a page held in the
		 * middle of the block, or a block with less room): one by
		 * one, within the same time budget for the whole START, as
		 * op_lock is held and close and unbind wait for it.
		 */
		for (i = 0; i < arg.count; i++) {
			struct page *page;

			if (ktime_get_ns() - t0 > VDEC_START_MAX_NS) {
				ret = -EBUSY;
				goto release;
			}
			page = dmb_alloc(vdec->handle, sizes[i], 0, GFP_KERNEL,
					 0);
			if (IS_ERR(page)) {
				ret = PTR_ERR(page);
				goto release;
			}
			s->bufs[i].page = page;
		}
	} else {
		ret = PTR_ERR(run);
		goto release;
	}
	s->claim_ns = ktime_get_ns() - t0;
	mutex_lock(&vdec->lock);
	vdec->session = s;
	mutex_unlock(&vdec->lock);
	mutex_unlock(&vdec->op_lock);
	if (p) {
		kfree(p->sizes);
		kfree(p);
	}
	kfree(sizes);
	return 0;

release:
	/* unwind in reverse: what was claimed one by one, what was prepared */
	vdec_release_bufs(vdec, s, i);
	if (p) {
		if (p->prep)
			dmb_alloc_cancel(p->prep);
		kfree(p->sizes);
		kfree(p);
	}
unlock:
	mutex_unlock(&vdec->op_lock);
free_session:
	kfree(s);
free_sizes:
	kfree(sizes);
	return ret;
}

static long vdec_stop(struct vdec *vdec, struct file *file)
{
	struct vdec_session *s;
	long ret;

	ret = mutex_lock_killable(&vdec->op_lock);
	if (ret)
		return ret;
	s = vdec->session;
	if (vdec->dead)
		ret = -ENODEV;
	else if (!s && vdec->prep && vdec->prep->owner == file)
		vdec_prep_cancel(vdec);	/* STOP before START: cancel PREPARE */
	else if (!s || s->owner != file)
		ret = -EINVAL;
	else if (atomic_read(&s->maps))
		ret = -EBUSY;	/* userspace still maps the frames */
	else
		vdec_session_end(vdec);
	mutex_unlock(&vdec->op_lock);
	return ret;
}

static long vdec_info(struct vdec *vdec, struct file *file, unsigned int cmd,
		      void __user *uarg)
{
	struct dmb_vdec_info info = {};
	struct vdec_session *s;

	info.controller = vdec->controller;
	strscpy(info.controller_label, vdec->ctrl_label,
		sizeof(info.controller_label));
	info.max_bufs = VDEC_MAX_BUFS;
	info.dmb_size = vdec->dmb_size;
	/* where memory is, as pagemap, only for the administrator */
	if (file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN)) {
		info.flags |= DMB_VDEC_INFO_BASE;
		info.dmb_base = vdec->dmb_base;
	}
	mutex_lock(&vdec->lock);
	if (vdec->dead) {
		mutex_unlock(&vdec->lock);
		return -ENODEV;
	}
	s = vdec->session;
	if (s) {
		info.flags |= DMB_VDEC_INFO_SESSION;
		if (s->owner == file)
			info.flags |= DMB_VDEC_INFO_OWNER;
		info.count = s->count;
		info.claim_ns = s->claim_ns;
	}
	mutex_unlock(&vdec->lock);
	/* not under a lock: the copy can fault, and faults take mmap_lock */
	return vdec_copy_out(uarg, cmd, &info, sizeof(info));
}

static long vdec_buf(struct vdec *vdec, struct file *file, unsigned int cmd,
		     void __user *uarg)
{
	struct dmb_vdec_buf arg;
	struct vdec_session *s;
	long ret;

	ret = vdec_copy_in(&arg, sizeof(arg), cmd, uarg);
	if (ret)
		return ret;
	if (arg.flags || arg.reserved || arg.size || arg.offset || arg.phys)
		return -EINVAL;
	mutex_lock(&vdec->lock);
	s = vdec->session;
	if (vdec->dead)
		ret = -ENODEV;
	else if (!s || s->owner != file || arg.index >= s->count)
		ret = -EINVAL;
	if (!ret) {
		/* a user index: no speculation past the bound */
		const struct vdec_buf *b =
			&s->bufs[array_index_nospec(arg.index, s->count)];

		arg.size = b->size;
		arg.offset = b->offset;
		if (file_ns_capable(file, &init_user_ns, CAP_SYS_ADMIN)) {
			arg.flags |= DMB_VDEC_BUF_PHYS;
			arg.phys = page_to_phys(b->page);
		}
	}
	mutex_unlock(&vdec->lock);
	return ret ?: vdec_copy_out(uarg, cmd, &arg, sizeof(arg));
}

/* Is the buffer where the hardware can reach it: in the block, on its controller? */
static bool vdec_buffer_ok(struct vdec *vdec, const struct vdec_buf *b)
{
	phys_addr_t pa = page_to_phys(b->page);

	/*
	 * dmb_alloc() hands out one run of page frames, so the buffer is
	 * physically contiguous by construction; what can still be wrong
	 * is where the run is.
	 */
	if (pa < vdec->dmb_base || pa + b->size > vdec->dmb_base + vdec->dmb_size)
		return false;
	return vdec->controller < 0 ||
	       (pa >= vdec->ctrl_base && pa + b->size <= vdec->ctrl_end);
}

/* The "DMA" of the decoder writes buffer @index of a frame */
static int vdec_decode_buf(const struct vdec_buf *b, unsigned int index,
			   u32 seed)
{
	unsigned long p, pages = b->size >> PAGE_SHIFT;
	const unsigned int per_page = PAGE_SIZE / sizeof(u32);
	unsigned int i;

	for (p = 0; p < pages; p++) {
		/* a claimed page may be highmem: map one at a time */
		u32 *words = kmap_local_page(nth_page(b->page, p));

		for (i = 0; i < per_page; i++)
			words[i] = seed ^ (index << 24) ^ (u32)(p * per_page + i);
		kunmap_local(words);
		if (!((p + 1) & 255)) {
			if (fatal_signal_pending(current))
				return -EINTR;
			cond_resched();
		}
	}
	return 0;
}

static long vdec_decode(struct vdec *vdec, struct file *file, unsigned int cmd,
			void __user *uarg)
{
	struct dmb_vdec_decode arg;
	struct vdec_session *s;
	unsigned int b;
	long ret;

	ret = vdec_copy_in(&arg, sizeof(arg), cmd, uarg);
	if (ret)
		return ret;
	if (arg.flags || arg.reserved)
		return -EINVAL;
	ret = mutex_lock_killable(&vdec->op_lock);
	if (ret)
		return ret;
	/* op_lock keeps the session: only its holders end one */
	s = vdec->session;
	if (vdec->dead) {
		ret = -ENODEV;
		goto out;
	}
	if (!s || s->owner != file) {
		ret = -EINVAL;
		goto out;
	}
	arg.checked = 0;
	for (b = 0; b < s->count; b++) {
		if (!vdec_buffer_ok(vdec, &s->bufs[b])) {
			dev_err(vdec->dev, "buffer %u at %pa is not where the decoder can use it\n",
				b, &(phys_addr_t){ page_to_phys(s->bufs[b].page) });
			ret = -EIO;
			goto out;
		}
		arg.checked++;
		ret = vdec_decode_buf(&s->bufs[b], b, arg.seed);
		if (ret)
			goto out;
	}
out:
	mutex_unlock(&vdec->op_lock);
	return ret ?: vdec_copy_out(uarg, cmd, &arg, sizeof(arg));
}

static long vdec_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct vdec *vdec = file->private_data;
	void __user *uarg = (void __user *)arg;

	/*
	 * Match type, number and direction; the size is the size of the
	 * structure userspace was built with, checked by the handlers.
	 */
	if (_IOC_TYPE(cmd) != DMB_VDEC_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(DMB_VDEC_INFO):
		if (_IOC_DIR(cmd) != _IOC_DIR(DMB_VDEC_INFO))
			return -ENOTTY;
		return vdec_info(vdec, file, cmd, uarg);
	case _IOC_NR(DMB_VDEC_START):
		if (_IOC_DIR(cmd) != _IOC_DIR(DMB_VDEC_START))
			return -ENOTTY;
		return vdec_start(vdec, file, cmd, uarg);
	case _IOC_NR(DMB_VDEC_STOP):
		if (cmd != DMB_VDEC_STOP)
			return -ENOTTY;
		return vdec_stop(vdec, file);
	case _IOC_NR(DMB_VDEC_BUF):
		if (_IOC_DIR(cmd) != _IOC_DIR(DMB_VDEC_BUF))
			return -ENOTTY;
		return vdec_buf(vdec, file, cmd, uarg);
	case _IOC_NR(DMB_VDEC_DECODE):
		if (_IOC_DIR(cmd) != _IOC_DIR(DMB_VDEC_DECODE))
			return -ENOTTY;
		return vdec_decode(vdec, file, cmd, uarg);
	case _IOC_NR(DMB_VDEC_PREPARE):
		if (_IOC_DIR(cmd) != _IOC_DIR(DMB_VDEC_PREPARE))
			return -ENOTTY;
		return vdec_prepare(vdec, file, cmd, uarg);
	default:
		return -ENOTTY;
	}
}

static void vdec_vma_open(struct vm_area_struct *vma)
{
	struct vdec_session *s = vma->vm_private_data;

	kref_get(&s->ref);
	atomic_inc(&s->maps);
}

static void vdec_vma_close(struct vm_area_struct *vma)
{
	struct vdec_session *s = vma->vm_private_data;

	atomic_dec(&s->maps);
	kref_put(&s->ref, vdec_session_free);
}

/*
 * Insert the page at fault time, under the short lock, and only while the
 * session holds its buffers: a mapping can never reach a page that went
 * back to the block.
 */
static vm_fault_t vdec_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct vdec_session *s = vma->vm_private_data;
	struct vdec *vdec = vma->vm_file->private_data;
	u64 off = (u64)vmf->pgoff << PAGE_SHIFT;
	vm_fault_t ret = VM_FAULT_SIGBUS;
	unsigned int i;

	mutex_lock(&vdec->lock);
	if (s->released || vdec->dead)
		goto out;
	for (i = 0; i < s->count; i++) {
		const struct vdec_buf *b = &s->bufs[i];

		if (off < b->offset || off >= b->offset + b->size)
			continue;
		ret = vmf_insert_pfn(vma, vmf->address, page_to_pfn(b->page) +
				     ((off - b->offset) >> PAGE_SHIFT));
		break;
	}
out:
	mutex_unlock(&vdec->lock);
	return ret;
}

static const struct vm_operations_struct vdec_vm_ops = {
	.open = vdec_vma_open,
	.close = vdec_vma_close,
	.fault = vdec_fault,
};

/*
 * Map part or all of one buffer, shared.  Runs under mmap_lock: takes only
 * the short lock, never op_lock, so no page fault of the process waits
 * for a claim.
 */
static int vdec_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct vdec *vdec = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	struct vdec_session *s;
	struct vdec_buf *b;
	unsigned int i;
	int ret = -EINVAL;

	/*
	 * A private mapping would copy frames on write, the device never
	 * sees.  VM_MAYSHARE: a shared mapping of a file opened read-only
	 * has no VM_SHARED.
	 */
	if (!(vma->vm_flags & VM_MAYSHARE))
		return -EINVAL;
	mutex_lock(&vdec->lock);
	s = vdec->session;
	if (vdec->dead) {
		ret = -ENODEV;
		goto out;
	}
	if (!s || s->owner != file)
		goto out;
	for (i = 0; i < s->count; i++) {
		b = &s->bufs[i];
		if (off < b->offset || off + len > b->offset + b->size)
			continue;
		/* pages come at fault time (vdec_fault()) */
		vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND |
			     VM_DONTDUMP);
		vma->vm_private_data = s;
		vma->vm_ops = &vdec_vm_ops;
		vdec_vma_open(vma);
		ret = 0;
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
	bool owner;

	/*
	 * The last close: no mapping of this file is left, and no call of
	 * it runs, so it cannot start a session meanwhile.  A file without
	 * the session must not wait for op_lock: another file's claim may
	 * hold it for seconds, and a killed process closes its files on
	 * its way out.
	 */
	mutex_lock(&vdec->lock);
	owner = (vdec->session && vdec->session->owner == file) ||
		(vdec->prep && vdec->prep->owner == file);
	mutex_unlock(&vdec->lock);
	if (owner) {
		mutex_lock(&vdec->op_lock);
		if (vdec->session && vdec->session->owner == file)
			vdec_session_end(vdec);
		if (vdec->prep && vdec->prep->owner == file)
			vdec_prep_cancel(vdec);
		mutex_unlock(&vdec->op_lock);
	}
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
	phys_addr_t base = vdec->dmb_base;
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
			const __be32 *reg;
			int len;

			reg = of_get_property(np, "reg", &len);
			/* two cells of address, two of size */
			if (!reg || len < 4 * (int)sizeof(*reg))
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
	mutex_init(&vdec->op_lock);
	mutex_init(&vdec->lock);
	vdec->dev = get_device(dev);
	/*
	 * The binding allows one memory-region; memory-region-names, if
	 * present, can only say "frames": take it by index.
	 */
	vdec->handle = dmb_handle_get(dev, 0);
	if (IS_ERR(vdec->handle)) {
		ret = dev_err_probe(dev, PTR_ERR(vdec->handle),
				    "no Designated Movable Block for the frames\n");
		vdec->handle = NULL;
		goto put;
	}
	vdec->dmb_base = dmb_handle_base(vdec->handle);
	vdec->dmb_size = dmb_handle_size(vdec->handle);
	vdec_find_controller(vdec);

	of_property_read_string(dev->of_node, "label", &label);
	snprintf(vdec->name, sizeof(vdec->name), "dmb-vdec-%s",
		 label ?: dev_name(dev));
	vdec->misc.minor = MISC_DYNAMIC_MINOR;
	vdec->misc.name = vdec->name;
	vdec->misc.fops = &vdec_fops;
	/* root only; see the comment at the top */
	vdec->misc.mode = 0600;
	vdec->misc.parent = dev;
	ret = misc_register(&vdec->misc);
	if (ret)
		goto put;
	platform_set_drvdata(pdev, vdec);
	dev_info(dev, "/dev/%s: frames from a %llu MiB block at %pa on %s\n",
		 vdec->name, (u64)vdec->dmb_size >> 20, &vdec->dmb_base,
		 vdec->ctrl_label);
	return 0;

put:
	kref_put(&vdec->ref, vdec_free);
	return ret;
}

static void vdec_remove(struct platform_device *pdev)
{
	struct vdec *vdec = platform_get_drvdata(pdev);

	misc_deregister(&vdec->misc);
	/*
	 * Files still open outlive the device: they see -ENODEV from now
	 * on.  Their session ends here, its mappings revoked, so that its
	 * buffers go back to the block and a rebound decoder finds it
	 * whole.
	 */
	mutex_lock(&vdec->op_lock);
	mutex_lock(&vdec->lock);
	vdec->dead = true;
	mutex_unlock(&vdec->lock);
	vdec_session_end(vdec);
	vdec_prep_cancel(vdec);
	dmb_handle_put(vdec->handle);
	vdec->handle = NULL;
	mutex_unlock(&vdec->op_lock);
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
