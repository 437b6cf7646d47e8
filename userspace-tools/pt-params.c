// SPDX-License-Identifier: GPL-2.0
/*
 * pt-params: the module parameters of theta_powertcp and powertcp_evo, from
 * the table the modules declare them from (kmod/powertcp_params.h), for a
 * host that has not loaded them: testbed/run.sh checks an algorithm spec's
 * parameters with it before any guest boots, so that a value the module
 * would refuse is refused at once, in one line, with the same range.
 *
 *   pt-params check NAME [PARAM=VALUE...]   exit 0 if every PARAM is one of
 *                                           NAME's and VALUE an integer in
 *                                           its range; else one line, exit 2
 *   pt-params list NAME                     one line a parameter:
 *                                           name default min max
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "../kmod/powertcp_core.h"

struct param {
	const char *name;
	long long def, min, max;
};

/* Enough rows for the table; init_tables() checks. */
#define MAX_PARAMS	24
static struct param theta[MAX_PARAMS + 1], evo[MAX_PARAMS + 1];

/* The table's rows are statements: each fills the next row of @tab. */
#define ROW(tab, pname, pdef, plo, phi, pdesc)				\
	do {								\
		if (n == MAX_PARAMS)					\
			abort();					\
		tab[n++] = (struct param){ .name = #pname,		\
			.def = (pdef), .min = (plo), .max = (phi) };	\
	} while (0)

static void init_tables(void)
{
	size_t n = 0;

#define POWERTCP_ALG THETA
#define POWERTCP_PARAM_ROW(...) ROW(theta, __VA_ARGS__)
#define POWERTCP_MODULE_PARAM_ROW(...) ROW(theta, __VA_ARGS__)
#include "../kmod/powertcp_params.h"
#undef POWERTCP_ALG
	n = 0;
#define POWERTCP_ALG EVO
#define POWERTCP_PARAM_ROW(...) ROW(evo, __VA_ARGS__)
#define POWERTCP_MODULE_PARAM_ROW(...) ROW(evo, __VA_ARGS__)
#include "../kmod/powertcp_params.h"
#undef POWERTCP_ALG
}

static const char usage_text[] =
"usage: pt-params check NAME [PARAM=VALUE...]\n"
"       pt-params list NAME\n"
"NAME: theta_powertcp or powertcp_evo. check: exit 0 if every PARAM is a\n"
"module parameter of NAME (kmod/powertcp_params.h) and VALUE an integer in\n"
"its range, else one line on stderr and exit 2. list: one line a parameter,\n"
"name default min max.\n";

static void __attribute__((noreturn)) bad_usage(void)
{
	fputs(usage_text, stderr);
	exit(2);
}

static const struct param *table(const char *name)
{
	if (!strcmp(name, "theta_powertcp"))
		return theta;
	if (!strcmp(name, "powertcp_evo"))
		return evo;
	die("%s: not one of ours (theta_powertcp, powertcp_evo)", name);
}

/* PARAM=VALUE against @t; dies with the reason (exit 2). */
static void check(const char *alg, const struct param *t, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;
	long long v;
	char *end;

	if (!eq || !n)
		die("%s: '%s' is not PARAM=VALUE", alg, arg);
	for (; t->name; t++)
		if (strlen(t->name) == n && !strncmp(t->name, arg, n))
			break;
	if (!t->name)
		die("%s: no parameter %.*s", alg, (int)n, arg);
	errno = 0;
	v = strtoll(eq + 1, &end, 10);
	if (errno || end == eq + 1 || *end)
		die("%s: %s: '%s' is not an integer", alg, t->name, eq + 1);
	if (v < t->min || v > t->max)
		die("%s: %s=%lld is out of range (%lld..%lld)", alg, t->name, v,
		    t->min, t->max);
	if (!strcmp(t->name, "variant") && !pt_variant_valid((u32)v))
		die("%s: variant=%lld: PT_VAR_COMPETE (32) and "
		    "PT_VAR_GRAD_BASELINE (1) do not go together", alg, v);
}

int main(int argc, char **argv)
{
	const struct param *t;
	int i;

	prog = "pt-params";
	init_tables();
	if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(usage_text, stdout);
		return 0;
	}
	if (argc < 3)
		bad_usage();
	t = table(argv[2]);
	if (!strcmp(argv[1], "list")) {
		if (argc != 3)
			bad_usage();
		for (; t->name; t++)
			printf("%s %lld %lld %lld\n", t->name, t->def, t->min,
			       t->max);
		return 0;
	}
	if (strcmp(argv[1], "check"))
		bad_usage();
	for (i = 3; i < argc; i++)
		check(argv[2], t, argv[i]);
	return 0;
}
