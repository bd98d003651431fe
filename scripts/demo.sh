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
say "WITH DESIGNATED MOVABLE BLOCKS. The default board's device tree declares a 256 MiB block on each controller (dts/dmb-2g.dts). They join ZONE_MOVABLE where they are:"
boot tests/demo/2-dmb.scn
echo
say "While no video plays the blocks hold user data (anonymous, mlocked, tmpfs and file pages); when playback starts each decoder claims its whole block on its own controller, the kernel moves that data elsewhere without losing a byte, and when playback stops the memory is used by user programs again."
