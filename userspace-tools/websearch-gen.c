// SPDX-License-Identifier: GPL-2.0
/*
 * websearch-gen: Poisson flow arrivals between random host pairs with
 * sizes from an empirical CDF, as a tcpflows flow file plus a manifest.
 *
 * Hosts are numbered 1..N, split evenly over K leaves in order (host H is
 * on leaf (H-1)/(N/K)+1), named and addressed as testbed/lib/leafspine.sh
 * makes them: namespace PREFIX<H>, address 10.<leaf>.<index>.2.
 *
 * Load: L percent of the busiest link class. Per unit of arrival rate
 * lambda (flows/s) and mean size E (bytes), a host link carries
 * lambda*E/N each way; a leaf uplink carries lambda*E*c/K each way, where
 * c is the fraction of pairs that cross leaves. lambda is set so that the
 * larger of the two utilizations is L.
 *
 * Sizes: u uniform in [0, 1), linear interpolation of the CDF between the
 * two points around u (flat steps skipped), rounded, at least 1 byte.
 * Randomness: splitmix64 seeded with --seed, identical on every libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char usage[] =
"usage: websearch-gen --cdf F --load PCT --hosts N --link-mbps R --flows N\n"
"         --seed S --flow-file OUT --manifest OUT [--leaves K]\n"
"         [--uplink-mbps U] [--pairs any|cross] [--start-us T]\n"
"         [--port P] [--prefix NS]\n"
"Writes N flows (Poisson arrivals from T, default 100000 us) to the\n"
"tcpflows flow file and one row each to the manifest CSV\n"
"(id,src,dst,src_leaf,dst_leaf,start_us,bytes); prints the parameters as\n"
"JSON on stdout. PCT: load in percent (0-100] of the busiest link class:\n"
"host links (R) or leaf uplinks (U, default R). K default 2, pairs: any\n"
"(default; src != dst) or cross (src and dst on different leaves), port\n"
"5001, prefix tb_h.\n";

#define MAX_POINTS 1024

static double cdf_x[MAX_POINTS], cdf_p[MAX_POINTS];
static int npoints;

static void read_cdf(const char *path)
{
	char line[256];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t"), *end;
		double x, pr;

		lineno++;
		p[strcspn(p, "#\r\n")] = '\0';
		if (!*p)
			continue;
		errno = 0;
		x = strtod(p, &end);
		if (errno || end == p)
			die("%s:%d: expected 'bytes probability'", path, lineno);
		p = end;
		pr = strtod(p, &end);
		if (errno || end == p || end[strspn(end, " \t")])
			die("%s:%d: expected 'bytes probability'", path, lineno);
		if (!isfinite(x) || x < 0 || !isfinite(pr) || pr < 0 || pr > 1)
			die("%s:%d: out of range", path, lineno);
		if (npoints && (x < cdf_x[npoints - 1] ||
				pr < cdf_p[npoints - 1]))
			die("%s:%d: not increasing", path, lineno);
		if (npoints == MAX_POINTS)
			die("%s: more than %d points", path, MAX_POINTS);
		cdf_x[npoints] = x;
		cdf_p[npoints++] = pr;
	}
	fclose(f);
	if (npoints < 2 || cdf_p[npoints - 1] != 1.0)
		die("%s: need at least 2 points ending at probability 1", path);
}

/* Inverse CDF, linear between points. */
static double cdf_inv(double u)
{
	int i;

	for (i = 1; i < npoints; i++)
		if (u < cdf_p[i] && cdf_p[i] > cdf_p[i - 1])
			return cdf_x[i - 1] + (u - cdf_p[i - 1]) /
			       (cdf_p[i] - cdf_p[i - 1]) *
			       (cdf_x[i] - cdf_x[i - 1]);
	return cdf_x[npoints - 1];
}

/* Mean of the piecewise-linear distribution (probability at the first point is a mass there). */
static double cdf_mean(void)
{
	double m = cdf_p[0] * cdf_x[0];
	int i;

	for (i = 1; i < npoints; i++)
		m += (cdf_p[i] - cdf_p[i - 1]) * (cdf_x[i] + cdf_x[i - 1]) / 2;
	return m;
}

static uint64_t rng;

static uint64_t splitmix64(void)
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [0, 1), 53 bits. */
static double uniform(void)
{
	return (splitmix64() >> 11) * (1.0 / 9007199254740992.0);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cdf", required_argument, NULL, 'c' },
		{ "load", required_argument, NULL, 'l' },
		{ "hosts", required_argument, NULL, 'n' },
		{ "link-mbps", required_argument, NULL, 'r' },
		{ "uplink-mbps", required_argument, NULL, 'u' },
		{ "flows", required_argument, NULL, 'f' },
		{ "seed", required_argument, NULL, 's' },
		{ "flow-file", required_argument, NULL, 'F' },
		{ "manifest", required_argument, NULL, 'M' },
		{ "leaves", required_argument, NULL, 'k' },
		{ "pairs", required_argument, NULL, 'p' },
		{ "start-us", required_argument, NULL, 't' },
		{ "port", required_argument, NULL, 'P' },
		{ "prefix", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *cdf = NULL, *ffile = NULL, *mfile = NULL, *prefix = "tb_h";
	uint64_t hosts = 0, nflows = 0, leaves = 2, seed = 0, port = 5001;
	uint64_t start = 100000, i;
	double load = 0, rate = 0, up = 0, mean, cross, u_host, u_up, lambda;
	double t, last = 0, bytes_total = 0;
	int cross_only = 0, have_seed = 0, c;
	uint64_t hpl, ncross = 0;
	FILE *ff, *mf;

	prog = "websearch-gen";
	while ((c = next_opt(argc, argv, opts, usage)) != -1) {
		switch (c) {
		case 'c':
			cdf = optarg;
			break;
		case 'l':
			load = arg_posf("--load", optarg);
			if (load > 100)
				die("--load: '%s' is above 100 (percent)",
				    optarg);
			break;
		case 'n':
			hosts = arg_u64("--hosts", optarg);
			break;
		case 'r':
			rate = arg_posf("--link-mbps", optarg);
			break;
		case 'u':
			up = arg_posf("--uplink-mbps", optarg);
			break;
		case 'f':
			nflows = arg_u64("--flows", optarg);
			break;
		case 's':
			seed = arg_u64("--seed", optarg);
			have_seed = 1;
			break;
		case 'F':
			ffile = optarg;
			break;
		case 'M':
			mfile = optarg;
			break;
		case 'k':
			leaves = arg_u64("--leaves", optarg);
			break;
		case 'p':
			if (!strcmp(optarg, "cross"))
				cross_only = 1;
			else if (strcmp(optarg, "any"))
				die("--pairs: '%s' is not any or cross",
				    optarg);
			break;
		case 't':
			start = arg_u64("--start-us", optarg);
			break;
		case 'P':
			port = arg_u64("--port", optarg);
			if (!port || port > 65535)
				die("--port: '%s' is not a port", optarg);
			break;
		case 'x':
			prefix = optarg;
			break;
		}
	}
	if (!cdf || !load || !hosts || !rate || !nflows || !have_seed ||
	    !ffile || !mfile)
		die("--cdf, --load, --hosts, --link-mbps, --flows, --seed, "
		    "--flow-file and --manifest are required");
	if (!leaves || leaves > 250 || hosts % leaves || hosts / leaves > 250)
		die("--hosts must be a multiple of --leaves, at most 250 a leaf");
	if (hosts < 2 || (cross_only && leaves < 2))
		die("no host pairs: need 2 hosts (2 leaves for --pairs cross)");
	if (nflows > 10000000)
		die("--flows: at most 10000000");
	if (!up)
		up = rate;
	hpl = hosts / leaves;
	read_cdf(cdf);
	mean = cdf_mean();
	if (mean <= 0)
		die("%s: mean flow size is 0", cdf);

	/* Utilization per flow/s, of a host link and of a leaf uplink. */
	cross = cross_only ? 1.0 : (double)(hosts - hpl) / (hosts - 1);
	u_host = mean * 8 / (hosts * rate * 1e6);
	u_up = leaves > 1 ? mean * 8 * cross / (leaves * up * 1e6) : 0;
	lambda = load / 100 / (u_up > u_host ? u_up : u_host);

	rng = seed;
	ff = open_out(ffile);
	mf = open_out(mfile);
	fprintf(ff, "# websearch-gen --load %g --hosts %llu --leaves %llu "
		"--seed %llu: ID,SRC_NETNS,DST_ADDR,DST_PORT,START_US,BYTES,"
		"STOP_US\n", load, (unsigned long long)hosts,
		(unsigned long long)leaves, (unsigned long long)seed);
	fputs("id,src,dst,src_leaf,dst_leaf,start_us,bytes\n", mf);
	t = start;
	for (i = 0; i < nflows; i++) {
		uint64_t src, dst, sl, dl, size;
		double gap = -log(1 - uniform()) / lambda * 1e6;

		if (i)	/* the first flow starts at T */
			t += gap;
		src = splitmix64() % hosts + 1;
		do {
			dst = splitmix64() % hosts + 1;
		} while (dst == src ||
			 (cross_only && (dst - 1) / hpl == (src - 1) / hpl));
		sl = (src - 1) / hpl + 1;
		dl = (dst - 1) / hpl + 1;
		size = llround(cdf_inv(uniform()));
		if (size < 1)
			size = 1;
		ncross += sl != dl;
		bytes_total += size;
		last = t;
		fprintf(ff, "%llu,%s%llu,10.%llu.%llu.2,%llu,%llu,%llu,0\n",
			(unsigned long long)i, prefix, (unsigned long long)src,
			(unsigned long long)dl,
			(unsigned long long)((dst - 1) % hpl + 1),
			(unsigned long long)port, (unsigned long long)llround(t),
			(unsigned long long)size);
		fprintf(mf, "%llu,%llu,%llu,%llu,%llu,%llu,%llu\n",
			(unsigned long long)i, (unsigned long long)src,
			(unsigned long long)dst, (unsigned long long)sl,
			(unsigned long long)dl, (unsigned long long)llround(t),
			(unsigned long long)size);
	}
	if (fclose(ff) || fclose(mf))
		die("write error");
	printf("{\"load_pct\": %g, \"hosts\": %llu, \"leaves\": %llu, "
	       "\"link_mbps\": %g, \"uplink_mbps\": %g, \"pairs\": \"%s\",\n"
	       " \"flows\": %llu, \"seed\": %llu, \"mean_size_bytes\": %.1f, "
	       "\"cross_fraction\": %.4f,\n"
	       " \"bottleneck\": \"%s\", \"arrival_rate_per_s\": %.4f, "
	       "\"offered_mbps\": %.3f,\n"
	       " \"first_start_us\": %llu, \"last_start_us\": %.0f, "
	       "\"generated_bytes\": %.0f, \"generated_cross\": %llu}\n",
	       load, (unsigned long long)hosts, (unsigned long long)leaves,
	       rate, up, cross_only ? "cross" : "any",
	       (unsigned long long)nflows, (unsigned long long)seed, mean,
	       cross, u_up > u_host ? "uplinks" : "host links", lambda,
	       lambda * mean * 8 / 1e6, (unsigned long long)start, last,
	       bytes_total, (unsigned long long)ncross);
	return 0;
}
