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
 *
 * --verify makes every payload byte a function of the flow and its offset
 * (payload.h), which the receiver checks, and writes verify.csv: per flow
 * the bytes verified, the offset of the first wrong byte, and the longest
 * time without progress (a stall).
 */
#define _GNU_SOURCE
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
#include "flowspec.h"
#include "payload.h"
#include "qdisc_stats.h"
#include "results.h"

#define HDR_LEN		8
#define HDR_MAGIC	"TFL1"
#define MAX_EVENTS	256

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
"  --verify                      position-dependent payload, checked by the\n"
"                                receiver; DIR/verify.csv: bytes verified,\n"
"                                first wrong offset, longest stall per flow\n"
"  --cc-switch AT_US,CC          at AT_US, set TCP_CONGESTION to CC on every\n"
"                                sender still open (repeatable)\n"
"  --max-pacing AT_US,BPS        at AT_US, set SO_MAX_PACING_RATE to BPS\n"
"                                (payload bytes/s; 0 = no cap) on every\n"
"                                sender still open, connected or not\n"
"                                (repeatable; a test instrument: flows held\n"
"                                at a schedule of rates)\n"
"  --preconnect-us N             connect each flow N us before its START_US\n"
"                                (at 0 if that is earlier) and write from\n"
"                                START_US: flows of one instant send their\n"
"                                first windows together (default 0: connect\n"
"                                at START_US, write once connected)\n"
"  --app-rate-mbps R             senders write at most R Mbit/s each (an\n"
"                                application-limited flow; needs\n"
"                                --interval-us > 0, its tick refills)\n"
"  --progress, --quiet\n"
"NETNS: a name in /run/netns, a path like /proc/PID/ns/net, or '.'\n";

enum { EV_TIMER, EV_SIGNAL, EV_LISTEN, EV_SEND, EV_RECV };

/* Each epoll data.ptr points to a struct starting with its type. */
struct evsrc {
	int type;
	int fd;
};

/* S_WAITING: connected, its START_US not come (--preconnect-us). */
enum sstate { S_IDLE, S_CONNECTING, S_WAITING, S_SENDING, S_CLOSED };

struct flow {
	struct evsrc ev;		/* EV_SEND, the sender's socket */
	struct flow_spec spec;		/* --flow; spec.ns indexes nst */
	struct flow_stats st;		/* what happened: the results */
	/* sender side */
	enum sstate sstate;
	int hdr_sent;
	int throttled;			/* --app-rate-mbps: EPOLLOUT off */
	int due;			/* its START_US has come */
	int64_t write_ns;		/* writing began: --app-rate-mbps's base */
	/* receiver side */
	uint64_t logged;		/* st.rcvd in the last goodput row */
	int rx_seen, rx_fin;		/* header got, log ended */
	/* --verify */
	uint64_t verified;		/* payload bytes that were right */
	int64_t mismatch_at;		/* first wrong offset, or -1 */
	int64_t last_ns, max_gap_ns;	/* last progress, longest gap */
};

struct conn {
	struct evsrc ev;		/* EV_RECV */
	struct flow *f;
	int hlen;
	unsigned char hdr[HDR_LEN];
};

struct sampler {
	struct qdisc_sampler qs;
	struct sample_spec spec;	/* spec.file: its CSV in the out dir */
	int64_t interval, next;		/* ns, next is absolute */
	unsigned long skipped;
	FILE *out;
};

/* The command line. */
static struct config {
	const char *default_cc, *out_dir, *epoch_file;
	int64_t interval_ns, duration_ns, margin_ns, align_ns, preconnect_ns;
	int sndbuf, rcvbuf, lowat;
	int quiet, progress, changes_only, verify;
	uint64_t app_rate_mbps;		/* 0: not limited */
	/* --cc-switch (cc set) and --max-pacing (cc NULL), each by time */
	struct timed_list {
		struct timed { int64_t at_ns; const char *cc; uint64_t bps; } *v;
		int n, next;
	} sw, caps;
	size_t chunk;			/* largest read or write */
	uint64_t seed;
	const char **listen;		/* --listen specs, opened at setup */
	int nlisten;
} cfg = {
	.interval_ns = 1000 * NSEC_PER_USEC,
	.duration_ns = -1,
	.margin_ns = 10000 * NSEC_PER_USEC,
	.chunk = 128 * 1024,
	.seed = 1,
};

/* The network namespaces the specs name, each opened once. */
static struct netns_table {
	char **names;
	int *fds;
	int n;
} nst;

/* The flows in command-line order, and the orders the loop needs. */
static struct flow_table {
	struct flow *v;
	int n;
	struct flow **by_id;		/* maps a receiver's header to its flow */
	struct flow **by_start;		/* all flows */
	struct flow **by_stop;		/* flows with a STOP_US */
	int nstop, next_connect, next_start, next_stop;
	struct flow **active;		/* receiver flows logged in goodput */
	int nactive;
} ft;

/* The event loop. */
static struct loop {
	int ep, tfd;
	int64_t epoch;			/* CLOCK_MONOTONIC ns */
	int64_t next_tick, next_progress, progress_last;
	uint64_t total_rcvd, progress_bytes;
	int nstarted, nrx, ndone;
	FILE *goodput;
	struct sampler **samplers;
	int nsamplers;
	unsigned char *txbuf, *rxbuf;	/* cfg.chunk bytes each */
	struct payload pl;		/* --verify */
	int nthrottled;
	int done, interrupted;
} lp;

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n);
	if (!p)
		die("out of memory");
	return p;
}

/* The index of namespace @name in nst, opened on first use (or die). */
static int ns_index(void *ctx, const char *what, const char *name)
{
	int i;

	(void)ctx;
	for (i = 0; i < nst.n; i++)
		if (!strcmp(nst.names[i], name))
			return i;
	nst.names = xrealloc(nst.names, (nst.n + 1) * sizeof(*nst.names));
	nst.fds = xrealloc(nst.fds, (nst.n + 1) * sizeof(*nst.fds));
	nst.names[nst.n] = strdup(name);
	nst.fds[nst.n] = netns_open(what, name);
	return nst.n++;
}

static void add_flow(const char *spec)
{
	char err[SPEC_ERR_LEN];
	struct flow_spec fs;
	struct flow *f;

	if (flow_spec_parse(spec, &fs, ns_index, NULL, err, sizeof(err)))
		die("%s", err);
	ft.v = xrealloc(ft.v, (ft.n + 1) * sizeof(*ft.v));
	f = &ft.v[ft.n++];
	memset(f, 0, sizeof(*f));
	f->ev.type = EV_SEND;
	f->ev.fd = -1;
	f->spec = fs;
	f->mismatch_at = -1;
	f->last_ns = NONE;
	flow_stats_init(&f->st);
}

static void read_flow_file(const char *path)
{
	char line[1024], *spec;
	FILE *f = fopen(path, "r");

	if (!f)
		die("--flow-file %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		spec = flow_file_line(line);
		if (spec)
			add_flow(spec);
	}
	fclose(f);
}

/* --sample NETNS,DEV,INTERVAL_US[,PARENT], opened after the options. */
static void add_sampler(const char *spec)
{
	char err[SPEC_ERR_LEN];
	struct sampler *sm;
	int i;

	sm = calloc(1, sizeof(*sm));
	if (!sm)
		die("out of memory");
	if (sample_spec_parse(spec, &sm->spec, err, sizeof(err)))
		die("%s", err);
	i = ns_index(NULL, "--sample", sm->spec.netns);
	qs_open(&sm->qs, nst.fds[i], sm->spec.dev, sm->spec.parent);
	sm->interval = sm->spec.interval_us * NSEC_PER_USEC;
	lp.samplers = xrealloc(lp.samplers,
			       (lp.nsamplers + 1) * sizeof(*lp.samplers));
	lp.samplers[lp.nsamplers++] = sm;
}

static void set_cc(struct flow *f, int fd, const char *cc)
{
	socklen_t len = sizeof(f->st.cc_used);

	if (cc && setsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, cc,
			     strlen(cc))) {
		if (errno == ENOENT)
			die("--flow %u: congestion control '%s' is not "
			    "available (not built in and module not loaded)",
			    f->spec.id, cc);
		if (errno == EPERM)
			die("--flow %u: congestion control '%s' not allowed "
			    "(net.ipv4.tcp_allowed_congestion_control)",
			    f->spec.id, cc);
		die("--flow %u: TCP_CONGESTION '%s': %s", f->spec.id, cc,
		    strerror(errno));
	}
	if (getsockopt(fd, IPPROTO_TCP, TCP_CONGESTION, f->st.cc_used, &len))
		strcpy(f->st.cc_used, "?");
	f->st.cc_used[sizeof(f->st.cc_used) - 1] = '\0';
}

static int new_socket(int ns, int family)
{
	int fd;

	netns_enter(nst.fds[ns]);
	fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		die("socket in netns %s: %s", nst.names[ns], strerror(errno));
	return fd;
}

static void epoll_add(struct evsrc *ev, uint32_t events)
{
	struct epoll_event e = { .events = events, .data.ptr = ev };

	if (epoll_ctl(lp.ep, EPOLL_CTL_ADD, ev->fd, &e))
		die("epoll_ctl: %s", strerror(errno));
}

/* --listen NETNS,ADDR,PORT */
static void open_listener(const char *spec)
{
	char err[SPEC_ERR_LEN];
	struct listen_spec ls;
	struct evsrc *ev;
	int one = 1;

	if (listen_spec_parse(spec, &ls, ns_index, NULL, err, sizeof(err)))
		die("%s", err);
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		die("out of memory");
	ev->type = EV_LISTEN;
	ev->fd = new_socket(ls.ns, ls.addr.ss_family);
	setsockopt(ev->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* Before listen(), so that accepted sockets inherit it. */
	if (cfg.rcvbuf && setsockopt(ev->fd, SOL_SOCKET, SO_RCVBUF,
				     &cfg.rcvbuf, sizeof(cfg.rcvbuf)))
		die("%s: SO_RCVBUF: %s", ls.what, strerror(errno));
	if (bind(ev->fd, (struct sockaddr *)&ls.addr, ls.len))
		die("%s: bind: %s", ls.what, strerror(errno));
	if (listen(ev->fd, 4096))
		die("%s: listen: %s", ls.what, strerror(errno));
	epoll_add(ev, EPOLLIN);
}

static void sender_close(struct flow *f)
{
	if (f->throttled) {
		f->throttled = 0;
		lp.nthrottled--;
	}
	if (f->ev.fd >= 0)
		close(f->ev.fd);	/* queued data still goes, then FIN */
	f->ev.fd = -1;
	f->sstate = S_CLOSED;
}

/* Turn the sender's EPOLLOUT on or off; epoll_ctl()'s result. */
static int want_out(struct flow *f, int on)
{
	struct epoll_event e = { .events = on ? EPOLLOUT : 0,
				 .data.ptr = &f->ev };

	return epoll_ctl(lp.ep, EPOLL_CTL_MOD, f->ev.fd, &e);
}

/* Time, from the epoch, at which the flow connects. */
static int64_t connect_at(const struct flow *f)
{
	return f->spec.start_ns > cfg.preconnect_ns ?
	       f->spec.start_ns - cfg.preconnect_ns : 0;
}

/* Connect the sender: at START_US, or --preconnect-us before it. */
static void flow_connect(struct flow *f)
{
	if (!cfg.preconnect_ns) {
		f->st.started_ns = now_ns();
		f->last_ns = f->st.started_ns;
	}
	if (connect(f->ev.fd, (struct sockaddr *)&f->spec.dst,
		    f->spec.dstlen) && errno != EINPROGRESS) {
		f->st.err = errno;
		warnmsg("flow %u: connect: %s", f->spec.id, strerror(errno));
		sender_close(f);
		return;
	}
	f->sstate = S_CONNECTING;
	epoll_add(&f->ev, EPOLLOUT);
}

/* START_US: the flow begins, writing from now or once connected. */
static void flow_begin(struct flow *f)
{
	lp.nstarted++;
	f->due = 1;
	if (cfg.preconnect_ns) {
		f->st.started_ns = now_ns();
		f->last_ns = f->st.started_ns;
	}
	if (f->sstate == S_WAITING) {
		f->sstate = S_SENDING;
		f->write_ns = f->st.started_ns;
		want_out(f, 1);
	}
}

/* The sender's socket is writable: connected, or room in the buffer. */
static void on_send(struct flow *f)
{
	unsigned char hdr[HDR_LEN] = HDR_MAGIC;
	struct iovec iov[2];
	struct msghdr msg = { .msg_iov = iov };
	uint64_t len = cfg.chunk, bytes = f->spec.bytes;
	ssize_t r;
	int err = 0;
	socklen_t elen = sizeof(err);

	if (f->ev.fd < 0)
		return;
	if (f->sstate == S_CONNECTING) {
		getsockopt(f->ev.fd, SOL_SOCKET, SO_ERROR, &err, &elen);
		if (err) {
			f->st.err = err;
			warnmsg("flow %u: connect: %s", f->spec.id,
				strerror(err));
			sender_close(f);
			return;
		}
		f->st.connect_ns = now_ns();
		if (!f->due) {		/* --preconnect-us: not yet */
			f->sstate = S_WAITING;
			want_out(f, 0);
			return;
		}
		f->sstate = S_SENDING;
		f->write_ns = f->st.connect_ns;
	}
	if (f->hdr_sent < HDR_LEN) {
		hdr[4] = f->spec.id >> 24;
		hdr[5] = f->spec.id >> 16;
		hdr[6] = f->spec.id >> 8;
		hdr[7] = f->spec.id;
		iov[msg.msg_iovlen].iov_base = hdr + f->hdr_sent;
		iov[msg.msg_iovlen++].iov_len = HDR_LEN - f->hdr_sent;
	}
	if (bytes && bytes - f->st.sent < len)
		len = bytes - f->st.sent;
	if (cfg.app_rate_mbps) {	/* R Mbit/s = R/8000 bytes per ns */
		uint64_t allowed = (uint64_t)(now_ns() - f->write_ns) *
				   cfg.app_rate_mbps / 8000;

		if (allowed <= f->st.sent) {
			if (!f->throttled && !want_out(f, 0)) {
				f->throttled = 1;
				lp.nthrottled++;
			}
			return;
		}
		if (allowed - f->st.sent < len)
			len = allowed - f->st.sent;
	}
	iov[msg.msg_iovlen].iov_base = cfg.verify ?
		(void *)payload_at(&lp.pl, f->spec.id, f->st.sent) : lp.txbuf;
	iov[msg.msg_iovlen++].iov_len = len;
	r = sendmsg(f->ev.fd, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (r < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		f->st.err = errno;
		warnmsg("flow %u: send: %s", f->spec.id, strerror(errno));
		sender_close(f);
		return;
	}
	if (f->hdr_sent < HDR_LEN) {
		int h = HDR_LEN - f->hdr_sent < r ? HDR_LEN - f->hdr_sent : r;

		f->hdr_sent += h;
		r -= h;
	}
	f->st.sent += r;
	if (bytes && f->st.sent == bytes)
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
	uint32_t x = (*(struct flow *const *)a)->spec.id;
	uint32_t y = (*(struct flow *const *)b)->spec.id;

	return x < y ? -1 : x > y;
}

/* The header is complete: attach the connection to its flow. */
static int conn_identify(struct conn *c)
{
	struct flow key, *kp = &key, **fp;

	key.spec.id = (uint32_t)c->hdr[4] << 24 | c->hdr[5] << 16 |
		      c->hdr[6] << 8 | c->hdr[7];
	fp = bsearch(&kp, ft.by_id, ft.n, sizeof(*ft.by_id), cmp_id);
	if (memcmp(c->hdr, HDR_MAGIC, 4) || !fp || (*fp)->rx_seen) {
		warnmsg("rejecting a connection with a bad or duplicate header");
		return -1;
	}
	c->f = *fp;
	c->f->rx_seen = 1;
	lp.nrx++;
	if (lp.goodput)
		ft.active[ft.nactive++] = c->f;
	return 0;
}

static void conn_close(struct conn *c, int err)
{
	struct flow *f = c->f;

	close(c->ev.fd);
	if (f) {
		f->st.rx_eof = 1;
		f->rx_fin = 1;
		if (err)
			f->st.err = err;
		else if (!f->spec.bytes)
			f->st.done_ns = now_ns();	/* unlimited: EOF time */
		if (f->spec.bytes && f->st.rcvd < f->spec.bytes)
			warnmsg("flow %u: closed after %" PRIu64 " of %" PRIu64
			      " bytes%s%s", f->spec.id, f->st.rcvd,
			      f->spec.bytes, err ? ": " : "",
			      err ? strerror(err) : "");
		lp.nrx--;
		lp.ndone++;
	}
	free(c);
}

static void on_recv(struct conn *c)
{
	ssize_t r = read(c->ev.fd, lp.rxbuf, cfg.chunk);
	unsigned char *p = lp.rxbuf;
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
	if (f->st.first_ns == NONE)
		f->st.first_ns = now_ns();
	if (cfg.verify) {
		int64_t t = now_ns();

		if (f->last_ns != NONE && t - f->last_ns > f->max_gap_ns)
			f->max_gap_ns = t - f->last_ns;
		f->last_ns = t;
		if (f->mismatch_at < 0) {
			f->mismatch_at = payload_check(&lp.pl, f->spec.id,
						       f->st.rcvd, p, r);
			if (f->mismatch_at >= 0) {
				f->verified += f->mismatch_at - f->st.rcvd;
				f->st.err = EBADMSG;
				warnmsg("flow %u: wrong payload at byte %"
					PRId64, f->spec.id, f->mismatch_at);
			} else {
				f->verified += r;
			}
		}
	}
	f->st.rcvd += r;
	lp.total_rcvd += r;
	if (f->spec.bytes && f->st.rcvd >= f->spec.bytes &&
	    f->st.done_ns == NONE) {
		f->st.done_ns = now_ns();
		f->rx_fin = 1;
	}
}

/*
 * One goodput row per active flow (with --changes-only: only if the flow
 * got data since its last row); flows that ended get a last row. Rows are
 * stamped @now, the time the tick was found due: a clock read here, after
 * the rest of run_due(), could put a late tick's row into the next tick's
 * interval.
 */
static void log_goodput(int64_t now)
{
	int64_t t = rel_us(now, lp.epoch);
	int i;

	for (i = 0; i < ft.nactive; i++) {
		struct flow *f = ft.active[i];
		int64_t v[3] = { t, f->spec.id, f->st.rcvd };

		if (!cfg.changes_only || f->st.rcvd != f->logged || f->rx_fin)
			csv_row(lp.goodput, v, 3);
		f->logged = f->st.rcvd;
		if (f->rx_fin)
			ft.active[i--] = ft.active[--ft.nactive];
	}
}

static void sample(struct sampler *sm)
{
	struct qdisc_stats st;
	int64_t t = now_ns();

	if (qs_sample(&sm->qs, &st) == 1)
		qs_write_row(sm->out, rel_us(t, lp.epoch), &st);
	sm->next += sm->interval;
	if (t >= sm->next) {	/* too late: skip ticks, don't burst */
		sm->skipped += (t - sm->next) / sm->interval + 1;
		sm->next += ((t - sm->next) / sm->interval + 1) * sm->interval;
	}
}

static void print_progress(int64_t now)
{
	double dt = (now - lp.progress_last) / 1e9;

	fprintf(stderr, "%s: t=%.1fs started %d/%d receiving %d ended %d "
		"rx %.1f Mbit/s\n", prog, (now - lp.epoch) / 1e9, lp.nstarted,
		ft.n, lp.nrx, lp.ndone,
		dt > 0 ? (lp.total_rcvd - lp.progress_bytes) * 8 / dt / 1e6 : 0);
	lp.progress_last = now;
	lp.progress_bytes = lp.total_rcvd;
}

/*
 * --cc-switch (@t->cc: every sender still open moves to it) and
 * --max-pacing (every sender still open, connected or not, gets the cap).
 */
static void timed_action(const struct timed *t)
{
	unsigned long bps = t->bps ? t->bps : ~0UL;
	const char *what = t->cc ? "--cc-switch" : "--max-pacing";
	int i, n = 0, bad = 0, r;

	for (i = 0; i < ft.n; i++) {
		struct flow *f = &ft.v[i];

		if (f->ev.fd < 0 || (t->cc && f->sstate == S_IDLE))
			continue;
		if (t->cc)
			r = setsockopt(f->ev.fd, IPPROTO_TCP, TCP_CONGESTION,
				       t->cc, strlen(t->cc));
		else
			r = setsockopt(f->ev.fd, SOL_SOCKET, SO_MAX_PACING_RATE,
				       &bps, sizeof(bps));
		if (r) {
			if (!bad++)
				warnmsg("flow %u: %s: %s", f->spec.id, what,
					strerror(errno));
		} else {
			n++;
		}
	}
	if (cfg.quiet)
		return;
	if (t->cc)
		printf("cc-switch to %s", t->cc);
	else
		printf("max-pacing %llu B/s", (unsigned long long)t->bps);
	printf(" at t=%.3f s: %d senders, %d refused\n",
	       (now_ns() - lp.epoch) / 1e9, n, bad);
}

/* Run the entries of @l that are due at @now. */
static void timed_run(struct timed_list *l, int64_t now)
{
	while (l->next < l->n && lp.epoch + l->v[l->next].at_ns <= now)
		timed_action(&l->v[l->next++]);
}

/* The earlier of @next and @l's next entry, absolute ns. */
static int64_t timed_next(const struct timed_list *l, int64_t next)
{
	if (l->next < l->n && lp.epoch + l->v[l->next].at_ns < next)
		return lp.epoch + l->v[l->next].at_ns;
	return next;
}

/* --app-rate-mbps: senders that used up their allowance may write again. */
static void unthrottle(void)
{
	int i;

	for (i = 0; i < ft.n; i++) {
		struct flow *f = &ft.v[i];

		if (!f->throttled)
			continue;
		f->throttled = 0;
		lp.nthrottled--;
		if (f->ev.fd >= 0)
			want_out(f, 1);
	}
}

/* Run everything that is due at @now. */
static void run_due(int64_t now)
{
	int i;

	/* First: a cap due at a flow's connect applies to its SYN on. */
	timed_run(&cfg.caps, now);
	while (ft.next_connect < ft.n &&
	       lp.epoch + connect_at(ft.by_start[ft.next_connect]) <= now)
		flow_connect(ft.by_start[ft.next_connect++]);
	while (ft.next_start < ft.n &&
	       lp.epoch + ft.by_start[ft.next_start]->spec.start_ns <= now)
		flow_begin(ft.by_start[ft.next_start++]);
	while (ft.next_stop < ft.nstop &&
	       lp.epoch + ft.by_stop[ft.next_stop]->spec.stop_ns <= now)
		sender_close(ft.by_stop[ft.next_stop++]);
	timed_run(&cfg.sw, now);
	if (lp.nthrottled && lp.next_tick <= now)
		unthrottle();
	if (lp.goodput && lp.next_tick <= now) {
		log_goodput(now);
		lp.next_tick += cfg.interval_ns;
		if (lp.next_tick <= now)	/* late: skip */
			lp.next_tick += ((now - lp.next_tick) /
					 cfg.interval_ns + 1) * cfg.interval_ns;
	}
	for (i = 0; i < lp.nsamplers; i++)
		if (lp.samplers[i]->next <= now)
			sample(lp.samplers[i]);
	if (cfg.progress && lp.next_progress <= now) {
		print_progress(now);
		lp.next_progress += NSEC_PER_SEC;
	}
	if (lp.epoch + cfg.duration_ns <= now)
		lp.done = 1;
}

static void arm_timer(void)
{
	int64_t next = lp.epoch + cfg.duration_ns;
	struct itimerspec its = { 0 };
	int i;

	if (ft.next_connect < ft.n &&
	    lp.epoch + connect_at(ft.by_start[ft.next_connect]) < next)
		next = lp.epoch + connect_at(ft.by_start[ft.next_connect]);
	if (ft.next_start < ft.n &&
	    lp.epoch + ft.by_start[ft.next_start]->spec.start_ns < next)
		next = lp.epoch + ft.by_start[ft.next_start]->spec.start_ns;
	if (ft.next_stop < ft.nstop &&
	    lp.epoch + ft.by_stop[ft.next_stop]->spec.stop_ns < next)
		next = lp.epoch + ft.by_stop[ft.next_stop]->spec.stop_ns;
	if (lp.goodput && lp.next_tick < next)
		next = lp.next_tick;
	next = timed_next(&cfg.sw, next);
	next = timed_next(&cfg.caps, next);
	for (i = 0; i < lp.nsamplers; i++)
		if (lp.samplers[i]->next < next)
			next = lp.samplers[i]->next;
	if (cfg.progress && lp.next_progress < next)
		next = lp.next_progress;
	its.it_value = ns_to_ts(next);
	if (timerfd_settime(lp.tfd, TFD_TIMER_ABSTIME, &its, NULL))
		die("timerfd_settime: %s", strerror(errno));
}

static int cmp_start(const void *a, const void *b)
{
	const struct flow_spec *x = &(*(struct flow *const *)a)->spec;
	const struct flow_spec *y = &(*(struct flow *const *)b)->spec;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_stop(const void *a, const void *b)
{
	const struct flow_spec *x = &(*(struct flow *const *)a)->spec;
	const struct flow_spec *y = &(*(struct flow *const *)b)->spec;

	return x->stop_ns < y->stop_ns ? -1 : x->stop_ns > y->stop_ns;
}

/* Create all sockets, files, timers; then fix the epoch. */
static void setup(void)
{
	static struct evsrc timer_ev = { EV_TIMER, -1 };
	static struct evsrc sig_ev = { EV_SIGNAL, -1 };
	uint64_t x = cfg.seed ? cfg.seed : 1;
	sigset_t mask;
	size_t i;
	int n;

	lp.txbuf = xrealloc(NULL, cfg.chunk);
	lp.rxbuf = xrealloc(NULL, cfg.chunk);
	for (i = 0; i < cfg.chunk; i++) {	/* xorshift64 payload */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		lp.txbuf[i] = x;
	}
	if (cfg.verify && payload_init(&lp.pl, cfg.seed, cfg.chunk))
		die("out of memory");
	raise_nofile(2 * ft.n + cfg.nlisten + nst.n + 64);
	no_timer_slack();
	lp.ep = epoll_create1(EPOLL_CLOEXEC);
	lp.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	sig_ev.fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (lp.ep < 0 || lp.tfd < 0 || sig_ev.fd < 0)
		die("epoll/timerfd/signalfd: %s", strerror(errno));
	timer_ev.fd = lp.tfd;
	epoll_add(&timer_ev, EPOLLIN);
	epoll_add(&sig_ev, EPOLLIN);

	for (n = 0; n < cfg.nlisten; n++)
		open_listener(cfg.listen[n]);
	ft.by_start = xrealloc(NULL, ft.n * sizeof(*ft.by_start) + 1);
	ft.by_stop = xrealloc(NULL, ft.n * sizeof(*ft.by_stop) + 1);
	ft.active = xrealloc(NULL, ft.n * sizeof(*ft.active) + 1);
	for (n = 0; n < ft.n; n++) {
		struct flow *f = &ft.v[n];

		f->ev.fd = new_socket(f->spec.ns, f->spec.dst.ss_family);
		set_cc(f, f->ev.fd, f->spec.cc ? f->spec.cc : cfg.default_cc);
		if (cfg.sndbuf && setsockopt(f->ev.fd, SOL_SOCKET, SO_SNDBUF,
					     &cfg.sndbuf, sizeof(cfg.sndbuf)))
			die("--flow %u: SO_SNDBUF: %s", f->spec.id,
			    strerror(errno));
		if (cfg.lowat && setsockopt(f->ev.fd, IPPROTO_TCP,
					    TCP_NOTSENT_LOWAT, &cfg.lowat,
					    sizeof(cfg.lowat)))
			die("--flow %u: TCP_NOTSENT_LOWAT: %s", f->spec.id,
			    strerror(errno));
		ft.by_start[n] = f;
		if (f->spec.stop_ns)
			ft.by_stop[ft.nstop++] = f;
	}
	netns_enter(-1);
	qsort(ft.by_start, ft.n, sizeof(*ft.by_start), cmp_start);
	qsort(ft.by_stop, ft.nstop, sizeof(*ft.by_stop), cmp_stop);

	if (cfg.interval_ns) {
		lp.goodput = out_open(cfg.out_dir, "goodput.csv");
		fputs(GOODPUT_CSV_HEADER, lp.goodput);
	}
	for (n = 0; n < lp.nsamplers; n++) {
		lp.samplers[n]->out = out_open(cfg.out_dir,
					       lp.samplers[n]->spec.file);
		qs_write_header(lp.samplers[n]->out);
	}

	lp.epoch = now_ns() + cfg.margin_ns;
	if (cfg.align_ns)
		lp.epoch += cfg.align_ns - lp.epoch % cfg.align_ns;
	if (cfg.epoch_file && epoch_file_write(cfg.epoch_file, lp.epoch))
		die("--epoch-file %s: %s", cfg.epoch_file, strerror(errno));
	lp.next_tick = lp.epoch;
	lp.next_progress = lp.epoch + NSEC_PER_SEC;
	lp.progress_last = lp.epoch;
	for (n = 0; n < lp.nsamplers; n++)
		lp.samplers[n]->next = lp.epoch;
}

/*
 * verify.csv: id, bytes_received, bytes_verified, mismatch_at (-1: none),
 * max_gap_us (the longest time without payload arriving: from connect()
 * to the first byte, between reads, and, for a flow still open at the end,
 * up to the end), last_progress_us (-1: never).
 */
static void write_verify(void)
{
	FILE *out = out_open(cfg.out_dir, "verify.csv");
	int64_t now = now_ns();
	int i;

	fputs("id,bytes_received,bytes_verified,mismatch_at,max_gap_us,"
	      "last_progress_us\n", out);
	for (i = 0; i < ft.n; i++) {
		struct flow *f = ft.by_id[i];
		int64_t gap = f->max_gap_ns;
		int open = f->st.started_ns != NONE && !f->st.err &&
			   !f->st.rx_eof && !(f->spec.bytes &&
					      f->st.rcvd >= f->spec.bytes);

		if (open && f->last_ns != NONE && now - f->last_ns > gap)
			gap = now - f->last_ns;
		fprintf(out, "%u,%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%" PRId64
			",%" PRId64 "\n", f->spec.id, f->st.rcvd, f->verified,
			f->mismatch_at, gap / NSEC_PER_USEC,
			f->st.first_ns == NONE ? -1 :
			rel_us(f->last_ns, lp.epoch));
	}
	if (fclose(out))
		die("%s: write error", cfg.out_dir);
}

static void write_results(void)
{
	FILE *out = out_open(cfg.out_dir, "flows.csv");
	int i, errors = 0;

	fputs(FLOWS_CSV_HEADER, out);
	for (i = 0; i < ft.n; i++) {
		struct flow *f = ft.by_id[i];

		flows_csv_row(out, &f->spec, &f->st, lp.epoch);
		errors += !!f->st.err;
	}
	if (fclose(out) || (lp.goodput && fclose(lp.goodput)))
		die("%s: write error", cfg.out_dir);
	if (cfg.verify)
		write_verify();
	for (i = 0; i < lp.nsamplers; i++)
		if (fclose(lp.samplers[i]->out))
			die("%s: write error", cfg.out_dir);
	if (cfg.quiet)
		return;
	for (i = 0; i < ft.n; i++)
		flow_summary(stdout, &ft.by_id[i]->spec, &ft.by_id[i]->st,
			     lp.epoch, now_ns());
	for (i = 0; i < lp.nsamplers; i++)
		sampler_summary(stdout, lp.samplers[i]->spec.file,
				lp.samplers[i]->qs.kind,
				lp.samplers[i]->skipped,
				lp.samplers[i]->qs.misses);
	totals_summary(stdout, ft.n, lp.nstarted, lp.total_rcvd, errors,
		       lp.interrupted);
}

/* --cc-switch AT_US,CC (@cc) or --max-pacing AT_US,BPS, in time order. */
static void add_timed(const char *spec, int cc)
{
	const char *what = cc ? "--cc-switch" : "--max-pacing";
	const char *comma = strchr(spec, ',');
	struct timed t = { 0 };
	struct timed_list *l;
	unsigned long long at;
	char *end;
	int i;

	errno = 0;
	at = strtoull(spec, &end, 10);
	if (!comma || end != comma || end == spec || errno ||
	    at > INT64_MAX / NSEC_PER_USEC)
		die("%s '%s': not AT_US,%s", what, spec, cc ? "CC" : "BPS");
	t.at_ns = (int64_t)at * NSEC_PER_USEC;
	if (cc) {
		if (!comma[1] || strlen(comma + 1) >= 16)
			die("--cc-switch '%s': CC must be 1..15 characters",
			    spec);
		t.cc = comma + 1;
	} else {
		t.bps = arg_u64("--max-pacing: BPS", comma + 1);
		if (t.bps >= ~0UL)
			die("--max-pacing '%s': BPS too large", spec);
	}
	l = cc ? &cfg.sw : &cfg.caps;
	l->v = xrealloc(l->v, (l->n + 1) * sizeof(*l->v));
	for (i = l->n; i > 0 && l->v[i - 1].at_ns > t.at_ns; i--)
		l->v[i] = l->v[i - 1];
	l->v[i] = t;
	l->n++;
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
		{ "verify", no_argument, NULL, 'V' },
		{ "cc-switch", required_argument, NULL, 'W' },
		{ "max-pacing", required_argument, NULL, 'M' },
		{ "app-rate-mbps", required_argument, NULL, 'R' },
		{ "preconnect-us", required_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	char **sample_specs = NULL;
	int c, nsample = 0, i;

	while ((c = next_opt(argc, argv, opts, usage)) != -1) {
		switch (c) {
		case 'l':
			cfg.listen = xrealloc(cfg.listen, (cfg.nlisten + 1) *
					      sizeof(*cfg.listen));
			cfg.listen[cfg.nlisten++] = optarg;
			break;
		case 'f':
			add_flow(optarg);
			break;
		case 'F':
			read_flow_file(optarg);
			break;
		case 'c':
			cfg.default_cc = optarg;
			break;
		case 'i':
			cfg.interval_ns = arg_u64("--interval-us", optarg) *
					  NSEC_PER_USEC;
			break;
		case 'd':
			cfg.duration_ns = arg_u64("--duration-us", optarg) *
					  NSEC_PER_USEC;
			break;
		case 'o':
			cfg.out_dir = optarg;
			break;
		case 'S':	/* opened once all namespaces are known */
			sample_specs = xrealloc(sample_specs, (nsample + 1) *
						sizeof(*sample_specs));
			sample_specs[nsample++] = optarg;
			break;
		case 'e':
			cfg.epoch_file = optarg;
			break;
		case 'A':
			cfg.align_ns = arg_u64("--align-us", optarg) *
				       NSEC_PER_USEC;
			break;
		case 'm':
			cfg.margin_ns = arg_u64("--margin-us", optarg) *
					NSEC_PER_USEC;
			break;
		case 's':
			cfg.sndbuf = arg_u64("--sndbuf", optarg);
			break;
		case 'r':
			cfg.rcvbuf = arg_u64("--rcvbuf", optarg);
			break;
		case 'L':
			cfg.lowat = arg_u64("--notsent-lowat", optarg);
			break;
		case 'k':
			cfg.chunk = arg_u64("--chunk", optarg);
			if (cfg.chunk < 1 || cfg.chunk > (1 << 30))
				die("--chunk must be 1..2^30 bytes");
			break;
		case 'x':
			cfg.seed = arg_u64("--seed", optarg);
			break;
		case 'q':
			cfg.quiet = 1;
			break;
		case 'p':
			cfg.progress = 1;
			break;
		case 'C':
			cfg.changes_only = 1;
			break;
		case 'V':
			cfg.verify = 1;
			break;
		case 'W':
			add_timed(optarg, 1);
			break;
		case 'M':
			add_timed(optarg, 0);
			break;
		case 'P':
			cfg.preconnect_ns = arg_u64("--preconnect-us", optarg) *
					    NSEC_PER_USEC;
			break;
		case 'R':
			cfg.app_rate_mbps = arg_u64("--app-rate-mbps", optarg);
			if (!cfg.app_rate_mbps)
				die("--app-rate-mbps must be > 0");
			break;
		}
	}
	if (!cfg.out_dir)
		die("--out-dir is required");
	if (cfg.duration_ns <= 0)
		die("--duration-us is required and must be > 0");
	if (!ft.n && !cfg.nlisten)
		die("nothing to do: no --flow and no --listen");
	if (cfg.app_rate_mbps && !cfg.interval_ns)
		die("--app-rate-mbps needs --interval-us > 0 (its refill tick)");
	if (cfg.epoch_file)	/* a stale epoch would mislead samplers */
		unlink(cfg.epoch_file);
	ft.by_id = xrealloc(NULL, ft.n * sizeof(*ft.by_id) + 1);
	for (i = 0; i < ft.n; i++)
		ft.by_id[i] = &ft.v[i];
	qsort(ft.by_id, ft.n, sizeof(*ft.by_id), cmp_id);
	for (i = 1; i < ft.n; i++)
		if (ft.by_id[i]->spec.id == ft.by_id[i - 1]->spec.id)
			die("--flow %u: duplicate flow id",
			    ft.by_id[i]->spec.id);
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
	while (!lp.done) {
		int fired = 0;

		n = epoll_wait(lp.ep, evs, MAX_EVENTS, -1);
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
					lp.interrupted = lp.done = 1;
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
			if (!lp.done)
				arm_timer();
		}
	}
	if (lp.interrupted)
		warnmsg("interrupted at t=%.3f s", (now_ns() - lp.epoch) / 1e9);
	write_results();
	for (i = 0; i < ft.n; i++)
		if (ft.v[i].st.err)
			return 1;
	return lp.interrupted;
}
