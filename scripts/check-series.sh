#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-series: apply patches/series one patch at a time to Linux
# 6.12 and, after each, build the test kernel (ccache keeps it cheap),
# build and run the kernel's memblock simulator (tools/testing/memblock,
# through tests/host/memblock.sh) and boot the default board to the
# guest's first check; once the reserved-memory handler is in, also boot
# a board with a CMA pool inside a block (dmb-dma) and check that the
# kernel log has no BUG, WARNING or Oops.  For whoever changes
# patches/; not part of make test.  FROM=n and TO=n limit the prefixes
# checked (1-based).
#
# The tree is a git worktree of build/linux's "pristine" tag in
# build/linux-series, the kernel builds in build/obj-series; the summary
# ends "N passed, N failed" and says which step of which patch failed.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
KSRC=$TOP/build/linux-series
OBJ=$TOP/build/obj-series
LOG=$TOP/build/logs/check-series
mkdir -p "$LOG" "$OBJ"
die() { echo "check-series: error: $*" >&2; exit 1; }

make -s deps prepare dtbs guest
rm -rf "$KSRC"
git -C build/linux worktree prune
git -C build/linux worktree add -q --detach "$KSRC" pristine ||
	die "cannot check out build/linux-series"
# git am's committer; not in the repository's config, which build/linux
# and its other worktrees share
export GIT_COMMITTER_NAME="dmb check-series" GIT_COMMITTER_EMAIL="check-series@localhost"

unset MAKEFLAGS MFLAGS MAKELEVEL
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
. "$TOP/scripts/ccache-env.sh"

patches=$(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' patches/series)
total=$(echo "$patches" | wc -l)
from=${FROM:-1} to=${TO:-$total}
pass=0 fail=0 n=0 t0=$(date +%s)
ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }

# The board's boot, with this prefix's kernel: its first check only
scn=$LOG/check-series-boot.scn
{
	echo "description: check-series: the default board boots"
	echo "board: dmb-2g"
	echo "memory: 2G"
	echo "boot: direct"
	echo "config: test"
	echo "check: meminfo MemTotal>0"
} > "$scn"
# Once the handler is in: a board whose default CMA pool lies inside a
# block (dmb-dma), which the handler may only accept with the CMA patch
scn2=$LOG/check-series-boot-pool.scn
{
	echo "description: check-series: a CMA pool inside a block boots clean"
	echo "board: dmb-dma"
	echo "memory: 2G"
	echo "boot: direct"
	echo "config: test"
	echo "check: kmsg bad=0"
} > "$scn2"

for p in $patches; do
	n=$((n + 1))
	git -C "$KSRC" am -q "$TOP/patches/$p" > "$LOG/$n-am.log" 2>&1 ||
		{ ko "$n $p: git am: $(tail -1 "$LOG/$n-am.log")"; break; }
	[ $n -ge "$from" ] && [ $n -le "$to" ] || continue
	echo "== $n/$total $p"
	# the test configuration; options later patches add are refused
	if ! (cd "$KSRC" && scripts/kconfig/merge_config.sh -n -O "$OBJ" \
			"$TOP/configs/base.config" "$TOP/configs/test.config") \
			> "$LOG/$n-config.log" 2>&1; then
		ko "$n $p: configuration"
		continue
	fi
	if make -C "$KSRC" O="$OBJ" CC="ccache ${CROSS_COMPILE}gcc" \
			-j"$(nproc)" Image > "$LOG/$n-build.log" 2>&1; then
		ok "$n $p: builds"
	else
		ko "$n $p: build: $(grep -m1 -E 'error' "$LOG/$n-build.log")"
		continue
	fi
	if sh tests/host/memblock.sh "$KSRC" > "$LOG/$n-memblock.log" 2>&1; then
		ok "$n $p: memblock simulator"
	else
		ko "$n $p: memblock simulator: $(grep -m1 FAILED "$LOG/$n-memblock.log")"
	fi
	if DMB_IMAGE=$OBJ/arch/arm64/boot/Image sh scripts/run-scenario.sh \
			--no-build "$scn" > "$LOG/$n-boot.log" 2>&1; then
		ok "$n $p: boots"
	else
		ko "$n $p: boot: $(grep -m1 -E 'FAIL|error' "$LOG/$n-boot.log")"
	fi
	grep -q 'RESERVEDMEM_OF_DECLARE(.*designated-movable-block' "$KSRC/mm/dmb.c" 2>/dev/null || continue
	if DMB_IMAGE=$OBJ/arch/arm64/boot/Image sh scripts/run-scenario.sh \
			--no-build "$scn2" > "$LOG/$n-boot-pool.log" 2>&1; then
		ok "$n $p: boots with a CMA pool inside a block"
	else
		ko "$n $p: boot with a CMA pool inside a block: $(grep -m1 -E 'FAIL|error' "$LOG/$n-boot-pool.log")"
	fi
done
git -C build/linux worktree remove --force "$KSRC" || :
echo "== check-series: patches $from-$to of $total in $(( ($(date +%s) - t0) / 60 )) min"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
