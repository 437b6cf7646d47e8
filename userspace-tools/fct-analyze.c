// SPDX-License-Identifier: GPL-2.0
/*
 * fct-analyze: flow completion time slowdowns of one web-search run, from
 * tcpflows' flows.csv and websearch-gen's manifest: p50/p99/p99.9 of the
 * slowdown per flow-size bucket, as JSON. Bad arguments or input give one
 * line on stderr and exit status 2.
 *
 * FCT = completion_us - start_us (start: the scheduled connect(); the
 * receiver read the last byte at completion). Ideal FCT of a flow of S
 * bytes between a pair with propagation RTT P (no queues, no
 * serialization):
 *
 *   ideal = 1.5 P + max(0, S + 8 + 66 n - 2 MTU) * 8 / R,
 *   n = ceil((S + 8) / MSS) packets, MSS = MTU - 52
 *
 * one RTT for the handshake, half an RTT for the first packet, and the
 * line-rate transmission of the flow's wire bytes (payload, the 8-byte
 * tcpflows header, 66 bytes of Ethernet/IP/TCP+timestamp headers a
 * packet) less the burst of the token buckets: every port of the testbed
 * is a token bucket at its rate with a burst of 2 MTU bytes, so on an
 * empty path the first 2 MTU bytes pass without waiting and the rest
 * follow at R; veth pairs have no store-and-forward delay, so there is no
 * per-hop term. This is the
 * testbed's exact lower bound for a lone flow starting at line rate,
 * less the hosts' processing time. Slowdown = FCT / ideal.
 *
 * Percentiles are nearest-rank over the completed flows of a bucket;
 * flows that did not complete by the end of the run are counted
 * (unfinished) per bucket, never dropped silently.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char usage[] =
"usage: fct-analyze --flows F --manifest F --algorithm NAME --load PCT\n"
"         --link-mbps R --prop-rtt-rack-us P1 --prop-rtt-cross-us P2\n"
"         [--mtu M] [--json OUT] [--per-flow OUT]\n"
"F: tcpflows' flows.csv and websearch-gen's manifest (same ids and sizes).\n"
"P1, P2: propagation RTT (no serialization) of a pair on one leaf and of\n"
"a pair across leaves. Writes per size bucket (short < 100 KB, medium\n"
"[100 KB, 1 MB), long >= 1 MB, all, and 11 finer buckets) the number of\n"
"flows, completed and unfinished ones, p50/p99/p99.9 slowdown\n"
"(p999_meaningful: at least 1000 completed flows) as JSON to stdout or\n"
"OUT; --per-flow writes one CSV row per flow.\n";

#define MIN_P999 1000
#define HDR_BYTES 66	/* Ethernet 14 + IPv4 20 + TCP 20 + timestamps 12 */
#define TFL_HDR 8	/* tcpflows' flow header */

struct flow {
	long long id, src, dst, start, bytes, connect, started, done;
	int cross, completed;
	char status[16];
	double fct, ideal, slowdown;
};

static struct flow *fl;
static size_t nfl;

static long long num(const char *path, size_t lineno, const char *s)
{
	int64_t v;

	if (parse_s64(s, &v))
		die("%s:%zu: '%s' is not an integer", path, lineno, s);
	return v;
}

#define MANIFEST_HDR "id,src,dst,src_leaf,dst_leaf,start_us,bytes"
#define FLOWS_HDR "id,src_netns,cc,start_us,bytes,first_byte_us," \
		  "completion_us,bytes_received,connect_us,started_us," \
		  "bytes_sent,status"

static void read_manifest(const char *path)
{
	size_t cap = 0, lineno = 1, alloc = 0;
	char *line = NULL, *f[8];
	FILE *in = csv_open(path, MANIFEST_HDR, 0, &line, &cap);

	while (getline(&line, &cap, in) >= 0) {
		struct flow *x;

		lineno++;
		if (!csv_chomp(line))
			continue;
		if (split_commas(line, f, 7) != 7)
			die("%s:%zu: expected 7 fields", path, lineno);
		if (nfl == alloc) {
			alloc = alloc ? 2 * alloc : 1024;
			fl = realloc(fl, alloc * sizeof(*fl));
			if (!fl)
				die("out of memory");
		}
		x = &fl[nfl];
		memset(x, 0, sizeof(*x));
		x->id = num(path, lineno, f[0]);
		x->src = num(path, lineno, f[1]);
		x->dst = num(path, lineno, f[2]);
		x->cross = num(path, lineno, f[3]) != num(path, lineno, f[4]);
		x->start = num(path, lineno, f[5]);
		x->bytes = num(path, lineno, f[6]);
		x->done = -2;	/* not in flows.csv yet */
		if (x->id != (long long)nfl)
			die("%s:%zu: id %lld, expected %zu (ids 0..N-1 in order)",
			    path, lineno, x->id, nfl);
		if (x->bytes <= 0 || x->start < 0)
			die("%s:%zu: bad size or start", path, lineno);
		nfl++;
	}
	fclose(in);
	free(line);
	if (!nfl)
		die("%s: no flows", path);
}

static void read_flows(const char *path)
{
	size_t cap = 0, lineno = 1, n = 0;
	char *line = NULL, *f[13];
	FILE *in = csv_open(path, FLOWS_HDR, 0, &line, &cap);

	while (getline(&line, &cap, in) >= 0) {
		struct flow *x;
		long long id;

		lineno++;
		if (!csv_chomp(line))
			continue;
		if (split_commas(line, f, 12) != 12)
			die("%s:%zu: expected 12 fields", path, lineno);
		id = num(path, lineno, f[0]);
		if (id < 0 || id >= (long long)nfl)
			die("%s:%zu: flow %lld is not in the manifest", path,
			    lineno, id);
		x = &fl[id];
		if (x->done != -2)
			die("%s:%zu: flow %lld twice", path, lineno, id);
		if (num(path, lineno, f[3]) != x->start ||
		    num(path, lineno, f[4]) != x->bytes)
			die("%s:%zu: flow %lld: start or size differ from the "
			    "manifest", path, lineno, id);
		x->done = num(path, lineno, f[6]);
		x->connect = num(path, lineno, f[8]);
		x->started = num(path, lineno, f[9]);
		snprintf(x->status, sizeof(x->status), "%s", f[11]);
		x->completed = !strcmp(f[11], "done") && x->done >= x->start &&
			       num(path, lineno, f[7]) == x->bytes;
		n++;
	}
	fclose(in);
	free(line);
	if (n != nfl)
		die("%s: %zu flows, the manifest has %zu", path, n, nfl);
}

/* Size buckets [lo, hi) in bytes; hi 0: no upper bound. */
struct bucket {
	const char *name;
	long long lo, hi;
};

static const struct bucket coarse[] = {
	{ "short", 0, 100000 }, { "medium", 100000, 1000000 },
	{ "long", 1000000, 0 }, { "all", 0, 0 },
};

/* Finer buckets: edges at CDF points near each decile of the workload. */
static const long long fine_edges[] = { 0, 6000, 20000, 30000, 50000, 80000,
	200000, 1000000, 2000000, 5000000, 10000000 };
#define NFINE (sizeof(fine_edges) / sizeof(fine_edges[0]))

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the value at rank ceil(q n), q in permille of 1000. */
static double pct(const double *v, size_t n, unsigned int q)
{
	size_t r = ((size_t)q * n + 999) / 1000;

	return v[r ? r - 1 : 0];
}

static void bucket_json(FILE *out, const char *name, long long lo,
			long long hi, int last)
{
	size_t n = 0, done = 0, i;
	double *s = malloc(nfl * sizeof(*s)), sum = 0;
	long long *sz = malloc(nfl * sizeof(*sz));

	if (!s || !sz)
		die("out of memory");
	for (i = 0; i < nfl; i++) {
		if (fl[i].bytes < lo || (hi && fl[i].bytes >= hi))
			continue;
		sz[n++] = fl[i].bytes;
		if (fl[i].completed) {
			s[done++] = fl[i].slowdown;
			sum += fl[i].slowdown;
		}
	}
	qsort(s, done, sizeof(*s), cmp_dbl);
	qsort(sz, n, sizeof(*sz), cmp_ll);
	fprintf(out, "  {\"bucket\": \"%s\", \"lo_bytes\": %lld, "
		"\"hi_bytes\": %lld, \"flows\": %zu, \"completed\": %zu, "
		"\"unfinished\": %zu, \"median_size_bytes\": %lld",
		name, lo, hi ? hi : -1, n, done, n - done,
		n ? sz[(n - 1) / 2] : -1);
	if (done)
		fprintf(out, ", \"p50_slowdown\": %.4f, \"p99_slowdown\": "
			"%.4f, \"p999_slowdown\": %.4f, \"max_slowdown\": "
			"%.4f, \"mean_slowdown\": %.4f",
			pct(s, done, 500), pct(s, done, 990),
			pct(s, done, 999), s[done - 1], sum / done);
	else
		fputs(", \"p50_slowdown\": null, \"p99_slowdown\": null, "
		      "\"p999_slowdown\": null, \"max_slowdown\": null, "
		      "\"mean_slowdown\": null", out);
	fprintf(out, ", \"p999_meaningful\": %s}%s\n",
		done >= MIN_P999 ? "true" : "false", last ? "" : ",");
	free(s);
	free(sz);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "flows", required_argument, NULL, 'f' },
		{ "manifest", required_argument, NULL, 'm' },
		{ "algorithm", required_argument, NULL, 'a' },
		{ "load", required_argument, NULL, 'l' },
		{ "link-mbps", required_argument, NULL, 'r' },
		{ "prop-rtt-rack-us", required_argument, NULL, '1' },
		{ "prop-rtt-cross-us", required_argument, NULL, '2' },
		{ "mtu", required_argument, NULL, 'M' },
		{ "json", required_argument, NULL, 'j' },
		{ "per-flow", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *fpath = NULL, *mpath = NULL, *alg = NULL, *json = NULL;
	const char *per = NULL;
	double load = -1, rate = 0, p1 = 0, p2 = 0, sd_min = INFINITY;
	uint64_t mtu = 1500, mss;
	size_t i, done = 0, late = 0;
	long long max_late = 0, last_start = 0;
	FILE *out;
	int c;

	prog = "fct-analyze";
	while ((c = next_opt(argc, argv, opts, usage)) != -1) {
		switch (c) {
		case 'f':
			fpath = optarg;
			break;
		case 'm':
			mpath = optarg;
			break;
		case 'a':
			alg = optarg;
			break;
		case 'j':
			json = optarg;
			break;
		case 'p':
			per = optarg;
			break;
		case 'l':	/* 0: not a load (lone flows) */
			load = strcmp(optarg, "0") ? arg_posf("--load", optarg) : 0;
			break;
		case 'r':
			rate = arg_posf("--link-mbps", optarg);
			break;
		case '1':
			p1 = arg_posf("--prop-rtt-rack-us", optarg);
			break;
		case '2':
			p2 = arg_posf("--prop-rtt-cross-us", optarg);
			break;
		case 'M':
			mtu = arg_u64("--mtu", optarg);
			if (mtu < 576 || mtu > 65535)
				die("--mtu: '%s' is not in 576..65535", optarg);
			break;
		}
	}
	if (!fpath || !mpath || !alg || load < 0 || !rate || !p1 || !p2)
		die("--flows, --manifest, --algorithm, --load, --link-mbps, "
		    "--prop-rtt-rack-us and --prop-rtt-cross-us are required");
	check_algorithm(alg);
	mss = mtu - 52;

	read_manifest(mpath);
	read_flows(fpath);
	for (i = 0; i < nfl; i++) {
		struct flow *x = &fl[i];
		long long pkts = (x->bytes + TFL_HDR + mss - 1) / mss;

		x->ideal = 1.5 * (x->cross ? p2 : p1) +
			   fmax(0, x->bytes + TFL_HDR + pkts * HDR_BYTES -
				2.0 * mtu) * 8 / rate;
		if (x->start > last_start)
			last_start = x->start;
		if (x->started >= 0 && x->started - x->start > max_late)
			max_late = x->started - x->start;
		late += x->started < 0;
		if (!x->completed)
			continue;
		x->fct = x->done - x->start;
		x->slowdown = x->fct / x->ideal;
		if (x->slowdown < sd_min)
			sd_min = x->slowdown;
		done++;
	}

	if (per) {
		FILE *pf = open_out(per);

		fputs("id,src,dst,cross,bytes,start_us,started_us,connect_us,"
		      "completion_us,fct_us,ideal_us,slowdown,status\n", pf);
		for (i = 0; i < nfl; i++) {
			struct flow *x = &fl[i];

			fprintf(pf, "%lld,%lld,%lld,%d,%lld,%lld,%lld,%lld,"
				"%lld,%.0f,%.1f,%.4f,%s\n", x->id, x->src,
				x->dst, x->cross, x->bytes, x->start,
				x->started, x->connect, x->done,
				x->completed ? x->fct : -1, x->ideal,
				x->completed ? x->slowdown : -1, x->status);
		}
		if (fclose(pf))
			die("%s: write error", per);
	}

	out = open_out(json);
	fprintf(out, "{\"algorithm\": \"%s\", \"load_pct\": %g, "
		"\"link_mbps\": %g, \"mtu\": %llu,\n"
		" \"prop_rtt_rack_us\": %g, \"prop_rtt_cross_us\": %g,\n"
		" \"flows\": %zu, \"completed\": %zu, \"unfinished\": %zu, "
		"\"never_started\": %zu, \"max_start_lateness_us\": %lld,\n"
		" \"last_start_us\": %lld, \"min_slowdown\": %.4f,\n"
		" \"p999_min_flows\": %d,\n \"buckets\": [\n",
		alg, load, rate, (unsigned long long)mtu, p1, p2, nfl, done,
		nfl - done, late, max_late, last_start,
		done ? sd_min : 0.0, MIN_P999);
	for (i = 0; i < 4; i++)
		bucket_json(out, coarse[i].name, coarse[i].lo, coarse[i].hi,
			    i == 3);
	fputs(" ],\n \"fine_buckets\": [\n", out);
	for (i = 0; i < NFINE; i++) {
		char name[32];

		snprintf(name, sizeof(name), "fine%zu", i);
		bucket_json(out, name, fine_edges[i],
			    i + 1 < NFINE ? fine_edges[i + 1] : 0,
			    i == NFINE - 1);
	}
	fputs(" ]\n}\n", out);
	close_out(out, json);
	free(fl);
	return 0;
}
