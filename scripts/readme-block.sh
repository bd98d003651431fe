#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the fenced block that follows "<!-- tested: NAME -->" in the
# README, the way tests/host/adopt.sh and the guest's readme check run
# the README's instructions as written.
#
# usage: readme-block.sh NAME [README]
set -eu
[ $# -ge 1 ] || { echo "usage: readme-block.sh NAME [README]" >&2; exit 2; }
awk -v n="$1" '
	$0 ~ "^<!-- tested: " n " -->$" { want = 1; next }
	want && /^```/ { if (inside) exit; inside = 1; next }
	inside { print }' "${2:-$(dirname "$0")/../README.md}"
