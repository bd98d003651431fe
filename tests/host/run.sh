#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Host-side checks of the harness itself: the scenario reader rejects bad
# files with a message naming the file and the problem, and the guests'
# expectation engine compares correctly (the guest programs are plain C, so
# meminfo is built natively and run against the host's /proc/meminfo).
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
. "$TOP/scripts/scenario.sh"
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }

# Each bad scenario carries the message it must produce in its first line:
# "# expect: <text>".
for f in "$TOP"/tests/host/bad-scenarios/*.scn; do
	want=$(sed -n '1s/^# expect: //p' "$f")
	msg=$( (load_scenario "$f") 2>&1 >/dev/null) && rc=0 || rc=$?
	name=$(basename "$f")
	if [ $rc -ne 0 ] && printf '%s' "$msg" | grep -qF "$name" &&
	   printf '%s' "$msg" | grep -qF -- "$want"; then
		ok "scenario reader rejects $name: $want"
	else
		ko "scenario reader on $name: rc=$rc, said: $msg"
	fi
done

for f in "$TOP"/tests/scenarios/*.scn; do
	if msg=$( (load_scenario "$f") 2>&1); then
		ok "scenario $(basename "$f") reads"
	else
		ko "scenario $(basename "$f"): $msg"
	fi
done

# The runner refuses an unknown scenario by name.
if msg=$(sh "$TOP/scripts/run-scenario.sh" --no-build no-such-scenario 2>&1); then
	ko "run-scenario accepted an unknown scenario"
elif printf '%s' "$msg" | grep -q "unknown scenario 'no-such-scenario'"; then
	ok "run-scenario rejects an unknown scenario"
else
	ko "run-scenario on an unknown scenario said: $msg"
fi

# Expectation engine, natively.
mkdir -p "$TOP/build"
bin=$TOP/build/host-meminfo
if cc -O2 -Wall -Wno-format-truncation -o "$bin" "$TOP/tests/guest/meminfo.c" \
		"$TOP/tests/guest/guest.c"; then
	expect() {	# expect <want-exit> <want-text> <args...>
		want_rc=$1 want_txt=$2
		shift 2
		out=$("$bin" "$@") && rc=0 || rc=$?
		if [ $rc = "$want_rc" ] && printf '%s' "$out" | grep -qF -- "$want_txt"; then
			ok "expectations: $* -> $want_txt"
		else
			ko "expectations: $* gave rc=$rc: $(printf '%s' "$out" | grep 'ok ' | head -3)"
		fi
	}
	expect 0 "ok 1 MemTotal>0" "MemTotal>0"
	expect 0 "ok 1 MemTotal>=1" "MemTotal>=1" "--ignored=1"
	expect 1 "not ok 1 MemTotal<0" "MemTotal<0"
	expect 1 "not ok 1 MemTotal=0" "MemTotal=0"
	expect 0 "ok 1 MemTotal!=0" "MemTotal!=0"
	expect 1 "unknown metric 'NoSuchField'" "NoSuchField=1"
	expect 1 "malformed expectation" "MemTotal"
	expect 1 "bad value 'lots'" "MemTotal>lots"
	expect 0 "ok 1 MemTotal<=1024G" "MemTotal<=1024G"
else
	ko "cannot build the expectation engine natively"
fi

echo "== host: $pass passed, $fail failed"
[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 host-checks" >> "$RESULTS"
[ $fail = 0 ]
