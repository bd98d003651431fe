// SPDX-License-Identifier: GPL-2.0
/*
 * dmbget: take a device's Designated Movable Block through the core's
 * driver API (dmb_get()/dmb_get_by_name(), via the dmb_test module), check
 * the kernel lists the device as its owner, and release it.
 *
 * usage: dmbget --node=/video-decoder-0 [--which=0|frames] [expectations]
 * Metrics: ret (0 or the negative errno), base, size, owned (1 if the
 * block list named an owner while held), released (1 if no owner after).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guest.h"

#define GET_FILE "/sys/kernel/debug/dmb_test/get"

static int cmd(const char *c, char *res, size_t len)
{
	int fd = open(GET_FILE, O_RDWR);
	ssize_t n;

	if (fd < 0)
		return -1;
	if (write(fd, c, strlen(c)) != (ssize_t)strlen(c)) {
		close(fd);
		return -1;
	}
	lseek(fd, 0, SEEK_SET);
	n = read(fd, res, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	res[n] = '\0';
	res[strcspn(res, "\n")] = '\0';
	return 0;
}

static int owner_of(uint64_t base, char *owner, size_t len)
{
	struct dmb_range d[MAX_DMBS];
	int n = read_dmbs(d, MAX_DMBS), i;

	for (i = 0; i < n; i++)
		if (d[i].base == base) {
			snprintf(owner, len, "%s", d[i].owner);
			return 0;
		}
	return -1;
}

int main(int argc, char **argv)
{
	const char *node = opt_get(argc, argv, "node");
	const char *which = opt_get(argc, argv, "which");
	char c[256], res[256], owner[64] = "", name[128];
	unsigned long long base = 0, size = 0;
	double ret = 0, owned = 0, released = 0;

	t_init("dmbget");
	if (!node)
		t_bail("usage: dmbget --node=PATH [--which=INDEX|NAME]");
	if (load_module("dmb_test"))
		t_bail("cannot load /lib/modules/dmb_test.ko");
	snprintf(c, sizeof(c), "get %s %s", node, which ? which : "0");
	if (cmd(c, res, sizeof(res)))
		t_bail("cannot use " GET_FILE);
	t_report("%s: %s", c, res);
	if (sscanf(res, "ok %127s %llx %llx", name, &base, &size) == 3) {
		owned = !owner_of(base, owner, sizeof(owner)) &&
			strcmp(owner, "-") != 0;
		t_report("owner while held: %s", owner);
	} else {
		ret = strtol(res + 6, NULL, 10);
	}
	if (cmd("put", res, sizeof(res)))
		t_bail("cannot release through " GET_FILE);
	if (base)
		released = !owner_of(base, owner, sizeof(owner)) &&
			   !strcmp(owner, "-");
	metric_set("ret", ret);
	metric_set("base", base);
	metric_set("size", size);
	metric_set("owned", owned);
	metric_set("released", released);
	check_expectations(argc, argv);
	return t_finish();
}
