/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Userspace interface of the sample video decoder that claims its frame
 * buffers from a Designated Movable Block (drivers/vdec/dmb_vdec.c); the
 * full description is docs/userspace-api/dmb_vdec.rst.
 *
 * One misc device per decoder, /dev/dmb-vdec-<label>, mode 0600 (root).  A
 * session starts with DMB_VDEC_START (claim zeroed buffers), runs
 * DMB_VDEC_DECODE (the emulated decoder writes frames), maps each buffer
 * with its own shared mmap() at the offset DMB_VDEC_BUF gives, and ends
 * with DMB_VDEC_STOP or the last close() of the file that started it.
 *
 * Every structure can grow at its end: the size encoded in the ioctl
 * number is the size userspace was built with; the kernel reads what it
 * knows (bytes it does not know must be zero, else -E2BIG), treats what
 * an older userspace did not pass as zero, and writes back no more than
 * userspace passed.  Reserved fields and unknown flags must be zero
 * (-EINVAL).
 */
#ifndef _UAPI_LINUX_DMB_VDEC_H
#define _UAPI_LINUX_DMB_VDEC_H

#include <linux/ioctl.h>
#include <linux/types.h>

/**
 * struct dmb_vdec_info - the decoder, and its session if any
 * @flags: set by the driver: DMB_VDEC_INFO_BASE when @dmb_base is given
 *	(the caller has CAP_SYS_ADMIN), DMB_VDEC_INFO_SESSION when a session
 *	runs, DMB_VDEC_INFO_OWNER when this file started it
 * @controller: index of the DRAM controller the block is on, or -1
 * @max_bufs: most buffers one session may claim
 * @count: buffers of the running session, 0 without one
 * @reserved: zero
 * @dmb_base: physical base of the decoder's block, 0 without
 *	DMB_VDEC_INFO_BASE
 * @dmb_size: size of the decoder's block in bytes
 * @claim_ns: time the claim of the session's buffers took
 * @controller_label: name of that controller, e.g. "DRAM-0"
 */
struct dmb_vdec_info {
	__u32 flags;
	__s32 controller;
	__u32 max_bufs;
	__u32 count;
	__u64 reserved;
	__u64 dmb_base;
	__u64 dmb_size;
	__u64 claim_ns;
	char controller_label[16];
};

#define DMB_VDEC_INFO_BASE	0x1u
#define DMB_VDEC_INFO_SESSION	0x2u
#define DMB_VDEC_INFO_OWNER	0x4u

/**
 * struct dmb_vdec_start - buffers to claim
 * @flags: must be 0
 * @count: number of buffers, 1 to dmb_vdec_info.max_bufs
 * @sizes_ptr: user pointer to @count __u64 sizes in bytes, each rounded
 *	up to pages; the sum must fit the block
 * @reserved: must be 0
 */
struct dmb_vdec_start {
	__u32 flags;
	__u32 count;
	__u64 sizes_ptr;
	__u64 reserved;
};

/**
 * struct dmb_vdec_buf - one buffer of the session
 * @index: set by the caller, 0 to count - 1
 * @flags: set by the driver: DMB_VDEC_BUF_PHYS when @phys is given (the
 *	caller has CAP_SYS_ADMIN)
 * @size: bytes
 * @offset: the mmap() offset of the buffer
 * @phys: physical address of the buffer, 0 without DMB_VDEC_BUF_PHYS;
 *	for diagnostics only, it is not the device's DMA address when the
 *	bus translates (dma-ranges)
 * @reserved: must be 0
 */
struct dmb_vdec_buf {
	__u32 index;
	__u32 flags;
	__u64 size;
	__u64 offset;
	__u64 phys;
	__u64 reserved;
};

#define DMB_VDEC_BUF_PHYS	0x1u

/**
 * struct dmb_vdec_decode - emulate decoding a frame into every buffer
 * @seed: the pattern: 32-bit word i of buffer b is seed ^ (b << 24) ^ i
 * @flags: must be 0
 * @checked: set by the driver: buffers verified inside the block and on
 *	its controller
 * @reserved: must be 0
 */
struct dmb_vdec_decode {
	__u32 seed;
	__u32 flags;
	__u32 checked;
	__u32 reserved;
};

/*
 * 0xB9 is free in Documentation/userspace-api/ioctl/ioctl-number.rst
 * (6.12); a driver merged upstream would register it there.
 */
/*
 * The first size of each structure: the smallest a caller may pass.  A
 * later, larger structure gets a new *_SIZE_VER1; the driver keeps
 * accepting every size from VER0 up.
 */
#define DMB_VDEC_INFO_SIZE_VER0		64
#define DMB_VDEC_START_SIZE_VER0	24
#define DMB_VDEC_BUF_SIZE_VER0		40
#define DMB_VDEC_DECODE_SIZE_VER0	16

#define DMB_VDEC_IOC_MAGIC	0xB9
#define DMB_VDEC_INFO	_IOR(DMB_VDEC_IOC_MAGIC, 0, struct dmb_vdec_info)
#define DMB_VDEC_START	_IOW(DMB_VDEC_IOC_MAGIC, 1, struct dmb_vdec_start)
#define DMB_VDEC_STOP	_IO(DMB_VDEC_IOC_MAGIC, 2)
#define DMB_VDEC_BUF	_IOWR(DMB_VDEC_IOC_MAGIC, 3, struct dmb_vdec_buf)
#define DMB_VDEC_DECODE	_IOWR(DMB_VDEC_IOC_MAGIC, 4, struct dmb_vdec_decode)
/* START's argument: claim those buffers in the background, START takes them */
#define DMB_VDEC_PREPARE _IOW(DMB_VDEC_IOC_MAGIC, 5, struct dmb_vdec_start)

#endif /* _UAPI_LINUX_DMB_VDEC_H */
