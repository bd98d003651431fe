#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Compile dts/<board>.dts into build/dtb/<board>.dtb the way the kernel's
# cmd_dtc does: cpp with the kernel's dt-bindings headers, then dtc.
#
# usage: build-dtb.sh <board|path/without/.dts|/absolute/path.dts> [...]
#
# KSRC: the kernel tree whose headers to use (default build/linux);
# DTB_OUT: where to write (default build/dtb); DTS_INCLUDE: more include
# directories, separated by spaces (make check-dts passes a board's own).
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
OUT=${DTB_OUT:-$TOP/build/dtb}
mkdir -p "$OUT"
cpp_inc= dtc_inc=
for d in ${DTS_INCLUDE:-}; do
	cpp_inc="$cpp_inc -I $d"
	dtc_inc="$dtc_inc -i $d"
done

for board in "$@"; do
	case $board in
	/*.dts) src=$board; board=$(basename "$board" .dts) ;;
	*/*) src=$TOP/$board.dts; board=$(basename "$board") ;;
	*) src=$TOP/dts/$board.dts ;;
	esac
	[ -f "$src" ] || { echo "build-dtb: error: no board ${src#$TOP/}" >&2; exit 1; }
	pp=$OUT/$board.dts.tmp
	# shellcheck disable=SC2086
	if ! cpp -nostdinc -undef -D__DTS__ -x assembler-with-cpp $cpp_inc \
			-I "$(dirname "$src")" -I "$TOP/dts" -I "$KSRC/scripts/dtc/include-prefixes" \
			-I "$KSRC/include" -o "$pp" "$src" 2> "$OUT/$board.err"; then
		cat "$OUT/$board.err" >&2
		echo "build-dtb: error: ${src#$TOP/} does not preprocess" >&2
		exit 1
	fi
	# shellcheck disable=SC2086
	if ! dtc -I dts -O dtb -b 0 -@ $dtc_inc -i "$TOP/dts" -o "$OUT/$board.dtb" \
			"$pp" 2> "$OUT/$board.err"; then
		cat "$OUT/$board.err" >&2
		echo "build-dtb: error: ${src#$TOP/} does not compile" >&2
		exit 1
	fi
done
