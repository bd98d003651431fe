# SPDX-License-Identifier: GPL-2.0
# Sourced by build-kernel.sh and build-modules.sh: where ccache keeps the
# objects, and how it names them.
#
# One cache per user, not per clone: a new clone, a worktree or a second
# checkout on the same machine builds a kernel from it in about 25 s
# instead of 8-10 minutes.  CCACHE_DIR=... chooses another place;
# rm -rf ~/.cache/dmb-ccache empties it.
if [ -z "${CCACHE_DIR:-}" ]; then
	if [ -n "${HOME:-}" ] && [ -d "$HOME" ] && [ -w "$HOME" ]; then
		CCACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/dmb-ccache
	else
		CCACHE_DIR=$TOP/build/ccache
	fi
fi
export CCACHE_DIR
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-5G}
# Sources change by git reset when the series changes: let ccache hash
# contents, not timestamps.  Paths under build/ count relative to it, so
# that every clone hits the same entries.
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export CCACHE_BASEDIR=$TOP/build
