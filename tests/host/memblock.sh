#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The kernel's own memblock simulator, tools/testing/memblock: it compiles
# mm/memblock.c of a kernel tree into a user-space program that checks the
# memblock API, MEMBLOCK_MOVABLE included (tests/movable_api.c, patch 0004).
#
#   tests/host/memblock.sh [KSRC]	(default: build/linux of this checkout)
#
# The simulator's Makefile builds in its source directory, so each build
# happens in build/memblock-sim/<name>, a tree of symbolic links to KSRC
# in which only tools/testing/memblock is a real directory: KSRC is never
# written to.  Logs stay in build/memblock-sim.
# Two runs: as built by default (no NUMA) and with NUMA=1.  One result
# per simulator test; a run that aborts without saying which test failed
# counts one failure.
# Needs liburcu-dev and libasan (scripts/deps.sh).
# inputs: tree
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=${1:-$TOP/build/linux}
OUT=$TOP/build/memblock-sim
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }

finish() {
	echo "== memblock-sim: $pass passed, $fail failed"
	[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 memblock-sim" >> "$RESULTS"
	[ $fail = 0 ] && exit 0
	exit 1
}

# Link every entry of directory $1 into $2, but for $3, which is created
# as a real directory.
link_but() {
	mkdir -p "$2/$3"
	for e in "$1"/* "$1"/.[!.]*; do
		[ -e "$e" ] || [ -L "$e" ] || continue
		[ "${e##*/}" = "$3" ] || ln -s "$e" "$2/${e##*/}"
	done
}

if [ ! -f "$KSRC/tools/testing/memblock/Makefile" ]; then
	ko "memblock-sim: $KSRC has no tools/testing/memblock"
	finish
fi
KSRC=$(cd "$KSRC" && pwd)

# The tree has MEMBLOCK_MOVABLE: its simulator must test it.
want_movable=
grep -q MEMBLOCK_MOVABLE "$KSRC/include/linux/memblock.h" && want_movable=1

# build <name> <make options>: a tree of its own for each build, so that
# the runs can go in parallel.
build() {
	name=$1
	shift
	sim=$OUT/$name/tools/testing/memblock
	link_but "$KSRC" "$OUT/$name" tools
	link_but "$KSRC/tools" "$OUT/$name/tools" testing
	link_but "$KSRC/tools/testing" "$OUT/$name/tools/testing" memblock
	rmdir "$sim"
	cp -rs "$KSRC/tools/testing/memblock" "$sim"
	# Whatever an in-place build left in KSRC is now a link here.
	make -C "$sim" clean >/dev/null 2>&1
	if ! make -C "$sim" -j2 "$@" main > "$OUT/$name.build" 2>&1; then
		ko "$name: build $*"
		grep -E 'error|Error' "$OUT/$name.build" | head -5 | sed 's/^/      /'
		return 1
	fi
}

# start <name> <simulator options>: run in the background, line-buffered
# so that what passed before a failed assertion is kept (libstdbuf is
# preloaded ahead of libasan, which ASan accepts when told).  Undefined
# behaviour stops the run like an ASan report does.
start() {
	name=$1
	shift
	(cd "$OUT/$name/tools/testing/memblock" &&
	 ASAN_OPTIONS=verify_asan_link_order=0 \
	 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	 stdbuf -oL -eL ./main -v "$@"
	 printf '\nexit %s\n' $?) > "$OUT/$name.log" 2>&1 &
}

# report <name>: one result per "ok N : ...: passed" or
# "not ok N : ...: failed" line.
report() {
	name=$1
	log=$OUT/$name.log
	rc=$(sed -n 's/^exit //p' "$log" | tail -1)
	sed -n 's/^\(not \)*ok [0-9]* : /&/p' "$log" > "$log.tap"
	n=0 bad=0
	while IFS= read -r l; do
		case $l in
		"ok "*) l=${l#*: }; ok "$name: ${l%: passed}" ;;
		*) l=${l#*: }; ko "$name: ${l%: failed}"; bad=$((bad + 1)) ;;
		esac
		n=$((n + 1))
	done < "$log.tap"
	if [ "${rc:-none}" != 0 ]; then
		why=$(grep -m1 -e Assertion -e 'ERROR: ' -e 'runtime error' "$log")
		[ -n "$why" ] || why=$(grep -v -e '^ok ' -e '^not ok ' \
			-e Running -e '^exit ' -e '^$' "$log" | tail -1)
		if [ $bad = 0 ]; then
			ko "$name: simulator exited with ${rc:-none}: $why"
		else
			echo "      exit ${rc:-none}: $why"
		fi
	elif [ $n = 0 ]; then
		ko "$name: no test ran"
	elif [ -n "$want_movable" ] && ! grep -q '^ok .*movable' "$log"; then
		ko "$name: the tree has MEMBLOCK_MOVABLE, its simulator does not test it"
	fi
}

rm -rf "$OUT"
mkdir -p "$OUT"
ran=
build default && start default && ran="$ran default"
build numa NUMA=1 && start numa && ran="$ran numa"
wait
for name in $ran; do
	report "$name"
done
rm -rf "$OUT/default" "$OUT/numa"
finish
