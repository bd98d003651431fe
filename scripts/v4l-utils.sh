#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Debian's arm64 v4l-utils (v4l2-compliance, v4l2-ctl) for the guest:
# download the packages with apt-get from Debian's archive, unpack them
# under build/v4l-utils/root and write build/v4l-utils/initramfs.list, the
# gen_init_cpio lines that put the two programs, the shared libraries
# they need (followed through DT_NEEDED) and the dynamic loader into the
# initramfs.  Nothing else is fetched, and nothing is installed on the
# host but the arm64 package lists (dpkg --add-architecture arm64).
#
# usage: v4l-utils.sh   (the Makefile runs it for build/initramfs/base.list)
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/v4l-utils
ROOT=$OUT/root
LIST=$OUT/initramfs.list
PROGS="v4l2-compliance v4l2-ctl"
# v4l-utils and the libraries its two programs load (apt-cache depends
# v4l-utils:arm64, less libudev1 and libv4l2rds0 which they do not need)
PKGS="v4l-utils libv4l-0 libv4lconvert0 libjpeg62-turbo libstdc++6 libgcc-s1 libc6"
READELF=aarch64-linux-gnu-readelf

die() { echo "v4l-utils: error: $*" >&2; exit 1; }

[ -f "$LIST" ] && [ "$LIST" -nt "$0" ] && exit 0

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	[ "$(id -u)" = 0 ] || die "need root for dpkg --add-architecture arm64"
	echo "v4l-utils: adding the arm64 architecture to dpkg"
	dpkg --add-architecture arm64
	apt-get update -qq || die "apt-get update failed"
fi
if ! apt-cache show v4l-utils:arm64 >/dev/null 2>&1; then
	[ "$(id -u)" = 0 ] || die "need root for apt-get update"
	apt-get update -qq || die "apt-get update failed"
fi

rm -rf "$OUT/debs" "$ROOT"
mkdir -p "$OUT/debs" "$ROOT"
echo "v4l-utils: downloading $PKGS (arm64)"
# shellcheck disable=SC2046
(cd "$OUT/debs" && apt-get download -qq $(for p in $PKGS; do echo "$p:arm64"; done)) \
	2>&1 | grep -v 'unsandboxed' >&2 || true
for p in $PKGS; do
	ls "$OUT/debs/${p}"_*_arm64.deb >/dev/null 2>&1 ||
		die "apt-get download $p:arm64 failed"
done
for deb in "$OUT/debs"/*.deb; do
	dpkg-deb -x "$deb" "$ROOT"
done

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
	echo "# v4l-utils $(dpkg-deb -f "$OUT/debs"/v4l-utils_*_arm64.deb Version) (Debian arm64), scripts/v4l-utils.sh"
	for d in /lib /lib/aarch64-linux-gnu /usr /usr/lib /usr/lib/aarch64-linux-gnu; do
		echo "dir $d 0755 0 0"
	done
	echo "file /lib/ld-linux-aarch64.so.1 $(readlink -f "$ROOT/$ld") 0755 0 0"
	sort -u "$tmp.files"
} > "$tmp"
rm -f "$tmp.files"
mv "$tmp" "$LIST"
echo "v4l-utils: $(grep -c '^file' "$LIST") files for the initramfs"
