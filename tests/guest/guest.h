/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small library shared by the in-guest check programs: KTAP output, metrics
 * checked against expectations given on the command line, and readers for
 * what every check needs (/proc/zoneinfo, /proc/meminfo, pagemap, and the
 * DRAM controller ranges from the device tree).
 */
#ifndef DMB_GUEST_H
#define DMB_GUEST_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define MAX_CTRL	8
#define MAX_METRICS	256

/* ---- KTAP ------------------------------------------------------------ */

/*
 * A check program is one KTAP subtest.  Results are buffered and printed by
 * t_finish(), which also returns the exit status for main(): 0 if every
 * result passed (or was skipped), 1 otherwise.
 */
void t_init(const char *name);
void t_result(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void t_skip(const char *why, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A diagnostic line ("# ...") kept in order with the results. */
void t_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A diagnostic the host runner also shows in its summary ("# report: ..."). */
void t_report(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Printed at once, for progress in long checks. */
void t_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int t_finish(void);
/* Stop now: one failed result naming the reason, then t_finish(). */
void t_bail(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/* ---- metrics and expectations ---------------------------------------- */

/* Record a named number (pages, bytes, percent...). */
void metric_set(const char *name, double value);
int metric_get(const char *name, double *value);

/*
 * Check every argument of the form NAME OP VALUE (OP one of = != < <= > >=)
 * against the recorded metrics, one KTAP result each; an unknown metric or
 * a malformed argument is a failed result that says so.  Arguments starting
 * with "--" are options of the program and are skipped here.  Every metric
 * is printed as a diagnostic first, so logs carry the measured numbers.
 */
void check_expectations(int argc, char **argv);

/* "--name=value" option lookup; NULL when absent. */
const char *opt_get(int argc, char **argv, const char *name);
/* Parse 123, 0x1f, 4K, 256M, 2G; returns -1 on malformed input. */
int64_t parse_size(const char *s);

/* ---- system readers --------------------------------------------------- */

struct ctrl {
	char label[32];
	uint64_t base;
	uint64_t size;
};

/* DRAM controllers from /proc/device-tree/dram-controllers; count or -1. */
int read_controllers(struct ctrl *c, int max);
/* Index of the controller holding physical address pa, or -1. */
int ctrl_of(const struct ctrl *c, int n, uint64_t pa);

struct zone_info {
	char name[16];
	uint64_t start_pfn;
	uint64_t spanned;
	uint64_t present;
	uint64_t managed;
	uint64_t free;
};

/* Zones of node 0 from /proc/zoneinfo; count or -1. */
int read_zones(struct zone_info *z, int max);

#define MAX_DMBS	32

struct dmb_range {
	uint64_t base;
	uint64_t size;
	int from_dt;
	char name[96];
	char owner[64];
};

/*
 * Designated Movable Blocks, in address order, from the kernel's list
 * /sys/kernel/debug/dmb/blocks (or, without it, memblock's MOVABLE memory
 * regions merged where adjacent); count or -1.
 */
int read_dmbs(struct dmb_range *d, int max);

/* A /proc/meminfo field in kB, or -1 if absent. */
int64_t meminfo_kb(const char *field);
int64_t vmstat(const char *field);
/*
 * Free memory in kB: MemFree and the pages on the per-CPU free lists,
 * which MemFree leaves out (a page freed goes there first); -1 on error.
 */
int64_t free_kb(void);

/* PFN backing a virtual address of this process, 0 if not present. */
uint64_t virt_to_pfn(const void *addr);
/*
 * PFNs backing @n pages from page-aligned @addr, 0 where not present, read
 * from pagemap 512 at a time (a read a page costs the debug kernel most of
 * a millisecond); 0, or -1 if pagemap cannot be read.
 */
int virt_to_pfns(const void *addr, size_t n, uint64_t *pfn);
/* Of @n pages from @addr, how many lie in physical [base, base+size) */
size_t pages_in_range(const void *addr, size_t n, uint64_t base, uint64_t size);

long page_size(void);

/* Write a string to a (sysfs, debugfs...) file, truncating; 0 or -errno. */
int file_write(const char *path, const char *s);
/* Read a file into a NUL-terminated buffer; 0 or -errno. */
int file_read_str(const char *path, char *buf, size_t len);
/*
 * Does @text hold @v in hex as a token of its own ("67e00" or "0x67e00",
 * not inside a longer hex number), in any case?  To find a page frame
 * number in a log whatever its format.
 */
int text_has_hex(const char *text, unsigned long long v);

/*
 * Checksummed user data: one word every 256 bytes, a function of its index
 * and a salt, so a lost or moved-and-damaged page shows.
 */
struct user_region {
	char *p;
	size_t len;
	uint32_t salt;
};

/* Map @len bytes (anonymous, or shared of file @fd sized to @len) and stamp them; 0 or -1 */
int region_fill(struct user_region *r, size_t len, uint32_t salt, int fd);
/* Pages of @r whose stamp changed */
size_t region_bad(const struct user_region *r);
/* Present pages of @r in physical [base, base+size) */
size_t region_in(const struct user_region *r, uint64_t base, uint64_t size);

/*
 * Run av[0] (an absolute path) with av, its output kept as diagnostics;
 * line_cb (may be NULL) sees each line.  With tick, the output goes to a
 * file and tick runs every 2 ms until the program exits.  Returns its exit
 * status, 128 + the signal that killed it, or 127 if it could not run.
 */
int run_program(char **av, void (*line_cb)(const char *), void (*tick)(void));

/*
 * The sample decoder's interface for sessions that claim with dmb_alloc()
 * (drivers/v4l2dec/dmb_v4l2dec.c): the module parameter read at open, and
 * its two private controls (the IDs need <linux/videodev2.h>)
 */
#define V4L2DEC_USE_DMB	"/sys/module/dmb_v4l2dec/parameters/use_dmb_alloc"
#define V4L2DEC_CID_PREPARE	(V4L2_CID_USER_BASE | 0xf000)	/* MiB to claim */
#define V4L2DEC_CID_PREPARED	(V4L2_CID_USER_BASE | 0xf001)	/* it ended */

/* Load /lib/modules/<name>.ko unless loaded; 0 on success. */
/*
 * /dev/videoN and the platform device name of the V4L2 sample decoder
 * labelled @label (its video device is "dmb_v4l2dec <label>"); 0 or -errno.
 */
int v4l2_find_decoder(const char *label, char *node, size_t nlen,
		      char *pdev, size_t plen);
/*
 * Take a dmb_alloc handle on the block of device tree node @node with the
 * dmb_test module, and find the block's /sys/kernel/debug/dmb_alloc
 * directory; 0 with @dir, *@base and *@size, or -1.
 */
int dmb_alloc_take(const char *node, char *dir, size_t dlen, uint64_t *base,
		   uint64_t *size);
/*
 * The dmb_test claim file @file ("alloc", "free", "prep") of the block whose
 * dmb_alloc directory is @dir, in @buf; returns @buf.
 */
const char *dmb_test_file(const char *dir, const char *file, char *buf,
			  size_t len);
int load_module(const char *name);
/* The same with module parameters ("a=1 b=2") for <name> itself. */
int load_module_args(const char *name, const char *args);

/* ---- background load (stress checks) ---------------------------------- */

/*
 * Children that load the system until SIGTERM, checking their own data;
 * each exits 1 if it found damage (2 if it could not run).
 * load_hog: re-fills and checks @len bytes of anonymous memory, again
 * and again.  load_churn: page cache churn on /mnt/churn (a mounted
 * disk): write, fsync now and then, read back.
 */
int load_hog(size_t len);
int load_churn(size_t len);
/*
 * load_splice: user pages referenced from a pipe (vmsplice) until it is
 * read, checked on the other side; load_memfd: a memfd written, mapped
 * again and checked; load_madvise: pages made cold and dropped
 * (MADV_COLD, MADV_DONTNEED), checked; load_fork: copy-on-write in a
 * forked child, both sides checked.
 */
int load_splice(size_t len);
int load_memfd(size_t len);
int load_madvise(size_t len);
int load_fork(size_t len);
/* Run fn(arg) in a child that stops on SIGTERM; its pid, or -1. */
pid_t load_spawn(int (*fn)(size_t), size_t arg);
/*
 * Stop and reap @n of them (pids 0 skipped); how many were damaged, a pid
 * below 0 (one that could not start) counted as damaged.
 */
int load_end(pid_t *pids, int n);

#endif
