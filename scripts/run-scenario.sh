#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Boot one scenario in QEMU and report its in-guest checks.
#
# usage: run-scenario.sh [--no-build] [--interactive] [--config=<flavour>]
#                        [--board=<dts>] [--append=<args>] <name|file.scn>
#
# --config, --board and --append boot the same checks another way: another
# kernel flavour (e.g. "unpatched", Linux 6.12 without the series), another
# board, more kernel parameters.  The log and results then carry the
# flavour's name: build/logs/<scenario>-<flavour>.log.
#
# The guest's /init prints one KTAP document; the kernel's own parser
# (tools/testing/kunit/kunit.py parse) reads it from the console log.  A
# panic, a hang past the scenario's timeout or a missing result is a
# failure.  With RESULTS set, "<passed> <failed> <skipped> <name>" is
# appended to that file for the caller's total.
set -eu

TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/scripts/scenario.sh"

build=1 interactive=0 o_config= o_board= o_append=
while [ $# -gt 1 ]; do
	case $1 in
	--no-build) build=0 ;;
	--interactive) interactive=1 ;;
	--config=*) o_config=${1#*=} ;;
	--board=*) o_board=${1#*=} ;;
	--append=*) o_append=${1#*=} ;;
	*) echo "run-scenario: error: unknown option $1" >&2; exit 2 ;;
	esac
	shift
done
[ $# -eq 1 ] || { echo "usage: run-scenario.sh [--no-build] [--interactive] <scenario>" >&2; exit 2; }
case $1 in
*/*|*.scn) file=$1 ;;
*) file=$TOP/tests/scenarios/$1.scn ;;
esac
if [ ! -f "$file" ]; then
	echo "run-scenario: error: unknown scenario '$1' (have: $(cd "$TOP/tests/scenarios" && ls *.scn | sed 's/\.scn$//' | tr '\n' ' '))" >&2
	exit 2
fi
load_scenario "$file" || exit 2
if [ -n "$o_config" ]; then
	[ -f "$TOP/configs/$o_config.config" ] ||
		{ echo "run-scenario: error: --config=$o_config: no configs/$o_config.config" >&2; exit 2; }
	SC_CONFIG=$o_config SC_NAME=$SC_NAME-$o_config
fi
if [ -n "$o_board" ]; then
	[ -f "$TOP/dts/$o_board.dts" ] ||
		{ echo "run-scenario: error: --board=$o_board: no dts/$o_board.dts" >&2; exit 2; }
	SC_BOARD=$o_board SC_NAME=$SC_NAME-$o_board
fi
# Another command line is another run: its log must not overwrite the
# scenario's own (the suffix is "append").
SC_CMDLINE="$SC_CMDLINE${o_append:+ $o_append}"
[ -z "$o_append" ] || SC_NAME=$SC_NAME-append
# The built-in KUnit suites run at boot only where a check reads them
# (tests/guest/kunit.c; a module's suites need KUnit enabled too): a
# second of every debug boot otherwise.
if ! printf '%s\n' "$SC_CHECKS" | grep -q '^kunit '; then
	case " $SC_CMDLINE " in
	*" kunit.enable="*) ;;
	*) SC_CMDLINE="$SC_CMDLINE kunit.enable=0" ;;
	esac
fi

if [ $build = 1 ]; then
	# The unpatched kernel has no DMB symbols for our modules.
	mods=modules-$SC_CONFIG
	[ "$SC_CONFIG" != unpatched ] || mods=
	make -s -C "$TOP" deps kernel-"$SC_CONFIG" $mods dtbs guest
fi

KSRC=$TOP/build/linux
# Boards outside dts/ are test fixtures, built here (with --no-build the
# caller built them: boots may run in parallel).
case $SC_BOARD in */*) [ $build = 0 ] || sh "$TOP/scripts/build-dtb.sh" "$SC_BOARD" ;; esac
SC_BOARD=$(basename "$SC_BOARD")
# DMB_IMAGE: another kernel of the same flavour (make check-series)
IMAGE=${DMB_IMAGE:-$TOP/build/obj-$SC_CONFIG/arch/arm64/boot/Image}
DTB=$TOP/build/dtb/$SC_BOARD.dtb
RUN=$TOP/build/run/$SC_NAME
LOG=$TOP/build/logs/$SC_NAME.log
mkdir -p "$RUN" "$TOP/build/logs"
for f in "$IMAGE" "$DTB" "$TOP/build/initramfs/base.cpio"; do
	[ -f "$f" ] || { echo "run-scenario: error: $f missing: run make" >&2; exit 2; }
done

# The scenario's checks go into a small cpio appended to the shared one;
# the kernel unpacks concatenated archives in order.
printf '%s' "$SC_CHECKS" > "$RUN/checks"
printf 'dir /etc 0755 0 0\nfile /etc/checks %s 0644 0 0\n' "$RUN/checks" > "$RUN/list"
"$TOP/build/gen_init_cpio" "$RUN/list" > "$RUN/checks.cpio"
cat "$TOP/build/initramfs/base.cpio" "$RUN/checks.cpio" > "$RUN/initrd.cpio"
if [ -f "$TOP/build/initramfs/modules-$SC_CONFIG.cpio" ]; then
	cat "$TOP/build/initramfs/modules-$SC_CONFIG.cpio" >> "$RUN/initrd.cpio"
fi
# The kernel's mm selftests only where a check runs one (scripts/mm-selftests.sh)
case $SC_CHECKS in
*/bin/mm/*)
	[ -f "$TOP/build/initramfs/mm-selftests.cpio" ] ||
		{ echo "run-scenario: error: build/initramfs/mm-selftests.cpio missing: run make guest" >&2; exit 2; }
	cat "$TOP/build/initramfs/mm-selftests.cpio" >> "$RUN/initrd.cpio"
	;;
esac

# Busybox and docs/adopting.rst's commands only where a check runs them
if printf '%s\n' "$SC_CHECKS" | grep -q '^readme '; then
	[ -f "$TOP/build/initramfs/readme.cpio" ] ||
		{ echo "run-scenario: error: build/initramfs/readme.cpio missing: run make guest" >&2; exit 2; }
	cat "$TOP/build/initramfs/readme.cpio" >> "$RUN/initrd.cpio"
fi

# @DTB@ in the command line is where QEMU puts the device tree on a direct
# boot: after the initrd, which starts 128 MiB into RAM, 2 MiB aligned
# (hw/arm/boot.c).  It lets a scenario aim at the DTB's reservation.
case $SC_CMDLINE in
*@DTB@*)
	isz=$(stat -c %s "$RUN/initrd.cpio")
	dtb=$(printf '0x%x' $(( 0x48000000 + ((isz + 0x1fffff) & ~0x1fffff) )))
	SC_CMDLINE=$(printf '%s' "$SC_CMDLINE" | sed "s/@DTB@/$dtb/g")
	;;
esac

set -- -M virt,gic-version=2,acpi=off -cpu cortex-a57 -smp "$SC_CPUS" -m "$SC_MEMORY" \
	-nodefaults -display none -no-reboot \
	-dtb "$DTB" -kernel "$IMAGE" -initrd "$RUN/initrd.cpio" \
	-append "console=ttyAMA0 panic=-1 quiet $SC_CMDLINE"
if [ "$SC_BOOT" = uefi ]; then
	set -- "$@" -bios /usr/share/qemu-efi-aarch64/QEMU_EFI.fd
fi
if [ -n "$SC_DISK" ]; then
	# A fresh filesystem each boot: page cache, dirty pages and writeback
	# are real, and no run sees another's data.
	rm -f "$RUN/disk.img"
	if ! mke2fs -q -F -t ext4 -L dmbdata -d "$TOP/tests/disk" "$RUN/disk.img" "$SC_DISK"; then
		echo "run-scenario: error: $SC_FILE: cannot make the $SC_DISK disk" >&2
		exit 2
	fi
	set -- "$@" -drive file="$RUN/disk.img",if=none,format=raw,id=disk0 \
		-device virtio-blk-device,drive=disk0
fi
if [ -n "$SC_NUMA" ]; then
	# Two nodes of half the memory and half the CPUs each (the board's
	# DT says which CPU is on which node: cpu n on node n % 2).
	half=$(( $(printf '%s' "$SC_MEMORY" | sed 's/G$/*1024/;s/M$//') / 2 ))
	c0= c1= n=0
	while [ $n -lt "$SC_CPUS" ]; do
		if [ $((n % 2)) = 0 ]; then c0="$c0,cpus=$n"; else c1="$c1,cpus=$n"; fi
		n=$((n + 1))
	done
	set -- "$@" -object memory-backend-ram,id=m0,size=${half}M \
		-object memory-backend-ram,id=m1,size=${half}M \
		-numa node,nodeid=0${c0},memdev=m0 \
		-numa node,nodeid=1${c1},memdev=m1
fi
if [ -n "${QEMU_EXTRA:-}" ]; then
	# shellcheck disable=SC2086
	set -- "$@" $QEMU_EXTRA
fi

if [ $interactive = 1 ]; then
	echo "run-scenario: $SC_NAME interactive; quit with Ctrl-A x"
	exec qemu-system-aarch64 "$@" -serial mon:stdio
fi

echo "== $SC_NAME: $SC_DESC"
start=$(date +%s)
rc=0
timeout -k 10 "$SC_TIMEOUT" qemu-system-aarch64 "$@" -serial stdio \
	< /dev/null > "$LOG" 2>&1 || rc=$?
secs=$(( $(date +%s) - start ))

extra_fail=0 why=
if [ $rc = 124 ] || [ $rc = 137 ]; then
	why="timed out after ${SC_TIMEOUT}s (hang?)"
elif grep -q 'Kernel panic' "$LOG"; then
	why="kernel panic"
elif [ $rc != 0 ]; then
	why="qemu exited with status $rc"
elif ! grep -q '^# dmb-guest: ' "$LOG"; then
	why="guest did not finish its checks"
fi
[ -z "$why" ] || extra_fail=1

# edk2 paints the console with escape sequences and the tty adds CRs.
sed -e 's/\x1b\[[0-9;=?]*[A-Za-z]//g' -e 's/\r$//' "$LOG" > "$RUN/console"
python3 "$KSRC/tools/testing/kunit/kunit.py" parse "$RUN/console" > "$RUN/parsed" 2>&1 || true
summary=$(grep -o 'Ran [0-9]* tests:.*' "$RUN/parsed" | tail -1 || true)
num() { printf '%s\n' "$summary" | grep -o "$1: [0-9]*" | grep -o '[0-9]*$' || echo 0; }
passed=$(num passed) failed=$(( $(num failed) + $(num crashed) + $(num errors) ))
skipped=$(num skipped)
if [ -z "$summary" ] && [ -z "$why" ]; then
	why="no KTAP results in the console log"
	extra_fail=1
fi
failed=$((failed + extra_fail))

if [ -z "${DEMO:-}" ]; then
	sed -e '/^\[..:..:..\] =*$/d' -e 's/^\[..:..:..\] /   /' "$RUN/parsed" |
		grep -v -e '^   Testing complete' -e '^   Ran ' || true
fi
sed -n 's/^ *# report: /   | /p' "$RUN/console"
if [ $failed -gt 0 ]; then
	[ -z "$why" ] || echo "FAIL $SC_NAME: $why"
	echo "---- last lines of the console ($LOG) ----"
	tail -n 40 "$RUN/console"
	echo "----"
fi
echo "== $SC_NAME: $passed passed, $failed failed, $skipped skipped (${secs}s, $SC_BOOT boot)"
if [ -n "${RESULTS:-}" ]; then
	echo "$passed $failed $skipped $SC_NAME" >> "$RESULTS"
fi
[ $failed = 0 ]
