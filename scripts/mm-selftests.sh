#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own mm selftests (tools/testing/selftests/mm of build/linux,
# unchanged), built static for the arm64 guest: the subset that exercises
# migration, compaction, THP, hugetlb, KSM and memory pinning.  Their
# headers are the tree's own uAPI ("make headers"); libnuma and liburing,
# which migration, cow and gup_longterm link, come from Debian bookworm's
# arm64 packages (scripts/debian-arm64.sh; bookworm, the cross glibc's
# release, so the static archives link against it).  compaction_test
# reads /proc/meminfo through popen("cat | grep"): the guest gets
# bookworm's busybox-static as /bin/sh, cat and grep.  Writes
# build/mm-selftests/initramfs.list: /bin/mm/<test> for each program.
#
# usage: mm-selftests.sh   (the Makefile runs it for build/initramfs/base.list)
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUT=$TOP/build/mm-selftests
SRC=$TOP/build/linux/tools/testing/selftests/mm
LIBS=$TOP/build/mm-selftests-libs
LIST=$OUT/initramfs.list
CC=aarch64-linux-gnu-gcc
# The subset run in the guest; tests/scenarios/mm-selftests*.scn run them
TESTS="migration compaction_test transhuge-stress hugepage-mmap gup_longterm
cow mlock2-tests ksm_functional_tests split_huge_page_test madv_populate"

die() { echo "mm-selftests: error: $*" >&2; exit 1; }

[ -d "$SRC" ] || die "no $SRC: run make prepare"
if [ ! -f "$LIBS/root/usr/lib/aarch64-linux-gnu/libnuma.a" ] ||
		[ ! -f "$LIBS/root/usr/lib/aarch64-linux-gnu/liburing.a" ] ||
		[ ! -f "$LIBS/root/bin/busybox" ]; then
	sh "$TOP/scripts/debian-arm64.sh" "$LIBS" bookworm \
		libnuma-dev libnuma1 liburing-dev liburing2 busybox-static
fi
# its own make, not a job of the calling one (make -j2 guest)
unset MAKEFLAGS MFLAGS MAKELEVEL
make -s -C "$TOP/build/linux" ARCH=arm64 O="$OUT/hdr" headers

# What the selftests' check_config.sh would find: liburing is there.
mkdir -p "$OUT/config" "$OUT/bin"
echo '#define LOCAL_CONFIG_HAVE_LIBURING 1' > "$OUT/config/local_config.h"

tmp=$LIST.tmp
{
	echo "dir /bin/mm 0755 0 0"
	echo "file /bin/busybox $LIBS/root/bin/busybox 0755 0 0"
	for l in sh cat grep; do echo "slink /bin/$l busybox 0777 0 0"; done
} > "$tmp"
# From the test directory, with relative names: gup_longterm makes its
# "local tmpfile" from __FILE__ in the current directory.
cd "$SRC"
for t in $TESTS; do
	if ! $CC -static -O2 -Wall -U_FORTIFY_SOURCE -I"$OUT/config" \
			-I"$SRC/.." -I"$OUT/hdr/usr/include" -I"$SRC/../../../include/uapi" \
			-I"$LIBS/root/usr/include" -o "$OUT/bin/$t" \
			"$t.c" vm_util.c thp_settings.c \
			-L"$LIBS/root/usr/lib/aarch64-linux-gnu" -luring -lnuma \
			-lrt -lpthread -lm > "$OUT/$t.log" 2>&1; then
		cat "$OUT/$t.log" >&2
		die "cannot build $t"
	fi
	echo "file /bin/mm/$t $OUT/bin/$t 0755 0 0" >> "$tmp"
done
mv "$tmp" "$LIST"
echo "mm-selftests: $(echo $TESTS | wc -w) programs for the initramfs"
