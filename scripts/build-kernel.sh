#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel flavour: configs/base.config plus
# configs/<flavour>.config merged onto allnoconfig with the kernel's own
# merge_config.sh, built out of tree in build/obj-<flavour> through ccache.
#
# usage: build-kernel.sh <flavour>
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:?usage: build-kernel.sh <flavour>}
KSRC=$TOP/build/linux
OBJ=$TOP/build/obj-$flavour
LOG=$TOP/build/logs/build-$flavour.log
frag=$TOP/configs/$flavour.config

die() { echo "build-kernel: error: $*" >&2; exit 1; }

[ -f "$frag" ] || die "no kernel config configs/$flavour.config (have: $(cd "$TOP/configs" && ls *.config | sed 's/\.config$//' | grep -v '^base$' | tr '\n' ' '))"
[ -d "$KSRC" ] || die "no kernel tree in build/linux: run scripts/prepare-kernel.sh"

mkdir -p "$OBJ" "$TOP/build/logs"
# A -s from the calling make would silence the log we keep for errors.
unset MAKEFLAGS MFLAGS MAKELEVEL
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
export CCACHE_DIR=${CCACHE_DIR:-$TOP/build/ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Sources change by git reset when the series changes: let ccache hash
# contents, not timestamps, and ignore the build path in debug info.
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_BASEDIR=$TOP/build

want=$(cat "$TOP/configs/base.config" "$frag" "$TOP/build/.series-stamp" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.frag-stamp" 2>/dev/null)" != "$want" ]; then
	echo "build-kernel: configuring $flavour"
	(cd "$KSRC" && scripts/kconfig/merge_config.sh -n -O "$OBJ" \
		"$TOP/configs/base.config" "$frag") > "$LOG" 2>&1 ||
		{ tail -20 "$LOG" >&2; die "configuring $flavour failed (full log: $LOG)"; }
	# merge_config warns when a requested value did not stick (a typo or
	# an unmet dependency): that is an error in our fragments.
	if grep -A3 '^Value requested for' "$LOG" | grep -q 'Actual value'; then
		grep -B1 -A3 '^Value requested for' "$LOG" >&2
		die "configs/base.config or configs/$flavour.config asks for values Kconfig refused"
	fi
	echo "$want" > "$OBJ/.frag-stamp"
fi

echo "build-kernel: building $flavour (log: build/logs/build-$flavour.log)"
if ! make -C "$KSRC" O="$OBJ" CC="ccache ${CROSS_COMPILE}gcc" -j"$(nproc)" \
		Image modules >> "$LOG" 2>&1; then
	grep -E 'error|Error' "$LOG" | head -20 >&2
	die "kernel build ($flavour) failed (full log: $LOG)"
fi
