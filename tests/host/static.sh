#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Static checks with the kernel's own tools, one result each:
#  - scripts/checkpatch.pl --strict on every patch of patches/series;
#  - checkpatch --strict -f on the out-of-tree module sources;
#  - scripts/kernel-doc -none -Wall on the files the series adds and on
#    the module sources;
#  - W=1 and sparse (C=2) on mm/dmb.o and on the modules: no warnings.
# Needs build/linux prepared and build/obj-test built.
set -u
# The kernel's python helpers (spdxcheck.py) need Debian's python3-ply:
# use the system python3 even where another python3 comes first in PATH.
export PATH=/usr/bin:/bin:$PATH

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=$TOP/build/linux
OUT=$TOP/build/static
mkdir -p "$OUT"
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }

for p in $(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$TOP/patches/series"); do
	if (cd "$KSRC" && ./scripts/checkpatch.pl --strict -q "$TOP/patches/$p") > "$OUT/$p.checkpatch" 2>&1; then
		ok "checkpatch --strict $p"
	else
		ko "checkpatch --strict $p"
		sed 's/^/      /' "$OUT/$p.checkpatch" | head -20
	fi
done

# No symbol called plain "dmb": on arm and arm64 that is the barrier
# dmb(), and grep and readers mistake one for the other (issue 10).
hits=$(cd "$TOP" && grep -nE '^\+.*\b(struct|union|enum) dmb\b([^_]|$)|^\+.*\b(dmb)[[:space:]]*\(' patches/*.patch;
	cd "$TOP" && grep -rnE '\b(struct|union|enum) dmb\b([^_]|$)|(^|[^_a-z.>])dmb[[:space:]]*\(' drivers include 2>/dev/null)
if [ -z "$hits" ]; then
	ok "no symbol named plain dmb (the arm barrier's name)"
else
	ko "no symbol named plain dmb (the arm barrier's name)"
	echo "$hits" | sed 's/^/      /' | head -10
fi

srcs=$(cd "$TOP" && find drivers include -name '*.[ch]' 2>/dev/null | sort)
for f in $srcs; do
	if (cd "$KSRC" && ./scripts/checkpatch.pl --strict -q --no-tree -f "$TOP/$f") > "$OUT/checkpatch.out" 2>&1; then
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
if make -s -C "$KSRC" O="$CHK" W=1 C=2 CHECK=sparse mm/dmb.o > "$OUT/dmb-w1.log" 2>&1 &&
   ! grep -E 'dmb.*(warning|error)' "$OUT/dmb-w1.log" >/dev/null; then
	ok "W=1 and sparse clean: mm/dmb.o"
else
	ko "W=1 and sparse on mm/dmb.o"
	head -20 "$OUT/dmb-w1.log" | sed 's/^/      /'
fi
# A copy of their own too: the boots' modules are not rebuilt under them.
if MODULES_EXT=ext-check sh "$TOP/scripts/build-modules.sh" test W=1 C=2 > "$OUT/mod-w1.log" 2>&1 &&
   ! grep -E 'warning|error' "$TOP/build/logs/modules-ext-check.log" >/dev/null; then
	ok "W=1 and sparse clean: modules"
else
	ko "W=1 and sparse on the modules"
	grep -E 'warning|error' "$OUT/mod-w1.log" "$TOP/build/logs/modules-ext-check.log" | head -20 | sed 's/^/      /'
fi

echo "== static: $pass passed, $fail failed"
[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 static-checks" >> "$RESULTS"
[ $fail = 0 ]
