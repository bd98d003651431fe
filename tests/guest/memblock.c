// SPDX-License-Identifier: GPL-2.0
/*
 * memblock: what memblock kept of a range of physical memory, read from
 * /sys/kernel/debug/memblock/{memory,reserved} (arm64 keeps memblock after
 * boot).  Tells whether a refused reserved-memory node gave back its own
 * memory and only that.
 *
 * usage: memblock --range=BASE+SIZE [expectations]
 * Metrics (bytes of the range): memory (in memblock.memory), nomap (in
 * memory regions flagged NOMAP), reserved (in memblock.reserved).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "guest.h"

/* Bytes of [base, end) covered by regions of FILE whose flags match want. */
static double covered(const char *file, uint64_t base, uint64_t end,
		      const char *want)
{
	FILE *f = fopen(file, "r");
	char line[256];
	double bytes = 0;

	if (!f)
		t_bail("cannot read %s (CONFIG_DEBUG_FS, ARCH_KEEP_MEMBLOCK)", file);
	while (fgets(line, sizeof(line), f)) {
		uint64_t b, e;
		char *p = strchr(line, ':');

		/* "   0: 0x0000000040000000..0x000000004fffffff    0 NONE" */
		if (!p || sscanf(p + 1, " %" SCNx64 "..%" SCNx64, &b, &e) != 2)
			continue;
		if (want && !strstr(line, want))
			continue;
		e += 1;
		if (e <= base || b >= end)
			continue;
		bytes += (double)((e < end ? e : end) - (b > base ? b : base));
	}
	fclose(f);
	return bytes;
}

int main(int argc, char **argv)
{
	const char *range = opt_get(argc, argv, "range");
	int64_t base, size;
	char *plus;

	t_init("memblock");
	if (!range || !(plus = strchr(range, '+')))
		t_bail("usage: memblock --range=BASE+SIZE [expectations]");
	*plus = '\0';
	base = parse_size(range);
	size = parse_size(plus + 1);
	if (base < 0 || size <= 0)
		t_bail("bad --range");
	metric_set("memory", covered("/sys/kernel/debug/memblock/memory",
				     base, base + size, NULL));
	metric_set("nomap", covered("/sys/kernel/debug/memblock/memory",
				    base, base + size, "NOMAP"));
	metric_set("reserved", covered("/sys/kernel/debug/memblock/reserved",
				       base, base + size, NULL));
	check_expectations(argc, argv);
	return t_finish();
}
