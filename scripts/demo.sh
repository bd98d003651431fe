#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make demo: build everything, boot the default board and tell, in plain
# words, what happens to memory on its two DRAM controllers.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"

say() { printf '%s\n' "$*" | fold -s -w 76; }

make -s deps prepare
make -s kernel-test modules-test dtbs guest

echo
say "The board: QEMU arm64 with 2 GiB of RAM on two DRAM controllers, as a set-top-box SoC has them. A video decoder wants its buffers on one chosen controller, in one physically contiguous block."
for s in tests/demo/*.scn; do
	echo
	DEMO=1 sh scripts/run-scenario.sh --no-build "$s" || {
		echo "demo: $s failed; its console is in build/logs/" >&2
		exit 1
	}
done
echo
say "With movablecore=512M the kernel can only make the top of memory movable: ZONE_MOVABLE, the memory it can empty for a decoder and lend to user programs meanwhile, lies wholly on DRAM-1, and user pages pile up there. Designated Movable Blocks (patches/) let the board put movable memory on each controller."
