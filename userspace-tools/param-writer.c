// SPDX-License-Identifier: GPL-2.0
/*
 * param-writer: module parameter writes on a fixed period, for the
 * paramwrites case of testbed/faults/run.sh.
 *
 * It cycles through the --valid writes, then the --invalid ones, one write
 * a tick. Ticks are on an absolute CLOCK_MONOTONIC schedule (start + k *
 * period), so lateness does not accumulate; a tick that is missed whole
 * (the previous write ended after it) is skipped, not made up in a burst,
 * and a tick woken after the duration's end is not written.
 * A write opens DIR/NAME, writes "VAL\n" and closes it; it succeeds if
 * write() took the whole length. A valid value refused, or an invalid one
 * taken, is a bad write.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"

static const char usage[] =
"usage: param-writer --dir D --period-us P --duration-us T --status FILE\n"
"         --valid NAME=VAL[,NAME=VAL...] [--invalid NAME=VAL[,...]]\n"
"Writes VAL and a newline to D/NAME, one write every P us for T us,\n"
"cycling through the --valid writes, then the --invalid ones. Ticks are\n"
"on an absolute CLOCK_MONOTONIC schedule; a tick missed whole is skipped,\n"
"and none is written after T.\n"
"A write is taken if write() returns its full length, else refused; a\n"
"valid value refused or an invalid one taken is bad. Every ~100 ms and at\n"
"the end (or on SIGTERM/SIGINT) FILE is replaced (FILE.tmp, rename) by one\n"
"line:\n"
"  writes ok refused bad mean_interval_us max_late_us\n"
"mean_interval_us: from the first write to the last over writes - 1,\n"
"rounded (0 for fewer than 2 writes); max_late_us: the latest wake-up\n"
"after its tick (truncated).\n"
"Every D/NAME must open for writing at the start. Exit 0 at the end (bad\n"
"writes are counted, not an error), 2 on bad arguments.\n";

#define MAX_WRITES	64
#define STATUS_NS	(100 * 1000 * NSEC_PER_USEC)

struct pw_write {
	char *path;		/* D/NAME */
	char *buf;		/* "VAL\n" */
	size_t len;
	int valid;
};

struct pw_stats {
	int64_t writes, ok, refused, bad;
	int64_t first_ns, last_ns, max_late_ns;
};

static struct pw_write writes[MAX_WRITES];
static int nwrites;
static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static char *xasprintf_path(const char *dir, const char *name)
{
	char *s;

	if (asprintf(&s, "%s/%s", dir, name) < 0)
		die("out of memory");
	return s;
}

/* One NAME=VAL of --valid/--invalid LIST into writes[]. */
static void add_write(const char *opt, const char *dir, char *item, int valid)
{
	struct pw_write *w = &writes[nwrites];
	char *eq = strchr(item, '=');
	int fd, len;

	if (!eq || eq == item || memchr(item, '/', eq - item))
		die("%s: '%s' is not NAME=VAL", opt, item);
	if (nwrites == MAX_WRITES)
		die("%s: more than %d writes in all", opt, MAX_WRITES);
	*eq = '\0';
	w->path = xasprintf_path(dir, item);
	len = asprintf(&w->buf, "%s\n", eq + 1);
	if (len < 0)
		die("out of memory");
	w->len = len;
	w->valid = valid;
	fd = open(w->path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s: %s", opt, w->path, strerror(errno));
	close(fd);
	nwrites++;
}

static void add_list(const char *opt, const char *dir, const char *list,
		     int valid)
{
	char *copy = strdup(list), *field[MAX_WRITES + 1];
	int i, n;

	if (!copy)
		die("out of memory");
	n = split_commas(copy, field, MAX_WRITES);
	if (n > MAX_WRITES)
		die("%s: more than %d writes", opt, MAX_WRITES);
	for (i = 0; i < n; i++)
		add_write(opt, dir, field[i], valid);
	free(copy);
}

/* One write: 1 if write() took the whole value. */
static int write_one(const struct pw_write *w)
{
	int fd = open(w->path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = write(fd, w->buf, w->len);
	close(fd);
	return n == (ssize_t)w->len;
}

static void count(struct pw_stats *s, const struct pw_write *w, int taken)
{
	s->writes++;
	if (taken)
		s->ok++;
	else
		s->refused++;
	if (taken != w->valid)
		s->bad++;
}

static void write_status(const char *path, const struct pw_stats *s)
{
	char line[160];
	int64_t mean = 0;

	if (s->writes > 1)	/* rounded to the nearest us */
		mean = ((s->last_ns - s->first_ns) / (s->writes - 1) +
			NSEC_PER_USEC / 2) / NSEC_PER_USEC;
	snprintf(line, sizeof(line), "%lld %lld %lld %lld %lld %lld\n",
		 (long long)s->writes, (long long)s->ok, (long long)s->refused,
		 (long long)s->bad, (long long)mean,
		 (long long)(s->max_late_ns / NSEC_PER_USEC));
	if (file_replace(path, line))
		die("%s: %s", path, strerror(errno));
}

/* Sleep until @t_ns; the time woken up. */
static int64_t sleep_until(int64_t t_ns)
{
	struct timespec ts = ns_to_ts(t_ns);

	while (!stop &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return now_ns();
}

static void run(int64_t period_ns, int64_t duration_ns, const char *status)
{
	struct pw_stats s = { 0 };
	int64_t start = now_ns(), next_status = start + STATUS_NS;
	const struct pw_write *w;
	int64_t k = 0, tick, t;

	for (tick = start; !stop && tick - start < duration_ns;) {
		t = sleep_until(tick);
		if (stop || t - start >= duration_ns)
			break;	/* woken after the end: no write */
		if (t - tick > s.max_late_ns)
			s.max_late_ns = t - tick;
		w = &writes[k++ % nwrites];
		count(&s, w, write_one(w));
		if (!s.first_ns)
			s.first_ns = t;
		s.last_ns = t;
		t = now_ns();
		if (t >= next_status) {
			write_status(status, &s);
			next_status = t + STATUS_NS;
		}
		/* The next tick after now: missed ones are skipped. */
		tick += period_ns;
		if (tick <= t)
			tick += ((t - tick) / period_ns + 1) * period_ns;
	}
	write_status(status, &s);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "period-us", required_argument, NULL, 'p' },
		{ "duration-us", required_argument, NULL, 't' },
		{ "status", required_argument, NULL, 's' },
		{ "valid", required_argument, NULL, 'v' },
		{ "invalid", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *dir = NULL, *status = NULL, *valid = NULL, *invalid = NULL;
	int64_t period = 0, duration = 0;
	int c;

	prog = "param-writer";
	while ((c = next_opt(argc, argv, opts, usage)) != -1) {
		switch (c) {
		case 'd':
			dir = optarg;
			break;
		case 'p':
			period = arg_pos("--period-us", optarg);
			break;
		case 't':
			duration = arg_pos("--duration-us", optarg);
			break;
		case 's':
			status = optarg;
			break;
		case 'v':
			valid = optarg;
			break;
		case 'i':
			invalid = optarg;
			break;
		}
	}
	if (!dir || !period || !duration || !status || !valid)
		die("--dir, --period-us, --duration-us, --status and --valid "
		    "are required");
	if (period > INT64_MAX / NSEC_PER_USEC ||
	    duration > INT64_MAX / NSEC_PER_USEC / 2)
		die("--period-us or --duration-us too large");
	add_list("--valid", dir, valid, 1);
	if (invalid)
		add_list("--invalid", dir, invalid, 0);
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	no_timer_slack();
	run(period * NSEC_PER_USEC, duration * NSEC_PER_USEC, status);
	return 0;
}
