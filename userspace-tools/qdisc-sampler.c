// SPDX-License-Identifier: GPL-2.0
/*
 * qdisc-sampler: log the statistics of one qdisc at a fixed interval, as
 * CSV with times in microseconds since an epoch on CLOCK_MONOTONIC. The
 * epoch can be shared with tcpflows (--epoch-file) so that both series
 * align. One rtnetlink request and response per sample, no allocation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "qdisc_stats.h"

static const char usage[] =
"usage: qdisc-sampler --dev IFNAME [--netns NAME] [--parent root|ingress|MAJ:[MIN]]\n"
"         [--interval-us N] [--duration-us N] [--out FILE]\n"
"         [--epoch-file F [--wait-us N] | --epoch-ns N | --start-delay-us N]\n"
"Samples a qdisc every N us (default 1000) for N us (default 0: until\n"
"SIGINT/SIGTERM). Times are us since the epoch: by default the start plus\n"
"--start-delay-us; --epoch-file waits (up to --wait-us, default 30 s) for\n"
"a file holding the epoch in CLOCK_MONOTONIC ns, as tcpflows --epoch-file\n"
"writes it; --epoch-ns gives it directly.\n";

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

/* Wait for the epoch file to appear and read it; 0 if none in time. */
static int64_t read_epoch_file(const char *path, int64_t wait_ns)
{
	int64_t deadline = now_ns() + wait_ns, epoch;
	char line[64];
	FILE *f;

	while (!(f = fopen(path, "r"))) {
		struct timespec ms = { 0, 1000000 };

		if (errno != ENOENT)
			die("%s: %s", path, strerror(errno));
		if (stop || now_ns() > deadline)
			return 0;
		nanosleep(&ms, NULL);
	}
	if (!fgets(line, sizeof(line), f))
		line[0] = '\0';
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	if (parse_s64(line, &epoch) || epoch <= 0)
		die("%s: '%s' is not an epoch in ns", path, line);
	return epoch;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "netns", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'd' },
		{ "parent", required_argument, NULL, 'p' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "duration-us", required_argument, NULL, 'D' },
		{ "out", required_argument, NULL, 'o' },
		{ "epoch-file", required_argument, NULL, 'e' },
		{ "epoch-ns", required_argument, NULL, 'E' },
		{ "start-delay-us", required_argument, NULL, 's' },
		{ "wait-us", required_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *netns = ".", *dev = NULL, *parent = "root", *out = "-";
	const char *epoch_file = NULL;
	int64_t interval = 1000, duration = 0, delay = 0, epoch = 0;
	int64_t wait = 30000000, next, t;
	unsigned long samples = 0, skipped = 0;
	static struct qdisc_sampler qs;
	struct qdisc_stats st;
	struct sigaction sa = { .sa_handler = on_signal };
	int c, nepoch = 0;
	FILE *f;

	prog = "qdisc-sampler";
	opterr = 0;	/* one line errors, below */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			netns = optarg;
			break;
		case 'd':
			dev = optarg;
			break;
		case 'p':
			parent = optarg;
			break;
		case 'o':
			out = optarg;
			break;
		case 'i':
			interval = arg_u64("--interval-us", optarg);
			break;
		case 'D':
			duration = arg_u64("--duration-us", optarg);
			break;
		case 'w':
			wait = arg_u64("--wait-us", optarg);
			break;
		case 'e':
			epoch_file = optarg;
			nepoch++;
			break;
		case 'E':
			epoch = arg_u64("--epoch-ns", optarg);
			nepoch++;
			break;
		case 's':
			delay = arg_u64("--start-delay-us", optarg);
			nepoch++;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			die_getopt(c, argv);
		}
	}
	die_extra_args(argc, argv);
	if (!dev)
		die("--dev is required");
	if (interval <= 0)
		die("--interval-us must be > 0");
	if (nepoch > 1)
		die("give only one of --epoch-file, --epoch-ns, --start-delay-us");

	/* A signal interrupts the sleeps below and ends the run cleanly. */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	no_timer_slack();
	qs_open(&qs, netns_open("--netns", netns), dev, parent);
	f = strcmp(out, "-") ? fopen(out, "w") : stdout;
	if (!f)
		die("%s: %s", out, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	qs_write_header(f);

	if (epoch_file) {
		epoch = read_epoch_file(epoch_file, wait * NSEC_PER_USEC);
		if (!epoch)
			die("no epoch in %s after %lld us", epoch_file,
			    (long long)wait);
	} else if (!epoch) {	/* our own epoch: start right at it */
		epoch = now_ns() + delay * NSEC_PER_USEC;
		nepoch = 0;
	}
	interval *= NSEC_PER_USEC;
	duration *= NSEC_PER_USEC;

	/* Sample at epoch + k * interval; a late start joins the grid. */
	next = epoch;
	t = now_ns();
	if (nepoch && t > next)
		next += (t - next + interval - 1) / interval * interval;
	while (!stop && (!duration || next - epoch <= duration)) {
		struct timespec ts = ns_to_ts(next);

		if (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
				    NULL))
			continue;	/* EINTR: check stop */
		t = now_ns();	/* log when we really sampled */
		switch (qs_sample(&qs, &st)) {
		case 1:
			qs_write_row(f, (t - epoch) / NSEC_PER_USEC, &st);
			samples++;
			break;
		case -1:
			warnmsg("RTM_GETQDISC failed: %s", strerror(errno));
			stop = 2;
			break;
		}
		/* Skip the ticks we are too late for instead of bursting. */
		next += interval;
		if (t >= next) {
			skipped += (t - next) / interval + 1;
			next += ((t - next) / interval + 1) * interval;
		}
	}
	if (fflush(f) || ferror(f))
		die("%s: write error", out);
	fprintf(stderr, "%s: %lu samples of %s on %s, %lu late ticks skipped,"
		" %lu misses\n", prog, samples, qs.kind, dev, skipped,
		qs.misses);
	return qs.misses || stop > 1 ? 1 : 0;
}
