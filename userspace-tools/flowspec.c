// SPDX-License-Identifier: GPL-2.0
/* tcpflows' --flow, --listen and --sample specs, see flowspec.h. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "flowspec.h"

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

int parse_addr(const char *what, const char *addr, const char *port,
	       struct sockaddr_storage *ss, socklen_t *len, char *err,
	       size_t errlen)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	uint64_t p;

	if (parse_u64(port, &p) || p > 65535)
		return fail(err, errlen, "%s: PORT '%s' is not a port number",
			    what, port);
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
		return fail(err, errlen,
			    "%s: '%s' is not an IPv4 or IPv6 address", what,
			    addr);
	}
	return 0;
}

int flow_spec_parse(const char *spec, struct flow_spec *fs,
		    netns_lookup_fn lookup, void *ctx, char *err,
		    size_t errlen)
{
	static const char *const name[] = { "ID", "SRC_NETNS", "DST_ADDR",
		"DST_PORT", "START_US", "BYTES", "STOP_US", "CC" };
	char *s = xstrdup(spec), *fl[9], what[64];
	uint64_t v[7];
	int n, i;

	memset(fs, 0, sizeof(*fs));
	n = split_commas(s, fl, 9);
	if (parse_u64(fl[0], &v[0]) || v[0] > UINT32_MAX) {
		free(s);
		return fail(err, errlen, "--flow '%s': ID is not a number",
			    spec);
	}
	snprintf(what, sizeof(what), "--flow %s", fl[0]);
	if (n < 7 || n > 8) {
		free(s);
		return fail(err, errlen,
			    "%s: expected 7 or 8 comma separated fields", what);
	}
	for (i = 4; i < 7; i++) {
		if (parse_u64(fl[i], &v[i])) {
			free(s);
			return fail(err, errlen, "%s: %s not a number", what,
				    name[i]);
		}
	}
	if (v[6] && v[6] <= v[4]) {
		free(s);
		return fail(err, errlen,
			    "%s: STOP_US must be 0 or after START_US", what);
	}
	fs->id = v[0];
	fs->ns = lookup(ctx, what, fl[1]);
	if (parse_addr(what, fl[2], fl[3], &fs->dst, &fs->dstlen, err,
		       errlen)) {
		free(s);
		return -1;
	}
	fs->netns = fl[1];
	fs->start_ns = v[4] * NSEC_PER_USEC;
	fs->bytes = v[5];
	fs->stop_ns = v[6] * NSEC_PER_USEC;
	fs->cc = n == 8 && *fl[7] ? fl[7] : NULL;
	fs->buf = s;
	return 0;
}

void flow_spec_free(struct flow_spec *fs)
{
	free(fs->buf);
	fs->buf = NULL;
}

char *flow_file_line(char *line)
{
	char *p = line + strspn(line, " \t");

	p[strcspn(p, "#\r\n")] = '\0';
	return *p ? p : NULL;
}

int listen_spec_parse(const char *spec, struct listen_spec *ls,
		      netns_lookup_fn lookup, void *ctx, char *err,
		      size_t errlen)
{
	char *s = xstrdup(spec), *fl[4];
	int rc = -1;

	memset(ls, 0, sizeof(*ls));
	snprintf(ls->what, sizeof(ls->what), "--listen %s", spec);
	if (split_commas(s, fl, 4) != 3)
		fail(err, errlen, "%s: expected NETNS,ADDR,PORT", ls->what);
	else if (!parse_addr(ls->what, fl[1], fl[2], &ls->addr, &ls->len, err,
			     errlen))
		rc = 0;
	if (!rc)
		ls->ns = lookup(ctx, ls->what, fl[0]);
	free(s);
	return rc;
}

int sample_spec_parse(const char *spec, struct sample_spec *ss, char *err,
		      size_t errlen)
{
	char *s = xstrdup(spec), *fl[5], *p;
	int n = split_commas(s, fl, 5);

	memset(ss, 0, sizeof(*ss));
	if (n < 3 || n > 4) {
		free(s);
		return fail(err, errlen,
			    "--sample '%s': expected NETNS,DEV,INTERVAL_US[,PARENT]",
			    spec);
	}
	if (parse_u64(fl[2], &ss->interval_us) || !ss->interval_us) {
		free(s);
		return fail(err, errlen,
			    "--sample '%s': INTERVAL_US not a positive number",
			    spec);
	}
	ss->netns = fl[0];
	ss->dev = fl[1];
	ss->parent = n > 3 ? fl[3] : "root";
	if (asprintf(&ss->file, "qdisc-%s-%s%s%s.csv", fl[0], fl[1],
		     n > 3 ? "-" : "", n > 3 ? fl[3] : "") < 0)
		die("out of memory");
	for (p = ss->file; *p; p++)	/* paths, handles: keep a file name */
		if (*p == '/' || *p == ':')
			*p = '_';
	ss->buf = s;
	return 0;
}

void sample_spec_free(struct sample_spec *ss)
{
	free(ss->file);
	free(ss->buf);
	ss->file = ss->buf = NULL;
}
