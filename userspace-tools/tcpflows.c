// SPDX-License-Identifier: GPL-2.0
/*
 * tcpflows: run both ends of many TCP flows across network namespaces in a
 * single process with a single epoll loop.
 *
 * Setup creates every socket in its namespace (setns() in, socket(), setns()
 * back), sets the congestion control, and fixes the epoch: CLOCK_MONOTONIC
 * after setup plus a margin. One timerfd, armed to the earliest pending
 * deadline, drives flow starts and stops, the goodput log, the optional
 * qdisc samplers and the end of the experiment.
 *
 * A sender first writes an 8-byte header, "TFL1" and the flow id as a big
 * endian u32, so that the receiver can map an accepted connection to its
 * flow. The header is not counted as payload anywhere.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/uio.h>
#include <unistd.h>

#include "common.h"
#include "qdisc_stats.h"

#define HDR_LEN		8
#define HDR_MAGIC	"TFL1"
#define MAX_EVENTS	256
#define NONE		INT64_MIN	/* an unset time */

static const char usage[] =
"usage: tcpflows --out-dir DIR --duration-us N [options]\n"
"  --listen NETNS,ADDR,PORT      receiver listener (repeatable)\n"
"  --flow ID,SRC_NETNS,DST_ADDR,DST_PORT,START_US,BYTES,STOP_US[,CC]\n"
"                                a flow (repeatable); BYTES 0 = unlimited,\n"
"                                STOP_US 0 = until the end\n"
"  --flow-file F                 more --flow specs, one a line, # comments\n"
"  --cc NAME                     default congestion control of the flows\n"
"  --interval-us N               goodput log interval (default 1000, 0 = off)\n"
"  --changes-only                log a flow only if it got data since its\n"
"                                last row (and its last row)\n"
"  --sample NETNS,DEV,INTERVAL_US[,PARENT]\n"
"                                log qdisc stats to DIR/qdisc-NETNS-DEV.csv\n"
"  --epoch-file F                write the epoch (CLOCK_MONOTONIC ns) to F\n"
"  --margin-us N                 epoch = end of setup + N (default 10000)\n"
"  --align-us N                  round the epoch up to a multiple of N us of\n"
"                                CLOCK_MONOTONIC (same phase to the kernel's\n"
"                                tick in every run; default 0 = off)\n"
"  --sndbuf N, --rcvbuf N        set SO_SNDBUF / SO_RCVBUF (default: not)\n"
"  --notsent-lowat N             set TCP_NOTSENT_LOWAT on senders (less data\n"
"                                left to drain after STOP_US)\n"
"  --chunk N                     largest read/write in bytes (default 131072)\n"
"  --seed N                      seed of the payload bytes\n"
"  --progress, --quiet\n"
"NETNS: a name in /run/netns, a path like /proc/PID/ns/net, or '.'\n";

enum { EV_TIMER, EV_SIGNAL, EV_LISTEN, EV_SEND, EV_RECV };

/* Each epoll data.ptr points to a struct starting with its type. */
struct evsrc {
	int type;
	int fd;
};

enum sstate { S_IDLE, S_CONNECTING, S_SENDING, S_CLOSED };

struct flow {
	struct evsrc ev;		/* EV_SEND, the sender's socket */
	uint32_t id;
	int ns;				/* index into ns_names[], ns_fds[] */
	const char *cc;			/* NULL: the namespace's default */
	char cc_used[16];
	struct sockaddr_storage dst;
	socklen_t dstlen;
	int64_t start_ns, stop_ns;	/* relative to the epoch, 0: none */
	uint64_t bytes;			/* 0: unlimited */
	/* sender side */
	enum sstate sstate;
	int hdr_sent;
	uint64_t sent;
	int64_t started_ns, connect_ns;	/* absolute */
	int err;			/* errno of a failure, either side */
	/* receiver side */
	uint64_t rcvd, logged;		/* logged: in the last goodput row */
	int64_t first_ns, done_ns;	/* absolute */
	int rx_seen, rx_eof, rx_fin;	/* header got, EOF, log ended */
};

struct conn {
	struct evsrc ev;		/* EV_RECV */
	struct flow *f;
	int hlen;
	unsigned char hdr[HDR_LEN];
};

struct sampler {
	struct qdisc_sampler qs;
	int64_t interval, next;		/* ns, next is absolute */
	unsigned long skipped;
	FILE *out;
	char *name;
};

/* Configuration. */
static struct flow *flows;
static int nflows;
static char **ns_names;
static int *ns_fds, nns;
static const char *default_cc, *out_dir, *epoch_file;
static int64_t interval_ns = 1000 * NSEC_PER_USEC, duration_ns = -1;
static int64_t margin_ns = 10000 * NSEC_PER_USEC;
static int64_t align_ns;
static int sndbuf, rcvbuf, lowat, quiet, progress, changes_only;
static size_t chunk = 128 * 1024;	/* largest read or write */
static uint64_t seed = 1;
static struct sampler **samplers;
static int nsamplers;
static char **listen_specs;
static int nlisten;

/* Run time state. */
static int ep, tfd;
static int64_t epoch;
static struct flow **by_start, **by_stop, **by_id;
static int nstart, next_start, nstop, next_stop;
static struct flow **active;		/* receiver flows logged in goodput */
static int nactive, nstarted, nrx, ndone;
static int64_t next_tick, next_progress, progress_last;
static uint64_t total_rcvd, progress_bytes;
static FILE *goodput;
static int done, interrupted;
static unsigned char *txbuf, *rxbuf;	/* chunk bytes each */

static int64_t rel_us(int64_t t)
{
	return t == NONE ? -1 : (t - epoch) / NSEC_PER_USEC;
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

static int ns_index(const char *what, const char *name)
{
	int i;

	for (i = 0; i < nns; i++)
		if (!strcmp(ns_names[i], name))
			return i;
	ns_names = xrealloc(ns_names, (nns + 1) * sizeof(*ns_names));
	ns_fds = xrealloc(ns_fds, (nns + 1) * sizeof(*ns_fds));
	ns_names[nns] = strdup(name);
	ns_fds[nns] = netns_open(what, name);
	return nns++;
}

static void parse_addr(const char *what, const char *addr, const char *port,
		       struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	uint64_t p;

	if (parse_u64(port, &p) || p > 65535)
		die("%s: PORT '%s' is not a port number", what, port);
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(p);
		*len = sizeof(*sin);
	} else if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(p);
		*len = sizeof(*sin6);
	} else {
		die("%s: '%s' is not an IPv4 or IPv6 address", what, addr);
	}
}

/* --flow ID,SRC_NETNS,DST_ADDR,DST_PORT,START_US,BYTES,STOP_US[,CC] */
static void parse_flow(const char *spec)
{
	static const char *const name[] = { "ID", "SRC_NETNS", "DST_ADDR",
		"DST_PORT", "START_US", "BYTES", "STOP_US", "CC" };
	char *s = strdup(spec), *fl[9], what[64];
	uint64_t v[7];
	struct flow *f;
	int n, i;

	n = split_commas(s, fl, 9);
	if (parse_u64(fl[0], &v[0]) || v[0] > UINT32_MAX)
		die("--flow '%s': ID is not a number", spec);
	snprintf(what, sizeof(what), "--flow %s", fl[0]);
	if (n < 7 || n > 8)
		die("%s: expected 7 or 8 comma separated fields", what);
	for (i = 4; i < 7; i++)
		if (parse_u64(fl[i], &v[i]))
			die("%s: %s not a number", what, name[i]);
	if (v[6] && v[6] <= v[4])
		die("%s: STOP_US must be 0 or after START_US", what);
	flows = xrealloc(flows, (nflows + 1) * sizeof(*flows));
	f = &flows[nflows++];
	memset(f, 0, sizeof(*f));
	f->ev.type = EV_SEND;
	f->ev.fd = -1;
	f->id = v[0];
	f->ns = ns_index(what, fl[1]);
	parse_addr(what, fl[2], fl[3], &f->dst, &f->dstlen);
	f->start_ns = v[4] * NSEC_PER_USEC;
	f->bytes = v[5];
	f->stop_ns = v[6] * NSEC_PER_USEC;
	f->cc = n == 8 && *fl[7] ? fl[7] : NULL;
	f->started_ns = f->connect_ns = NONE;
	f->first_ns = f->done_ns = NONE;
}

static void parse_flow_file(const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "r");

	if (!f)
		die("--flow-file %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		char *p = line + strspn(line, " \t");

		p[strcspn(p, "#\r\n")] = '\0';
		if (*p)
			parse_flow(p);
	}
	fclose(f);
}

/* --sample NETNS,DEV,INTERVAL_US[,PARENT], opened after the options. */
static void add_sampler(const char *spec)
{
	char *s = strdup(spec), *fl[5], *p;
	struct sampler *sm;
	int n = split_commas(s, fl, 5), i;
	uint64_t iv;

	if (n < 3 || n > 4)
		die("--sample '%s': expected NETNS,DEV,INTERVAL_US[,PARENT]",
		    spec);
	if (parse_u64(fl[2], &iv) || !iv)
		die("--sample '%s': INTERVAL_US not a positive number", spec);
	sm = calloc(1, sizeof(*sm));
	if (!sm)
		die("out of memory");
	i = ns_index("--sample", fl[0]);	/* may move ns_fds */
	qs_open(&sm->qs, ns_fds[i], fl[1], n > 3 ? fl[3] : "root");
	sm->interval = iv * NSEC_PER_USEC;
	if (asprintf(&sm->name, "qdisc-%s-%s%s%s.csv", fl[0], fl[1],
		     n > 3 ? "-" : "", n > 3 ? fl[3] : "") < 0)
		die("out of memory");
	for (p = sm->name; *p; p++)	/* paths, handles: keep a file name */
		if (*p == '/' || *p == ':')
			*p = '_';
	samplers = xrealloc(samplers, (nsamplers + 1) * sizeof(*samplers));
	samplers[nsamplers++] = sm;
}

static FILE *open_out(const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", out_dir, name);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	return f;
}

static void set_cc(struct flow *f, int fd, const char *cc)
{
	socklen_t len = sizeof(f->cc_used);

	if (cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc,
			     strlen(cc))) {
		if (errno == ENOENT)
			die("--flow %u: congestion control '%s' is not "
			    "available (not built in and module not loaded)",
			    f->id, cc);
		if (errno == EPERM)
			die("--flow %u: congestion control '%s' not allowed "
			    "(net.ipv4.tcp_allowed_congestion_control)",
			    f->id, cc);
		die("--flow %u: TCP_CONGESTION '%s': %s", f->id, cc,
		    strerror(errno));
	}
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, f->cc_used, &len))
		strcpy(f->cc_used, "?");
	f->cc_used[sizeof(f->cc_used) - 1] = '\0';
}

static int new_socket(int ns, int family)
{
	int fd;

	netns_enter(ns_fds[ns]);
	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket in netns %s: %s", ns_names[ns], strerror(errno));
	return fd;
}

static void epoll_add(struct evsrc *ev, uint32_t events)
{
	struct epoll_event e = { .events = events, .data.ptr = ev };

	if (epoll_ctl(ep, EPOLL_CTL_ADD, ev->fd, &e))
		die("epoll_ctl: %s", strerror(errno));
}

/* --listen NETNS,ADDR,PORT */
static void open_listener(const char *spec)
{
	char *s = strdup(spec), *fl[4], what[256];
	struct sockaddr_storage ss;
	struct evsrc *ev;
	socklen_t len;
	int one = 1;

	snprintf(what, sizeof(what), "--listen %s", spec);
	if (split_commas(s, fl, 4) != 3)
		die("%s: expected NETNS,ADDR,PORT", what);
	parse_addr(what, fl[1], fl[2], &ss, &len);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		die("out of memory");
	ev->type = EV_LISTEN;
	ev->fd = new_socket(ns_index(what, fl[0]), ss.ss_family);
	setsockopt(ev->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Before listen(), so that accepted sockets inherit it. */
	if (rcvbuf && setsockopt(ev->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf,
				 sizeof(rcvbuf)))
		die("%s: SO_RCVBUF: %s", what, strerror(errno));
	if (bind(ev->fd, (struct sockaddr *)&ss, len))
		die("%s: bind: %s", what, strerror(errno));
	if (listen(ev->fd, 4096))
		die("%s: listen: %s", what, strerror(errno));
	epoll_add(ev, EPOLLIN);
}

static void sender_close(struct flow *f)
{
	if (f->ev.fd >= 0)
		close(f->ev.fd);	/* queued data still goes, then FIN */
	f->ev.fd = -1;
	f->sstate = S_CLOSED;
}

static void flow_start(struct flow *f)
{
	nstarted++;
	f->started_ns = now_ns();
	if (connect(f->ev.fd, (struct sockaddr *)&f->dst, f->dstlen) &&
	    errno != EINPROGRESS) {
		f->err = errno;
		warnmsg("flow %u: connect: %s", f->id, strerror(errno));
		sender_close(f);
		return;
	}
	f->sstate = S_CONNECTING;
	epoll_add(&f->ev, EPOLLOUT);
}

/* The sender's socket is writable: connected, or room in the buffer. */
static void on_send(struct flow *f)
{
	unsigned char hdr[HDR_LEN] = HDR_MAGIC;
	struct iovec iov[2];
	struct msghdr msg = { .msg_iov = iov };
	uint64_t len = chunk;
	ssize_t r;
	int err = 0;
	socklen_t elen = sizeof(err);

	if (f->ev.fd < 0)
		return;
	if (f->sstate == S_CONNECTING) {
		getsockopt(f->ev.fd, SOL_SOCKET, SO_ERROR, &err, &elen);
		if (err) {
			f->err = err;
			warnmsg("flow %u: connect: %s", f->id, strerror(err));
			sender_close(f);
			return;
		}
		f->connect_ns = now_ns();
		f->sstate = S_SENDING;
	}
	if (f->hdr_sent < HDR_LEN) {
		hdr[4] = f->id >> 24;
		hdr[5] = f->id >> 16;
		hdr[6] = f->id >> 8;
		hdr[7] = f->id;
		iov[msg.msg_iovlen].iov_base = hdr + f->hdr_sent;
		iov[msg.msg_iovlen++].iov_len = HDR_LEN - f->hdr_sent;
	}
	if (f->bytes && f->bytes - f->sent < len)
		len = f->bytes - f->sent;
	iov[msg.msg_iovlen].iov_base = txbuf;
	iov[msg.msg_iovlen++].iov_len = len;
	r = sendmsg(f->ev.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		f->err = errno;
		warnmsg("flow %u: send: %s", f->id, strerror(errno));
		sender_close(f);
		return;
	}
	if (f->hdr_sent < HDR_LEN) {
		int h = HDR_LEN - f->hdr_sent < r ? HDR_LEN - f->hdr_sent : r;

		f->hdr_sent += h;
		r -= h;
	}
	f->sent += r;
	if (f->bytes && f->sent == f->bytes)
		sender_close(f);
}

static void on_accept(struct evsrc *l)
{
	struct conn *c;
	int fd;

	while ((fd = accept4(l->fd, NULL, NULL,
			     SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0) {
		c = calloc(1, sizeof(*c));
		if (!c)
			die("out of memory");
		c->ev.type = EV_RECV;
		c->ev.fd = fd;
		epoll_add(&c->ev, EPOLLIN);
	}
	if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
		warnmsg("accept: %s", strerror(errno));
}

static int cmp_id(const void *a, const void *b)
{
	uint32_t x = (*(struct flow *const *)a)->id;
	uint32_t y = (*(struct flow *const *)b)->id;

	return x < y ? -1 : x > y;
}

/* The header is complete: attach the connection to its flow. */
static int conn_identify(struct conn *c)
{
	struct flow key, *kp = &key, **fp;

	key.id = (uint32_t)c->hdr[4] << 24 | c->hdr[5] << 16 |
		 c->hdr[6] << 8 | c->hdr[7];
	fp = bsearch(&kp, by_id, nflows, sizeof(*by_id), cmp_id);
	if (memcmp(c->hdr, HDR_MAGIC, 4) || !fp || (*fp)->rx_seen) {
		warnmsg("rejecting a connection with a bad or duplicate header");
		return -1;
	}
	c->f = *fp;
	c->f->rx_seen = 1;
	nrx++;
	if (goodput)
		active[nactive++] = c->f;
	return 0;
}

static void conn_close(struct conn *c, int err)
{
	struct flow *f = c->f;

	close(c->ev.fd);
	if (f) {
		f->rx_eof = 1;
		f->rx_fin = 1;
		if (err)
			f->err = err;
		else if (!f->bytes)
			f->done_ns = now_ns();	/* unlimited: EOF time */
		if (f->bytes && f->rcvd < f->bytes)
			warnmsg("flow %u: closed after %" PRIu64 " of %" PRIu64
			      " bytes%s%s", f->id, f->rcvd, f->bytes,
			      err ? ": " : "", err ? strerror(err) : "");
		nrx--;
		ndone++;
	}
	free(c);
}

static void on_recv(struct conn *c)
{
	ssize_t r = read(c->ev.fd, rxbuf, chunk);
	unsigned char *p = rxbuf;
	struct flow *f;

	if (r <= 0) {
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		conn_close(c, r < 0 ? errno : 0);
		return;
	}
	if (c->hlen < HDR_LEN) {
		int h = HDR_LEN - c->hlen < r ? HDR_LEN - c->hlen : r;

		memcpy(c->hdr + c->hlen, p, h);
		c->hlen += h;
		p += h;
		r -= h;
		if (c->hlen == HDR_LEN && conn_identify(c)) {
			conn_close(c, 0);
			return;
		}
	}
	f = c->f;
	if (!r || !f)
		return;
	if (f->first_ns == NONE)
		f->first_ns = now_ns();
	f->rcvd += r;
	total_rcvd += r;
	if (f->bytes && f->rcvd >= f->bytes && f->done_ns == NONE) {
		f->done_ns = now_ns();
		f->rx_fin = 1;
	}
}

/*
 * One goodput row per active flow (with --changes-only: only if the flow
 * got data since its last row); flows that ended get a last row.
 */
static void log_goodput(void)
{
	int64_t t = rel_us(now_ns());
	int i;

	for (i = 0; i < nactive; i++) {
		struct flow *f = active[i];
		int64_t v[3] = { t, f->id, f->rcvd };

		if (!changes_only || f->rcvd != f->logged || f->rx_fin)
			csv_row(goodput, v, 3);
		f->logged = f->rcvd;
		if (f->rx_fin)
			active[i--] = active[--nactive];
	}
}

static void sample(struct sampler *sm)
{
	struct qdisc_stats st;
	int64_t t = now_ns();

	if (qs_sample(&sm->qs, &st) == 1)
		qs_write_row(sm->out, rel_us(t), &st);
	sm->next += sm->interval;
	if (t >= sm->next) {	/* too late: skip ticks, don't burst */
		sm->skipped += (t - sm->next) / sm->interval + 1;
		sm->next += ((t - sm->next) / sm->interval + 1) * sm->interval;
	}
}

static void print_progress(int64_t now)
{
	double dt = (now - progress_last) / 1e9;

	fprintf(stderr, "%s: t=%.1fs started %d/%d receiving %d ended %d "
		"rx %.1f Mbit/s\n", prog, (now - epoch) / 1e9, nstarted,
		nflows, nrx, ndone,
		dt > 0 ? (total_rcvd - progress_bytes) * 8 / dt / 1e6 : 0);
	progress_last = now;
	progress_bytes = total_rcvd;
}

/* Run everything that is due at @now. */
static void run_due(int64_t now)
{
	int i;

	while (next_start < nstart &&
	       epoch + by_start[next_start]->start_ns <= now)
		flow_start(by_start[next_start++]);
	while (next_stop < nstop && epoch + by_stop[next_stop]->stop_ns <= now)
		sender_close(by_stop[next_stop++]);
	if (goodput && next_tick <= now) {
		log_goodput();
		next_tick += interval_ns;
		if (next_tick <= now)	/* late: skip */
			next_tick += ((now - next_tick) / interval_ns + 1) *
				     interval_ns;
	}
	for (i = 0; i < nsamplers; i++)
		if (samplers[i]->next <= now)
			sample(samplers[i]);
	if (progress && next_progress <= now) {
		print_progress(now);
		next_progress += NSEC_PER_SEC;
	}
	if (epoch + duration_ns <= now)
		done = 1;
}

static void arm_timer(void)
{
	int64_t next = epoch + duration_ns;
	struct itimerspec its = { 0 };
	int i;

	if (next_start < nstart && epoch + by_start[next_start]->start_ns < next)
		next = epoch + by_start[next_start]->start_ns;
	if (next_stop < nstop && epoch + by_stop[next_stop]->stop_ns < next)
		next = epoch + by_stop[next_stop]->stop_ns;
	if (goodput && next_tick < next)
		next = next_tick;
	for (i = 0; i < nsamplers; i++)
		if (samplers[i]->next < next)
			next = samplers[i]->next;
	if (progress && next_progress < next)
		next = next_progress;
	its.it_value = ns_to_ts(next);
	if (timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime: %s", strerror(errno));
}

static int cmp_start(const void *a, const void *b)
{
	const struct flow *x = *(struct flow *const *)a;
	const struct flow *y = *(struct flow *const *)b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_stop(const void *a, const void *b)
{
	const struct flow *x = *(struct flow *const *)a;
	const struct flow *y = *(struct flow *const *)b;

	return x->stop_ns < y->stop_ns ? -1 : x->stop_ns > y->stop_ns;
}

/* Create all sockets, files, timers; then fix the epoch. */
static void setup(void)
{
	static struct evsrc timer_ev = { EV_TIMER, -1 };
	static struct evsrc sig_ev = { EV_SIGNAL, -1 };
	uint64_t x = seed ? seed : 1;
	sigset_t mask;
	size_t i;
	int n;

	txbuf = xrealloc(NULL, chunk);
	rxbuf = xrealloc(NULL, chunk);
	for (i = 0; i < chunk; i++) {	/* xorshift64 payload */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		txbuf[i] = x;
	}
	raise_nofile(2 * nflows + nlisten + nns + 64);
	no_timer_slack();
	ep = epoll_create1(EPOLL_CLOEXEC);
	tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sig_ev.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (ep < 0 || tfd < 0 || sig_ev.fd < 0)
		die("epoll/timerfd/signalfd: %s", strerror(errno));
	timer_ev.fd = tfd;
	epoll_add(&timer_ev, EPOLLIN);
	epoll_add(&sig_ev, EPOLLIN);

	for (n = 0; n < nlisten; n++)
		open_listener(listen_specs[n]);
	by_start = xrealloc(NULL, nflows * sizeof(*by_start) + 1);
	by_stop = xrealloc(NULL, nflows * sizeof(*by_stop) + 1);
	active = xrealloc(NULL, nflows * sizeof(*active) + 1);
	for (n = 0; n < nflows; n++) {
		struct flow *f = &flows[n];

		f->ev.fd = new_socket(f->ns, f->dst.ss_family);
		set_cc(f, f->ev.fd, f->cc ? f->cc : default_cc);
		if (sndbuf && setsockopt(f->ev.fd, SOL_SOCKET, SO_SNDBUF,
					 &sndbuf, sizeof(sndbuf)))
			die("--flow %u: SO_SNDBUF: %s", f->id, strerror(errno));
		if (lowat && setsockopt(f->ev.fd, IPPROTO_TCP,
					TCP_NOTSENT_LOWAT, &lowat,
					sizeof(lowat)))
			die("--flow %u: TCP_NOTSENT_LOWAT: %s", f->id,
			    strerror(errno));
		by_start[nstart++] = f;
		if (f->stop_ns)
			by_stop[nstop++] = f;
	}
	netns_enter(-1);
	qsort(by_start, nstart, sizeof(*by_start), cmp_start);
	qsort(by_stop, nstop, sizeof(*by_stop), cmp_stop);

	if (interval_ns) {
		goodput = open_out("goodput.csv");
		fputs("time_us,flow_id,bytes_total\n", goodput);
	}
	for (n = 0; n < nsamplers; n++) {
		samplers[n]->out = open_out(samplers[n]->name);
		qs_write_header(samplers[n]->out);
	}

	epoch = now_ns() + margin_ns;
	if (align_ns)
		epoch += align_ns - epoch % align_ns;
	if (epoch_file) {
		char tmp[4096];
		FILE *f;

		snprintf(tmp, sizeof(tmp), "%s.tmp", epoch_file);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%" PRId64 "\n", epoch) < 0 ||
		    fclose(f) || rename(tmp, epoch_file))
			die("--epoch-file %s: %s", epoch_file, strerror(errno));
	}
	next_tick = epoch;
	next_progress = epoch + NSEC_PER_SEC;
	progress_last = epoch;
	for (n = 0; n < nsamplers; n++)
		samplers[n]->next = epoch;
}

static const char *status(const struct flow *f)
{
	if (f->err)
		return "error";
	if (f->bytes && f->rcvd >= f->bytes)
		return "done";
	if (f->rx_eof)
		return f->bytes ? "short" : "closed";
	return f->started_ns == NONE ? "unstarted" : "active";
}

static void write_results(void)
{
	FILE *out = open_out("flows.csv");
	int i, errors = 0;

	fputs("id,src_netns,cc,start_us,bytes,first_byte_us,completion_us,"
	      "bytes_received,connect_us,started_us,bytes_sent,status\n", out);
	for (i = 0; i < nflows; i++) {
		struct flow *f = by_id[i];

		fprintf(out, "%u,%s,%s,%" PRId64 ",%" PRIu64 ",%" PRId64 ",%"
			PRId64 ",%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRIu64
			",%s\n", f->id, ns_names[f->ns], f->cc_used,
			f->start_ns / NSEC_PER_USEC, f->bytes,
			rel_us(f->first_ns), rel_us(f->done_ns), f->rcvd,
			rel_us(f->connect_ns), rel_us(f->started_ns), f->sent,
			status(f));
		errors += !!f->err;
	}
	if (fclose(out) || (goodput && fclose(goodput)))
		die("%s: write error", out_dir);
	for (i = 0; i < nsamplers; i++)
		if (fclose(samplers[i]->out))
			die("%s: write error", out_dir);
	if (quiet)
		return;
	for (i = 0; i < nflows; i++) {
		struct flow *f = by_id[i];
		int64_t end = f->done_ns != NONE ? f->done_ns : now_ns();
		double dt = f->first_ns == NONE ? 0 :
			    (end - f->first_ns) / 1e9;

		printf("flow %u %s %s %s: rx %" PRIu64 " B", f->id,
		       ns_names[f->ns], f->cc_used, status(f), f->rcvd);
		if (f->done_ns != NONE)
			printf(", completion %.6f s (%.6f s after start)",
			       rel_us(f->done_ns) / 1e6,
			       (f->done_ns - epoch - f->start_ns) / 1e9);
		if (dt > 0)
			printf(", %.2f Mbit/s", f->rcvd * 8 / dt / 1e6);
		if (f->err)
			printf(", %s", strerror(f->err));
		putchar('\n');
	}
	for (i = 0; i < nsamplers; i++)
		printf("sampler %s: %s, %lu late ticks skipped, %lu misses\n",
		       samplers[i]->name, samplers[i]->qs.kind,
		       samplers[i]->skipped, samplers[i]->qs.misses);
	printf("total: %d flows, %d started, rx %" PRIu64 " B, %d errors%s\n",
	       nflows, nstarted, total_rcvd, errors,
	       interrupted ? ", interrupted" : "");
}

static void parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "flow", required_argument, NULL, 'f' },
		{ "flow-file", required_argument, NULL, 'F' },
		{ "cc", required_argument, NULL, 'c' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "duration-us", required_argument, NULL, 'd' },
		{ "out-dir", required_argument, NULL, 'o' },
		{ "sample", required_argument, NULL, 'S' },
		{ "epoch-file", required_argument, NULL, 'e' },
		{ "margin-us", required_argument, NULL, 'm' },
		{ "align-us", required_argument, NULL, 'A' },
		{ "sndbuf", required_argument, NULL, 's' },
		{ "rcvbuf", required_argument, NULL, 'r' },
		{ "notsent-lowat", required_argument, NULL, 'L' },
		{ "chunk", required_argument, NULL, 'k' },
		{ "seed", required_argument, NULL, 'x' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "progress", no_argument, NULL, 'p' },
		{ "changes-only", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char **sample_specs = NULL;
	int c, nsample = 0, i;

	opterr = 0;	/* one line errors, below */
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			listen_specs = xrealloc(listen_specs, (nlisten + 1) *
						sizeof(*listen_specs));
			listen_specs[nlisten++] = optarg;
			break;
		case 'f':
			parse_flow(optarg);
			break;
		case 'F':
			parse_flow_file(optarg);
			break;
		case 'c':
			default_cc = optarg;
			break;
		case 'i':
			interval_ns = arg_u64("--interval-us", optarg) *
				      NSEC_PER_USEC;
			break;
		case 'd':
			duration_ns = arg_u64("--duration-us", optarg) *
				      NSEC_PER_USEC;
			break;
		case 'o':
			out_dir = optarg;
			break;
		case 'S':	/* opened once all namespaces are known */
			sample_specs = xrealloc(sample_specs, (nsample + 1) *
						sizeof(*sample_specs));
			sample_specs[nsample++] = optarg;
			break;
		case 'e':
			epoch_file = optarg;
			break;
		case 'A':
			align_ns = arg_u64("--align-us", optarg) *
				   NSEC_PER_USEC;
			break;
		case 'm':
			margin_ns = arg_u64("--margin-us", optarg) *
				    NSEC_PER_USEC;
			break;
		case 's':
			sndbuf = arg_u64("--sndbuf", optarg);
			break;
		case 'r':
			rcvbuf = arg_u64("--rcvbuf", optarg);
			break;
		case 'L':
			lowat = arg_u64("--notsent-lowat", optarg);
			break;
		case 'k':
			chunk = arg_u64("--chunk", optarg);
			if (chunk < 1 || chunk > (1 << 30))
				die("--chunk must be 1..2^30 bytes");
			break;
		case 'x':
			seed = arg_u64("--seed", optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'p':
			progress = 1;
			break;
		case 'C':
			changes_only = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		default:
			die_getopt(c, argv);
		}
	}
	die_extra_args(argc, argv);
	if (!out_dir)
		die("--out-dir is required");
	if (duration_ns <= 0)
		die("--duration-us is required and must be > 0");
	if (!nflows && !nlisten)
		die("nothing to do: no --flow and no --listen");
	if (epoch_file)		/* a stale epoch would mislead samplers */
		unlink(epoch_file);
	by_id = xrealloc(NULL, nflows * sizeof(*by_id) + 1);
	for (i = 0; i < nflows; i++)
		by_id[i] = &flows[i];
	qsort(by_id, nflows, sizeof(*by_id), cmp_id);
	for (i = 1; i < nflows; i++)
		if (by_id[i]->id == by_id[i - 1]->id)
			die("--flow %u: duplicate flow id", by_id[i]->id);
	for (i = 0; i < nsample; i++)
		add_sampler(sample_specs[i]);
	free(sample_specs);
}

int main(int argc, char **argv)
{
	struct epoll_event evs[MAX_EVENTS];
	int i, n;

	prog = "tcpflows";
	parse_args(argc, argv);
	setup();
	arm_timer();
	while (!done) {
		int fired = 0;

		n = epoll_wait(ep, evs, MAX_EVENTS, -1);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		for (i = 0; i < n; i++) {
			struct evsrc *ev = evs[i].data.ptr;
			uint64_t buf[16];

			switch (ev->type) {
			case EV_TIMER:
				if (read(ev->fd, buf, 8) == 8)
					fired = 1;
				break;
			case EV_SIGNAL:
				if (read(ev->fd, buf, sizeof(buf)) > 0)
					interrupted = done = 1;
				break;
			case EV_LISTEN:
				on_accept(ev);
				break;
			case EV_SEND:
				on_send((struct flow *)ev);
				break;
			case EV_RECV:
				on_recv((struct conn *)ev);
				break;
			}
		}
		/* After the reads, so that the goodput log is current. */
		if (fired) {
			run_due(now_ns());
			if (!done)
				arm_timer();
		}
	}
	if (interrupted)
		warnmsg("interrupted at t=%.3f s", (now_ns() - epoch) / 1e9);
	write_results();
	for (i = 0; i < nflows; i++)
		if (flows[i].err)
			return 1;
	return interrupted;
}
