// SPDX-License-Identifier: GPL-2.0
/*
 * powertcp-bpf: the BPF struct_ops builds of theta_powertcp and powertcp_evo
 * (kmod/bpf/), for hosts that cannot load kernel modules.
 *
 *   powertcp-bpf [-v] load NAME [PARAM=VALUE...]
 *   powertcp-bpf unload NAME
 *   powertcp-bpf set NAME PARAM=VALUE...
 *   powertcp-bpf get NAME [PARAM]
 *   powertcp-bpf status [NAME]
 *   powertcp-bpf trace NAME [-c COUNT] [-t SECONDS]
 *
 * load registers NAME as a TCP congestion control, selected like any other
 * (sysctl net.ipv4.tcp_congestion_control, setsockopt TCP_CONGESTION,
 * ip route ... congctl, iperf3 -C). It stays registered after the loader
 * exits: its maps, and its struct_ops link where the kernel has them
 * (6.4+), are pinned under /sys/fs/bpf/powertcp/NAME/. Before 6.4 the
 * kernel keeps the registration itself until unload deletes it.
 *
 * The parameters are the modules' (kmod/powertcp_params.h): same names,
 * units and ranges. A value out of range is refused with a one-line error,
 * exit status 1, and the old value stays. trace prints one line per ACK,
 * the fields of the modules' powertcp_step tracepoint, for COUNT events or
 * SECONDS or until interrupted; events are produced only while a trace
 * runs (one at a time).
 *
 * Exit status: 0 done, 1 refused or failed, 2 usage error.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <linux/magic.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../kmod/powertcp_core.h"
#include "../kmod/powertcp_params.h"
#include "../kmod/bpf/powertcp_bpf.h"
#include "theta_powertcp.skel.h"
#include "powertcp_evo.skel.h"

/* Both from the 6.4 UAPI, newer than the userspace headers of Debian 12. */
#ifndef BPF_F_LINK
#define BPF_F_LINK		(1U << 13)
#endif
#define PT_ATTACH_STRUCT_OPS	44	/* enum bpf_attach_type BPF_STRUCT_OPS */

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define BPFFS			"/sys/fs/bpf"
#define AVAILABLE_CC		"/proc/sys/net/ipv4/tcp_available_congestion_control"

static const char *prog = "powertcp-bpf";
static bool verbose;

/* One row of powertcp_params.h, for one algorithm. */
struct param {
	const char *name;
	__u32 def;
	__u32 min;
	__u32 max;
	const char *desc;
	size_t off;	/* in struct pt_params */
};

/* Every field of struct pt_params but the last, rtt_res_us (the glue's) */
#define NPARAMS		(offsetof(struct pt_params, rtt_res_us) / \
			 sizeof(__u32))
static struct param theta_params[NPARAMS], evo_params[NPARAMS];

/* Fill both tables from powertcp_params.h, each with its defaults. */
#define PARAM_ROW(tab, pname, pdef, plo, phi, pdesc)			\
	tab[n++] = (struct param){ .name = #pname, .def = pdef,		\
		.min = plo, .max = phi, .desc = pdesc,			\
		.off = offsetof(struct pt_params, pname) }
static void init_params(void)
{
	size_t n = 0;

#define POWERTCP_ALG THETA
#define POWERTCP_PARAM_ROW(...) PARAM_ROW(theta_params, __VA_ARGS__)
#include "../kmod/powertcp_params.h"
#undef POWERTCP_ALG
	if (n != NPARAMS)
		abort();	/* a field of struct pt_params is not in it */
	n = 0;
#define POWERTCP_ALG EVO
#define POWERTCP_PARAM_ROW(...) PARAM_ROW(evo_params, __VA_ARGS__)
#include "../kmod/powertcp_params.h"
#undef POWERTCP_ALG
}

_Static_assert(PT_EVO_MAX_VARIANT == PT_VAR_ALL, "evo may run every variant");

/* An opened (not yet loaded) BPF object of one algorithm. */
struct obj {
	void *skel;
	struct bpf_object *obj;
	bool *cong_control_ack;		/* .rodata, set before load */
	void (*destroy)(void *skel);
};

#define SKEL_OPEN(sk)							\
static int open_##sk(struct obj *o)					\
{									\
	struct sk *s = sk##__open();					\
									\
	if (!s)								\
		return -errno;						\
	o->skel = s;							\
	o->obj = s->obj;						\
	o->cong_control_ack = (bool *)&s->rodata->pt_cong_control_ack;	\
	o->destroy = (void (*)(void *))sk##__destroy;			\
	return 0;							\
}
SKEL_OPEN(theta_powertcp_bpf)
SKEL_OPEN(powertcp_evo_bpf)

struct alg {
	const char *name;
	const struct param *params;
	int (*open)(struct obj *o);
};

static const struct alg algs[] = {
	{ "theta_powertcp", theta_params, open_theta_powertcp_bpf },
	{ "powertcp_evo", evo_params, open_powertcp_evo_bpf },
};

static void vmsg(const char *fmt, va_list ap)
{
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/* Refused or failed: one line, exit 1. */
static void __attribute__((format(printf, 1, 2), noreturn))
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(1);
}

static void __attribute__((format(printf, 1, 2), noreturn))
usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	fprintf(stderr, "usage: %s [-v] load|unload|set|get|status|trace ... "
		"(see --help)\n", prog);
	exit(2);
}

static void usage(void)
{
	size_t i;

	printf("usage: %s [-v] COMMAND ...\n"
	       "  load NAME [PARAM=VALUE...]   register NAME (pinned under %s/NAME)\n"
	       "  unload NAME                  unregister it, remove its pins\n"
	       "  set NAME PARAM=VALUE...      change parameters (all or none)\n"
	       "  get NAME [PARAM]             print parameters\n"
	       "  status [NAME]                what is registered, by whom\n"
	       "  trace NAME [-c N] [-t SEC]   print one line per ACK (one"
	       " reader at a time)\n"
	       "NAME: theta_powertcp or powertcp_evo. -v: libbpf's messages"
	       " (the verifier log).\nParameters (default theta_powertcp/"
	       "powertcp_evo, range):\n", prog, PT_BPF_PIN_ROOT);
	for (i = 0; i < NPARAMS; i++) {
		printf("  %-21s %s (%u/%u, %u..%u", theta_params[i].name,
		       theta_params[i].desc, theta_params[i].def,
		       evo_params[i].def, theta_params[i].min,
		       theta_params[i].max);
		if (evo_params[i].max != theta_params[i].max)
			printf("/%u", evo_params[i].max);
		printf(")\n");
	}
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	(void)level;
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static const struct alg *find_alg(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(algs); i++)
		if (!strcmp(algs[i].name, name))
			return &algs[i];
	fail("unknown algorithm '%s' (theta_powertcp or powertcp_evo)", name);
}

static const struct param *find_param(const struct alg *a, const char *name,
				      size_t len)
{
	size_t i;

	for (i = 0; i < NPARAMS; i++)
		if (strlen(a->params[i].name) == len &&
		    !strncmp(a->params[i].name, name, len))
			return &a->params[i];
	return NULL;
}

static __u32 *param_field(struct pt_params *p, const struct param *d)
{
	return (__u32 *)((char *)p + d->off);
}

/* As the module's kstrtou32(buf, 0): decimal, 0x hex or 0 octal, no sign. */
static int parse_u32(const char *s, __u32 *v)
{
	unsigned long long x;
	char *end;

	if (*s == '+')
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoull(s, &end, 0);
	if (errno || *end || x > UINT32_MAX)
		return -1;
	*v = (__u32)x;
	return 0;
}

/*
 * Apply PARAM=VALUE arguments to @p, all or none: the first bad one fails
 * with a one-line error, naming the value in force (@p's).
 */
static void apply_args(const struct alg *a, struct pt_params *p, int argc,
		       char **argv)
{
	struct pt_params n = *p;
	const struct param *d;
	const char *eq;
	__u32 v;
	int i;

	for (i = 0; i < argc; i++) {
		eq = strchr(argv[i], '=');
		if (!eq)
			usage_error("'%s' is not PARAM=VALUE", argv[i]);
		d = find_param(a, argv[i], eq - argv[i]);
		if (!d)
			fail("%s: no parameter '%.*s'", a->name,
			     (int)(eq - argv[i]), argv[i]);
		if (parse_u32(eq + 1, &v))
			fail("%s: %s refused: '%s' is not an unsigned integer"
			     " (%s stays %u)", a->name, argv[i], eq + 1,
			     d->name, *param_field(p, d));
		if (v < d->min || v > d->max)
			fail("%s: %s refused: out of range %u..%u (%s stays %u)",
			     a->name, argv[i], d->min, d->max, d->name,
			     *param_field(p, d));
		*param_field(&n, d) = v;
	}
	if (!pt_variant_valid(n.variant))
		fail("%s: variant=%u refused: PT_VAR_COMPETE (32) and"
		     " PT_VAR_GRAD_BASELINE (1) do not go together (variant"
		     " stays %u)", a->name, n.variant, p->variant);
	*p = n;
}

static void defaults(const struct alg *a, struct pt_params *p)
{
	size_t i;

	/* rtt_res_us 0: the kernel's 1 µs (the BPF build sets it anyway) */
	memset(p, 0, sizeof(*p));
	for (i = 0; i < NPARAMS; i++)
		*param_field(p, &a->params[i]) = a->params[i].def;
}

/* ---- the kernel's state ---- */

static bool cc_available(const char *name)
{
	char buf[4096], *tok, *save;
	FILE *f = fopen(AVAILABLE_CC, "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (tok = strtok_r(buf, " \n", &save); tok;
	     tok = strtok_r(NULL, " \n", &save))
		if (!strcmp(tok, name))
			return true;
	return false;
}

static bool module_loaded(const char *name)
{
	char path[128];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/tcp_%s", name);
	return !stat(path, &st);
}

static void pin_path(char *buf, size_t len, const char *name, const char *obj)
{
	snprintf(buf, len, "%s/%s%s%s", PT_BPF_PIN_ROOT, name, obj ? "/" : "",
		 obj ? obj : "");
}

static bool pinned(const char *name, const char *obj)
{
	char path[256];
	struct stat st;

	pin_path(path, sizeof(path), name, obj);
	return !stat(path, &st);
}

static int open_pinned(const char *name, const char *obj)
{
	char path[256];
	int fd;

	pin_path(path, sizeof(path), name, obj);
	fd = bpf_obj_get(path);
	if (fd < 0)
		fail("%s: cannot open %s: %s", name, path, strerror(errno));
	return fd;
}

static bool is_bpffs(const char *path)
{
	struct statfs st;

	return !statfs(path, &st) && st.f_type == BPF_FS_MAGIC;
}

/* The BTF type @id with typedefs and modifiers skipped. */
static const struct btf_type *btf_resolve(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	return t;
}

/* What the running kernel offers, from its BTF. */
struct kernel_caps {
	bool cong_control_ack;	/* cong_control(sk, ack, flag, rs): 6.10+ */
	bool struct_ops_link;	/* BPF_F_LINK struct_ops maps: 6.4+ */
};

static void probe_kernel(struct kernel_caps *caps)
{
	const struct btf_type *t, *fn;
	const struct btf_member *m;
	struct btf *btf;
	int id, i;

	btf = btf__load_vmlinux_btf();
	if (!btf)
		fail("no kernel BTF (/sys/kernel/btf/vmlinux): struct_ops needs"
		     " CONFIG_DEBUG_INFO_BTF");
	id = btf__find_by_name_kind(btf, "tcp_congestion_ops", BTF_KIND_STRUCT);
	if (id < 0)
		fail("the kernel's BTF has no struct tcp_congestion_ops");
	t = btf__type_by_id(btf, id);
	m = btf_members(t);
	caps->cong_control_ack = false;
	for (i = 0; i < btf_vlen(t); i++, m++) {
		if (strcmp(btf__name_by_offset(btf, m->name_off), "cong_control"))
			continue;
		fn = btf_resolve(btf, m->type);
		if (fn && btf_is_ptr(fn))
			fn = btf_resolve(btf, fn->type);
		if (!fn || !btf_is_func_proto(fn))
			fail("unexpected type of tcp_congestion_ops.cong_control");
		caps->cong_control_ack = btf_vlen(fn) == 4;
	}
	caps->struct_ops_link = btf__find_by_name_kind(btf, "bpf_struct_ops_link",
						       BTF_KIND_STRUCT) >= 0;
	btf__free(btf);
}

/*
 * A struct_ops map registered under @name that is not ours (not pinned):
 * its fd, or -1. The map is named after the algorithm (kmod/bpf/).
 */
static int find_struct_ops_map(const char *name)
{
	struct bpf_map_info info;
	__u32 id = 0, len;
	int fd;

	while (!bpf_map_get_next_id(id, &id)) {
		fd = bpf_map_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
		    info.type == BPF_MAP_TYPE_STRUCT_OPS &&
		    !strcmp(info.name, name))
			return fd;
		close(fd);
	}
	return -1;
}

/*
 * The struct_ops map's value starts with the kernel's refcount and state
 * (struct bpf_struct_ops_value); the refcount counts the registration and
 * each socket using the algorithm.
 */
static int struct_ops_refs(int fd, __u32 *refs, __u32 *state)
{
	struct bpf_map_info info;
	__u32 zero = 0, len = sizeof(info);
	__u32 *val;
	int err;

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) || info.value_size < 8)
		return -1;
	val = calloc(1, info.value_size);
	if (!val)
		return -1;
	err = bpf_map_lookup_elem(fd, &zero, val);
	if (!err) {
		*refs = val[0];
		*state = val[1];
	}
	free(val);
	return err;
}

/* Wait up to @ms for NAME to (dis)appear in the available list. */
static bool wait_available(const char *name, bool want, int ms)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };

	for (; ms > 0; ms -= 10) {
		if (cc_available(name) == want)
			return true;
		nanosleep(&ts, NULL);
	}
	return cc_available(name) == want;
}

/* One line saying who holds NAME, when it is not ours. */
static void __attribute__((noreturn)) fail_taken(const char *name)
{
	if (module_loaded(name))
		fail("%s is already registered by the kernel module tcp_%s"
		     " (rmmod tcp_%s first; a module and a BPF build of the"
		     " same name cannot both register)", name, name, name);
	fail("%s is already registered by another BPF struct_ops or module"
	     " (see 'powertcp-bpf status')", name);
}

/* ---- commands ---- */

static const char *const pins[] = { "link", "ops", "params", "ctl", "events" };

static void remove_pins(const char *name)
{
	char path[256];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(pins); i++) {
		pin_path(path, sizeof(path), name, pins[i]);
		unlink(path);
	}
	pin_path(path, sizeof(path), name, NULL);
	rmdir(path);
	rmdir(PT_BPF_PIN_ROOT);		/* if empty */
}

static int pin_map(struct bpf_object *obj, const char *name, const char *map)
{
	struct bpf_map *m = bpf_object__find_map_by_name(obj, map);
	char path[256];

	pin_path(path, sizeof(path), name, map);
	return m ? bpf_map__pin(m, path) : -ENOENT;
}

static int cmd_load(const struct alg *a, int argc, char **argv)
{
	struct kernel_caps caps;
	struct pt_params p;
	struct bpf_map *ops;
	struct bpf_link *reg;
	struct obj o;
	char path[256];
	const char *stage;
	__u32 zero = 0;
	int err, link_fd;

	defaults(a, &p);
	apply_args(a, &p, argc, argv);

	if (pinned(a->name, NULL))
		fail("%s is already loaded (BPF, pinned at %s/%s): 'unload' it"
		     " first, or change parameters with 'set'", a->name,
		     PT_BPF_PIN_ROOT, a->name);
	if (cc_available(a->name))
		fail_taken(a->name);
	if (!is_bpffs(BPFFS) && mount("bpf", BPFFS, "bpf", 0, "mode=0700"))
		fail("cannot mount the BPF filesystem at %s: %s", BPFFS,
		     strerror(errno));
	probe_kernel(&caps);

	err = a->open(&o);
	if (err)
		fail("%s: cannot open the BPF object: %s", a->name,
		     strerror(-err));
	*o.cong_control_ack = caps.cong_control_ack;
	ops = bpf_object__find_map_by_name(o.obj, a->name);
	if (!ops)
		fail("%s: the BPF object has no struct_ops map %s", a->name,
		     a->name);
	if (caps.struct_ops_link)
		bpf_map__set_map_flags(ops, BPF_F_LINK);
	err = bpf_object__load(o.obj);
	if (err)
		fail("%s: the kernel refused the BPF programs: %s (-v shows the"
		     " verifier log)", a->name, strerror(-err));
	stage = "write the parameters";
	err = bpf_map_update_elem(bpf_map__fd(bpf_object__find_map_by_name(o.obj,
					"params")), &zero, &p, BPF_ANY);
	if (err)
		goto out;

	stage = "pin the maps";
	pin_path(path, sizeof(path), a->name, NULL);
	mkdir(PT_BPF_PIN_ROOT, 0700);
	if (mkdir(path, 0700)) {
		err = -errno;
		goto out;
	}
	pin_path(path, sizeof(path), a->name, "ops");
	err = bpf_map__pin(ops, path);
	err = err ?: pin_map(o.obj, a->name, "params");
	err = err ?: pin_map(o.obj, a->name, "ctl");
	err = err ?: pin_map(o.obj, a->name, "events");
	if (err)
		goto out_unpin;

	/*
	 * Register. libbpf 1.1 (Debian 12's) does it by updating the
	 * struct_ops map and returns a "link" that is only a handle of the
	 * map; with BPF_F_LINK (6.4+) the update only readies the map, and
	 * the link we create registers it. libbpf 1.2+ creates that link
	 * itself. Either way libbpf's object is disconnected before it is
	 * freed, so that freeing it unregisters nothing.
	 */
	stage = "register";
	reg = bpf_map__attach_struct_ops(ops);
	err = libbpf_get_error(reg);
	if (err)
		goto out_unpin;
	link_fd = -1;
	if (caps.struct_ops_link && (libbpf_major_version() > 1 ||
				     libbpf_minor_version() >= 2))
		link_fd = dup(bpf_link__fd(reg));
	bpf_link__disconnect(reg);
	bpf_link__destroy(reg);
	if (caps.struct_ops_link) {
		if (link_fd < 0)
			link_fd = bpf_link_create(bpf_map__fd(ops), 0,
						  PT_ATTACH_STRUCT_OPS, NULL);
		if (link_fd < 0) {
			err = -errno;
			goto out_unpin;
		}
		stage = "pin the struct_ops link";
		pin_path(path, sizeof(path), a->name, "link");
		if (bpf_obj_pin(link_fd, path)) {
			err = -errno;
			close(link_fd);	/* unregisters */
			goto out_unpin;
		}
		close(link_fd);
	}
	if (!wait_available(a->name, true, 1000)) {
		stage = "see it in " AVAILABLE_CC;
		err = -ENOENT;
		goto out_unregister;
	}
	o.destroy(o.skel);
	printf("%s: registered (BPF struct_ops, %s pinned at %s/%s)\n",
	       a->name, caps.struct_ops_link ? "link" : "map",
	       PT_BPF_PIN_ROOT, a->name);
	return 0;

out_unregister:
	if (!caps.struct_ops_link)
		bpf_map_delete_elem(bpf_map__fd(ops), &zero);
out_unpin:
	remove_pins(a->name);
out:
	o.destroy(o.skel);
	if (err == -EEXIST)
		fail_taken(a->name);
	fail("%s: cannot %s: %s", a->name, stage, strerror(-err));
}

static int cmd_unload(const struct alg *a)
{
	char path[256];
	__u32 zero = 0;
	int fd;

	if (!pinned(a->name, NULL)) {
		if (!cc_available(a->name))
			fail("%s is not loaded", a->name);
		fd = find_struct_ops_map(a->name);
		if (fd < 0) {
			if (module_loaded(a->name))
				fail("%s is the kernel module tcp_%s, not a BPF"
				     " build (rmmod tcp_%s)", a->name, a->name,
				     a->name);
			fail("%s is registered, but not by a BPF struct_ops"
			     " map named %s", a->name, a->name);
		}
		/* Registered without pins (e.g. removed by hand). */
		if (bpf_map_delete_elem(fd, &zero))
			fail("%s: cannot unregister: %s", a->name,
			     strerror(errno));
		close(fd);
	} else if (pinned(a->name, "link")) {
		/* The pin is the link's last reference: this unregisters. */
		pin_path(path, sizeof(path), a->name, "link");
		if (unlink(path))
			fail("%s: cannot remove %s: %s", a->name, path,
			     strerror(errno));
	} else {
		fd = open_pinned(a->name, "ops");
		if (bpf_map_delete_elem(fd, &zero) && errno != ENOENT)
			fail("%s: cannot unregister: %s", a->name,
			     strerror(errno));
		close(fd);
	}
	remove_pins(a->name);
	/*
	 * The kernel unregisters when it frees the link or map, after an RCU
	 * grace period: seconds on a loaded host (2 s was once too short).
	 */
	if (!wait_available(a->name, false, 10000))
		fail("%s: still registered after unload", a->name);
	printf("%s: unregistered\n", a->name);
	return 0;
}

static int open_params(const struct alg *a, struct pt_params *p)
{
	struct bpf_map_info info;
	__u32 zero = 0, len = sizeof(info);
	int fd;

	if (!pinned(a->name, "params")) {
		if (module_loaded(a->name))
			fail("%s is the kernel module tcp_%s: its parameters are"
			     " in /sys/module/tcp_%s/parameters/", a->name,
			     a->name, a->name);
		fail("%s is not loaded ('powertcp-bpf load %s')", a->name,
		     a->name);
	}
	fd = open_pinned(a->name, "params");
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    info.value_size != sizeof(*p))
		fail("%s: the pinned params map is not this loader's (value"
		     " size %u, expected %zu)", a->name, info.value_size,
		     sizeof(*p));
	if (bpf_map_lookup_elem(fd, &zero, p))
		fail("%s: cannot read the parameters: %s", a->name,
		     strerror(errno));
	return fd;
}

/*
 * The algorithm's ctl, mapped (the map is BPF_F_MMAPABLE): the loader
 * changes one field with one atomic operation, so that a trace turning
 * events on or off, a set bumping the generation and the kernel counting
 * lost events never undo one another, as whole-value map updates would.
 */
static struct pt_bpf_ctl *map_ctl(const struct alg *a)
{
	int fd = open_pinned(a->name, "ctl");
	void *c = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE),
		       PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

	if (c == MAP_FAILED)
		fail("%s: cannot map ctl: %s (loaded by an older powertcp-bpf?"
		     " unload and load again)", a->name, strerror(errno));
	close(fd);
	return c;
}

static void unmap_ctl(struct pt_bpf_ctl *c)
{
	munmap(c, (size_t)sysconf(_SC_PAGESIZE));
}

static int cmd_set(const struct alg *a, int argc, char **argv)
{
	struct pt_bpf_ctl *c;
	struct pt_params p;
	char dir[256];
	__u32 zero = 0;
	int fd, lock;

	if (argc < 1)
		usage_error("set %s needs PARAM=VALUE", a->name);
	/* One set at a time: each rewrites the whole params value. */
	pin_path(dir, sizeof(dir), a->name, NULL);
	lock = open(dir, O_RDONLY | O_DIRECTORY);
	if (lock < 0 || flock(lock, LOCK_EX))
		fail("%s: cannot lock %s: %s", a->name, dir, strerror(errno));
	fd = open_params(a, &p);
	apply_args(a, &p, argc, argv);
	if (bpf_map_update_elem(fd, &zero, &p, BPF_EXIST))
		fail("%s: cannot write the parameters: %s", a->name,
		     strerror(errno));
	close(fd);
	/* Then a new generation: flows derive their constants again. */
	c = map_ctl(a);
	__atomic_fetch_add(&c->gen, 1, __ATOMIC_SEQ_CST);
	unmap_ctl(c);
	close(lock);
	return 0;
}

static void print_params(const struct alg *a, const struct pt_params *p,
			 const char *sep, const char *end)
{
	size_t i;

	for (i = 0; i < NPARAMS; i++)
		printf("%s=%u%s", a->params[i].name,
		       *param_field((struct pt_params *)p, &a->params[i]),
		       i + 1 < NPARAMS ? sep : end);
}

static int cmd_get(const struct alg *a, int argc, char **argv)
{
	const struct param *d;
	struct pt_params p;

	if (argc > 1)
		usage_error("get %s takes at most one PARAM", a->name);
	close(open_params(a, &p));
	if (!argc) {
		print_params(a, &p, "\n", "\n");
		return 0;
	}
	d = find_param(a, argv[0], strlen(argv[0]));
	if (!d)
		fail("%s: no parameter '%s'", a->name, argv[0]);
	printf("%u\n", *param_field(&p, d));
	return 0;
}

static void status_one(const struct alg *a)
{
	struct pt_bpf_ctl *c;
	struct pt_params p;
	__u32 refs, state;
	bool avail = cc_available(a->name);
	int fd;

	if (!pinned(a->name, NULL)) {
		if (!avail)
			printf("%s: not registered\n", a->name);
		else if (module_loaded(a->name))
			printf("%s: kernel module tcp_%s (parameters in"
			       " /sys/module/tcp_%s/parameters/)\n", a->name,
			       a->name, a->name);
		else
			printf("%s: registered, not by powertcp-bpf (no pins"
			       " at %s/%s)\n", a->name, PT_BPF_PIN_ROOT,
			       a->name);
		return;
	}
	printf("%s: BPF struct_ops, %s; registration held by the pinned %s\n",
	       a->name, avail ? "registered" : "NOT registered",
	       pinned(a->name, "link") ? "struct_ops link" :
	       "struct_ops map (no links before 6.4)");
	fd = open_pinned(a->name, "ops");
	if (!struct_ops_refs(fd, &refs, &state))
		printf("  kernel references: %u (its registration, the sockets"
		       " and namespace defaults using it)\n", refs);
	close(fd);
	close(open_params(a, &p));
	c = map_ctl(a);
	printf("  parameters' generation %u; events %s, %llu lost\n  ",
	       __atomic_load_n(&c->gen, __ATOMIC_SEQ_CST),
	       __atomic_load_n(&c->trace, __ATOMIC_SEQ_CST) ? "on" : "off",
	       (unsigned long long)__atomic_load_n(&c->lost, __ATOMIC_SEQ_CST));
	unmap_ctl(c);
	print_params(a, &p, " ", "\n");
}

static int cmd_status(int argc, char **argv)
{
	size_t i;

	if (argc > 1)
		usage_error("status takes at most one NAME");
	if (argc) {
		status_one(find_alg(argv[0]));
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(algs); i++)
		status_one(&algs[i]);
	return 0;
}

static volatile sig_atomic_t stop;
static long trace_left = -1;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int on_event(void *ctx, void *data, size_t len)
{
	const struct pt_bpf_event *e = data;
	char daddr[INET_ADDRSTRLEN];

	(void)ctx;
	if (len < sizeof(*e) || stop)
		return 0;
	inet_ntop(AF_INET, &e->daddr, daddr, sizeof(daddr));
	if (printf("t=%llu sport=%u daddr=%s dport=%u rtt_us=%lld power_q16=%u"
		   " cwnd=%u rate_Bps=%llu mode=%s\n",
		   (unsigned long long)e->now_ns, e->sport, daddr, e->dport,
		   (long long)e->rtt_us, e->power, e->cwnd,
		   (unsigned long long)e->rate,
		   e->mode == PT_CM_COMPETE ? "compete" :
		   e->mode == PT_CM_PROBE ? "probe" :
		   e->mode == PT_CM_TEST ? "test" : "delay") < 0 ||
	    fflush(stdout))
		stop = 1;
	if (trace_left > 0 && --trace_left == 0)
		stop = 1;
	return 0;
}

static int cmd_trace(const struct alg *a, int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	struct ring_buffer *rb;
	double seconds = 0;
	struct timespec t0, t;
	struct pt_bpf_ctl *ctl;
	__u64 lost0, lost1;
	int ev_fd, i, err;
	char *end;

	for (i = 0; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "-c")) {
			trace_left = strtol(argv[++i], &end, 10);
			if (*end || trace_left <= 0)
				usage_error("-c: '%s' is not a positive count",
					    argv[i]);
		} else if (i + 1 < argc && !strcmp(argv[i], "-t")) {
			seconds = strtod(argv[++i], &end);
			if (*end || seconds <= 0)
				usage_error("-t: '%s' is not a positive time",
					    argv[i]);
		} else {
			usage_error("trace: unexpected '%s'", argv[i]);
		}
	}
	if (!pinned(a->name, "events"))
		fail("%s is not loaded by powertcp-bpf%s", a->name,
		     module_loaded(a->name) ? " (it is the kernel module: use"
		     " its powertcp_step tracepoint)" : "");
	ctl = map_ctl(a);
	ev_fd = open_pinned(a->name, "events");
	rb = ring_buffer__new(ev_fd, on_event, NULL, NULL);
	if (!rb)
		fail("%s: cannot map the event ring buffer: %s", a->name,
		     strerror(errno));
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGPIPE, &sa, NULL);
	setvbuf(stdout, NULL, _IOLBF, 0);
	lost0 = __atomic_load_n(&ctl->lost, __ATOMIC_SEQ_CST);
	__atomic_store_n(&ctl->trace, 1, __ATOMIC_SEQ_CST);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR)
			break;
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (seconds > 0 && (t.tv_sec - t0.tv_sec) +
		    (t.tv_nsec - t0.tv_nsec) / 1e9 >= seconds)
			break;
	}
	__atomic_store_n(&ctl->trace, 0, __ATOMIC_SEQ_CST);
	lost1 = __atomic_load_n(&ctl->lost, __ATOMIC_SEQ_CST);
	ring_buffer__free(rb);
	if (lost1 > lost0)
		fprintf(stderr, "%s: %s: %llu events lost (ring buffer full)\n",
			prog, a->name, (unsigned long long)(lost1 - lost0));
	return 0;
}

int main(int argc, char **argv)
{
	const struct alg *a;
	const char *cmd;

	init_params();
	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-v")) {
			verbose = true;
		} else if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			usage();
			return 0;
		} else {
			usage_error("unknown option '%s'", argv[1]);
		}
		argv++;
		argc--;
	}
	if (argc < 2)
		usage_error("no command");
	libbpf_set_print(libbpf_print);
	cmd = argv[1];
	if (!strcmp(cmd, "status"))
		return cmd_status(argc - 2, argv + 2);
	if (strcmp(cmd, "load") && strcmp(cmd, "unload") && strcmp(cmd, "set") &&
	    strcmp(cmd, "get") && strcmp(cmd, "trace"))
		usage_error("unknown command '%s'", cmd);
	if (argc < 3)
		usage_error("%s needs an algorithm name", cmd);
	a = find_alg(argv[2]);
	if (!strcmp(cmd, "load"))
		return cmd_load(a, argc - 3, argv + 3);
	if (!strcmp(cmd, "unload")) {
		if (argc > 3)
			usage_error("unload takes only NAME");
		return cmd_unload(a);
	}
	if (!strcmp(cmd, "set"))
		return cmd_set(a, argc - 3, argv + 3);
	if (!strcmp(cmd, "get"))
		return cmd_get(a, argc - 3, argv + 3);
	return cmd_trace(a, argc - 3, argv + 3);
}
