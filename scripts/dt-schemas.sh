#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Stage the project's dt-schema bindings, with stand-ins for the base
# schemas dt-schema 2022.08 lacks, and process them into one schema file
# for dt-validate.  Used by the bindings test and by make check-dts, so
# both validate against the same thing.
#
# usage: dt-schemas.sh <staging dir> <schemas.json>
# dt-mk-schema 2022.08 exits 0 on errors: its output is what is judged;
# anything it prints is an error (printed, exit 1).
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
S=${1:?usage: dt-schemas.sh <staging dir> <schemas.json>}
JSON=${2:?usage: dt-schemas.sh <staging dir> <schemas.json>}

rm -rf "$S"
mkdir -p "$S/validation-only" "$(dirname "$JSON")"
(cd "$TOP/bindings" && find . -name '*.yaml' ! -path './validation-only/*') |
while read -r f; do
	mkdir -p "$S/$(dirname "$f")"
	cp "$TOP/bindings/$f" "$S/$f"
done
# Stand-ins for what dt-schema 2022.08 lacks, at the $id bindings expect.
mkdir -p "$S/reserved-memory"
cp "$TOP/bindings/validation-only/reserved-memory.yaml" "$S/reserved-memory/"
cp "$TOP/bindings/validation-only/memory-region.yaml" "$S/validation-only/"

if ! dt-mk-schema -j "$S" > "$JSON" 2> "$JSON.err" || [ -s "$JSON.err" ]; then
	head -10 "$JSON.err" >&2
	rm -f "$JSON"
	exit 1
fi
