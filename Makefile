# SPDX-License-Identifier: GPL-2.0
#
# Designated Movable Blocks for Linux 6.12: build, boot and test.
#
#   make demo           build, boot the default board, show what DMBs do
#   make test           every test: static checks and all boot scenarios
#   make check          the host-side checks only (static, bindings, simulators)
#   make check-dts DTS=board.dts [INCLUDE="dirs"] [BASE=board.dts for an overlay]
#                       [MEMORY=b+s,..] [RESERVED=b+s,..] [STRICT=1]: check a
#                       board's DMBs (STRICT=1: every dt-schema problem fatal)
#   make bench          DMB against CMA and a carve-out (build/bench/)
#   make stress         the long stress runs (tests/stress/, hours)
#   make docs           the documents in docs/ as HTML (build/docs/)
#   make check-series   each prefix of patches/ builds, passes the memblock
#                       simulator and boots (FROM=n TO=n: some prefixes)
#   make scenario S=x   boot and check one scenario (tests/scenarios/x.scn)
#   make boot S=x       boot a scenario's machine interactively
#   make kernel-<cfg>   build the kernel flavour configs/<cfg>.config
#   make modules-<cfg>  build the out-of-tree modules against it
#
# Everything generated goes to build/.

TOP := $(CURDIR)
B := build
CROSS := aarch64-linux-gnu-
GUEST_CFLAGS := -static -O2 -Wall -Wextra -Wno-format-truncation -Iinclude/uapi

# The guest programs other than init are one static binary, dmb-guest,
# that runs the program it is called as (tests/guest/multicall.c)
GUEST_PROGS := $(filter-out guest multicall init,$(patsubst tests/guest/%.c,%,$(wildcard tests/guest/*.c)))
GUEST_OBJS := $(patsubst %,$(B)/guest/obj/%.o,$(GUEST_PROGS))
GUEST_BINS := $(B)/guest/init $(B)/guest/dmb-guest
BOARDS := $(patsubst dts/%.dts,%,$(wildcard dts/*.dts))
DTBS := $(addprefix $(B)/dtb/,$(addsuffix .dtb,$(BOARDS)))

.PHONY: FORCE all deps prepare dtbs guest test check check-dts demo bench docs check-series stress scenario boot clean help
.DEFAULT_GOAL := help

help:
	@sed -n '3,17s/^# \{0,1\}//p' Makefile

all: deps kernel-test dtbs guest

deps:
	@sh scripts/deps.sh

prepare: deps
	@sh scripts/prepare-kernel.sh

kernel-%: prepare
	@sh scripts/build-kernel.sh $*

modules-%: kernel-% $(B)/gen_init_cpio
	@sh scripts/build-modules.sh $*

dtbs: prepare $(DTBS)

$(B)/dtb/%.dtb: dts/%.dts $(wildcard dts/*.dtsi) scripts/build-dtb.sh | prepare
	@sh scripts/build-dtb.sh $*

# prepare-kernel.sh writes the stamp; the rule only lets a clean tree
# name it before prepare has run (the order-only | prepare waits for it).
$(B)/.series-stamp: ;

$(B)/gen_init_cpio: $(B)/.series-stamp | prepare
	@mkdir -p $(B)
	cc -O2 -o $@ $(B)/linux/usr/gen_init_cpio.c

$(B)/guest/init: tests/guest/init.c | deps
	@mkdir -p $(B)/guest
	$(CROSS)gcc $(GUEST_CFLAGS) -o $@ $<

$(B)/guest/obj/%.o: tests/guest/%.c tests/guest/guest.h | deps
	@mkdir -p $(B)/guest/obj
	$(CROSS)gcc $(GUEST_CFLAGS) -Dmain=guest_main_$* -c -o $@ $<

# The program table, rewritten only when the set of programs changes
$(B)/guest/progs.h: FORCE
	@mkdir -p $(B)/guest
	@for p in $(GUEST_PROGS); do echo "PROG($$p)"; done > $@.tmp
	@if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

$(B)/guest/dmb-guest: tests/guest/multicall.c $(B)/guest/progs.h $(GUEST_OBJS) tests/guest/guest.c tests/guest/guest.h | deps
	$(CROSS)gcc $(GUEST_CFLAGS) -I$(B)/guest -o $@ tests/guest/multicall.c $(GUEST_OBJS) tests/guest/guest.c

FORCE:

# The kernel's own selftests, unchanged, from the patched tree
KSELFTESTS := dmabuf-heaps/dmabuf-heap
KSELFTEST_BINS := $(addprefix $(B)/guest/,$(notdir $(KSELFTESTS)))

$(B)/guest/dmabuf-heap: $(B)/.series-stamp | prepare
	@mkdir -p $(B)/guest
	$(CROSS)gcc -static -O2 -I$(B)/linux/tools/testing/selftests -o $@ \
		$(B)/linux/tools/testing/selftests/dmabuf-heaps/dmabuf-heap.c

# Debian's arm64 v4l2-compliance and v4l2-ctl with their libraries
$(B)/v4l-utils/initramfs.list: scripts/v4l-utils.sh | deps
	@sh scripts/v4l-utils.sh

# A subset of the kernel's mm selftests, unchanged, with their libraries
$(B)/mm-selftests/initramfs.list: scripts/mm-selftests.sh $(B)/.series-stamp | prepare
	@sh scripts/mm-selftests.sh

$(B)/initramfs/base.list: $(GUEST_BINS) $(KSELFTEST_BINS) $(B)/v4l-utils/initramfs.list Makefile
	@mkdir -p $(B)/initramfs
	@{ echo "dir /dev 0755 0 0"; \
	   echo "nod /dev/console 0600 0 0 c 5 1"; \
	   for d in proc sys tmp mnt bin etc; do echo "dir /$$d 0755 0 0"; done; \
	   echo "file /init $(TOP)/$(B)/guest/init 0755 0 0"; \
	   echo "file /bin/dmb-guest $(TOP)/$(B)/guest/dmb-guest 0755 0 0"; \
	   for p in $(GUEST_PROGS); do echo "slink /bin/$$p dmb-guest 0777 0 0"; done; \
	   for p in $(notdir $(KSELFTESTS)); do \
		echo "file /bin/$$p $(TOP)/$(B)/guest/$$p 0755 0 0"; done; \
	   cat $(B)/v4l-utils/initramfs.list; \
	} > $@

$(B)/initramfs/base.cpio: $(B)/initramfs/base.list $(B)/gen_init_cpio
	$(B)/gen_init_cpio $< > $@

# Only the boots that run them get the mm selftests (10 MB of memory the
# others' fill-to-the-limit checks must not lose): run-scenario.sh appends
# this archive when a check runs /bin/mm/...
$(B)/initramfs/mm-selftests.cpio: $(B)/mm-selftests/initramfs.list $(B)/gen_init_cpio
	@mkdir -p $(B)/initramfs
	$(B)/gen_init_cpio $< > $@

# Debian's busybox and docs/adopting.rst's on-board commands, for the boots whose
# check runs them (tests/guest/readme.c; run-scenario.sh appends it)
README_BLOCKS := onboard
$(B)/initramfs/readme.cpio: $(B)/v4l-utils/initramfs.list docs/adopting.rst scripts/readme-block.sh $(B)/gen_init_cpio
	@mkdir -p $(B)/initramfs/readme
	@{ cat $(B)/v4l-utils/busybox.list; \
	   echo "dir /etc 0755 0 0"; echo "dir /etc/readme 0755 0 0"; \
	   for b in $(README_BLOCKS); do \
		sh scripts/readme-block.sh $$b > $(B)/initramfs/readme/$$b.sh; \
		test -s $(B)/initramfs/readme/$$b.sh || \
			{ echo "docs/adopting.rst has no '.. tested: $$b' block" >&2; exit 1; }; \
		echo "file /etc/readme/$$b.sh $(TOP)/$(B)/initramfs/readme/$$b.sh 0644 0 0"; \
	   done; } > $(B)/initramfs/readme.list
	$(B)/gen_init_cpio $(B)/initramfs/readme.list > $@

guest: prepare $(B)/initramfs/base.cpio $(B)/initramfs/mm-selftests.cpio $(B)/initramfs/readme.cpio

test:
	@sh scripts/test.sh

check:
	@CHECK_ONLY=1 sh scripts/test.sh

# The board is the user's: compile, validate and judge it with the rules of
# the patched tree (KSRC, default build/linux; KBUILD for its .config).
check-dts:
	@test -n "$(DTS)" || { echo "usage: make check-dts DTS=path/to/board.dts [INCLUDE=\"dirs\"] [BASE=board.dts] [MEMORY=b+s,..] [RESERVED=b+s,..] [STRICT=1]" >&2; exit 2; }
	@test -n "$(KSRC)" || $(MAKE) -s deps prepare
	@sh scripts/check-dts.sh $(addprefix -I,$(INCLUDE)) $(if $(BASE),--base=$(BASE)) $(if $(STRICT),--strict) \
		$(if $(MEMORY),--memory=$(MEMORY)) $(if $(RESERVED),--reserved=$(RESERVED)) $(DTS)

demo:
	@sh scripts/demo.sh

bench:
	@sh scripts/bench.sh

docs: deps prepare
	@sh scripts/docs.sh

check-series:
	@sh scripts/check-series.sh

stress:
	@SCENARIO_FILES="$(wildcard tests/stress/*.scn)" sh scripts/test.sh

scenario:
	@test -n "$(S)" || { echo "usage: make scenario S=<name> [CONFIG=<flavour>] [BOARD=<dts>] [APPEND=<args>]" >&2; exit 2; }
	@sh scripts/run-scenario.sh $(if $(CONFIG),--config=$(CONFIG)) $(if $(BOARD),--board=$(BOARD)) \
		$(if $(APPEND),"--append=$(APPEND)") $(S)

boot:
	@test -n "$(S)" || { echo "usage: make boot S=<name>" >&2; exit 2; }
	@sh scripts/run-scenario.sh --interactive $(S)

clean:
	rm -rf $(B)/obj-* $(B)/dtb $(B)/guest $(B)/initramfs $(B)/run $(B)/logs
