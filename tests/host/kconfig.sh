#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# CONFIG_DMB is arm64-only (the series reserves command-line DMBs from an
# arm64 hook and is tested nowhere else; 32-bit highmem kernels are not
# supported): Kconfig must refuse it on 32-bit arm and on x86_64, and keep
# it on arm64, where the smallest configuration with it (no CMA, no DMA
# CMA, no heaps) must build the files that carry DMB code, W=1 clean: the
# test kernel has every option the series tests, this one none of them.
# Runs the kernel's own Kconfig in build/kconfig-<arch>.
# inputs: tree
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=$TOP/build/linux
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }
unset MAKEFLAGS MFLAGS MAKELEVEL

# want <arch> <y|n>: allnoconfig, ask for CONFIG_DMB, see what sticks.
want() {
	obj=$TOP/build/kconfig-$1
	mkdir -p "$obj"
	if ! make -s -C "$KSRC" O="$obj" ARCH="$1" allnoconfig > "$obj.log" 2>&1 ||
	   ! "$KSRC/scripts/config" --file "$obj/.config" --enable DMB ||
	   ! make -s -C "$KSRC" O="$obj" ARCH="$1" olddefconfig >> "$obj.log" 2>&1; then
		ko "Kconfig for ARCH=$1 failed: $(tail -3 "$obj.log")"
		return
	fi
	got=n
	grep -q '^CONFIG_DMB=y' "$obj/.config" && got=y
	if [ "$got" = "$2" ]; then
		ok "CONFIG_DMB on ARCH=$1: $2"
	else
		ko "CONFIG_DMB on ARCH=$1: got $got, want $2"
	fi
}

want arm64 y
# the DMB code of the smallest arm64 configuration with CONFIG_DMB
obj=$TOP/build/kconfig-arm64
. "$TOP/scripts/ccache-env.sh"
files="mm/dmb.o mm/mm_init.o"
if grep -q '^CONFIG_DMB=y' "$obj/.config" && ! grep -q '^CONFIG_CMA=y' "$obj/.config" &&
   make -s -C "$KSRC" O="$obj" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- \
	CC="ccache aarch64-linux-gnu-gcc" W=1 $files > "$obj.build.log" 2>&1 &&
   ! grep -q 'warning:' "$obj.build.log"; then
	ok "allnoconfig + CONFIG_DMB (no CMA) builds $files, W=1 clean"
else
	ko "allnoconfig + CONFIG_DMB (no CMA): $(grep -m3 'error\|warning' "$obj.build.log")"
fi
want arm n
want x86_64 n

echo "== kconfig: $pass passed, $fail failed"
[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 kconfig" >> "$RESULTS"
[ $fail = 0 ]
