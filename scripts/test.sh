#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make test: install what is missing, build every kernel flavour the
# scenarios use, run the host-side checks, boot every scenario, and print
# the total as "N passed, N failed" on the last line.
#
# SCENARIOS="a b" limits the boots to those scenarios; SCENARIO_FILES="..."
# boots those files instead and skips the host-side checks (make stress).
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
. scripts/scenario.sh

make -s deps prepare

# Read every scenario before building anything: a broken scenario file
# stops the run with its name and problem.
files=
if [ -n "${SCENARIO_FILES:-}" ]; then
	files=$SCENARIO_FILES
elif [ -n "${SCENARIOS:-}" ]; then
	for s in $SCENARIOS; do files="$files tests/scenarios/$s.scn"; done
else
	files=$(ls tests/scenarios/*.scn)
fi
configs= bad=0
for f in $files; do
	if load_scenario "$f"; then
		case " $configs " in *" $SC_CONFIG "*) ;; *) configs="$configs $SC_CONFIG" ;; esac
	else
		bad=1
	fi
done
[ $bad = 0 ] || { echo "test: error: fix the scenario files above" >&2; exit 1; }

for c in $configs; do
	make -s kernel-"$c" modules-"$c"
done
make -s dtbs guest

RESULTS=$TOP/build/results
export RESULTS
: > "$RESULTS"
LOG=$TOP/build/logs/test.log
mkdir -p "$TOP/build/logs"

# Everything below also goes to build/logs/test.log, from which the names
# of failed tests are listed at the end.
{
if [ -z "${SCENARIO_FILES:-}" ]; then
	echo "== host-side checks"
	sh tests/host/run.sh || true
	echo "== static checks"
	sh tests/host/static.sh || true
	echo "== device tree bindings and boards"
	sh tests/bindings/run.sh || true
fi

for f in $files; do
	sh scripts/run-scenario.sh --no-build "$f" || true
done

if [ -z "${SCENARIO_FILES:-}${SCENARIOS:-}" ]; then
	# make bench is not a test; that it runs and produces every
	# metric is.
	echo "== make bench at a small size"
	BENCH_SIZE=small sh scripts/bench.sh || true
fi
} 2>&1 | tee "$LOG"

if grep -qE '^ *\[FAILED\]|^FAIL |^ *\[CRASHED\]' "$LOG"; then
	echo
	echo "== failed"
	grep -E '^ *\[FAILED\]|^FAIL |^ *\[CRASHED\]|^== .*: [0-9]+ passed, [1-9]' "$LOG" | sed 's/^ */   /'
fi

echo
echo "== summary"
awk '{ printf "%-40s %3d passed, %d failed%s\n", $4, $1, $2, $3 ? ", " $3 " skipped" : "" }' "$RESULTS"
awk '{ p += $1; f += $2; s += $3 }
     END { printf "%d passed, %d failed%s\n", p, f, s ? ", " s " skipped" : "" ; exit f > 0 }' "$RESULTS"
