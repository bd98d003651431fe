// SPDX-License-Identifier: GPL-2.0
/*
 * dmb-guest: every guest program in one static binary, chosen by the name
 * it runs as (/bin/<program> are symbolic links to /bin/dmb-guest, and
 * init runs checks as /bin/<program>).  Each program keeps its own file
 * and its own main(), compiled as guest_main_<program>(): one copy of the
 * static C library instead of one per program shrinks the initramfs that
 * every boot unpacks from 27 MB to 8 (the debug kernel took 2 s for it).
 */
#include <stdio.h>
#include <string.h>

#define PROG(n) int guest_main_##n(int argc, char **argv);
#include "progs.h"
#undef PROG

static const struct {
	const char *name;
	int (*main)(int argc, char **argv);
} progs[] = {
#define PROG(n) { #n, guest_main_##n },
#include "progs.h"
#undef PROG
};

int main(int argc, char **argv)
{
	const char *name = argc > 0 ? argv[0] : "";
	const char *slash = strrchr(name, '/');
	size_t i;

	if (slash)
		name = slash + 1;
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		if (!strcmp(name, progs[i].name))
			return progs[i].main(argc, argv);
	fprintf(stderr, "dmb-guest: no program called '%s'; have:", name);
	for (i = 0; i < sizeof(progs) / sizeof(progs[0]); i++)
		fprintf(stderr, " %s", progs[i].name);
	fputc('\n', stderr);
	return 127;
}
