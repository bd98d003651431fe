#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compile dts/<board>.dts into build/dtb/<board>.dtb the way the kernel's
# cmd_dtc does: cpp with the kernel's dt-bindings headers, then dtc.
#
# usage: build-dtb.sh <board|path/without/.dts> [...]
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC=$TOP/build/linux
OUT=$TOP/build/dtb
mkdir -p "$OUT"

for board in "$@"; do
	case $board in
	*/*) src=$TOP/$board.dts; board=$(basename "$board") ;;
	*) src=$TOP/dts/$board.dts ;;
	esac
	[ -f "$src" ] || { echo "build-dtb: error: no board ${src#$TOP/}" >&2; exit 1; }
	pp=$OUT/$board.dts.tmp
	if ! cpp -nostdinc -undef -D__DTS__ -x assembler-with-cpp \
			-I "$TOP/dts" -I "$KSRC/scripts/dtc/include-prefixes" \
			-I "$KSRC/include" -o "$pp" "$src" 2> "$OUT/$board.err"; then
		cat "$OUT/$board.err" >&2
		echo "build-dtb: error: dts/$board.dts does not preprocess" >&2
		exit 1
	fi
	if ! dtc -I dts -O dtb -b 0 -@ -i "$TOP/dts" -o "$OUT/$board.dtb" \
			"$pp" 2> "$OUT/$board.err"; then
		cat "$OUT/$board.err" >&2
		echo "build-dtb: error: dts/$board.dts does not compile" >&2
		exit 1
	fi
done
