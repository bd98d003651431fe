// SPDX-License-Identifier: GPL-2.0
/*
 * memblocks: the memory block devices (/sys/devices/system/memory): which
 * zones each online block reports, and whether offlining works where it
 * should and is refused where it must be.  Needs CONFIG_MEMORY_HOTREMOVE.
 *
 * usage: memblocks [--offline=ADDR] [--dmb=ADDR] [expectations]
 *   --offline=ADDR  offline the block holding ADDR, then online it again
 *   --dmb=ADDR      try to offline the block holding ADDR (a DMB)
 * Metrics: blocks (online blocks), none (online blocks whose valid_zones is
 * "none", i.e. that could never be offlined), movable (online blocks in
 * ZONE_MOVABLE), offline_ret and online_ret (0 or -errno for --offline),
 * dmb_ret (0 or -errno for --dmb), dmb_state_online (1 if that block is
 * still online after).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

#define MEM "/sys/devices/system/memory"

static int read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* write "online"/"offline" to the state of the block holding addr */
static int set_state(uint64_t addr, const char *state)
{
	char path[128], buf[32];
	unsigned long block_size;
	int fd, ret = 0;

	if (read_line(MEM "/block_size_bytes", buf, sizeof(buf)))
		return -ENOENT;
	block_size = strtoul(buf, NULL, 16);
	snprintf(path, sizeof(path), MEM "/memory%llu/state",
		 (unsigned long long)(addr / block_size));
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, state, strlen(state)) < 0)
		ret = -errno;
	close(fd);
	t_diag("%s -> %s: %d", path, state, ret);
	return ret;
}

static int is_online(uint64_t addr)
{
	char path[128], buf[32];
	unsigned long block_size;

	if (read_line(MEM "/block_size_bytes", buf, sizeof(buf)))
		return 0;
	block_size = strtoul(buf, NULL, 16);
	snprintf(path, sizeof(path), MEM "/memory%llu/state",
		 (unsigned long long)(addr / block_size));
	return !read_line(path, buf, sizeof(buf)) && !strcmp(buf, "online");
}

int main(int argc, char **argv)
{
	const char *off = opt_get(argc, argv, "offline");
	const char *dmb = opt_get(argc, argv, "dmb");
	double blocks = 0, none = 0, movable = 0;
	struct dirent *d;
	DIR *dir;

	t_init("memblocks");
	dir = opendir(MEM);
	if (!dir)
		t_bail("no %s (CONFIG_MEMORY_HOTPLUG)", MEM);
	while ((d = readdir(dir))) {
		char path[300], state[32], zones[64];

		if (strncmp(d->d_name, "memory", 6) || !isdigit((unsigned char)d->d_name[6]))
			continue;
		snprintf(path, sizeof(path), MEM "/%s/state", d->d_name);
		if (read_line(path, state, sizeof(state)) || strcmp(state, "online"))
			continue;
		snprintf(path, sizeof(path), MEM "/%s/valid_zones", d->d_name);
		if (read_line(path, zones, sizeof(zones)))
			continue;
		blocks++;
		if (!strcmp(zones, "none"))
			none++;
		if (!strcmp(zones, "Movable"))
			movable++;
		t_diag("%s %s", d->d_name, zones);
	}
	closedir(dir);
	metric_set("blocks", blocks);
	metric_set("none", none);
	metric_set("movable", movable);

	if (off) {
		metric_set("offline_ret", set_state(parse_size(off), "offline"));
		metric_set("online_ret", set_state(parse_size(off), "online"));
	}
	if (dmb) {
		metric_set("dmb_ret", set_state(parse_size(dmb), "offline"));
		metric_set("dmb_state_online", is_online(parse_size(dmb)));
	}
	check_expectations(argc, argv);
	return t_finish();
}
