#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make test: install what is missing, build every kernel flavour the
# scenarios use, run the host-side checks, boot every scenario, and print
# the total as "N passed, N failed" on the last line.
#
# SCENARIOS="a b" limits the boots to those scenarios; SCENARIO_FILES="..."
# boots those files instead and skips the host-side checks (make stress).
# CHECK_ONLY=1 runs only the host-side checks (make check).
# JOBS=n runs n checks or boots at once (default: the number of CPUs).
#
# The checks run from a pool: each boot, each host-side check and the
# small bench is one job, longest first (as measured in the previous run,
# build/logs/durations).  The first kernel flavour is built before the pool
# starts; the others build in the background meanwhile (taking one job's
# place), and their boots join the pool when their kernel is ready.  Each
# job's output is printed whole when it ends, followed by a progress line.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
cd "$TOP"
. scripts/scenario.sh

JOBS=${JOBS:-$(nproc)}
case $JOBS in ''|*[!0-9]*|0) echo "test: error: JOBS=$JOBS: want a number >= 1" >&2; exit 2 ;; esac
t0=$(date +%s)

make -s deps prepare

# Read every scenario before building anything: a broken scenario file
# stops the run with its name and problem.
files=
if [ -n "${CHECK_ONLY:-}" ]; then
	:
elif [ -n "${SCENARIO_FILES:-}" ]; then
	files=$SCENARIO_FILES
elif [ -n "${SCENARIOS:-}" ]; then
	for s in $SCENARIOS; do files="$files tests/scenarios/$s.scn"; done
else
	files=$(ls tests/scenarios/*.scn)
fi
configs= bad=0 fixtures=
for f in $files; do
	if load_scenario "$f"; then
		case " $configs " in *" $SC_CONFIG "*) ;; *) configs="$configs $SC_CONFIG" ;; esac
		case $SC_BOARD in */*) fixtures="$fixtures $SC_BOARD" ;; esac
	else
		bad=1
	fi
done
[ $bad = 0 ] || { echo "test: error: fix the scenario files above" >&2; exit 1; }
host=0 bench=0
if [ -z "${SCENARIO_FILES:-}" ]; then
	host=1
	[ -n "${SCENARIOS:-}${CHECK_ONLY:-}" ] || bench=1
fi
# The test kernel first: the host checks and the small bench need it, and
# most boots use it.
case " $configs " in
*" test "*) configs="test $(echo $configs | tr ' ' '\n' | grep -vx test | tr '\n' ' ')" ;;
*) [ $host = 0 ] || configs="test $configs" ;;
esac

POOL=$TOP/build/pool
RESULTS=$TOP/build/results
LOG=$TOP/build/logs/test.log
DURATIONS=$TOP/build/logs/durations
export RESULTS
rm -rf "$POOL"
mkdir -p "$POOL" "$TOP/build/logs"
: > "$RESULTS"

# The first flavour now; the rest in the background, one after the other.
# shellcheck disable=SC2086
set -- $configs
first=$1
shift
rest="$*"
# The guest side (Debian downloads, cross-compiled programs) builds
# beside the kernel: on a clean clone its downloads overlap the compile.
# make check needs no guest side: its host checks build what they run.
guest=guest
[ -z "${CHECK_ONLY:-}" ] || guest=
make -s -j2 kernel-"$first" modules-"$first" dtbs $guest
for b in $fixtures; do
	sh scripts/build-dtb.sh "$b"
done
touch "$POOL/ready-$first"
if [ -n "$rest" ]; then
	(
		for c in $rest; do
			if make -s kernel-"$c" modules-"$c" > "$POOL/build-$c.out" 2>&1; then
				touch "$POOL/ready-$c"
			else
				touch "$POOL/broken-$c"
			fi
		done
	) &
fi

# The job list: "<estimated seconds> <name> <flavour> <kind> <argument>",
# longest first.  The estimate is this machine's last measurement, else
# the committed one (tests/durations, so that a clean clone starts the
# long debug boots first too); never measured counts as long.
est() {
	awk -v n="$1" '$2 == n { s = $1 } END { print s == "" ? 9999 : s }' \
		/dev/null tests/durations $(! [ -f "$DURATIONS" ] || echo "$DURATIONS")
}
{
	if [ $host = 1 ]; then
		echo "$(est host-checks) host-checks test host tests/host/run.sh"
		echo "$(est memblock-sim) memblock-sim test host tests/host/memblock.sh"
		echo "$(est kconfig) kconfig test host tests/host/kconfig.sh"
		echo "$(est static-checks) static-checks test host tests/host/static.sh"
		echo "$(est dt-bindings) dt-bindings test host tests/bindings/run.sh"
		echo "$(est check-dts) check-dts test host tests/host/check-dts.sh"
		echo "$(est adopt) adopt test host tests/host/adopt.sh"
		echo "$(est docs) docs test host tests/host/docs.sh"
	fi
	[ $bench = 0 ] || echo "$(est bench-small) bench-small test bench -"
	# (load_scenario uses $f itself)
	for scn in $files; do
		load_scenario "$scn"
		echo "$(est "$SC_NAME") $SC_NAME $SC_CONFIG scn $scn"
	done
} | awk '$5 == "-" || $4 != "host" || system("test -f " $5) == 0' |
	sort -s -k1,1nr > "$POOL/pending"
total=$(wc -l < "$POOL/pending")

run_job() {	# run_job <name> <kind> <argument>
	case $2 in
	scn) sh scripts/run-scenario.sh --no-build "$3" ;;
	host) sh tests/host/cached.sh "$3" ;;
	bench) BENCH_SIZE=small BENCH_NO_BUILD=1 sh scripts/bench.sh ;;
	esac > "$POOL/$1.out" 2>&1 || :
	touch "$POOL/$1.done"
}

elapsed() { s=$(( $(date +%s) - t0 )); printf '%d:%02d' $((s / 60)) $((s % 60)); }

# Start what fits: a job whose kernel is ready, while fewer than the
# allowed number run.  A background kernel build takes one place.
running= nrun=0 ndone=0
start_jobs() {
	slots=$JOBS
	for c in $rest; do
		if [ ! -f "$POOL/ready-$c" ] && [ ! -f "$POOL/broken-$c" ] && [ "$slots" -gt 1 ]; then
			slots=$((slots - 1))
			break
		fi
	done
	while [ $nrun -lt "$slots" ]; do
		job=$(while read -r e n c k a; do
			if [ -f "$POOL/ready-$c" ] || [ -f "$POOL/broken-$c" ]; then
				echo "$n $c $k $a"
				break
			fi
		done < "$POOL/pending")
		[ -n "$job" ] || break
		set -- $job
		awk -v n="$1" '$2 != n' "$POOL/pending" > "$POOL/pending.new"
		mv "$POOL/pending.new" "$POOL/pending"
		if [ -f "$POOL/broken-$2" ]; then
			{
				echo "== $1: the $2 kernel did not build"
				sed 's/^/   /' "$POOL/build-$2.out" | tail -20
				echo "FAIL $1: kernel $2 did not build"
			} > "$POOL/$1.out"
			echo "0 1 0 $1" >> "$RESULTS"
			touch "$POOL/$1.done"
		else
			date +%s > "$POOL/$1.start"
			run_job "$1" "$3" "$4" &
		fi
		running="$running $1"
		nrun=$((nrun + 1))
	done
}

# Everything below also goes to build/logs/test.log, from which the names
# of failed tests are listed at the end.
{
echo "== $total jobs, $JOBS at a time; kernels: $configs"
: > "$POOL/durations"
last=$(date +%s)
while :; do
	start_jobs
	# Nothing runs and nothing waits for a kernel still building: done.
	[ $nrun -gt 0 ] || [ -s "$POOL/pending" ] || break
	sleep 1
	# A long job gets a line a minute, so a run never looks stuck.
	if [ $(( $(date +%s) - last )) -ge 60 ]; then
		echo "-- [$ndone/$total] $(elapsed) running: ${running:-nothing}"
		last=$(date +%s)
	fi
	for j in $running; do
		[ -f "$POOL/$j.done" ] || continue
		cat "$POOL/$j.out"
		# A job that stopped before reporting counts as a failure.
		if ! awk -v n="$j" '$4 == n { f = 1 } END { exit !f }' "$RESULTS"; then
			echo "FAIL $j: reported no results"
			echo "0 1 0 $j" >> "$RESULTS"
		fi
		secs=0
		[ ! -f "$POOL/$j.start" ] || secs=$(( $(date +%s) - $(cat "$POOL/$j.start") ))
		# A replayed pass says nothing about how long the job takes.
		grep -q '(replayed: ' "$POOL/$j.out" ||
			echo "$secs $j" >> "$POOL/durations"
		running=$(echo $running | tr ' ' '\n' | grep -vx "$j" | tr '\n' ' ')
		nrun=$((nrun - 1)) ndone=$((ndone + 1))
		start_jobs
		echo "-- [$ndone/$total] $(elapsed) $j done (${secs}s); running: ${running:-nothing}"
		last=$(date +%s)
	done
done
wait
# Keep what was measured for the next run's order, and older figures of
# jobs that did not run this time.
if [ -f "$DURATIONS" ]; then
	awk 'NR == FNR { seen[$2] = 1; print; next } !($2 in seen)' \
		"$POOL/durations" "$DURATIONS" > "$POOL/durations.all"
else
	cp "$POOL/durations" "$POOL/durations.all"
fi
mv "$POOL/durations.all" "$DURATIONS"
echo "== all jobs done in $(elapsed)"
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
