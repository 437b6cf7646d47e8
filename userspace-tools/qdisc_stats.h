/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Sample the statistics of one qdisc through raw rtnetlink: one
 * RTM_GETQDISC dump request and its response per sample, filtered in user
 * space to one device and one qdisc, into a buffer allocated once.
 * Used by tcpflows --sample.
 */
#ifndef TOOLS_QDISC_STATS_H
#define TOOLS_QDISC_STATS_H

#include <stdint.h>
#include <stdio.h>

struct qdisc_stats {
	uint64_t bytes;		/* sent bytes */
	uint64_t packets;	/* sent packets */
	uint32_t backlog;	/* queued bytes */
	uint32_t qlen;		/* queued packets */
	uint32_t drops;
	uint32_t overlimits;
	uint32_t requeues;
};

#define QS_BUFSZ	(32 * 1024)	/* the kernel's largest dump skb */

struct qdisc_sampler {
	int fd;			/* NETLINK_ROUTE socket in the device's netns */
	int ifindex;
	uint32_t parent;	/* match tcm_parent if non-zero ... */
	uint32_t handle;	/* ... else match tcm_handle */
	uint32_t seq;
	unsigned long misses;	/* samples where the qdisc was not found */
	char kind[16];		/* e.g. "tbf", from the first sample */
	char buf[QS_BUFSZ] __attribute__((aligned(8)));
};

/*
 * Open a sampler for device @dev in the namespace @nsfd (see netns_open()),
 * for the qdisc @which: "root", "ingress", or a handle "MAJ:[MIN]" in hex
 * as tc prints it (e.g. "2:" for a netem child of tbf). Dies with a
 * message if the device or the qdisc does not exist. Returns in the
 * initial namespace.
 */
void qs_open(struct qdisc_sampler *s, int nsfd, const char *dev,
	     const char *which);

/* Take one sample: 1 if found, 0 if the qdisc is gone, -1 on error. */
int qs_sample(struct qdisc_sampler *s, struct qdisc_stats *st);

/* The qdisc CSV (README.md). */
void qs_write_header(FILE *f);
void qs_write_row(FILE *f, int64_t t_us, const struct qdisc_stats *st);

#endif
