// SPDX-License-Identifier: GPL-2.0
/* tcpflows' results, see results.h. */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "common.h"
#include "results.h"

void flow_stats_init(struct flow_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->started_ns = st->connect_ns = NONE;
	st->first_ns = st->done_ns = NONE;
}

int64_t rel_us(int64_t t, int64_t epoch)
{
	return t == NONE ? -1 : (t - epoch) / NSEC_PER_USEC;
}

const char *flow_status(const struct flow_spec *fs,
			const struct flow_stats *st)
{
	if (st->err)
		return "error";
	if (fs->bytes && st->rcvd >= fs->bytes)
		return "done";
	if (st->rx_eof)
		return fs->bytes ? "short" : "closed";
	return st->started_ns == NONE ? "unstarted" : "active";
}

void flows_csv_row(FILE *out, const struct flow_spec *fs,
		   const struct flow_stats *st, int64_t epoch)
{
	fprintf(out, "%u,%s,%s,%" PRId64 ",%" PRIu64 ",%" PRId64 ",%" PRId64
		",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRIu64 ",%s\n",
		fs->id, fs->netns, st->cc_used, fs->start_ns / NSEC_PER_USEC,
		fs->bytes, rel_us(st->first_ns, epoch),
		rel_us(st->done_ns, epoch), st->rcvd,
		rel_us(st->connect_ns, epoch), rel_us(st->started_ns, epoch),
		st->sent, flow_status(fs, st));
}

void flow_summary(FILE *out, const struct flow_spec *fs,
		  const struct flow_stats *st, int64_t epoch, int64_t now)
{
	int64_t end = st->done_ns != NONE ? st->done_ns : now;
	double dt = st->first_ns == NONE ? 0 : (end - st->first_ns) / 1e9;

	fprintf(out, "flow %u %s %s %s: rx %" PRIu64 " B", fs->id, fs->netns,
		st->cc_used, flow_status(fs, st), st->rcvd);
	if (st->done_ns != NONE)
		fprintf(out, ", completion %.6f s (%.6f s after start)",
			rel_us(st->done_ns, epoch) / 1e6,
			(st->done_ns - epoch - fs->start_ns) / 1e9);
	if (dt > 0)
		fprintf(out, ", %.2f Mbit/s", st->rcvd * 8 / dt / 1e6);
	if (st->err)
		fprintf(out, ", %s", strerror(st->err));
	fputc('\n', out);
}

void sampler_summary(FILE *out, const char *file, const char *kind,
		     unsigned long skipped, unsigned long misses)
{
	fprintf(out, "sampler %s: %s, %lu late ticks skipped, %lu misses\n",
		file, kind, skipped, misses);
}

void totals_summary(FILE *out, int nflows, int nstarted, uint64_t rcvd,
		    int errors, int interrupted)
{
	fprintf(out, "total: %d flows, %d started, rx %" PRIu64 " B, %d "
		"errors%s\n", nflows, nstarted, rcvd, errors,
		interrupted ? ", interrupted" : "");
}

FILE *out_open(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = open_out(path);
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

int epoch_file_write(const char *path, int64_t epoch)
{
	char line[32];

	snprintf(line, sizeof(line), "%" PRId64 "\n", epoch);
	return file_replace(path, line);
}
