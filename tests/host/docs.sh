#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make docs builds warning-free: docs/ with Sphinx, warnings as errors,
# the drivers' kernel-doc through the kernel's own kerneldoc.py (a broken
# cross-reference or a kernel-doc warning fails).
# inputs: tree docs drivers include scripts/docs.sh
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
log=$TOP/build/logs/docs.log
pass=0 fail=0
mkdir -p "$TOP/build/logs"
if sh "$TOP/scripts/docs.sh" > "$log" 2>&1; then
	pass=1
	echo "   [PASSED] make docs: build/docs/index.html, no warning"
else
	fail=1
	sed 's/^/   | /' "$log" | tail -30
	echo "   [FAILED] make docs: $(grep -c 'WARNING\|ERROR\|warning' "$log") warnings or errors (build/logs/docs.log)"
fi
echo "== docs: $pass passed, $fail failed"
[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 docs" >> "$RESULTS"
[ $fail = 0 ]
