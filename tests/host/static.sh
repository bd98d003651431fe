#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Static checks with the kernel's own tools, one result each:
#  - scripts/checkpatch.pl --strict on every patch of patches/series;
#  - checkpatch --strict -f on the out-of-tree module sources;
#  - scripts/kernel-doc -none -Wall on the files the series adds and on
#    the module sources;
#  - W=1 and sparse (C=2) on mm/dmb.o and on the modules: no warnings.
# Needs build/linux prepared and build/obj-test built.
#
# A verdict depends only on the file judged, the options and the tree the
# tools come from (build/linux, named by scripts/tree-state.sh, and the
# versions of the tools and of this script): a clean one is
# remembered in build/cache/static under a hash of those, and the next run
# judges again only what changed (make check in an edit loop).  Failures
# are never remembered.  NO_CACHE=1 judges everything.
set -u
# The kernel's python helpers (spdxcheck.py) need Debian's python3-ply:
# use the system python3 even where another python3 comes first in PATH.
export PATH=/usr/bin:/bin:$PATH

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=$TOP/build/linux
OUT=$TOP/build/static
CACHE=$TOP/build/cache/static
mkdir -p "$OUT" "$CACHE"
[ -z "${NO_CACHE:-}" ] || rm -f "$CACHE"/*
pass=0 fail=0 cached=0
ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }
tree=$( {
	sh "$TOP/scripts/tree-state.sh" "$KSRC"
	cat "$0"
	aarch64-linux-gnu-gcc --version
	sparse --version
	perl -v
} 2>&1 | sha256sum | cut -c1-40)

# judged <output> <key files...> -- <command...>: run the command (output
# to <output>) unless it passed before on files of the same content and
# the same tree; succeeds when it passes.
judged() {
	jout=$1
	shift
	key=$( {
		echo "$tree"
		while [ "$1" != -- ]; do echo "$1"; cat "$1"; shift; done
		shift
		echo "$*"
	} | sha256sum | cut -c1-40)
	while [ "$1" != -- ]; do shift; done
	shift
	if [ -f "$CACHE/$key" ]; then
		cached=$((cached + 1))
		: > "$jout"
		return 0
	fi
	"$@" > "$jout" 2>&1 || return 1
	touch "$CACHE/$key"
}

# Debian's source has no upstream history: a Fixes: tag's commit id
# cannot be looked up (UNKNOWN_COMMIT_ID).  checkpatch asks whether a
# patch that adds or deletes files without touching MAINTAINERS needs to
# (FILE_PATH_CHANGES): get_maintainer.pl answers it, and the question is
# left out when a MAINTAINERS section lists every such file's directory.
covered() {
	for f in $(sed -n 's/^rename to //p; /^diff --git /{s/^diff --git a\/\([^ ]*\) .*/\1/;h};/^\(new\|deleted\) file mode/{x;p}' "$1"); do
		(cd "$KSRC" && ./scripts/get_maintainer.pl --no-git -f "$(dirname "$f")" 2>/dev/null) |
			grep -q '(maintainer:' || return 1
	done
}
for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series"); do
	mkdir -p "$(dirname "$OUT/$p")"
	ign=UNKNOWN_COMMIT_ID
	covered "$TOP/patches/$p" && ign=$ign,FILE_PATH_CHANGES
	if judged "$OUT/$p.checkpatch" "$TOP/patches/$p" -- \
			sh -c 'cd "$1" && ./scripts/checkpatch.pl --strict -q --ignore "$3" "$2"' - "$KSRC" "$TOP/patches/$p" "$ign"; then
		ok "checkpatch --strict $p"
	else
		ko "checkpatch --strict $p"
		sed 's/^/      /' "$OUT/$p.checkpatch" | head -20
	fi
done

# No symbol called plain "dmb": on arm and arm64 that is the barrier
# dmb(), and grep and readers mistake one for the other (issue 10).
hits=$(cd "$TOP" && grep -nE '^\+.*\b(struct|union|enum) dmb\b([^_]|$)|^\+.*\b(dmb)[[:space:]]*\(' patches/*.patch patches/*/*.patch;
	cd "$TOP" && grep -rnE '\b(struct|union|enum) dmb\b([^_]|$)|(^|[^_a-z.>])dmb[[:space:]]*\(' drivers include 2>/dev/null)
if [ -z "$hits" ]; then
	ok "no symbol named plain dmb (the arm barrier's name)"
else
	ko "no symbol named plain dmb (the arm barrier's name)"
	echo "$hits" | sed 's/^/      /' | head -10
fi

# The series for upstream exports nothing: a symbol with no in-tree user
# is not merged.  What the out-of-tree modules need is carried in
# patches/gki/, and only there (issue 31).
hits=$(cd "$TOP" && sed -e 's/#.*//' -e '/^[[:space:]]*$/d' -e '/^gki\//d' patches/series |
	while read -r p; do
		# an export a patch only moves (removed and added) is not new
		awk -v p="$p" '/^[-+][[:space:]]*EXPORT_SYMBOL/ {
			n = $0; sub(/^[-+][^(]*\(/, "", n); sub(/\).*/, "", n)
			if (substr($0, 1, 1) == "+") add[n] = 1; else del[n] = 1
		} END { for (n in add) if (!(n in del)) print p ": exports " n }' "patches/$p"
	done)
if [ -z "$hits" ]; then
	ok "no patch outside patches/gki/ exports a symbol"
else
	ko "no patch outside patches/gki/ exports a symbol"
	echo "$hits" | sed 's/^/      /' | head -10
fi

srcs=$(cd "$TOP" && find drivers include -name '*.[ch]' 2>/dev/null | sort)
for f in $srcs; do
	if judged "$OUT/checkpatch.out" "$TOP/$f" -- \
			sh -c 'cd "$1" && ./scripts/checkpatch.pl --strict -q --no-tree -f "$2"' - "$KSRC" "$TOP/$f"; then
		ok "checkpatch --strict -f $f"
	else
		ko "checkpatch --strict -f $f"
		sed 's/^/      /' "$OUT/checkpatch.out" | head -20
	fi
done

for f in mm/dmb.c mm/dmb_rules.h include/linux/dmb.h; do
	[ -f "$KSRC/$f" ] || continue
	if out=$(cd "$KSRC" && ./scripts/kernel-doc -none -Wall "$f" 2>&1) && [ -z "$out" ]; then
		ok "kernel-doc -Wall $f"
	else
		ko "kernel-doc -Wall $f"
		printf '%s\n' "$out" | sed 's/^/      /' | head -20
	fi
done
for f in $srcs; do
	if out=$("$KSRC/scripts/kernel-doc" -none -Wall "$TOP/$f" 2>&1) && [ -z "$out" ]; then
		ok "kernel-doc -Wall $f"
	else
		ko "kernel-doc -Wall $f"
		printf '%s\n' "$out" | sed 's/^/      /' | head -20
	fi
done

# W=1 and sparse on what we add: rebuild those objects with checks on.
export ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-
unset MAKEFLAGS MFLAGS MAKELEVEL
# In an object directory of their own, with the test kernel's .config: the
# test kernel's objects stay as they are (no relink next time) and boots
# running meanwhile are not disturbed.
CHK=$TOP/build/obj-check
mkdir -p "$CHK"
cmp -s "$TOP/build/obj-test/.config" "$CHK/.config" ||
	cp "$TOP/build/obj-test/.config" "$CHK/.config"
dmb_w1() {
	make -s -C "$KSRC" O="$CHK" W=1 C=2 CHECK=sparse mm/dmb.o > "$OUT/dmb-w1.log" 2>&1 &&
		! grep -E 'dmb.*(warning|error)' "$OUT/dmb-w1.log" >/dev/null
}
if judged "$OUT/dmb-w1.out" "$CHK/.config" -- dmb_w1; then
	ok "W=1 and sparse clean: mm/dmb.o"
else
	ko "W=1 and sparse on mm/dmb.o"
	head -20 "$OUT/dmb-w1.log" | sed 's/^/      /'
fi
# A copy of their own too: the boots' modules are not rebuilt under them.
modules_w1() {
	MODULES_EXT=ext-check sh "$TOP/scripts/build-modules.sh" test W=1 C=2 > "$OUT/mod-w1.log" 2>&1 &&
		! grep -E 'warning|error' "$TOP/build/logs/modules-ext-check.log" >/dev/null
}
# shellcheck disable=SC2046
if judged "$OUT/mod-w1.out" "$CHK/.config" "$TOP/scripts/build-modules.sh" \
		$(find "$TOP/Kbuild" "$TOP/drivers" "$TOP/include" -type f \( -name Kbuild -o -name '*.[ch]' \) | sort) -- modules_w1; then
	ok "W=1 and sparse clean: modules"
else
	ko "W=1 and sparse on the modules"
	grep -E 'warning|error' "$OUT/mod-w1.log" "$TOP/build/logs/modules-ext-check.log" | head -20 | sed 's/^/      /'
fi

[ $cached = 0 ] || echo "   ($cached of them judged clean before on the same content: build/cache/static; NO_CACHE=1 judges all)"
echo "== static: $pass passed, $fail failed"
[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 static-checks" >> "$RESULTS"
[ $fail = 0 ]
