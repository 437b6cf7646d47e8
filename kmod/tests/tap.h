/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KTAP output for the userspace C tests, as scripts/tap.sh prints it for
 * the shell suites: a header, a plan, one "ok N - name" / "not ok N - name"
 * per test, and the kernel selftests' totals line.
 */
#ifndef _PT_TAP_H
#define _PT_TAP_H

#include <stdio.h>

static int tap_passed, tap_failed, tap_checks_failed;

/* One failed assertion inside a test; the test fails at its end. */
#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		tap_checks_failed++;					\
		fprintf(stderr, "# %s:%d: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__);				\
		fputc('\n', stderr);					\
	}								\
} while (0)

static inline void tap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
}

static inline void tap_run(const char *name, void (*fn)(void))
{
	int before = tap_checks_failed;

	fn();
	if (tap_checks_failed == before)
		printf("ok %d - %s\n", ++tap_passed + tap_failed, name);
	else
		printf("not ok %d - %s\n", tap_passed + ++tap_failed, name);
	fflush(stdout);
}

#define RUN(fn) tap_run(#fn, fn)

static inline int tap_done(void)
{
	printf("# Totals: pass:%d fail:%d xfail:0 xpass:0 skip:0 error:0\n",
	       tap_passed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif
