/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tcpflows' command-line specs: --flow (and the lines of --flow-file),
 * --listen and --sample. The parsers have no side effects but the
 * namespace lookup they are given; on a bad spec they return -1 with the
 * one-line message tcpflows prints (without the "tcpflows: " prefix).
 */
#ifndef TOOLS_FLOWSPEC_H
#define TOOLS_FLOWSPEC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

/* Room for any message of these parsers. */
#define SPEC_ERR_LEN	512

/*
 * Maps a network namespace name to an index of the caller's table (and
 * may exit if it does not exist); @what is the prefix for its errors.
 */
typedef int (*netns_lookup_fn)(void *ctx, const char *what, const char *name);

/* --flow ID,SRC_NETNS,DST_ADDR,DST_PORT,START_US,BYTES,STOP_US[,CC] */
struct flow_spec {
	uint32_t id;
	int ns;				/* SRC_NETNS, from the lookup */
	const char *netns;		/* SRC_NETNS as given */
	const char *cc;			/* NULL: the namespace's default */
	struct sockaddr_storage dst;
	socklen_t dstlen;
	int64_t start_ns, stop_ns;	/* relative to the epoch, 0: none */
	uint64_t bytes;			/* 0: unlimited */
	char *buf;			/* holds the strings above */
};

/*
 * Parse a --flow spec. The checks run in this order, the first failure
 * giving the message: ID ("--flow 'SPEC': ID is not a number"), then
 * with "--flow ID: " the field count, START_US, BYTES, STOP_US, STOP_US
 * after START_US; then the lookup of SRC_NETNS; then DST_PORT, DST_ADDR.
 */
int flow_spec_parse(const char *spec, struct flow_spec *fs,
		    netns_lookup_fn lookup, void *ctx, char *err,
		    size_t errlen);
void flow_spec_free(struct flow_spec *fs);

/*
 * A line of a --flow-file, in place: leading blanks and everything from
 * '#' or the line end on are cut. Returns the spec, or NULL if none.
 */
char *flow_file_line(char *line);

/* --listen NETNS,ADDR,PORT */
struct listen_spec {
	int ns;				/* NETNS, from the lookup */
	struct sockaddr_storage addr;
	socklen_t len;
	char what[256];			/* "--listen SPEC": prefix of errors */
};

/*
 * Parse a --listen spec: the field count, ADDR and PORT, then the lookup
 * of NETNS. Messages start with "--listen SPEC: ".
 */
int listen_spec_parse(const char *spec, struct listen_spec *ls,
		      netns_lookup_fn lookup, void *ctx, char *err,
		      size_t errlen);

/* --sample NETNS,DEV,INTERVAL_US[,PARENT] */
struct sample_spec {
	const char *netns, *dev;
	const char *parent;		/* "root" if not given */
	uint64_t interval_us;		/* > 0 */
	char *file;			/* qdisc-NETNS-DEV[-PARENT].csv */
	char *buf;			/* holds the strings above */
};

/*
 * Parse a --sample spec (no lookup: the caller opens the namespace and
 * the qdisc). The file name has '/' and ':' replaced by '_'.
 */
int sample_spec_parse(const char *spec, struct sample_spec *ss, char *err,
		      size_t errlen);
void sample_spec_free(struct sample_spec *ss);

/*
 * An IPv4 or IPv6 address and a port into @ss; messages start with
 * "WHAT: ".
 */
int parse_addr(const char *what, const char *addr, const char *port,
	       struct sockaddr_storage *ss, socklen_t *len, char *err,
	       size_t errlen);

#endif
