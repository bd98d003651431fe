#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Configure and build one kernel flavour: configs/base.config plus
# configs/<flavour>.config merged onto allnoconfig with the kernel's own
# merge_config.sh, built out of tree in build/obj-<flavour> through ccache.
#
# usage: build-kernel.sh <flavour>
#
# The flavour "unpatched" is the test kernel (base + test + unpatched
# fragments) built from Linux 6.12 without the series, a git worktree of
# the tag "pristine" in build/linux-unpatched: make bench's baseline for
# what the series costs when no DMB is used.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
flavour=${1:?usage: build-kernel.sh <flavour>}
KSRC=$TOP/build/linux
OBJ=$TOP/build/obj-$flavour
LOG=$TOP/build/logs/build-$flavour.log
frag=$TOP/configs/$flavour.config

die() { echo "build-kernel: error: $*" >&2; exit 1; }

frags="$TOP/configs/base.config $frag"
if [ "$flavour" = unpatched ]; then
	frags="$TOP/configs/base.config $TOP/configs/test.config $frag"
	[ -d "$KSRC/.git" ] || die "no kernel tree in build/linux: run scripts/prepare-kernel.sh"
	want_head=$(git -C "$KSRC" rev-parse pristine)
	KSRC=$TOP/build/linux-unpatched
	if [ "$(git -C "$KSRC" rev-parse -q HEAD 2>/dev/null)" != "$want_head" ]; then
		rm -rf "$KSRC"
		git -C "$TOP/build/linux" worktree prune
		git -C "$TOP/build/linux" worktree add -q --detach "$KSRC" pristine ||
			die "cannot check out the unpatched tree"
	fi
fi

[ -f "$frag" ] || die "no kernel config configs/$flavour.config (have: $(cd "$TOP/configs" && ls *.config | sed 's/\.config$//' | grep -v '^base$' | tr '\n' ' '))"
[ -d "$KSRC" ] || die "no kernel tree in build/linux: run scripts/prepare-kernel.sh"

mkdir -p "$OBJ" "$TOP/build/logs"
# A -s from the calling make would silence the log we keep for errors.
unset MAKEFLAGS MFLAGS MAKELEVEL
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
. "$TOP/scripts/ccache-env.sh"

# shellcheck disable=SC2086
want=$(cat $frags "$TOP/build/.series-stamp" 2>/dev/null | sha256sum | cut -d' ' -f1)
if [ ! -f "$OBJ/.config" ] || [ "$(cat "$OBJ/.frag-stamp" 2>/dev/null)" != "$want" ]; then
	echo "build-kernel: configuring $flavour"
	# shellcheck disable=SC2086
	(cd "$KSRC" && scripts/kconfig/merge_config.sh -n -O "$OBJ" $frags) \
		> "$LOG" 2>&1 ||
		{ tail -20 "$LOG" >&2; die "configuring $flavour failed (full log: $LOG)"; }
	# merge_config warns when a requested value did not stick (a typo or
	# an unmet dependency): that is an error in our fragments.
	# (The unpatched tree lacks the options the series adds: those it
	# may refuse.)
	ours=
	[ "$flavour" != unpatched ] ||
		ours=$(sed -n 's/^+config \([A-Z0-9_]*\)$/CONFIG_\1/p' "$TOP"/patches/*.patch | sort -u)
	if awk -v ours="$ours" '
		BEGIN { n = split(ours, o, "\n"); for (i = 1; i <= n; i++) skip[o[i]] = 1 }
		/^Value requested for/ { mine = !($4 in skip) }
		/^Actual value/ && mine { bad = 1 }
		END { exit !bad }' "$LOG"; then
		grep -B1 -A3 '^Value requested for' "$LOG" >&2
		die "configs/base.config or configs/$flavour.config asks for values Kconfig refused"
	fi
	echo "$want" > "$OBJ/.frag-stamp"
fi

# Kbuild takes 8 s to find that nothing changed, on every make test,
# make scenario and bench: skip it when the configuration and the tree
# (its commit, uncommitted changes and untracked files) are those of the
# last successful build.
state=$( {
	echo "$want"
	cat "$OBJ/.config" "$0"
	sh "$TOP/scripts/tree-state.sh" "$KSRC"
} | sha256sum | cut -d' ' -f1)
if [ -f "$OBJ/arch/arm64/boot/Image" ] &&
   [ "$(cat "$OBJ/.build-stamp" 2>/dev/null)" = "$state" ]; then
	exit 0
fi
rm -f "$OBJ/.build-stamp"

echo "build-kernel: building $flavour (log: build/logs/build-$flavour.log)"
if ! make -C "$KSRC" O="$OBJ" CC="ccache ${CROSS_COMPILE}gcc" -j"$(nproc)" \
		Image modules >> "$LOG" 2>&1; then
	grep -E 'error|Error' "$LOG" | head -20 >&2
	die "kernel build ($flavour) failed (full log: $LOG)"
fi
echo "$state" > "$OBJ/.build-stamp"
