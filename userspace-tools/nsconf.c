// SPDX-License-Identifier: GPL-2.0
/*
 * nsconf: the same settings in many network namespaces from one process,
 * for the testbed's topologies: "ip netns exec NS sysctl ...", "ip netns
 * exec NS ethtool -K DEV tso off gso off" and "ip -n NS link set ..." for
 * each of 256 hosts cost seconds of exec()s in a TCG guest. Each namespace
 * in turn: setns() into it, then every action in the order given. Also
 * reads a counter of /proc/net/snmp in each.
 *
 * Errors give one line on stderr, naming the namespace and the action;
 * bad usage exits 2, a failed action 1 (the namespaces before it are
 * set, the rest not).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <getopt.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

static const char usage[] =
"usage: nsconf [ACTION]... NETNS...\n"
"Actions, done in each NETNS (a name in /run/netns, a path like\n"
"/proc/PID/ns/net, or '.') in the order given:\n"
"  --sysctl KEY=VALUE    write VALUE to /proc/sys/KEY (dots as slashes),\n"
"                        as sysctl -w does\n"
"  --up DEV              bring DEV up (ip link set DEV up)\n"
"  --no-offload DEV      TSO and GSO off on DEV (ethtool -K DEV tso off\n"
"                        gso off)\n"
"  --gro DEV             GRO on on DEV (ethtool -K DEV gro on; on a veth\n"
"                        this gives it a NAPI receive path)\n"
"  --gso-max-segs DEV=N  ip link set dev DEV gso_max_segs N\n"
"  --snmp TABLE.FIELD    print NETNS,VALUE of /proc/net/snmp's counter,\n"
"                        e.g. Tcp.RetransSegs\n"
"Exit 0; 2 on bad usage; 1, with one line naming the namespace and the\n"
"action, if an action fails.\n";

enum { A_SYSCTL, A_UP, A_NO_OFFLOAD, A_GRO, A_GSO_SEGS, A_SNMP };

static struct action {
	int kind;
	const char *arg;
} *acts;
static int nacts;

static const char *cur_ns_name;

static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s: ", prog, cur_ns_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* KEY=VALUE into /proc/sys/KEY, dots in KEY as slashes. */
static void do_sysctl(const char *arg)
{
	const char *eq = strchr(arg, '=');
	char path[512];
	size_t i, n;
	int fd;

	n = snprintf(path, sizeof(path), "/proc/sys/%.*s",
		     (int)(eq - arg), arg);
	for (i = strlen("/proc/sys/"); i < n && i < sizeof(path); i++)
		if (path[i] == '.')
			path[i] = '/';
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, eq + 1, strlen(eq + 1)) < 0)
		fail("sysctl %s: %s", arg, strerror(errno));
	close(fd);
}

/* A socket of the current namespace, for its ioctls. */
static int ns_socket(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		fail("socket: %s", strerror(errno));
	return s;
}

static void do_up(const char *dev)
{
	struct ifreq ifr = { 0 };
	int s = ns_socket();

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		fail("%s: %s", dev, strerror(errno));
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
		fail("%s up: %s", dev, strerror(errno));
	close(s);
}

/*
 * ethtool's "tso" group (tx-tcp-segmentation, tx-tcp6-segmentation, ...)
 * and GSO.
 */
static int is_tso_gso(const char *name)
{
	return !fnmatch("tx-tcp*segmentation", name, 0) ||
	       !strcmp(name, "tx-generic-segmentation");
}

static int is_gro(const char *name)
{
	return !strcmp(name, "rx-gro");
}

/*
 * The features of DEV that @match names, on or off, by name as ethtool -K
 * does (ETHTOOL_SFEATURES): "tso off" with the legacy ETHTOOL_STSO leaves
 * some of the tx-tcp*segmentation features on. @what names the change in
 * an error.
 */
static void set_features(const char *dev, int (*match)(const char *),
			 int on, const char *what)
{
	struct {
		struct ethtool_sset_info hdr;
		__u32 len;
	} info = { .hdr = { .cmd = ETHTOOL_GSSET_INFO,
			    .sset_mask = 1ULL << ETH_SS_FEATURES } };
	struct ethtool_gstrings *names;
	struct ethtool_sfeatures *set;
	struct ifreq ifr = { 0 };
	__u32 n, i, words;
	int s = ns_socket(), r;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", dev);
	ifr.ifr_data = (char *)&info;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0 || !info.hdr.sset_mask)
		fail("%s: its features: %s", dev, strerror(errno));
	n = info.len;
	words = (n + 31) / 32;
	names = calloc(1, sizeof(*names) + (size_t)n * ETH_GSTRING_LEN);
	set = calloc(1, sizeof(*set) + words * sizeof(set->features[0]));
	if (!names || !set)
		die("out of memory");
	names->cmd = ETHTOOL_GSTRINGS;
	names->string_set = ETH_SS_FEATURES;
	names->len = n;
	ifr.ifr_data = (char *)names;
	if (ioctl(s, SIOCETHTOOL, &ifr) < 0)
		fail("%s: its feature names: %s", dev, strerror(errno));
	set->cmd = ETHTOOL_SFEATURES;
	set->size = words;
	for (i = 0; i < n; i++) {
		char name[ETH_GSTRING_LEN + 1] = "";

		memcpy(name, names->data + i * ETH_GSTRING_LEN,
		       ETH_GSTRING_LEN);
		if (!match(name))
			continue;
		set->features[i / 32].valid |= 1U << (i % 32);
		if (on)
			set->features[i / 32].requested |= 1U << (i % 32);
	}
	ifr.ifr_data = (char *)set;
	/*
	 * > 0 (ETHTOOL_F_WISH, ...): the device kept some as they were. Off,
	 * the ones it cannot change are not in its way (veth's fixed ones);
	 * on, a feature it did not take is an error.
	 */
	errno = 0;
	r = ioctl(s, SIOCETHTOOL, &ifr);
	if (r < 0 || (on && r > 0))
		fail("%s: %s: %s", dev, what,
		     r < 0 ? strerror(errno) : "the device kept it off");
	free(names);
	free(set);
	close(s);
}

/* RTM_NEWLINK with IFLA_GSO_MAX_SEGS, acknowledged. */
static void do_gso_segs(const char *arg)
{
	const char *eq = strchr(arg, '=');
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
		struct rtattr rta;
		__u32 segs;
	} req = { 0 };
	struct {
		struct nlmsghdr nh;
		struct nlmsgerr err;
	} ack;
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	char dev[IFNAMSIZ];
	uint64_t segs;
	int s;

	snprintf(dev, sizeof(dev), "%.*s", (int)(eq - arg), arg);
	parse_u64(eq + 1, &segs);	/* checked by add() */
	req.nh.nlmsg_len = sizeof(req);
	req.nh.nlmsg_type = RTM_NEWLINK;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.ifi.ifi_family = AF_UNSPEC;
	req.ifi.ifi_index = if_nametoindex(dev);
	if (!req.ifi.ifi_index)
		fail("%s: %s", dev, strerror(errno));
	req.rta.rta_type = IFLA_GSO_MAX_SEGS;
	req.rta.rta_len = RTA_LENGTH(sizeof(req.segs));
	req.segs = segs;
	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0)
		fail("netlink socket: %s", strerror(errno));
	if (sendto(s, &req, sizeof(req), 0, (struct sockaddr *)&sa,
		   sizeof(sa)) < 0 ||
	    recv(s, &ack, sizeof(ack), 0) < (ssize_t)sizeof(ack))
		fail("%s gso_max_segs: %s", dev, strerror(errno));
	if (ack.nh.nlmsg_type != NLMSG_ERROR || ack.err.error)
		fail("%s gso_max_segs %llu: %s", dev,
		     (unsigned long long)segs,
		     strerror(ack.nh.nlmsg_type == NLMSG_ERROR ?
			      -ack.err.error : EPROTO));
	close(s);
}

/*
 * TABLE.FIELD of /proc/net/snmp (the current namespace's): a header line
 * "Table: names..." and a value line "Table: values...".
 */
static void do_snmp(const char *arg)
{
	const char *dot = strchr(arg, '.');
	char table[64], *hdr = NULL, *val = NULL, *h, *v, *hs, *vs;
	size_t hcap = 0, vcap = 0;
	FILE *f = fopen("/proc/net/snmp", "re");

	snprintf(table, sizeof(table), "%.*s:", (int)(dot - arg), arg);
	if (!f)
		fail("/proc/net/snmp: %s", strerror(errno));
	while (getline(&hdr, &hcap, f) > 0) {
		if (strncmp(hdr, table, strlen(table)))
			continue;
		if (getline(&val, &vcap, f) <= 0)
			break;
		h = strtok_r(hdr, " \n", &hs);
		v = strtok_r(val, " \n", &vs);
		while (h && v) {
			if (!strcmp(h, dot + 1)) {
				printf("%s,%s\n", cur_ns_name, v);
				free(hdr);
				free(val);
				fclose(f);
				return;
			}
			h = strtok_r(NULL, " \n", &hs);
			v = strtok_r(NULL, " \n", &vs);
		}
		break;
	}
	fail("/proc/net/snmp has no %s", arg);
}

/* An action; with @need, ARG must be X@needY, X and Y not empty. */
static void add(int kind, const char *arg, const char *need)
{
	const char *sep = need ? strchr(arg, *need) : NULL;
	uint64_t n;

	if (need && (!sep || sep == arg || !sep[1]))
		die("'%s' is not %s", arg, kind == A_SNMP ? "TABLE.FIELD" :
		    kind == A_SYSCTL ? "KEY=VALUE" : "DEV=N");
	if (kind == A_GSO_SEGS && (parse_u64(sep + 1, &n) || !n || n > 65535))
		die("--gso-max-segs: '%s' is not DEV=N, N from 1 to 65535",
		    arg);
	acts = realloc(acts, (nacts + 1) * sizeof(*acts));
	if (!acts)
		die("out of memory");
	acts[nacts].kind = kind;
	acts[nacts++].arg = arg;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "sysctl", required_argument, NULL, 's' },
		{ "up", required_argument, NULL, 'u' },
		{ "no-offload", required_argument, NULL, 'o' },
		{ "gro", required_argument, NULL, 'r' },
		{ "gso-max-segs", required_argument, NULL, 'g' },
		{ "snmp", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c, i, j, fd;

	prog = "nsconf";
	/* Namespaces follow the options: stop at the first of them. */
	while ((c = getopt_long(argc, argv, "+h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			add(A_SYSCTL, optarg, "=");
			break;
		case 'u':
			add(A_UP, optarg, NULL);
			break;
		case 'o':
			add(A_NO_OFFLOAD, optarg, NULL);
			break;
		case 'r':
			add(A_GRO, optarg, NULL);
			break;
		case 'g':
			add(A_GSO_SEGS, optarg, "=");
			break;
		case 'n':
			add(A_SNMP, optarg, ".");
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			die("bad usage (see --help)");
		}
	}
	if (optind == argc)
		die("no network namespace (see --help)");
	for (i = optind; i < argc; i++) {
		cur_ns_name = argv[i];
		fd = netns_open("netns", argv[i]);
		netns_enter(fd);
		for (j = 0; j < nacts; j++) {
			switch (acts[j].kind) {
			case A_SYSCTL:
				do_sysctl(acts[j].arg);
				break;
			case A_UP:
				do_up(acts[j].arg);
				break;
			case A_NO_OFFLOAD:
				set_features(acts[j].arg, is_tso_gso, 0,
					     "tso, gso off");
				break;
			case A_GRO:
				set_features(acts[j].arg, is_gro, 1, "gro on");
				break;
			case A_GSO_SEGS:
				do_gso_segs(acts[j].arg);
				break;
			case A_SNMP:
				do_snmp(acts[j].arg);
				break;
			}
		}
		netns_enter(-1);
		if (fd >= 0)
			close(fd);
	}
	free(acts);
	if (fflush(stdout) || ferror(stdout))
		die("write error");
	return 0;
}
