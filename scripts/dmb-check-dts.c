// SPDX-License-Identifier: GPL-2.0
/*
 * dmb-check-dts: list the Designated Movable Blocks a compiled device tree
 * declares, and say which of them the kernel would refuse at boot and why.
 *
 * The rules are not copied here: mm/dmb_rules.h of the patched kernel tree
 * (what overlaps what, which other designated-movable-block nodes count,
 * the words of every refusal) is compiled into this program, as is the
 * kernel's own libfdt (scripts/dtc/libfdt).  What this file adds is what
 * the kernel gets from memblock at boot: RAM from /memory (or --memory),
 * and the order in which the reserved-memory code sets up the nodes.
 *
 * What only the booting kernel knows is not checked: where the kernel
 * image, the initrd and the DTB land, movablecore= blocks, firmware
 * reservations (give them with --reserved), NUMA node boundaries and the
 * floor of memory kept outside ZONE_MOVABLE.
 *
 * usage: dmb-check-dts [--memory=BASE+SIZE,...] [--reserved=BASE+SIZE,...]
 *			[--pageblock=BYTES] [--count=N] <board.dtb>
 * Exit status: 0 if every DMB node would be accepted, 1 if one would not,
 * 2 on a usage or input error.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <libfdt.h>

/* What mm/dmb_rules.h expects from its includer */
typedef uint64_t u64;
typedef uint64_t phys_addr_t;
typedef fdt32_t __be32;
#define __init
#define __printf(a, b)	__attribute__((format(printf, a, b)))
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#define DMB_NAME_LEN	64	/* include/linux/dmb.h */
#define CONFIG_OF_EARLY_FLATTREE 1

static u64 dt_mem_next_cell(int s, const __be32 **cellp)
{
	const __be32 *p = *cellp;
	u64 r = 0;

	*cellp = p + s;
	while (s--)
		r = (r << 32) | fdt32_to_cpu(*p++);
	return r;
}

#include "dmb_rules.h"

#define MAX_RANGES	64

struct range {
	u64 base, end;
};

static const void *fdt;
static int ac = 2, sc = 1;		/* the root's cells, as the kernel's */
static struct range ram[MAX_RANGES], fw[MAX_RANGES];
static int nram, nfw;
static u64 pageblock = 2 << 20;		/* arm64, 4 KiB pages */
static unsigned int dmb_count = 8;	/* CONFIG_DMB_COUNT's default */

/* Accepted DMBs, as dmb_areas[] */
static struct {
	u64 base, end;
	char name[DMB_NAME_LEN];
} dmbs[MAX_RANGES];
static unsigned int ndmbs;
static int problems;

/*
 * printf() of the kernel's messages: %pa is a pointer to a physical
 * address, printed as the kernel prints a 64-bit one.
 */
static void kprintf(char *buf, size_t len, const char *fmt, ...)
{
	char one[32], *o = buf, *e = buf + len - 1;
	va_list ap;

	va_start(ap, fmt);
	for (; *fmt && o < e; fmt++) {
		const char *s = one;

		if (*fmt != '%') {
			*o++ = *fmt;
			continue;
		}
		fmt++;
		if (!strncmp(fmt, "pa", 2)) {
			snprintf(one, sizeof(one), "0x%016llx",
				 (unsigned long long)*va_arg(ap, phys_addr_t *));
			fmt++;
		} else if (!strncmp(fmt, "lu", 2)) {
			snprintf(one, sizeof(one), "%lu", va_arg(ap, unsigned long));
			fmt++;
		} else if (*fmt == 'u') {
			snprintf(one, sizeof(one), "%u", va_arg(ap, unsigned int));
		} else if (*fmt == 'd') {
			snprintf(one, sizeof(one), "%d", va_arg(ap, int));
		} else if (*fmt == 's') {
			s = va_arg(ap, const char *);
		} else {
			snprintf(one, sizeof(one), "%%%c", *fmt);
		}
		while (*s && o < e)
			*o++ = *s++;
	}
	*o = 0;
	va_end(ap);
	if (o > buf && o[-1] == '\n')
		o[-1] = 0;
}

static int parse_ranges(const char *arg, struct range *r, int *n)
{
	char *s = strdup(arg), *item, *save = NULL, *end;

	for (item = strtok_r(s, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		u64 base, size;

		errno = 0;
		base = strtoull(item, &end, 0);
		if (*end != '+' || errno)
			return -1;
		size = strtoull(end + 1, &end, 0);
		if (*end || errno || *n == MAX_RANGES)
			return -1;
		r[*n].base = base;
		r[(*n)++].end = base + size;
	}
	free(s);
	return 0;
}

/* RAM from the /memory nodes, as early_init_dt_scan_memory() reads it */
static void scan_memory(void)
{
	int node, len, t_len = (ac + sc) * 4;

	fdt_for_each_subnode(node, fdt, 0) {
		const char *type = fdt_getprop(fdt, node, "device_type", NULL);
		const fdt32_t *reg;

		if (!type || strcmp(type, "memory") || dmb_fdt_disabled(fdt, node))
			continue;
		reg = fdt_getprop(fdt, node, "reg", &len);
		for (; reg && len >= t_len && nram < MAX_RANGES; len -= t_len) {
			u64 b = dt_mem_next_cell(ac, &reg);
			u64 s = dt_mem_next_cell(sc, &reg);

			if (s) {
				ram[nram].base = b;
				ram[nram++].end = b + s;
			}
		}
	}
}

/* Is [base, end) all RAM?  RAM ranges in any order, possibly adjacent. */
static bool in_ram(u64 base, u64 end)
{
	u64 pos = base;
	bool moved = true;
	int i;

	while (pos < end && moved) {
		moved = false;
		for (i = 0; i < nram; i++)
			if (ram[i].base <= pos && ram[i].end > pos) {
				pos = ram[i].end;
				moved = true;
			}
	}
	return pos >= end;
}

/*
 * The walk of dmb_walk(), with what the host knows: the accepted DMBs,
 * the device tree (mm/dmb_rules.h) and the firmware reservations given.
 */
static bool find_busy(u64 base, u64 end, int self, struct dmb_walk *w)
{
	unsigned int i;

	*w = (struct dmb_walk){ .self = self, .base = base, .end = end };
	for (i = 0; i < ndmbs; i++)
		dmb_walk_busy(w, dmbs[i].base, dmbs[i].end, DMB_WHAT_DMB,
			      dmbs[i].name);
	dmb_walk_fdt(w, fdt, ac, sc);
	for (i = 0; i < (unsigned int)nfw; i++)
		dmb_walk_busy(w, fw[i].base, fw[i].end, DMB_WHAT_EARLY);
	return w->found;
}

/* Where a DMB lies: the /dram-controllers child whose reg holds it */
static void controller(u64 base, u64 end, char *buf, size_t len)
{
	int ctl = fdt_path_offset(fdt, "/dram-controllers"), node, l;
	int cac = 2, csc = 2;
	const fdt32_t *p;

	snprintf(buf, len, "-");
	if (ctl < 0)
		return;
	p = fdt_getprop(fdt, ctl, "#address-cells", NULL);
	if (p)
		cac = fdt32_to_cpu(*p);
	p = fdt_getprop(fdt, ctl, "#size-cells", NULL);
	if (p)
		csc = fdt32_to_cpu(*p);
	snprintf(buf, len, "no controller");
	fdt_for_each_subnode(node, fdt, ctl) {
		const char *label = fdt_getprop(fdt, node, "label", NULL);
		const fdt32_t *reg = fdt_getprop(fdt, node, "reg", &l);

		for (; reg && l >= (cac + csc) * 4; l -= (cac + csc) * 4) {
			u64 b = dt_mem_next_cell(cac, &reg);
			u64 e = b + dt_mem_next_cell(csc, &reg);

			if (base >= b && end <= e) {
				snprintf(buf, len, "%s", label ? label :
					 fdt_get_name(fdt, node, NULL));
				return;
			}
			if (base < e && b < end)
				snprintf(buf, len, "straddles controllers");
		}
	}
}

static void report(int node, u64 base, u64 size, const char *kind,
		   const char *verdict)
{
	char path[256], ctl[64] = "-";

	fdt_get_path(fdt, node, path, sizeof(path));
	if (size && base != (u64)-1)
		controller(base, base + size, ctl, sizeof(ctl));
	if (base == (u64)-1)
		printf("%-32s %-18s %8llu MiB  %-8s %-16s %s\n", path, "(placed at boot)",
		       (unsigned long long)(size >> 20), kind, ctl, verdict);
	else
		printf("%-32s 0x%016llx %8llu MiB  %-8s %-16s %s\n", path,
		       (unsigned long long)base, (unsigned long long)(size >> 20),
		       kind, ctl, verdict);
}

static void refuse(int node, u64 base, u64 size, const char *kind,
		   const char *msg)
{
	char line[512];

	snprintf(line, sizeof(line), "REFUSED  dmb: %s", msg);
	report(node, base, size, kind, line);
	problems++;
}

/*
 * The checks of __dmb_add() for a node the generic code reserved, in its
 * order; DMB_MSG_* carry the words.
 */
static bool add(int node, const char *name, u64 base, u64 size, const char *kind)
{
	char msg[400];
	u64 end = base + size, kib = pageblock >> 10;
	struct dmb_walk w;

	if (!size)
		kprintf(msg, sizeof(msg), DMB_MSG_SIZE0, name);
	else if (end < base)
		kprintf(msg, sizeof(msg), DMB_MSG_OVERFLOW, name);
	else if ((base | size) & (pageblock - 1))
		kprintf(msg, sizeof(msg), DMB_MSG_UNALIGNED, name, &base, &size,
			(unsigned long)kib);
	else if (ndmbs == dmb_count)
		kprintf(msg, sizeof(msg), DMB_MSG_TOO_MANY, name, ndmbs);
	else if (node >= 0 && find_busy(base, end, node, &w))
		kprintf(msg, sizeof(msg), DMB_MSG_OVERLAPS, name, w.what,
			&w.fbase, &w.fend);
	else if (!in_ram(base, end))
		kprintf(msg, sizeof(msg), DMB_MSG_NOT_RAM, name, &base, &end);
	else {
		dmbs[ndmbs].base = base;
		dmbs[ndmbs].end = end;
		snprintf(dmbs[ndmbs++].name, DMB_NAME_LEN, "%s", name);
		report(node, base, size, kind, "ok");
		return true;
	}
	refuse(node, base, size, kind, msg);
	return false;
}

/* Can a dynamic node get pageblock-aligned room?  Like dmb_realign(). */
static bool has_room(u64 size, u64 align, u64 start, u64 end)
{
	int i;

	for (i = 0; i < nram; i++) {
		u64 b = max(ram[i].base, start), e = min(ram[i].end, end);
		u64 pos = (b + align - 1) & ~(align - 1);

		while (pos + size <= e && pos + size > pos) {
			struct dmb_walk w;

			/* what the static nodes and firmware hold */
			if (!find_busy(pos, pos + size, -1, &w))
				return true;
			pos = (w.fend + align - 1) & ~(align - 1);
		}
	}
	return false;
}

/* rmem_dmb_setup() of a node the generic code placed (size, no reg) */
static void check_dynamic(int node, const char *name)
{
	const fdt32_t *p;
	u64 size, align = pageblock;
	int len, t_len = (ac + sc) * 4;
	bool room = false, any = false;
	char msg[400];

	p = fdt_getprop(fdt, node, "size", &len);
	if (!p || len != sc * 4) {
		refuse(node, -1, 0, "dynamic", "its size property is malformed");
		return;
	}
	size = dt_mem_next_cell(sc, &p);
	p = fdt_getprop(fdt, node, "alignment", &len);
	if (p && len == ac * 4)
		align = max(align, dt_mem_next_cell(ac, &p));
	p = fdt_getprop(fdt, node, "alloc-ranges", &len);
	if (!p) {
		room = has_room(size, align, 0, (u64)-1);
		any = room || has_room(size, 1, 0, (u64)-1);
	}
	for (; p && len >= t_len && !room; len -= t_len) {
		u64 s = dt_mem_next_cell(ac, &p);
		u64 e = s + dt_mem_next_cell(sc, &p);

		room = has_room(size, align, s, e);
		any |= room || has_room(size, 1, s, e);
	}
	if (!any) {
		refuse(node, -1, size, "dynamic",
		       "no room in RAM for it (Reserved memory: failed to allocate memory for node)");
		return;
	}
	/* the generic code placed it; then rmem_dmb_setup() */
	if (fdt_getprop(fdt, node, "no-map", NULL)) {
		kprintf(msg, sizeof(msg), DMB_MSG_NOMAP, name);
		refuse(node, -1, size, "dynamic", msg);
		return;
	}
	if (!fdt_getprop(fdt, node, "reusable", NULL)) {
		kprintf(msg, sizeof(msg), DMB_MSG_NOT_REUSABLE, name);
		refuse(node, -1, size, "dynamic", msg);
		return;
	}
	if (!room && !(size & (pageblock - 1))) {
		kprintf(msg, sizeof(msg), DMB_MSG_NO_ROOM, name, &size, &align);
		refuse(node, -1, size, "dynamic", msg);
		return;
	}
	if (size & (pageblock - 1)) {
		/* __dmb_add(): the base is wherever the generic code put it */
		snprintf(msg, sizeof(msg),
			 "%s: rejected: base (where it is placed) and size 0x%016llx must be multiples of the pageblock size (%llu KiB)",
			 name, (unsigned long long)size,
			 (unsigned long long)(pageblock >> 10));
		refuse(node, -1, size, "dynamic", msg);
		return;
	}
	if (ndmbs == dmb_count) {
		kprintf(msg, sizeof(msg), DMB_MSG_TOO_MANY, name, ndmbs);
		refuse(node, -1, size, "dynamic", msg);
		return;
	}
	/* placed where nothing else is: counts, but overlaps no static node */
	dmbs[ndmbs].base = dmbs[ndmbs].end = 0;
	snprintf(dmbs[ndmbs++].name, DMB_NAME_LEN, "%s", name);
	report(node, -1, size, "dynamic", "ok");
}

struct snode {
	int node;
	u64 base, size;
};

static void check_static(int node, const char *name, u64 base, u64 size)
{
	char msg[400];
	struct dmb_walk w;

	if (fdt_getprop(fdt, node, "no-map", NULL)) {
		kprintf(msg, sizeof(msg), DMB_MSG_NOMAP, name);
		refuse(node, base, size, "static", msg);
	} else if (find_busy(base, base + size, node, &w)) {
		kprintf(msg, sizeof(msg), DMB_MSG_OVERLAPS, name, w.what,
			&w.fbase, &w.fend);
		refuse(node, base, size, "static", msg);
	} else if (!fdt_getprop(fdt, node, "reusable", NULL)) {
		kprintf(msg, sizeof(msg), DMB_MSG_NOT_REUSABLE, name);
		refuse(node, base, size, "static", msg);
	} else {
		add(node, name, base, size, "static");
	}
}

static void *read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	size_t n = 0, cap = 1 << 16;
	char *buf = malloc(cap);

	if (!f || !buf)
		return NULL;
	for (;;) {
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		buf = realloc(buf, cap);
		if (!buf)
			return NULL;
	}
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	struct snode st[MAX_RANGES];
	int i, n = 0, rm, node, len, t_len;
	const char *dtb = NULL, *memory = NULL;
	const fdt32_t *p;
	unsigned int ndt = 0;

	for (i = 1; i < argc; i++) {
		if (!strncmp(argv[i], "--memory=", 9)) {
			memory = argv[i] + 9;
		} else if (!strncmp(argv[i], "--reserved=", 11)) {
			if (parse_ranges(argv[i] + 11, fw, &nfw))
				goto usage;
		} else if (!strncmp(argv[i], "--pageblock=", 12)) {
			pageblock = strtoull(argv[i] + 12, NULL, 0);
			if (!pageblock || pageblock & (pageblock - 1))
				goto usage;
		} else if (!strncmp(argv[i], "--count=", 8)) {
			dmb_count = strtoul(argv[i] + 8, NULL, 0);
			if (!dmb_count || dmb_count > MAX_RANGES)
				goto usage;
		} else if (argv[i][0] != '-' && !dtb) {
			dtb = argv[i];
		} else {
			goto usage;
		}
	}
	if (!dtb)
		goto usage;
	fdt = read_file(dtb);
	if (!fdt || fdt_check_header(fdt)) {
		fprintf(stderr, "dmb-check-dts: %s: not a device tree blob\n", dtb);
		return 2;
	}
	p = fdt_getprop(fdt, 0, "#address-cells", NULL);
	if (p)
		ac = fdt32_to_cpu(*p);
	p = fdt_getprop(fdt, 0, "#size-cells", NULL);
	if (p)
		sc = fdt32_to_cpu(*p);
	t_len = (ac + sc) * 4;
	if (memory) {
		if (parse_ranges(memory, ram, &nram))
			goto usage;
	} else {
		scan_memory();
	}
	if (!nram) {
		fprintf(stderr, "dmb-check-dts: %s: no RAM: /memory has no size (firmware fills it in?): give --memory=BASE+SIZE\n",
			dtb);
		return 2;
	}
	printf("RAM:");
	for (i = 0; i < nram; i++)
		printf(" [0x%llx-0x%llx)", (unsigned long long)ram[i].base,
		       (unsigned long long)ram[i].end);
	printf("; pageblock %llu KiB; CONFIG_DMB_COUNT %u\n",
	       (unsigned long long)(pageblock >> 10), dmb_count);

	rm = fdt_path_offset(fdt, "/reserved-memory");
	printf("%-32s %-18s %12s  %-8s %-16s %s\n", "node", "base", "size",
	       "kind", "controller", "verdict");

	/* dynamic nodes first, in device tree order, then the static ones */
	fdt_for_each_subnode(node, fdt, rm) {
		char name[DMB_NAME_LEN];
		int clen;

		if (fdt_node_check_compatible(fdt, node, DMB_COMPATIBLE) ||
		    dmb_fdt_disabled(fdt, node))
			continue;
		ndt++;
		snprintf(name, sizeof(name), "/reserved-memory/%s",
			 fdt_get_name(fdt, node, NULL));
		p = fdt_getprop(fdt, node, "reg", &len);
		/* as dmb_node_busy(): a DMB node names no other compatible */
		if (!fdt_getprop(fdt, node, "compatible", &clen) ||
		    clen != sizeof(DMB_COMPATIBLE)) {
			u64 b = -1, sz = 0;

			if (p && len >= t_len) {
				b = dt_mem_next_cell(ac, &p);
				sz = dt_mem_next_cell(sc, &p);
			}
			report(node, b, sz, "-",
			       "REFUSED  not compatible with designated-movable-block alone: another reserved-memory handler (shared-dma-pool's, say) takes it first, and dmb_get() says it \"is not a Designated Movable Block (another reserved-memory handler took it)\"");
			problems++;
			continue;
		}
		if (!p) {
			check_dynamic(node, name);
			continue;
		}
		if (len % t_len || !len) {
			report(node, -1, 0, "static",
			       "REFUSED  Reserved memory: invalid reg property");
			problems++;
			continue;
		}
		if (n == MAX_RANGES)
			continue;
		st[n].node = node;
		st[n].base = dt_mem_next_cell(ac, &p);
		st[n].size = dt_mem_next_cell(sc, &p);
		if (!st[n].size) {
			char msg[300];

			/* of_reserved_mem.c, before any handler sees it */
			snprintf(msg, sizeof(msg),
				 "REFUSED  Reserved memory: failed to reserve memory for node '%s': base 0x%016llx, size 0 MiB",
				 fdt_get_name(fdt, node, NULL),
				 (unsigned long long)st[n].base);
			report(node, st[n].base, 0, "static", msg);
			problems++;
			continue;
		}
		n++;
	}
	/*
	 * In device tree order, as 6.12 sets them up (fdt_init_reserved_mem_node()
	 * from fdt_reserved_mem_save_node(), before reserved_mem is sorted)
	 */
	for (i = 0; i < n; i++) {
		char name[DMB_NAME_LEN];

		snprintf(name, sizeof(name), "/reserved-memory/%s",
			 fdt_get_name(fdt, st[i].node, NULL));
		check_static(st[i].node, name, st[i].base, st[i].size);
	}
	printf("%u DMB node%s, %d refused\n", ndt, ndt == 1 ? "" : "s", problems);
	return problems ? 1 : 0;

usage:
	fprintf(stderr, "usage: dmb-check-dts [--memory=BASE+SIZE,...] [--reserved=BASE+SIZE,...] [--pageblock=BYTES] [--count=N] <board.dtb>\n");
	return 2;
}
