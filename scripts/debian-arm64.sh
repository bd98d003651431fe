#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Download Debian arm64 packages and unpack them, without touching the
# host's apt or dpkg state: apt-get runs with a private configuration
# under OUT/apt (its own sources list, package lists and cache,
# architecture arm64) and nothing is installed.  The packages are
# unpacked into OUT/root; OUT/debs keeps the .deb files.
#
# usage: debian-arm64.sh OUT SUITE package...
#   (DEBIAN_MIRROR overrides http://deb.debian.org/debian)
set -eu

[ $# -ge 3 ] || { echo "usage: debian-arm64.sh OUT SUITE package..." >&2; exit 2; }
OUT=$1 SUITE=$2
shift 2
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
APT=$OUT/apt
name=$(basename "$OUT")

die() { echo "$name: error: $*" >&2; exit 1; }

rm -rf "$APT" "$OUT/debs" "$OUT/root"
mkdir -p "$APT/lists/partial" "$APT/cache/archives/partial" "$OUT/debs" "$OUT/root"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $MIRROR $SUITE main" \
	> "$APT/sources.list"
pkgs=$*
set -- -o Dir::Etc::SourceList="$APT/sources.list" -o Dir::Etc::SourceParts=/dev/null \
	-o Dir::State::Lists="$APT/lists" -o Dir::Cache="$APT/cache" \
	-o Dir::State::status=/dev/null \
	-o APT::Architecture=arm64 -o APT::Architectures::=arm64
echo "$name: apt-get update ($SUITE, arm64, private lists)"
apt-get "$@" update -qq >/dev/null || die "apt-get update of $SUITE failed"
echo "$name: downloading $pkgs"
# shellcheck disable=SC2086
(cd "$OUT/debs" && apt-get "$@" download -qq $pkgs) 2>&1 |
	grep -v 'unsandboxed' >&2 || true
for p in $pkgs; do
	ls "$OUT/debs/${p}"_*_arm64.deb >/dev/null 2>&1 ||
		die "apt-get download $p ($SUITE, arm64) failed"
done
for deb in "$OUT/debs"/*.deb; do
	dpkg-deb -x "$deb" "$OUT/root"
done
