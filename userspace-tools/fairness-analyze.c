// SPDX-License-Identifier: GPL-2.0
/*
 * fairness-analyze: per-phase metrics of one fairness experiment
 * (testbed/fairness/run.sh) from tcpflows' goodput.csv and flows.csv: one JSON
 * object on stdout or in a file. F flows, flow i active from i * P to
 * (i + F) * P, make 2F - 1 phases of P us with 1, 2, .., F, .., 2, 1
 * flows. Times are us since the experiment epoch. Bad arguments or input
 * give one line on stderr and exit status 2.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

static const char usage[] =
"usage: fairness-analyze --goodput F --flows F --phase-us P --algorithm NAME\n"
"         --link-mbps R [--goodput-ratio G] [--phases N] [--settle-us S]\n"
"         [--smooth K] [--tolerance PCT] [--starve-fraction X] [--rtt-us T]\n"
"         [--json OUT]\n"
"F flows (the rows of --flows, ids 0..F-1), flow i started at i * P (or\n"
"up to S later: a seeded start jitter) and active until (i + F) * P:\n"
"N = 2F - 1 phases (checked if --phases is given), phase k = [kP, (k+1)P).\n"
"Per phase, over [kP + S, (k+1)P] (S, the convergence allowance, defaults\n"
"to P/4):\n"
"  flow_rates_mbps   each active flow's mean goodput (bytes between its\n"
"                    first and last goodput row in the window / time)\n"
"  flow_stddev_mbps  std dev of its rate over the goodput intervals there\n"
"  rate_stddev_mbps  mean of those over the active flows\n"
"  jain_index        Jain's index of the active flows' mean rates\n"
"  throughput_mbps   all flows' goodput (draining ones too), first to last\n"
"                    goodput tick in the window\n"
"  starved_us        the longest stretch during which one active flow's\n"
"                    average over K goodput intervals (below; averages\n"
"                    wholly in the window) was below X (default 0.7) of\n"
"                    the fair share: consecutive goodput ticks where it\n"
"                    was, each counting the interval that ends at it; a\n"
"                    flow's missing rows count as no goodput. 0 if never\n"
"  starved_flow      that flow (null if starved_us is 0)\n"
"  starved_rtts      starved_us / T with --rtt-us T (the base RTT), else\n"
"                    null\n"
"The fair share of n flows is G * R / n: G (default 1) is the goodput a\n"
"link of rate R can carry per bit, e.g. 1448/1514 for TCP with timestamps\n"
"in 1500-byte frames, as tbf counts Ethernet frames.\n"
"From the phase's start (whole phase): the rate of a flow averaged over K\n"
"goodput intervals (default 3), the time of each average being the\n"
"middle of its K intervals:\n"
"  convergence_time_us  phases where a flow starts (0..F-1): time from\n"
"                    its start (flows.csv) to the first average within\n"
"                    PCT% (default 10) of the fair share; -1 if never in\n"
"                    the phase; null in phases where no flow starts\n"
"  all_fair_time_us  every phase: time from its start to the first tick\n"
"                    where every active flow's average is within PCT% of\n"
"                    the fair share; -1 if never in the phase\n";

#define GOODPUT_HDR "time_us,flow_id,bytes_total"
enum { G_T, G_ID, G_BYTES, G_NCOL };
#define FLOWS_HDR "id,src_netns,cc,start_us,"
#define MAX_FLOWS 64

/* flows.csv: ids must be 0..n-1 in order; returns n, start times in @start. */
static int read_flows(const char *path, int64_t *start)
{
	size_t cap = 0;
	char *line = NULL, *fld[4];
	FILE *f = csv_open(path, FLOWS_HDR, 1, &line, &cap);
	int n = 0, lineno = 1;

	while (getline(&line, &cap, f) >= 0) {
		int64_t id;

		lineno++;
		if (!csv_chomp(line))
			continue;
		if (n == MAX_FLOWS)
			die("%s: more than %d flows", path, MAX_FLOWS);
		if (split_commas(line, fld, 4) < 4 ||
		    parse_s64(fld[0], &id) || parse_s64(fld[3], &start[n]))
			die("%s:%d: expected id,src_netns,cc,start_us,...",
			    path, lineno);
		if (id != n)
			die("%s:%d: flow id %lld, expected %d (ids 0..F-1 in "
			    "order)", path, lineno, (long long)id, n);
		n++;
	}
	fclose(f);
	free(line);
	if (!n)
		die("%s: no flows", path);
	return n;
}

/* One flow's goodput series: times and cumulative bytes, time-sorted. */
struct series {
	int64_t *t, *b;
	size_t n;
};

static struct series fl[MAX_FLOWS];
static int nflows;

/* Index of the first row of @s at time >= t (s->n if none). */
static size_t first_at(const struct series *s, int64_t t)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->t[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Cumulative bytes of @s at its last row at or before t; 0 if none. */
static int64_t bytes_at(const struct series *s, int64_t t)
{
	size_t i = first_at(s, t + 1);

	return i ? s->b[i - 1] : 0;
}

/*
 * Mean rate (Mbit/s) of @s over its rows in [a, b]: bytes from the first
 * to the last, over that time; and the population std dev of its interval
 * rates (row to row) there. Both 0 with fewer than two rows.
 */
static void window_stats(const struct series *s, int64_t a, int64_t b,
			 double *mean, double *sd, size_t *nint)
{
	size_t lo = first_at(s, a), hi = first_at(s, b + 1), j;
	double sum = 0, sumsq = 0, m;

	*mean = *sd = 0;
	*nint = 0;
	if (hi < lo + 2)
		return;
	hi--;
	*mean = (s->b[hi] - s->b[lo]) * 8.0 / (s->t[hi] - s->t[lo]);
	for (j = lo + 1; j <= hi; j++) {
		double r = (s->b[j] - s->b[j - 1]) * 8.0 /
			   (s->t[j] - s->t[j - 1]);

		sum += r;
		sumsq += r * r;
	}
	*nint = hi - lo;
	m = sum / *nint;
	*sd = sqrt(fmax(0, sumsq / *nint - m * m));
}

/* Rate of @s smoothed over @k intervals ending at row j; -1 if j < k. */
static double smoothed(const struct series *s, size_t j, int k)
{
	if (j < (size_t)k)
		return -1;
	return (s->b[j] - s->b[j - k]) * 8.0 / (s->t[j] - s->t[j - k]);
}

static int within(double r, double fair, double tol)
{
	return r >= 0 && fabs(r - fair) <= tol * fair;
}

/* All distinct row times, sorted: the goodput ticks. */
static int64_t *ticks;
static size_t nticks;

static int cmp_s64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Sort by flow, then time. */
static int cmp_row(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	int c = cmp_s64(x + G_ID, y + G_ID);

	return c ? c : cmp_s64(x + G_T, y + G_T);
}

static void build_series(int64_t *g, size_t n, const char *path)
{
	size_t i, j;
	int f;

	qsort(g, n, G_NCOL * sizeof(*g), cmp_row);
	for (f = 0; f < nflows; f++) {
		fl[f].t = malloc((n + 1) * sizeof(int64_t));
		fl[f].b = malloc((n + 1) * sizeof(int64_t));
		if (!fl[f].t || !fl[f].b)
			die("out of memory");
	}
	ticks = malloc((n + 1) * sizeof(*ticks));
	if (!ticks)
		die("out of memory");
	for (i = 0; i < n; i++) {
		int64_t *r = g + i * G_NCOL;
		struct series *s;

		if (r[G_ID] >= nflows)
			die("%s: flow %lld is not in the flows file", path,
			    (long long)r[G_ID]);
		s = &fl[r[G_ID]];
		if (s->n && r[G_T] == s->t[s->n - 1])
			die("%s: flow %lld has two rows at %lld us", path,
			    (long long)r[G_ID], (long long)r[G_T]);
		if (s->n && r[G_BYTES] < s->b[s->n - 1])
			die("%s: flow %lld: bytes_total decreases at %lld us",
			    path, (long long)r[G_ID], (long long)r[G_T]);
		s->t[s->n] = r[G_T];
		s->b[s->n] = r[G_BYTES];
		s->n++;
		ticks[i] = r[G_T];
	}
	qsort(ticks, n, sizeof(*ticks), cmp_s64);
	for (i = j = 0; i < n; i++)
		if (!j || ticks[i] != ticks[j - 1])
			ticks[j++] = ticks[i];
	nticks = j;
}

/* Median of the row-to-row intervals of every flow (0 if none). */
static int64_t median_interval(void)
{
	size_t n = 0, i;
	int64_t *d, m;
	int f;

	for (f = 0; f < nflows; f++)
		n += fl[f].n ? fl[f].n - 1 : 0;
	if (!n)
		return 0;
	d = malloc(n * sizeof(*d));
	if (!d)
		die("out of memory");
	for (n = 0, f = 0; f < nflows; f++)
		for (i = 1; i < fl[f].n; i++)
			d[n++] = fl[f].t[i] - fl[f].t[i - 1];
	qsort(d, n, sizeof(*d), cmp_s64);
	m = d[n / 2];
	free(d);
	return m;
}

/*
 * Time from @t0 to the middle of the first average (over k intervals,
 * ending at a tick in (t0, t1], starting at or after t0) of every flow in
 * [lo, hi) within the tolerance of @fair; -1 if none. Goodput rows of all
 * flows are taken at the same ticks, so the averages span the same time.
 */
static int64_t all_fair_time(int lo, int hi, int64_t t0, int64_t t1,
			     double fair, int k, double tol)
{
	int64_t from = 0;
	size_t i, j;
	int f;

	for (i = 0; i < nticks; i++) {
		if (ticks[i] <= t0)
			continue;
		if (ticks[i] > t1)
			break;
		for (f = lo; f < hi; f++) {
			j = first_at(&fl[f], ticks[i]);
			if (j == fl[f].n || fl[f].t[j] != ticks[i] ||
			    j < (size_t)k || fl[f].t[j - k] < t0 ||
			    !within(smoothed(&fl[f], j, k), fair, tol))
				break;
			from = fl[f].t[j - k];
		}
		if (f == hi)
			return (ticks[i] + from) / 2 - t0;
	}
	return -1;
}

/*
 * Time from @t0 to the middle of the first average of @s (over k
 * intervals, in [t0, t1]) within the tolerance of @fair; -1 if none.
 */
static int64_t convergence_time(const struct series *s, int64_t t0,
				int64_t t1, double fair, int k, double tol)
{
	size_t j;

	for (j = first_at(s, t0 + 1); j < s->n && s->t[j] <= t1; j++)
		if (j >= (size_t)k && s->t[j - k] >= t0 &&
		    within(smoothed(s, j, k), fair, tol))
			return (s->t[j] + s->t[j - k]) / 2 - t0;
	return -1;
}

/*
 * The longest stretch in the window [a, t1] during which flow @f's
 * average over k goodput ticks (bytes at each tick: bytes_at, so missing
 * rows are no goodput) was below @thr Mbit/s: consecutive ticks whose
 * average, starting at or after a, is below; each counts the interval from
 * the tick before it. 0 if none.
 */
static int64_t starved_time(int f, int64_t a, int64_t t1, double thr, int k)
{
	int64_t best = 0, from = -1;
	size_t i;

	for (i = k; i < nticks && ticks[i] <= t1; i++) {
		int64_t b;

		if (ticks[i - k] < a)
			continue;
		b = bytes_at(&fl[f], ticks[i]) - bytes_at(&fl[f], ticks[i - k]);
		if (b * 8.0 / (ticks[i] - ticks[i - k]) >= thr) {
			from = -1;
			continue;
		}
		if (from < 0)
			from = ticks[i - 1];
		if (ticks[i] - from > best)
			best = ticks[i] - from;
	}
	return best;
}

static void print_list(FILE *o, const double *v, const int *ids, int n,
		       const char *fmt)
{
	int i;

	fputc('[', o);
	for (i = 0; i < n; i++) {
		if (i)
			fputs(", ", o);
		if (ids)
			fprintf(o, "%d", ids[i]);
		else
			fprintf(o, fmt, v[i]);
	}
	fputc(']', o);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "goodput", required_argument, NULL, 'g' },
		{ "flows", required_argument, NULL, 'f' },
		{ "phase-us", required_argument, NULL, 'p' },
		{ "phases", required_argument, NULL, 'n' },
		{ "algorithm", required_argument, NULL, 'a' },
		{ "link-mbps", required_argument, NULL, 'r' },
		{ "goodput-ratio", required_argument, NULL, 'G' },
		{ "settle-us", required_argument, NULL, 's' },
		{ "smooth", required_argument, NULL, 'k' },
		{ "tolerance", required_argument, NULL, 't' },
		{ "starve-fraction", required_argument, NULL, 'x' },
		{ "rtt-us", required_argument, NULL, 'R' },
		{ "json", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *gpath = NULL, *fpath = NULL, *alg = NULL, *json = NULL;
	int64_t phase = 0, nphases = 0, settle = -1, smooth = 3, rtt = 0;
	int64_t start[MAX_FLOWS], *g;
	double rate = 0, tol = 10, gratio = 1, starve = 0.7;
	size_t ng;
	FILE *o;
	int c, k;

	prog = "fairness-analyze";
	while ((c = next_opt(argc, argv, opts, usage)) != -1) {
		switch (c) {
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
		case 'p':
			phase = arg_pos("--phase-us", optarg);
			break;
		case 'n':
			nphases = arg_pos("--phases", optarg);
			break;
		case 's':
			settle = arg_nonneg("--settle-us", optarg);
			break;
		case 'k':
			smooth = arg_pos("--smooth", optarg);
			break;
		case 'r':
			rate = arg_posf("--link-mbps", optarg);
			break;
		case 't':
			tol = arg_posf("--tolerance", optarg);
			break;
		case 'x':
			starve = arg_posf("--starve-fraction", optarg);
			if (starve > 1)
				die("--starve-fraction: '%s' is more than 1",
				    optarg);
			break;
		case 'R':
			rtt = arg_pos("--rtt-us", optarg);
			break;
		case 'G':
			gratio = arg_posf("--goodput-ratio", optarg);
			if (gratio > 1)
				die("--goodput-ratio: '%s' is more than 1",
				    optarg);
			break;
		}
	}
	if (!gpath || !fpath || !alg || !rate || !phase)
		die("--goodput, --flows, --phase-us, --algorithm and "
		    "--link-mbps are required");
	check_algorithm(alg);
	if (settle < 0)
		settle = phase / 4;
	if (settle >= phase)
		die("--settle-us: %lld is not shorter than the phase",
		    (long long)settle);
	if (tol >= 100)
		die("--tolerance: '%g' is not below 100 (%%)", tol);
	if (smooth > 1000)
		die("--smooth: at most 1000 intervals");
	tol /= 100;

	nflows = read_flows(fpath, start);
	if (nphases && nphases != 2 * nflows - 1)
		die("--phases %lld, but %d flows make %d phases",
		    (long long)nphases, nflows, 2 * nflows - 1);
	nphases = 2 * nflows - 1;
	for (k = 0; k < nflows; k++)
		if (start[k] < k * phase ||
		    start[k] > k * phase + settle)
			die("%s: flow %d starts at %lld us, expected %lld "
			    "(%d x --phase-us) or up to --settle-us later",
			    fpath, k, (long long)start[k],
			    (long long)(k * phase), k);
	g = csv_read_ints(gpath, GOODPUT_HDR, G_NCOL, CSV_NONNEG, &ng);
	build_series(g, ng, gpath);
	free(g);

	o = open_out(json);
	fprintf(o, "{\n  \"algorithm\": \"%s\",\n  \"link_mbps\": %.3f,\n"
		"  \"goodput_ratio\": %.4f,\n"
		"  \"flows\": %d,\n  \"phase_us\": %lld,\n  \"settle_us\": %lld,\n"
		"  \"interval_us\": %lld,\n  \"smooth_intervals\": %lld,\n"
		"  \"tolerance\": %.4f,\n  \"starve_fraction\": %.4f,\n"
		"  \"rtt_us\": ",
		alg, rate, gratio, nflows, (long long)phase, (long long)settle,
		(long long)median_interval(), (long long)smooth, tol, starve);
	if (rtt)
		fprintf(o, "%lld", (long long)rtt);
	else
		fputs("null", o);
	fputs(",\n  \"phases\": [", o);
	for (k = 0; k < nphases; k++) {
		int64_t t0 = k * phase, t1 = t0 + phase, a = t0 + settle;
		int lo = k < nflows ? 0 : k - nflows + 1;
		int hi = k < nflows ? k + 1 : nflows, n = hi - lo, f;
		double mean[MAX_FLOWS], sd[MAX_FLOWS], sum = 0, sumsq = 0;
		double sdsum = 0, fair = gratio * rate / n, agg = 0, jain;
		size_t ta, tb, nint, minint = (size_t)-1;
		int ids[MAX_FLOWS], sflow = -1;
		int64_t starved = 0, st;

		for (f = lo; f < hi; f++) {
			window_stats(&fl[f], a, t1, &mean[f - lo], &sd[f - lo],
				     &nint);
			ids[f - lo] = f;
			sum += mean[f - lo];
			sumsq += mean[f - lo] * mean[f - lo];
			sdsum += sd[f - lo];
			if (nint < minint)
				minint = nint;
			st = starved_time(f, a, t1, starve * fair, smooth);
			if (st > starved) {
				starved = st;
				sflow = f;
			}
		}
		jain = sumsq > 0 ? sum * sum / (n * sumsq) : 0;
		/* Aggregate: first to last tick in [a, t1], every flow. */
		for (ta = 0; ta < nticks && ticks[ta] < a; ta++)
			;
		for (tb = ta; tb + 1 < nticks && ticks[tb + 1] <= t1; tb++)
			;
		if (ta >= nticks || tb == ta)
			die("%s: phase %d: fewer than 2 goodput ticks in "
			    "[%lld, %lld] us", gpath, k, (long long)a,
			    (long long)t1);
		for (f = 0; f < nflows; f++)
			agg += bytes_at(&fl[f], ticks[tb]) -
			       bytes_at(&fl[f], ticks[ta]);
		agg = agg * 8 / (ticks[tb] - ticks[ta]);

		fprintf(o, "%s\n    {\"phase\": %d, \"start_us\": %lld, "
			"\"end_us\": %lld, \"window_start_us\": %lld, "
			"\"flows\": %d,\n     \"active\": ", k ? "," : "", k,
			(long long)t0, (long long)t1, (long long)a, n);
		print_list(o, NULL, ids, n, NULL);
		fprintf(o, ", \"fair_share_mbps\": %.3f, \"jain_index\": %.4f,"
			"\n     \"newcomer\": ", fair, jain);
		if (k < nflows)
			fprintf(o, "%d, \"convergence_time_us\": %lld", k,
				(long long)convergence_time(&fl[k], start[k],
							    t1, fair, smooth,
							    tol));
		else
			fputs("null, \"convergence_time_us\": null", o);
		fprintf(o, ", \"all_fair_time_us\": %lld,\n"
			"     \"rate_stddev_mbps\": %.3f, \"throughput_mbps\": %.3f,"
			" \"min_intervals\": %zu,\n     \"flow_rates_mbps\": ",
			(long long)all_fair_time(lo, hi, t0, t1, fair, smooth,
						 tol),
			sdsum / n, agg, minint);
		print_list(o, mean, NULL, n, "%.3f");
		fputs(", \"flow_stddev_mbps\": ", o);
		print_list(o, sd, NULL, n, "%.3f");
		fprintf(o, ",\n     \"starved_us\": %lld, \"starved_flow\": ",
			(long long)starved);
		if (sflow >= 0)
			fprintf(o, "%d", sflow);
		else
			fputs("null", o);
		fputs(", \"starved_rtts\": ", o);
		if (rtt)
			fprintf(o, "%.2f", (double)starved / rtt);
		else
			fputs("null", o);
		fputc('}', o);
	}
	fputs("\n  ]\n}\n", o);
	close_out(o, json);
	for (k = 0; k < nflows; k++) {
		free(fl[k].t);
		free(fl[k].b);
	}
	free(ticks);
	return 0;
}
