// SPDX-License-Identifier: GPL-2.0
/*
 * vdec: drive the sample video decoder (/dev/dmb-vdec-<label>) as a media
 * player would: start a session (claim frame buffers), decode, read the
 * frames back through mmap(), stop.
 *
 * usage: vdec --test=NAME [--dev=main] [--bufs=4] [--size=32M] [expect...]
 *   play       start, query, decode, verify through mmap, stop
 *   malformed  every bad call gets its error and changes nothing
 *   close      a session ended by close() without stop
 *   kill       a session whose process is killed
 * Metrics: see each test; every test ends with count_after (buffers still
 * claimed, through a fresh query) and claimed_after (dmb_alloc's count).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dmb_vdec.h>

#include "guest.h"

static char devpath[64];

static int vopen(void)
{
	return open(devpath, O_RDWR | O_CLOEXEC);
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

static int start(int fd, int bufs, uint64_t size)
{
	struct dmb_vdec_start st = { .count = bufs };
	int i;

	for (i = 0; i < bufs && i < DMB_VDEC_MAX_BUFS; i++)
		st.sizes[i] = size;
	return xioctl(fd, DMB_VDEC_START, &st);
}

/* Map every buffer and check the decoder's pattern; bad words, or -1 */
static long verify(int fd, const struct dmb_vdec_query *q, uint32_t seed)
{
	long bad = 0;
	uint32_t b;

	for (b = 0; b < q->count; b++) {
		uint32_t *w = mmap(NULL, q->bufs[b].size, PROT_READ, MAP_SHARED,
				   fd, q->bufs[b].offset);
		size_t i, n = q->bufs[b].size / 4;

		if (w == MAP_FAILED)
			return -1;
		for (i = 0; i < n; i += 997)
			bad += w[i] != (seed ^ (b << 24) ^ (uint32_t)i);
		bad += w[n - 1] != (seed ^ (b << 24) ^ (uint32_t)(n - 1));
		munmap(w, q->bufs[b].size);
	}
	return bad;
}

static void end_metrics(void)
{
	struct dmb_vdec_query q;
	int fd = vopen();

	memset(&q, 0, sizeof(q));
	if (fd >= 0 && !xioctl(fd, DMB_VDEC_QUERY, &q))
		metric_set("count_after", q.count);
	else
		metric_set("count_after", -1);
	if (fd >= 0)
		close(fd);
}

int main(int argc, char **argv)
{
	const char *test = opt_get(argc, argv, "test");
	const char *dev = opt_get(argc, argv, "dev");
	const char *o_bufs = opt_get(argc, argv, "bufs");
	const char *o_size = opt_get(argc, argv, "size");
	int bufs = o_bufs ? atoi(o_bufs) : 4;
	int64_t size = o_size ? parse_size(o_size) : 32 << 20;
	struct dmb_vdec_query q;
	struct dmb_vdec_decode d = { .seed = 0x5eed1234 };
	int fd, fd2, ret;
	uint32_t b;

	t_init("vdec");
	snprintf(devpath, sizeof(devpath), "/dev/dmb-vdec-%s", dev ? dev : "main");
	if (!test)
		t_bail("usage: vdec --test=NAME");
	if (load_module("dmb_vdec"))
		t_bail("cannot load /lib/modules/dmb_vdec.ko");
	fd = vopen();
	if (fd < 0)
		t_bail("cannot open %s: %s", devpath, strerror(errno));

	if (!strcmp(test, "play")) {
		uint64_t inside = 0;

		metric_set("start", start(fd, bufs, size));
		memset(&q, 0, sizeof(q));
		metric_set("query", xioctl(fd, DMB_VDEC_QUERY, &q));
		metric_set("count", q.count);
		metric_set("controller", q.controller);
		for (b = 0; b < q.count; b++)
			inside += q.bufs[b].phys >= q.dmb_base &&
				  q.bufs[b].phys + q.bufs[b].size <= q.dmb_base + q.dmb_size;
		metric_set("inside", inside);
		t_report("%s: %u buffers of %llu MiB claimed in %.1f ms on %s, block [0x%llx, +%llu MiB)",
			 devpath, q.count,
			 (unsigned long long)(q.count ? q.bufs[0].size >> 20 : 0),
			 q.claim_ns / 1e6, q.controller_label,
			 (unsigned long long)q.dmb_base,
			 (unsigned long long)(q.dmb_size >> 20));
		metric_set("claim_ms", q.claim_ns / 1e6);
		metric_set("decode", xioctl(fd, DMB_VDEC_DECODE, &d));
		metric_set("checked", d.checked);
		metric_set("verify_bad", verify(fd, &q, d.seed));
		metric_set("stop", xioctl(fd, DMB_VDEC_STOP, NULL));
	} else if (!strcmp(test, "malformed")) {
		struct dmb_vdec_start st;
		void *m;

		metric_set("unknown_cmd", xioctl(fd, _IO('D', 99), NULL));
		metric_set("stop_without_start", xioctl(fd, DMB_VDEC_STOP, NULL));
		metric_set("decode_without_start", xioctl(fd, DMB_VDEC_DECODE, &d));
		memset(&st, 0, sizeof(st));
		metric_set("count0", xioctl(fd, DMB_VDEC_START, &st));
		st.count = DMB_VDEC_MAX_BUFS + 1;
		metric_set("too_many", xioctl(fd, DMB_VDEC_START, &st));
		st.count = 1;
		st.sizes[0] = 0;
		metric_set("size0", xioctl(fd, DMB_VDEC_START, &st));
		st.sizes[0] = 1ULL << 40;
		metric_set("too_big", xioctl(fd, DMB_VDEC_START, &st));
		st.sizes[0] = 4096;
		st.flags = 1;
		metric_set("flags", xioctl(fd, DMB_VDEC_START, &st));
		metric_set("start", start(fd, 2, 4 << 20));
		metric_set("second_start", start(fd, 1, 4 << 20));
		fd2 = vopen();
		metric_set("other_file_start", start(fd2, 1, 4 << 20));
		metric_set("other_file_stop", xioctl(fd2, DMB_VDEC_STOP, NULL));
		close(fd2);
		m = mmap(NULL, 16 << 20, PROT_READ, MAP_SHARED, fd, 0);
		metric_set("mmap_outside", m == MAP_FAILED ? -errno : 0);
		m = mmap(NULL, 4 << 20, PROT_READ, MAP_SHARED, fd, 4 << 20);
		metric_set("mmap_ok", m == MAP_FAILED ? -errno : 0);
		metric_set("stop_while_mapped", xioctl(fd, DMB_VDEC_STOP, NULL));
		if (m != MAP_FAILED)
			munmap(m, 4 << 20);
		memset(&q, 0, sizeof(q));
		xioctl(fd, DMB_VDEC_QUERY, &q);
		metric_set("count_before_stop", q.count);
		metric_set("stop", xioctl(fd, DMB_VDEC_STOP, NULL));
	} else if (!strcmp(test, "close")) {
		metric_set("start", start(fd, bufs, size));
		close(fd);
		fd = -1;
	} else if (!strcmp(test, "kill")) {
		int status = 0;
		pid_t pid = fork();

		if (!pid) {
			int cfd = vopen();

			if (cfd < 0 || start(cfd, bufs, size) ||
			    xioctl(cfd, DMB_VDEC_DECODE, &d))
				_exit(1);
			for (;;)
				pause();
		}
		/* let it claim, then kill it as a crashing player would die */
		for (ret = 0; ret < 200; ret++) {
			memset(&q, 0, sizeof(q));
			if (!xioctl(fd, DMB_VDEC_QUERY, &q) && q.count)
				break;
			usleep(50000);
		}
		metric_set("child_claimed", q.count);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		metric_set("killed", WIFSIGNALED(status));
	} else {
		t_bail("unknown --test=%s", test);
	}
	if (fd >= 0)
		close(fd);
	end_metrics();
	check_expectations(argc, argv);
	return t_finish();
}
