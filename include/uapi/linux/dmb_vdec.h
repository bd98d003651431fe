/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Userspace interface of the sample video decoder that claims its frame
 * buffers from a Designated Movable Block (drivers/vdec/dmb_vdec.c).
 *
 * One misc device per decoder, /dev/dmb-vdec-<label>.  A session starts
 * with DMB_VDEC_START (claim buffers), runs DMB_VDEC_DECODE (the emulated
 * decoder writes frames), maps buffers with mmap() at the offsets
 * DMB_VDEC_QUERY gives, and ends with DMB_VDEC_STOP or close().
 */
#ifndef _UAPI_LINUX_DMB_VDEC_H
#define _UAPI_LINUX_DMB_VDEC_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define DMB_VDEC_MAX_BUFS	16

/**
 * struct dmb_vdec_start - buffers to claim
 * @count: number of buffers, 1 to DMB_VDEC_MAX_BUFS
 * @flags: must be 0
 * @sizes: size of each buffer in bytes, rounded up to pages
 */
struct dmb_vdec_start {
	__u32 count;
	__u32 flags;
	__u64 sizes[DMB_VDEC_MAX_BUFS];
};

/**
 * struct dmb_vdec_buf - one claimed buffer
 * @phys: physical address (what the decoder's DMA uses)
 * @size: bytes
 * @offset: mmap() offset of the buffer
 */
struct dmb_vdec_buf {
	__u64 phys;
	__u64 size;
	__u64 offset;
};

/**
 * struct dmb_vdec_query - the session and the block behind it
 * @count: buffers claimed (0 without a session)
 * @controller: index of the DRAM controller the block is on, or -1
 * @dmb_base: physical base of the decoder's block
 * @dmb_size: size of the decoder's block
 * @claim_ns: time the claim of the buffers took
 * @controller_label: name of that controller, e.g. "DRAM-0"
 * @bufs: the buffers
 */
struct dmb_vdec_query {
	__u32 count;
	__s32 controller;
	__u64 dmb_base;
	__u64 dmb_size;
	__u64 claim_ns;
	char controller_label[16];
	struct dmb_vdec_buf bufs[DMB_VDEC_MAX_BUFS];
};

/**
 * struct dmb_vdec_decode - emulate decoding a frame into every buffer
 * @seed: the pattern: 32-bit word i of buffer b is seed ^ (b << 24) ^ i
 * @checked: set by the driver: buffers verified contiguous, inside the
 *	block and on its controller
 */
struct dmb_vdec_decode {
	__u32 seed;
	__u32 checked;
};

#define DMB_VDEC_IOC_MAGIC	'D'
#define DMB_VDEC_START	_IOW(DMB_VDEC_IOC_MAGIC, 1, struct dmb_vdec_start)
#define DMB_VDEC_STOP	_IO(DMB_VDEC_IOC_MAGIC, 2)
#define DMB_VDEC_QUERY	_IOR(DMB_VDEC_IOC_MAGIC, 3, struct dmb_vdec_query)
#define DMB_VDEC_DECODE	_IOWR(DMB_VDEC_IOC_MAGIC, 4, struct dmb_vdec_decode)

#endif /* _UAPI_LINUX_DMB_VDEC_H */
