#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: build everything, boot the boards and tell, in plain words,
# what Designated Movable Blocks do for a set-top box with two DRAM
# controllers and two video decoders.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"

say() { printf '%s\n' "$*" | fold -s -w 76; }
boot() {
	DEMO=1 sh scripts/run-scenario.sh --no-build "$1" > "build/logs/demo-$(basename "$1" .scn).out" 2>&1 || {
		cat "build/logs/demo-$(basename "$1" .scn).out"
		echo "demo: $1 failed; its console is in build/logs/" >&2
		exit 1
	}
	sed -n 's/^   | /   /p' "build/logs/demo-$(basename "$1" .scn).out"
}

make -s deps prepare
make -s kernel-test modules-test dtbs guest

echo
say "THE BOARD. A set-top box: 2 GiB of RAM on two DRAM controllers, DRAM-0 at 0x40000000 and DRAM-1 at 0x80000000 (QEMU arm64). Two video decoders without an IOMMU: the main picture on DRAM-0, picture-in-picture on DRAM-1. Each needs 256 MiB of physically contiguous memory on its own controller when playback starts, and nothing when it stops."
echo
say "TODAY: movablecore=512M. ZONE_MOVABLE, the memory the kernel can empty on demand and lend to user programs meanwhile, can only be the top of memory:"
boot tests/demo/1-today.scn
say "All of it is on DRAM-1, and so is the user workload: DRAM-0 cannot host reusable decoder memory, and user traffic is not spread over both controllers."
echo
say "WITH DESIGNATED MOVABLE BLOCKS. The board's device tree declares a 256 MiB block on each controller, and on each a V4L2 video decoder whose memory-region is that block (dts/dmb-v4l2.dts, the layout of the default board dts/dmb-2g.dts). The blocks join ZONE_MOVABLE where they are. Then a busy system fills memory, and the blocks, with user data; both decoders start playing at once, each driven by Debian's v4l2-ctl (a decode loop of 1920x1088 frames); the decoder is an ordinary V4L2 mem2mem driver. The main decoder's player takes its buffers through the DMA API (videobuf2-dma-contig, no DMB code in the buffer path); the picture-in-picture one's session claims a run of its block with the driver API, dmb_alloc(), and hands its buffers out of it (dmb_v4l2dec use_dmb_alloc=Y, read when a file is opened):"
boot tests/demo/2-dmb.scn
echo
say "While no video plays the blocks hold user data (anonymous, mlocked, tmpfs and file pages). When v4l2-ctl asks for buffers, the DMA API (main) or dmb_alloc() (PiP) takes them from the decoder's own block on its own controller, both through the block's one CMA area, and the kernel moves the user data that was there elsewhere without losing a byte; when playback stops and the buffers are freed, user programs use the memory again."
