#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make docs builds warning-free: docs/ with Sphinx, warnings as errors,
# the drivers' kernel-doc through the kernel's own kerneldoc.py (a broken
# cross-reference or a kernel-doc warning fails).
# inputs: tree docs drivers include scripts/docs.sh
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
log=$TOP/build/logs/docs.log
mkdir -p "$TOP/build/logs"
if sh "$TOP/scripts/docs.sh" > "$log" 2>&1; then
	echo "   [PASSED] make docs: build/docs/index.html, no warning"
	echo "== docs: 1 passed, 0 failed"
else
	sed 's/^/   | /' "$log" | tail -30
	echo "   [FAILED] make docs: $(grep -c 'WARNING\|ERROR' "$log") warnings or errors (build/logs/docs.log)"
	echo "== docs: 0 passed, 1 failed"
fi
