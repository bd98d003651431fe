#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Run a host-side check, or replay its last pass when nothing it reads
# has changed (make check in an edit loop; ccache's idea for results).
#
#   tests/host/cached.sh <check script>
#
# A check says what it reads in a header line of its own:
#
#   # inputs: tree configs/base.config drivers
#
# "tree" is build/linux, named by scripts/tree-state.sh (its commit,
# uncommitted changes and untracked files); any other word is a file or a directory of this repository,
# whose names and contents count.  The script itself always counts.  A
# check without that line always runs, and so does one pointed at another
# tree (KSRC or KBUILD_TEST set).  Only passes are remembered
# (build/cache/checks/<hash>), and only when the inputs did not change
# while the check ran: a failure runs again next time.  NO_CACHE=1 runs
# the check whatever is remembered.
set -eu

TOP=$(cd "$(dirname "$0")/../.." && pwd)
script=${1:?usage: cached.sh <check script>}
CACHE=$TOP/build/cache/checks
inputs=$(sed -n 's/^# inputs: //p' "$script")

if [ -z "$inputs" ] || [ -n "${NO_CACHE:-}${KSRC:-}${KBUILD_TEST:-}" ]; then
	exec sh "$script"
fi

inputs_key() {
	{
	echo "$script"
	cat "$script" "$0"
	for i in $inputs; do
		if [ "$i" = tree ]; then
			echo "tree $(sh "$TOP/scripts/tree-state.sh" "$TOP/build/linux")"
		elif [ -e "$TOP/$i" ]; then
			(cd "$TOP" && find "$i" -type f | LC_ALL=C sort | while read -r f; do
				echo "$f"
				cat "$f"
			done)
		else
			echo "missing $i"
		fi
	done
	} | sha256sum | cut -c1-40
}
key=$(inputs_key)

mkdir -p "$CACHE"
if [ -f "$CACHE/$key.out" ] && [ -f "$CACHE/$key.results" ]; then
	cat "$CACHE/$key.out"
	echo "   (replayed: passed on $(date -r "$CACHE/$key.out" '+%F %T') with the same $inputs; NO_CACHE=1 runs it)"
	[ -z "${RESULTS:-}" ] || cat "$CACHE/$key.results" >> "$RESULTS"
	exit 0
fi

tmp=$CACHE/$key.$$
rc=0
RESULTS=$tmp.results sh "$script" > "$tmp.out" 2>&1 || rc=$?
cat "$tmp.out"
[ -z "${RESULTS:-}" ] || [ ! -f "$tmp.results" ] || cat "$tmp.results" >> "$RESULTS"
if [ $rc = 0 ] && [ -s "$tmp.results" ] && [ "$(inputs_key)" = "$key" ] && ! awk '$2 != 0 { bad = 1 } END { exit !bad }' "$tmp.results"; then
	mv "$tmp.results" "$CACHE/$key.results"
	mv "$tmp.out" "$CACHE/$key.out"
else
	rm -f "$tmp.out" "$tmp.results"
fi
exit $rc
