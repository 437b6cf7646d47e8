// SPDX-License-Identifier: GPL-2.0
/*
 * incast-analyze: summary metrics of one incast experiment from the CSV
 * files of tcpflows (bottleneck qdisc samples, goodput, flows): one JSON
 * object on stdout or in a file, and optionally one row appended to a CSV
 * file. Times are us since the experiment epoch. Bad arguments or input
 * give one line on stderr and exit status 2.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char usage[] =
"usage: incast-analyze --qdisc F --goodput F --flows F --algorithm NAME\n"
"         --link-mbps R --incast-us T0 --end-us T1 --bdp-bytes B\n"
"         [--from-us TA] [--retrans F] [--serial-link] [--json OUT]\n"
"         [--csv-row OUT]\n"
"Metrics over [TA, T1] (TA defaults to T0, the incast start): bottleneck\n"
"throughput, queue mean/p99/peak (the backlog, and the bytes waiting: the\n"
"backlog without the packet in service; with --serial-link, a bottleneck\n"
"whose bucket holds one frame, the backlog itself), drain time to below\n"
"B after the peak, combined score (of each), goodput and Jain index,\n"
"drops, the incast flows' (the long flows but flow 0) Jain index, longest\n"
"stall and slowest first byte, the senders' retransmissions (--retrans: a\n"
"CSV id,retrans_segs; -1 without it), the completion times of the sized\n"
"flows (the queries), and a pre-incast\n"
"baseline over [max(0, T0 - (T1 - T0)), T0). JSON to stdout\n"
"(or --json OUT); --csv-row appends the same values as one CSV row\n"
"(header if new).\n";

/* Columns of the qdisc CSV, as tcpflows --sample writes it. */
#define QDISC_HDR "time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts," \
		  "drops,overlimits"
enum { Q_T, Q_BACKLOG, Q_BPKTS, Q_SENT, Q_SPKTS, Q_DROPS, Q_OVER, Q_NCOL };
#define GOODPUT_HDR "time_us,flow_id,bytes_total"
enum { G_T, G_ID, G_BYTES, G_NCOL };
#define FLOWS_HDR "id,src_netns,cc,"	/* the header's prefix checked */
#define RETRANS_HDR "id,retrans_segs"

enum { F_ID, F_NS, F_CC, F_START, F_BYTES, F_FIRST, F_DONE, F_RCVD,
       F_CONNECT, F_STARTED, F_SENT, F_STATUS, F_NCOL };

/*
 * The incast flows: the long flows (no size) but flow 0, the one alone
 * before the incast. Their ids and start times, and the longest time a
 * flow waited for its first byte (to T1 if it never got one).
 */
static struct incast_flow {
	int64_t id, start;
} *inc;
static size_t ninc;
static int64_t first_byte_max = -1;

static void incast_flow(int64_t id, int64_t start, int64_t first, int64_t t1)
{
	static size_t cap;

	if (ninc == cap) {
		cap = cap ? 2 * cap : 64;
		inc = realloc(inc, cap * sizeof(*inc));
		if (!inc)
			die("out of memory");
	}
	inc[ninc].id = id;
	inc[ninc++].start = start;
	if (first < start)	/* -1: no byte yet */
		first = t1;
	if (first - start > first_byte_max)
		first_byte_max = first - start;
}

/*
 * The flows CSV: its number of data rows, the incast flows (above), and
 * the completion times of its sized flows (the incast's queries,
 * --queries), in @fct (malloc'd, @ndone of @nsized done): completion_us -
 * start_us of those whose status is done.
 */
static long read_flows(const char *path, int64_t t1, int64_t **fct,
		       size_t *nsized, size_t *ndone)
{
	size_t cap = 0, nf = 0;
	char *line = NULL, *field[F_NCOL + 1];
	FILE *f = csv_open(path, FLOWS_HDR, 1, &line, &cap);
	int64_t id, start, bytes, first, done;
	long n = 0;

	*fct = NULL;
	*nsized = *ndone = 0;
	while (getline(&line, &cap, f) >= 0) {
		if (!csv_chomp(line))
			continue;
		n++;
		if (split_commas(line, field, F_NCOL + 1) != F_NCOL ||
		    parse_s64(field[F_ID], &id) ||
		    parse_s64(field[F_START], &start) ||
		    parse_s64(field[F_BYTES], &bytes) ||
		    parse_s64(field[F_FIRST], &first) ||
		    parse_s64(field[F_DONE], &done))
			die("%s: row %ld: not a flows.csv row", path, n);
		if (bytes <= 0) {
			if (id)
				incast_flow(id, start, first, t1);
			continue;
		}
		(*nsized)++;
		if (strcmp(field[F_STATUS], "done") || done < start)
			continue;
		if (*ndone == nf) {
			nf = nf ? 2 * nf : 64;
			*fct = realloc(*fct, nf * sizeof(**fct));
			if (!*fct)
				die("out of memory");
		}
		(*fct)[(*ndone)++] = done - start;
	}
	fclose(f);
	free(line);
	return n;
}

/* Qdisc samples, time-sorted; Q(i, col) is a column of sample i. */
static int64_t *qd;
static size_t nq;
static int serial_link;
#define Q(i, col) qd[(size_t)(i) * Q_NCOL + (col)]

/*
 * The bytes waiting at sample i: the backlog without the packet in
 * service, as ns-3 counts a queue (the packet a device transmits has left
 * its queue). tbf keeps the packet it sends next at the head of its
 * backlog until its tokens have come, one transmission time at the rate:
 * with one packet or more in the backlog, the head is in service. Its
 * size is not in the statistics; the backlog's mean packet size stands
 * in for it (rounded), exact where the packets are of one size, as the
 * full-sized segments of long flows are. The testbed's --serial-link
 * bucket holds one frame and sends a packet when its service starts (the
 * ACK path carries the serialization): its backlog is all waiting.
 */
static int64_t waiting(size_t i)
{
	int64_t bytes = Q(i, Q_BACKLOG), pkts = Q(i, Q_BPKTS);

	if (serial_link)
		return bytes;
	if (pkts <= 1)
		return 0;
	return bytes - (bytes + pkts / 2) / pkts;
}

/* A queue measure of sample i: the backlog or the bytes waiting. */
static int64_t queue_at(size_t i, int wait)
{
	return wait ? waiting(i) : Q(i, Q_BACKLOG);
}

/* Index of the first sample at time >= t (>= t + 1 if @after): nq if none. */
static size_t first_from(int64_t t, int after)
{
	size_t lo = 0, hi = nq;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (Q(mid, Q_T) < t + after)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Dequeue rate in Mbit/s between samples a and b (bytes/us * 8). */
static double rate_mbps(size_t a, size_t b)
{
	return (Q(b, Q_SENT) - Q(a, Q_SENT)) * 8.0 /
	       (Q(b, Q_T) - Q(a, Q_T));
}

static double mean_queue(size_t a, size_t b, int wait)
{
	double sum = 0;
	size_t i;

	for (i = a; i <= b; i++)
		sum += queue_at(i, wait);
	return sum / (b - a + 1);
}

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile @pct of @v[0..n) (sorts it); -1 if n is 0. */
static int64_t percentile(int64_t *v, size_t n, int pct)
{
	if (!n)
		return -1;
	qsort(v, n, sizeof(*v), cmp_s64);
	return v[(pct * n + 99) / 100 - 1];
}

/* Nearest-rank p99 of the queue of samples a..b: rank ceil(0.99 n). */
static int64_t p99_queue(size_t a, size_t b, int wait)
{
	size_t n = b - a + 1, i;
	int64_t *v = malloc(n * sizeof(*v)), p;

	if (!v)
		die("out of memory");
	for (i = 0; i < n; i++)
		v[i] = queue_at(a + i, wait);
	p = percentile(v, n, 99);
	free(v);
	return p;
}

/* The sample of the queue's peak in a..b, its first maximum. */
static size_t peak_queue(size_t a, size_t b, int wait)
{
	size_t i, peak = a;

	for (i = a; i <= b; i++)
		if (queue_at(i, wait) > queue_at(peak, wait))
			peak = i;
	return peak;
}

/* The case study's combined score of a throughput and a mean queue. */
static double score_of(double thr_norm, double avg_q)
{
	return exp(thr_norm - 20) - avg_q / 100;
}

/*
 * Drain time: from t0 to the first sample below @bdp after the queue's
 * peak (its first maximum in [t0, t1]); 0 if the queue never exceeded
 * @bdp there, -1 if it does not get below @bdp again by t1.
 */
static int64_t drain_time(int64_t t0, int64_t t1, int64_t bdp)
{
	size_t a = first_from(t0, 0), b = first_from(t1, 1), i, peak = a;

	for (i = a; i < b; i++)
		if (Q(i, Q_BACKLOG) > Q(peak, Q_BACKLOG))
			peak = i;
	if (a == b || Q(peak, Q_BACKLOG) <= bdp)
		return 0;
	for (i = peak + 1; i < b; i++)
		if (Q(i, Q_BACKLOG) < bdp)
			return Q(i, Q_T) - t0;
	return -1;
}

/* Goodput rows are sorted by flow id, then time, to walk a flow's rows. */
static int cmp_flow(const void *a, const void *b)
{
	return cmp_s64((const int64_t *)a + G_ID, (const int64_t *)b + G_ID) ?:
	       cmp_s64((const int64_t *)a + G_T, (const int64_t *)b + G_T);
}

/*
 * Aggregate goodput (Mbit/s) over [ta, t1] and Jain's index of the
 * per-flow goodput of the flows that got bytes in it (0 if none). A flow's
 * bytes in the window are its count at its last row <= t1 minus that at
 * its last row <= ta (0 without one); counts are cumulative, so "last" is
 * the maximum.
 */
static double goodput(int64_t *g, size_t n, int64_t ta, int64_t t1,
		      double *jain)
{
	double sum = 0, sumsq = 0;
	size_t i = 0, j, active = 0;

	if (n)
		qsort(g, n, G_NCOL * sizeof(*g), cmp_flow);
	while (i < n) {
		int64_t base = 0, end = 0, *r;

		for (j = i; j < n && g[j * G_NCOL + G_ID] ==
				     g[i * G_NCOL + G_ID]; j++) {
			r = g + j * G_NCOL;
			if (r[G_T] <= ta && r[G_BYTES] > base)
				base = r[G_BYTES];
			if (r[G_T] <= t1 && r[G_BYTES] > end)
				end = r[G_BYTES];
		}
		if (end > base) {
			sum += end - base;
			sumsq += (double)(end - base) * (end - base);
			active++;
		}
		i = j;
	}
	*jain = active ? sum * sum / (active * sumsq) : 0;
	return sum * 8 / (t1 - ta);
}

/* The incast flow of id @id, or NULL. */
static const struct incast_flow *incast_of(int64_t id)
{
	size_t i;

	for (i = 0; i < ninc; i++)
		if (inc[i].id == id)
			return &inc[i];
	return NULL;
}

/*
 * The incast flows over [ta, t1], from goodput rows sorted by cmp_flow:
 * Jain's index of their bytes, every incast flow counted (one that got
 * nothing counts as 0; 0 if there are none), and the longest stall of
 * any: the longest time between rows at which its count grew, from its
 * first row in the window to its last (a flow ends its rows when it
 * ends). A flow that gets its fair share of R as N flows sees a count
 * that grows once every N x MSS / R at best, so at large N the stall
 * is long by itself.
 */
static double incast_flows(const int64_t *g, size_t n, int64_t ta,
			   int64_t t1, int64_t *stall_max)
{
	double sum = 0, sumsq = 0;
	size_t i = 0, j;

	*stall_max = 0;
	while (i < n) {
		int64_t id = g[i * G_NCOL + G_ID], base = 0, end = 0;
		int64_t last = -1, at = -1, prev = 0;
		int mine = incast_of(id) != NULL;
		const int64_t *r;

		for (j = i; j < n && g[j * G_NCOL + G_ID] == id; j++) {
			r = g + j * G_NCOL;
			if (r[G_T] <= ta && r[G_BYTES] > base)
				base = r[G_BYTES];
			if (r[G_T] > t1)
				continue;
			if (r[G_BYTES] > end)
				end = r[G_BYTES];
			if (r[G_T] < ta)
				continue;
			if (at < 0 || r[G_BYTES] > prev) {
				if (mine && at >= 0 && r[G_T] - at > *stall_max)
					*stall_max = r[G_T] - at;
				at = r[G_T];
			}
			prev = r[G_BYTES];
			last = r[G_T];
		}
		if (mine) {
			if (last - at > *stall_max)
				*stall_max = last - at;
			if (end > base) {
				sum += end - base;
				sumsq += (double)(end - base) * (end - base);
			}
		}
		i = j;
	}
	return sumsq > 0 ? sum * sum / (ninc * sumsq) : 0;
}

/* The senders' retransmitted segments: the sum of an id,retrans_segs CSV. */
static int64_t read_retrans(const char *path)
{
	size_t cap = 0;
	char *line = NULL, *field[3];
	FILE *f = csv_open(path, RETRANS_HDR, 0, &line, &cap);
	int64_t v, sum = 0;
	long n = 0;

	while (getline(&line, &cap, f) >= 0) {
		if (!csv_chomp(line))
			continue;
		n++;
		if (split_commas(line, field, 3) != 2 ||
		    parse_s64(field[1], &v) || v < 0)
			die("%s: row %ld: not an id,retrans_segs row", path, n);
		sum += v;
	}
	fclose(f);
	free(line);
	return sum;
}

/* The output: keys and formatted values, in order. */
static struct {
	const char *key;
	char val[48];
	int quote;
} out[48];
static int nout;

static void __attribute__((format(printf, 3, 4)))
add(const char *key, int quote, const char *fmt, ...)
{
	va_list ap;

	out[nout].key = key;
	out[nout].quote = quote;
	va_start(ap, fmt);
	vsnprintf(out[nout].val, sizeof(out[nout].val), fmt, ap);
	va_end(ap);
	nout++;
}

static void write_json(const char *path)
{
	FILE *f = open_out(path);
	int i;

	fputs("{\n", f);
	for (i = 0; i < nout; i++)
		fprintf(f, "  \"%s\": %s%s%s%s\n", out[i].key,
			out[i].quote ? "\"" : "", out[i].val,
			out[i].quote ? "\"" : "", i < nout - 1 ? "," : "");
	fputs("}\n", f);
	close_out(f, path);
}

/* Append one row; write the header first into a new or empty file. */
static void write_csv_row(const char *path)
{
	char hdr[1024] = "", *line = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "a+");
	int i;

	if (!f)
		die("%s: %s", path, strerror(errno));
	for (i = 0; i < nout; i++)
		snprintf(hdr + strlen(hdr), sizeof(hdr) - strlen(hdr), "%s%s",
			 i ? "," : "", out[i].key);
	rewind(f);
	if (getline(&line, &cap, f) < 0)
		fprintf(f, "%s\n", hdr);
	else if (csv_chomp(line), strcmp(line, hdr))
		die("%s: existing header differs from '%s'", path, hdr);
	free(line);
	for (i = 0; i < nout; i++)
		fprintf(f, "%s%s", i ? "," : "", out[i].val);
	fputc('\n', f);
	if (fclose(f))
		die("%s: write error", path);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "qdisc", required_argument, NULL, 'q' },
		{ "goodput", required_argument, NULL, 'g' },
		{ "flows", required_argument, NULL, 'f' },
		{ "algorithm", required_argument, NULL, 'a' },
		{ "link-mbps", required_argument, NULL, 'r' },
		{ "incast-us", required_argument, NULL, '0' },
		{ "end-us", required_argument, NULL, '1' },
		{ "bdp-bytes", required_argument, NULL, 'b' },
		{ "from-us", required_argument, NULL, 's' },
		{ "retrans", required_argument, NULL, 'x' },
		{ "serial-link", no_argument, NULL, 'l' },
		{ "json", required_argument, NULL, 'j' },
		{ "csv-row", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *qpath = NULL, *gpath = NULL, *fpath = NULL, *alg = NULL;
	const char *json = NULL, *csv = NULL, *rpath = NULL;
	int64_t t0 = -1, t1 = -1, ta = -1, bdp = 0, pre0, *gp, drops, *fct;
	int64_t stall, retrans = -1;
	double rate = 0, thr, thr_norm, avg_q, avg_w, score, gput, jain;
	double jain_inc;
	double pre_q = 0, pre_thr = 0;
	size_t ngp, a, b, pa, pb, peak, peak_w, nq_flows, nq_done;
	long nflows;
	int c;

	prog = "incast-analyze";
	while ((c = next_opt(argc, argv, opts, usage)) != -1) {
		switch (c) {
		case 'q':
			qpath = optarg;
			break;
		case 'g':
			gpath = optarg;
			break;
		case 'f':
			fpath = optarg;
			break;
		case 'a':
			alg = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'c':
			csv = optarg;
			break;
		case 'x':
			rpath = optarg;
			break;
		case 'l':
			serial_link = 1;
			break;
		case 'r':
			rate = arg_posf("--link-mbps", optarg);
			break;
		case '0':
			t0 = arg_nonneg("--incast-us", optarg);
			break;
		case '1':
			t1 = arg_nonneg("--end-us", optarg);
			break;
		case 's':
			ta = arg_nonneg("--from-us", optarg);
			break;
		case 'b':
			bdp = arg_pos("--bdp-bytes", optarg);
			break;
		}
	}
	if (!qpath || !gpath || !fpath || !alg || !rate || t0 < 0 || t1 < 0 ||
	    !bdp)
		die("--qdisc, --goodput, --flows, --algorithm, --link-mbps, "
		    "--incast-us, --end-us and --bdp-bytes are required");
	check_algorithm(alg);
	if (t1 <= t0)
		die("--end-us must be after --incast-us");
	if (ta < 0)
		ta = t0;
	if (ta >= t1)
		die("--from-us must be before --end-us");

	qd = csv_read_ints(qpath, QDISC_HDR, Q_NCOL, CSV_MONOTONIC, &nq);
	gp = csv_read_ints(gpath, GOODPUT_HDR, G_NCOL, 0, &ngp);
	nflows = read_flows(fpath, t1, &fct, &nq_flows, &nq_done);
	if (rpath)
		retrans = read_retrans(rpath);

	/* The window: samples a..b, the first at >= ta to the last <= t1. */
	a = first_from(ta, 0);
	b = first_from(t1, 1);
	if (b < a + 2 || Q(b - 1, Q_T) <= Q(a, Q_T))
		die("%s: %zu samples in [%lld, %lld] us, need 2 at different "
		    "times", qpath, b > a ? b - a : 0, (long long)ta,
		    (long long)t1);
	b--;
	peak = peak_queue(a, b, 0);
	peak_w = peak_queue(a, b, 1);
	thr = rate_mbps(a, b);
	thr_norm = 25 * thr / rate;	/* Gbit/s if the link were 25 Gbit/s */
	avg_q = mean_queue(a, b, 0);
	avg_w = mean_queue(a, b, 1);
	score = score_of(thr_norm, avg_q);
	if (!isfinite(score))
		die("throughput %.3f Mbit/s is absurd for --link-mbps %g",
		    thr, rate);
	drops = Q(b, Q_DROPS) - Q(a, Q_DROPS);
	if (drops < 0)		/* the kernel's counter is a u32 */
		drops += (int64_t)1 << 32;
	gput = goodput(gp, ngp, ta, t1, &jain);
	jain_inc = incast_flows(gp, ngp, ta, t1, &stall);

	/* Baseline before the incast, 0 where there are too few samples. */
	pre0 = t0 > t1 - t0 ? t0 - (t1 - t0) : 0;
	pa = first_from(pre0, 0);
	pb = first_from(t0, 0);
	if (pb > pa)
		pre_q = mean_queue(pa, pb - 1, 0);
	if (pb > pa + 1 && Q(pb - 1, Q_T) > Q(pa, Q_T))
		pre_thr = rate_mbps(pa, pb - 1);

	add("algorithm", 1, "%s", alg);
	add("avg_throughput_mbps", 0, "%.3f", thr);
	add("link_rate_mbps", 0, "%.3f", rate);
	add("avg_queue_bytes", 0, "%.3f", avg_q);
	add("p99_queue_bytes", 0, "%lld", (long long)p99_queue(a, b, 0));
	add("peak_queue_bytes", 0, "%lld", (long long)Q(peak, Q_BACKLOG));
	add("avg_waiting_bytes", 0, "%.3f", avg_w);
	add("p99_waiting_bytes", 0, "%lld", (long long)p99_queue(a, b, 1));
	add("peak_waiting_bytes", 0, "%lld", (long long)waiting(peak_w));
	add("drain_time_us", 0, "%lld", (long long)drain_time(t0, t1, bdp));
	add("combined_score", 0, "%.3f", score);
	add("waiting_score", 0, "%.3f", score_of(thr_norm, avg_w));
	add("thr_norm_gbps", 0, "%.3f", thr_norm);
	add("goodput_mbps", 0, "%.3f", gput);
	add("jain_index", 0, "%.4f", jain);
	add("drops", 0, "%lld", (long long)drops);
	add("incast_flows", 0, "%zu", ninc);
	add("incast_jain_index", 0, "%.4f", jain_inc);
	add("incast_stall_max_us", 0, "%lld", (long long)stall);
	add("incast_first_byte_max_us", 0, "%lld",
	    (long long)first_byte_max);
	add("retrans_segs", 0, "%lld", (long long)retrans);
	add("flows", 0, "%ld", nflows);
	add("queries", 0, "%zu", nq_flows);
	add("queries_done", 0, "%zu", nq_done);
	add("query_fct_p50_us", 0, "%lld",
	    (long long)percentile(fct, nq_done, 50));
	add("query_fct_p99_us", 0, "%lld",
	    (long long)percentile(fct, nq_done, 99));
	add("query_fct_max_us", 0, "%lld",
	    (long long)percentile(fct, nq_done, 100));
	add("samples", 0, "%zu", b - a + 1);
	add("mean_interval_us", 0, "%.3f",
	    (double)(Q(b, Q_T) - Q(a, Q_T)) / (b - a));
	add("window_start_us", 0, "%lld", (long long)ta);
	add("window_end_us", 0, "%lld", (long long)t1);
	add("pre_avg_queue_bytes", 0, "%.3f", pre_q);
	add("pre_throughput_mbps", 0, "%.3f", pre_thr);

	write_json(json);
	if (csv)
		write_csv_row(csv);
	free(fct);
	free(inc);
	free(gp);
	free(qd);
	return 0;
}
