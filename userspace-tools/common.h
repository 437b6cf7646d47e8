/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by all the tools (tcpflows, websearch-gen,
 * param-writer and the three analyzers): error reporting, the option
 * loop, output files, strict number and CSV parsing, the analyzers'
 * --algorithm check, replacing a file whole, CLOCK_MONOTONIC time and
 * network namespaces.
 */
#ifndef TOOLS_COMMON_H
#define TOOLS_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define NSEC_PER_USEC	((int64_t)1000)
#define NSEC_PER_SEC	((int64_t)1000000000)

/* Program name used as the prefix of every error message. */
extern const char *prog;

/* Print "prog: message" to stderr and exit(2) (bad usage or setup). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2),
					       noreturn));
/* Print "prog: message" to stderr. */
void warnmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * The tools' option loop: the next option of getopt_long() over @opts
 * (long options only, plus -h), or -1 at the end. -h and --help (val 'h')
 * print @usage to stdout and exit 0; a missing argument, an unknown option
 * or an argument left after the options dies (exit 2) with one line that
 * names it.
 */
struct option;
int next_opt(int argc, char *const argv[], const struct option *opts,
	     const char *usage);

/* Open @path for writing, stdout if NULL, or die "PATH: error". */
FILE *open_out(const char *path);
/* Flush and close open_out()'s file, or die "PATH: write error". */
void close_out(FILE *f, const char *path);

/* Parse a whole string as a decimal number; return 0 or -1. */
int parse_u64(const char *s, uint64_t *v);
int parse_s64(const char *s, int64_t *v);

/* Parse a number or die with "prog: WHAT: 'S' is not a number". */
uint64_t arg_u64(const char *what, const char *s);

/* Write @n integers as one CSV line, faster than fprintf(). */
void csv_row(FILE *f, const int64_t *v, int n);

/*
 * Replace @path by a file holding @text: written to PATH.tmp, then renamed
 * over @path, so that a reader sees the old file or the new one whole.
 * 0, or -1 with errno set.
 */
int file_replace(const char *path, const char *text);

/* Split a comma separated list in place; return the number of fields. */
int split_commas(char *s, char **field, int max);

/* Strip the line end; return the length left. */
size_t csv_chomp(char *s);

/* Parse exactly @ncol comma separated integers into @v; 0 or -1. */
int csv_parse_ints(char *s, int64_t *v, int ncol);

/*
 * Open a CSV file and read its header into *@line, dying unless the header
 * equals @hdr (or, with @prefix, starts with it).
 */
FILE *csv_open(const char *path, const char *hdr, int prefix, char **line,
	       size_t *cap);

/*
 * Read a CSV of @ncol integer columns with header @hdr into a flat array,
 * @ncol values a row; blank lines are skipped. Flags: CSV_MONOTONIC, column
 * 0 (time) must not decrease; CSV_NONNEG, no negative values.
 */
#define CSV_MONOTONIC	1
#define CSV_NONNEG	2
int64_t *csv_read_ints(const char *path, const char *hdr, int ncol,
		       unsigned int flags, size_t *nrows);

/*
 * An analyzer's --algorithm NAME goes verbatim into JSON and CSV: 1 if it
 * is 1-64 of [A-Za-z0-9_.+-]. check_algorithm() dies with
 * "prog: --algorithm: 'NAME' is not 1-64 of [A-Za-z0-9_.+-]" otherwise.
 */
int algorithm_name_ok(const char *name);
void check_algorithm(const char *name);

/* Parse a positive (or non-negative) number or die with WHAT in the message. */
int64_t arg_pos(const char *what, const char *s);
int64_t arg_nonneg(const char *what, const char *s);
double arg_posf(const char *what, const char *s);

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

static inline struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = { ns / NSEC_PER_SEC, ns % NSEC_PER_SEC };

	return ts;
}

/*
 * Network namespaces. A namespace is named like "ip netns" does (a file in
 * /run/netns/), by a path such as /proc/PID/ns/net (anything with a '/'),
 * or "." for the namespace the program was started in.
 * netns_open() returns a file descriptor, -1 for ".", and dies with
 * "prog: WHAT: unknown network namespace ..." if it does not exist. netns_enter(-1) goes back to the initial one.
 * A socket stays in the namespace it was created in, so callers enter the
 * namespace, create the socket, and go back.
 */
int netns_open(const char *what, const char *spec);
void netns_enter(int fd);

/* Wake timers on time: no timer slack (50 us by default). */
void no_timer_slack(void);

/* Raise RLIMIT_NOFILE to at least n descriptors or die. */
void raise_nofile(unsigned long n);

#endif
