#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-dts on what we ship and on the broken fixtures, one result each:
#  - every board in dts/ passes (exit 0, every DMB accepted);
#  - the RPi 4 overlay passes on the 6.12 board file, with the RAM of a
#    4 GiB Pi (its /memory is left for the firmware to fill);
#  - every tests/boards/dmb-bad-*.dts fails (exit 1) and prints the very
#    line its boot scenario expects from the kernel (the scenario's first
#    kmsg --grep), so the checker cannot drift from the handler;
#  - QEMU's virt board plus a DMB passes with its own dt-schema complaints
#    as warnings, fails with a bad DMB node, and fails with --strict;
#  - a board with a syntax error is an error, not a pass.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
export KSRC
OUT=$TOP/build/check-dts-test
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }
mkdir -p "$OUT"

check() {	# check <want rc> <label> <check-dts args...>: output in $out
	wrc=$1 label=$2
	shift 2
	out=$(sh "$TOP/scripts/check-dts.sh" "$@" 2>&1) && rc=0 || rc=$?
	printf '%s\n' "$out" > "$OUT/$label.out"
	[ "$rc" = "$wrc" ]
}

for src in "$TOP"/dts/*.dts; do
	b=$(basename "$src" .dts)
	if check 0 "$b" "$src"; then
		ok "check-dts dts/$b.dts: $(printf '%s\n' "$out" | grep -c ' ok$') DMB(s) accepted"
	else
		ko "check-dts dts/$b.dts: exit $rc"
		tail -8 "$OUT/$b.out" | sed 's/^/      /'
	fi
done

rpi=$KSRC/arch/arm64/boot/dts/broadcom/bcm2711-rpi-4-b.dts
if check 0 rpi4-overlay --base="$rpi" --memory=0x0+0x3b400000,0x40000000+0xbc000000 \
		"$TOP/dts/overlays/bcm2711-rpi-4-b-dmb.dtso" &&
   [ "$(printf '%s\n' "$out" | grep -c ' ok$')" = 2 ]; then
	ok "check-dts of the RPi 4 overlay on bcm2711-rpi-4-b.dts: 2 DMBs accepted"
else
	ko "check-dts of the RPi 4 overlay: exit $rc"
	tail -8 "$OUT/rpi4-overlay.out" | sed 's/^/      /'
fi
# A bad overlay: both dt-schema and the rules must say so.
if check 1 rpi4-overlay-bad --base="$rpi" --memory=0x0+0x3b400000,0x40000000+0xbc000000 \
		"$TOP/tests/boards/rpi4-overlay-bad-no-map.dtso" &&
   printf '%s\n' "$out" | grep -q 'dt-schema: PROBLEMS' &&
   printf '%s\n' "$out" | grep -qF 'dmb: /reserved-memory/dmb@20000000: rejected: a designated-movable-block cannot be no-map'; then
	ok "check-dts refuses a no-map block in an overlay (dt-schema and the kernel's rule)"
else
	ko "check-dts on tests/boards/rpi4-overlay-bad-no-map.dtso: exit $rc"
	tail -8 "$OUT/rpi4-overlay-bad.out" | sed 's/^/      /'
fi
# An overlay without its base is a usage error.
if check 2 rpi4-nobase "$TOP/dts/overlays/bcm2711-rpi-4-b-dmb.dtso"; then
	ok "check-dts refuses an overlay without --base"
else
	ko "check-dts on an overlay without --base: exit $rc"
fi

for src in "$TOP"/tests/boards/dmb-bad-*.dts; do
	b=$(basename "$src" .dts)
	args=
	case $b in
	# What edk2 reserved there in the UEFI boot of the scenario (its log):
	# the device tree alone cannot tell.
	dmb-bad-efi-reserved) args=--reserved=0xbd6f1018+0x400 ;;
	esac
	want=$(grep -l "^board: tests/boards/$b\$" "$TOP"/tests/scenarios/*.scn | head -1 |
		xargs -r sed -n 's/^check: kmsg --grep="\([^"]*\)".*/\1/p' | head -1)
	case $b in
	# the kernel says it when a driver asks, not at boot
	dmb-bad-cma-compatible) want="another reserved-memory handler took it" ;;
	esac
	if [ -z "$want" ]; then
		ko "fixture $b: no scenario with a kmsg expectation boots it"
		continue
	fi
	# shellcheck disable=SC2086
	if check 1 "$b" $args "$src" && printf '%s\n' "$out" | grep -F REFUSED | grep -qF -- "$want"; then
		ok "check-dts refuses $b: $want"
	else
		ko "check-dts on $b: exit $rc, want a refusal with: $want"
		grep -E 'REFUSED|error' "$OUT/$b.out" | head -5 | sed 's/^/      /'
	fi
done

# QEMU's own virt board (a real board's tree, with its own dt-schema
# complaints: its platform-bus node) plus one DMB: the unrelated complaint
# is a warning and the board passes; a bad DMB node fails it; --strict
# makes every complaint fatal.
if qemu-system-aarch64 -machine virt,dumpdtb="$OUT/virt.dtb" -cpu cortex-a57 \
		-m 2G -nodefaults -nographic > "$OUT/virt-dump.log" 2>&1 &&
   dtc -q -I dtb -O dts "$OUT/virt.dtb" > "$OUT/virt.dts"; then
	dmb_node() {	# dmb_node <extra property line>
		printf '/ {\n\treserved-memory {\n\t\t#address-cells = <2>;\n\t\t#size-cells = <2>;\n\t\tranges;\n\t\tdmb@60000000 {\n\t\t\tcompatible = "designated-movable-block";\n%s\t\t\treg = <0x0 0x60000000 0x0 0x10000000>;\n\t\t};\n\t};\n};\n' "$1"
	}
	{ cat "$OUT/virt.dts"; dmb_node "$(printf '\t\t\treusable;\n')"; } > "$OUT/virt-dmb.dts"
	{ cat "$OUT/virt.dts"; dmb_node ""; } > "$OUT/virt-dmb-bad.dts"
	if check 0 virt-dmb "$OUT/virt-dmb.dts" &&
	   printf '%s\n' "$out" | grep -q 'dt-schema: [1-9][0-9]* warning(s) outside the DMB nodes' &&
	   printf '%s\n' "$out" | grep -q '^   warning: .*platform-bus' &&
	   printf '%s\n' "$out" | grep -q '== virt-dmb: OK for its DMBs'; then
		ok "check-dts accepts QEMU's virt board with a DMB: its own dt-schema complaints are warnings"
	else
		ko "check-dts on QEMU's virt board with a DMB: exit $rc"
		tail -8 "$OUT/virt-dmb.out" | sed 's/^/      /'
	fi
	if check 1 virt-dmb-bad "$OUT/virt-dmb-bad.dts" &&
	   printf '%s\n' "$out" | grep -q 'PROBLEMS in the DMB nodes' &&
	   printf '%s\n' "$out" | grep -q "dmb@60000000: 'reusable' is a required property"; then
		ok "check-dts refuses QEMU's virt board with a DMB node that is not reusable"
	else
		ko "check-dts on QEMU's virt board with a bad DMB node: exit $rc"
		tail -8 "$OUT/virt-dmb-bad.out" | sed 's/^/      /'
	fi
	if check 1 virt-dmb-strict --strict "$OUT/virt-dmb.dts" &&
	   printf '%s\n' "$out" | grep -q 'dt-schema: PROBLEMS (--strict)'; then
		ok "check-dts --strict makes QEMU's virt board's own complaints fatal"
	else
		ko "check-dts --strict on QEMU's virt board: exit $rc"
		tail -8 "$OUT/virt-dmb-strict.out" | sed 's/^/      /'
	fi
else
	ko "QEMU's virt board: cannot dump its device tree ($(tail -1 "$OUT/virt-dump.log"))"
fi

# A board that does not compile is a failure with dtc's message.
printf '/dts-v1/;\n/ { oops };\n' > "$OUT/broken.dts"
if check 1 broken "$OUT/broken.dts" && printf '%s' "$out" | grep -q 'does not compile'; then
	ok "check-dts fails a board that does not compile"
else
	ko "check-dts on a board that does not compile: exit $rc"
fi

echo "== check-dts: $pass passed, $fail failed"
[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 check-dts" >> "$RESULTS"
[ $fail = 0 ]
