// SPDX-License-Identifier: GPL-2.0
/*
 * dmb_v4l2dec - a sample V4L2 stateful decoder whose buffers come from a
 * Designated Movable Block
 *
 * Based on drivers/media/test-drivers/vim2m.c (the mem2mem skeleton: a
 * v4l2_m2m context per file handle, queue setup, device lifetime through
 * the v4l2_device release) and drivers/media/test-drivers/vicodec/ (the
 * stateful decoder interface: FWHT on the OUTPUT queue, source change and
 * EOS events, VIDIOC_DECODER_CMD) of Linux 6.12.
 *
 * What it shows: the path a real decoder driver takes with a DMB.  The
 * platform device's memory-region is a designated-movable-block, probe
 * calls of_reserved_mem_device_init(), and both queues use
 * vb2_dma_contig_memops: VIDIOC_REQBUFS and VIDIOC_CREATE_BUFS allocate
 * from the block through the DMA API (the block's own CMA area), with no
 * DMB-specific code in the buffer path.  The memory is claimed when the
 * buffers are allocated and goes back to user pages when they are freed.
 *
 * The decode is emulated.  The OUTPUT queue takes FWHT (the kernel's test
 * codec) frames: a frame that starts with an FWHT header gives its coded
 * size (a new size raises V4L2_EVENT_SOURCE_CHANGE) and payload; the
 * payload is not decoded.  Every OUTPUT buffer yields one NV12 CAPTURE
 * frame holding a checkable pattern (struct dmb_v4l2dec_frame below): a
 * header with the sequence number and a checksum of the payload, then
 * words derived from both.
 *
 * /sys/kernel/debug/dmb_v4l2dec/<device>/buffers (root only) lists every
 * allocated buffer of every open context, one per line:
 *   <context> <out|cap> <index> <dma address> <bytes>
 * so that tests can check that each lies inside the DMB on the right DRAM
 * controller (DMA addresses are physical addresses on the QEMU board).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/debugfs.h>
#include <linux/dma-buf.h>
#include <linux/dmb_alloc.h>
#include <linux/dma-direct.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/of.h>
#include <linux/of_reserved_mem.h>
#include <linux/platform_device.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include <media/v4l2-ctrls.h>
#include <media/v4l2-device.h>
#include <media/v4l2-event.h>
#include <media/v4l2-ioctl.h>
#include <media/v4l2-mem2mem.h>
#include <media/videobuf2-dma-contig.h>
#include <media/videobuf2-memops.h>

#define DEC_NAME	"dmb_v4l2dec"
#define DEC_MIN_W	64
#define DEC_MIN_H	64
#define DEC_MAX_W	1920
#define DEC_MAX_H	1088
/* the largest buffer of either queue: a maximal FWHT frame and header */
#define DEC_MAX_SIZEIMAGE	(64 + DEC_MAX_W * DEC_MAX_H * 3 / 2)	/* header: 44 bytes */
#define DEC_MAX_BUFS	32
#define DEC_DEF_W	640
#define DEC_DEF_H	480
/* NV12 needs even sizes; 16 keeps lines aligned like real decoders */
#define DEC_ALIGN_LOG2	4

/* The FWHT frame header (drivers/media/test-drivers/vicodec/codec-fwht.h) */
#define FWHT_MAGIC1	0x4f4f4f4f
#define FWHT_MAGIC2	0xffffffff

struct fwht_hdr {
	u32 magic1;
	u32 magic2;
	__be32 version;
	__be32 width, height;
	__be32 flags;
	__be32 colorspace;
	__be32 xfer_func;
	__be32 ycbcr_enc;
	__be32 quantization;
	__be32 size;
};

/**
 * struct dmb_v4l2dec_frame - the head of every decoded (CAPTURE) frame
 * @magic:	DMB_V4L2DEC_MAGIC
 * @sequence:	the CAPTURE buffer's sequence number
 * @sum:	FNV-1a checksum of the OUTPUT payload it was "decoded" from
 * @bytes:	payload bytes
 *
 * Word i of the frame (i >= 4, counted in 32-bit words from the start of
 * the buffer) is (i * 2654435761) ^ (sequence * 0x9e3779b9) ^ sum.
 */
struct dmb_v4l2dec_frame {
	u32 magic;
	u32 sequence;
	u32 sum;
	u32 bytes;
};

#define DMB_V4L2DEC_MAGIC	0x44424d44	/* "DMBD" */

/**
 * struct dmb_v4l2dec - one decoder instance (one DT node)
 * @v4l2_dev:	its V4L2 device; the last reference frees the instance
 * @vfd:	the /dev/videoN node
 * @m2m_dev:	the mem2mem scheduler
 * @dev:	the platform device, the DMA device of every buffer
 * @lock:	the video device's lock (the ioctls other than the queues'),
 *		and guards @ctxs
 * @ctxs:	the open contexts, for the debugfs report
 * @dir:	its debugfs directory
 * @next_id:	the number of the next context
 * @rmem:	its memory-region is its DMA pool
 * @pool_base:	the memory-region's first byte (CPU physical address)
 * @pool_size:	its size
 * @live:	in dmb_v4l2dec_live while the instance exists
 * @handle:	a handle on the memory-region's DMB, for sessions that take
 *		their buffers with dmb_alloc(); NULL when the region is not a
 *		DMB
 */
struct dmb_v4l2dec {
	struct v4l2_device v4l2_dev;
	struct video_device vfd;
	struct v4l2_m2m_dev *m2m_dev;
	struct device *dev;
	struct mutex lock;		/* ioctls but the queues', @ctxs */
	struct list_head ctxs;
	struct dentry *dir;
	unsigned int next_id;
	bool rmem;
	phys_addr_t pool_base, pool_size;
	struct list_head live;
	struct dmb_handle *handle;
};

static bool use_dmb_alloc;
module_param(use_dmb_alloc, bool, 0644);
MODULE_PARM_DESC(use_dmb_alloc,
		 "sessions opened from now on take their MMAP buffers from runs claimed with dmb_alloc() instead of through the DMA API (default off)");

/*
 * Instances alive (files may keep one after its unbind): a device is
 * bound again only once its earlier instance is gone, as both would
 * share the device's memory-region assignment.
 */
static LIST_HEAD(dmb_v4l2dec_live);
static DEFINE_MUTEX(dmb_v4l2dec_live_lock);

/**
 * struct dmb_v4l2dec_ctx - one open file handle: one decoding session
 * @fh:		its V4L2 file handle (holds the m2m context)
 * @dec:	the decoder
 * @node:	in @dec->ctxs
 * @vb_mutex:	its queues' lock, and so of its queue ioctls: one session's
 *		REQBUFS, which may migrate hundreds of MiB, does not hold up
 *		another's
 * @hdl:	its controls
 * @id:		its number in the debugfs report
 * @out:	the OUTPUT (FWHT) format
 * @cap:	the CAPTURE (NV12) format
 * @out_seq:	sequence number of the next OUTPUT buffer
 * @cap_seq:	sequence number of the next CAPTURE buffer
 * @src_change:	a source change was signalled: no decoding until the
 *		CAPTURE queue is set up again (or V4L2_DEC_CMD_START)
 * @coded_w:	the coded size, from the stream's headers (from S_FMT on
 * @coded_h:	OUTPUT until a header says); the CAPTURE format follows it
 * @drain_kept:	a drain (V4L2_DEC_CMD_STOP) was under way when CAPTURE
 *		stopped for a size change: it goes on once CAPTURE streams
 * @drain_last:	the drain's last OUTPUT buffer then
 * @dmb:	its MMAP buffers come from runs claimed with dmb_alloc()
 *		(use_dmb_alloc when it was opened), not through the DMA API
 * @run:	the run its next buffers are carved from, or NULL
 * @want:	bytes the REQBUFS or CREATE_BUFS under way still allocates
 * @prep_lock:	guards @prep, @prep_bytes and @prep_until (the controls have
 *		their own lock: a control never waits for a REQBUFS)
 * @prep:	the claim V4L2_CID_DMB_V4L2DEC_PREPARE started, or NULL
 * @prep_bytes:	its size
 * @prep_until:	when @prep_expire cancels it if no request took it (jiffies)
 * @prep_expire: cancels a prepared claim no request took in DEC_PREP_HOLD
 */
struct dmb_v4l2dec_ctx {
	struct v4l2_fh fh;
	struct dmb_v4l2dec *dec;
	struct list_head node;
	struct mutex vb_mutex;		/* its queues */
	struct v4l2_ctrl_handler hdl;
	unsigned int id;
	struct v4l2_pix_format out;
	struct v4l2_pix_format cap;
	u32 out_seq;
	u32 cap_seq;
	bool src_change;
	u32 coded_w, coded_h;
	bool drain_kept;
	struct vb2_v4l2_buffer *drain_last;
	bool dmb;
	struct dmb_v4l2dec_run *run;
	size_t want;
	spinlock_t prep_lock;		/* @prep, @prep_bytes */
	struct dmb_prep *prep;
	size_t prep_bytes;
	unsigned long prep_until;
	struct delayed_work prep_expire;
};

static struct dentry *dmb_v4l2dec_root;

static struct dmb_v4l2dec_ctx *file2ctx(struct file *file)
{
	return container_of(file->private_data, struct dmb_v4l2dec_ctx, fh);
}

static void dmb_v4l2dec_fill_cap(const struct v4l2_pix_format *out,
				 struct v4l2_pix_format *pix);

/* The CAPTURE format for the stream's coded size */
static void dmb_v4l2dec_cap_fmt(struct dmb_v4l2dec_ctx *ctx,
				struct v4l2_pix_format *pix)
{
	struct v4l2_pix_format coded = ctx->out;

	coded.width = ctx->coded_w;
	coded.height = ctx->coded_h;
	dmb_v4l2dec_fill_cap(&coded, pix);
}

/* ---- formats ---------------------------------------------------------- */

static void dmb_v4l2dec_size(u32 *w, u32 *h)
{
	v4l_bound_align_image(w, DEC_MIN_W, DEC_MAX_W, DEC_ALIGN_LOG2,
			      h, DEC_MIN_H, DEC_MAX_H, DEC_ALIGN_LOG2, 0);
}

/* Fill in an OUTPUT (coded) format: width and height are the coded size */
static void dmb_v4l2dec_fill_out(struct v4l2_pix_format *pix)
{
	dmb_v4l2dec_size(&pix->width, &pix->height);
	pix->pixelformat = V4L2_PIX_FMT_FWHT;
	pix->field = V4L2_FIELD_NONE;
	pix->bytesperline = 0;
	/* room for one frame: the header and an uncompressed picture */
	pix->sizeimage = sizeof(struct fwht_hdr) + pix->width * pix->height * 3 / 2;
	if (pix->colorspace == V4L2_COLORSPACE_DEFAULT)
		pix->colorspace = V4L2_COLORSPACE_REC709;
	pix->flags = 0;
}

/* The CAPTURE (decoded) format follows the OUTPUT one */
static void dmb_v4l2dec_fill_cap(const struct v4l2_pix_format *out,
				 struct v4l2_pix_format *pix)
{
	pix->width = out->width;
	pix->height = out->height;
	pix->pixelformat = V4L2_PIX_FMT_NV12;
	pix->field = V4L2_FIELD_NONE;
	pix->bytesperline = out->width;
	pix->sizeimage = out->width * out->height * 3 / 2;
	pix->colorspace = out->colorspace;
	pix->xfer_func = out->xfer_func;
	pix->ycbcr_enc = out->ycbcr_enc;
	pix->quantization = out->quantization;
	pix->flags = 0;
}

static int dmb_v4l2dec_querycap(struct file *file, void *priv,
				struct v4l2_capability *cap)
{
	struct dmb_v4l2dec *dec = video_drvdata(file);

	strscpy(cap->driver, DEC_NAME, sizeof(cap->driver));
	strscpy(cap->card, dec->vfd.name, sizeof(cap->card));
	snprintf(cap->bus_info, sizeof(cap->bus_info), "platform:%s",
		 dev_name(dec->dev));
	return 0;
}

static int dmb_v4l2dec_enum_fmt_cap(struct file *file, void *priv,
				    struct v4l2_fmtdesc *f)
{
	if (f->index)
		return -EINVAL;
	f->pixelformat = V4L2_PIX_FMT_NV12;
	return 0;
}

static int dmb_v4l2dec_enum_fmt_out(struct file *file, void *priv,
				    struct v4l2_fmtdesc *f)
{
	if (f->index)
		return -EINVAL;
	f->pixelformat = V4L2_PIX_FMT_FWHT;
	f->flags = V4L2_FMT_FLAG_DYN_RESOLUTION;
	return 0;
}

static int dmb_v4l2dec_enum_framesizes(struct file *file, void *priv,
				       struct v4l2_frmsizeenum *fsize)
{
	if (fsize->index || (fsize->pixel_format != V4L2_PIX_FMT_FWHT &&
			     fsize->pixel_format != V4L2_PIX_FMT_NV12))
		return -EINVAL;
	fsize->type = V4L2_FRMSIZE_TYPE_STEPWISE;
	fsize->stepwise.min_width = DEC_MIN_W;
	fsize->stepwise.max_width = DEC_MAX_W;
	fsize->stepwise.step_width = 1 << DEC_ALIGN_LOG2;
	fsize->stepwise.min_height = DEC_MIN_H;
	fsize->stepwise.max_height = DEC_MAX_H;
	fsize->stepwise.step_height = 1 << DEC_ALIGN_LOG2;
	return 0;
}

static int dmb_v4l2dec_g_fmt_cap(struct file *file, void *priv,
				 struct v4l2_format *f)
{
	f->fmt.pix = file2ctx(file)->cap;
	return 0;
}

static int dmb_v4l2dec_g_fmt_out(struct file *file, void *priv,
				 struct v4l2_format *f)
{
	f->fmt.pix = file2ctx(file)->out;
	return 0;
}

/* A decoder's CAPTURE format comes from the stream: TRY/S_FMT return it */
static int dmb_v4l2dec_try_fmt_cap(struct file *file, void *priv,
				   struct v4l2_format *f)
{
	dmb_v4l2dec_cap_fmt(file2ctx(file), &f->fmt.pix);
	return 0;
}

static int dmb_v4l2dec_try_fmt_out(struct file *file, void *priv,
				   struct v4l2_format *f)
{
	dmb_v4l2dec_fill_out(&f->fmt.pix);
	return 0;
}

/*
 * The format and decoder-command ioctls run under the device lock, the
 * queue ioctls under the context's vb_mutex: these take vb_mutex too
 * (device lock first), so that REQBUFS, STREAMOFF and the queue ops
 * never see a format or a drain change under them.  They only try: a
 * REQBUFS of the same session may hold vb_mutex for seconds, and the
 * device lock, which every session's open and release take, must not
 * wait for it (the queue is busy then anyway).
 */
static int dmb_v4l2dec_s_fmt_cap(struct file *file, void *priv,
				 struct v4l2_format *f)
{
	struct dmb_v4l2dec_ctx *ctx = file2ctx(file);
	struct vb2_queue *vq;
	int ret = 0;

	if (!mutex_trylock(&ctx->vb_mutex))
		return -EBUSY;
	vq = v4l2_m2m_get_vq(ctx->fh.m2m_ctx, f->type);
	if (vb2_is_busy(vq)) {
		ret = -EBUSY;
	} else {
		dmb_v4l2dec_cap_fmt(ctx, &f->fmt.pix);
		ctx->cap = f->fmt.pix;
	}
	mutex_unlock(&ctx->vb_mutex);
	return ret;
}

static int dmb_v4l2dec_s_fmt_out(struct file *file, void *priv,
				 struct v4l2_format *f)
{
	struct dmb_v4l2dec_ctx *ctx = file2ctx(file);
	struct vb2_queue *vq;
	int ret = 0;

	if (!mutex_trylock(&ctx->vb_mutex))
		return -EBUSY;
	vq = v4l2_m2m_get_vq(ctx->fh.m2m_ctx, f->type);
	if (vb2_is_busy(vq)) {
		ret = -EBUSY;
		goto unlock;
	}
	dmb_v4l2dec_fill_out(&f->fmt.pix);
	ctx->out = f->fmt.pix;
	/* the decoded size follows the coded one until the stream says */
	vq = v4l2_m2m_get_vq(ctx->fh.m2m_ctx, V4L2_BUF_TYPE_VIDEO_CAPTURE);
	if (!vb2_is_busy(vq)) {
		ctx->coded_w = ctx->out.width;
		ctx->coded_h = ctx->out.height;
		dmb_v4l2dec_cap_fmt(ctx, &ctx->cap);
	}
unlock:
	mutex_unlock(&ctx->vb_mutex);
	return ret;
}

/*
 * V4L2_DEC_CMD_START also resumes decoding after a size change when the
 * client keeps its CAPTURE buffers (they must be large enough): the LAST
 * buffer already dequeued no longer ends the stream.
 */
static int __dmb_v4l2dec_decoder_cmd(struct file *file, void *priv,
				     struct v4l2_decoder_cmd *dc)
{
	struct dmb_v4l2dec_ctx *ctx = file2ctx(file);
	struct v4l2_m2m_ctx *m2m_ctx = ctx->fh.m2m_ctx;
	struct vb2_queue *cq = v4l2_m2m_get_dst_vq(m2m_ctx);
	int ret;

	ret = v4l2_m2m_ioctl_try_decoder_cmd(file, priv, dc);
	if (ret)
		return ret;
	/* a drain waits for CAPTURE to stream again (see stop_streaming) */
	if (ctx->drain_kept)
		return -EBUSY;
	/* resuming after a size change, also in the middle of a drain */
	if (dc->cmd == V4L2_DEC_CMD_START && ctx->src_change &&
	    vb2_is_streaming(cq)) {
		ctx->src_change = false;
		vb2_clear_last_buffer_dequeued(cq);
		v4l2_m2m_try_schedule(m2m_ctx);
		return 0;
	}
	ret = v4l2_m2m_ioctl_decoder_cmd(file, priv, dc);
	if (ret || dc->cmd != V4L2_DEC_CMD_START)
		return ret;
	if (vb2_is_streaming(cq))
		vb2_clear_last_buffer_dequeued(cq);
	v4l2_m2m_try_schedule(m2m_ctx);
	return 0;
}

static int dmb_v4l2dec_decoder_cmd(struct file *file, void *priv,
				   struct v4l2_decoder_cmd *dc)
{
	struct dmb_v4l2dec_ctx *ctx = file2ctx(file);
	int ret;

	if (!mutex_trylock(&ctx->vb_mutex))
		return -EBUSY;
	ret = __dmb_v4l2dec_decoder_cmd(file, priv, dc);
	mutex_unlock(&ctx->vb_mutex);
	return ret;
}

static int dmb_v4l2dec_g_selection(struct file *file, void *priv,
				   struct v4l2_selection *s)
{
	struct dmb_v4l2dec_ctx *ctx = file2ctx(file);

	if (s->type != V4L2_BUF_TYPE_VIDEO_CAPTURE)
		return -EINVAL;
	switch (s->target) {
	case V4L2_SEL_TGT_COMPOSE:
	case V4L2_SEL_TGT_COMPOSE_DEFAULT:
	case V4L2_SEL_TGT_COMPOSE_BOUNDS:
	case V4L2_SEL_TGT_COMPOSE_PADDED:
		s->r.left = 0;
		s->r.top = 0;
		s->r.width = ctx->cap.width;
		s->r.height = ctx->cap.height;
		return 0;
	default:
		return -EINVAL;
	}
}

static int dmb_v4l2dec_subscribe_event(struct v4l2_fh *fh,
				       const struct v4l2_event_subscription *sub)
{
	switch (sub->type) {
	case V4L2_EVENT_SOURCE_CHANGE:
		return v4l2_src_change_event_subscribe(fh, sub);
	case V4L2_EVENT_EOS:
		return v4l2_event_subscribe(fh, sub, 0, NULL);
	default:
		return v4l2_ctrl_subscribe_event(fh, sub);
	}
}

/* ---- the emulated decode ----------------------------------------------- */

static u32 dmb_v4l2dec_sum(const u8 *p, size_t len)
{
	u32 h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static const struct v4l2_event dmb_v4l2dec_eos = { .type = V4L2_EVENT_EOS };

static void dmb_v4l2dec_source_change(struct dmb_v4l2dec_ctx *ctx)
{
	static const struct v4l2_event ev = {
		.type = V4L2_EVENT_SOURCE_CHANGE,
		.u.src_change.changes = V4L2_EVENT_SRC_CH_RESOLUTION,
	};

	ctx->src_change = true;
	/* G_FMT on CAPTURE now says what the stream needs */
	dmb_v4l2dec_cap_fmt(ctx, &ctx->cap);
	v4l2_event_queue_fh(&ctx->fh, &ev);
}

/*
 * Read the FWHT header of an OUTPUT buffer, if it has one: the coded size
 * and where the payload is.  Anything else is all payload.
 */
static void dmb_v4l2dec_parse(struct vb2_v4l2_buffer *src, const u8 *p,
			      size_t *off, size_t *len, u32 *w, u32 *h)
{
	size_t used = vb2_get_plane_payload(&src->vb2_buf, 0);
	const struct fwht_hdr *hdr = (const void *)p;

	*off = 0;
	*len = used;
	*w = 0;
	*h = 0;
	if (used < sizeof(*hdr) || hdr->magic1 != FWHT_MAGIC1 ||
	    hdr->magic2 != FWHT_MAGIC2)
		return;
	*off = sizeof(*hdr);
	*len = min_t(size_t, be32_to_cpu(hdr->size), used - sizeof(*hdr));
	*w = be32_to_cpu(hdr->width);
	*h = be32_to_cpu(hdr->height);
}

/*
 * The end of a sequence at a size change: the source change is signalled
 * (the new CAPTURE format in place, src_change set) before the empty
 * CAPTURE buffer flagged LAST is handed back, so a client that dequeues
 * it and resumes at once finds the change done.  The OUTPUT buffer that
 * holds the new size stays queued.
 */
static void dmb_v4l2dec_end_sequence(struct dmb_v4l2dec_ctx *ctx,
				     struct vb2_v4l2_buffer *dst)
{
	struct v4l2_m2m_ctx *m2m_ctx = ctx->fh.m2m_ctx;

	v4l2_m2m_dst_buf_remove(m2m_ctx);
	dmb_v4l2dec_source_change(ctx);
	vb2_set_plane_payload(&dst->vb2_buf, 0, 0);
	dst->field = V4L2_FIELD_NONE;
	dst->sequence = ctx->cap_seq++;
	dst->flags |= V4L2_BUF_FLAG_LAST;
	v4l2_m2m_buf_done(dst, VB2_BUF_STATE_DONE);
	v4l2_m2m_job_finish(ctx->dec->m2m_dev, m2m_ctx);
}

static void dmb_v4l2dec_device_run(void *priv)
{
	struct dmb_v4l2dec_ctx *ctx = priv;
	struct v4l2_m2m_ctx *m2m_ctx = ctx->fh.m2m_ctx;
	struct vb2_v4l2_buffer *src, *dst;
	struct dmb_v4l2dec_frame *frame;
	size_t off, len, words, i;
	u32 w, h, sum, mix, *out;
	const u8 *in;

	src = v4l2_m2m_next_src_buf(m2m_ctx);
	dst = v4l2_m2m_next_dst_buf(m2m_ctx);
	in = vb2_plane_vaddr(&src->vb2_buf, 0);
	out = vb2_plane_vaddr(&dst->vb2_buf, 0);
	if (!in || !out) {
		/* an imported dma-buf the CPU cannot map */
		dev_dbg(ctx->dec->dev, "buffer without a kernel mapping\n");
		goto error;
	}

	dmb_v4l2dec_parse(src, in, &off, &len, &w, &h);
	if (w && h && (w != ctx->cap.width || h != ctx->cap.height)) {
		u32 nw = w, nh = h;

		dmb_v4l2dec_size(&nw, &nh);
		if (nw == w && nh == h) {
			/*
			 * A new size: what was decoded before is returned,
			 * then an empty CAPTURE buffer flagged LAST ends the
			 * old sequence, and the client sets CAPTURE up
			 * again.  This frame stays queued for the new
			 * buffers; the OUTPUT format and buffers stay.
			 */
			ctx->coded_w = w;
			ctx->coded_h = h;
			dmb_v4l2dec_end_sequence(ctx, dst);
			return;
		}
		dev_dbg(ctx->dec->dev, "frame of %ux%u ignored\n", w, h);
		goto error;
	}

	if (vb2_plane_size(&dst->vb2_buf, 0) < ctx->cap.sizeimage) {
		/*
		 * Resumed (V4L2_DEC_CMD_START) with CAPTURE buffers too small
		 * for the new size: the change is signalled again, the frame
		 * waits for buffers that fit.
		 */
		dmb_v4l2dec_end_sequence(ctx, dst);
		return;
	}
	v4l2_m2m_src_buf_remove(m2m_ctx);
	v4l2_m2m_dst_buf_remove(m2m_ctx);
	sum = dmb_v4l2dec_sum(in + off, len);
	dst->sequence = ctx->cap_seq++;
	mix = dst->sequence * 0x9e3779b9u ^ sum;
	frame = (void *)out;
	frame->magic = DMB_V4L2DEC_MAGIC;
	frame->sequence = dst->sequence;
	frame->sum = sum;
	frame->bytes = len;
	words = ctx->cap.sizeimage / sizeof(u32);
	for (i = sizeof(*frame) / sizeof(u32); i < words; i++)
		out[i] = (u32)(i * 2654435761u) ^ mix;
	vb2_set_plane_payload(&dst->vb2_buf, 0, ctx->cap.sizeimage);
	dst->field = V4L2_FIELD_NONE;
	v4l2_m2m_buf_copy_metadata(src, dst, true);

	if (v4l2_m2m_is_last_draining_src_buf(m2m_ctx, src)) {
		v4l2_m2m_buf_done(src, VB2_BUF_STATE_DONE);
		v4l2_m2m_last_buffer_done(m2m_ctx, dst);
		v4l2_event_queue_fh(&ctx->fh, &dmb_v4l2dec_eos);
	} else {
		v4l2_m2m_buf_done(src, VB2_BUF_STATE_DONE);
		v4l2_m2m_buf_done(dst, VB2_BUF_STATE_DONE);
	}
	v4l2_m2m_job_finish(ctx->dec->m2m_dev, m2m_ctx);
	return;

error:
	src = v4l2_m2m_src_buf_remove(m2m_ctx);
	/*
	 * The last frame of a drain (V4L2_DEC_CMD_STOP) could not be
	 * decoded: the drain still ends, with an empty LAST buffer.
	 */
	if (v4l2_m2m_is_last_draining_src_buf(m2m_ctx, src)) {
		dst = v4l2_m2m_dst_buf_remove(m2m_ctx);
		if (dst) {
			vb2_set_plane_payload(&dst->vb2_buf, 0, 0);
			dst->field = V4L2_FIELD_NONE;
			dst->sequence = ctx->cap_seq++;
			v4l2_m2m_buf_done(src, VB2_BUF_STATE_ERROR);
			v4l2_m2m_last_buffer_done(m2m_ctx, dst);
			v4l2_event_queue_fh(&ctx->fh, &dmb_v4l2dec_eos);
			v4l2_m2m_job_finish(ctx->dec->m2m_dev, m2m_ctx);
			return;
		}
	}
	v4l2_m2m_buf_done(src, VB2_BUF_STATE_ERROR);
	v4l2_m2m_job_finish(ctx->dec->m2m_dev, m2m_ctx);
}

static int dmb_v4l2dec_job_ready(void *priv)
{
	struct dmb_v4l2dec_ctx *ctx = priv;

	return !ctx->src_change && !v4l2_m2m_has_stopped(ctx->fh.m2m_ctx);
}

static const struct v4l2_m2m_ops dmb_v4l2dec_m2m_ops = {
	.device_run	= dmb_v4l2dec_device_run,
	.job_ready	= dmb_v4l2dec_job_ready,
};

/* ---- buffers from dmb_alloc() (use_dmb_alloc) --------------------------- */

/*
 * A session opened with use_dmb_alloc takes its MMAP buffers with the
 * driver API instead of the DMA API: the first buffer of a REQBUFS or
 * CREATE_BUFS claims one run for all the buffers it asks for (queue_setup
 * says how many), and the buffers are carved out of the run in turn.  A
 * run is given back with dmb_release() when its last buffer goes (freed
 * by vb2, unmapped, its dma-bufs released) and the session no longer
 * carves from it.  dmb_alloc() zeroes the run and no part of it is carved
 * twice, so a buffer never shows what the pages held before.
 *
 * V4L2_CID_DMB_V4L2DEC_PREPARE lets an application start that claim before
 * it asks for buffers, as soon as it knows how much it will need (after
 * parsing the stream's header, say): writing N starts a claim of N MiB in
 * the background with dmb_alloc_prepare(), writing 0 cancels it.  The next
 * MMAP REQBUFS or CREATE_BUFS takes the prepared run with
 * dmb_alloc_commit() if everything it asks for fits, and what is left of
 * the run serves the following ones (the other queue's); otherwise the
 * prepared claim is cancelled and the request claims its own run, as it
 * does when the prepared claim failed.  Closing
 * the file cancels it too.  V4L2_CID_DMB_V4L2DEC_PREPARED (read-only,
 * volatile) says whether a prepared claim has finished migrating.  A
 * prepared claim that no request has taken DEC_PREP_HOLD after it started
 * is cancelled: an opener that never asks for buffers does not keep the
 * block.  Each write starts a migration, as each REQBUFS does; the node's
 * mode decides who may.
 *
 * The control IDs are private to this sample, in the range vivid uses for
 * its own (V4L2_CID_USER_BASE | 0xf000); a real driver would reserve a
 * range in include/uapi/linux/v4l2-controls.h and document its controls.
 *
 * The decode is emulated by the CPU through the kernel mapping, on a
 * machine (QEMU) whose caches are coherent: the memops' prepare and
 * finish only show where a real non-coherent device's syncs go.
 */
#define DEC_PREP_HOLD	(15 * HZ)
#define V4L2_CID_DMB_V4L2DEC_PREPARE	(V4L2_CID_USER_BASE | 0xf000)
#define V4L2_CID_DMB_V4L2DEC_PREPARED	(V4L2_CID_USER_BASE | 0xf001)

/**
 * struct dmb_v4l2dec_run - a run of the block claimed with dmb_alloc()
 * @dec:	the decoder; referenced until the run goes back
 * @pages:	its first page
 * @size:	its bytes
 * @used:	bytes carved into buffers so far
 * @refs:	one per buffer carved from it, one while its session carves
 */
struct dmb_v4l2dec_run {
	struct dmb_v4l2dec *dec;
	struct page *pages;
	size_t size, used;
	refcount_t refs;
};

/**
 * struct dmb_v4l2dec_buf - an MMAP buffer carved from a run
 * @run:	the run
 * @dev:	the device it is mapped for
 * @page:	its first page
 * @size:	its bytes (whole pages)
 * @dma_addr:	its address for the device
 * @refcount:	vb2's reference, one per mapping and one per dma-buf
 * @handler:	for vb2_common_vm_ops
 */
struct dmb_v4l2dec_buf {
	struct dmb_v4l2dec_run *run;
	struct device *dev;
	struct page *page;
	size_t size;
	dma_addr_t dma_addr;
	refcount_t refcount;
	struct vb2_vmarea_handler handler;
};

static void dmb_v4l2dec_run_put(struct dmb_v4l2dec_run *run)
{
	struct dmb_v4l2dec *dec;

	if (!run || !refcount_dec_and_test(&run->refs))
		return;
	dec = run->dec;
	dmb_release(dec->handle, run->pages, run->size);
	kfree(run);
	/* may free the instance, and with it the handle */
	v4l2_device_put(&dec->v4l2_dev);
}

/* The session stops carving from its run (vb_mutex held) */
static void dmb_v4l2dec_run_drop(struct dmb_v4l2dec_ctx *ctx)
{
	dmb_v4l2dec_run_put(ctx->run);
	ctx->run = NULL;
}

/*
 * A new run of @size bytes for the session, from its prepared claim when
 * that is large enough (vb_mutex held)
 */
static int dmb_v4l2dec_run_claim(struct dmb_v4l2dec_ctx *ctx, size_t size)
{
	struct dmb_v4l2dec *dec = ctx->dec;
	struct dmb_v4l2dec_run *run;
	struct dmb_prep *prep;
	struct page *pages;
	size_t prep_bytes;

	/* a run with no buffer left goes first: the new one may need it */
	if (ctx->run && refcount_read(&ctx->run->refs) == 1)
		dmb_v4l2dec_run_drop(ctx);
	run = kzalloc(sizeof(*run), GFP_KERNEL);
	if (!run)
		return -ENOMEM;
	spin_lock(&ctx->prep_lock);
	prep = ctx->prep;
	prep_bytes = ctx->prep_bytes;
	ctx->prep = NULL;
	spin_unlock(&ctx->prep_lock);
	pages = ERR_PTR(-ENOENT);
	if (prep && prep_bytes >= size) {
		pages = dmb_alloc_commit(prep);
		if (!IS_ERR(pages))
			size = prep_bytes;
	} else {
		dmb_alloc_cancel(prep);
	}
	/* a prepared claim that failed was only a head start: claim now */
	if (IS_ERR(pages) && PTR_ERR(pages) != -EINTR)
		pages = dmb_alloc(dec->handle, size, 0, GFP_KERNEL | __GFP_NOWARN, 0);
	if (IS_ERR(pages)) {
		kfree(run);
		return PTR_ERR(pages);
	}
	dmb_v4l2dec_run_drop(ctx);
	run->dec = dec;
	run->pages = pages;
	run->size = size;
	refcount_set(&run->refs, 1);
	v4l2_device_get(&dec->v4l2_dev);
	ctx->run = run;
	return 0;
}

static void dmb_v4l2dec_buf_release(void *buf_priv)
{
	struct dmb_v4l2dec_buf *buf = buf_priv;

	if (!refcount_dec_and_test(&buf->refcount))
		return;
	dma_unmap_page(buf->dev, buf->dma_addr, buf->size, DMA_BIDIRECTIONAL);
	dmb_v4l2dec_run_put(buf->run);
	kfree(buf);
}

/* vb2 allocates a buffer: carve it from the session's run (vb_mutex held) */
static void *dmb_v4l2dec_buf_alloc(struct vb2_buffer *vb, struct device *dev,
				   unsigned long size)
{
	struct dmb_v4l2dec_ctx *ctx = vb2_get_drv_priv(vb->vb2_queue);
	struct dmb_v4l2dec_run *run = ctx->run;
	struct dmb_v4l2dec_buf *buf;
	int ret;

	size = PAGE_ALIGN(size);
	if (!run || run->size - run->used < size) {
		ret = dmb_v4l2dec_run_claim(ctx, max_t(size_t, ctx->want, size));
		if (ret)
			return ERR_PTR(ret);
		run = ctx->run;
	}
	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return ERR_PTR(-ENOMEM);
	buf->page = nth_page(run->pages, run->used >> PAGE_SHIFT);
	buf->size = size;
	buf->dev = dev;
	/*
	 * Mapped for the device as it is: a bounce buffer (an address the
	 * device cannot reach) would defeat the point of the block.
	 */
	buf->dma_addr = dma_map_page_attrs(dev, buf->page, 0, size,
					   DMA_BIDIRECTIONAL,
					   DMA_ATTR_SKIP_CPU_SYNC);
	if (dma_mapping_error(dev, buf->dma_addr)) {
		kfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	if (dma_to_phys(dev, buf->dma_addr) != page_to_phys(buf->page)) {
		dma_unmap_page(dev, buf->dma_addr, size, DMA_BIDIRECTIONAL);
		kfree(buf);
		return ERR_PTR(-ENOMEM);
	}
	run->used += size;
	ctx->want -= min(ctx->want, size);
	refcount_inc(&run->refs);
	buf->run = run;
	refcount_set(&buf->refcount, 1);
	buf->handler.refcount = &buf->refcount;
	buf->handler.put = dmb_v4l2dec_buf_release;
	buf->handler.arg = buf;
	return buf;
}

static void *dmb_v4l2dec_buf_vaddr(struct vb2_buffer *vb, void *buf_priv)
{
	struct dmb_v4l2dec_buf *buf = buf_priv;

	return page_address(buf->page);
}

static void *dmb_v4l2dec_buf_cookie(struct vb2_buffer *vb, void *buf_priv)
{
	struct dmb_v4l2dec_buf *buf = buf_priv;

	return &buf->dma_addr;
}

static unsigned int dmb_v4l2dec_buf_num_users(void *buf_priv)
{
	struct dmb_v4l2dec_buf *buf = buf_priv;

	return refcount_read(&buf->refcount);
}

static void dmb_v4l2dec_buf_prepare_mem(void *buf_priv)
{
	struct dmb_v4l2dec_buf *buf = buf_priv;

	dma_sync_single_for_device(buf->dev, buf->dma_addr, buf->size,
				   DMA_BIDIRECTIONAL);
}

static void dmb_v4l2dec_buf_finish_mem(void *buf_priv)
{
	struct dmb_v4l2dec_buf *buf = buf_priv;

	dma_sync_single_for_cpu(buf->dev, buf->dma_addr, buf->size,
				DMA_BIDIRECTIONAL);
}

/* Map the buffer, or the part @vma->vm_pgoff and its size say, to userspace */
static int dmb_v4l2dec_buf_map(struct dmb_v4l2dec_buf *buf,
			       struct vm_area_struct *vma)
{
	unsigned long len = vma->vm_end - vma->vm_start;
	unsigned long off = vma->vm_pgoff;
	int ret;

	if (off >= buf->size >> PAGE_SHIFT ||
	    len > buf->size - (off << PAGE_SHIFT))
		return -EINVAL;
	ret = remap_pfn_range(vma, vma->vm_start, page_to_pfn(buf->page) + off,
			      len, vma->vm_page_prot);
	if (ret)
		return ret;
	vm_flags_set(vma, VM_DONTEXPAND | VM_DONTDUMP);
	vma->vm_private_data = &buf->handler;
	vma->vm_ops = &vb2_common_vm_ops;
	vma->vm_ops->open(vma);
	return 0;
}

static int dmb_v4l2dec_buf_mmap(void *buf_priv, struct vm_area_struct *vma)
{
	return dmb_v4l2dec_buf_map(buf_priv, vma);
}

/* ---- exported as dma-bufs (VIDIOC_EXPBUF) ---- */

static int dmb_v4l2dec_dmabuf_attach(struct dma_buf *dbuf,
				     struct dma_buf_attachment *attach)
{
	struct dmb_v4l2dec_buf *buf = dbuf->priv;
	struct sg_table *sgt;
	int ret;

	sgt = kzalloc(sizeof(*sgt), GFP_KERNEL);
	if (!sgt)
		return -ENOMEM;
	ret = sg_alloc_table(sgt, 1, GFP_KERNEL);
	if (ret) {
		kfree(sgt);
		return ret;
	}
	sg_set_page(sgt->sgl, buf->page, buf->size, 0);
	attach->priv = sgt;
	return 0;
}

static void dmb_v4l2dec_dmabuf_detach(struct dma_buf *dbuf,
				      struct dma_buf_attachment *attach)
{
	struct sg_table *sgt = attach->priv;

	sg_free_table(sgt);
	kfree(sgt);
}

static struct sg_table *
dmb_v4l2dec_dmabuf_map(struct dma_buf_attachment *attach,
		       enum dma_data_direction dir)
{
	struct sg_table *sgt = attach->priv;
	int ret;

	ret = dma_map_sgtable(attach->dev, sgt, dir, 0);
	return ret ? ERR_PTR(ret) : sgt;
}

static void dmb_v4l2dec_dmabuf_unmap(struct dma_buf_attachment *attach,
				     struct sg_table *sgt,
				     enum dma_data_direction dir)
{
	dma_unmap_sgtable(attach->dev, sgt, dir, 0);
}

static void dmb_v4l2dec_dmabuf_release(struct dma_buf *dbuf)
{
	dmb_v4l2dec_buf_release(dbuf->priv);
}

static int dmb_v4l2dec_dmabuf_vmap(struct dma_buf *dbuf, struct iosys_map *map)
{
	struct dmb_v4l2dec_buf *buf = dbuf->priv;

	iosys_map_set_vaddr(map, page_address(buf->page));
	return 0;
}

static int dmb_v4l2dec_dmabuf_mmap(struct dma_buf *dbuf,
				   struct vm_area_struct *vma)
{
	return dmb_v4l2dec_buf_map(dbuf->priv, vma);
}

static const struct dma_buf_ops dmb_v4l2dec_dmabuf_ops = {
	.attach		= dmb_v4l2dec_dmabuf_attach,
	.detach		= dmb_v4l2dec_dmabuf_detach,
	.map_dma_buf	= dmb_v4l2dec_dmabuf_map,
	.unmap_dma_buf	= dmb_v4l2dec_dmabuf_unmap,
	.vmap		= dmb_v4l2dec_dmabuf_vmap,
	.mmap		= dmb_v4l2dec_dmabuf_mmap,
	.release	= dmb_v4l2dec_dmabuf_release,
};

static struct dma_buf *dmb_v4l2dec_buf_get_dmabuf(struct vb2_buffer *vb,
						  void *buf_priv,
						  unsigned long flags)
{
	struct dmb_v4l2dec_buf *buf = buf_priv;
	DEFINE_DMA_BUF_EXPORT_INFO(exp_info);
	struct dma_buf *dbuf;

	exp_info.ops = &dmb_v4l2dec_dmabuf_ops;
	exp_info.size = buf->size;
	exp_info.flags = flags;
	exp_info.priv = buf;
	dbuf = dma_buf_export(&exp_info);
	if (!IS_ERR(dbuf))
		refcount_inc(&buf->refcount);
	return dbuf;
}

static const struct vb2_mem_ops dmb_v4l2dec_memops = {
	.alloc		= dmb_v4l2dec_buf_alloc,
	.put		= dmb_v4l2dec_buf_release,
	.get_dmabuf	= dmb_v4l2dec_buf_get_dmabuf,
	.prepare	= dmb_v4l2dec_buf_prepare_mem,
	.finish		= dmb_v4l2dec_buf_finish_mem,
	.vaddr		= dmb_v4l2dec_buf_vaddr,
	.cookie		= dmb_v4l2dec_buf_cookie,
	.num_users	= dmb_v4l2dec_buf_num_users,
	.mmap		= dmb_v4l2dec_buf_mmap,
};

/*
 * Writing the prepare control replaces the session's prepared claim: the
 * old one is cancelled (dmb_alloc_cancel() does not wait for a claim
 * under way), a new one starts unless the value is 0.
 */
static int dmb_v4l2dec_s_ctrl(struct v4l2_ctrl *ctrl)
{
	struct dmb_v4l2dec_ctx *ctx = container_of(ctrl->handler,
						   struct dmb_v4l2dec_ctx, hdl);
	size_t bytes = (size_t)ctrl->val << 20;
	struct dmb_prep *prep = NULL, *old;

	if (ctrl->id != V4L2_CID_DMB_V4L2DEC_PREPARE)
		return -EINVAL;
	if (bytes) {
		prep = dmb_alloc_prepare(ctx->dec->handle, bytes, 0,
					 GFP_KERNEL | __GFP_NOWARN, 0);
		if (IS_ERR(prep))
			return PTR_ERR(prep);
	}
	spin_lock(&ctx->prep_lock);
	old = ctx->prep;
	ctx->prep = prep;
	ctx->prep_bytes = bytes;
	ctx->prep_until = jiffies + DEC_PREP_HOLD;
	spin_unlock(&ctx->prep_lock);
	dmb_alloc_cancel(old);
	if (prep)
		mod_delayed_work(system_wq, &ctx->prep_expire, DEC_PREP_HOLD);
	return 0;
}

/* No request took the prepared claim in time: it goes */
static void dmb_v4l2dec_prep_expire(struct work_struct *work)
{
	struct dmb_v4l2dec_ctx *ctx = container_of(to_delayed_work(work),
						   struct dmb_v4l2dec_ctx,
						   prep_expire);
	struct dmb_prep *prep = NULL;
	long left = 0;

	spin_lock(&ctx->prep_lock);
	if (ctx->prep) {
		left = (long)(ctx->prep_until - jiffies);
		if (left <= 0) {
			prep = ctx->prep;
			ctx->prep = NULL;
		}
	}
	spin_unlock(&ctx->prep_lock);
	if (left > 0)	/* a newer one: its own time */
		mod_delayed_work(system_wq, &ctx->prep_expire, left);
	dmb_alloc_cancel(prep);
}

static int dmb_v4l2dec_g_volatile_ctrl(struct v4l2_ctrl *ctrl)
{
	struct dmb_v4l2dec_ctx *ctx = container_of(ctrl->handler,
						   struct dmb_v4l2dec_ctx, hdl);

	if (ctrl->id != V4L2_CID_DMB_V4L2DEC_PREPARED)
		return -EINVAL;
	spin_lock(&ctx->prep_lock);
	ctrl->val = ctx->prep && dmb_alloc_prepared(ctx->prep);
	spin_unlock(&ctx->prep_lock);
	return 0;
}

static const struct v4l2_ctrl_ops dmb_v4l2dec_ctrl_ops = {
	.s_ctrl			= dmb_v4l2dec_s_ctrl,
	.g_volatile_ctrl	= dmb_v4l2dec_g_volatile_ctrl,
};

/* The session's controls: the minimum CAPTURE count, the prepared claim */
static int dmb_v4l2dec_ctrls(struct dmb_v4l2dec_ctx *ctx)
{
	struct v4l2_ctrl_handler *hdl = &ctx->hdl;
	struct v4l2_ctrl_config prepare = {
		.ops	= &dmb_v4l2dec_ctrl_ops,
		.id	= V4L2_CID_DMB_V4L2DEC_PREPARE,
		.name	= "Prepare Buffer Memory, MiB",
		.type	= V4L2_CTRL_TYPE_INTEGER,
		.step	= 1,
		.flags	= V4L2_CTRL_FLAG_EXECUTE_ON_WRITE,
	};
	struct v4l2_ctrl_config prepared = {
		.ops	= &dmb_v4l2dec_ctrl_ops,
		.id	= V4L2_CID_DMB_V4L2DEC_PREPARED,
		.name	= "Buffer Memory Prepared",
		.type	= V4L2_CTRL_TYPE_BOOLEAN,
		.max	= 1,
		.step	= 1,
		.flags	= V4L2_CTRL_FLAG_READ_ONLY | V4L2_CTRL_FLAG_VOLATILE,
	};

	v4l2_ctrl_handler_init(hdl, 3);
	/* one decoded frame is enough: nothing is kept for reference */
	v4l2_ctrl_new_std(hdl, NULL, V4L2_CID_MIN_BUFFERS_FOR_CAPTURE,
			  1, 1, 1, 1);
	if (ctx->dmb) {
		prepare.max = dmb_handle_size(ctx->dec->handle) >> 20;
		v4l2_ctrl_new_custom(hdl, &prepare, NULL);
		v4l2_ctrl_new_custom(hdl, &prepared, NULL);
	}
	return hdl->error;
}

/* ---- queues ------------------------------------------------------------- */

/* Both memops give the buffer's dma_addr_t as its cookie */
static dma_addr_t dmb_v4l2dec_dma_addr(struct vb2_buffer *vb)
{
	dma_addr_t *addr = vb2_plane_cookie(vb, 0);

	return addr ? *addr : 0;
}

static int dmb_v4l2dec_queue_setup(struct vb2_queue *vq,
				   unsigned int *nbuffers,
				   unsigned int *nplanes, unsigned int sizes[],
				   struct device *alloc_devs[])
{
	struct dmb_v4l2dec_ctx *ctx = vb2_get_drv_priv(vq);
	unsigned int size = V4L2_TYPE_IS_OUTPUT(vq->type) ?
			    ctx->out.sizeimage : ctx->cap.sizeimage;

	/*
	 * CREATE_BUFS may ask for more than the format needs, never more
	 * than the largest frame: one opener must not take the whole block
	 * in one buffer, nor ask the page allocator for an impossible order.
	 */
	if (*nplanes) {
		if (*nplanes != 1 || sizes[0] < size ||
		    sizes[0] > DEC_MAX_SIZEIMAGE)
			return -EINVAL;
	} else {
		*nplanes = 1;
		sizes[0] = size;
	}
	/* with dmb_alloc(): one run for all the buffers asked for */
	ctx->want = (size_t)*nbuffers * PAGE_ALIGN(sizes[0]);
	return 0;
}

static int dmb_v4l2dec_buf_out_validate(struct vb2_buffer *vb)
{
	struct vb2_v4l2_buffer *vbuf = to_vb2_v4l2_buffer(vb);

	if (vbuf->field == V4L2_FIELD_ANY)
		vbuf->field = V4L2_FIELD_NONE;
	return vbuf->field == V4L2_FIELD_NONE ? 0 : -EINVAL;
}

/*
 * When the device's CMA area cannot serve an allocation, dma-direct falls
 * back to any free pages: a buffer outside the memory-region (on another
 * DRAM controller than the board wired this decoder to) is refused, not
 * used.  vb2 then stops allocating: REQBUFS and CREATE_BUFS return fewer
 * buffers than asked, or -ENOMEM if none.  The address is compared as
 * dma-direct maps it (dma_to_phys(): this decoder has no IOMMU).
 * Imported dma-bufs are the exporter's business.
 */
static int dmb_v4l2dec_buf_init(struct vb2_buffer *vb)
{
	struct dmb_v4l2dec_ctx *ctx = vb2_get_drv_priv(vb->vb2_queue);
	struct dmb_v4l2dec *dec = ctx->dec;
	phys_addr_t pa;

	if (!dec->pool_size || vb->memory != VB2_MEMORY_MMAP)
		return 0;
	pa = dma_to_phys(dec->dev, dmb_v4l2dec_dma_addr(vb));
	if (pa >= dec->pool_base &&
	    pa - dec->pool_base + vb2_plane_size(vb, 0) <= dec->pool_size)
		return 0;
	dev_warn_ratelimited(dec->dev,
			     "a buffer outside its memory-region (its CMA area could not serve it): refused\n");
	return -ENOMEM;
}

static int dmb_v4l2dec_buf_prepare(struct vb2_buffer *vb)
{
	struct dmb_v4l2dec_ctx *ctx = vb2_get_drv_priv(vb->vb2_queue);

	if (V4L2_TYPE_IS_OUTPUT(vb->type)) {
		if (vb2_plane_size(vb, 0) < ctx->out.sizeimage)
			return -EINVAL;
		return 0;
	}
	if (vb2_plane_size(vb, 0) < ctx->cap.sizeimage)
		return -EINVAL;
	/* empty until decoded into (an empty LAST buffer ends a drain) */
	vb2_set_plane_payload(vb, 0, 0);
	return 0;
}

static void dmb_v4l2dec_buf_queue(struct vb2_buffer *vb)
{
	struct dmb_v4l2dec_ctx *ctx = vb2_get_drv_priv(vb->vb2_queue);
	struct vb2_v4l2_buffer *vbuf = to_vb2_v4l2_buffer(vb);
	struct v4l2_m2m_ctx *m2m_ctx = ctx->fh.m2m_ctx;

	if (V4L2_TYPE_IS_OUTPUT(vb->type)) {
		vbuf->sequence = ctx->out_seq++;
		/*
		 * The first frame of a stream is where a decoder learns the
		 * picture size: with no CAPTURE queue yet, say so.
		 */
		if (!vb2_is_streaming(v4l2_m2m_get_dst_vq(m2m_ctx)) &&
		    !ctx->src_change) {
			const u8 *p = vb2_plane_vaddr(vb, 0);
			size_t off, len;
			u32 w = 0, h = 0, nw, nh;

			/* its header, when it has one, gives the size */
			if (p)
				dmb_v4l2dec_parse(vbuf, p, &off, &len, &w, &h);
			nw = w;
			nh = h;
			dmb_v4l2dec_size(&nw, &nh);
			if (w && h && nw == w && nh == h) {
				ctx->coded_w = w;
				ctx->coded_h = h;
			}
			dmb_v4l2dec_source_change(ctx);
		}
		v4l2_m2m_buf_queue(m2m_ctx, vbuf);
		return;
	}
	/* after V4L2_DEC_CMD_STOP with nothing left to decode */
	if (vb2_is_streaming(vb->vb2_queue) &&
	    v4l2_m2m_dst_buf_is_last(m2m_ctx)) {
		vb2_set_plane_payload(vb, 0, 0);
		vbuf->field = V4L2_FIELD_NONE;
		vbuf->sequence = ctx->cap_seq++;
		v4l2_m2m_last_buffer_done(m2m_ctx, vbuf);
		v4l2_event_queue_fh(&ctx->fh, &dmb_v4l2dec_eos);
		return;
	}
	v4l2_m2m_buf_queue(m2m_ctx, vbuf);
}

static int dmb_v4l2dec_start_streaming(struct vb2_queue *q, unsigned int count)
{
	struct dmb_v4l2dec_ctx *ctx = vb2_get_drv_priv(q);

	v4l2_m2m_update_start_streaming_state(ctx->fh.m2m_ctx, q);
	/* the client has set CAPTURE up for the new size */
	if (!V4L2_TYPE_IS_OUTPUT(q->type)) {
		ctx->src_change = false;
		if (ctx->drain_kept) {
			ctx->fh.m2m_ctx->is_draining = true;
			ctx->fh.m2m_ctx->last_src_buf = ctx->drain_last;
			ctx->drain_kept = false;
		}
	}
	return 0;
}

static void dmb_v4l2dec_stop_streaming(struct vb2_queue *q)
{
	struct dmb_v4l2dec_ctx *ctx = vb2_get_drv_priv(q);
	struct v4l2_m2m_ctx *m2m_ctx = ctx->fh.m2m_ctx;
	struct vb2_v4l2_buffer *vbuf;

	/*
	 * CAPTURE stops for a size change in the middle of a drain: the
	 * mem2mem state is cleared below, the drain must go on after it
	 * (the OUTPUT queue, and its last buffer, are untouched).
	 */
	if (!V4L2_TYPE_IS_OUTPUT(q->type) && ctx->src_change &&
	    m2m_ctx->is_draining) {
		ctx->drain_kept = true;
		ctx->drain_last = m2m_ctx->last_src_buf;
	}
	if (V4L2_TYPE_IS_OUTPUT(q->type))
		ctx->drain_kept = false;
	for (;;) {
		vbuf = V4L2_TYPE_IS_OUTPUT(q->type) ?
		       v4l2_m2m_src_buf_remove(m2m_ctx) :
		       v4l2_m2m_dst_buf_remove(m2m_ctx);
		if (!vbuf)
			break;
		v4l2_m2m_buf_done(vbuf, VB2_BUF_STATE_ERROR);
	}
	v4l2_m2m_update_stop_streaming_state(m2m_ctx, q);
	/*
	 * Sequence numbers restart with the stream (not in start_streaming:
	 * buffers queued before STREAMON are numbered before it is called).
	 */
	if (V4L2_TYPE_IS_OUTPUT(q->type))
		ctx->out_seq = 0;
	else
		ctx->cap_seq = 0;
	if (V4L2_TYPE_IS_OUTPUT(q->type)) {
		/* a new stream starts with its first frame's size */
		ctx->src_change = false;
		if (v4l2_m2m_has_stopped(m2m_ctx))
			v4l2_event_queue_fh(&ctx->fh, &dmb_v4l2dec_eos);
	}
}

static const struct vb2_ops dmb_v4l2dec_qops = {
	.queue_setup		= dmb_v4l2dec_queue_setup,
	.buf_out_validate	= dmb_v4l2dec_buf_out_validate,
	.buf_init		= dmb_v4l2dec_buf_init,
	.buf_prepare		= dmb_v4l2dec_buf_prepare,
	.buf_queue		= dmb_v4l2dec_buf_queue,
	.start_streaming	= dmb_v4l2dec_start_streaming,
	.stop_streaming		= dmb_v4l2dec_stop_streaming,
	.wait_prepare		= vb2_ops_wait_prepare,
	.wait_finish		= vb2_ops_wait_finish,
};

/*
 * Both queues allocate with vb2_dma_contig_memops on the platform device:
 * dma_alloc_attrs() from its memory-region, the DMB, with nothing here
 * that knows about DMBs; or, in a session opened with use_dmb_alloc, with
 * dmb_v4l2dec_memops from runs claimed with dmb_alloc().
 */
static int dmb_v4l2dec_queue_init(void *priv, struct vb2_queue *src_vq,
				  struct vb2_queue *dst_vq)
{
	struct dmb_v4l2dec_ctx *ctx = priv;
	struct vb2_queue *qs[] = { src_vq, dst_vq };
	unsigned int i;
	int ret;

	src_vq->type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	dst_vq->type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	for (i = 0; i < ARRAY_SIZE(qs); i++) {
		/* buffers of dmb_alloc() are exported, not imported */
		qs[i]->io_modes = ctx->dmb ? VB2_MMAP : VB2_MMAP | VB2_DMABUF;
		qs[i]->drv_priv = ctx;
		qs[i]->buf_struct_size = sizeof(struct v4l2_m2m_buffer);
		qs[i]->ops = &dmb_v4l2dec_qops;
		qs[i]->mem_ops = ctx->dmb ? &dmb_v4l2dec_memops :
					    &vb2_dma_contig_memops;
		qs[i]->timestamp_flags = V4L2_BUF_FLAG_TIMESTAMP_COPY;
		qs[i]->lock = &ctx->vb_mutex;
		qs[i]->dev = ctx->dec->dev;
		qs[i]->max_num_buffers = DEC_MAX_BUFS;
		ret = vb2_queue_init(qs[i]);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * With dmb_alloc(), a run no buffer is carved from any more goes back
 * after the request (queue lock held)
 */
static void dmb_v4l2dec_run_idle(struct dmb_v4l2dec_ctx *ctx)
{
	ctx->want = 0;
	if (ctx->run && refcount_read(&ctx->run->refs) == 1)
		dmb_v4l2dec_run_drop(ctx);
}

static int dmb_v4l2dec_reqbufs(struct file *file, void *priv,
			       struct v4l2_requestbuffers *rb)
{
	int ret = v4l2_m2m_ioctl_reqbufs(file, priv, rb);

	dmb_v4l2dec_run_idle(file2ctx(file));
	return ret;
}

static int dmb_v4l2dec_create_bufs(struct file *file, void *priv,
				   struct v4l2_create_buffers *create)
{
	int ret = v4l2_m2m_ioctl_create_bufs(file, priv, create);

	dmb_v4l2dec_run_idle(file2ctx(file));
	return ret;
}

static const struct v4l2_ioctl_ops dmb_v4l2dec_ioctl_ops = {
	.vidioc_querycap		= dmb_v4l2dec_querycap,

	.vidioc_enum_fmt_vid_cap	= dmb_v4l2dec_enum_fmt_cap,
	.vidioc_g_fmt_vid_cap		= dmb_v4l2dec_g_fmt_cap,
	.vidioc_try_fmt_vid_cap		= dmb_v4l2dec_try_fmt_cap,
	.vidioc_s_fmt_vid_cap		= dmb_v4l2dec_s_fmt_cap,

	.vidioc_enum_fmt_vid_out	= dmb_v4l2dec_enum_fmt_out,
	.vidioc_g_fmt_vid_out		= dmb_v4l2dec_g_fmt_out,
	.vidioc_try_fmt_vid_out		= dmb_v4l2dec_try_fmt_out,
	.vidioc_s_fmt_vid_out		= dmb_v4l2dec_s_fmt_out,

	.vidioc_enum_framesizes		= dmb_v4l2dec_enum_framesizes,
	.vidioc_g_selection		= dmb_v4l2dec_g_selection,

	.vidioc_reqbufs			= dmb_v4l2dec_reqbufs,
	.vidioc_querybuf		= v4l2_m2m_ioctl_querybuf,
	.vidioc_qbuf			= v4l2_m2m_ioctl_qbuf,
	.vidioc_dqbuf			= v4l2_m2m_ioctl_dqbuf,
	.vidioc_prepare_buf		= v4l2_m2m_ioctl_prepare_buf,
	.vidioc_create_bufs		= dmb_v4l2dec_create_bufs,
	.vidioc_expbuf			= v4l2_m2m_ioctl_expbuf,
	.vidioc_streamon		= v4l2_m2m_ioctl_streamon,
	.vidioc_streamoff		= v4l2_m2m_ioctl_streamoff,

	.vidioc_try_decoder_cmd		= v4l2_m2m_ioctl_try_decoder_cmd,
	.vidioc_decoder_cmd		= dmb_v4l2dec_decoder_cmd,

	.vidioc_subscribe_event		= dmb_v4l2dec_subscribe_event,
	.vidioc_unsubscribe_event	= v4l2_event_unsubscribe,
};

/* ---- file operations ---------------------------------------------------- */

static int dmb_v4l2dec_open(struct file *file)
{
	struct dmb_v4l2dec *dec = video_drvdata(file);
	struct dmb_v4l2dec_ctx *ctx;
	int ret;

	if (mutex_lock_interruptible(&dec->lock))
		return -ERESTARTSYS;
	ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);
	if (!ctx) {
		ret = -ENOMEM;
		goto unlock;
	}
	ctx->dec = dec;
	ctx->dmb = READ_ONCE(use_dmb_alloc) && dec->handle;
	if (READ_ONCE(use_dmb_alloc) && !dec->handle)
		dev_info_ratelimited(dec->dev, "use_dmb_alloc: the memory-region is not a DMB: buffers through the DMA API\n");
	mutex_init(&ctx->vb_mutex);
	spin_lock_init(&ctx->prep_lock);
	INIT_DELAYED_WORK(&ctx->prep_expire, dmb_v4l2dec_prep_expire);
	v4l2_fh_init(&ctx->fh, video_devdata(file));
	file->private_data = &ctx->fh;

	ret = dmb_v4l2dec_ctrls(ctx);
	if (ret)
		goto free_hdl;
	ctx->fh.ctrl_handler = &ctx->hdl;

	ctx->out.width = DEC_DEF_W;
	ctx->out.height = DEC_DEF_H;
	dmb_v4l2dec_fill_out(&ctx->out);
	ctx->coded_w = ctx->out.width;
	ctx->coded_h = ctx->out.height;
	dmb_v4l2dec_cap_fmt(ctx, &ctx->cap);

	ctx->fh.m2m_ctx = v4l2_m2m_ctx_init(dec->m2m_dev, ctx,
					    dmb_v4l2dec_queue_init);
	if (IS_ERR(ctx->fh.m2m_ctx)) {
		ret = PTR_ERR(ctx->fh.m2m_ctx);
		goto free_hdl;
	}
	v4l2_fh_add(&ctx->fh);
	ctx->id = dec->next_id++;
	list_add_tail(&ctx->node, &dec->ctxs);
	mutex_unlock(&dec->lock);
	return 0;

free_hdl:
	v4l2_ctrl_handler_free(&ctx->hdl);
	v4l2_fh_exit(&ctx->fh);
	mutex_destroy(&ctx->vb_mutex);
	kfree(ctx);
unlock:
	mutex_unlock(&dec->lock);
	return ret;
}

static int dmb_v4l2dec_release(struct file *file)
{
	struct dmb_v4l2dec *dec = video_drvdata(file);
	struct dmb_v4l2dec_ctx *ctx = file2ctx(file);

	mutex_lock(&dec->lock);
	list_del(&ctx->node);
	mutex_unlock(&dec->lock);
	/*
	 * Frees the buffers: the memory goes back to user pages (with
	 * dmb_alloc(), once the last mapping and dma-buf of a run are gone).
	 */
	cancel_delayed_work_sync(&ctx->prep_expire);
	mutex_lock(&ctx->vb_mutex);
	v4l2_m2m_ctx_release(ctx->fh.m2m_ctx);
	dmb_alloc_cancel(ctx->prep);
	dmb_v4l2dec_run_drop(ctx);
	mutex_unlock(&ctx->vb_mutex);
	v4l2_fh_del(&ctx->fh);
	v4l2_fh_exit(&ctx->fh);
	v4l2_ctrl_handler_free(&ctx->hdl);
	mutex_destroy(&ctx->vb_mutex);
	kfree(ctx);
	return 0;
}

static const struct v4l2_file_operations dmb_v4l2dec_fops = {
	.owner		= THIS_MODULE,
	.open		= dmb_v4l2dec_open,
	.release	= dmb_v4l2dec_release,
	.poll		= v4l2_m2m_fop_poll,
	.unlocked_ioctl	= video_ioctl2,
	.mmap		= v4l2_m2m_fop_mmap,
};

/* ---- debugfs: where the buffers are -------------------------------------- */

static void dmb_v4l2dec_show_queue(struct seq_file *m,
				   struct dmb_v4l2dec_ctx *ctx,
				   struct vb2_queue *q, const char *name)
{
	unsigned int i;

	for (i = 0; i < vb2_get_num_buffers(q); i++) {
		struct vb2_buffer *vb = vb2_get_buffer(q, i);
		dma_addr_t dma;

		if (!vb || q->memory != VB2_MEMORY_MMAP)
			continue;
		dma = dmb_v4l2dec_dma_addr(vb);
		seq_printf(m, "%u %s %u %pad %lu\n", ctx->id, name, vb->index,
			   &dma, vb2_plane_size(vb, 0));
	}
}

static int dmb_v4l2dec_buffers_show(struct seq_file *m, void *v)
{
	struct dmb_v4l2dec *dec = m->private;
	struct dmb_v4l2dec_ctx *ctx;

	mutex_lock(&dec->lock);
	list_for_each_entry(ctx, &dec->ctxs, node) {
		/*
		 * Its buffers must not come and go meanwhile, but a session
		 * in a long REQBUFS must not make every other wait behind the
		 * device lock either: skip it.
		 */
		if (!mutex_trylock(&ctx->vb_mutex)) {
			seq_printf(m, "%u busy\n", ctx->id);
			continue;
		}
		dmb_v4l2dec_show_queue(m, ctx, v4l2_m2m_get_src_vq(ctx->fh.m2m_ctx), "out");
		dmb_v4l2dec_show_queue(m, ctx, v4l2_m2m_get_dst_vq(ctx->fh.m2m_ctx), "cap");
		mutex_unlock(&ctx->vb_mutex);
	}
	mutex_unlock(&dec->lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(dmb_v4l2dec_buffers);

/* ---- probe and remove --------------------------------------------------- */

/* The last reference is gone: no file is open, no buffer is left */
static void dmb_v4l2dec_v4l2_release(struct v4l2_device *v4l2_dev)
{
	struct dmb_v4l2dec *dec = container_of(v4l2_dev, struct dmb_v4l2dec,
					       v4l2_dev);

	/* no run is left: each holds a reference */
	dmb_handle_put(dec->handle);
	v4l2_m2m_release(dec->m2m_dev);
	if (dec->rmem)
		of_reserved_mem_device_release(dec->dev);
	mutex_lock(&dmb_v4l2dec_live_lock);
	list_del(&dec->live);
	mutex_unlock(&dmb_v4l2dec_live_lock);
	put_device(dec->dev);
	mutex_destroy(&dec->lock);
	kfree(dec);
}

static int dmb_v4l2dec_probe(struct platform_device *pdev)
{
	struct device *dev = &pdev->dev;
	struct dmb_v4l2dec *dec, *other;
	struct reserved_mem *rmem;
	struct device_node *np;
	const char *label;
	int ret;

	ret = dma_coerce_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;

	/* freed by the v4l2_device release: files may outlive the driver */
	dec = kzalloc(sizeof(*dec), GFP_KERNEL);
	if (!dec)
		return -ENOMEM;
	mutex_lock(&dmb_v4l2dec_live_lock);
	list_for_each_entry(other, &dmb_v4l2dec_live, live) {
		if (other->dev == dev) {
			mutex_unlock(&dmb_v4l2dec_live_lock);
			kfree(dec);
			return dev_err_probe(dev, -EBUSY,
					     "files of its previous binding are still open: close them first\n");
		}
	}
	list_add(&dec->live, &dmb_v4l2dec_live);
	mutex_unlock(&dmb_v4l2dec_live_lock);
	dec->dev = get_device(dev);
	mutex_init(&dec->lock);
	INIT_LIST_HEAD(&dec->ctxs);

	/*
	 * The usual pattern: the memory-region is the device's DMA pool.  A
	 * node that names one must get it: a block that cannot serve (held
	 * elsewhere, refused at boot) must not fall back to the default pool
	 * silently.
	 */
	ret = of_reserved_mem_device_init(dev);
	if (ret && (ret != -ENODEV ||
		    of_property_present(dev->of_node, "memory-region"))) {
		dev_err_probe(dev, ret, "memory-region\n");
		goto free_dec;
	}
	dec->rmem = !ret;
	if (dec->rmem) {
		np = of_parse_phandle(dev->of_node, "memory-region", 0);
		rmem = np ? of_reserved_mem_lookup(np) : NULL;
		of_node_put(np);
		if (rmem) {
			dec->pool_base = rmem->base;
			dec->pool_size = rmem->size;
		}
		/* a DMB: sessions may also claim it with dmb_alloc() */
		dec->handle = dmb_handle_get(dev, 0);
		if (IS_ERR(dec->handle))
			dec->handle = NULL;
	}

	ret = v4l2_device_register(dev, &dec->v4l2_dev);
	if (ret)
		goto release_rmem;
	dec->v4l2_dev.release = dmb_v4l2dec_v4l2_release;

	dec->m2m_dev = v4l2_m2m_init(&dmb_v4l2dec_m2m_ops);
	if (IS_ERR(dec->m2m_dev)) {
		ret = PTR_ERR(dec->m2m_dev);
		v4l2_err(&dec->v4l2_dev, "cannot init mem2mem: %d\n", ret);
		/* the release would free what is not set up yet */
		dec->v4l2_dev.release = NULL;
		v4l2_device_unregister(&dec->v4l2_dev);
		goto release_rmem;
	}

	if (of_property_read_string(dev->of_node, "label", &label))
		label = dev_name(dev);
	snprintf(dec->vfd.name, sizeof(dec->vfd.name), "%s %s", DEC_NAME, label);
	dec->vfd.fops = &dmb_v4l2dec_fops;
	dec->vfd.ioctl_ops = &dmb_v4l2dec_ioctl_ops;
	dec->vfd.release = video_device_release_empty;
	dec->vfd.lock = &dec->lock;
	dec->vfd.v4l2_dev = &dec->v4l2_dev;
	dec->vfd.vfl_dir = VFL_DIR_M2M;
	dec->vfd.device_caps = V4L2_CAP_VIDEO_M2M | V4L2_CAP_STREAMING;
	video_set_drvdata(&dec->vfd, dec);
	platform_set_drvdata(pdev, dec);

	ret = video_register_device(&dec->vfd, VFL_TYPE_VIDEO, -1);
	if (ret) {
		v4l2_err(&dec->v4l2_dev, "cannot register video device: %d\n", ret);
		/* drops the last reference: the release undoes the rest */
		v4l2_device_unregister(&dec->v4l2_dev);
		v4l2_device_put(&dec->v4l2_dev);
		return ret;
	}

	dec->dir = debugfs_create_dir(dev_name(dev), dmb_v4l2dec_root);
	debugfs_create_file("buffers", 0400, dec->dir, dec,
			    &dmb_v4l2dec_buffers_fops);
	dev_info(dev, "%s: /dev/%s, buffers from %s%s\n", label,
		 video_device_node_name(&dec->vfd),
		 dec->rmem ? "its memory-region" : "the default DMA pool",
		 dec->handle ? ", a DMB (dmb_alloc() too)" : "");
	return 0;

release_rmem:
	dmb_handle_put(dec->handle);
	if (dec->rmem)
		of_reserved_mem_device_release(dev);
free_dec:
	mutex_lock(&dmb_v4l2dec_live_lock);
	list_del(&dec->live);
	mutex_unlock(&dmb_v4l2dec_live_lock);
	put_device(dev);
	mutex_destroy(&dec->lock);
	kfree(dec);
	return ret;
}

/*
 * Unbind, also while a file is open and streaming: the node goes away,
 * ioctls on open files fail with ENODEV, and the instance (with its
 * buffers and its hold on the memory-region) lives until the last file
 * is closed.
 */
static void dmb_v4l2dec_remove(struct platform_device *pdev)
{
	struct dmb_v4l2dec *dec = platform_get_drvdata(pdev);

	debugfs_remove(dec->dir);
	v4l2_info(&dec->v4l2_dev, "removing %s\n",
		  video_device_node_name(&dec->vfd));
	video_unregister_device(&dec->vfd);
	v4l2_device_unregister(&dec->v4l2_dev);
	v4l2_device_put(&dec->v4l2_dev);
}

static const struct of_device_id dmb_v4l2dec_of_match[] = {
	{ .compatible = "dmb-test,v4l2-decoder" },
	{ }
};
MODULE_DEVICE_TABLE(of, dmb_v4l2dec_of_match);

static struct platform_driver dmb_v4l2dec_driver = {
	.probe		= dmb_v4l2dec_probe,
	.remove_new	= dmb_v4l2dec_remove,
	.driver		= {
		.name		= DEC_NAME,
		.of_match_table	= dmb_v4l2dec_of_match,
	},
};

static int __init dmb_v4l2dec_init(void)
{
	int ret;

	dmb_v4l2dec_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	ret = platform_driver_register(&dmb_v4l2dec_driver);
	if (ret)
		debugfs_remove(dmb_v4l2dec_root);
	return ret;
}
module_init(dmb_v4l2dec_init);

static void __exit dmb_v4l2dec_exit(void)
{
	platform_driver_unregister(&dmb_v4l2dec_driver);
	debugfs_remove(dmb_v4l2dec_root);
}
module_exit(dmb_v4l2dec_exit);

MODULE_DESCRIPTION("Sample V4L2 mem2mem decoder with buffers from a Designated Movable Block");
MODULE_IMPORT_NS(DMA_BUF);
MODULE_LICENSE("GPL");
