// SPDX-License-Identifier: GPL-2.0
/*
 * vdec: drive the sample video decoder (/dev/dmb-vdec-<label>) as a media
 * player would: start a session (claim frame buffers), decode, read the
 * frames back through mmap(), stop; and as a careless or hostile one would.
 *
 * usage: vdec --test=NAME [--dev=main] [--bufs=4] [--size=32M] [expect...]
 *   play       start, info, buffers, decode, verify through mmap, stop
 *   malformed  every bad call gets its error and changes nothing
 *   close      a session ended by close() without stop
 *   kill       a session whose process is killed
 *   stale      user pages stamped with a pattern fill the block; a new
 *              session maps its buffer read-only before any DECODE: it
 *              must read zeroes, never the workload's stamp (--size)
 *   unpriv     an unprivileged process cannot open the node; one that got
 *              a descriptor from root may use it, and sees physical
 *              addresses as its opener may (CAP_SYS_ADMIN at open, as
 *              pagemap); root without CAP_SYS_ADMIN opening it sees none
 *   unbind     the device is unbound under an open, mapped session: the
 *              file gets -ENODEV, the mapping SIGBUS, the buffers go back
 *              to the block; after a rebind the decoder works again
 *   mmaplock   while a START claims (seconds, the block full of user
 *              data), the same process maps the decoder (refused at once:
 *              no session yet) and maps, faults and unmaps anonymous
 *              memory without waiting for the claim (mmap_in_claim,
 *              claim_after_mmap_ms and faults_in_claim: they happened
 *              while it still ran)
 *   prepare    with user data in the block: PREPARE returns at once, its
 *              claims end in the background, START then takes them in a
 *              small share of a START without PREPARE; a PREPARE is
 *              cancelled by close and by STOP (nothing stays claimed), one
 *              at a time, START by its file only, a START of other
 *              sizes drops it, and unbinding the decoder cancels it
 *   killwait   a START that waits for another file's claim (seconds, the
 *              block full of user data) dies at once when killed
 * Metrics: see each test; most end with count_after (buffers of the
 * session, through a fresh INFO).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <linux/dmb_vdec.h>

#include "guest.h"

#define MAX_BUFS	16

static char devpath[64];

static int vopen(void)
{
	return open(devpath, O_RDWR | O_CLOEXEC);
}

static int xioctl(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) ? -errno : 0;
}

/* START, or with @cmd DMB_VDEC_PREPARE, @bufs buffers of @size */
static int start_cmd(int fd, unsigned long cmd, int bufs, uint64_t size)
{
	uint64_t sizes[MAX_BUFS];
	struct dmb_vdec_start st = { .count = bufs, .sizes_ptr = (uintptr_t)sizes };
	int i;

	for (i = 0; i < bufs && i < MAX_BUFS; i++)
		sizes[i] = size;
	return xioctl(fd, cmd, &st);
}

static int start(int fd, int bufs, uint64_t size)
{
	return start_cmd(fd, DMB_VDEC_START, bufs, size);
}

static int info(int fd, struct dmb_vdec_info *in)
{
	memset(in, 0, sizeof(*in));
	return xioctl(fd, DMB_VDEC_INFO, in);
}

static int buf(int fd, unsigned int index, struct dmb_vdec_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->index = index;
	return xioctl(fd, DMB_VDEC_BUF, b);
}

/* Map every buffer and check the decoder's pattern; bad words, or -1 */
static long verify(int fd, unsigned int count, uint32_t seed)
{
	struct dmb_vdec_buf bb;
	long bad = 0;
	uint32_t b;

	for (b = 0; b < count; b++) {
		uint32_t *w;
		size_t i, n;

		if (buf(fd, b, &bb))
			return -1;
		w = mmap(NULL, bb.size, PROT_READ, MAP_SHARED, fd, bb.offset);
		if (w == MAP_FAILED)
			return -1;
		n = bb.size / 4;
		for (i = 0; i < n; i += 997)
			bad += w[i] != (seed ^ (b << 24) ^ (uint32_t)i);
		bad += w[n - 1] != (seed ^ (b << 24) ^ (uint32_t)(n - 1));
		munmap(w, bb.size);
	}
	return bad;
}

static void end_metrics(void)
{
	struct dmb_vdec_info in;
	int fd = vopen();

	if (fd >= 0 && !info(fd, &in))
		metric_set("count_after", in.count);
	else
		metric_set("count_after", -1);
	if (fd >= 0)
		close(fd);
}

/* Claim files in dmb_alloc's debugfs: none (they are dmb_test's alone) */
static int debugfs_hooks(void)
{
	static const char *const dirs[] = { "dmb@60000000", "dmb@a0000000" };
	char path[128], b[8];
	unsigned int i;
	int n = 0;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/sys/kernel/debug/dmb_alloc/%s/alloc", dirs[i]);
		n += !access(path, F_OK);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dmb_alloc/%s/free", dirs[i]);
		n += !access(path, F_OK);
		snprintf(path, sizeof(path), "/sys/kernel/debug/dmb_alloc/%s/info", dirs[i]);
		n -= 100 * !!file_read_str(path, b, sizeof(b));
	}
	return n;
}

/*
 * Pages claimed in the main decoder's block, from dmb_alloc's debugfs.  The
 * directory goes when the last handle does, unless pages stay claimed:
 * no directory means nothing claimed.
 */
static long claimed_main(void)
{
	char b[512], *p;
	int ret;

	ret = file_read_str("/sys/kernel/debug/dmb_alloc/dmb@60000000/info", b, sizeof(b));
	if (ret == -ENOENT)
		return 0;
	if (ret)
		return -1;
	p = strstr(b, "claimed: ");
	return p ? strtol(p + 9, NULL, 10) : -1;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * Fill @bytes of anonymous memory with @stamp in a child that waits to be
 * killed; *@pct (if not NULL) is how much of [@base, +@size) it took.
 */
static pid_t filler(int64_t bytes, uint32_t stamp, uint64_t base,
		    uint64_t size, int *pct)
{
	int p[2];
	char c = 0;
	pid_t pid;

	if (pipe(p))
		return -1;
	pid = fork();
	if (!pid) {
		uint32_t *u = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		size_t i;

		if (u == MAP_FAILED)
			_exit(1);
		for (i = 0; i < (size_t)bytes / 4; i++)
			u[i] = stamp;
		if (size) {
			/* pagemap 512 entries a read: a read a page is slow */
			static uint64_t ent[512];
			size_t in = 0, pages = bytes / page_size(), j, n;
			int pm = open("/proc/self/pagemap", O_RDONLY);

			for (i = 0; pm >= 0 && i < pages; i += n) {
				n = pages - i < 512 ? pages - i : 512;
				if (pread(pm, ent, n * 8, ((uintptr_t)u / page_size() + i) * 8) !=
				    (ssize_t)(n * 8))
					break;
				for (j = 0; j < n; j++) {
					uint64_t pa = (ent[j] & ((1ULL << 55) - 1)) * page_size();

					in += (ent[j] >> 63) && pa >= base && pa < base + size;
				}
			}
			if (pm >= 0)
				close(pm);
			c = in * page_size() * 100 / size;
		}
		if (write(p[1], &c, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		pid = -1;
	}
	close(p[0]);
	if (pct)
		*pct = c;
	return pid;
}

/* Fill memory up to 448 MiB from the end, the block first; see filler() */
static pid_t fill_block(uint32_t stamp, const struct dmb_vdec_info *in,
			int *pct)
{
	return filler((meminfo_kb("MemAvailable") << 10) - (448 << 20), stamp,
		      in->dmb_base, in->dmb_size, pct);
}

/* The platform device behind /dev/dmb-vdec-main, for bind and unbind */
static const char *main_device(void)
{
	static char link[256];
	ssize_t n = readlink("/sys/class/misc/dmb-vdec-main/device", link,
			     sizeof(link) - 1);

	if (n <= 0)
		t_bail("no device behind /dev/dmb-vdec-main");
	link[n] = '\0';
	return strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
}

static void unfill(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/* ---- mmaplock: page faults while another thread claims ---------------- */

static volatile int claiming, mmap_in_claim = -1;
static volatile double fault_gap, mmap_ms = -1, faults_in_claim;
static volatile double mmap_done, claim_done;

static void *claimer(void *arg)
{
	int fd = *(int *)arg;

	claiming = 1;
	*(int *)arg = start(fd, 1, 256 << 20);
	claim_done = now_ms();
	claiming = 0;
	return NULL;
}

static void *mapper(void *arg)
{
	int fd = *(int *)arg;
	double t0;
	void *m;

	while (!claiming)
		;
	usleep(100000);		/* well inside the claim */
	t0 = now_ms();
	/* no session yet: refused at once, never waiting for the claim */
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	mmap_done = now_ms();
	mmap_ms = mmap_done - t0;
	mmap_in_claim = claiming;	/* returned while START still claimed */
	if (m != MAP_FAILED)
		munmap(m, 4096);
	return NULL;
}

/* Map, fault and unmap anonymous pages: each takes the mmap_lock */
static void *faulter(void *arg)
{
	double last, t;
	char *m;

	(void)arg;
	while (!claiming)
		;
	last = now_ms();
	while (claiming) {
		m = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m != MAP_FAILED) {
			m[0] = 1;
			munmap(m, 4096);
			faults_in_claim += claiming;
		}
		t = now_ms();
		if (t - last > fault_gap)
			fault_gap = t - last;
		last = t;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *test = opt_get(argc, argv, "test");
	const char *dev = opt_get(argc, argv, "dev");
	const char *o_bufs = opt_get(argc, argv, "bufs");
	const char *o_size = opt_get(argc, argv, "size");
	int bufs = o_bufs ? atoi(o_bufs) : 4;
	int64_t size = o_size ? parse_size(o_size) : 32 << 20;
	struct dmb_vdec_decode d = { .seed = 0x5eed1234 };
	struct dmb_vdec_info in;
	struct dmb_vdec_buf bb;
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
		uint64_t inside = 0, first_size = 0, first_phys = 0;

		metric_set("start", start(fd, bufs, size));
		metric_set("info", info(fd, &in));
		metric_set("count", in.count);
		metric_set("controller", in.controller);
		metric_set("owner", !!(in.flags & DMB_VDEC_INFO_OWNER));
		metric_set("max_bufs", in.max_bufs);
		for (b = 0; b < in.count; b++) {
			if (buf(fd, b, &bb))
				continue;
			if (!b) {
				first_size = bb.size;
				first_phys = bb.phys;
			}
			inside += (bb.flags & DMB_VDEC_BUF_PHYS) &&
				  bb.phys >= in.dmb_base &&
				  bb.phys + bb.size <= in.dmb_base + in.dmb_size;
		}
		metric_set("inside", inside);
		metric_set("buf_past_count", buf(fd, in.count, &bb));
		t_report("%s: %u buffers of %llu MiB claimed in %.1f ms on %s, first at 0x%llx, block [0x%llx, +%llu MiB)",
			 devpath, in.count, (unsigned long long)first_size >> 20,
			 in.claim_ns / 1e6, in.controller_label,
			 (unsigned long long)first_phys,
			 (unsigned long long)in.dmb_base,
			 (unsigned long long)(in.dmb_size >> 20));
		metric_set("claim_ms", in.claim_ns / 1e6);
		metric_set("decode", xioctl(fd, DMB_VDEC_DECODE, &d));
		metric_set("checked", d.checked);
		metric_set("verify_bad", verify(fd, in.count, d.seed));
		metric_set("debugfs_hooks", debugfs_hooks());
		metric_set("stop", xioctl(fd, DMB_VDEC_STOP, NULL));
	} else if (!strcmp(test, "malformed")) {
		uint64_t sizes[MAX_BUFS + 1] = { 0 };
		struct dmb_vdec_start st = { .sizes_ptr = (uintptr_t)sizes };
		/* a newer userspace's START: one more field, zero or not */
		struct { struct dmb_vdec_start st; uint64_t more; } big = { 0 };
		void *m;

		metric_set("unknown_cmd", xioctl(fd, _IO(DMB_VDEC_IOC_MAGIC, 99), NULL));
		metric_set("old_magic", xioctl(fd, _IO('D', 2), NULL));
		metric_set("wrong_dir", xioctl(fd, _IOW(DMB_VDEC_IOC_MAGIC, 0, struct dmb_vdec_info), &in));
		metric_set("short_size", xioctl(fd, _IOR(DMB_VDEC_IOC_MAGIC, 0, uint32_t), &in));
		metric_set("stop_without_start", xioctl(fd, DMB_VDEC_STOP, NULL));
		metric_set("decode_without_start", xioctl(fd, DMB_VDEC_DECODE, &d));
		metric_set("buf_without_start", buf(fd, 0, &bb));
		metric_set("count0", xioctl(fd, DMB_VDEC_START, &st));
		info(fd, &in);
		st.count = in.max_bufs + 1;
		metric_set("too_many", xioctl(fd, DMB_VDEC_START, &st));
		st.count = 1;
		metric_set("size0", xioctl(fd, DMB_VDEC_START, &st));
		sizes[0] = 1ULL << 40;
		metric_set("too_big", xioctl(fd, DMB_VDEC_START, &st));
		sizes[0] = 4096;
		st.sizes_ptr = 16;
		metric_set("bad_pointer", xioctl(fd, DMB_VDEC_START, &st));
		st.sizes_ptr = (uintptr_t)sizes;
		st.flags = 1;
		metric_set("flags", xioctl(fd, DMB_VDEC_START, &st));
		st.flags = 0;
		st.reserved = 1;
		metric_set("reserved", xioctl(fd, DMB_VDEC_START, &st));
		st.reserved = 0;
		big.st = st;
		big.more = 1;
		metric_set("trailing_nonzero",
			   xioctl(fd, _IOW(DMB_VDEC_IOC_MAGIC, 1, big), &big));
		big.more = 0;
		metric_set("trailing_zero",
			   xioctl(fd, _IOW(DMB_VDEC_IOC_MAGIC, 1, big), &big));
		metric_set("stop_after_trailing", xioctl(fd, DMB_VDEC_STOP, NULL));
		d.flags = 1;
		metric_set("decode_flags", xioctl(fd, DMB_VDEC_DECODE, &d));
		d.flags = 0;
		metric_set("start", start(fd, 2, 4 << 20));
		metric_set("second_start", start(fd, 1, 4 << 20));
		fd2 = vopen();
		metric_set("other_file_start", start(fd2, 1, 4 << 20));
		metric_set("other_file_stop", xioctl(fd2, DMB_VDEC_STOP, NULL));
		metric_set("other_file_buf", buf(fd2, 0, &bb));
		info(fd2, &in);
		metric_set("other_file_session", !!(in.flags & DMB_VDEC_INFO_SESSION));
		metric_set("other_file_owner", !!(in.flags & DMB_VDEC_INFO_OWNER));
		m = mmap(NULL, 4 << 20, PROT_READ, MAP_SHARED, fd2, 0);
		metric_set("other_file_mmap", m == MAP_FAILED ? -errno : 0);
		close(fd2);
		m = mmap(NULL, 8 << 20, PROT_READ, MAP_SHARED, fd, 0);
		metric_set("mmap_two_bufs", m == MAP_FAILED ? -errno : 0);
		m = mmap(NULL, 4 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
		metric_set("mmap_private", m == MAP_FAILED ? -errno : 0);
		m = mmap(NULL, 4 << 20, PROT_READ, MAP_SHARED, fd, 4 << 20);
		metric_set("mmap_ok", m == MAP_FAILED ? -errno : 0);
		metric_set("stop_while_mapped", xioctl(fd, DMB_VDEC_STOP, NULL));
		if (m != MAP_FAILED)
			munmap(m, 4 << 20);
		info(fd, &in);
		metric_set("count_before_stop", in.count);
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
			if (!info(fd, &in) && in.count)
				break;
			usleep(50000);
		}
		metric_set("child_claimed", in.count);
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		metric_set("killed", WIFSIGNALED(status));
	} else if (!strcmp(test, "stale")) {
		/* another process's data, stamped, fills most of memory */
		const uint32_t stamp = 0x5354414d;	/* "STAM" */
		int64_t want = (meminfo_kb("MemAvailable") << 10) - (448 << 20);
		size_t i, stamped = 0, nonzero = 0, n = 0;
		uint32_t *w;
		int pct = 0;
		pid_t pid;

		info(fd, &in);
		pid = want > (64 << 20) ?
		      filler(want, stamp, in.dmb_base, in.dmb_size, &pct) : -1;
		if (pid < 0)
			t_bail("cannot stamp %lld bytes", (long long)want);
		metric_set("stamp_in_block_pct", pct);
		metric_set("start", start(fd, 1, size));
		info(fd, &in);
		metric_set("count", in.count);
		metric_set("buf", buf(fd, 0, &bb));
		/* map before any DECODE, read-only, as a curious user would */
		w = mmap(NULL, bb.size, PROT_READ, MAP_SHARED, fd, bb.offset);
		metric_set("mmap", w == MAP_FAILED ? -errno : 0);
		if (w != MAP_FAILED) {
			n = bb.size / 4;
			for (i = 0; i < n; i++) {
				stamped += w[i] == stamp;
				nonzero += w[i] != 0;
			}
			munmap(w, bb.size);
		}
		t_report("%zu of %zu words of a fresh buffer held another process's stamp, %zu were not zero",
			 stamped, n, nonzero);
		metric_set("stamped_words", stamped);
		metric_set("nonzero_words", nonzero);
		metric_set("stop", xioctl(fd, DMB_VDEC_STOP, NULL));
		unfill(pid);
	} else if (!strcmp(test, "unpriv")) {
		int p[2], status = 0;
		double r[8] = { 0 };
		pid_t pid;

		info(fd, &in);
		metric_set("root_info_base", !!(in.flags & DMB_VDEC_INFO_BASE) && in.dmb_base);
		if (pipe(p))
			t_bail("pipe");
		pid = fork();
		if (!pid) {
			struct __user_cap_header_struct hdr = {
				.version = _LINUX_CAPABILITY_VERSION_3,
			};
			struct __user_cap_data_struct cap[2];
			int nf;

			/*
			 * Root without CAP_SYS_ADMIN opens the device itself:
			 * the opener's capabilities count, as for pagemap.
			 */
			if (syscall(SYS_capget, &hdr, cap))
				_exit(1);
			cap[CAP_SYS_ADMIN / 32].effective &= ~(1u << (CAP_SYS_ADMIN % 32));
			cap[CAP_SYS_ADMIN / 32].permitted &= ~(1u << (CAP_SYS_ADMIN % 32));
			if (syscall(SYS_capset, &hdr, cap))
				_exit(1);
			nf = vopen();
			r[6] = nf < 0 ? -errno : 0;
			memset(&in, 0, sizeof(in));
			if (nf >= 0)
				info(nf, &in);
			r[7] = !!(in.flags & DMB_VDEC_INFO_BASE) || in.dmb_base;
			if (nf >= 0)
				close(nf);
			/* keeps fd, as if root had passed it on */
			if (setgid(65534) || setuid(65534) || !getuid())
				_exit(1);
			r[0] = vopen() < 0 ? -errno : 0;
			r[1] = info(fd, &in);
			r[2] = !!(in.flags & DMB_VDEC_INFO_BASE) || in.dmb_base;
			r[3] = start(fd, 1, 4 << 20);
			r[4] = buf(fd, 0, &bb);
			r[5] = !!(bb.flags & DMB_VDEC_BUF_PHYS) || bb.phys;
			xioctl(fd, DMB_VDEC_STOP, NULL);
			if (write(p[1], r, sizeof(r)) != sizeof(r))
				_exit(1);
			_exit(0);
		}
		close(p[1]);
		if (read(p[0], r, sizeof(r)) != sizeof(r))
			t_bail("the unprivileged child failed");
		waitpid(pid, &status, 0);
		metric_set("unpriv_open", r[0]);
		metric_set("passed_fd_info", r[1]);
		metric_set("passed_fd_base_shown", r[2]);
		metric_set("passed_fd_start", r[3]);
		metric_set("passed_fd_buf", r[4]);
		metric_set("passed_fd_phys_shown", r[5]);
		metric_set("nocap_open", r[6]);
		metric_set("nocap_base_shown", r[7]);
	} else if (!strcmp(test, "unbind")) {
		const char *drv = "/sys/bus/platform/drivers/dmb-vdec";
		const char *name = main_device();
		char path[300];
		int status = 0;
		uint32_t *w;
		pid_t pid;

		metric_set("start", start(fd, 2, 8 << 20));
		metric_set("decode", xioctl(fd, DMB_VDEC_DECODE, &d));
		buf(fd, 1, &bb);
		w = mmap(NULL, bb.size, PROT_READ, MAP_SHARED, fd, bb.offset);
		if (w == MAP_FAILED)
			t_bail("cannot map a buffer");
		metric_set("claimed_before", claimed_main());
		snprintf(path, sizeof(path), "%s/unbind", drv);
		metric_set("unbind", file_write(path, name));
		metric_set("claimed_after_unbind", claimed_main());
		metric_set("old_fd_info", info(fd, &in));
		metric_set("old_fd_start", start(fd, 1, 4 << 20));
		metric_set("old_fd_decode", xioctl(fd, DMB_VDEC_DECODE, &d));
		metric_set("old_fd_stop", xioctl(fd, DMB_VDEC_STOP, NULL));
		metric_set("old_fd_mmap", mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0) ==
			   MAP_FAILED ? -errno : 0);
		/* the revoked mapping: a read is SIGBUS, never freed memory */
		pid = fork();
		if (!pid)
			_exit(w[0] == (d.seed ^ (1 << 24)) ? 2 : 3);
		waitpid(pid, &status, 0);
		metric_set("old_map_sigbus", WIFSIGNALED(status) && WTERMSIG(status) == SIGBUS);
		munmap(w, bb.size);
		snprintf(path, sizeof(path), "%s/bind", drv);
		metric_set("bind", file_write(path, name));
		fd2 = vopen();
		metric_set("new_open", fd2 < 0 ? -errno : 0);
		metric_set("new_start", start(fd2, 1, 256 << 20));
		metric_set("new_decode", xioctl(fd2, DMB_VDEC_DECODE, &d));
		metric_set("new_stop", xioctl(fd2, DMB_VDEC_STOP, NULL));
		close(fd2);
		metric_set("old_fd_after_rebind", start(fd, 1, 4 << 20));
	} else if (!strcmp(test, "mmaplock")) {
		pthread_t t1, t2, t3;
		pid_t pid = filler((meminfo_kb("MemAvailable") << 10) - (448 << 20),
				   0x12345678, 0, 0, NULL);
		int arg = fd;
		double t0 = now_ms();

		if (pid < 0)
			t_bail("cannot fill memory");
		pthread_create(&t2, NULL, mapper, &arg);
		pthread_create(&t3, NULL, faulter, NULL);
		pthread_create(&t1, NULL, claimer, &arg);
		pthread_join(t1, NULL);
		metric_set("claim_ms", now_ms() - t0);
		pthread_join(t2, NULL);
		pthread_join(t3, NULL);
		metric_set("start", arg);
		metric_set("mmap_ms", mmap_ms);
		metric_set("mmap_in_claim", mmap_in_claim);
		/* how long the claim went on after mmap() had returned */
		metric_set("claim_after_mmap_ms", claim_done - mmap_done);
		metric_set("faults_in_claim", faults_in_claim);
		metric_set("max_fault_gap_ms", fault_gap);
		t_report("while a START claimed for %.0f ms, mmap() returned in %.1f ms and the longest page fault gap was %.1f ms",
			 now_ms() - t0, mmap_ms, fault_gap);
		metric_set("stop", xioctl(fd, DMB_VDEC_STOP, NULL));
		unfill(pid);
	} else if (!strcmp(test, "prepare")) {
		long want = (long)bufs * (size / page_size());
		double t0, prepared_ms = -1, prep_ms, start_ms, sync_ms;
		pid_t pid;
		int pct = 0, i;

		/* user data in the block, so that claims have work */
		info(fd, &in);
		pid = fill_block(0x51ed0001, &in, &pct);
		if (pid < 0)
			t_bail("cannot fill memory");
		metric_set("fill_in_block_pct", pct);
		t0 = now_ms();
		metric_set("prepare", start_cmd(fd, DMB_VDEC_PREPARE, bufs, size));
		metric_set("prepare_ms", now_ms() - t0);
		prep_ms = now_ms() - t0;
		/* the claims run in the background: wait until all are taken */
		for (i = 0; i < 6000 && claimed_main() != want; i++)
			usleep(10000);
		if (claimed_main() == want)
			prepared_ms = now_ms() - t0;
		metric_set("prepared", claimed_main() == want);
		t0 = now_ms();
		metric_set("start", start(fd, bufs, size));
		start_ms = now_ms() - t0;
		metric_set("decode", xioctl(fd, DMB_VDEC_DECODE, &d));
		metric_set("checked", d.checked);
		metric_set("verify_bad", verify(fd, bufs, d.seed));
		metric_set("stop", xioctl(fd, DMB_VDEC_STOP, NULL));
		unfill(pid);

		/* the same START without PREPARE, the block as full again */
		pid = fill_block(0x51ed0002, &in, &pct);
		metric_set("refill_in_block_pct", pid < 0 ? -1 : pct);
		t0 = now_ms();
		metric_set("sync_start", start(fd, bufs, size));
		sync_ms = now_ms() - t0;
		xioctl(fd, DMB_VDEC_STOP, NULL);
		metric_set("start_vs_sync_pct", sync_ms > 0 ? 100 * start_ms / sync_ms : -1);
		metric_set("prepare_vs_sync_pct", sync_ms > 0 ? 100 * prep_ms / sync_ms : -1);
		t_report("%d x %lld MiB, %d%% of the block full: PREPARE returned in %.1f ms, claims done after %.0f ms; START then took %.2f ms, against %.0f ms without PREPARE (%.2f%%)",
			 bufs, (long long)size >> 20, pct,
			 prep_ms, prepared_ms,
			 start_ms, sync_ms, sync_ms > 0 ? 100 * start_ms / sync_ms : -1);

		/* cancelled while it migrates: by close, by STOP */
		unfill(pid);
		pid = fill_block(0x51ed0003, &in, NULL);
		fd2 = vopen();
		metric_set("prepare_close", start_cmd(fd2, DMB_VDEC_PREPARE, bufs, size));
		usleep(20000);
		t0 = now_ms();
		close(fd2);
		metric_set("cancel_close_ms", now_ms() - t0);
		metric_set("claimed_after_close", claimed_main());
		metric_set("prepare_stop", start_cmd(fd, DMB_VDEC_PREPARE, bufs, size));
		usleep(20000);
		metric_set("stop_cancels", xioctl(fd, DMB_VDEC_STOP, NULL));
		metric_set("claimed_after_stop", claimed_main());
		unfill(pid);

		/* one preparation at a time, START by its owner only */
		metric_set("prepare_again", start_cmd(fd, DMB_VDEC_PREPARE, 1, 4 << 20));
		metric_set("second_prepare", start_cmd(fd, DMB_VDEC_PREPARE, 1, 4 << 20));
		fd2 = vopen();
		metric_set("other_file_prepare", start_cmd(fd2, DMB_VDEC_PREPARE, 1, 4 << 20));
		metric_set("other_file_start", start(fd2, 1, 4 << 20));
		close(fd2);
		/* other sizes than prepared: claimed now, the preparation dropped */
		metric_set("start_other_sizes", start(fd, 2, 8 << 20));
		if (!info(fd, &in))
			metric_set("count_other_sizes", in.count);
		metric_set("claimed_other_sizes", claimed_main());
		metric_set("prepare_in_session", start_cmd(fd, DMB_VDEC_PREPARE, 1, 4 << 20));
		metric_set("stop_other_sizes", xioctl(fd, DMB_VDEC_STOP, NULL));
		metric_set("claimed_end", claimed_main());
		/* unbound while another file prepares: cancelled, all returned */
		{
			const char *drv = "/sys/bus/platform/drivers/dmb-vdec";
			const char *name = main_device();
			char path[300];

			fd2 = vopen();
			metric_set("prepare_unbind", start_cmd(fd2, DMB_VDEC_PREPARE, 1, 128 << 20));
			snprintf(path, sizeof(path), "%s/unbind", drv);
			metric_set("unbind_preparing", file_write(path, name));
			metric_set("claimed_after_unbind", claimed_main());
			metric_set("old_fd_start", start(fd2, 1, 128 << 20));
			close(fd2);
			snprintf(path, sizeof(path), "%s/bind", drv);
			metric_set("bind", file_write(path, name));
		}
		close(fd);
		fd = vopen();
	} else if (!strcmp(test, "killwait")) {
		pid_t pid, claimer_pid, waiter;
		int status = 0, pct = 0;
		double t0, t1;

		/* user data in the block makes the claim take a while */
		info(fd, &in);
		pid = fill_block(0x9abcdef0, &in, &pct);
		if (pid < 0)
			t_bail("cannot fill memory");
		metric_set("fill_in_block_pct", pct);
		claimer_pid = fork();
		if (!claimer_pid) {
			/* the whole block: migrates everything the filler put there */
			ret = start(fd, 1, 256 << 20);
			_exit(ret ? 1 : 0);
		}
		usleep(30000);
		waiter = fork();
		if (!waiter) {
			int wfd = vopen();

			/* waits for the claimer's START, then finds a session */
			_exit(wfd < 0 || start(wfd, 1, 4 << 20) != -EBUSY ? 1 : 0);
		}
		usleep(30000);
		t0 = now_ms();
		kill(waiter, SIGKILL);
		waitpid(waiter, &status, 0);
		t1 = now_ms();
		metric_set("waiter_killed", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		metric_set("kill_to_death_ms", t1 - t0);
		waitpid(claimer_pid, &status, 0);
		metric_set("claim_ms_after_kill", now_ms() - t1);
		/*
		 * The waiter was dead before the claim it waited for ended:
		 * the claim went on for longer after its death than dying
		 * took.  (Dying takes a scheduler tick or more while the claim
		 * keeps every CPU migrating, more on a busy host: no fixed
		 * ratio.)
		 */
		metric_set("died_before_claim_end", now_ms() - t1 > t1 - t0);
		metric_set("claimer_ok", WIFEXITED(status) && !WEXITSTATUS(status));
		t_report("a START waiting behind a claim died %.1f ms after SIGKILL; the claim went on for %.0f ms",
			 t1 - t0, now_ms() - t1);
		unfill(pid);
	} else {
		t_bail("unknown --test=%s", test);
	}
	if (fd >= 0)
		close(fd);
	end_metrics();
	check_expectations(argc, argv);
	return t_finish();
}
