// SPDX-License-Identifier: GPL-2.0
/*
 * stress: start/stop cycles of both sample decoders, concurrently with a
 * memory hog, page cache churn on the ext4 disk and players killed in the
 * middle of a claim, optionally close to out of memory.  Every byte of the
 * hog's and the files' data is checked after every cycle, and at the end
 * nothing may stay claimed.
 *
 * usage: stress [--cycles=1000] [--hog=300M] [--churn=64M] [--kill-every=10]
 *               [--near-oom] [expectations]
 * Metrics: cycles (completed start/stop cycles, both decoders), failed
 * (cycles whose start, decode or stop failed for another reason than lack
 * of memory), enomem (starts refused for lack of memory, allowed near
 * OOM), killed (players killed mid-claim), corrupt (damaged pages seen by
 * the hog or the churn), main/pip.count_after (buffers still claimed at the
 * end), main/pip.leaked_pages (pages the block handed out and did not get
 * back, from dmb_alloc's sysfs counters).
 * Needs /dev/vda (ext4).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/dmb_vdec.h>

#include "guest.h"

/* One start/decode/verify/stop cycle; 0, -ENOMEM, or another error */
static int cycle(const char *label, uint32_t seed)
{
	uint64_t sizes[4] = { 8 << 20, 8 << 20, 16 << 20, 32 << 20 };
	struct dmb_vdec_start st = { .count = 4, .sizes_ptr = (uintptr_t)sizes };
	struct dmb_vdec_decode d = { .seed = seed };
	struct dmb_vdec_buf bb;
	char path[64];
	int fd, ret = 0;
	uint32_t b, *w;

	snprintf(path, sizeof(path), "/dev/dmb-vdec-%s", label);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, DMB_VDEC_START, &st)) {
		ret = -errno;
		goto out;
	}
	if (ioctl(fd, DMB_VDEC_DECODE, &d) || d.checked != 4) {
		ret = -EIO;
		goto out;
	}
	for (b = 0; b < 4 && !ret; b++) {
		memset(&bb, 0, sizeof(bb));
		bb.index = b;
		if (ioctl(fd, DMB_VDEC_BUF, &bb)) {
			ret = -EIO;
			break;
		}
		w = mmap(NULL, bb.size, PROT_READ, MAP_SHARED, fd, bb.offset);
		if (w == MAP_FAILED) {
			ret = -errno;
			break;
		}
		if (w[0] != (seed ^ (b << 24)) ||
		    w[bb.size / 4 - 1] != (seed ^ (b << 24) ^
					   (uint32_t)(bb.size / 4 - 1)))
			ret = -EIO;
		munmap(w, bb.size);
	}
	if (!ret && ioctl(fd, DMB_VDEC_STOP))
		ret = -errno;
out:
	close(fd);
	return ret;
}

/* A player that claims and is killed before it can stop */
static int killed_player(const char *label)
{
	static uint64_t size = 128 << 20;
	struct dmb_vdec_start st = { .count = 1, .sizes_ptr = (uintptr_t)&size };
	int status = 0;
	pid_t pid = fork();

	if (pid < 0)	/* never kill(-1, ...): that is every process */
		return 0;
	if (!pid) {
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/dev/dmb-vdec-%s", label);
		fd = open(path, O_RDWR);
		if (fd >= 0)
			ioctl(fd, DMB_VDEC_START, &st);
		pause();
		_exit(0);
	}
	usleep(1000 + rand() % 20000);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	return WIFSIGNALED(status);
}

int main(int argc, char **argv)
{
	const char *o;
	long cycles = (o = opt_get(argc, argv, "cycles")) ? atol(o) : 1000;
	int64_t hog_len = (o = opt_get(argc, argv, "hog")) ? parse_size(o) : 300 << 20;
	int64_t churn_len = (o = opt_get(argc, argv, "churn")) ? parse_size(o) : 64 << 20;
	long kill_every = (o = opt_get(argc, argv, "kill-every")) ? atol(o) : 10;
	int near_oom = opt_get(argc, argv, "near-oom") != NULL;
	double done = 0, failed = 0, enomem = 0, killed = 0, corrupt = 0;
	pid_t hogs[2], ch;
	int k, fd;
	long c;

	t_init("stress");
	if (load_module("dmb_vdec"))
		t_bail("cannot load the decoder module");
	if (mount("/dev/vda", "/mnt", "ext4", 0, NULL))
		t_bail("cannot mount /dev/vda: %s", strerror(errno));
	if (near_oom)	/* leave the hogs barely enough room */
		hog_len = ((meminfo_kb("MemAvailable") << 10) - (128 << 20)) / 2;
	srand(1);
	hogs[0] = load_spawn(load_hog, hog_len);
	hogs[1] = load_spawn(load_hog, near_oom ? hog_len : hog_len / 2);
	ch = load_spawn(load_churn, churn_len);
	if (hogs[0] < 0 || hogs[1] < 0 || ch < 0)
		t_bail("cannot fork the load: %s", strerror(errno));

	for (c = 0; c < cycles; c++) {
		for (k = 0; k < 2; k++) {
			int ret = cycle(k ? "pip" : "main", 0x1000 * c + k);

			if (ret == -ENOMEM || ret == -EBUSY)
				enomem++;
			else if (ret)
				failed++;
		}
		done++;
		if (kill_every && !(c % kill_every))
			killed += killed_player(c & 1 ? "pip" : "main");
		if (!(c % 100))
			t_info("%ld cycles", c);
	}

	{
		pid_t load[3] = { hogs[0], hogs[1], ch };

		corrupt = load_end(load, 3);
	}

	/* nothing stays claimed: a whole-block claim still works */
	for (k = 0; k < 2; k++) {
		struct dmb_vdec_info q;
		char path[64];

		snprintf(path, sizeof(path), "/dev/dmb-vdec-%s", k ? "pip" : "main");
		fd = open(path, O_RDWR);
		memset(&q, 0, sizeof(q));
		if (fd < 0 || ioctl(fd, DMB_VDEC_INFO, &q))
			t_bail("cannot query %s", path);
		metric_set(k ? "pip.count_after" : "main.count_after", q.count);
		close(fd);
		{
			/* pages the decoder's block handed out and did not get back */
			static const char *const blk[] = { "dmb@60000000", "dmb@a0000000" };
			char p1[128], p2[128], b1[32], b2[32];
			int f1, f2;
			ssize_t n1, n2;

			snprintf(p1, sizeof(p1), "/sys/kernel/mm/dmb_alloc/%s/pages_claimed", blk[k]);
			snprintf(p2, sizeof(p2), "/sys/kernel/mm/dmb_alloc/%s/pages_released", blk[k]);
			f1 = open(p1, O_RDONLY);
			f2 = open(p2, O_RDONLY);
			n1 = f1 < 0 ? -1 : read(f1, b1, sizeof(b1) - 1);
			n2 = f2 < 0 ? -1 : read(f2, b2, sizeof(b2) - 1);
			if (f1 >= 0)
				close(f1);
			if (f2 >= 0)
				close(f2);
			if (n1 > 0 && n2 > 0) {
				b1[n1] = b2[n2] = '\0';
				metric_set(k ? "pip.leaked_pages" : "main.leaked_pages",
					   atof(b1) - atof(b2));
			}
		}
	}
	umount("/mnt");
	t_report("%.0f cycles on both decoders, %.0f failed, %.0f refused for memory, %.0f players killed mid-claim, %.0f corrupted workers",
		 done, failed, enomem, killed, corrupt);
	metric_set("cycles", done);
	metric_set("failed", failed);
	metric_set("enomem", enomem);
	metric_set("killed", killed);
	metric_set("corrupt", corrupt);
	check_expectations(argc, argv);
	return t_finish();
}
