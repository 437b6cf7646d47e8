// SPDX-License-Identifier: GPL-2.0
/* Helpers shared by the tools, see common.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include <getopt.h>

#include "common.h"

const char *prog = "tool";

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(2);
}

void warnmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

int next_opt(int argc, char *const argv[], const struct option *opts,
	     const char *usage)
{
	int c;

	opterr = 0;	/* one line errors, below */
	c = getopt_long(argc, argv, ":h", opts, NULL);
	switch (c) {
	case -1:
		if (optind < argc)
			die("unexpected argument '%s'", argv[optind]);
		break;
	case 'h':
		fputs(usage, stdout);
		exit(0);
	case ':':
		die("%s needs an argument", argv[optind - 1]);
	case '?':
		die("unknown option '%s' (see --help)", argv[optind - 1]);
	}
	return c;
}

FILE *open_out(const char *path)
{
	FILE *f = path ? fopen(path, "w") : stdout;

	if (!f)
		die("%s: %s", path, strerror(errno));
	return f;
}

void close_out(FILE *f, const char *path)
{
	if (fflush(f) || ferror(f) || (path && fclose(f)))
		die("%s: write error", path ? path : "stdout");
}

int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return (errno || *end) ? -1 : 0;
}

int parse_s64(const char *s, int64_t *v)
{
	uint64_t u;
	int neg = s && *s == '-';

	if (parse_u64(s + neg, &u) || u > INT64_MAX)
		return -1;
	*v = neg ? -(int64_t)u : (int64_t)u;
	return 0;
}

uint64_t arg_u64(const char *what, const char *s)
{
	uint64_t v;

	if (parse_u64(s, &v))
		die("%s: '%s' is not a number", what, s);
	return v;
}

void csv_row(FILE *f, const int64_t *v, int n)
{
	char buf[24 * 16], *p = buf + sizeof(buf), *end = p;
	int i;

	/* Digits from the right end of buf, last value first. */
	*--p = '\n';
	for (i = n - 1; i >= 0; i--) {
		uint64_t x = v[i] < 0 ? -(uint64_t)v[i] : (uint64_t)v[i];

		do {
			*--p = '0' + x % 10;
			x /= 10;
		} while (x);
		if (v[i] < 0)
			*--p = '-';
		if (i)
			*--p = ',';
	}
	fwrite(p, 1, end - p, f);
}

int file_replace(const char *path, const char *text)
{
	char tmp[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -1;
	if (fputs(text, f) == EOF) {
		int e = errno;

		fclose(f);
		errno = e;
		return -1;
	}
	if (fclose(f) || rename(tmp, path))
		return -1;
	return 0;
}

int split_commas(char *s, char **field, int max)
{
	int n = 0;

	while (n < max) {
		field[n++] = s;
		s = strchr(s, ',');
		if (!s)
			return n;
		*s++ = '\0';
	}
	return n + 1;	/* too many fields: caller reports it */
}

size_t csv_chomp(char *s)
{
	size_t n = strcspn(s, "\r\n");

	s[n] = '\0';
	return n;
}

int csv_parse_ints(char *s, int64_t *v, int ncol)
{
	char *end;
	int i;

	for (i = 0; i < ncol; i++) {
		if (*s != '-' && (*s < '0' || *s > '9'))
			return -1;
		errno = 0;
		v[i] = strtoll(s, &end, 10);
		if (errno || end == s || *end != (i < ncol - 1 ? ',' : '\0'))
			return -1;
		s = end + 1;
	}
	return 0;
}

FILE *csv_open(const char *path, const char *hdr, int prefix, char **line,
	       size_t *cap)
{
	FILE *f = fopen(path, "r");

	if (!f)
		die("%s: %s", path, strerror(errno));
	if (getline(line, cap, f) < 0)
		die("%s: empty file, expected header '%s'", path, hdr);
	csv_chomp(*line);
	if (prefix ? strncmp(*line, hdr, strlen(hdr)) : strcmp(*line, hdr))
		die("%s: header is not '%s%s'", path, hdr, prefix ? "..." : "");
	return f;
}

int64_t *csv_read_ints(const char *path, const char *hdr, int ncol,
		       unsigned int flags, size_t *nrows)
{
	size_t cap = 0, n = 0, alloc = 0, lineno = 1;
	int64_t *v = NULL, *row;
	char *line = NULL;
	FILE *f = csv_open(path, hdr, 0, &line, &cap);
	int i;

	while (getline(&line, &cap, f) >= 0) {
		lineno++;
		if (!csv_chomp(line))
			continue;
		if (n == alloc) {
			alloc = alloc ? 2 * alloc : 4096;
			v = realloc(v, alloc * ncol * sizeof(*v));
			if (!v)
				die("out of memory");
		}
		row = v + n * ncol;
		if (csv_parse_ints(line, row, ncol))
			die("%s:%zu: expected %d integers", path, lineno, ncol);
		if ((flags & CSV_MONOTONIC) && n && row[0] < row[-ncol])
			die("%s:%zu: time goes backwards", path, lineno);
		for (i = 0; (flags & CSV_NONNEG) && i < ncol; i++)
			if (row[i] < 0)
				die("%s:%zu: negative value", path, lineno);
		n++;
	}
	if (ferror(f))
		die("%s: read error", path);
	fclose(f);
	free(line);
	*nrows = n;
	return v;
}

int64_t arg_nonneg(const char *what, const char *s)
{
	int64_t v;

	if (parse_s64(s, &v) || v < 0)
		die("%s: '%s' is not a non-negative integer", what, s);
	return v;
}

int64_t arg_pos(const char *what, const char *s)
{
	int64_t v;

	if (parse_s64(s, &v) || v <= 0)
		die("%s: '%s' is not a positive integer", what, s);
	return v;
}

double arg_posf(const char *what, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0)
		die("%s: '%s' is not a positive number", what, s);
	return v;
}

int algorithm_name_ok(const char *name)
{
	return *name && strlen(name) <= 64 &&
	       !name[strspn(name, "abcdefghijklmnopqrstuvwxyz"
				  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-")];
}

void check_algorithm(const char *name)
{
	if (!algorithm_name_ok(name))
		die("--algorithm: '%s' is not 1-64 of [A-Za-z0-9_.+-]", name);
}

static int init_ns = -1;	/* the namespace we started in */
static int cur_ns = -1;		/* the one we are in (-1: init_ns) */

int netns_open(const char *what, const char *spec)
{
	char path[4096];
	int fd;

	if (init_ns < 0) {
		init_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
		if (init_ns < 0)
			die("open /proc/self/ns/net: %s", strerror(errno));
	}
	if (!strcmp(spec, "."))
		return -1;
	if (!*spec)
		die("%s: empty network namespace name", what);
	if (strchr(spec, '/'))
		snprintf(path, sizeof(path), "%s", spec);
	else
		snprintf(path, sizeof(path), "/run/netns/%s", spec);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: unknown network namespace '%s' (%s: %s)", what, spec,
		    path, strerror(errno));
	if (ioctl(fd, NS_GET_NSTYPE) != CLONE_NEWNET)
		die("%s: '%s' is not a network namespace", what, spec);
	return fd;
}

void netns_enter(int fd)
{
	if (fd == cur_ns)
		return;
	if (setns(fd < 0 ? init_ns : fd, CLONE_NEWNET))
		die("setns: %s", strerror(errno));
	cur_ns = fd;
}

void no_timer_slack(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
}

void raise_nofile(unsigned long n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		die("getrlimit: %s", strerror(errno));
	if (rl.rlim_cur >= n)
		return;
	rl.rlim_cur = n;
	if (rl.rlim_max < n)
		rl.rlim_max = n;	/* root may raise the hard limit */
	if (setrlimit(RLIMIT_NOFILE, &rl))
		die("cannot raise RLIMIT_NOFILE to %lu: %s", n,
		    strerror(errno));
}
