#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's arm64 v4l-utils (v4l2-compliance, v4l2-ctl) for the guest:
# download the packages with apt-get from Debian's archive, unpack them
# under build/v4l-utils/root and write build/v4l-utils/initramfs.list, the
# gen_init_cpio lines that put the two programs, the shared libraries
# they need (followed through DT_NEEDED) and the dynamic loader into the
# initramfs.  With them busybox-static, in build/v4l-utils/busybox.list
# (the Makefile packs it into build/initramfs/readme.cpio): the guest's
# `readme` check runs docs/adopting.rst's on-board commands (insmod, cat, grep,
# dmesg) as typed, with busybox's sh and applets.
#
# The suite is trixie (Debian 13, whose kernel is 6.12): bookworm's
# v4l-utils 1.22 predates the 6.12 uAPI (VIDIOC_CREATE_BUFS fills
# max_num_buffers, once reserved; formats were renamed) and its
# v4l2-compliance fails any 6.12 driver on those.  scripts/debian-arm64.sh
# downloads them without touching the host's apt or dpkg state.
#
# usage: v4l-utils.sh   (the Makefile runs it for build/initramfs/base.list)
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/v4l-utils
ROOT=$OUT/root
LIST=$OUT/initramfs.list
SUITE=${V4L_UTILS_SUITE:-trixie}
PROGS="v4l2-compliance v4l2-ctl"
# v4l-utils and the libraries its two programs load (apt-cache depends
# v4l-utils, less libudev1 and libv4l2rds0t64, which they do not need)
PKGS="v4l-utils libv4l-0t64 libv4lconvert0t64 libjpeg62-turbo libstdc++6 libgcc-s1 libc6 busybox-static"
READELF=aarch64-linux-gnu-readelf

die() { echo "v4l-utils: error: $*" >&2; exit 1; }

[ -f "$LIST" ] && [ "$LIST" -nt "$0" ] && exit 0

# shellcheck disable=SC2086
sh "$TOP/scripts/debian-arm64.sh" "$OUT" "$SUITE" $PKGS

# Where the guest's loader looks (Debian's multiarch directories)
LIBDIRS="lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu"
find_lib() {
	for d in $LIBDIRS; do
		[ -e "$ROOT/$d/$1" ] && { echo "$d/$1"; return 0; }
	done
	return 1
}

tmp=$LIST.tmp
: > "$tmp.files"
todo=
for p in $PROGS; do
	[ -x "$ROOT/usr/bin/$p" ] || die "$p is not in v4l-utils"
	echo "file /bin/$p $ROOT/usr/bin/$p 0755 0 0" >> "$tmp.files"
	todo="$todo $ROOT/usr/bin/$p"
done
# busybox-static needs no library
bb=$ROOT/usr/bin/busybox
[ -x "$bb" ] || bb=$ROOT/bin/busybox
[ -x "$bb" ] || die "busybox is not in busybox-static"
echo "file /bin/busybox $bb 0755 0 0" > "$OUT/busybox.list"
seen=" "
while [ -n "$todo" ]; do
	next=
	for f in $todo; do
		for lib in $($READELF -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case $seen in *" $lib "*) continue ;; esac
			seen="$seen$lib "
			path=$(find_lib "$lib") || die "no $lib for $(basename "$f")"
			echo "file /$path $(readlink -f "$ROOT/$path") 0755 0 0" >> "$tmp.files"
			next="$next $(readlink -f "$ROOT/$path")"
		done
	done
	todo=$next
done
ld=$(find_lib ld-linux-aarch64.so.1) || die "no dynamic loader in libc6"

{
	echo "# v4l-utils $(dpkg-deb -f "$OUT/debs"/v4l-utils_*_arm64.deb Version), busybox-static $(dpkg-deb -f "$OUT/debs"/busybox-static_*_arm64.deb Version) (Debian $SUITE arm64), scripts/v4l-utils.sh"
	for d in /lib /lib/aarch64-linux-gnu /usr /usr/lib /usr/lib/aarch64-linux-gnu; do
		echo "dir $d 0755 0 0"
	done
	echo "file /lib/ld-linux-aarch64.so.1 $(readlink -f "$ROOT/$ld") 0755 0 0"
	sort -u "$tmp.files"
} > "$tmp"
rm -f "$tmp.files"
mv "$tmp" "$LIST"
echo "v4l-utils: $(grep -c '^file' "$LIST") files for the initramfs"
