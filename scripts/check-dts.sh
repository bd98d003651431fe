#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make check-dts: check a board's device tree before it boots.
#
#   check-dts.sh [options] <board.dts | overlay.dtso>
#     -I DIR            an include directory of the board (repeatable)
#     --base=BOARD.dts  the board an overlay applies to (overlays only)
#     --memory=B+S,...  RAM, when /memory is left for the firmware to fill
#     --reserved=B+S,.. what the firmware reserves (a UEFI memory map, say)
#     --strict          every dt-schema problem is fatal, not only those
#                       of the DMB nodes and the nodes that name them
#
# 1. compiles the board as the kernel does (scripts/build-dtb.sh: cpp with
#    the kernel's dt-bindings headers, then dtc); an overlay is compiled
#    with its base and applied with fdtoverlay, as a boot loader would;
# 2. validates it with dt-schema against bindings/ (scripts/dt-schemas.sh,
#    as the bindings test does); what it says of the designated-movable-
#    block nodes and of the nodes whose memory-region names one is fatal,
#    the rest is printed as warnings (a vendor board has its own, as
#    make dtbs_check shows them), unless --strict; for an overlay, only
#    complaints about the nodes it adds count, the base board is someone
#    else's;
# 3. lists every designated-movable-block node, and what the kernel would
#    refuse, with scripts/dmb-check-dts.c built on the kernel tree's
#    mm/dmb_rules.h (the handler's own rules and messages) and libfdt.
# Exits 1 if anything about the DMBs is wrong (with --strict, anything
# dt-schema says), 2 on a usage error.
#
# KSRC: the patched kernel tree (default build/linux); KBUILD: a kernel
# build directory whose .config gives CONFIG_DMB_COUNT and the page size
# (default: the Kconfig defaults, 8 blocks and 4 KiB pages).
set -u

TOP=$(cd "$(dirname "$0")/.." && pwd)
KSRC=${KSRC:-$TOP/build/linux}
OUT=$TOP/build/check-dts
export KSRC
incs= base= tool_args= src= strict=

usage() { echo "usage: check-dts.sh [-I DIR]... [--base=BOARD.dts] [--memory=B+S,...] [--reserved=B+S,...] [--strict] <board.dts|overlay.dtso>" >&2; exit 2; }
abs() { (cd "$(dirname "$1")" 2>/dev/null && echo "$(pwd)/$(basename "$1")"); }

while [ $# -gt 0 ]; do
	case $1 in
	-I) [ $# -ge 2 ] || usage; incs="$incs $(cd "$2" && pwd)"; shift ;;
	-I*) incs="$incs $(cd "${1#-I}" && pwd)" ;;
	--base=*) base=$(abs "${1#--base=}") ;;
	--memory=*|--reserved=*) tool_args="$tool_args $1" ;;
	--strict) strict=1 ;;
	-*) usage ;;
	*) [ -z "$src" ] || usage; src=$(abs "$1") ;;
	esac
	shift
done
[ -n "$src" ] && [ -f "$src" ] || usage
[ -f "$KSRC/mm/dmb_rules.h" ] ||
	{ echo "check-dts: error: $KSRC has no mm/dmb_rules.h (apply patches/ first)" >&2; exit 2; }

if [ -n "${KBUILD:-}" ] && [ -f "$KBUILD/.config" ]; then
	n=$(sed -n 's/^CONFIG_DMB_COUNT=//p' "$KBUILD/.config")
	[ -z "$n" ] || tool_args="$tool_args --count=$n"
	# pageblock_order as include/linux/pageblock-flags.h has it: the PMD
	# order, at most MAX_PAGE_ORDER, with hugetlb or THP; else MAX_PAGE_ORDER
	shift=12
	grep -q '^CONFIG_ARM64_16K_PAGES=y' "$KBUILD/.config" && shift=14
	grep -q '^CONFIG_ARM64_64K_PAGES=y' "$KBUILD/.config" && shift=16
	max=$(sed -n 's/^CONFIG_ARCH_FORCE_MAX_ORDER=//p' "$KBUILD/.config")
	max=${max:-10}
	order=$max
	if grep -Eq '^CONFIG_(HUGETLB_PAGE|TRANSPARENT_HUGEPAGE)=y' "$KBUILD/.config"; then
		pmd=$((shift - 3))
		[ "$pmd" -lt "$max" ] && order=$pmd
	fi
	tool_args="$tool_args --pageblock=$(printf '0x%x' $((1 << (shift + order))))"
fi

mkdir -p "$OUT"
problems=0
name=$(basename "$src"); name=${name%.*}

# The checker, rebuilt when the rules or it change.
tool=$OUT/dmb-check-dts
lib=$KSRC/scripts/dtc/libfdt
if [ ! -x "$tool" ] || [ "$TOP/scripts/dmb-check-dts.c" -nt "$tool" ] ||
   [ "$KSRC/mm/dmb_rules.h" -nt "$tool" ] || [ "$(cat "$tool.src" 2>/dev/null)" != "$KSRC" ]; then
	cc -O2 -Wall -I "$KSRC/mm" -I "$lib" -o "$tool" \
		"$TOP/scripts/dmb-check-dts.c" "$lib/fdt.c" "$lib/fdt_ro.c" ||
		{ echo "check-dts: error: cannot build the checker" >&2; exit 2; }
	echo "$KSRC" > "$tool.src"
fi

# 1. Compile.
dtb=$OUT/$name.dtb
case $src in
*.dtso)
	[ -n "$base" ] || { echo "check-dts: error: an overlay needs --base=<board.dts> (BASE=)" >&2; exit 2; }
	bname=$(basename "$base" .dts)
	DTB_OUT=$OUT DTS_INCLUDE="$incs $KSRC/arch/arm64/boot/dts $(dirname "$base")" \
		sh "$TOP/scripts/build-dtb.sh" "$base" || exit 1
	if ! dtc -q -@ -I dts -O dtb -o "$OUT/$name.dtbo" "$src" ||
	   ! fdtoverlay -i "$OUT/$bname.dtb" -o "$dtb" "$OUT/$name.dtbo"; then
		echo "check-dts: error: $src does not compile or apply to $base" >&2
		exit 1
	fi
	echo "== $name: compiled, applied to $(basename "$base") with fdtoverlay"
	;;
*)
	DTB_OUT=$OUT DTS_INCLUDE="$incs" sh "$TOP/scripts/build-dtb.sh" "$src" || exit 1
	echo "== $name: compiled like the kernel's cmd_dtc"
	;;
esac

# 2. dt-schema.  The processed schemas are kept while bindings/ is unchanged.
json=$OUT/schemas.json
if [ ! -f "$json" ] || [ -n "$(find "$TOP/bindings" -newer "$json" -name '*.yaml')" ]; then
	sh "$TOP/scripts/dt-schemas.sh" "$OUT/schemas" "$json" ||
		{ echo "check-dts: error: the bindings do not process" >&2; exit 2; }
fi
complaints=$(dt-validate -s "$json" "$dtb" 2>&1) && vrc=0 || vrc=$?
# dt-validate that did not run (no schemas, a traceback) judges nothing
if [ "$vrc" != 0 ] || printf '%s\n' "$complaints" | grep -q '^Traceback'; then
	echo "check-dts: error: dt-validate failed (exit $vrc):" >&2
	printf '%s\n' "$complaints" | tail -5 >&2
	exit 2
fi
if [ -n "$base" ]; then
	# only what concerns the nodes the overlay adds
	added=$(for f in $(fdtget -l "$OUT/$name.dtbo" / 2>/dev/null); do
		fdtget -l "$OUT/$name.dtbo" "/$f/__overlay__" 2>/dev/null; done | sort -u)
	other=$complaints complaints=
	for n in $added; do
		complaints=$(printf '%s\n%s' "$complaints" "$(printf '%s\n' "$other" | grep -F -- "$n")")
	done
	complaints=$(printf '%s\n' "$complaints" | sed '/^$/d' | sort -u)
fi
# The nodes that concern DMBs, by name as dt-validate reports them: the
# designated-movable-block nodes and those whose memory-region names one.
dmb_names=$(dtc -q -I dtb -O dts "$dtb" 2>/dev/null | awk '
	/^[ \t]*[^ \t=]+ \{$/ { sub(/^[ \t]*/, ""); sub(/ \{$/, ""); path[++d] = $0; next }
	/^[ \t]*\};/ { d--; next }
	/compatible = .*"designated-movable-block"/ { dmb[path[d]] = 1 }
	/^[ \t]*phandle = </ { v = $0; sub(/.*</, "", v); sub(/>.*/, "", v); ph[v] = path[d] }
	/^[ \t]*memory-region = </ { v = $0; sub(/.*</, "", v); sub(/>.*/, "", v); refs[path[d]] = v }
	END {
		for (n in dmb) print n
		for (n in refs) { k = split(refs[n], r, " "); for (i = 1; i <= k; i++) if (ph[r[i]] in dmb) print n }
	}' | sort -u)
# One complaint per block of lines (dt-validate continues with a tab)
blocks=$(printf '%s\n' "$complaints" | sed '/^$/d' | awk '/^[ \t]/ { printf "\036%s", $0; next } NR > 1 { print "" } { printf "%s", $0 } END { if (NR) print "" }')
fatal= warn=
if [ -n "$blocks" ]; then
	while IFS= read -r b; do
		hit=
		for n in $dmb_names; do
			case $b in *": $n:"*|*"/$n:"*|*"/$n/"*) hit=1 ;; esac
		done
		if [ -n "$hit$strict$base" ]; then
			fatal=$(printf '%s\n%s' "$fatal" "$b")
		else
			warn=$(printf '%s\n%s' "$warn" "$b")
		fi
	done <<-EOF
	$blocks
	EOF
fi
nwarn=$(printf '%s\n' "$warn" | sed '/^$/d' | wc -l)
if [ -n "$fatal" ]; then
	if [ -n "$base" ]; then
		why=" in the nodes the overlay adds"
	elif [ -n "$strict" ]; then
		why=" (--strict)"
	else
		why=" in the DMB nodes or the nodes that name them"
	fi
	echo "== $name: dt-schema: PROBLEMS$why"
	printf '%s\n' "$fatal" | sed '/^$/d' | tr '\036' '\n' | sed 's/^/   /'
	problems=1
fi
if [ "$nwarn" -gt 0 ]; then
	echo "== $name: dt-schema: $nwarn warning(s) outside the DMB nodes (not fatal; --strict makes them so)"
	printf '%s\n' "$warn" | sed '/^$/d' | tr '\036' '\n' | sed 's/^/   warning: /'
fi
[ -n "$fatal" ] || [ "$nwarn" -gt 0 ] || echo "== $name: dt-schema: clean against bindings/"

# 3. What the kernel would refuse.
echo "== $name: designated-movable-block nodes"
# shellcheck disable=SC2086
"$tool" $tool_args "$dtb" > "$OUT/$name.dmbs"
rc=$?
sed 's/^/   /' "$OUT/$name.dmbs"
[ "$rc" = 0 ] || problems=1
[ "$rc" = 2 ] && exit 2
if [ $problems = 0 ]; then
	if [ "$nwarn" -gt 0 ]; then
		echo "== $name: OK for its DMBs ($nwarn dt-schema warning(s) elsewhere, see above)"
	else
		echo "== $name: OK"
	fi
else
	echo "== $name: PROBLEMS (see above)"
fi
exit $problems
