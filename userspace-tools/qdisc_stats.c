// SPDX-License-Identifier: GPL-2.0
/* Qdisc statistics over raw rtnetlink, see qdisc_stats.h. */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/gen_stats.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>

#include "common.h"
#include "qdisc_stats.h"

/* Parse "root", "ingress" or a tc handle "MAJ:[MIN]" (hex). */
static void parse_which(struct qdisc_sampler *s, const char *which)
{
	unsigned long maj, min = 0;
	char *end;

	s->parent = 0;
	s->handle = 0;
	if (!strcmp(which, "root")) {
		s->parent = TC_H_ROOT;
		return;
	}
	if (!strcmp(which, "ingress")) {
		s->parent = TC_H_INGRESS;
		return;
	}
	maj = strtoul(which, &end, 16);
	if (end == which || *end != ':' || maj > 0xffff)
		die("--parent: '%s' is not root, ingress or MAJ:[MIN]", which);
	if (end[1]) {
		which = end + 1;
		min = strtoul(which, &end, 16);
		if (*end || min > 0xffff)
			die("--parent: bad minor in '%s'", which);
	}
	s->handle = TC_H_MAKE(maj << 16, min);
}

void qs_open(struct qdisc_sampler *s, int nsfd, const char *dev,
	     const char *which)
{
	struct qdisc_stats st;

	memset(s, 0, sizeof(*s));
	parse_which(s, which);
	netns_enter(nsfd);
	s->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s->fd < 0)
		die("netlink socket: %s", strerror(errno));
	s->ifindex = if_nametoindex(dev);
	netns_enter(-1);
	if (!s->ifindex)
		die("no device '%s' in that network namespace", dev);
	switch (qs_sample(s, &st)) {
	case 0:
		die("no %s qdisc on '%s' (none configured, or noqueue)",
		    which, dev);
	case -1:
		die("RTM_GETQDISC on '%s' failed", dev);
	}
}

/* Fill @st from the attributes of one RTM_NEWQDISC message. */
static void parse_qdisc(struct qdisc_sampler *s, struct rtattr *a, int len,
			struct qdisc_stats *st)
{
	struct gnet_stats_basic b = { 0 };
	struct gnet_stats_queue q = { 0 };
	struct tc_stats old = { 0 };
	uint64_t pkt64 = 0;
	int have2 = 0, haveold = 0;

	for (; RTA_OK(a, len); a = RTA_NEXT(a, len)) {
		struct rtattr *n = RTA_DATA(a);
		int nlen = RTA_PAYLOAD(a);

		switch (a->rta_type & NLA_TYPE_MASK) {
		case TCA_KIND:
			if (!s->kind[0])
				snprintf(s->kind, sizeof(s->kind), "%.*s",
					 nlen, (char *)n);
			break;
		case TCA_STATS:
			memcpy(&old, n, nlen < (int)sizeof(old) ?
			       (size_t)nlen : sizeof(old));
			haveold = 1;
			break;
		case TCA_STATS2:
			have2 = 1;
			for (; RTA_OK(n, nlen); n = RTA_NEXT(n, nlen)) {
				void *d = RTA_DATA(n);
				size_t l = RTA_PAYLOAD(n);

				switch (n->rta_type & NLA_TYPE_MASK) {
				case TCA_STATS_BASIC:
					memcpy(&b, d, l < sizeof(b) ?
					       l : sizeof(b));
					break;
				case TCA_STATS_QUEUE:
					memcpy(&q, d, l < sizeof(q) ?
					       l : sizeof(q));
					break;
				case TCA_STATS_PKT64:
					if (l >= sizeof(pkt64))
						memcpy(&pkt64, d,
						       sizeof(pkt64));
					break;
				}
			}
			break;
		}
	}
	if (have2 || !haveold) {
		st->bytes = b.bytes;
		st->packets = pkt64 ? pkt64 : b.packets;
		st->backlog = q.backlog;
		st->qlen = q.qlen;
		st->drops = q.drops;
		st->overlimits = q.overlimits;
		st->requeues = q.requeues;
	} else {
		st->bytes = old.bytes;
		st->packets = old.packets;
		st->backlog = old.backlog;
		st->qlen = old.qlen;
		st->drops = old.drops;
		st->overlimits = old.overlimits;
		st->requeues = 0;
	}
}

int qs_sample(struct qdisc_sampler *s, struct qdisc_stats *st)
{
	struct {
		struct nlmsghdr nh;
		struct tcmsg tc;
	} req = {
		.nh.nlmsg_len = sizeof(req),
		.nh.nlmsg_type = RTM_GETQDISC,
		.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP,
		.nh.nlmsg_seq = ++s->seq,
		.tc.tcm_family = AF_UNSPEC,
		.tc.tcm_ifindex = s->ifindex,	/* the kernel may ignore it */
	};
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	int found = 0;

	if (sendto(s->fd, &req, sizeof(req), 0, (struct sockaddr *)&kernel,
		   sizeof(kernel)) < 0)
		return -1;
	for (;;) {
		struct nlmsghdr *nh = (struct nlmsghdr *)s->buf;
		ssize_t len = recv(s->fd, s->buf, sizeof(s->buf), MSG_TRUNC);

		if (len < 0 && errno == EINTR)
			continue;
		if (len <= 0)
			return -1;
		if (len > (ssize_t)sizeof(s->buf)) {
			errno = EMSGSIZE;	/* cannot happen for qdiscs */
			return -1;
		}
		for (; NLMSG_OK(nh, len); nh = NLMSG_NEXT(nh, len)) {
			struct tcmsg *tc = NLMSG_DATA(nh);

			if (nh->nlmsg_seq != s->seq)
				continue;	/* stale, from an old dump */
			if (nh->nlmsg_type == NLMSG_DONE)
				goto done;
			if (nh->nlmsg_type == NLMSG_ERROR)
				return -1;
			if (nh->nlmsg_type != RTM_NEWQDISC || found ||
			    tc->tcm_ifindex != s->ifindex ||
			    (s->parent && tc->tcm_parent != s->parent) ||
			    (!s->parent && tc->tcm_handle != s->handle))
				continue;
			parse_qdisc(s, (struct rtattr *)((char *)tc +
				    NLMSG_ALIGN(sizeof(*tc))),
				    nh->nlmsg_len - NLMSG_LENGTH(sizeof(*tc)),
				    st);
			found = 1;
		}
	}
done:
	if (!found)
		s->misses++;
	return found;
}

void qs_write_header(FILE *f)
{
	fputs("time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts,"
	      "drops,overlimits\n", f);
}

void qs_write_row(FILE *f, int64_t t_us, const struct qdisc_stats *st)
{
	int64_t v[7] = { t_us, st->backlog, st->qlen, st->bytes, st->packets,
			 st->drops, st->overlimits };

	csv_row(f, v, 7);
}
