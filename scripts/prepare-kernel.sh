#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Unpack Debian's linux-source-6.12 into build/linux as a git tree and apply
# patches/series with git am.  The work is keyed on a hash of the series and
# of every patch it names: an unchanged series costs nothing, a changed one
# resets the tree to the pristine commit and re-applies (files that do not
# change keep their timestamps, so the rebuild stays incremental).
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
SRC_TAR=${SRC_TAR:-/usr/src/linux-source-6.12.tar.xz}
KSRC=$TOP/build/linux
SERIES=$TOP/patches/series
STAMP=$TOP/build/.series-stamp

die() { echo "prepare-kernel: error: $*" >&2; exit 1; }

[ -f "$SRC_TAR" ] || die "$SRC_TAR missing (package linux-source-6.12)"

# Hash the series file and the patches in order; comments and blank lines
# in series are ignored like quilt does.
series_hash() {
	{
		echo "tar $(stat -c %s "$SRC_TAR")"
		if [ -f "$SERIES" ]; then
			sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES" |
			while read -r p; do
				[ -f "$TOP/patches/$p" ] ||
					die "patches/series names $p, which does not exist"
				echo "$p"
				cat "$TOP/patches/$p"
			done
		fi
	} | sha256sum | cut -d' ' -f1
}

want=$(series_hash)
if [ -d "$KSRC/.git" ] && [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ]; then
	exit 0
fi

if ! git -C "$KSRC" rev-parse -q --verify refs/tags/pristine >/dev/null 2>&1; then
	echo "prepare-kernel: unpacking $SRC_TAR"
	rm -rf "$KSRC" "$KSRC.tmp"
	mkdir -p "$KSRC.tmp"
	tar -C "$KSRC.tmp" --strip-components=1 -xJf "$SRC_TAR"
	(
		cd "$KSRC.tmp"
		git init -q
		git config user.name "dmb build"
		git config user.email "build@localhost"
		git config gc.auto 0
		git add -f -A
		git commit -q -m "Linux 6.12 (Debian linux-source-6.12)"
		git tag pristine
	)
	mv "$KSRC.tmp" "$KSRC"
fi

cd "$KSRC"
git am --abort >/dev/null 2>&1 || true
# A branch of its own, so that work on other branches survives.
git checkout -q -f -B series pristine
git clean -qfdx -e '/.git'
rm -f "$STAMP"
if [ -f "$SERIES" ]; then
	for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$SERIES"); do
		if ! git am -q --keep-cr "$TOP/patches/$p"; then
			git am --abort >/dev/null 2>&1 || true
			die "patches/$p does not apply to Linux 6.12"
		fi
		echo "prepare-kernel: applied $p"
	done
fi
echo "$want" > "$STAMP"
