// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer harness for the control law: the input picks parameters (mapped
 * into their valid module-parameter ranges, and the samples' resolution
 * the glue sets from rtt_quantum_us) and a sequence of RTT samples,
 * time steps, reference updates, parameter writes (a new generation),
 * MSS changes, and the competitive mode's rounds and losses. Built with
 * UBSan and clang's integer sanitizer, so an overflow is a crash; the
 * invariants are asserted, and the law must agree
 * bit for bit with the uncached one of ref_law.h until the competitive mode
 * (PT_VAR_COMPETE) takes the window.
 *
 *   make -C kmod/tests fuzz   (runs for FUZZ_SECONDS)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../powertcp_core.h"
#include "invariants.h"
#include "ref_law.h"

struct reader {
	const unsigned char *p;
	size_t n;
};

static u64 take(struct reader *r, int bytes)
{
	u64 v = 0;

	while (bytes-- && r->n) {
		v = v << 8 | *r->p++;
		r->n--;
	}
	return v;
}

static u32 in_range(struct reader *r, u32 lo, u32 hi)
{
	return lo + (u32)(take(r, 4) % ((u64)hi - lo + 1));
}

static void check(const struct pt_flow *f, const struct pt_params *p, u32 mss,
		  u64 srtt_us)
{
	const char *why = pt_check_invariants(f, p, mss, srtt_us);

	if (why) {
		fprintf(stderr, "invariant violated: %s\n", why);
		abort();
	}
}

/*
 * The instrument rtt_quantum_us: a sample @rtt at @t ns as a clock of @q
 * µs takes it is whole quanta, within one quantum of @rtt.
 */
static void check_quantum(u64 rtt, u64 t, u32 q)
{
	u64 s = pt_quantize_rtt(rtt, t, q);

	if (q && rtt <= t / 1000 && (s % q || s > rtt + q || s + q < rtt)) {
		fprintf(stderr, "rtt %llu at %llu ns, quantum %u: %llu\n",
			(unsigned long long)rtt, (unsigned long long)t, q,
			(unsigned long long)s);
		abort();
	}
}

/* The skb bound: one segment at least, the route's at most, and the
 * route's when the bound is off (tso_permille 0).
 */
static void check_gso(u32 cwnd, u32 permille, u32 route)
{
	u32 segs = pt_gso_segs(cwnd, permille, route);

	if (segs < 1 || segs > route || (!permille && segs != route) ||
	    (permille && (u64)segs > pt_max((u64)cwnd * permille / 1000, 1))) {
		fprintf(stderr, "skb bound %u of window %u at %u permille, route %u\n",
			segs, cwnd, permille, route);
		abort();
	}
}

/* A parameter write: parameter @which gets a value in its range. */
static void write_param(struct reader *r, struct pt_params *p, u32 which)
{
	switch (which % 11) {
	case 0: p->gamma = in_range(r, 1, 1024); break;
	case 1: p->beta_ppm = in_range(r, 0, 1000000); break;
	case 2: p->target_permille = in_range(r, 1000, 4000); break;
	case 3: p->grad_floor_permille = in_range(r, 0, 1000); break;
	case 4: p->power_floor_permille = in_range(r, 1, 1000); break;
	case 5: p->min_rate_ppm = in_range(r, 0, 1000000); break;
	case 6: p->init_rate_ppm = in_range(r, 1, 1000000); break;
	case 7: p->smooth_pct = in_range(r, 1, 100); break;
	case 8: p->base_rtt_us = in_range(r, 0, 10000000); break;
	case 9: p->line_rate_mbps = in_range(r, 1, PT_LINE_RATE_MAX_MBPS); break;
	default: p->variant = pt_any_variant(take(r, 4)); break;
	}
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct reader r = { data, size };
	struct pt_params p;
	struct pt_flow f;
	struct ref_flow g;
	u32 mss, fallback, gen = 0;
	int competed = 0;
	u64 t;

	p.gamma = in_range(&r, 1, 1024);
	p.beta_ppm = in_range(&r, 0, 1000000);
	p.target_permille = in_range(&r, 1000, 4000);
	p.grad_floor_permille = in_range(&r, 0, 1000);
	p.power_floor_permille = in_range(&r, 1, 1000);
	p.min_rate_ppm = in_range(&r, 0, 1000000);
	p.init_rate_ppm = in_range(&r, 1, 1000000);
	p.smooth_pct = in_range(&r, 1, 100);
	p.base_rtt_us = in_range(&r, 0, 10000000);
	p.line_rate_mbps = in_range(&r, 1, PT_LINE_RATE_MAX_MBPS);
	p.variant = pt_any_variant(take(&r, 4));
	p.rtt_res_us = in_range(&r, 0, 1000000);	/* the glue's */
	mss = in_range(&r, 1, 65535);
	t = take(&r, 8) >> 1;

	fallback = in_range(&r, 1, 1000);
	pt_flow_init(&f, &p, gen, fallback, mss, t);
	ref_flow_init(&g, &p, fallback, mss, t);
	check(&f, &p, mss, 0);
	while (r.n >= 6) {
		u64 rtt = take(&r, 4);
		u64 step;

		u32 shift = take(&r, 1);

		/* Its high bits: a parameter write, an MSS change. */
		rtt <<= shift % 16;
		if (shift & 0x80) {
			write_param(&r, &p, shift >> 4);
			ref_variant_reset(&g);
			gen++;
		}
		if ((shift & 0x70) == 0x70)
			mss = in_range(&r, 1, 65535);
		/* The instrument's quantum, a write: the resolution. */
		if ((shift & 0x70) == 0x50) {
			p.rtt_res_us = in_range(&r, 0, 1000000);
			ref_variant_reset(&g);
			gen++;
		}
		/* A line rate change without a write (line_rate_auto). */
		if ((shift & 0x70) == 0x60)
			p.line_rate_mbps = in_range(&r, 1,
						    PT_LINE_RATE_MAX_MBPS);
		step = take(&r, 1);
		t += step << (step % 37);
		pt_on_rtt(&f, &p, gen, rtt, t, mss);
		ref_on_rtt(&g, &p, rtt, t, mss);
		/*
		 * The competitive mode: a reverse reading in µs or ms
		 * timestamps (any u32: the clocks' offset), a round's end,
		 * a loss, srtt.
		 */
		if (p.variant & PT_VAR_COMPETE) {
			if (step & 8)
				pt_cm_reverse(&f, &p, (u32)take(&r, 4),
					      step & 16 ? 1 : 1000);
			pt_compete(&f, &p, step & 2, rtt << (step % 5),
				   mss, step & 4);
		}
		competed |= pt_cm_state(&f, &p) != PT_CM_DELAY;
		if ((step & 1) || pt_reference_due(&f, &p)) {
			pt_update_reference(&f);
			ref_update_reference(&g);
		}
		check(&f, &p, mss, rtt);
		check_gso(pt_cwnd_pkts(&f, &p, rtt, 1), step * 4 % 1001,
			  (u32)(rtt & 0xffff) + 1);
		check_quantum(rtt, t, (u32)(step * 4099 % 1000001));
		/* The law's, until the competitive mode took the window. */
		if (!competed &&
		    (f.wnd != g.wnd || f.wnd_old != g.wnd_old ||
		     f.power != g.power || f.min_rtt_us != g.min_rtt_us)) {
			fprintf(stderr, "differs from the uncached law\n");
			abort();
		}
	}
	return 0;
}
