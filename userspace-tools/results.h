/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpflows' results: flows.csv, the goodput.csv header, the summary on
 * stdout, the epoch file. The formats are read by the testbed's scripts
 * and analyzers (README.md): they do not change.
 */
#ifndef TOOLS_RESULTS_H
#define TOOLS_RESULTS_H

#include <stdint.h>
#include <stdio.h>

#include "flowspec.h"

#define NONE		INT64_MIN	/* an unset time */

/*
 * What happened to a flow. Times are absolute (CLOCK_MONOTONIC ns), NONE
 * if it did not happen.
 */
struct flow_stats {
	char cc_used[16];	/* congestion control, read back */
	int64_t started_ns;	/* began: connect() called, or START_US */
				/* with --preconnect-us (connected before) */
	int64_t connect_ns;	/* sender saw the connect complete */
	int64_t first_ns;	/* receiver read the first payload byte */
	int64_t done_ns;	/* receiver: last byte (sized), EOF (not) */
	uint64_t sent, rcvd;	/* payload bytes */
	int err;		/* errno of a failure, either side */
	int rx_eof;		/* receiver saw EOF */
};

/* Unset times of a new flow. */
void flow_stats_init(struct flow_stats *st);

#define FLOWS_CSV_HEADER "id,src_netns,cc,start_us,bytes,first_byte_us," \
	"completion_us,bytes_received,connect_us,started_us,bytes_sent," \
	"status\n"
#define GOODPUT_CSV_HEADER "time_us,flow_id,bytes_total\n"

/* Microseconds from @epoch to @t; -1 for NONE. */
int64_t rel_us(int64_t t, int64_t epoch);

/* done, closed, short, active, unstarted or error (README.md). */
const char *flow_status(const struct flow_spec *fs,
			const struct flow_stats *st);

/* One row of flows.csv. */
void flows_csv_row(FILE *out, const struct flow_spec *fs,
		   const struct flow_stats *st, int64_t epoch);

/*
 * The summary on stdout: a line per flow (a flow still receiving is
 * measured up to @now), per sampler, and the totals.
 */
void flow_summary(FILE *out, const struct flow_spec *fs,
		  const struct flow_stats *st, int64_t epoch, int64_t now);
void sampler_summary(FILE *out, const char *file, const char *kind,
		     unsigned long skipped, unsigned long misses);
void totals_summary(FILE *out, int nflows, int nstarted, uint64_t rcvd,
		    int errors, int interrupted);

/* Create DIR/NAME for writing, fully buffered; die on failure. */
FILE *out_open(const char *dir, const char *name);

/*
 * Write @epoch (ns) and a newline to @path atomically, by a rename of
 * PATH.tmp; 0, or -1 with errno set.
 */
int epoch_file_write(const char *path, int64_t epoch);

#endif
