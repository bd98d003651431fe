#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# docs/adopting.rst, executed as written: every block marked
# ".. tested: NAME" is taken from it by scripts/readme-block.sh and run
# (or, for the configuration, compared), one result each:
#  - apply: git am of patches/ onto a scratch 6.12 (a sparse worktree of
#    build/linux at its pristine tag, holding only the files the series
#    touches) gives the tree make test builds;
#  - config: every option listed is set so in the test kernel's .config;
#  - modules: the module build against the test kernel's build directory,
#    in a copy of this repository, exactly as a user types it;
#  - example, example-build: the dmb_alloc() example driver builds the
#    documented way against that build and Module.symvers;
#  - the DMA-API example driver and the dma-buf heap example program
#    build as documented;
#  - every refusal text of mm/dmb_rules.h is explained in
#    docs/admin-guide.rst (its table of refusals).
# DMB, LINUX and KBUILD are the names the document uses for the user's
# paths.
# (what it reads, for tests/host/cached.sh: the tree, the kernel built
# from it with these configs, the documents and the module sources)
# inputs: tree patches build/obj-test/.config configs/base.config configs/test.config docs/adopting.rst docs/admin-guide.rst scripts/readme-block.sh Kbuild drivers include
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
OBJ=${KBUILD_TEST:-$TOP/build/obj-test}
OUT=$TOP/build/adopt
DOC=$TOP/docs/adopting.rst
RULES_DOC=$TOP/docs/admin-guide.rst
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }
finish() {
	echo "== adopt: $pass passed, $fail failed"
	[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 adopt" >> "$RESULTS"
	[ $fail = 0 ] && exit 0
	exit 1
}
unset MAKEFLAGS MFLAGS MAKELEVEL

# block <name>: the code block after ".. tested: name"
block() {
	sh "$TOP/scripts/readme-block.sh" "$1" "$DOC"
}

# run <name> <dir>: the block, as a shell script, from <dir>
run() {
	block "$1" > "$OUT/$1.sh"
	if [ ! -s "$OUT/$1.sh" ]; then
		echo "docs/adopting.rst has no block '$1'" > "$OUT/$1.log"
		return 1
	fi
	(cd "$2" && DMB=$OUT/dmb LINUX=$OUT/linux KBUILD=$OBJ \
		nice -n 10 sh -eu "$OUT/$1.sh") > "$OUT/$1.log" 2>&1
}

if [ -d "$OUT/linux" ]; then
	git -C "$KSRC" worktree remove --force "$OUT/linux" 2>/dev/null || rm -rf "$OUT/linux"
fi
git -C "$KSRC" worktree prune 2>/dev/null
rm -rf "$OUT"
mkdir -p "$OUT"

# apply
touched=$(grep -h '^diff --git' "$TOP"/patches/*.patch "$TOP"/patches/*/*.patch | awk '{ print "/" substr($3, 3) }' | sort -u)
if git -C "$KSRC" worktree add -q --no-checkout --detach "$OUT/linux" pristine > "$OUT/apply.log" 2>&1 &&
   (cd "$OUT/linux" && git sparse-checkout set --no-cone $touched && git checkout -q &&
	git config --worktree user.name "adopt test" && git config --worktree user.email adopt@localhost) >> "$OUT/apply.log" 2>&1 &&
   mkdir -p "$OUT/dmb" && cp -r "$TOP/patches" "$OUT/dmb/" && run apply "$TOP"; then
	# the same files as the tree make test built from patches/series
	diffs=$(for f in $touched; do
		f=${f#/}
		if [ -e "$OUT/linux/$f" ] || [ -e "$KSRC/$f" ]; then
			cmp -s "$OUT/linux/$f" "$KSRC/$f" || echo "$f"
		fi
	done)
	if [ -z "$diffs" ]; then
		ok "adopting.rst apply: git am in the order of patches/series onto 6.12 ($(git -C "$OUT/linux" rev-list --count pristine..HEAD) patches)"
	else
		ko "adopting.rst apply: the result differs from build/linux in: $diffs"
	fi
else
	ko "adopting.rst apply"
	tail -5 "$OUT/apply.log" "$OUT/apply.log" 2>/dev/null | sed 's/^/      /'
fi
git -C "$KSRC" worktree remove --force "$OUT/linux" > /dev/null 2>&1

# config
bad=
for opt in $(block config | sed -n 's/^\(CONFIG_[A-Z0-9_]*=[^ ]*\).*/\1/p'); do
	grep -qx "$opt" "$OBJ/.config" || bad="$bad $opt"
done
if [ -z "$(block config)" ]; then
	ko "adopting.rst has no config block"
elif [ -z "$bad" ]; then
	ok "adopting.rst config: every option is set so in the test kernel"
else
	ko "adopting.rst config: not so in the test kernel:$bad"
fi

# modules, in a copy of the repository (Kbuild writes next to the sources)
mkdir -p "$OUT/dmb"
(cd "$TOP" && cp -r Kbuild drivers include "$OUT/dmb/")
if run modules "$OUT/dmb" && [ -f "$OUT/dmb/drivers/dmb/dmb_alloc.ko" ] &&
   [ -f "$OUT/dmb/Module.symvers" ]; then
	ok "adopting.rst modules: make -C \$KBUILD M=\$PWD builds $(find "$OUT/dmb" -name '*.ko' | wc -l) modules"
else
	ko "adopting.rst modules"
	grep -E 'error|Error' "$OUT/modules.log" | head -8 | sed 's/^/      /'
fi

# the dmb_alloc() example
block "example my_decoder.c" > "$OUT/my_decoder.c"
if [ ! -s "$OUT/my_decoder.c" ]; then
	ko "adopting.rst has no dmb_alloc() example"
elif run example-build "$OUT" && [ -f "$OUT/my_decoder/my_decoder.ko" ]; then
	ok "adopting.rst dmb_alloc() example builds as documented"
	if modinfo "$OUT/my_decoder/my_decoder.ko" 2>/dev/null | grep -q '^depends:.*dmb_alloc'; then
		ok "adopting.rst example: my_decoder.ko depends on dmb_alloc"
	else
		ko "adopting.rst example: my_decoder.ko does not depend on dmb_alloc"
	fi
	if perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree -q -f "$OUT/my_decoder.c" > "$OUT/checkpatch.log" 2>&1; then
		ok "adopting.rst example: checkpatch --strict clean"
	else
		ko "adopting.rst example: checkpatch --strict"
		head -10 "$OUT/checkpatch.log" | sed 's/^/      /'
	fi
else
	ko "adopting.rst dmb_alloc() example does not build"
	grep -E 'error|warning|Error' "$OUT/example-build.log" | head -8 | sed 's/^/      /'
fi

# the DMA-API example driver and the heap example program
block "example my_capture.c" > "$OUT/my_capture.c"
if [ ! -s "$OUT/my_capture.c" ]; then
	ko "adopting.rst has no DMA-API example"
elif run example-dma-build "$OUT" && [ -f "$OUT/my_capture/my_capture.ko" ] &&
     perl "$KSRC/scripts/checkpatch.pl" --strict --no-tree -q -f "$OUT/my_capture.c" \
	> "$OUT/checkpatch-dma.log" 2>&1; then
	ok "adopting.rst DMA-API example builds as documented, checkpatch --strict clean"
else
	ko "adopting.rst DMA-API example"
	grep -E 'error|warning|Error|WARNING|CHECK' "$OUT/example-dma-build.log" \
		"$OUT/checkpatch-dma.log" 2>/dev/null | head -8 | sed 's/^/      /'
fi
block "example heap_alloc.c" > "$OUT/heap_alloc.c"
if [ ! -s "$OUT/heap_alloc.c" ]; then
	ko "adopting.rst has no dma-buf heap example"
elif run example-heap-build "$OUT" && [ -x "$OUT/heap_alloc" ] &&
     ! grep -q 'warning' "$OUT/example-heap-build.log"; then
	ok "adopting.rst dma-buf heap example builds as documented, no warnings"
else
	ko "adopting.rst dma-buf heap example"
	head -8 "$OUT/example-heap-build.log" | sed 's/^/      /'
fi

# Every refusal of the rules is explained
missing=
for m in $(sed -n 's/^#define \(DMB_MSG_[A-Z_0-9]*\).*/\1/p' "$KSRC/mm/dmb_rules.h"); do
	# the longest literal piece of the reason
	piece=$(sed -n "s/^#define $m[[:space:]]*\"%s: rejected: \(.*\)\\\\n\"\$/\1/p" "$KSRC/mm/dmb_rules.h" |
		sed 's/%[a-z]*/\n/g' | awk '{ if (length($0) > length(l)) l = $0 } END { print l }' |
		sed 's/^ *//; s/ *$//')
	grep -qF -- "$piece" "$RULES_DOC" || missing="$missing $m ($piece)"
done
if [ -z "$missing" ]; then
	ok "admin-guide.rst explains every refusal of mm/dmb_rules.h"
else
	ko "admin-guide.rst does not explain:$missing"
fi
finish
