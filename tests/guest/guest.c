// SPDX-License-Identifier: GPL-2.0
/*
 * Shared code of the in-guest check programs; see guest.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/syscall.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <stdio.h>
#include <unistd.h>

#include "guest.h"

/* ---- KTAP ------------------------------------------------------------ */

static const char *t_name = "check";
static char *t_buf;
static size_t t_len, t_cap;
static int t_count, t_failed;

static void t_append(const char *fmt, va_list ap)
{
	char line[1024];
	size_t n;

	n = vsnprintf(line, sizeof(line), fmt, ap);
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	if (t_len + n + 8 > t_cap) {
		t_cap = (t_cap + n + 8) * 2;
		t_buf = realloc(t_buf, t_cap);
		if (!t_buf) {
			perror("realloc");
			exit(1);
		}
	}
	memcpy(t_buf + t_len, "    ", 4);
	memcpy(t_buf + t_len + 4, line, n);
	t_len += 4 + n;
	t_buf[t_len++] = '\n';
}

static void t_appendf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	t_append(fmt, ap);
	va_end(ap);
}

void t_init(const char *name)
{
	t_name = name;
	setvbuf(stdout, NULL, _IOLBF, 0);
}

void t_result(int ok, const char *fmt, ...)
{
	char desc[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	t_count++;
	if (!ok)
		t_failed++;
	t_appendf("%s %d %s", ok ? "ok" : "not ok", t_count, desc);
}

void t_skip(const char *why, const char *fmt, ...)
{
	char desc[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	t_count++;
	t_appendf("ok %d %s # SKIP %s", t_count, desc, why);
}

void t_diag(const char *fmt, ...)
{
	char line[1000];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t_appendf("# %s", line);
}

void t_report(const char *fmt, ...)
{
	char line[1000];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	t_appendf("# report: %s: %s", t_name, line);
}

void t_info(const char *fmt, ...)
{
	va_list ap;

	printf("    # %s: ", t_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int t_finish(void)
{
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n",
	       t_name, t_count);
	if (t_len)
		fwrite(t_buf, 1, t_len, stdout);
	fflush(stdout);
	return t_failed ? 1 : 0;
}

void t_bail(const char *fmt, ...)
{
	char desc[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(desc, sizeof(desc), fmt, ap);
	va_end(ap);
	t_result(0, "%s", desc);
	exit(t_finish());
}

/* ---- metrics ----------------------------------------------------------- */

static struct {
	char name[64];
	double value;
} metrics[MAX_METRICS];
static int n_metrics;

void metric_set(const char *name, double value)
{
	int i;

	for (i = 0; i < n_metrics; i++)
		if (!strcmp(metrics[i].name, name))
			break;
	if (i == n_metrics) {
		if (n_metrics == MAX_METRICS)
			t_bail("too many metrics (max %d)", MAX_METRICS);
		snprintf(metrics[i].name, sizeof(metrics[i].name), "%s", name);
		n_metrics++;
	}
	metrics[i].value = value;
}

int metric_get(const char *name, double *value)
{
	int i;

	for (i = 0; i < n_metrics; i++) {
		if (!strcmp(metrics[i].name, name)) {
			*value = metrics[i].value;
			return 0;
		}
	}
	return -1;
}

static const char *fmt_num(double v, char *buf, size_t len)
{
	if (v == (double)(int64_t)v) {
		if (v >= 65536)
			snprintf(buf, len, "%lld (0x%llx)", (long long)v,
				 (unsigned long long)v);
		else
			snprintf(buf, len, "%lld", (long long)v);
	} else {
		snprintf(buf, len, "%.2f", v);
	}
	return buf;
}

void check_expectations(int argc, char **argv)
{
	char buf[64];
	int i;

	for (i = 0; i < n_metrics; i++)
		t_diag("%s=%s", metrics[i].name,
		       fmt_num(metrics[i].value, buf, sizeof(buf)));

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i], *op, *val;
		char name[64], opstr[3] = "", *end;
		double have, want;
		int ok;

		if (!strncmp(arg, "--", 2))
			continue;
		op = arg + strcspn(arg, "<>=!");
		if (!*op || op == arg || op - arg >= (int)sizeof(name)) {
			t_result(0, "%s # malformed expectation, want NAME OP VALUE", arg);
			continue;
		}
		snprintf(name, sizeof(name), "%.*s", (int)(op - arg), arg);
		opstr[0] = op[0];
		if (op[1] == '=' && op[0] != '=')
			opstr[1] = '=';
		val = op + strlen(opstr);
		if (!strcmp(opstr, "!")) {
			t_result(0, "%s # malformed operator, want = != < <= > >=", arg);
			continue;
		}
		errno = 0;
		want = strtod(val, &end);
		if (!*val || *end || errno) {
			int64_t sz = parse_size(val);

			if (sz < 0) {
				t_result(0, "%s # bad value '%s'", arg, val);
				continue;
			}
			want = (double)sz;
		}
		if (metric_get(name, &have)) {
			t_result(0, "%s # unknown metric '%s'", arg, name);
			continue;
		}
		if (!strcmp(opstr, "="))
			ok = have == want;
		else if (!strcmp(opstr, "!="))
			ok = have != want;
		else if (!strcmp(opstr, "<"))
			ok = have < want;
		else if (!strcmp(opstr, "<="))
			ok = have <= want;
		else if (!strcmp(opstr, ">"))
			ok = have > want;
		else
			ok = have >= want;
		t_result(ok, "%s (got %s)", arg, fmt_num(have, buf, sizeof(buf)));
	}
}

const char *opt_get(int argc, char **argv, const char *name)
{
	size_t n = strlen(name);
	int i;

	for (i = 1; i < argc; i++)
		if (!strncmp(argv[i], "--", 2) &&
		    !strncmp(argv[i] + 2, name, n)) {
			if (argv[i][2 + n] == '=')
				return argv[i] + 3 + n;
			if (!argv[i][2 + n])	/* a flag: --name */
				return "";
		}
	return NULL;
}

int64_t parse_size(const char *s)
{
	unsigned long long v;
	char *end;

	if (!s || !isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno)
		return -1;
	switch (*end) {
	case 'G': case 'g': v <<= 10; /* fall through */
	case 'M': case 'm': v <<= 10; /* fall through */
	case 'K': case 'k': v <<= 10; end++; break;
	case '\0': break;
	default: return -1;
	}
	return *end ? -1 : (int64_t)v;
}

/* ---- system readers ---------------------------------------------------- */

/* Up to @len bytes of @path; files such as tracefs' "trace" come a page a read */
static int read_file(const char *path, void *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	size_t off = 0;
	ssize_t n = 0;

	if (fd < 0)
		return -1;
	while (off < len && (n = read(fd, (char *)buf + off, len - off)) > 0)
		off += n;
	close(fd);
	return n < 0 && !off ? -1 : (int)off;
}

int file_write(const char *path, const char *s)
{
	/* O_TRUNC: tracefs clears its "trace" file only when truncated */
	int fd = open(path, O_WRONLY | O_TRUNC), ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int is_hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       (c >= 'A' && c <= 'F');
}

int text_has_hex(const char *text, unsigned long long v)
{
	char lo[24], up[24];
	const char *needles[2] = { lo, up }, *h;
	size_t len;
	int k;

	len = snprintf(lo, sizeof(lo), "%llx", v);
	snprintf(up, sizeof(up), "%llX", v);
	for (k = 0; k < 2; k++)
		for (h = text; (h = strstr(h, needles[k])); h++)
			if ((h == text || !is_hex_digit(h[-1])) &&
			    !is_hex_digit(h[len]))
				return 1;
	return 0;
}

int file_read_str(const char *path, char *buf, size_t len)
{
	int n = read_file(path, buf, len - 1);

	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static uint64_t be_cells(const unsigned char *p, int cells)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < cells * 4; i++)
		v = (v << 8) | p[i];
	return v;
}

static int cmp_ctrl(const void *a, const void *b)
{
	const struct ctrl *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

int read_controllers(struct ctrl *c, int max)
{
	const char *dir = "/proc/device-tree/dram-controllers";
	unsigned char cells[4], reg[16];
	int n = 0, ac, sc;
	char path[512];
	struct dirent *de;
	DIR *d;

	snprintf(path, sizeof(path), "%s/#address-cells", dir);
	if (read_file(path, cells, 4) != 4)
		return -1;
	ac = be_cells(cells, 1);
	snprintf(path, sizeof(path), "%s/#size-cells", dir);
	if (read_file(path, cells, 4) != 4)
		return -1;
	sc = be_cells(cells, 1);
	if (ac < 1 || ac > 2 || sc < 1 || sc > 2)
		return -1;

	d = opendir(dir);
	if (!d)
		return -1;
	while ((de = readdir(d)) && n < max) {
		if (strncmp(de->d_name, "dram-controller@", 16))
			continue;
		snprintf(path, sizeof(path), "%s/%s/reg", dir, de->d_name);
		if (read_file(path, reg, sizeof(reg)) != (ac + sc) * 4)
			continue;
		c[n].base = be_cells(reg, ac);
		c[n].size = be_cells(reg + ac * 4, sc);
		snprintf(path, sizeof(path), "%s/%s/label", dir, de->d_name);
		memset(c[n].label, 0, sizeof(c[n].label));
		if (read_file(path, c[n].label, sizeof(c[n].label) - 1) <= 0)
			snprintf(c[n].label, sizeof(c[n].label), "%s", de->d_name);
		n++;
	}
	closedir(d);
	qsort(c, n, sizeof(*c), cmp_ctrl);
	return n;
}

int ctrl_of(const struct ctrl *c, int n, uint64_t pa)
{
	int i;

	for (i = 0; i < n; i++)
		if (pa >= c[i].base && pa - c[i].base < c[i].size)
			return i;
	return -1;
}

int read_zones(struct zone_info *z, int max)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	char line[256], name[16];
	unsigned long long v;
	int n = -1, node;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Node %d, zone %15s", &node, name) == 2) {
			if (node != 0 || n + 1 >= max) {
				n = n < 0 ? -1 : n;
				if (node != 0)
					break;
				continue;
			}
			n++;
			memset(&z[n], 0, sizeof(z[n]));
			snprintf(z[n].name, sizeof(z[n].name), "%s", name);
			continue;
		}
		if (n < 0)
			continue;
		if (sscanf(line, " spanned %llu", &v) == 1)
			z[n].spanned = v;
		else if (sscanf(line, " present %llu", &v) == 1)
			z[n].present = v;
		else if (sscanf(line, " managed %llu", &v) == 1)
			z[n].managed = v;
		else if (sscanf(line, " start_pfn: %llu", &v) == 1)
			z[n].start_pfn = v;
		else if (sscanf(line, " pages free %llu", &v) == 1)
			z[n].free = v;
	}
	fclose(f);
	return n + 1;
}

int read_dmbs(struct dmb_range *d, int max)
{
	FILE *f = fopen("/sys/kernel/debug/dmb/blocks", "r");
	unsigned long long s, e;
	char line[512], name[256], source[16], owner[128];
	int n = 0, i, j;

	if (f) {
		/* "name base size source owner", one block per line */
		while (fgets(line, sizeof(line), f) && n < max) {
			if (line[0] == '#' ||
			    sscanf(line, "%255s %llx %llx %15s %127s", name, &s, &e,
				   source, owner) != 5)
				continue;
			memset(&d[n], 0, sizeof(d[n]));
			d[n].base = s;
			d[n].size = e;
			d[n].from_dt = !strcmp(source, "dt");
			snprintf(d[n].name, sizeof(d[n].name), "%s", name);
			snprintf(d[n].owner, sizeof(d[n].owner), "%s", owner);
			n++;
		}
		fclose(f);
		/* address order, whatever the declaration order */
		for (i = 1; i < n; i++)
			for (j = i; j > 0 && d[j].base < d[j - 1].base; j--) {
				struct dmb_range t = d[j];

				d[j] = d[j - 1];
				d[j - 1] = t;
			}
		return n;
	}

	/* Older kernels of the series: memblock's MOVABLE memory regions */
	f = fopen("/sys/kernel/debug/memblock/memory", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, "MOVABLE"))
			continue;
		if (sscanf(line, " %*d: %llx..%llx", &s, &e) != 2)
			continue;
		if (n && d[n - 1].base + d[n - 1].size == s) {
			d[n - 1].size += e + 1 - s;
			continue;
		}
		if (n == max)
			break;
		memset(&d[n], 0, sizeof(d[n]));
		d[n].base = s;
		d[n].size = e + 1 - s;
		n++;
	}
	fclose(f);
	return n;
}

/* A counter of /proc/vmstat, or -1 */
int64_t vmstat(const char *field)
{
	FILE *f = fopen("/proc/vmstat", "r");
	size_t n = strlen(field);
	char line[128];
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ' ') {
			v = strtoll(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

int64_t meminfo_kb(const char *field)
{
	FILE *f = fopen("/proc/meminfo", "r");
	size_t n = strlen(field);
	char line[256];
	long long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, field, n) && line[n] == ':') {
			v = strtoll(line + n + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

int64_t free_kb(void)
{
	FILE *f = fopen("/proc/zoneinfo", "r");
	int64_t v = meminfo_kb("MemFree");
	long long n, pcp = 0;
	char line[256];

	if (!f || v < 0) {
		if (f)
			fclose(f);
		return -1;
	}
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, " count: %lld", &n) == 1)
			pcp += n;
	fclose(f);
	return v + pcp * (page_size() >> 10);
}

/*
 * This process's pagemap: opened again after a fork, as /proc/self was
 * resolved when the parent opened it
 */
static int pagemap_fd(void)
{
	static pid_t owner;
	static int fd = -1;

	if (fd >= 0 && owner != getpid()) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
		owner = getpid();
	}
	return fd;
}

uint64_t virt_to_pfn(const void *addr)
{
	uint64_t pfn;

	return virt_to_pfns(addr, 1, &pfn) ? 0 : pfn;
}

int virt_to_pfns(const void *addr, size_t n, uint64_t *pfn)
{
	off_t off = (uintptr_t)addr / page_size() * sizeof(uint64_t);
	int fd = pagemap_fd();
	uint64_t ent[512];
	size_t i, k, chunk;
	ssize_t got;

	if (fd < 0)
		return -1;
	for (i = 0; i < n; i += chunk) {
		chunk = n - i < 512 ? n - i : 512;
		got = pread(fd, ent, chunk * sizeof(ent[0]),
			    off + i * sizeof(ent[0]));
		if (got != (ssize_t)(chunk * sizeof(ent[0])))
			return -1;
		for (k = 0; k < chunk; k++)
			pfn[i + k] = ent[k] >> 63 ? ent[k] & ((1ULL << 55) - 1) : 0;
	}
	return 0;
}

size_t pages_in_range(const void *addr, size_t n, uint64_t base, uint64_t size)
{
	uint64_t pfn[512];
	size_t i, k, chunk, in = 0;
	long ps = page_size();

	for (i = 0; i < n; i += chunk) {
		chunk = n - i < 512 ? n - i : 512;
		if (virt_to_pfns((const char *)addr + i * ps, chunk, pfn))
			t_bail("cannot read /proc/self/pagemap");
		for (k = 0; k < chunk; k++)
			in += pfn[k] && pfn[k] * ps >= base && pfn[k] * ps < base + size;
	}
	return in;
}

long page_size(void)
{
	static long ps;

	if (!ps)
		ps = sysconf(_SC_PAGESIZE);
	return ps;
}

/* The "depends=" list of a module file's modinfo, or "" */
static void module_depends(const char *path, char *out, size_t len)
{
	static char buf[4 << 20];
	ssize_t n, i;
	int fd = open(path, O_RDONLY);

	out[0] = '\0';
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	for (i = 0; n > 8 && i < n - 8; i++)
		if (!memcmp(buf + i, "depends=", 8)) {
			snprintf(out, len, "%s", buf + i + 8);
			return;
		}
}

int load_module(const char *name)
{
	return load_module_args(name, "");
}

int load_module_args(const char *name, const char *args)
{
	char path[256], deps[256], *dep, *save;
	int fd, ret;

	snprintf(path, sizeof(path), "/lib/modules/%s.ko", name);
	/* load what it depends on first (the modinfo depends= list) */
	module_depends(path, deps, sizeof(deps));
	for (dep = strtok_r(deps, ",", &save); dep; dep = strtok_r(NULL, ",", &save))
		if (load_module(dep))
			return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = syscall(SYS_finit_module, fd, args, 0);
	close(fd);
	if (ret && errno != EEXIST)
		return -1;
	return 0;
}

/* ---- checksummed user data ---------------------------------------------- */

static uint32_t region_word(uint32_t salt, size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ salt;
}

int region_fill(struct user_region *r, size_t len, uint32_t salt, int fd)
{
	size_t i;

	r->len = len;
	r->salt = salt;
	if (fd >= 0 && ftruncate(fd, len))
		return -1;
	r->p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		    fd >= 0 ? MAP_SHARED : MAP_PRIVATE | MAP_ANONYMOUS, fd, 0);
	if (r->p == MAP_FAILED)
		return -1;
	for (i = 0; i < len / 4; i += 64)
		((uint32_t *)r->p)[i] = region_word(salt, i);
	return 0;
}

size_t region_bad(const struct user_region *r)
{
	size_t i, bad = 0, last = (size_t)-1;
	long ps = page_size();

	for (i = 0; i < r->len / 4; i += 64)
		if (((uint32_t *)r->p)[i] != region_word(r->salt, i) &&
		    i * 4 / ps != last) {
			last = i * 4 / ps;
			bad++;
		}
	return bad;
}

size_t region_in(const struct user_region *r, uint64_t base, uint64_t size)
{
	return pages_in_range(r->p, r->len / page_size(), base, size);
}

/* ---- running other programs -------------------------------------------- */

/*
 * Run argv with its output kept as diagnostics; line_cb sees each line.
 * With tick, the output goes to a file and tick runs every 2 ms until
 * the program exits: the caller watches the system meanwhile.  The
 * program runs in its own directory, as run_vmtests.sh runs the mm
 * selftests (ksm_functional_tests re-executes "./ksm_functional_tests").
 */
int run_program(char **av, void (*line_cb)(const char *), void (*tick)(void))
{
	static const char *log = "/tmp/run-program.log";
	char line[1024];
	int fds[2], status;
	pid_t pid;
	FILE *p;

	if (tick) {
		fds[1] = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		fds[0] = -1;
		if (fds[1] < 0)
			t_bail("%s: %s", log, strerror(errno));
	} else if (pipe(fds)) {
		t_bail("pipe: %s", strerror(errno));
	}
	pid = fork();
	if (pid < 0)
		t_bail("fork: %s", strerror(errno));
	if (!pid) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		if (fds[0] >= 0)
			close(fds[0]);
		close(fds[1]);
		snprintf(line, sizeof(line), "%s", av[0]);
		if (strrchr(line, '/') && strrchr(line, '/') != line) {
			*strrchr(line, '/') = '\0';
			if (chdir(line))
				fprintf(stderr, "cannot chdir to %s: %s\n", line, strerror(errno));
		}
		execv(av[0], av);
		fprintf(stderr, "cannot run %s: %s\n", av[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	if (tick) {
		while (waitpid(pid, &status, WNOHANG) == 0) {
			tick();
			usleep(2000);
		}
		tick();
		p = fopen(log, "r");
	} else {
		p = fdopen(fds[0], "r");
	}
	if (!p)
		t_bail("cannot read the output of %s: %s", av[0], strerror(errno));
	while (fgets(line, sizeof(line), p)) {
		line[strcspn(line, "\n")] = '\0';
		t_diag("%s", line);
		if (line_cb)
			line_cb(line);
	}
	fclose(p);
	if (tick)
		unlink(log);
	else if (waitpid(pid, &status, 0) != pid)
		t_bail("waitpid: %s", strerror(errno));
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}


/* ---- background load ------------------------------------------------- */

static volatile sig_atomic_t load_stop;

static void load_on_term(int sig)
{
	(void)sig;
	load_stop = 1;
}

static uint32_t load_word(uint32_t salt, size_t i)
{
	return (uint32_t)(i * 2654435761u) ^ salt;
}

int load_hog(size_t len)
{
	uint32_t salt = 1, *p;
	size_t i, bad = 0;

	while (!load_stop) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			usleep(10000);
			continue;
		}
		for (i = 0; i < len / 4; i += 64)
			p[i] = load_word(salt, i);
		usleep(20000);
		for (i = 0; i < len / 4; i += 64)
			bad += p[i] != load_word(salt, i);
		munmap(p, len);
		salt++;
	}
	return bad ? 1 : 0;
}

int load_churn(size_t len)
{
	uint32_t salt = 100, *p;
	size_t i, bad = 0;
	int fd, round = 0;

	while (!load_stop) {
		fd = open("/mnt/churn", O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (fd < 0 || ftruncate(fd, len))
			return 2;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 2;
		for (i = 0; i < len / 4; i += 64)
			p[i] = load_word(salt, i);
		if (!(round++ % 4))
			fsync(fd);
		munmap(p, len);
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 2;
		for (i = 0; i < len / 4; i += 64)
			bad += p[i] != load_word(salt, i);
		munmap(p, len);
		close(fd);
		salt++;
	}
	return bad ? 1 : 0;
}

/* Fill @len bytes at @p with @salt's words; count those that differ */
static size_t load_fill(uint32_t *p, size_t len, uint32_t salt, int check)
{
	size_t i, bad = 0;

	for (i = 0; i < len / 4; i += 64) {
		if (check)
			bad += p[i] != load_word(salt, i);
		else
			p[i] = load_word(salt, i);
	}
	return bad;
}

int load_splice(size_t len)
{
	uint32_t salt = 200, *p, *q;
	size_t bad = 0, off;
	int fd[2];

	q = malloc(len);
	if (!q || pipe(fd) || fcntl(fd[1], F_SETPIPE_SZ, 1 << 20) < 0)
		return 2;
	while (!load_stop) {
		p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return 2;
		load_fill(p, len, salt, 0);
		/* the pipe references the user pages until it is read */
		for (off = 0; off < len && !load_stop; ) {
			struct iovec iov = { (char *)p + off, len - off };
			ssize_t n = vmsplice(fd[1], &iov, 1, 0), m, got = 0;

			if (n <= 0) {
				if (n < 0 && !load_stop)
					return 2;
				break;
			}
			while (got < n) {
				m = read(fd[0], (char *)q + off + got, n - got);
				if (m <= 0)
					return 2;
				got += m;
			}
			off += n;
		}
		if (off == len)
			bad += load_fill(q, len, salt, 1);
		munmap(p, len);
		salt++;
	}
	return bad ? 1 : 0;
}

int load_memfd(size_t len)
{
	uint32_t salt = 300, *p;
	size_t bad = 0;

	while (!load_stop) {
		int fd = memfd_create("load", 0);

		if (fd < 0 || ftruncate(fd, len))
			return 2;
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 2;
		load_fill(p, len, salt, 0);
		munmap(p, len);
		p = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (p == MAP_FAILED)
			return 2;
		bad += load_fill(p, len, salt, 1);
		munmap(p, len);
		close(fd);
		salt++;
	}
	return bad ? 1 : 0;
}

/* @len bytes of private anonymous memory, or NULL */
static uint32_t *load_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

int load_madvise(size_t len)
{
	uint32_t salt = 400, *p;
	size_t bad = 0;

	p = load_anon(len);
	if (!p)
		return 2;
	while (!load_stop) {
		load_fill(p, len, salt, 0);
		madvise(p, len, MADV_COLD);
		bad += load_fill(p, len, salt, 1);
		/* dropped: reads back as zeroes, filled again */
		madvise(p, len, MADV_DONTNEED);
		bad += p[64] != 0;
		salt++;
	}
	return bad ? 1 : 0;
}

int load_fork(size_t len)
{
	uint32_t salt = 500, *p;
	size_t bad = 0;
	int status;
	pid_t kid;

	p = load_anon(len);
	if (!p)
		return 2;
	while (!load_stop) {
		load_fill(p, len, salt, 0);
		kid = fork();
		if (!kid) {
			/* copy on write in the child, the parent's data intact */
			size_t b = load_fill(p, len, salt, 1);

			load_fill(p, len, salt + 1, 0);
			_exit(b || load_fill(p, len, salt + 1, 1) ? 1 : 0);
		}
		if (kid < 0 || waitpid(kid, &status, 0) != kid)
			return 2;
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
		bad += load_fill(p, len, salt, 1);
		salt += 2;
	}
	return bad ? 1 : 0;
}

pid_t load_spawn(int (*fn)(size_t), size_t arg)
{
	sigset_t term, old;
	pid_t pid;

	/* a SIGTERM before the child's handler is set waits for it */
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, &old);
	pid = fork();
	if (!pid) {
		/* a check that bails out takes its load with it */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		signal(SIGTERM, load_on_term);
		sigprocmask(SIG_SETMASK, &old, NULL);
		_exit(fn(arg));
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return pid;
}

int load_end(pid_t *pids, int n)
{
	int i, status, bad = 0;

	for (i = 0; i < n; i++) {
		/* one that could not even start counts as damaged */
		bad += pids[i] < 0;
		if (pids[i] > 0)
			kill(pids[i], SIGTERM);
	}
	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		if (waitpid(pids[i], &status, 0) != pids[i])
			t_bail("waitpid: %s", strerror(errno));
		bad += !WIFEXITED(status) || WEXITSTATUS(status);
	}
	return bad;
}

int v4l2_find_decoder(const char *label, char *node, size_t nlen,
			char *pdev, size_t plen)
{
	char want[64], path[300], name[128], link[300];
	struct dirent *de;
	DIR *d;
	ssize_t n;

	snprintf(want, sizeof(want), "dmb_v4l2dec %s", label);
	d = opendir("/sys/class/video4linux");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "video", 5))
			continue;
		snprintf(path, sizeof(path), "/sys/class/video4linux/%s/name", de->d_name);
		if (file_read_str(path, name, sizeof(name)))
			continue;
		name[strcspn(name, "\n")] = '\0';
		if (strcmp(name, want))
			continue;
		snprintf(node, nlen, "/dev/%s", de->d_name);
		snprintf(path, sizeof(path), "/sys/class/video4linux/%s/device", de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n < 0)
			break;
		link[n] = '\0';
		snprintf(pdev, plen, "%s", strrchr(link, '/') ? strrchr(link, '/') + 1 : link);
		closedir(d);
		return 0;
	}
	closedir(d);
	return -ENOENT;
}

const char *dmb_test_file(const char *dir, const char *file, char *buf,
			  size_t len)
{
	const char *name = strrchr(dir, '/');

	snprintf(buf, len, "/sys/kernel/debug/dmb_test/%s/%s",
		 name ? name + 1 : dir, file);
	return buf;
}

int dmb_alloc_take(const char *node, char *dir, size_t dlen, uint64_t *base,
		   uint64_t *size)
{
	char cmd[160], res[160], path[512], info[512], *p;
	unsigned long long b, sz, ib;
	struct dirent *de;
	DIR *d;

	snprintf(cmd, sizeof(cmd), "handle %s 0", node);
	if (file_write("/sys/kernel/debug/dmb_test/get", cmd) ||
	    file_read_str("/sys/kernel/debug/dmb_test/get", res, sizeof(res)) ||
	    sscanf(res, "ok handle %llx %llx", &b, &sz) != 2)
		return -1;
	*base = b;
	*size = sz;
	d = opendir("/sys/kernel/debug/dmb_alloc");
	if (!d)
		return -1;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/debug/dmb_alloc/%s/info",
			 de->d_name);
		if (file_read_str(path, info, sizeof(info)))
			continue;
		p = strstr(info, "base: ");
		if (p && sscanf(p, "base: %llx", &ib) == 1 && ib == b) {
			snprintf(dir, dlen, "/sys/kernel/debug/dmb_alloc/%s", de->d_name);
			closedir(d);
			return 0;
		}
	}
	closedir(d);
	return -1;
}
