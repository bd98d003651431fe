#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print one hash naming the state of a git work tree: its commit, its
# uncommitted changes and its untracked files (not the ignored ones).
# Build and check caches key on it, so that a hand edit in build/linux
# counts as a change.  When git cannot tell, print a hash that matches
# nothing, so that a cache misses rather than replays.
#
#   scripts/tree-state.sh <dir>
set -u
dir=${1:?usage: tree-state.sh <dir>}
{
	git -C "$dir" rev-parse HEAD &&
	git -C "$dir" diff HEAD --binary &&
	git -C "$dir" ls-files -z --others --exclude-standard |
		(cd "$dir" && xargs -0r sha256sum)
} 2>/dev/null | sha256sum | cut -d' ' -f1 |
	{ read -r h && [ "$(git -C "$dir" rev-parse -q HEAD 2>/dev/null)" ] &&
		echo "$h" || echo "unknown-$$-$(date +%s%N)"; }
