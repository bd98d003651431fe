#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build the out-of-tree modules (top-level Kbuild) against one kernel
# flavour and pack them into build/initramfs/modules-<flavour>.cpio as
# /lib/modules/<name>.ko.  Kbuild writes objects next to the sources, so
# the sources are mirrored into build/ext-<flavour> first: the repository
# stays clean and unchanged files keep their timestamps.
#
# usage: build-modules.sh <flavour> [make arguments, e.g. W=1 C=1]
#
# MODULES_EXT=<name> builds in build/<name> instead and packs nothing: the
# static checks rebuild the modules with W=1 C=2 there while boots use the
# packed ones.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:?usage: build-modules.sh <flavour>}
shift
OBJ=$TOP/build/obj-$flavour
EXT=$TOP/build/${MODULES_EXT:-ext-$flavour}
LOG=$TOP/build/logs/modules-${MODULES_EXT:-$flavour}.log
unset MAKEFLAGS MFLAGS MAKELEVEL
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
. "$TOP/scripts/ccache-env.sh"

[ -f "$OBJ/Module.symvers" ] || { echo "build-modules: error: build kernel-$flavour first" >&2; exit 1; }
mkdir -p "$EXT" "$TOP/build/initramfs" "$TOP/build/logs"
# Mirror sources: copy what changed, drop what was deleted.
(cd "$TOP" && find Kbuild drivers include -type f \( -name Kbuild -o -name '*.[ch]' \)) |
	sort > "$EXT/.sources"
while read -r f; do
	mkdir -p "$EXT/$(dirname "$f")"
	cmp -s "$TOP/$f" "$EXT/$f" || cp -p "$TOP/$f" "$EXT/$f"
done < "$EXT/.sources"
(cd "$EXT" && find Kbuild drivers include -type f \( -name Kbuild -o -name '*.[ch]' \) 2>/dev/null) |
	sort | comm -13 "$EXT/.sources" - | (cd "$EXT" && xargs -r rm -f)

if ! make -C "$TOP/build/linux" O="$OBJ" M="$EXT" CC="ccache ${CROSS_COMPILE}gcc" \
		-j"$(nproc)" "$@" modules > "$LOG" 2>&1; then
	grep -E 'error|Error|\*\*\*' "$LOG" | head -20 >&2
	echo "build-modules: error: module build ($flavour) failed (full log: $LOG)" >&2
	exit 1
fi

[ -z "${MODULES_EXT:-}" ] || exit 0
list=$EXT/.cpio-list
echo "dir /lib 0755 0 0" > "$list"
echo "dir /lib/modules 0755 0 0" >> "$list"
find "$EXT" -name '*.ko' | sort | while read -r ko; do
	echo "file /lib/modules/$(basename "$ko") $ko 0644 0 0"
done >> "$list"
"$TOP/build/gen_init_cpio" "$list" > "$TOP/build/initramfs/modules-$flavour.cpio"
