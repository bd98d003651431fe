# SPDX-License-Identifier: GPL-2.0
# Sourced by the runner scripts: read and validate one scenario file.
#
# A scenario is a small text file, tests/scenarios/<name>.scn, of
# "key: value" lines ('#' starts a comment):
#
#   description: what the scenario shows (one line)
#   board:       dts/<board>.dts to boot, or a path from the top without
#                .dts (tests/boards/<name>) for boards that are not products
#   memory:      QEMU -m size, e.g. 2G
#   boot:        direct (-kernel) or uefi (edk2 loads the EFI stub)
#   config:      kernel flavour, configs/<config>.config
#   cmdline:     extra kernel command line (optional, may repeat)
#   timeout:     seconds before the boot counts as hung (optional, 300)
#   disk:        size of an ext4 virtio-blk disk made fresh for the boot
#                with mke2fs -d tests/disk (optional), /dev/vda in the guest
#   numa:        NUMA nodes, memory split evenly, the CPUs too (optional;
#                "2" boots -numa node,cpus=...,memdev=... for nodes 0 and 1)
#   cpus:        QEMU -smp (optional, 2); the board's DT must list as many
#   check:       <program> [--option=value...] [metric OP value...]
#                one in-guest check, tests/guest/<program>.c (repeats)
#
# load_scenario FILE sets SC_NAME SC_DESC SC_BOARD SC_MEMORY SC_BOOT
# SC_CONFIG SC_CMDLINE SC_TIMEOUT SC_DISK SC_NUMA SC_CPUS SC_CHECKS (one
# check per line), or
# prints what is wrong with FILE and returns 1.

sc_err() {
	echo "scenario: error: $SC_FILE${sc_line:+:$sc_line}: $*" >&2
	sc_bad=1
}

load_scenario() {
	SC_FILE=$1
	SC_NAME=$(basename "$1" .scn)
	SC_DESC= SC_BOARD= SC_MEMORY= SC_BOOT= SC_CONFIG= SC_CMDLINE=
	SC_TIMEOUT=300 SC_CHECKS= SC_DISK= SC_NUMA= SC_CPUS=2
	sc_bad=0 sc_line=

	if [ ! -f "$SC_FILE" ]; then
		sc_err "no such scenario"
		return 1
	fi
	sc_n=0
	while IFS= read -r raw || [ -n "$raw" ]; do
		sc_n=$((sc_n + 1))
		sc_line=$sc_n
		line=${raw%%#*}
		case $line in *[![:space:]]*) ;; *) continue ;; esac
		key=${line%%:*}
		if [ "$key" = "$line" ]; then
			sc_err "'$raw' is not 'key: value'"
			continue
		fi
		# trimmed in the shell: a fork per line made reading every
		# scenario take seconds
		val=${line#*:}
		val=${val#"${val%%[![:space:]]*}"}
		val=${val%"${val##*[![:space:]]}"}
		case $key in
		description) SC_DESC=$val ;;
		board) SC_BOARD=$val ;;
		memory) SC_MEMORY=$val ;;
		boot) SC_BOOT=$val ;;
		config) SC_CONFIG=$val ;;
		cmdline) SC_CMDLINE="${SC_CMDLINE:+$SC_CMDLINE }$val" ;;
		timeout) SC_TIMEOUT=$val ;;
		disk) SC_DISK=$val ;;
		numa) SC_NUMA=$val ;;
		cpus) SC_CPUS=$val ;;
		check)
			if [ -z "$val" ]; then
				sc_err "empty check"
			elif [ ! -f "$TOP/tests/guest/${val%% *}.c" ]; then
				sc_err "check '${val%% *}' has no program tests/guest/${val%% *}.c"
			fi
			SC_CHECKS="$SC_CHECKS$val
"
			;;
		*) sc_err "unknown field '$key' (known: description board memory boot config cmdline timeout disk numa cpus check)" ;;
		esac
	done < "$SC_FILE"
	sc_line=

	[ -n "$SC_DESC" ] || sc_err "missing field 'description'"
	[ -n "$SC_BOARD" ] || sc_err "missing field 'board'"
	[ -n "$SC_MEMORY" ] || sc_err "missing field 'memory'"
	[ -n "$SC_BOOT" ] || sc_err "missing field 'boot'"
	[ -n "$SC_CONFIG" ] || sc_err "missing field 'config'"

	case $SC_BOARD in
	*/*) SC_BOARD_FILE=$TOP/$SC_BOARD.dts ;;
	*) SC_BOARD_FILE=$TOP/dts/$SC_BOARD.dts ;;
	esac
	[ -z "$SC_BOARD" ] || [ -f "$SC_BOARD_FILE" ] ||
		sc_err "board '$SC_BOARD': no ${SC_BOARD_FILE#$TOP/}"
	[ -z "$SC_CONFIG" ] || [ -f "$TOP/configs/$SC_CONFIG.config" ] ||
		sc_err "config '$SC_CONFIG': no configs/$SC_CONFIG.config"
	case $SC_BOOT in ''|direct|uefi) ;; *) sc_err "boot '$SC_BOOT': want direct or uefi" ;; esac
	case $SC_MEMORY in
	'') ;;
	*[!0-9MG]*|[MG]*|*[MG]?*) sc_err "memory '$SC_MEMORY': want a size like 2G or 1536M" ;;
	esac
	case $SC_TIMEOUT in *[!0-9]*|'') sc_err "timeout '$SC_TIMEOUT': want seconds" ;; esac
	case $SC_DISK in
	'') ;;
	*[!0-9MG]*|[MG]*|*[MG]?*) sc_err "disk '$SC_DISK': want a size like 1G" ;;
	esac
	case $SC_NUMA in ''|2) ;; *) sc_err "numa '$SC_NUMA': want 2 (nodes)" ;; esac
	case $SC_CPUS in
	[1-8]) [ -z "$SC_NUMA" ] || [ $((SC_CPUS % 2)) = 0 ] ||
		sc_err "cpus '$SC_CPUS': want an even number with numa: 2" ;;
	*) sc_err "cpus '$SC_CPUS': want 1 to 8" ;;
	esac
	[ -n "$SC_CHECKS" ] || sc_err "no check: a scenario must check something"
	return $sc_bad
}
