// SPDX-License-Identifier: GPL-2.0
/*
 * v4l2: the sample V4L2 decoder (drivers/v4l2dec) under real clients,
 * Debian's v4l2-compliance and v4l2-ctl (scripts/v4l-utils.sh packs them).
 * The decoder is found by its card name, "dmb_v4l2dec <label>", in
 * /sys/class/video4linux/video<N>/name.
 *
 * usage: v4l2 --test=compliance --label=<label> [--args="-s"] [expectations]
 *   runs v4l2-compliance -d /dev/videoN <args>; its output is kept as
 *   diagnostics.  Metrics: tests, succeeded, failed, warnings (its
 *   "Total for ..." line), totals (1 if seen), exit.
 *
 * usage: v4l2 --test=stream --label=<label> --block=<dmb node name>
 *             [--frames=60] [--width=640] [--height=480] [--anon=256M]
 *             [--mlock=32M] [--tmpfs=64M] [expectations]
 *   fills memory with checksummed user data (anonymous, mlocked, tmpfs),
 *   writes an FWHT stream of --frames frames to tmpfs and decodes it with
 *   v4l2-ctl --stream-out-mmap --stream-mmap, watching where the decoder's
 *   buffers are (/sys/kernel/debug/dmb_v4l2dec/<dev>/buffers) while it
 *   streams.  Metrics: user_before (user pages in the block), exit,
 *   frames (decoded frames written by v4l2-ctl), bad_frames (frames whose
 *   pattern, sequence or checksum of the FWHT payload is wrong), bufs_out,
 *   bufs_cap (buffers seen), outside (buffers not inside the block),
 *   ctrl_ok (1: all on the block's controller), user_in_buffer (user
 *   pages where buffers were, while streaming), corrupt (user pages
 *   damaged), left (buffers still listed after v4l2-ctl exits), reuse
 *   (user pages where the buffers were, in new user data written 64 MiB
 *   at a time in base pages from each CPU in turn, until half the
 *   buffers' pages are reused or 768 MiB are written), reuse_block
 *   (pages of the last 64 MiB in the block).
 *
 * usage: v4l2 --test=unbind --label=<label> [expectations]
 *   a second opener, bad ioctls, and unbinding the driver under a file
 *   that streams: Metrics: second_open (0 or -errno), bad_type,
 *   bad_index, bad_memory (VIDIOC_REQBUFS/QUERYBUF errors, -errno),
 *   bad_size (S_FMT of a huge size: 0 when clamped, 1 when not),
 *   streaming (1: both queues on), second_streaming (1: the second
 *   file streams too), bufs (buffers the
 *   report listed), after_unbind (QUERYCAP on the open file, -errno),
 *   dqbuf_after (-errno), bind_while_open (-errno of binding the
 *   device again before its files are closed), closed (0: close() worked), left (buffers
 *   listed after the close; the report is gone: -ENOENT), rebound (1: the
 *   node is back after bind), reopen (0 or -errno of a REQBUFS there).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/videodev2.h>

#include "guest.h"

#define MAX_BUFS	128
#define FRAME_MAGIC	0x44424d44	/* "DMBD", drivers/v4l2dec */

/* ---- the decoder --------------------------------------------------------- */

/* ---- compliance ---------------------------------------------------------- */

static int c_tests, c_ok, c_failed, c_warn, c_totals;

static void compliance_line(const char *line)
{
	const char *t = strstr(line, "Total for ");

	if (t && (t = strchr(t, ':')) &&
	    sscanf(t, ": %d, Succeeded: %d, Failed: %d, Warnings: %d",
		   &c_tests, &c_ok, &c_failed, &c_warn) == 4) {
		c_totals = 1;
		t_report("%s", line);
	}
}

static int compliance(const char *node, const char *args)
{
	char buf[256], *av[32], *a, *save;
	int ac = 0, ret;

	av[ac++] = "/bin/v4l2-compliance";
	av[ac++] = "-d";
	av[ac++] = (char *)node;
	snprintf(buf, sizeof(buf), "%s", args ? args : "");
	for (a = strtok_r(buf, " ", &save); a && ac < 31; a = strtok_r(NULL, " ", &save))
		av[ac++] = a;
	av[ac] = NULL;
	ret = run_program(av, compliance_line, NULL);
	metric_set("tests", c_tests);
	metric_set("succeeded", c_ok);
	metric_set("failed", c_failed);
	metric_set("warnings", c_warn);
	metric_set("totals", c_totals);
	return ret;
}

/* ---- user data ----------------------------------------------------------- */

/* ---- buffers seen in the decoder's report -------------------------------- */

struct dbuf {
	char q[4];
	uint64_t dma, len;
};

static struct dbuf bufs[MAX_BUFS];
static int n_bufs;
static char report[256];
static struct user_region regions[4];
static size_t user_in_buffer;

static int read_report_at(const char *path, struct dbuf *b, int max)
{
	char line[256];
	int n = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f) && n < max) {
		unsigned long long dma, len;
		unsigned int ctx, idx;
		char q[8];

		if (sscanf(line, "%u %7s %u %llx %llu", &ctx, q, &idx, &dma, &len) != 5)
			continue;
		snprintf(b[n].q, sizeof(b[n].q), "%s", q);
		b[n].dma = dma;
		b[n].len = len;
		n++;
	}
	fclose(f);
	return n;
}

static int read_report(struct dbuf *b, int max)
{
	return read_report_at(report, b, max);
}

static size_t pages_in_bufs(const struct user_region *r)
{
	size_t i, n = 0;
	long ps = page_size();
	int j;

	for (i = 0; i < r->len; i += ps) {
		uint64_t pa = virt_to_pfn(r->p + i) * ps;

		for (j = 0; j < n_bufs; j++)
			if (pa >= bufs[j].dma && pa < bufs[j].dma + bufs[j].len) {
				n++;
				break;
			}
	}
	return n;
}

/* While v4l2-ctl streams: remember every buffer, once look for user pages */
static void watch(void)
{
	struct dbuf now[MAX_BUFS];
	int n = read_report(now, MAX_BUFS), i, j, have_cap = 0, have_out = 0;
	static int looked;

	for (i = 0; i < n; i++) {
		for (j = 0; j < n_bufs; j++)
			if (bufs[j].dma == now[i].dma && !strcmp(bufs[j].q, now[i].q))
				break;
		if (j == n_bufs && n_bufs < MAX_BUFS)
			bufs[n_bufs++] = now[i];
		have_cap |= !strcmp(now[i].q, "cap");
		have_out |= !strcmp(now[i].q, "out");
	}
	if (have_cap && have_out && !looked) {
		looked = 1;
		for (i = 0; i < 3; i++)
			user_in_buffer += pages_in_bufs(&regions[i]);
	}
}

/* ---- the FWHT stream and the decoded frames ------------------------------ */

struct fwht_hdr {
	uint32_t magic1, magic2, version, width, height, flags, colorspace,
		 xfer_func, ycbcr_enc, quantization, size;
};

static uint32_t fnv(const uint8_t *p, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

#define MAX_FRAMES	1024
static uint32_t sums[MAX_FRAMES], lens[MAX_FRAMES];

/*
 * One FWHT frame per chunk of chunk bytes (the OUTPUT buffer size):
 * v4l2-ctl --stream-from fills each OUTPUT buffer with one chunk.  The
 * headers say w x h, and w2 x h2 from frame @at on (a size change).
 */
static int write_stream_sizes(const char *path, int frames, int w, int h,
			      int w2, int h2, int at, size_t chunk)
{
	struct fwht_hdr hdr = {
		.magic1 = 0x4f4f4f4f, .magic2 = 0xffffffff,
		.version = htonl(3), .width = htonl(w), .height = htonl(h),
		.colorspace = htonl(3),	/* REC709 */
	};
	uint8_t *payload;
	FILE *f;
	int k, ret = 0;
	size_t i;

	if (chunk < sizeof(hdr) + 65536)
		return -EINVAL;
	payload = calloc(1, chunk);
	f = fopen(path, "w");
	if (!f || !payload) {
		if (f)
			fclose(f);
		free(payload);
		return -ENOMEM;
	}
	for (k = 0; k < frames && !ret; k++) {
		size_t len = 4096 + (k * 7919) % 60000;

		if (k == at) {
			hdr.width = htonl(w2);
			hdr.height = htonl(h2);
		}
		for (i = 0; i < chunk - sizeof(hdr); i++)
			payload[i] = i < len ? (uint8_t)(i * 31 + k * 17 + (i >> 8)) : 0;
		hdr.size = htonl(len);
		sums[k] = fnv(payload, len);
		lens[k] = len;
		if (fwrite(&hdr, sizeof(hdr), 1, f) != 1 ||
		    fwrite(payload, chunk - sizeof(hdr), 1, f) != 1)
			ret = -EIO;
	}
	free(payload);
	if (fclose(f) && !ret)
		ret = -errno;
	return ret;
}

static int write_stream(const char *path, int frames, int w, int h, size_t chunk)
{
	return write_stream_sizes(path, frames, w, h, w, h, frames, chunk);
}

/*
 * Check every decoded frame: @fsize bytes each, @fsize2 from frame @at
 * on, where the CAPTURE queue restarted and with it the sequence numbers;
 * the number of bad ones
 */
static int check_frames_sizes(const char *path, size_t fsize, size_t fsize2,
			      int at, int *frames)
{
	uint32_t *fr = malloc(fsize > fsize2 ? fsize : fsize2);
	int bad = 0, k = 0;
	size_t i, sz;
	FILE *f;

	*frames = 0;
	if (!fr)
		return -1;
	f = fopen(path, "r");
	if (!f) {
		free(fr);
		return -1;
	}
	for (;;) {
		uint32_t want = k < at ? k : k - at, seq, sum, mix;
		int ok;

		sz = k < at ? fsize : fsize2;
		if (fread(fr, sz, 1, f) != 1)
			break;
		seq = fr[1];
		sum = fr[2];
		mix = seq * 0x9e3779b9u ^ sum;
		ok = fr[0] == FRAME_MAGIC && seq == want &&
		     k < MAX_FRAMES && sum == sums[k] && fr[3] == lens[k];
		for (i = 4; ok && i < sz / 4; i++)
			ok = fr[i] == ((uint32_t)(i * 2654435761u) ^ mix);
		if (!ok) {
			if (bad < 5)
				t_diag("frame %d: magic %#x sequence %u (want %u) sum %#x (want %#x) bytes %u",
				       k, fr[0], seq, want, sum, k < MAX_FRAMES ? sums[k] : 0, fr[3]);
			bad++;
		}
		k++;
	}
	*frames = k;
	fclose(f);
	free(fr);
	return bad;
}

static int check_frames(const char *path, size_t fsize, int *frames)
{
	return check_frames_sizes(path, fsize, fsize, MAX_FRAMES, frames);
}

static int stream(int argc, char **argv, const char *node)
{
	const char *block = opt_get(argc, argv, "block"), *o;
	int frames = (o = opt_get(argc, argv, "frames")) ? atoi(o) : 60;
	int w = (o = opt_get(argc, argv, "width")) ? atoi(o) : 640;
	int h = (o = opt_get(argc, argv, "height")) ? atoi(o) : 480;
	int64_t anon = (o = opt_get(argc, argv, "anon")) ? parse_size(o) : 256 << 20;
	int64_t mlk = (o = opt_get(argc, argv, "mlock")) ? parse_size(o) : 32 << 20;
	int64_t tmpfs = (o = opt_get(argc, argv, "tmpfs")) ? parse_size(o) : 64 << 20;
	char fmt[128], count[32], *av[16];
	struct dmb_range d[MAX_DMBS];
	struct ctrl c[MAX_CTRL];
	uint64_t base = 0, bsize = 0;
	int n, i, nc, ret, fd, outside = 0, ctrl_ok = 1, nout = 0, ncap = 0;
	int decoded, bad;
	long ncpus;
	size_t user, buf_pages;

	if (!block)
		t_bail("--test=stream needs --block=<dmb node name>");
	if (frames > MAX_FRAMES)
		t_bail("at most %d frames", MAX_FRAMES);
	n = read_dmbs(d, MAX_DMBS);
	for (i = 0; i < n; i++) {
		const char *s = strrchr(d[i].name, '/');

		if (!strcmp(s ? s + 1 : d[i].name, block)) {
			base = d[i].base;
			bsize = d[i].size;
		}
	}
	if (!bsize)
		t_bail("no block %s", block);
	nc = read_controllers(c, MAX_CTRL);
	t_diag("block %s: %#llx + %#llx", block, (unsigned long long)base,
	       (unsigned long long)bsize);

	/* a busy system: user data of several kinds, checksummed */
	if (region_fill(&regions[0], anon, 0x11111111, -1) ||
	    region_fill(&regions[1], mlk, 0x22222222, -1) ||
	    mlock(regions[1].p, regions[1].len))
		t_bail("cannot fill anonymous memory");
	fd = open("/tmp/v4l2.tmpfs", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || region_fill(&regions[2], tmpfs, 0x33333333, fd))
		t_bail("cannot fill tmpfs");
	close(fd);
	n_bufs = 1;
	bufs[0].dma = base;
	bufs[0].len = bsize;
	for (user = 0, i = 0; i < 3; i++)
		user += pages_in_bufs(&regions[i]);
	n_bufs = 0;
	metric_set("user_before", user);

	/* the driver's OUTPUT sizeimage: an FWHT header and a raw picture */
	if (write_stream("/tmp/v4l2-in.fwht", frames, w, h, 44 + (size_t)w * h * 3 / 2))
		t_bail("cannot write the FWHT stream");
	snprintf(fmt, sizeof(fmt), "width=%d,height=%d,pixelformat=FWHT", w, h);
	snprintf(count, sizeof(count), "--stream-count=%d", frames);
	i = 0;
	av[i++] = "/bin/v4l2-ctl";
	av[i++] = "-d";
	av[i++] = (char *)node;
	av[i++] = "--set-fmt-video-out";
	av[i++] = fmt;
	av[i++] = "--stream-out-mmap=4";
	av[i++] = "--stream-mmap=4";
	av[i++] = "--stream-from=/tmp/v4l2-in.fwht";
	av[i++] = "--stream-to=/tmp/v4l2-out.nv12";
	av[i++] = count;
	av[i] = NULL;
	ret = run_program(av, NULL, watch);
	metric_set("exit", ret);

	bad = check_frames("/tmp/v4l2-out.nv12", (size_t)w * h * 3 / 2, &decoded);
	metric_set("frames", decoded);
	metric_set("bad_frames", bad);
	for (i = 0; i < n_bufs; i++) {
		int in = bufs[i].dma >= base && bufs[i].dma + bufs[i].len <= base + bsize;

		nout += !strcmp(bufs[i].q, "out");
		ncap += !strcmp(bufs[i].q, "cap");
		outside += !in;
		if (nc <= 0 || ctrl_of(c, nc, bufs[i].dma) != ctrl_of(c, nc, base) ||
		    ctrl_of(c, nc, bufs[i].dma + bufs[i].len - 1) != ctrl_of(c, nc, base))
			ctrl_ok = 0;
		if (i < 16)
			t_diag("%s buffer at %#llx + %#llx%s", bufs[i].q,
			       (unsigned long long)bufs[i].dma,
			       (unsigned long long)bufs[i].len, in ? "" : " OUTSIDE");
	}
	metric_set("bufs_out", nout);
	metric_set("bufs_cap", ncap);
	metric_set("outside", outside);
	metric_set("ctrl_ok", n_bufs && ctrl_ok);
	metric_set("user_in_buffer", user_in_buffer);
	if (n_bufs)
		t_report("%s: %d frames decoded, %d bad; %d OUTPUT and %d CAPTURE buffers, %d outside %s",
			 node, decoded, bad, nout, ncap, outside, block);
	for (user = 0, i = 0; i < 3; i++)
		user += region_bad(&regions[i]);
	metric_set("corrupt", user);
	ret = read_report((struct dbuf[MAX_BUFS]){}, MAX_BUFS);
	metric_set("left", ret);
	unlink("/tmp/v4l2-in.fwht");
	unlink("/tmp/v4l2-out.nv12");

	/*
	 * Freed: the memory serves user pages again.  New user data, 64 MiB
	 * at a time (at most 768 MiB), until half the buffers' pages hold
	 * some.  Freed buffers go back page by page, to the per-CPU free lists of
	 * the CPU that freed them, where only order-0 allocations on that
	 * CPU find them: the new data is in base pages (no THP) and written
	 * from each CPU in turn.
	 */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		t_diag("PR_SET_THP_DISABLE: %s", strerror(errno));
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 1)
		ncpus = 1;
	for (buf_pages = 0, i = 0; i < n_bufs; i++)
		buf_pages += bufs[i].len / page_size();
	for (user = 0, i = 0; n_bufs && user < buf_pages / 2 && i < 12; i++) {
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(i % ncpus, &cpus);
		if (sched_setaffinity(0, sizeof(cpus), &cpus))
			t_diag("sched_setaffinity(%ld): %s", (long)(i % ncpus), strerror(errno));
		if (region_fill(&regions[3], 64 << 20, 0x44444444 + i, -1))
			t_bail("cannot fill anonymous memory again");
		user += pages_in_bufs(&regions[3]);
	}
	metric_set("reuse", user);
	/* and the block as a whole */
	bufs[0].dma = base;
	bufs[0].len = bsize;
	n_bufs = 1;
	metric_set("reuse_block", pages_in_bufs(&regions[3]));
	t_diag("refill: %d chunks of 64 MiB", i);
	return 0;
}

/* ---- both decoders at once: playback and stress ------------------------ */

/* A decoder, its block and the v4l2-ctl that plays on it */
struct dec {
	const char *label;
	char node[64], pdev[128], report[256], out[64], log[64];
	char block[96];		/* its block: the DMB it owns */
	uint64_t base, size;
	int ctrl;		/* the block's controller, -1 if unknown */
	char ctrl_label[32];
	pid_t pid;		/* its player, 0 when none runs */
	int looked;		/* user pages in its buffers counted */
	size_t user_in_buffers;
	struct dbuf bufs[MAX_BUFS];
	int n_bufs;
	int dmb;		/* its player claims with dmb_alloc() */
};

static struct dec decs[2];
/* players choose their path (d->dmb) as they open the decoder */
static int mixed_paths;
static void set_path(int dmb);

/* Wait (up to 10 s) until process @pid has @node open: 0, or -1 */
static int wait_opened(pid_t pid, const char *node)
{
	char dir[64], path[320], link[128];
	struct dirent *de;
	int i;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	for (i = 0; i < 10000; i++) {
		DIR *dd = opendir(dir);
		ssize_t n;

		while (dd && (de = readdir(dd))) {
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			n = readlink(path, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				if (!strcmp(link, node)) {
					closedir(dd);
					return 0;
				}
			}
		}
		if (dd)
			closedir(dd);
		else
			return -1;	/* it exited */
		usleep(1000);
	}
	return -1;
}

static int dec_find(struct dec *d, const char *label)
{
	struct dmb_range r[MAX_DMBS];
	struct ctrl c[MAX_CTRL];
	int n, i, nc, ret;
	size_t len;

	d->label = label;
	ret = v4l2_find_decoder(label, d->node, sizeof(d->node), d->pdev, sizeof(d->pdev));
	if (ret)
		return ret;
	snprintf(d->report, sizeof(d->report), "/sys/kernel/debug/dmb_v4l2dec/%s/buffers", d->pdev);
	snprintf(d->out, sizeof(d->out), "/tmp/v4l2-%s.nv12", label);
	snprintf(d->log, sizeof(d->log), "/tmp/v4l2-%s.log", label);
	/* its block: the DMB whose DMA owner the device is ("<dev>(dma)") */
	len = strlen(d->pdev);
	n = read_dmbs(r, MAX_DMBS);
	for (i = 0; i < n; i++)
		if (!strncmp(r[i].owner, d->pdev, len) &&
		    (!r[i].owner[len] || r[i].owner[len] == '(')) {
			const char *s = strrchr(r[i].name, '/');

			snprintf(d->block, sizeof(d->block), "%s", s ? s + 1 : r[i].name);
			d->base = r[i].base;
			d->size = r[i].size;
		}
	if (!d->size)
		return -ENXIO;
	nc = read_controllers(c, MAX_CTRL);
	d->ctrl = nc > 0 ? ctrl_of(c, nc, d->base) : -1;
	snprintf(d->ctrl_label, sizeof(d->ctrl_label), "%s",
		 d->ctrl >= 0 ? c[d->ctrl].label : "?");
	return 0;
}

/*
 * v4l2-ctl decoding @frames frames of @in on @d, output to d->log; with
 * @pause, it sleeps 0.7 s every @pause frames (a watcher sees its
 * buffers while it streams); with @exporter, its CAPTURE buffers are
 * dma-bufs that device exports (--stream-dmabuf --export-device)
 */
static void dec_play_from(struct dec *d, const char *in, int w, int h,
			  int nbufs, int frames, int pause, const char *exporter)
{
	char fmt[64], ob[32], cb[32], from[96], to[96], count[32], sl[48];
	char exp[96];
	char *av[] = { "/bin/v4l2-ctl", "-d", d->node, "--set-fmt-video-out",
		       fmt, ob, cb, from, to, count, NULL, NULL, NULL };
	int fd, ac = 10;

	snprintf(sl, sizeof(sl), "--stream-sleep=count=%d,sleep=700", pause);
	snprintf(fmt, sizeof(fmt), "width=%d,height=%d,pixelformat=FWHT", w, h);
	snprintf(ob, sizeof(ob), "--stream-out-mmap=%d", nbufs);
	snprintf(cb, sizeof(cb), "--stream-mmap=%d", nbufs);
	snprintf(from, sizeof(from), "--stream-from=%s", in);
	snprintf(to, sizeof(to), "--stream-to=%s", d->out);
	snprintf(count, sizeof(count), "--stream-count=%d", frames);
	if (pause)
		av[ac++] = sl;
	if (exporter) {
		/* CAPTURE buffers: dma-bufs another device exports */
		snprintf(cb, sizeof(cb), "--stream-dmabuf");
		snprintf(exp, sizeof(exp), "--export-device=%s", exporter);
		av[ac++] = exp;
	}
	d->n_bufs = 0;
	d->looked = 0;
	d->user_in_buffers = 0;
	if (mixed_paths)
		set_path(d->dmb);
	d->pid = fork();
	if (d->pid < 0)
		t_bail("fork: %s", strerror(errno));
	if (!d->pid) {
		/* a check that bails out takes its players with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(av[0], av);
		_exit(127);
	}
	/* the path is read at open: the next player may choose another */
	if (mixed_paths && wait_opened(d->pid, d->node))
		t_diag("%s: v4l2-ctl did not open %s", d->label, d->node);
}

static void dec_play(struct dec *d, const char *in, int w, int h, int nbufs,
		     int frames, int pause)
{
	dec_play_from(d, in, w, h, nbufs, frames, pause, NULL);
}

/*
 * Remember the player's buffers; which queues have some: 1 OUTPUT, 2
 * CAPTURE
 */
static int dec_watch(struct dec *d)
{
	struct dbuf now[MAX_BUFS];
	int n = read_report_at(d->report, now, MAX_BUFS), i, j, cap = 0, out = 0;

	for (i = 0; i < n; i++) {
		for (j = 0; j < d->n_bufs; j++)
			if (d->bufs[j].dma == now[i].dma && !strcmp(d->bufs[j].q, now[i].q))
				break;
		if (j == d->n_bufs && d->n_bufs < MAX_BUFS)
			d->bufs[d->n_bufs++] = now[i];
		cap |= !strcmp(now[i].q, "cap");
		out |= !strcmp(now[i].q, "out");
	}
	return out | cap << 1;
}

static void dec_log_show(const struct dec *d)
{
	char line[512];
	FILE *f = fopen(d->log, "r");

	while (f && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		t_diag("%s: %s", d->label, line);
	}
	if (f)
		fclose(f);
}

/*
 * Has the player exited?  Then its last buffers are noted, *@exit is its
 * exit status (128 + signal if killed) and 0 is returned; 1 while it runs.
 */
static int dec_reap(struct dec *d, int *exit)
{
	int status;
	pid_t r = waitpid(d->pid, &status, WNOHANG);

	if (r < 0)
		t_bail("waitpid %s: %s", d->label, strerror(errno));
	if (r != d->pid)
		return 1;
	dec_watch(d);
	*exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	d->pid = 0;
	return 0;
}

/* Lines of the player's output that say @text */
static int dec_log_count(const struct dec *d, const char *text)
{
	char line[512];
	int n = 0;
	FILE *f = fopen(d->log, "r");

	while (f && fgets(line, sizeof(line), f))
		n += !!strstr(line, text);
	if (f)
		fclose(f);
	return n;
}

/* Pages of @r inside the buffers @d has seen (pagemap read in batches) */
static size_t dec_user_pages(const struct dec *d, const struct user_region *r)
{
	long ps = page_size();
	size_t i, n = 0, np = r->len / ps;
	uint64_t *pfn = malloc(np * sizeof(*pfn));
	int j;

	if (!pfn || virt_to_pfns(r->p, np, pfn))
		t_bail("cannot read pagemap");
	for (i = 0; i < np; i++) {
		uint64_t pa = pfn[i] * ps;

		for (j = 0; pfn[i] && j < d->n_bufs; j++)
			if (pa >= d->bufs[j].dma && pa < d->bufs[j].dma + d->bufs[j].len) {
				n++;
				break;
			}
	}
	free(pfn);
	return n;
}

/* Of @n page frames, how many lie in the buffers @d has seen */
static size_t dec_pfns_in_bufs(const struct dec *d, const uint64_t *pfn, size_t n)
{
	long ps = page_size();
	size_t i, in = 0;
	int j;

	for (i = 0; i < n; i++)
		for (j = 0; pfn[i] && j < d->n_bufs; j++)
			if (pfn[i] * ps >= d->bufs[j].dma &&
			    pfn[i] * ps < d->bufs[j].dma + d->bufs[j].len) {
				in++;
				break;
			}
	return in;
}

/* A counter of the decoder's CMA area (/sys/kernel/mm/cma/<block>/), -1 */
static double dec_cma(const struct dec *d, const char *what)
{
	char path[160], buf[32];

	snprintf(path, sizeof(path), "/sys/kernel/mm/cma/%s/%s", d->block, what);
	return file_read_str(path, buf, sizeof(buf)) ? -1 : atof(buf);
}

static double dec_cma_allocated(const struct dec *d)
{
	return dec_cma(d, "alloc_pages_success");
}

/*
 * Pages of the decoder's CMA area in its bitmap (debugfs "used"): a claim
 * takes its run there before it migrates, and counts it in
 * alloc_pages_success only once it succeeded.
 */
static double dec_cma_used(const struct dec *d)
{
	char path[160], buf[32];

	snprintf(path, sizeof(path), "/sys/kernel/debug/cma/%s/used", d->block);
	return file_read_str(path, buf, sizeof(buf)) ? -1 : atof(buf);
}

/* Pages allocated from the decoder's CMA area and not released */
static double dec_cma_held(const struct dec *d)
{
	double a = dec_cma(d, "alloc_pages_success");
	double b = dec_cma(d, "release_pages_success");

	return a < 0 || b < 0 ? -1 : a - b;
}

static void find_both(void)
{
	int k, ret;

	for (k = 0; k < 2; k++) {
		ret = dec_find(&decs[k], k ? "pip" : "main");
		if (ret)
			t_bail("decoder %s: %s", k ? "pip" : "main",
			       ret == -ENXIO ? "owns no DMB" : strerror(-ret));
		t_diag("decoder %s: %s (%s), block %#llx + %#llx, controller %d",
		       decs[k].label, decs[k].node, decs[k].pdev,
		       (unsigned long long)decs[k].base,
		       (unsigned long long)decs[k].size, decs[k].ctrl);
	}
}

/*
 * Kill-and-restart cycles of both decoders at once, with the memory hog
 * and page cache churn of the dmb_vdec stress running (optionally close to
 * out of memory).  A player killed mid-stream, or refused buffers, leaves
 * nothing behind: after every cycle neither decoder lists a buffer.
 */
/* Is @pid in VIDIOC_REQBUFS or VIDIOC_CREATE_BUFS right now? */
static int in_reqbufs(pid_t pid)
{
	char path[64], buf[128];
	unsigned long nr, fd, req;

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	if (file_read_str(path, buf, sizeof(buf)) ||
	    sscanf(buf, "%lu %lx %lx", &nr, &fd, &req) != 3)
		return 0;
	return nr == 29 /* ioctl on arm64 */ &&
	       (req == VIDIOC_REQBUFS || req == VIDIOC_CREATE_BUFS);
}

/* The player was refused its buffers (REQBUFS or CREATE_BUFS failed) */
static int dec_refused(const struct dec *d)
{
	char line[512];
	int found = 0;
	FILE *f = fopen(d->log, "r");

	/* ENOMEM is only ever a buffer allocation's; EBUSY only there */
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, "Cannot allocate memory") ||
			((strstr(line, "reqbufs") || strstr(line, "REQBUFS") ||
			  strstr(line, "CREATE_BUFS")) &&
			 strstr(line, "Device or resource busy"));
	if (f)
		fclose(f);
	return found;
}

/*
 * Kill-and-restart cycles of both decoders at once, with the memory hog
 * and page cache churn of the dmb_vdec stress running (optionally close to
 * out of memory).  Kills come in fours: main then PiP while they are in
 * VIDIOC_REQBUFS (the CMA area moving user pages out of the way), then
 * main and PiP mid-stream (both queues have buffers).  A player killed or
 * refused leaves nothing behind: after every cycle neither decoder lists
 * a buffer, and no buffer ever lies outside its decoder's block.
 */
static int stress(int argc, char **argv)
{
	const char *o;
	long cycles = (o = opt_get(argc, argv, "cycles")) ? atol(o) : 1000;
	long kill_every = (o = opt_get(argc, argv, "kill-every")) ? atol(o) : 3;
	int64_t hog_len = (o = opt_get(argc, argv, "hog")) ? parse_size(o) : 300 << 20;
	int64_t churn_len = (o = opt_get(argc, argv, "churn")) ? parse_size(o) : 64 << 20;
	int frames = (o = opt_get(argc, argv, "frames")) ? atoi(o) : 4;
	int nbufs = (o = opt_get(argc, argv, "bufs")) ? atoi(o) : 4;
	int near_oom = opt_get(argc, argv, "near-oom") != NULL;
	int w = 1920, h = 1088, k, i, ret[2], bad, decoded, running;
	double done = 0, failed = 0, enomem = 0, killed = 0, left = 0, ok = 0;
	double streaming = 0, reqbufs = 0, outside = 0, cma_base, used_base;
	/* pages of the 32 OUTPUT buffers a REQBUFS victim asks for */
	double full = 32.0 * ((44 + (size_t)w * h * 3 / 2 + page_size() - 1) / page_size());
	size_t fsize = (size_t)w * h * 3 / 2;
	pid_t load[3];
	long c;

	if (frames < 1 || frames > MAX_FRAMES || nbufs < 1 || nbufs > 32 ||
	    cycles < 1 || kill_every < 0)
		t_bail("--frames: 1 to %d, --bufs: 1 to 32, --cycles > 0, --kill-every >= 0",
		       MAX_FRAMES);
	find_both();
	if (mount("/dev/vda", "/mnt", "ext4", 0, NULL))
		t_bail("cannot mount /dev/vda (ext4): %s", strerror(errno));
	if (write_stream("/tmp/v4l2-stress.fwht", frames, w, h, 44 + fsize))
		t_bail("cannot write the FWHT stream");
	/*
	 * Leave little room, all of it usable by the kernel: MemAvailable
	 * counts the blocks, which the players' claims take back and the
	 * kernel's own allocations cannot use.  With 128 MiB left, the OOM
	 * killer took a hog in one run of four (2026-12-07).
	 */
	if (near_oom)
		hog_len = ((meminfo_kb("MemAvailable") << 10) - (256 << 20)) / 2;
	srand(1);
	load[0] = load_spawn(load_hog, hog_len);
	load[1] = load_spawn(load_hog, near_oom ? hog_len : hog_len / 2);
	load[2] = load_spawn(load_churn, churn_len);
	if (load[0] < 0 || load[1] < 0 || load[2] < 0)
		t_bail("cannot fork the load: %s", strerror(errno));

	for (c = 0; c < cycles; c++) {
		long kill_no = kill_every && !(c % kill_every) ? c / kill_every : -1;
		int victim = kill_no >= 0 ? kill_no % 2 : -1;
		int mid_stream = kill_no >= 0 && (kill_no / 2) % 2;
		int shot = 0;

		cma_base = victim >= 0 ? dec_cma_allocated(&decs[victim]) : 0;
		used_base = victim >= 0 ? dec_cma_used(&decs[victim]) : 0;
		/*
		 * A player to kill in REQBUFS asks for 32 OUTPUT buffers:
		 * allocating and zeroing 96 MiB leaves time to see it there.
		 */
		for (k = 0; k < 2; k++)
			dec_play(&decs[k], "/tmp/v4l2-stress.fwht", w, h,
				 k == victim && !mid_stream ? 32 : nbufs, frames, 0);
		/* watch both players until they exit; the victim dies on the way */
		for (i = 0, running = 2; running; i++) {
			for (running = 0, k = 0; k < 2; k++) {
				struct dec *d = &decs[k];
				int q;

				if (!d->pid)
					continue;
				/*
				 * In REQBUFS: its CMA area has handed out some of
				 * the 32 buffers but not all, or a run is taken in
				 * the bitmap but not yet handed out (dmb_alloc()
				 * claims all buffers as one run), or the task sleeps
				 * in the ioctl.  The report is not read meanwhile:
				 * it takes the queue's lock, which REQBUFS holds.
				 */
				if (k == victim && !shot && !mid_stream) {
					double got = dec_cma_allocated(d) - cma_base;
					double taken = dec_cma_used(d) - used_base;

					if (in_reqbufs(d->pid) ||
					    (got > 0 && got < full) ||
					    (got == 0 && taken > 0)) {
						reqbufs++;
						kill(d->pid, SIGKILL);
						shot = 1;
					} else if (got < full) {
						running += dec_reap(d, &ret[k]);
						continue;
					}
				}
				q = dec_watch(d);
				/* If REQBUFS was missed, the kill comes now. */
				if (k == victim && !shot && (mid_stream ? q == 3 : q)) {
					/*
					 * A little later in the stream, but not so
					 * late that a short stream (the debug
					 * kernel's) has ended: then the kill would
					 * land in the teardown, not mid-stream.
					 */
					if (mid_stream)
						usleep(rand() % 5000);
					streaming += mid_stream &&
						read_report_at(d->report, (struct dbuf[MAX_BUFS]){},
							       MAX_BUFS) > 0;
					kill(d->pid, SIGKILL);
					shot = 1;
				}
				running += dec_reap(d, &ret[k]);
			}
			if (running)
				usleep(500);
		}
		for (k = 0; k < 2; k++) {
			struct dec *d = &decs[k];

			for (i = 0; i < d->n_bufs; i++)
				if (d->bufs[i].dma < d->base ||
				    d->bufs[i].dma + d->bufs[i].len > d->base + d->size) {
					t_diag("cycle %ld %s: %s buffer at %#llx outside its block",
					       c, d->label, d->bufs[i].q,
					       (unsigned long long)d->bufs[i].dma);
					outside++;
				}
			if (k == victim && ret[k] == 128 + SIGKILL) {
				killed++;
			} else if (ret[k] == 0) {
				bad = check_frames(d->out, fsize, &decoded);
				if (bad || decoded != frames) {
					failed++;
					t_diag("cycle %ld %s: %d frames, %d bad", c, d->label,
					       decoded, bad);
				} else {
					ok++;
				}
			} else if (dec_refused(d)) {
				enomem++;
			} else if (failed++ < 3) {
				t_diag("cycle %ld %s: v4l2-ctl exit %d", c, d->label, ret[k]);
				dec_log_show(d);
			}
			unlink(d->out);
			/* the player is gone: so are its buffers */
			ret[k] = read_report_at(d->report, (struct dbuf[MAX_BUFS]){}, MAX_BUFS);
			if (ret[k]) {
				t_diag("cycle %ld %s: %d buffers listed after its player exited",
				       c, d->label, ret[k]);
				left += ret[k];
			}
		}
		done++;
		if (!(c % 25))
			t_info("%ld cycles", c);
	}
	metric_set("corrupt", load_end(load, 3));
	for (k = 0; k < 2; k++) {
		char name[64];

		snprintf(name, sizeof(name), "%s.count_after", decs[k].label);
		metric_set(name, read_report_at(decs[k].report, decs[k].bufs, MAX_BUFS));
		snprintf(name, sizeof(name), "%s.held_pages", decs[k].label);
		metric_set(name, dec_cma_held(&decs[k]));
	}
	unlink("/tmp/v4l2-stress.fwht");
	umount("/mnt");
	t_report("%.0f cycles of v4l2-ctl on both decoders: %.0f players decoded every frame, %.0f failed, %.0f refused buffers, %.0f killed (%.0f in REQBUFS, %.0f mid-stream), %.0f buffers outside their block, %.0f left behind",
		 done, ok, failed, enomem, killed, reqbufs, streaming, outside, left);
	metric_set("cycles", done);
	metric_set("ok_players", ok);
	metric_set("failed", failed);
	metric_set("enomem", enomem);
	metric_set("killed", killed);
	metric_set("killed_in_reqbufs", reqbufs);
	metric_set("killed_streaming", streaming);
	metric_set("outside", outside);
	metric_set("left", left);
	return 0;
}

/*
 * The story of make demo with the V4L2 sample: a busy system's user data
 * of every kind fills both blocks; both decoders start, each a v4l2-ctl
 * decode loop; their buffers come from their own block on their own
 * controller, the user data moves out intact; after the players stop the
 * memory serves user pages again.
 */
static int playback(int argc, char **argv)
{
	static const char *const kinds[] = { "anonymous", "mlocked", "tmpfs", "file" };
	const char *o;
	int64_t len[4] = {
		(o = opt_get(argc, argv, "anon")) ? parse_size(o) : 400 << 20,
		(o = opt_get(argc, argv, "mlock")) ? parse_size(o) : 64 << 20,
		(o = opt_get(argc, argv, "tmpfs")) ? parse_size(o) : 128 << 20,
		(o = opt_get(argc, argv, "file")) ? parse_size(o) : 256 << 20,
	};
	int frames = (o = opt_get(argc, argv, "frames")) ? atoi(o) : 16;
	int nbufs = (o = opt_get(argc, argv, "bufs")) ? atoi(o) : 32;
	int w = 1920, h = 1088, k, i, fd, running, decoded, bad, exit_code[2];
	size_t fsize = (size_t)w * h * 3 / 2, user = 0, blocks = 0, n, buf_pages;
	struct user_region reuse;
	uint64_t *before[4];
	size_t before_n[4];
	char name[64];
	long ncpus;

	if (frames < 1 || frames > MAX_FRAMES || nbufs < 1 || nbufs > 32)
		t_bail("--frames: 1 to %d, --bufs: 1 to 32", MAX_FRAMES);
	find_both();
	/* --pip-path=dmb: PiP's player claims with dmb_alloc(), main's not */
	o = opt_get(argc, argv, "pip-path");
	if (o && strcmp(o, "dma") && strcmp(o, "dmb"))
		t_bail("--pip-path=dma or dmb, not %s", o);
	if (o) {
		mixed_paths = 1;
		decs[1].dmb = !strcmp(o, "dmb");
		t_report("main's player takes its buffers through the DMA API, PiP's %s",
			 decs[1].dmb ? "with dmb_alloc()" : "through the DMA API");
	}
	if (mount("/dev/vda", "/mnt", "ext4", 0, NULL))
		t_bail("cannot mount /dev/vda (ext4): %s", strerror(errno));

	/* a busy system */
	if (region_fill(&regions[0], len[0], 0x11111111, -1) ||
	    region_fill(&regions[1], len[1], 0x22222222, -1) ||
	    mlock(regions[1].p, regions[1].len))
		t_bail("cannot fill anonymous memory");
	fd = open("/tmp/playback.tmpfs", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || region_fill(&regions[2], len[2], 0x33333333, fd))
		t_bail("cannot fill tmpfs");
	close(fd);
	fd = open("/mnt/playback.file", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || region_fill(&regions[3], len[3], 0x44444444, fd))
		t_bail("cannot fill the file on ext4");
	close(fd);
	t_report("user data: %lld MiB anonymous (%lld MiB mlocked), %lld MiB tmpfs, %lld MiB file on ext4",
		 (long long)(len[0] + len[1]) >> 20, (long long)len[1] >> 20,
		 (long long)len[2] >> 20, (long long)len[3] >> 20);
	for (k = 0; k < 2; k++) {
		blocks += decs[k].size / page_size();
		for (i = 0; i < 4; i++)
			user += region_in(&regions[i], decs[k].base, decs[k].size);
	}
	metric_set("user_in_dmb_pct", 100.0 * user / blocks);
	/* where every page of user data is now, to tell what playback moved */
	for (i = 0; i < 4; i++) {
		before_n[i] = regions[i].len / page_size();
		before[i] = malloc(before_n[i] * sizeof(*before[i]));
		if (!before[i] || virt_to_pfns(regions[i].p, before_n[i], before[i]))
			t_bail("cannot read pagemap");
	}
	t_report("before playback: the decoders' blocks hold %zu MiB of user data (%.0f%% of them)",
		 user * page_size() >> 20, 100.0 * user / blocks);

	/* both decoders start: a v4l2-ctl decode loop each */
	if (write_stream("/tmp/v4l2-playback.fwht", frames, w, h, 44 + fsize))
		t_bail("cannot write the FWHT stream");
	for (k = 0; k < 2; k++)
		dec_play(&decs[k], "/tmp/v4l2-playback.fwht", w, h, nbufs, frames,
				 frames / 2);
	do {
		for (running = 0, k = 0; k < 2; k++) {
			struct dec *d = &decs[k];

			if (!d->pid)
				continue;
			if ((dec_watch(d) & 1) && !d->looked) {
				/*
				 * REQBUFS gave it its OUTPUT buffers, all at
				 * once: where are the user pages now?
				 */
				d->looked = 1;
				for (i = 0; i < 4; i++)
					d->user_in_buffers += dec_user_pages(d, &regions[i]);
			}
			running += dec_reap(d, &exit_code[k]);
		}
		usleep(2000);
	} while (running);

	for (k = 0; k < 2; k++) {
		struct dec *d = &decs[k];
		int outside = 0, ctrl = d->ctrl, nout = 0;
		uint64_t bytes = 0;

		bad = check_frames(d->out, fsize, &decoded);
		for (i = 0; i < d->n_bufs; i++) {
			bytes += d->bufs[i].len;
			nout += !strcmp(d->bufs[i].q, "out");
			if (d->bufs[i].dma < d->base ||
			    d->bufs[i].dma + d->bufs[i].len > d->base + d->size) {
				outside++;
				ctrl = -1;
			}
		}
		if (exit_code[k])
			dec_log_show(d);
		for (i = 0; i < d->n_bufs; i++)
			t_diag("%s: %s buffer at %#llx + %#llx", d->label, d->bufs[i].q,
			       (unsigned long long)d->bufs[i].dma,
			       (unsigned long long)d->bufs[i].len);
#define M(what, v) do { snprintf(name, sizeof(name), "%s." what, d->label); metric_set(name, v); } while (0)
		M("exit", exit_code[k]);
		M("frames", decoded);
		M("bad_frames", bad);
		M("bufs_out", nout);
		M("bufs_cap", d->n_bufs - nout);
		M("outside", outside);
		M("controller", d->n_bufs ? ctrl : -1);
		M("user_in_buffers", d->looked ? (double)d->user_in_buffers : -1);
		M("left", read_report_at(d->report, (struct dbuf[MAX_BUFS]){}, MAX_BUFS));
#undef M
		t_report("%s decoder (%s, v4l2-ctl): %d buffers, %llu MiB, %s inside %s on %s; %d frames decoded, %d bad",
			 d->label, d->node, d->n_bufs, (unsigned long long)(bytes >> 20),
			 outside ? "NOT all" : "all", d->block, d->ctrl_label,
			 decoded, bad);
		unlink(d->out);
	}
	for (n = 0, k = 0; k < 2; k++)
		for (i = 0; i < 4; i++)
			n += dec_pfns_in_bufs(&decs[k], before[i], before_n[i]);
	for (i = 0; i < 4; i++)
		free(before[i]);
	metric_set("moved", n);
	t_report("the buffers took the place of %zu MiB (%zu pages) of user data, which the kernel moved out of their way",
		 n * page_size() >> 20, n);
	t_report("during playback: %zu user pages in the decoders' OUTPUT buffers",
		 decs[0].user_in_buffers + decs[1].user_in_buffers);
	unlink("/tmp/v4l2-playback.fwht");

	/* nothing lost, also after writeback and a drop of the page cache */
	for (n = 0, i = 0; i < 4; i++) {
		size_t b = region_bad(&regions[i]);

		snprintf(name, sizeof(name), "corrupt.%s", kinds[i]);
		metric_set(name, b);
		n += b;
	}
	sync();
	if (file_write("/proc/sys/vm/drop_caches", "3"))
		t_diag("drop_caches failed");
	metric_set("corrupt.file_reread", region_bad(&regions[3]));
	t_report("after playback: %zu damaged pages of user data; after sync and a drop of the page cache the file reads back with %zu",
		 n, region_bad(&regions[3]));
	munmap(regions[3].p, regions[3].len);
	unlink("/mnt/playback.file");
	umount("/mnt");

	/*
	 * The buffers' memory serves user pages again: new data, 64 MiB at a
	 * time in base pages from each CPU in turn (stream() says why).
	 */
	if (prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0))
		t_diag("PR_SET_THP_DISABLE: %s", strerror(errno));
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	for (buf_pages = 0, k = 0; k < 2; k++)
		for (i = 0; i < decs[k].n_bufs; i++)
			buf_pages += decs[k].bufs[i].len / page_size();
	for (user = 0, i = 0; user < buf_pages / 2 && i < 12; i++) {
		cpu_set_t cpus;

		CPU_ZERO(&cpus);
		CPU_SET(i % (ncpus > 0 ? ncpus : 1), &cpus);
		sched_setaffinity(0, sizeof(cpus), &cpus);
		if (region_fill(&reuse, 64 << 20, 0x55555555 + i, -1))
			t_bail("cannot fill anonymous memory again");
		for (k = 0; k < 2; k++)
			user += dec_user_pages(&decs[k], &reuse);
	}
	metric_set("reuse_pct", buf_pages ? 100.0 * user / buf_pages : 0);
	t_report("the memory returns: %d MiB of new user data put %.0f%% of the buffers' pages to use again",
		 i * 64, buf_pages ? 100.0 * user / buf_pages : 0);
	return 0;
}

/*
 * --stream-dmabuf: main decodes into CAPTURE buffers that PiP's decoder
 * allocates and exports (VIDIOC_EXPBUF); main imports them as dma-bufs.
 * Main's OUTPUT buffers are in main's block, the CAPTURE buffers in PiP's
 * block (they are PiP's), each on its controller, while user data fills
 * memory; every frame decodes right and nothing stays allocated.
 */
static int dmabuf(int argc, char **argv)
{
	const char *o;
	int frames = (o = opt_get(argc, argv, "frames")) ? atoi(o) : 24;
	int w = 640, h = 480, ret = -1, running, decoded, bad, k, i;
	size_t fsize = (size_t)w * h * 3 / 2, user;
	struct dec *imp = &decs[0], *exp = &decs[1];
	int in_block[2] = { 0, 0 }, outside = 0, fd;
	char name[64];

	if (frames < 1 || frames > MAX_FRAMES)
		t_bail("--frames: 1 to %d", MAX_FRAMES);
	find_both();
	if (region_fill(&regions[0], 256 << 20, 0x11111111, -1) ||
	    region_fill(&regions[1], 32 << 20, 0x22222222, -1) ||
	    mlock(regions[1].p, regions[1].len))
		t_bail("cannot fill anonymous memory");
	fd = open("/tmp/v4l2.tmpfs", O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || region_fill(&regions[2], 64 << 20, 0x33333333, fd))
		t_bail("cannot fill tmpfs");
	close(fd);
	if (write_stream("/tmp/v4l2-dmabuf.fwht", frames, w, h, 44 + fsize))
		t_bail("cannot write the FWHT stream");
	exp->n_bufs = 0;
	dec_play_from(imp, "/tmp/v4l2-dmabuf.fwht", w, h, 4, frames, frames / 2,
		      exp->node);
	do {
		int status;
		pid_t pid;

		dec_watch(exp);
		running = 1;
		if ((dec_watch(imp) & 1) && !imp->looked) {
			imp->looked = 1;
			for (i = 0; i < 3; i++)
				imp->user_in_buffers += dec_user_pages(imp, &regions[i]);
		}
		if (exp->n_bufs && !exp->looked) {
			exp->looked = 1;
			for (i = 0; i < 3; i++)
				exp->user_in_buffers += dec_user_pages(exp, &regions[i]);
		}
		pid = waitpid(imp->pid, &status, WNOHANG);
		if (pid == imp->pid) {
			ret = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
			imp->pid = 0;
			running = 0;
		} else if (pid < 0) {
			t_bail("waitpid: %s", strerror(errno));
		} else {
			usleep(2000);
		}
	} while (running);
	if (ret)
		dec_log_show(imp);
	metric_set("exit", ret);
	bad = check_frames(imp->out, fsize, &decoded);
	metric_set("frames", decoded);
	metric_set("bad_frames", bad);
	for (k = 0; k < 2; k++) {
		struct dec *d = &decs[k];

		for (i = 0; i < d->n_bufs; i++) {
			int in = d->bufs[i].dma >= d->base &&
				 d->bufs[i].dma + d->bufs[i].len <= d->base + d->size;

			in_block[k] += in;
			outside += !in;
			t_diag("%s: %s buffer at %#llx + %#llx%s", d->label, d->bufs[i].q,
			       (unsigned long long)d->bufs[i].dma,
			       (unsigned long long)d->bufs[i].len, in ? "" : " OUTSIDE");
		}
		snprintf(name, sizeof(name), "%s.bufs", d->label);
		metric_set(name, d->n_bufs);
		snprintf(name, sizeof(name), "%s.user_in_buffers", d->label);
		metric_set(name, d->looked ? (double)d->user_in_buffers : -1);
		snprintf(name, sizeof(name), "%s.left", d->label);
		metric_set(name, read_report_at(d->report, (struct dbuf[MAX_BUFS]){}, MAX_BUFS));
	}
	metric_set("outside", outside);
	for (user = 0, i = 0; i < 3; i++)
		user += region_bad(&regions[i]);
	metric_set("corrupt", user);
	t_report("%s decoded %d frames (%d bad) from %d OUTPUT buffers in %s into %d CAPTURE dma-bufs %s exported from %s",
		 imp->node, decoded, bad, in_block[0], imp->block, in_block[1],
		 exp->node, exp->block);
	unlink(imp->out);
	unlink("/tmp/v4l2-dmabuf.fwht");
	return 0;
}

/*
 * The size comes from the stream: OUTPUT is set to 1280x720, the first
 * frames' headers say 640x480 (the first source change must say so), and
 * from the middle on 1280x720 (a size change mid-stream: the decoder
 * returns what it decoded, an empty CAPTURE buffer flagged LAST and a
 * second source change; v4l2-ctl waits for that LAST buffer before it
 * sets CAPTURE up again).  Every frame of both sizes decodes right.
 */
static int resize(void)
{
	struct dec *d = &decs[0];
	int frames = 12, at = 6, status, decoded, bad;
	size_t f1 = 640 * 480 * 3 / 2, f2 = 1280 * 720 * 3 / 2;

	if (write_stream_sizes("/tmp/v4l2-resize.fwht", frames, 640, 480,
			       1280, 720, at, 44 + f2))
		t_bail("cannot write the FWHT stream");
	dec_play(d, "/tmp/v4l2-resize.fwht", 1280, 720, 4, frames, 0);
	if (waitpid(d->pid, &status, 0) != d->pid)
		t_bail("waitpid: %s", strerror(errno));
	d->pid = 0;
	status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	dec_log_show(d);
	metric_set("exit", status);
	metric_set("source_changes", dec_log_count(d, "SOURCE CHANGE EVENT"));
	bad = check_frames_sizes(d->out, f1, f2, at, &decoded);
	metric_set("frames", decoded);
	metric_set("bad_frames", bad);
	metric_set("left", read_report_at(d->report, (struct dbuf[MAX_BUFS]){}, MAX_BUFS));
	t_report("%s: %d frames decoded across a size change (640x480, then 1280x720), %d bad",
		 d->node, decoded, bad);
	unlink(d->out);
	unlink("/tmp/v4l2-resize.fwht");
	return 0;
}

/* ---- unbind under a streaming file --------------------------------------- */

static int xioctl(int fd, unsigned long req, void *arg)
{
	return ioctl(fd, req, arg) ? -errno : 0;
}

static int setup_queue(int fd, uint32_t type, int count)
{
	struct v4l2_requestbuffers rb = { .count = count, .type = type,
					  .memory = V4L2_MEMORY_MMAP };
	int ret = xioctl(fd, VIDIOC_REQBUFS, &rb), i;

	for (i = 0; !ret && i < (int)rb.count; i++) {
		struct v4l2_buffer b = { .index = i, .type = type,
					 .memory = V4L2_MEMORY_MMAP };

		if (type == V4L2_BUF_TYPE_VIDEO_OUTPUT)
			b.bytesused = 64;
		ret = xioctl(fd, VIDIOC_QBUF, &b);
	}
	return ret ? ret : xioctl(fd, VIDIOC_STREAMON, &type);
}

static int unbind(const char *label, const char *node, const char *pdev)
{
	struct v4l2_requestbuffers rb = { .count = 2, .memory = V4L2_MEMORY_MMAP };
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_MMAP, .index = 99 };
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	struct v4l2_capability cap;
	char nnode[64], npdev[128];
	int fd, fd2, ret;

	fd = open(node, O_RDWR);
	if (fd < 0)
		t_bail("open %s: %s", node, strerror(errno));
	/* a second opener is a second decoding session */
	fd2 = open(node, O_RDWR);
	metric_set("second_open", fd2 < 0 ? -errno : 0);
	rb.type = 0x7f;
	metric_set("bad_type", xioctl(fd, VIDIOC_REQBUFS, &rb));
	rb.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	rb.memory = 0x7f;
	metric_set("bad_memory", xioctl(fd, VIDIOC_REQBUFS, &rb));
	metric_set("bad_index", xioctl(fd, VIDIOC_QUERYBUF, &b));
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	f.fmt.pix.width = 1u << 30;
	f.fmt.pix.height = 1u << 30;
	ret = xioctl(fd, VIDIOC_S_FMT, &f);
	metric_set("bad_size", ret ? ret : (int)(f.fmt.pix.width * f.fmt.pix.height > 1920 * 1088));
	f.fmt.pix.width = 640;
	f.fmt.pix.height = 480;
	if (xioctl(fd, VIDIOC_S_FMT, &f))
		t_bail("S_FMT: %s", strerror(errno));
	metric_set("streaming", !setup_queue(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 4) &&
		   !setup_queue(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 4));
	if (fd2 >= 0)
		metric_set("second_streaming",
			   !setup_queue(fd2, V4L2_BUF_TYPE_VIDEO_CAPTURE, 2) &&
			   !setup_queue(fd2, V4L2_BUF_TYPE_VIDEO_OUTPUT, 2));
	usleep(100000);
	metric_set("bufs", read_report((struct dbuf[MAX_BUFS]){}, MAX_BUFS));

	if (file_write("/sys/bus/platform/drivers/dmb_v4l2dec/unbind", pdev))
		t_bail("cannot unbind %s", pdev);
	metric_set("after_unbind", xioctl(fd, VIDIOC_QUERYCAP, &cap));
	b.index = 0;
	metric_set("dqbuf_after", xioctl(fd, VIDIOC_DQBUF, &b));
	/* bound again while the old instance's files are open: refused */
	metric_set("bind_while_open",
		   file_write("/sys/bus/platform/drivers/dmb_v4l2dec/bind", pdev));
	ret = close(fd);
	if (fd2 >= 0)
		ret |= close(fd2);
	metric_set("closed", ret);
	metric_set("left", read_report((struct dbuf[MAX_BUFS]){}, MAX_BUFS));

	if (file_write("/sys/bus/platform/drivers/dmb_v4l2dec/bind", pdev))
		t_bail("cannot bind %s again", pdev);
	metric_set("rebound", !v4l2_find_decoder(label, nnode, sizeof(nnode), npdev, sizeof(npdev)));
	fd = open(nnode, O_RDWR);
	if (fd < 0) {
		metric_set("reopen", -errno);
		return 0;
	}
	metric_set("reopen", setup_queue(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 2));
	close(fd);
	return 0;
}

/* ---- sessions that claim with dmb_alloc() (use_dmb_alloc) -------------- */

/* ms since an arbitrary point */
static double now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

/* the decoder's private controls (drivers/v4l2dec/dmb_v4l2dec.c) */

/* Sessions opened from now on claim with dmb_alloc() (1) or the DMA API */
static void set_path(int dmb)
{
	if (file_write(V4L2DEC_USE_DMB, dmb ? "Y" : "N"))
		t_bail("cannot write %s", V4L2DEC_USE_DMB);
}

static void path_default(void)
{
	file_write(V4L2DEC_USE_DMB, "N");
}

static int ctrl_set(int fd, uint32_t id, int val)
{
	struct v4l2_control c = { .id = id, .value = val };

	return xioctl(fd, VIDIOC_S_CTRL, &c);
}

static int ctrl_get(int fd, uint32_t id)
{
	struct v4l2_control c = { .id = id };
	int ret = xioctl(fd, VIDIOC_G_CTRL, &c);

	return ret ? ret : c.value;
}

/* Wait until the session's prepared claim has ended: 1, or 0 after 60 s */
static int prepared_wait(int fd)
{
	double t0 = now_ms();

	while (ctrl_get(fd, V4L2DEC_CID_PREPARED) != 1 && now_ms() - t0 < 60000)
		usleep(2000);
	return ctrl_get(fd, V4L2DEC_CID_PREPARED) == 1;
}

/* Pages of @d's block claimed through dmb_alloc() (its debugfs), -1 */
static long dec_claimed(const struct dec *d)
{
	char path[160], b[512], *p;
	int ret;

	snprintf(path, sizeof(path), "/sys/kernel/debug/dmb_alloc/%s/info", d->block);
	ret = file_read_str(path, b, sizeof(b));
	if (ret == -ENOENT)
		return 0;	/* no handle, nothing claimed */
	if (ret)
		return -1;
	p = strstr(b, "claimed: ");
	return p ? strtol(p + 9, NULL, 10) : -1;
}

/* dmb_alloc_cancel() gives back a claim under way when it ends: wait */
static long dec_claimed_settled(const struct dec *d, long want)
{
	double t0 = now_ms();

	while (dec_claimed(d) != want && now_ms() - t0 < 20000)
		usleep(5000);
	return dec_claimed(d);
}

/*
 * Pages of @d's CMA area in use, once that settles (20 s at most): its
 * bitmap (CMA debugfs "used") counts a claim under way too
 */
static double dec_held_settled(const struct dec *d)
{
	char path[160], b[32];
	double t0 = now_ms();

	snprintf(path, sizeof(path), "/sys/kernel/debug/cma/%s/used", d->block);
	while (now_ms() - t0 < 20000 &&
	       (file_read_str(path, b, sizeof(b)) || atof(b) != 0))
		usleep(5000);
	return file_read_str(path, b, sizeof(b)) ? -1 : atof(b);
}

static int dec_open(const struct dec *d)
{
	int fd = open(d->node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		t_bail("open %s: %s", d->node, strerror(errno));
	return fd;
}

/* S_FMT of OUTPUT (FWHT) at @w x @h: 0 or -errno */
static int fmt_out(int fd, int w, int h)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };

	f.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	f.fmt.pix.width = w;
	f.fmt.pix.height = h;
	return xioctl(fd, VIDIOC_S_FMT, &f);
}

/* REQBUFS of @count MMAP buffers: how many were allocated, or -errno */
static int reqbufs(int fd, uint32_t type, int count)
{
	struct v4l2_requestbuffers rb = { .count = count, .type = type,
					  .memory = V4L2_MEMORY_MMAP };
	int ret = xioctl(fd, VIDIOC_REQBUFS, &rb);

	return ret ? ret : (int)rb.count;
}

/* User data of fresh base pages, three 256 MiB regions: pages in @d's block */
static size_t fill_regions(const struct dec *d, uint32_t salt)
{
	size_t in = 0, i;

	for (i = 0; i < 3; i++) {
		if (regions[i].p)
			munmap(regions[i].p, regions[i].len);
		if (region_fill(&regions[i], 256 << 20, salt + i, -1))
			t_bail("cannot fill anonymous memory");
		in += region_in(&regions[i], d->base, d->size);
	}
	return in;
}

static size_t regions_in(const struct dec *d)
{
	size_t in = 0, i;

	for (i = 0; i < 3; i++)
		in += region_in(&regions[i], d->base, d->size);
	return in;
}

static size_t regions_bad(void)
{
	size_t bad = 0, i;

	for (i = 0; i < 3; i++)
		bad += region_bad(&regions[i]);
	return bad;
}

/*
 * One session with the block full of user data: REQBUFS 32 OUTPUT buffers
 * of 1920x1088, timed; with @prep_mib, the claim prepared first and waited
 * for (*@prep_ms its time, *@left the user pages still in the block then).
 * Returns the REQBUFS time in ms; the buffers are noted in @d.
 */
static double timed_session(struct dec *d, int dmb, int prep_mib, int wait,
			    uint32_t salt, size_t *before, double *prep_ms,
			    size_t *left, int *count)
{
	double t0, t;
	int fd;

	set_path(dmb);
	*before = fill_regions(d, salt);
	fd = dec_open(d);
	if (fmt_out(fd, 1920, 1088))
		t_bail("S_FMT: %s", strerror(errno));
	*prep_ms = -1;
	if (prep_mib) {
		t0 = now_ms();
		if (ctrl_set(fd, V4L2DEC_CID_PREPARE, prep_mib))
			t_bail("cannot prepare %d MiB: %s", prep_mib, strerror(errno));
		if (wait && prepared_wait(fd))
			*prep_ms = now_ms() - t0;
		*left = regions_in(d);
	}
	t0 = now_ms();
	*count = reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 32);
	t = now_ms() - t0;
	d->n_bufs = 0;
	dec_watch(d);
	close(fd);
	return t;
}

static int dec_outside(const struct dec *d)
{
	int i, outside = 0;

	for (i = 0; i < d->n_bufs; i++)
		outside += d->bufs[i].dma < d->base ||
			   d->bufs[i].dma + d->bufs[i].len > d->base + d->size;
	return outside;
}

/*
 * The prepared claim: with the block full of user data, REQBUFS after the
 * claim was prepared (V4L2_CID_DMB_V4L2DEC_PREPARE, waited for) against a
 * cold REQBUFS through dmb_alloc() and one through the DMA API, in this
 * boot; then what cancels a prepared claim and how its run serves the
 * following requests.
 */
static int prepare(void)
{
	struct dec *d = &decs[0];
	/* 32 OUTPUT buffers of 1920x1088: 32 x 766 pages, 96 MiB will do */
	const long out_pages = 32 * 766;
	size_t before, before_dmb, before_dma, left = 0, dummy;
	double cold_ms, dma_ms, prep_ms, prepared_ms, dummy_ms, nowait_ms;
	int count, count_dmb, count_dma, count_nowait, fd, fd2, outside;
	char path[256];

	atexit(path_default);
	dma_ms = timed_session(d, 0, 0, 0, 0x7100, &before_dma, &dummy_ms, &dummy, &count_dma);
	outside = dec_outside(d);
	cold_ms = timed_session(d, 1, 0, 0, 0x7200, &before_dmb, &dummy_ms, &dummy, &count_dmb);
	outside += dec_outside(d);
	metric_set("claimed_after_cold", dec_claimed(d));
	prepared_ms = timed_session(d, 1, 96, 1, 0x7300, &before, &prep_ms, &left, &count);
	outside += dec_outside(d);
	/* an application that asks for its buffers right after preparing */
	nowait_ms = timed_session(d, 1, 96, 0, 0x7400, &dummy, &dummy_ms, &dummy, &count_nowait);
	outside += dec_outside(d);
	metric_set("bufs_nowait", count_nowait);
	metric_set("nowait_ms", nowait_ms);
	metric_set("user_before", before);
	metric_set("user_before_cold", before_dmb);
	metric_set("user_before_dma", before_dma);
	metric_set("prepared", prep_ms >= 0);
	/* the prepared run, 96 MiB of the block, is emptied of user pages */
	metric_set("prepared_moved", before - left);
	metric_set("bufs", count);
	metric_set("bufs_cold", count_dmb);
	metric_set("bufs_dma", count_dma);
	metric_set("outside", outside);
	metric_set("claimed_after_close", dec_claimed_settled(d, 0));
	metric_set("prepared_ms", prepared_ms);
	metric_set("cold_ms", cold_ms);
	metric_set("dma_ms", dma_ms);
	metric_set("prepared_vs_cold_pct", cold_ms > 0 ? 100 * prepared_ms / cold_ms : -1);
	metric_set("prepared_vs_dma_pct", dma_ms > 0 ? 100 * prepared_ms / dma_ms : -1);
	t_report("REQBUFS of 32 x 3 MiB, the block full of user data: DMA API %.1f ms (%zu user pages in the block), dmb_alloc() %.1f ms (%zu), after a prepared claim %.2f ms (%zu; prepared in %.0f ms): %.2f%% of the cold dmb_alloc() one, %.2f%% of the DMA API one; REQBUFS right after the prepare control %.1f ms (%.1f%% of the cold one)",
		 dma_ms, before_dma, cold_ms, before_dmb, prepared_ms, before,
		 prep_ms, cold_ms > 0 ? 100 * prepared_ms / cold_ms : -1,
		 dma_ms > 0 ? 100 * prepared_ms / dma_ms : -1, nowait_ms,
		 cold_ms > 0 ? 100 * nowait_ms / cold_ms : -1);

	/* what a prepared claim that is not taken leaves: nothing */
	set_path(1);
	fd = dec_open(d);
	metric_set("prepare_close", ctrl_set(fd, V4L2DEC_CID_PREPARE, 64));
	usleep(20000);
	close(fd);
	metric_set("claimed_after_prepare_close", dec_claimed_settled(d, 0));
	fd = dec_open(d);
	metric_set("prepare_zero", ctrl_set(fd, V4L2DEC_CID_PREPARE, 64) ||
		   ctrl_set(fd, V4L2DEC_CID_PREPARE, 0));
	metric_set("prepared_after_zero", ctrl_get(fd, V4L2DEC_CID_PREPARED));
	metric_set("claimed_after_zero", dec_claimed_settled(d, 0));
	/* a second value replaces the first */
	metric_set("prepare_replace", ctrl_set(fd, V4L2DEC_CID_PREPARE, 8) ||
		   ctrl_set(fd, V4L2DEC_CID_PREPARE, 16));
	prepared_wait(fd);
	metric_set("claimed_replaced", dec_claimed_settled(d, 16 << 8));
	/* too small for the request: cancelled, the request claims its own */
	metric_set("prepare_small", ctrl_set(fd, V4L2DEC_CID_PREPARE, 4));
	fmt_out(fd, 1920, 1088);
	metric_set("bufs_small", reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 32));
	metric_set("claimed_small", dec_claimed_settled(d, out_pages));
	metric_set("free_small", reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 0));
	metric_set("claimed_freed", dec_claimed_settled(d, 0));
	/* larger: one run serves OUTPUT, then CAPTURE, and goes with both */
	metric_set("prepare_large", ctrl_set(fd, V4L2DEC_CID_PREPARE, 200));
	prepared_wait(fd);
	metric_set("bufs_large_out", reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 32));
	metric_set("bufs_large_cap", reqbufs(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 1));
	metric_set("claimed_one_run", dec_claimed(d));
	reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 0);
	metric_set("claimed_cap_left", dec_claimed(d));
	reqbufs(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 0);
	metric_set("claimed_both_freed", dec_claimed(d));
	close(fd);
	/* a session of the DMA API has no such control */
	set_path(0);
	fd = dec_open(d);
	metric_set("dma_session_prepare", ctrl_set(fd, V4L2DEC_CID_PREPARE, 4));
	close(fd);
	/* unbound while a file prepares: that file gets ENODEV, all returns */
	set_path(1);
	fd2 = dec_open(d);
	metric_set("prepare_unbind", ctrl_set(fd2, V4L2DEC_CID_PREPARE, 128));
	snprintf(path, sizeof(path), "/sys/bus/platform/drivers/dmb_v4l2dec/unbind");
	metric_set("unbind_preparing", file_write(path, d->pdev));
	metric_set("old_fd_reqbufs", reqbufs(fd2, V4L2_BUF_TYPE_VIDEO_OUTPUT, 2));
	close(fd2);
	/*
	 * The handle went with the instance; a claim still under way ends
	 * and gives its run back: the block's CMA area says when
	 */
	metric_set("claimed_after_unbind", dec_held_settled(d));
	/* and nobody holds the block any more: another device could take it */
	{
		struct dmb_range r[MAX_DMBS];
		int n = read_dmbs(r, MAX_DMBS), i, none = -1;

		for (i = 0; i < n; i++)
			if (r[i].base == d->base)
				none = !strcmp(r[i].owner, "-");
		metric_set("unheld_after_unbind", none);
	}
	snprintf(path, sizeof(path), "/sys/bus/platform/drivers/dmb_v4l2dec/bind");
	metric_set("bind", file_write(path, d->pdev));
	if (dec_find(d, "main"))
		t_bail("main is not back after bind");
	fd = dec_open(d);
	metric_set("rebound_reqbufs", fmt_out(fd, 640, 480) ? -1 :
		   reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 2));
	close(fd);
	metric_set("held_pages", dec_cma_held(d));
	metric_set("corrupt", regions_bad());
	return 0;
}

/*
 * No buffer shows what its pages held: stamped user data fills the block,
 * then every buffer of a REQBUFS is read through mmap() before any QBUF,
 * and one through a dma-buf (EXPBUF) and its mmap().
 */
static int stale(void)
{
	const uint32_t stamp = 0x5354414d;	/* "STAM" */
	struct dec *d = &decs[0];
	size_t stamped = 0, nonzero = 0, words = 0, ds = 0, dn = 0, j, in = 0;
	int fd, n, i;

	for (i = 0; i < 3; i++) {
		size_t k;

		if (region_fill(&regions[i], 256 << 20, 0, -1))
			t_bail("cannot fill anonymous memory");
		for (k = 0; k < regions[i].len / 4; k++)
			((uint32_t *)regions[i].p)[k] = stamp;
		in += region_in(&regions[i], d->base, d->size);
	}
	metric_set("stamped_in_block", in);
	fd = dec_open(d);
	fmt_out(fd, 1920, 1088);
	n = reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 32);
	metric_set("bufs", n);
	for (i = 0; i < n; i++) {
		struct v4l2_buffer b = { .index = i, .type = V4L2_BUF_TYPE_VIDEO_OUTPUT,
					 .memory = V4L2_MEMORY_MMAP };
		uint32_t *w;

		if (xioctl(fd, VIDIOC_QUERYBUF, &b))
			t_bail("QUERYBUF: %s", strerror(errno));
		/* vb2 maps OUTPUT buffers writable only; nothing is written */
		w = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, b.m.offset);
		if (w == MAP_FAILED)
			t_bail("mmap: %s", strerror(errno));
		for (j = 0; j < b.length / 4; j++) {
			stamped += w[j] == stamp;
			nonzero += w[j] != 0;
		}
		words += b.length / 4;
		munmap(w, b.length);
	}
	{
		struct v4l2_exportbuffer e = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT,
					       .index = n - 1, .flags = O_RDONLY };
		uint32_t *w;

		metric_set("expbuf", xioctl(fd, VIDIOC_EXPBUF, &e));
		w = mmap(NULL, 4 << 20 > 3137536 ? 3137536 : 4 << 20, PROT_READ,
			 MAP_SHARED, e.fd, 0);
		metric_set("expbuf_mmap", w == MAP_FAILED ? -errno : 0);
		if (w != MAP_FAILED) {
			for (j = 0; j < 3137536 / 4; j++) {
				ds += w[j] == stamp;
				dn += w[j] != 0;
			}
			munmap(w, 3137536);
		}
		/* the dma-buf keeps its buffer after the queue lets it go */
		reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 0);
		close(fd);
		metric_set("held_with_dmabuf", dec_cma_held(d) > 0);
		close(e.fd);
		metric_set("held_after", dec_cma_held(d));
	}
	metric_set("stamped_words", stamped);
	metric_set("nonzero_words", nonzero);
	metric_set("expbuf_stamped_words", ds);
	metric_set("expbuf_nonzero_words", dn);
	/* the stamped data itself survived the moves */
	for (in = 0, i = 0; i < 3; i++)
		for (j = 0; j < regions[i].len / 4; j++)
			in += ((uint32_t *)regions[i].p)[j] != stamp;
	metric_set("corrupt", in);
	t_report("%zu of %zu words of fresh buffers held another process's stamp, %zu were not zero (dma-buf: %zu, %zu)",
		 stamped, words, nonzero, ds, dn);
	return 0;
}

/*
 * The node's mode decides who opens it: an unprivileged user does not,
 * unless the mode lets everyone; a file root opened and passed on works;
 * the report of physical addresses (debugfs) is root's only.
 */
static int unpriv(void)
{
	struct dec *d = &decs[0];
	struct stat st;
	double r[6] = { 0 };
	int p[2], status = 0, fd;
	pid_t pid;

	if (stat(d->node, &st))
		t_bail("stat %s: %s", d->node, strerror(errno));
	metric_set("node_mode", st.st_mode & 0777);
	fd = dec_open(d);
	if (pipe(p))
		t_bail("pipe");
	pid = fork();
	if (!pid) {
		int nf;

		if (setgid(65534) || setuid(65534) || !getuid())
			_exit(1);
		nf = open(d->node, O_RDWR);
		r[0] = nf < 0 ? -errno : 0;
		r[1] = fmt_out(fd, 640, 480);
		r[2] = reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 2);
		{
			struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT,
						 .memory = V4L2_MEMORY_MMAP };
			void *m = MAP_FAILED;

			if (!xioctl(fd, VIDIOC_QUERYBUF, &b))
				m = mmap(NULL, b.length, PROT_READ | PROT_WRITE,
					 MAP_SHARED, fd, b.m.offset);
			r[3] = m == MAP_FAILED ? -errno : 0;
		}
		nf = open(d->report, O_RDONLY);
		r[4] = nf < 0 ? -errno : 0;
		reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 0);
		if (write(p[1], r, sizeof(r)) != sizeof(r))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], r, sizeof(r)) != sizeof(r))
		t_bail("the unprivileged child failed");
	waitpid(pid, &status, 0);
	metric_set("unpriv_open", r[0]);
	metric_set("passed_fd_fmt", r[1]);
	metric_set("passed_fd_reqbufs", r[2]);
	metric_set("passed_fd_mmap", r[3]);
	metric_set("unpriv_report", r[4]);
	close(fd);
	/* a node made world-writable opens for anyone */
	if (chmod(d->node, 0666))
		t_bail("chmod: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		if (setgid(65534) || setuid(65534) || !getuid())
			_exit(1);
		_exit(open(d->node, O_RDWR) < 0 ? 2 : 0);
	}
	waitpid(pid, &status, 0);
	chmod(d->node, st.st_mode & 07777);
	metric_set("open_0666", WIFEXITED(status) ? -WEXITSTATUS(status) : -99);
	return 0;
}

/*
 * A player killed while its REQBUFS waits behind another session's claim
 * of the same block (the block full of user data: seconds) dies at once,
 * long before that claim ends.
 */
static int killwait(void)
{
	struct dec *d = &decs[0];
	pid_t claimer, waiter;
	int status = 0, go[2];
	double t0, t1;

	set_path(1);
	metric_set("user_before", fill_regions(d, 0x9abc));
	if (pipe(go))
		t_bail("pipe");
	claimer = fork();
	if (!claimer) {
		int fd = dec_open(d);

		/* most of the block: one claim, some room left for the waiter */
		if (ctrl_set(fd, V4L2DEC_CID_PREPARE, (d->size >> 20) - 56))
			_exit(2);
		close(go[0]);
		if (write(go[1], "x", 1) != 1)
			_exit(3);
		fmt_out(fd, 640, 480);
		_exit(reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 1) == 1 ? 0 : 1);
	}
	close(go[1]);
	if (read(go[0], &status, 1) != 1)
		t_bail("the claimer did not start");
	usleep(30000);
	waiter = fork();
	if (!waiter) {
		int fd = dec_open(d);

		fmt_out(fd, 640, 480);
		reqbufs(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 2);
		_exit(0);
	}
	usleep(50000);
	t0 = now_ms();
	kill(waiter, SIGKILL);
	waitpid(waiter, &status, 0);
	t1 = now_ms();
	metric_set("waiter_killed", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	metric_set("kill_to_death_ms", t1 - t0);
	waitpid(claimer, &status, 0);
	metric_set("claim_ms_after_kill", now_ms() - t1);
	/* dead before the claim it waited for ended (see the scenario) */
	metric_set("died_before_claim_end", now_ms() - t1 > t1 - t0);
	metric_set("claimer_ok", WIFEXITED(status) && !WEXITSTATUS(status));
	metric_set("claimed_after", dec_claimed_settled(d, 0));
	metric_set("corrupt", regions_bad());
	t_report("a REQBUFS waiting behind a claim died %.1f ms after SIGKILL; the claim went on for %.0f ms",
		 t1 - t0, now_ms() - t1);
	return 0;
}

/* ---- mmaplock: mmap() and page faults while the same process claims ---- */

static volatile int claiming, mmap_in_claim = -1;
static volatile double fault_gap, mmap_ms = -1, faults_in_claim;
static volatile double mmap_done, claim_done;
static int ml_fd, ml_ret;
static struct v4l2_buffer ml_cap;

static void *claimer(void *arg)
{
	(void)arg;
	claiming = 1;
	/* most of the block: the CAPTURE buffer's run is in it too */
	ml_ret = ctrl_set(ml_fd, V4L2DEC_CID_PREPARE, (decs[0].size >> 20) - 56);
	if (!ml_ret)
		ml_ret = reqbufs(ml_fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, 1);
	claim_done = now_ms();
	claiming = 0;
	return NULL;
}

static void *mapper(void *arg)
{
	double t0;
	void *m;

	(void)arg;
	while (!claiming)
		;
	usleep(50000);		/* well inside the claim */
	t0 = now_ms();
	/* the CAPTURE buffer of the session whose OUTPUT REQBUFS claims */
	m = mmap(NULL, ml_cap.length, PROT_READ, MAP_SHARED, ml_fd, ml_cap.m.offset);
	mmap_done = now_ms();
	mmap_ms = mmap_done - t0;
	mmap_in_claim = claiming && m != MAP_FAILED;
	if (m != MAP_FAILED)
		munmap(m, ml_cap.length);
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

static int mmaplock(void)
{
	struct dec *d = &decs[0];
	pthread_t t1, t2, t3;
	double t0;

	set_path(1);
	ml_fd = dec_open(d);
	fmt_out(ml_fd, 1920, 1088);
	if (reqbufs(ml_fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, 1) != 1)
		t_bail("no CAPTURE buffer");
	ml_cap.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	ml_cap.memory = V4L2_MEMORY_MMAP;
	if (xioctl(ml_fd, VIDIOC_QUERYBUF, &ml_cap))
		t_bail("QUERYBUF: %s", strerror(errno));
	metric_set("user_before", fill_regions(d, 0x1234));
	t0 = now_ms();
	pthread_create(&t2, NULL, mapper, NULL);
	pthread_create(&t3, NULL, faulter, NULL);
	pthread_create(&t1, NULL, claimer, NULL);
	pthread_join(t1, NULL);
	metric_set("claim_ms", now_ms() - t0);
	pthread_join(t2, NULL);
	pthread_join(t3, NULL);
	metric_set("reqbufs", ml_ret);
	metric_set("mmap_ms", mmap_ms);
	metric_set("mmap_in_claim", mmap_in_claim);
	metric_set("claim_after_mmap_ms", claim_done - mmap_done);
	metric_set("faults_in_claim", faults_in_claim);
	metric_set("max_fault_gap_ms", fault_gap);
	t_report("while a REQBUFS claimed for %.0f ms, mmap() of the session's CAPTURE buffer returned in %.1f ms and the longest page fault gap was %.1f ms",
		 claim_done - t0, mmap_ms, fault_gap);
	close(ml_fd);
	metric_set("claimed_after", dec_claimed_settled(d, 0));
	metric_set("corrupt", regions_bad());
	return 0;
}

/* ---- a size change resumed with V4L2_DEC_CMD_START ---------------------- */

/* DQBUF on @type, waiting up to 2 s: 0 or -errno */
static int dq(int fd, uint32_t type, struct v4l2_buffer *b)
{
	struct pollfd p = { .fd = fd, .events = POLLIN | POLLOUT | POLLPRI };
	int i, ret;

	for (i = 0; i < 200; i++) {
		memset(b, 0, sizeof(*b));
		b->type = type;
		b->memory = V4L2_MEMORY_MMAP;
		ret = xioctl(fd, VIDIOC_DQBUF, b);
		if (ret != -EAGAIN)
			return ret;
		poll(&p, 1, 10);
	}
	return -ETIMEDOUT;
}

/*
 * The stateful decoder spec's other way through a size change: CAPTURE
 * buffers large enough for both sizes (CREATE_BUFS), frames 640x480 then
 * 1280x720.  At the change the decoder returns an empty CAPTURE buffer
 * flagged LAST and signals the source change; DQBUF then fails with
 * EPIPE until V4L2_DEC_CMD_START, after which the new frames decode into
 * the same buffers.
 */
static int resume(const char *node)
{
	const size_t big = 1280 * 720 * 3 / 2, chunk = 44 + big;
	const int frames = 6, at = 3;
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	struct v4l2_requestbuffers rb = { .count = 2, .memory = V4L2_MEMORY_MMAP,
					  .type = V4L2_BUF_TYPE_VIDEO_OUTPUT };
	struct v4l2_create_buffers cb = { .count = 2, .memory = V4L2_MEMORY_MMAP };
	struct v4l2_event_subscription sub = { .type = V4L2_EVENT_SOURCE_CHANGE };
	struct v4l2_decoder_cmd dc = { .cmd = V4L2_DEC_CMD_START };
	uint32_t type, *fr;
	uint8_t *in, *out[2];
	struct v4l2_event ev;
	struct v4l2_buffer b;
	int fd, k, i, ret, last = 0, decoded = 0, bad = 0, changes = 0;
	int fmt_ok = 0, waited = 0, epipe = 0, start_ok = 0;
	FILE *src;

	if (write_stream_sizes("/tmp/v4l2-resume.fwht", frames, 640, 480,
			       1280, 720, at, chunk))
		t_bail("cannot write the FWHT stream");
	src = fopen("/tmp/v4l2-resume.fwht", "r");
	fd = open(node, O_RDWR | O_NONBLOCK);
	if (!src || fd < 0)
		t_bail("open: %s", strerror(errno));
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_FWHT;
	f.fmt.pix.width = 1280;
	f.fmt.pix.height = 720;
	if (xioctl(fd, VIDIOC_SUBSCRIBE_EVENT, &sub) ||
	    xioctl(fd, VIDIOC_S_FMT, &f) || xioctl(fd, VIDIOC_REQBUFS, &rb) ||
	    rb.count < 1)
		t_bail("OUTPUT setup: %s", strerror(errno));
	memset(&b, 0, sizeof(b));
	b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	b.memory = V4L2_MEMORY_MMAP;
	if (xioctl(fd, VIDIOC_QUERYBUF, &b))
		t_bail("QUERYBUF: %s", strerror(errno));
	in = mmap(NULL, b.length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, b.m.offset);
	if (in == MAP_FAILED || b.length < chunk)
		t_bail("mmap OUTPUT: %s", strerror(errno));
	type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
	if (xioctl(fd, VIDIOC_STREAMON, &type))
		t_bail("STREAMON OUTPUT: %s", strerror(errno));

	/* CAPTURE buffers for the larger size, from the start */
	cb.format.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (xioctl(fd, VIDIOC_G_FMT, &cb.format))
		t_bail("G_FMT CAPTURE: %s", strerror(errno));
	cb.format.fmt.pix.sizeimage = big;
	if (xioctl(fd, VIDIOC_CREATE_BUFS, &cb) || cb.count != 2)
		t_bail("CREATE_BUFS: %s", strerror(errno));
	for (i = 0; i < 2; i++) {
		memset(&b, 0, sizeof(b));
		b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
		b.memory = V4L2_MEMORY_MMAP;
		b.index = i;
		if (xioctl(fd, VIDIOC_QUERYBUF, &b) || b.length < big)
			t_bail("QUERYBUF CAPTURE: %s", strerror(errno));
		out[i] = mmap(NULL, b.length, PROT_READ, MAP_SHARED, fd, b.m.offset);
		if (out[i] == MAP_FAILED || xioctl(fd, VIDIOC_QBUF, &b))
			t_bail("CAPTURE buffer %d: %s", i, strerror(errno));
	}
	type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	if (xioctl(fd, VIDIOC_STREAMON, &type))
		t_bail("STREAMON CAPTURE: %s", strerror(errno));

	for (k = 0; k < frames; k++) {
		/* one frame in the OUTPUT buffer (index 0), wait for it back */
		if (fread(in, chunk, 1, src) != 1)
			t_bail("short stream");
		memset(&b, 0, sizeof(b));
		b.type = V4L2_BUF_TYPE_VIDEO_OUTPUT;
		b.memory = V4L2_MEMORY_MMAP;
		b.bytesused = chunk;
		if (xioctl(fd, VIDIOC_QBUF, &b))
			t_bail("QBUF OUTPUT %d: %s", k, strerror(errno));
		ret = dq(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, &b);
		if (!ret && (b.flags & V4L2_BUF_FLAG_LAST)) {
			struct v4l2_format g = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
			struct v4l2_buffer ob = { .type = V4L2_BUF_TYPE_VIDEO_OUTPUT,
						  .memory = V4L2_MEMORY_MMAP };
			unsigned int li = b.index;

			/* the size change: LAST, an event, the new format */
			last += !b.bytesused;
			if (!xioctl(fd, VIDIOC_DQEVENT, &ev) &&
			    ev.type == V4L2_EVENT_SOURCE_CHANGE &&
			    (ev.u.src_change.changes & V4L2_EVENT_SRC_CH_RESOLUTION))
				changes++;
			fmt_ok += !xioctl(fd, VIDIOC_G_FMT, &g) &&
				  g.fmt.pix.width == (k < at ? 640u : 1280u);
			/* the frame waits, CAPTURE says EPIPE, until START */
			waited += xioctl(fd, VIDIOC_DQBUF, &ob) == -EAGAIN;
			epipe += dq(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, &b) == -EPIPE;
			start_ok += !xioctl(fd, VIDIOC_DECODER_CMD, &dc);
			memset(&b, 0, sizeof(b));
			b.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
			b.memory = V4L2_MEMORY_MMAP;
			b.index = li;
			if (xioctl(fd, VIDIOC_QBUF, &b)) {
				t_diag("QBUF of the LAST buffer: %s", strerror(errno));
				bad++;
			}
			ret = dq(fd, V4L2_BUF_TYPE_VIDEO_CAPTURE, &b);
		}
		if (ret) {
			t_diag("frame %d: DQBUF CAPTURE: %s", k, strerror(-ret));
			bad++;
		} else {
			size_t want = k < at ? 640 * 480 * 3 / 2 : big;

			fr = (uint32_t *)out[b.index];
			if (b.bytesused != want || fr[0] != FRAME_MAGIC ||
			    fr[2] != sums[k] || fr[3] != lens[k]) {
				t_diag("frame %d: %u bytes, magic %#x, sum %#x (want %#x)",
				       k, b.bytesused, fr[0], fr[2], sums[k]);
				bad++;
			} else {
				decoded++;
			}
			if (xioctl(fd, VIDIOC_QBUF, &b))
				t_diag("QBUF CAPTURE: %s", strerror(errno));
		}
		/* the OUTPUT buffer is done with */
		if (dq(fd, V4L2_BUF_TYPE_VIDEO_OUTPUT, &b))
			t_bail("frame %d: DQBUF OUTPUT", k);
	}
	metric_set("last", last);
	metric_set("source_changes", changes);
	metric_set("fmt_ok", fmt_ok);
	metric_set("waited", waited);
	metric_set("epipe", epipe);
	metric_set("start_ok", start_ok);
	metric_set("frames", decoded);
	metric_set("bad_frames", bad);
	t_report("%s: %d frames across a size change resumed with V4L2_DEC_CMD_START, %d bad",
		 node, decoded, bad);
	fclose(src);
	close(fd);
	unlink("/tmp/v4l2-resume.fwht");
	return 0;
}

/*
 * Load the decoder; sessions opened from now on take their buffers
 * through the DMA API, or with --path=dmb through dmb_alloc()
 */
static void load_path(const char *path)
{
	if (load_module("dmb_v4l2dec"))
		t_bail("cannot load dmb_v4l2dec");
	set_path(path && !strcmp(path, "dmb"));
	t_diag("sessions take their buffers %s",
	       path && !strcmp(path, "dmb") ? "with dmb_alloc()" : "through the DMA API");
}

int main(int argc, char **argv)
{
	const char *test = opt_get(argc, argv, "test");
	const char *label = opt_get(argc, argv, "label");
	const char *path = opt_get(argc, argv, "path");
	char node[64], pdev[128];
	int ret;

	t_init("v4l2");
	if (path && strcmp(path, "dma") && strcmp(path, "dmb"))
		t_bail("--path=dma or --path=dmb, not %s", path);
	if (test && (!strcmp(test, "playback") || !strcmp(test, "stress") ||
		     !strcmp(test, "dmabuf") || !strcmp(test, "resize") ||
		     !strcmp(test, "prepare") || !strcmp(test, "stale") ||
		     !strcmp(test, "unpriv") || !strcmp(test, "killwait") ||
		     !strcmp(test, "mmaplock"))) {
		load_path(path);
		if (!strcmp(test, "playback"))
			playback(argc, argv);
		else if (!strcmp(test, "dmabuf"))
			dmabuf(argc, argv);
		else if (!strcmp(test, "stress"))
			stress(argc, argv);
		else if (dec_find(&decs[0], "main"))
			t_bail("no decoder labelled main, or it owns no DMB");
		else if (!strcmp(test, "resize"))
			resize();
		else if (!strcmp(test, "prepare"))
			prepare();
		else if (!strcmp(test, "stale"))
			stale();
		else if (!strcmp(test, "unpriv"))
			unpriv();
		else if (!strcmp(test, "killwait"))
			killwait();
		else
			mmaplock();
		check_expectations(argc, argv);
		return t_finish();
	}
	if (!test || !label)
		t_bail("usage: v4l2 --test=compliance|stream|unbind --label=<label> ..., or --test=playback|stress|dmabuf|resize|prepare|stale|unpriv|killwait|mmaplock");
	load_path(path);
	ret = v4l2_find_decoder(label, node, sizeof(node), pdev, sizeof(pdev));
	if (ret)
		t_bail("no decoder labelled %s: %s", label, strerror(-ret));
	t_diag("decoder %s: %s (%s)", label, node, pdev);
	snprintf(report, sizeof(report), "/sys/kernel/debug/dmb_v4l2dec/%s/buffers", pdev);

	if (!strcmp(test, "compliance"))
		metric_set("exit", compliance(node, opt_get(argc, argv, "args")));
	else if (!strcmp(test, "stream"))
		stream(argc, argv, node);
	else if (!strcmp(test, "unbind"))
		unbind(label, node, pdev);
	else if (!strcmp(test, "resume"))
		resume(node);
	else
		t_bail("unknown --test=%s", test);
	check_expectations(argc, argv);
	return t_finish();
}
