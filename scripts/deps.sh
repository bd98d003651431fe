#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Install the Debian packages the build, the boots and the tests need,
# but only those that are missing: a warm machine pays one dpkg query.
set -eu

PKGS="linux-source-6.12 gcc-aarch64-linux-gnu libc6-dev-arm64-cross
qemu-system-arm qemu-efi-aarch64 device-tree-compiler dt-schema
flex bison bc libssl-dev libelf-dev sparse ccache cpio kmod
e2fsprogs gnuplot-nox liburcu-dev make git python3 python3-ply python3-git python3-sphinx xz-utils perl"

missing=
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null |
			grep -q '^install ok installed$'; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

echo "deps: installing:$missing"
if [ "$(id -u)" != 0 ]; then
	echo "deps: error: need root to install:$missing" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || { echo "deps: error: apt-get update failed" >&2; exit 1; }
# shellcheck disable=SC2086
if ! apt-get install -y -qq --no-install-recommends $missing >/dev/null; then
	echo "deps: error: could not install:$missing" >&2
	exit 1
fi
