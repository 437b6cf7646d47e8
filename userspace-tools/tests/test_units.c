// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the tools' parsing and output units with known answers:
 * tcpflows' specs (flowspec.c), its results (results.c) and the helpers
 * the tools share (common.c). No root, no network. Built with ASan and UBSan
 * (make -C userspace-tools test).
 *
 * Prints KTAP like the kernel selftests: a failed check's details as "# "
 * lines before its test's "not ok" line, the totals last; exits non-zero
 * on any failure.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "flowspec.h"
#include "payload.h"
#include "results.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static int passed, failed, checks_failed;

/* Print @s on a "# " line, with control characters escaped. */
static void put_escaped(const char *s)
{
	for (; s && *s; s++) {
		if (*s == '\n')
			fputs("\\n", stdout);
		else if (*s == '\r')
			fputs("\\r", stdout);
		else
			putchar(*s);
	}
}

#define EXPECT(cond, ...) do {						\
	if (!(cond)) {							\
		checks_failed++;					\
		printf("# %s:%d: %s: ", __FILE__, __LINE__, #cond);	\
		printf(__VA_ARGS__);					\
		putchar('\n');						\
	}								\
} while (0)

#define EXPECT_STR(got, want) do {					\
	const char *g_ = (got), *w_ = (want);				\
									\
	if (!g_ || !w_ || strcmp(g_, w_)) {				\
		checks_failed++;					\
		printf("# %s:%d: %s: got '", __FILE__, __LINE__, #got);	\
		put_escaped(g_ ? g_ : "(null)");			\
		fputs("', want '", stdout);				\
		put_escaped(w_ ? w_ : "(null)");			\
		puts("'");						\
	}								\
} while (0)

/* What a unit wrote to a FILE, as a string to free(). */
struct capture {
	FILE *f;
	char *buf;
	size_t len;
};

static FILE *capture_start(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f)
		die("open_memstream: %s", strerror(errno));
	return c->f;
}

static char *capture_end(struct capture *c)
{
	fclose(c->f);
	return c->buf;
}

/* The namespace lookup: records its calls, returns 10 + their count. */
static struct {
	int calls;
	char what[256], name[256];
} lookups;

static int fake_lookup(void *ctx, const char *what, const char *name)
{
	(void)ctx;
	snprintf(lookups.what, sizeof(lookups.what), "%s", what);
	snprintf(lookups.name, sizeof(lookups.name), "%s", name);
	return 10 + lookups.calls++;
}

static int port_of(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

static void test_flow_spec(void)
{
	char err[SPEC_ERR_LEN] = "";
	struct flow_spec fs;
	char addr[64];
	int rc;

	memset(&lookups, 0, sizeof(lookups));
	rc = flow_spec_parse("7,h1,10.0.1.2,5001,250,1000000,900,reno", &fs,
			     fake_lookup, NULL, err, sizeof(err));
	EXPECT(rc == 0, "rc %d: %s", rc, err);
	if (rc)
		return;
	EXPECT(fs.id == 7, "id %u", fs.id);
	EXPECT(fs.ns == 10 && lookups.calls == 1, "ns %d, %d lookups", fs.ns,
	       lookups.calls);
	EXPECT_STR(lookups.what, "--flow 7");
	EXPECT_STR(lookups.name, "h1");
	EXPECT_STR(fs.netns, "h1");
	EXPECT_STR(fs.cc, "reno");
	EXPECT(fs.start_ns == 250000 && fs.stop_ns == 900000,
	       "start %lld stop %lld ns", (long long)fs.start_ns,
	       (long long)fs.stop_ns);
	EXPECT(fs.bytes == 1000000, "bytes %llu",
	       (unsigned long long)fs.bytes);
	EXPECT(fs.dst.ss_family == AF_INET &&
	       fs.dstlen == sizeof(struct sockaddr_in) &&
	       port_of(&fs.dst) == 5001, "family %d len %u port %d",
	       fs.dst.ss_family, fs.dstlen, port_of(&fs.dst));
	inet_ntop(AF_INET, &((struct sockaddr_in *)&fs.dst)->sin_addr, addr,
		  sizeof(addr));
	EXPECT_STR(addr, "10.0.1.2");
	flow_spec_free(&fs);

	/* IPv6, no CC; an empty CC is no CC; the largest id. */
	rc = flow_spec_parse("4294967295,/proc/1/ns/net,fd00::2,0,0,0,0", &fs,
			     fake_lookup, NULL, err, sizeof(err));
	EXPECT(rc == 0, "rc %d: %s", rc, err);
	if (!rc) {
		EXPECT(fs.id == 4294967295U, "id %u", fs.id);
		EXPECT(!fs.cc, "cc '%s'", fs.cc);
		EXPECT(fs.dst.ss_family == AF_INET6 &&
		       fs.dstlen == sizeof(struct sockaddr_in6) &&
		       port_of(&fs.dst) == 0, "family %d len %u",
		       fs.dst.ss_family, fs.dstlen);
		EXPECT(fs.start_ns == 0 && fs.stop_ns == 0 && fs.bytes == 0,
		       "times or bytes not 0");
		EXPECT_STR(fs.netns, "/proc/1/ns/net");
		flow_spec_free(&fs);
	}
	rc = flow_spec_parse("8,h2,10.0.0.1,1,0,0,0,", &fs, fake_lookup, NULL,
			     err, sizeof(err));
	EXPECT(rc == 0 && !fs.cc, "rc %d, cc '%s'", rc, rc ? "" : fs.cc);
	if (!rc)
		flow_spec_free(&fs);
}

/* Each bad spec gives its message; the lookup runs only where it should. */
static void test_flow_spec_errors(void)
{
	static const struct {
		const char *spec, *msg;
		int lookups;
	} t[] = {
		{ "x,h1,10.0.0.1,1,0,0,0",
		  "--flow 'x,h1,10.0.0.1,1,0,0,0': ID is not a number", 0 },
		{ "-1,h1,10.0.0.1,1,0,0,0",
		  "--flow '-1,h1,10.0.0.1,1,0,0,0': ID is not a number", 0 },
		{ "4294967296,h1,10.0.0.1,1,0,0,0", "--flow '4294967296,h1,"
		  "10.0.0.1,1,0,0,0': ID is not a number", 0 },
		{ "", "--flow '': ID is not a number", 0 },
		{ "3,h1,10.0.0.1,1,0,0",
		  "--flow 3: expected 7 or 8 comma separated fields", 0 },
		{ "3,h1,10.0.0.1,1,0,0,0,cubic,x",
		  "--flow 3: expected 7 or 8 comma separated fields", 0 },
		{ "3,h1,10.0.0.1,1,abc,0,0", "--flow 3: START_US not a number",
		  0 },
		{ "3,h1,10.0.0.1,1,0,-5,0", "--flow 3: BYTES not a number", 0 },
		{ "3,h1,10.0.0.1,1,0,0,1e3", "--flow 3: STOP_US not a number",
		  0 },
		{ "3,h1,10.0.0.1,1,0,0,0 ", "--flow 3: STOP_US not a number",
		  0 },
		{ "3,h1,10.0.0.1,1,10,0,10",
		  "--flow 3: STOP_US must be 0 or after START_US", 0 },
		{ "3,h1,10.0.0.1,1,10,0,9",
		  "--flow 3: STOP_US must be 0 or after START_US", 0 },
		/* The namespace is looked up before the address is parsed. */
		{ "3,h1,10.0.0,1,0,0,0",
		  "--flow 3: '10.0.0' is not an IPv4 or IPv6 address", 1 },
		{ "3,h1,10.0.0.1,65536,0,0,0",
		  "--flow 3: PORT '65536' is not a port number", 1 },
		{ "3,h1,10.0.0.1,,0,0,0", "--flow 3: PORT '' is not a port "
		  "number", 1 },
		{ "03,h1,10.0.0.1,x,0,0,0",
		  "--flow 03: PORT 'x' is not a port number", 1 },
	};
	char err[SPEC_ERR_LEN];
	struct flow_spec fs;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		int rc;

		memset(&lookups, 0, sizeof(lookups));
		strcpy(err, "(none)");
		rc = flow_spec_parse(t[i].spec, &fs, fake_lookup, NULL, err,
				     sizeof(err));
		EXPECT(rc == -1, "'%s': rc %d", t[i].spec, rc);
		if (!rc)
			flow_spec_free(&fs);
		EXPECT_STR(err, t[i].msg);
		EXPECT(lookups.calls == t[i].lookups, "'%s': %d lookups",
		       t[i].spec, lookups.calls);
	}
}

static void test_flow_file_line(void)
{
	static const struct {
		const char *line, *spec;	/* spec NULL: no spec */
	} t[] = {
		{ "1,h1,10.0.0.1,1,0,0,0\n", "1,h1,10.0.0.1,1,0,0,0" },
		{ "1,h1,10.0.0.1,1,0,0,0\r\n", "1,h1,10.0.0.1,1,0,0,0" },
		{ " \t2,h1,10.0.0.1,1,0,0,0", "2,h1,10.0.0.1,1,0,0,0" },
		{ "3,h1,10.0.0.1,1,0,0,0#why", "3,h1,10.0.0.1,1,0,0,0" },
		{ "# a comment\n", NULL },
		{ "   # indented comment\n", NULL },
		{ "\n", NULL },
		{ " \t \n", NULL },
		{ "", NULL },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		char buf[256], *got;

		snprintf(buf, sizeof(buf), "%s", t[i].line);
		got = flow_file_line(buf);
		if (t[i].spec)
			EXPECT_STR(got, t[i].spec);
		else
			EXPECT(!got, "'%s' gave '%s'", t[i].line, got);
	}
}

static void test_listen_spec(void)
{
	char err[SPEC_ERR_LEN] = "";
	struct listen_spec ls;
	int rc;

	memset(&lookups, 0, sizeof(lookups));
	rc = listen_spec_parse("rcv,::,5001", &ls, fake_lookup, NULL, err,
			       sizeof(err));
	EXPECT(rc == 0, "rc %d: %s", rc, err);
	EXPECT(ls.ns == 10 && lookups.calls == 1, "ns %d", ls.ns);
	EXPECT_STR(lookups.name, "rcv");
	EXPECT_STR(lookups.what, "--listen rcv,::,5001");
	EXPECT_STR(ls.what, "--listen rcv,::,5001");
	EXPECT(ls.addr.ss_family == AF_INET6 && port_of(&ls.addr) == 5001 &&
	       ls.len == sizeof(struct sockaddr_in6), "family %d port %d",
	       ls.addr.ss_family, port_of(&ls.addr));

	memset(&lookups, 0, sizeof(lookups));
	rc = listen_spec_parse("rcv,10.0.100.2", &ls, fake_lookup, NULL, err,
			       sizeof(err));
	EXPECT(rc == -1, "rc %d", rc);
	EXPECT_STR(err, "--listen rcv,10.0.100.2: expected NETNS,ADDR,PORT");
	rc = listen_spec_parse("rcv,10.0.100.2,1,2", &ls, fake_lookup, NULL,
			       err, sizeof(err));
	EXPECT(rc == -1, "rc %d", rc);
	EXPECT_STR(err,
		   "--listen rcv,10.0.100.2,1,2: expected NETNS,ADDR,PORT");
	/* The address is parsed before the namespace is looked up. */
	rc = listen_spec_parse("nosuch,10.0.100,1", &ls, fake_lookup, NULL,
			       err, sizeof(err));
	EXPECT(rc == -1, "rc %d", rc);
	EXPECT_STR(err, "--listen nosuch,10.0.100,1: '10.0.100' is not an "
		   "IPv4 or IPv6 address");
	rc = listen_spec_parse("rcv,10.0.100.2,99999", &ls, fake_lookup, NULL,
			       err, sizeof(err));
	EXPECT(rc == -1, "rc %d", rc);
	EXPECT_STR(err, "--listen rcv,10.0.100.2,99999: PORT '99999' is not "
		   "a port number");
	EXPECT(lookups.calls == 0, "%d lookups on bad specs", lookups.calls);
}

static void test_sample_spec(void)
{
	static const struct {
		const char *spec, *file, *parent;
		unsigned long long iv;
	} ok[] = {
		{ "sw,out,500", "qdisc-sw-out.csv", "root", 500 },
		{ "sw,out,1000,2:", "qdisc-sw-out-2_.csv", "2:", 1000 },
		{ "/proc/42/ns/net,eth0,1,ingress",
		  "qdisc-_proc_42_ns_net-eth0-ingress.csv", "ingress", 1 },
	};
	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "sw,out", "--sample 'sw,out': expected "
		  "NETNS,DEV,INTERVAL_US[,PARENT]" },
		{ "sw,out,1,2:,x", "--sample 'sw,out,1,2:,x': expected "
		  "NETNS,DEV,INTERVAL_US[,PARENT]" },
		{ "sw,out,0", "--sample 'sw,out,0': INTERVAL_US not a positive "
		  "number" },
		{ "sw,out,x,2:", "--sample 'sw,out,x,2:': INTERVAL_US not a "
		  "positive number" },
	};
	char err[SPEC_ERR_LEN];
	struct sample_spec ss;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(ok); i++) {
		int rc = sample_spec_parse(ok[i].spec, &ss, err, sizeof(err));

		EXPECT(rc == 0, "'%s': %s", ok[i].spec, err);
		if (rc)
			continue;
		EXPECT_STR(ss.file, ok[i].file);
		EXPECT_STR(ss.parent, ok[i].parent);
		EXPECT(ss.interval_us == ok[i].iv, "'%s': interval %llu",
		       ok[i].spec, (unsigned long long)ss.interval_us);
		sample_spec_free(&ss);
	}
	EXPECT(sample_spec_parse("h1,eth0,5", &ss, err, sizeof(err)) == 0,
	       "%s", err);
	EXPECT_STR(ss.netns, "h1");
	EXPECT_STR(ss.dev, "eth0");
	sample_spec_free(&ss);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		strcpy(err, "(none)");
		EXPECT(sample_spec_parse(bad[i].spec, &ss, err,
					 sizeof(err)) == -1,
		       "'%s' accepted", bad[i].spec);
		EXPECT_STR(err, bad[i].msg);
	}
}

#define EPOCH	1000000000000LL		/* an epoch, ns */

/* A flow with every time set, and its spec. */
static void sample_flow(struct flow_spec *fs, struct flow_stats *st)
{
	memset(fs, 0, sizeof(*fs));
	fs->id = 42;
	fs->netns = "tb_h3";
	fs->start_ns = 100000 * NSEC_PER_USEC;
	fs->bytes = 1000000;
	flow_stats_init(st);
	strcpy(st->cc_used, "theta_powertcp");
	st->started_ns = EPOCH + 100123 * NSEC_PER_USEC + 999;
	st->connect_ns = EPOCH + 101000 * NSEC_PER_USEC;
	st->first_ns = EPOCH + 101500 * NSEC_PER_USEC;
	st->done_ns = EPOCH + 181500 * NSEC_PER_USEC;
	st->sent = 1000000;
	st->rcvd = 1000000;
}

static void test_flow_status(void)
{
	struct flow_spec fs;
	struct flow_stats st;

	sample_flow(&fs, &st);
	EXPECT_STR(flow_status(&fs, &st), "done");
	st.rx_eof = 1;
	EXPECT_STR(flow_status(&fs, &st), "done");
	st.rcvd = fs.bytes - 1;
	EXPECT_STR(flow_status(&fs, &st), "short");
	st.rx_eof = 0;
	EXPECT_STR(flow_status(&fs, &st), "active");
	st.started_ns = NONE;
	EXPECT_STR(flow_status(&fs, &st), "unstarted");
	fs.bytes = 0;
	st.rx_eof = 1;
	EXPECT_STR(flow_status(&fs, &st), "closed");
	st.rx_eof = 0;
	st.started_ns = EPOCH;
	EXPECT_STR(flow_status(&fs, &st), "active");
	st.err = ECONNREFUSED;
	EXPECT_STR(flow_status(&fs, &st), "error");
	sample_flow(&fs, &st);
	st.err = ECONNRESET;
	EXPECT_STR(flow_status(&fs, &st), "error");
}

static void test_flows_csv(void)
{
	struct flow_spec fs;
	struct flow_stats st;
	struct capture c;
	char *out;

	EXPECT_STR(FLOWS_CSV_HEADER, "id,src_netns,cc,start_us,bytes,"
		   "first_byte_us,completion_us,bytes_received,connect_us,"
		   "started_us,bytes_sent,status\n");
	EXPECT_STR(GOODPUT_CSV_HEADER, "time_us,flow_id,bytes_total\n");

	sample_flow(&fs, &st);
	flows_csv_row(capture_start(&c), &fs, &st, EPOCH);
	out = capture_end(&c);
	EXPECT_STR(out, "42,tb_h3,theta_powertcp,100000,1000000,101500,"
		   "181500,1000000,101000,100123,1000000,done\n");
	free(out);

	/* Never started: every time -1; the largest id and sizes. */
	flow_stats_init(&st);
	strcpy(st.cc_used, "cubic");
	fs.id = 4294967295U;
	fs.bytes = 18446744073709551615ULL;
	fs.start_ns = 3000000000LL * NSEC_PER_USEC;
	flows_csv_row(capture_start(&c), &fs, &st, EPOCH);
	out = capture_end(&c);
	EXPECT_STR(out, "4294967295,tb_h3,cubic,3000000000,"
		   "18446744073709551615,-1,-1,0,-1,-1,0,unstarted\n");
	free(out);

	EXPECT(rel_us(NONE, EPOCH) == -1, "NONE");
	EXPECT(rel_us(EPOCH, EPOCH) == 0, "epoch");
	EXPECT(rel_us(EPOCH + 1999, EPOCH) == 1, "truncation");
	EXPECT(rel_us(EPOCH - 2000, EPOCH) == -2, "before the epoch");
}

static void test_summary(void)
{
	struct flow_spec fs;
	struct flow_stats st;
	struct capture c;
	char *out;

	/* 1 MB in 80 ms: 100 Mbit/s; completion 81.5 ms after its start. */
	sample_flow(&fs, &st);
	flow_summary(capture_start(&c), &fs, &st, EPOCH, EPOCH);
	out = capture_end(&c);
	EXPECT_STR(out, "flow 42 tb_h3 theta_powertcp done: rx 1000000 B, "
		   "completion 0.181500 s (0.081500 s after start), "
		   "100.00 Mbit/s\n");
	free(out);

	/* Still receiving: measured to now; an error says which. */
	st.done_ns = NONE;
	st.rcvd = 500000;
	st.err = ECONNRESET;
	flow_summary(capture_start(&c), &fs, &st, EPOCH,
		     st.first_ns + 20 * NSEC_PER_USEC * 1000);
	out = capture_end(&c);
	EXPECT_STR(out, "flow 42 tb_h3 theta_powertcp error: rx 500000 B, "
		   "200.00 Mbit/s, Connection reset by peer\n");
	free(out);

	/* Nothing received: no rate. */
	flow_stats_init(&st);
	strcpy(st.cc_used, "?");
	flow_summary(capture_start(&c), &fs, &st, EPOCH, EPOCH);
	out = capture_end(&c);
	EXPECT_STR(out, "flow 42 tb_h3 ? unstarted: rx 0 B\n");
	free(out);

	sampler_summary(capture_start(&c), "qdisc-sw-out.csv", "tbf", 3, 0);
	out = capture_end(&c);
	EXPECT_STR(out, "sampler qdisc-sw-out.csv: tbf, 3 late ticks "
		   "skipped, 0 misses\n");
	free(out);

	totals_summary(capture_start(&c), 11, 10, 123456789, 1, 0);
	out = capture_end(&c);
	EXPECT_STR(out, "total: 11 flows, 10 started, rx 123456789 B, "
		   "1 errors\n");
	free(out);
	totals_summary(capture_start(&c), 1, 0, 0, 0, 1);
	out = capture_end(&c);
	EXPECT_STR(out, "total: 1 flows, 0 started, rx 0 B, 0 errors, "
		   "interrupted\n");
	free(out);
}

static void test_epoch_file(void)
{
	char dir[] = "/tmp/test_units.XXXXXX", path[64], tmp[80], buf[64];
	FILE *f;

	if (!mkdtemp(dir)) {
		EXPECT(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	snprintf(path, sizeof(path), "%s/epoch", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	EXPECT(epoch_file_write(path, 123456789012345LL) == 0, "%s",
	       strerror(errno));
	EXPECT(epoch_file_write(path, 9223372036854775807LL) == 0, "%s",
	       strerror(errno));
	f = fopen(path, "r");
	EXPECT(f, "%s: %s", path, strerror(errno));
	if (f) {
		size_t n = fread(buf, 1, sizeof(buf) - 1, f);

		buf[n] = '\0';
		fclose(f);
		EXPECT_STR(buf, "9223372036854775807\n");
	}
	EXPECT(access(tmp, F_OK) && errno == ENOENT, "%s left behind", tmp);
	unlink(path);
	rmdir(dir);
	EXPECT(epoch_file_write(path, 1) == -1 && errno == ENOENT,
	       "write into a missing directory: errno %d", errno);
}

static void test_common(void)
{
	int64_t row[] = { 0, -1, 9223372036854775807LL,
			  -9223372036854775807LL - 1, 1448 };
	char s[] = "a,,b", t[] = "1,2,3,4", u[] = "-5,7,0", *fl[4];
	int64_t v[3];
	uint64_t x;
	struct capture c;
	char *out;

	csv_row(capture_start(&c), row, 5);
	out = capture_end(&c);
	EXPECT_STR(out, "0,-1,9223372036854775807,-9223372036854775808,"
		   "1448\n");
	free(out);

	EXPECT(split_commas(s, fl, 4) == 3, "fields of 'a,,b'");
	EXPECT_STR(fl[0], "a");
	EXPECT_STR(fl[1], "");
	EXPECT_STR(fl[2], "b");
	EXPECT(split_commas(t, fl, 3) == 4, "too many fields: max + 1");

	EXPECT(!parse_u64("18446744073709551615", &x) &&
	       x == 18446744073709551615ULL, "u64 max");
	EXPECT(parse_u64("18446744073709551616", &x), "u64 overflow");
	EXPECT(parse_u64("", &x) && parse_u64("-1", &x) &&
	       parse_u64(" 1", &x) && parse_u64("1 ", &x) &&
	       parse_u64("+1", &x) && parse_u64(NULL, &x),
	       "bad u64 accepted");
	EXPECT(!parse_s64("-42", &v[0]) && v[0] == -42, "s64 -42");
	EXPECT(parse_s64("9223372036854775808", &v[0]), "s64 overflow");

	EXPECT(!csv_parse_ints(u, v, 3) && v[0] == -5 && v[1] == 7 &&
	       v[2] == 0, "csv ints");
	strcpy(u, "1,2");
	EXPECT(csv_parse_ints(u, v, 3), "too few columns accepted");
	strcpy(u, "1,2,3,");
	EXPECT(csv_parse_ints(u, v, 3), "trailing comma accepted");
	strcpy(u, "1,x,3");
	EXPECT(csv_parse_ints(u, v, 3), "letters accepted");
}

static void test_algorithm_name(void)
{
	static const char *const good[] = { "theta_powertcp", "powertcp_evo",
		"cubic", "x.y+z-1", "A",
		"0123456789012345678901234567890123456789012345678901234567890123",
	};
	static const char *const bad[] = { "", "a\"b", "a b", "a,b", "a/b",
		"caf\xc3\xa9", "cubic\n",
		"01234567890123456789012345678901234567890123456789012345678901234",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		EXPECT(algorithm_name_ok(good[i]), "'%s' refused", good[i]);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		EXPECT(!algorithm_name_ok(bad[i]), "'%s' accepted", bad[i]);
}

static void run(const char *name, void (*fn)(void))
{
	int before = checks_failed;

	fn();
	if (checks_failed == before) {
		passed++;
		printf("ok %d - %s\n", passed + failed, name);
	} else {
		failed++;
		printf("not ok %d - %s\n", passed + failed, name);
	}
	fflush(stdout);
}

/*
 * tcpflows --verify: a stream written in pieces of any size reads back as
 * right; a flipped bit, a lost, duplicated or swapped segment, another
 * flow's bytes are caught at the right offset, across the pattern's wrap.
 */
static void test_payload(void)
{
	enum { CHUNK = 4096, MSS = 1448, N = 6 * MSS };
	struct payload pl, pl2;
	unsigned char s[N], t[N];
	uint64_t pos = PL_PERIOD - 3 * MSS;	/* spans the wrap */
	size_t i, n;

	if (payload_init(&pl, 7, CHUNK) || payload_init(&pl2, 8, CHUNK))
		die("out of memory");
	/* The sender's view, piece by piece as tcpflows writes it. */
	for (i = 0; i < N; i += n) {
		n = N - i < 1000 ? N - i : 1000;
		memcpy(s + i, payload_at(&pl, 3, pos + i), n);
	}
	EXPECT(payload_check(&pl, 3, pos, s, N) == -1, "a right stream");
	EXPECT(payload_check(&pl, 3, pos + MSS, s + MSS, N - MSS) == -1,
	       "read from the middle");
	/* A flipped bit. */
	memcpy(t, s, N);
	t[2 * MSS + 5] ^= 0x10;
	EXPECT(payload_check(&pl, 3, pos, t, N) == (int64_t)(pos + 2 * MSS + 5),
	       "a flipped bit: got %lld",
	       (long long)payload_check(&pl, 3, pos, t, N));
	/* A segment lost (the next one in its place). */
	memcpy(t, s, N);
	memcpy(t + MSS, s + 2 * MSS, MSS);
	EXPECT(payload_check(&pl, 3, pos, t, 2 * MSS) >= (int64_t)(pos + MSS),
	       "a lost segment");
	EXPECT(payload_check(&pl, 3, pos, t, 2 * MSS) != -1, "a lost segment");
	/* Duplicated, then swapped segments. */
	memcpy(t, s, N);
	memcpy(t + 2 * MSS, s + MSS, MSS);
	EXPECT(payload_check(&pl, 3, pos, t, N) != -1, "a duplicated segment");
	memcpy(t, s, N);
	memcpy(t + MSS, s + 2 * MSS, MSS);
	memcpy(t + 2 * MSS, s + MSS, MSS);
	EXPECT(payload_check(&pl, 3, pos, t, N) != -1, "swapped segments");
	/* Another flow's bytes, another seed's. */
	EXPECT(payload_check(&pl, 4, pos, s, N) != -1, "flow 4 is not flow 3");
	EXPECT(payload_check(&pl2, 3, pos, s, N) != -1, "seed 8 is not seed 7");
	/* Offsets a whole period apart are the same bytes (the one blind spot). */
	EXPECT(payload_check(&pl, 3, pos + PL_PERIOD, s, N) == -1,
	       "the period");
	payload_free(&pl);
	payload_free(&pl2);
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "payload: --verify's content checks", test_payload },
	{ "flowspec: a --flow spec's fields", test_flow_spec },
	{ "flowspec: bad --flow specs, their messages and lookups",
	  test_flow_spec_errors },
	{ "flowspec: --flow-file lines, blanks and comments",
	  test_flow_file_line },
	{ "flowspec: --listen specs", test_listen_spec },
	{ "flowspec: --sample specs and their file names", test_sample_spec },
	{ "results: flow status", test_flow_status },
	{ "results: flows.csv rows and headers", test_flows_csv },
	{ "results: the summary lines", test_summary },
	{ "results: the epoch file, atomically", test_epoch_file },
	{ "common: csv_row, split_commas, number parsing", test_common },
	{ "common: --algorithm names the analyzers accept",
	  test_algorithm_name },
};

int main(void)
{
	size_t i, n = ARRAY_SIZE(tests);

	prog = "test_units";
	printf("KTAP version 1\n1..%zu\n", n);
	for (i = 0; i < n; i++)
		run(tests[i].name, tests[i].fn);
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       passed, failed);
	return failed ? 1 : 0;
}
