#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print the body of the code block that follows the comment
# ".. tested: NAME" in docs/adopting.rst, without its indentation, the
# way tests/host/adopt.sh and the guest's readme check run the documented
# instructions as written.  The marker is the line before the block:
#
#	.. tested: NAME
#	.. code-block:: sh
#
#		commands, indented (a tab, so that C keeps its tabs)
#
# Directive options (":caption: ...") are skipped; the body is every line
# indented at least as the first one, up to the first line that is not;
# blank lines inside it are kept, those at its end are not.  Prints
# nothing if there is no such block.
#
# usage: readme-block.sh NAME [FILE]
set -eu
[ $# -ge 1 ] || { echo "usage: readme-block.sh NAME [FILE]" >&2; exit 2; }
awk -v n="$1" '
	state == 0 && $0 == ".. tested: " n { state = 1; next }
	state == 0 { next }
	# the directive, then its options up to a blank line
	state == 1 && /^\.\. code-block::/ { state = 2; next }
	state == 1 { exit }
	state == 2 && /^[ \t]*$/ { state = 3; next }
	state == 2 && /^[ \t]+:/ { next }
	state == 2 { exit }
	# the body
	/^[ \t]*$/ { if (ind != "") blank++; next }
	ind == "" {
		if (!match($0, /^[ \t]+/)) exit
		ind = substr($0, 1, RLENGTH)
	}
	substr($0, 1, length(ind)) != ind { exit }
	{
		for (; blank > 0; blank--)
			print ""
		print substr($0, length(ind) + 1)
	}' "${2:-$(dirname "$0")/../docs/adopting.rst}"
