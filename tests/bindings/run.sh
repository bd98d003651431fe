#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Device tree checks, one result each:
#  - every binding in bindings/ passes dt-doc-validate;
#  - every board in dts/ passes dt-validate against them;
#  - every negative fixture tests/bindings/bad-*.dts is reported, with the
#    text its "// expect:" line names, and good-*.dts passes;
#  - the RPi 4 overlay compiles, applies to the 6.12 board file with
#    fdtoverlay and validates;
#  - the binding in patches/ is the one in bindings/ (one source of truth).
# dt-schema 2022.08 exits 0 on errors, so the output is what is judged.
set -u

TOP=$(cd "$(dirname "$0")/../.." && pwd)
KSRC=$TOP/build/linux
S=$TOP/build/schemas
OUT=$TOP/build/bindings
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "   [PASSED] $*"; }
ko() { fail=$((fail + 1)); echo "   [FAILED] $*"; }
# clean <what> <validator output>: passes when the validator said nothing
clean() {
	if [ -z "$2" ]; then
		ok "$1"
	else
		ko "$1"
		printf '%s\n' "$2" | head -10 | sed 's/^/      /'
	fi
}

rm -rf "$OUT"
mkdir -p "$OUT"
# The staging and processing that make check-dts uses too
if ! sh "$TOP/scripts/dt-schemas.sh" "$S" "$OUT/schemas.json" 2> "$OUT/mk-schema.err"; then
	ko "dt-mk-schema"
	head -10 "$OUT/mk-schema.err" | sed 's/^/      /'
fi

for f in $(cd "$S" && find . -name '*.yaml' | sort); do
	clean "dt-doc-validate ${f#./}" "$(dt-doc-validate -u "$S" "$S/$f" 2>&1)"
done

validate() {	# validate <dtb>: prints the validator's complaints
	dt-validate -s "$OUT/schemas.json" "$1" 2>&1
}

for src in "$TOP"/dts/*.dts; do
	b=$(basename "$src" .dts)
	if ! sh "$TOP/scripts/build-dtb.sh" "$b" > "$OUT/$b.dtc" 2>&1; then
		ko "dts/$b.dts compiles"
		head -5 "$OUT/$b.dtc" | sed 's/^/      /'
		continue
	fi
	clean "dt-validate dts/$b.dts" "$(validate "$TOP/build/dtb/$b.dtb")"
done

for src in "$TOP"/tests/bindings/*.dts; do
	b=$(basename "$src" .dts)
	want=$(sed -n '1s|^// expect: ||p' "$src")
	out=$(dtc -q -I dts -O dtb -o "$OUT/$b.dtb" "$src" 2>&1 && validate "$OUT/$b.dtb")
	case $b in
	good-*)
		clean "fixture $b validates" "$out"
		;;
	*)
		if [ -n "$out" ] && printf '%s' "$out" | grep -qF -- "$want"; then
			ok "fixture $b is reported: $want"
		else
			ko "fixture $b: expected a report with '$want', got: $out"
		fi
		;;
	esac
done

# The overlay on the 6.12 Raspberry Pi 4 board file.
base=$OUT/bcm2711-rpi-4-b.dtb
ovl=$TOP/dts/overlays/bcm2711-rpi-4-b-dmb.dtso
if cpp -nostdinc -undef -D__DTS__ -x assembler-with-cpp \
	-I "$KSRC/arch/arm64/boot/dts" -I "$KSRC/scripts/dtc/include-prefixes" \
	-I "$KSRC/include" -o "$OUT/rpi4.dts" \
	"$KSRC/arch/arm64/boot/dts/broadcom/bcm2711-rpi-4-b.dts" 2> "$OUT/rpi4.err" &&
   dtc -q -@ -I dts -O dtb -o "$base" "$OUT/rpi4.dts" 2>> "$OUT/rpi4.err" &&
   dtc -q -@ -I dts -O dtb -o "$OUT/rpi4-dmb.dtbo" "$ovl" 2>> "$OUT/rpi4.err" &&
   fdtoverlay -i "$base" -o "$OUT/rpi4-dmb.dtb" "$OUT/rpi4-dmb.dtbo" 2>> "$OUT/rpi4.err" &&
   [ "$(fdtget "$OUT/rpi4-dmb.dtb" /reserved-memory/dmb@20000000 compatible 2>&1)" = designated-movable-block ]; then
	ok "RPi 4 overlay compiles and applies with fdtoverlay"
	# The board file has problems of its own with these old schemas;
	# judge what the overlay added.
	clean "dt-validate of the RPi 4 board with the overlay: DMB nodes clean" \
		"$(validate "$OUT/rpi4-dmb.dtb" | grep -A2 'dmb@')"
else
	ko "RPi 4 overlay"
	head -10 "$OUT/rpi4.err" | sed 's/^/      /'
fi

up=$KSRC/Documentation/devicetree/bindings/reserved-memory/designated-movable-block.yaml
if [ ! -f "$up" ]; then
	ko "the series adds the designated-movable-block binding"
elif cmp -s "$up" "$TOP/bindings/reserved-memory/designated-movable-block.yaml"; then
	ok "the binding in patches/ is bindings/reserved-memory/designated-movable-block.yaml"
else
	ko "patches/ and bindings/ disagree on designated-movable-block.yaml: refresh the binding patch"
fi

echo "== bindings: $pass passed, $fail failed"
[ -n "${RESULTS:-}" ] && echo "$pass $fail 0 dt-bindings" >> "$RESULTS"
[ $fail = 0 ]
