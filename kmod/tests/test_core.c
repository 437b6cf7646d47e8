// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace unit tests of the θ-PowerTCP control law (kmod/powertcp_core.h),
 * the same code the kernel modules run. Built with UBSan and clang's integer
 * sanitizer, so any overflow in the fixed-point arithmetic aborts the run.
 *
 * Prints KTAP like the kernel selftests (tap.h): the header and plan,
 * "ok N - name" / "not ok N - name" (a failed check's details as "# "
 * lines on stderr before it) and the totals; exits non-zero on any failure.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../powertcp_core.h"
#include "closed_loop.h"
#include "invariants.h"
#include "packet_loop.h"
#include "ref_law.h"
#include "tap.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* The ns-3 reference parameters on a 100 Mb/s line, τ = 1 ms. */
static struct pt_params theta(void)
{
	struct pt_params p = {
		.gamma = 717, .beta_ppm = 6000, .target_permille = 1050,
		.grad_floor_permille = 500, .power_floor_permille = 10,
		.min_rate_ppm = 4000, .init_rate_ppm = 1000000,
		.smooth_pct = 100, .base_rtt_us = 1000,
		.line_rate_mbps = 100,
	};
	return p;
}

#define MSS	1448
#define US	1000ULL

static double wnd_pkts(const struct pt_flow *f)
{
	return (double)f->wnd / PT_WND_ONE;
}

static double bdp_pkts(const struct pt_params *p)
{
	return (double)p->line_rate_mbps * 1e6 / 8 * p->base_rtt_us / 1e6 / MSS;
}

static void test_init_line_rate(void)
{
	struct pt_params p = theta();
	struct pt_flow f;

	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	CHECK(fabs(wnd_pkts(&f) - bdp_pkts(&p)) < 0.01,
	      "start window %.3f, BDP %.3f", wnd_pkts(&f), bdp_pkts(&p));
	CHECK(pt_pacing_rate(&f, &p, MSS) <= 100000000 / 8,
	      "rate %llu above line", (unsigned long long)pt_pacing_rate(&f, &p, MSS));
	CHECK(pt_pacing_rate(&f, &p, MSS) > 100000000 / 8 * 0.99,
	      "rate %llu below line", (unsigned long long)pt_pacing_rate(&f, &p, MSS));

	p.init_rate_ppm = 250000;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	CHECK(fabs(wnd_pkts(&f) - bdp_pkts(&p) / 4) < 0.01, "quarter start %.3f",
	      wnd_pkts(&f));

	/* Automatic τ: no RTT known, so the kernel's initial window. */
	p.base_rtt_us = 0;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	CHECK(f.wnd == 10 * PT_WND_ONE, "auto start %.3f", wnd_pkts(&f));
}

/* Feed a constant RTT every @step_ns for @n samples. */
static u64 feed_flat(struct pt_flow *f, const struct pt_params *p, u64 t,
		     u64 rtt_us, u64 step_ns, int n, int ref_every)
{
	for (int i = 0; i < n; i++) {
		t += step_ns;
		pt_on_rtt(f, p, 0, rtt_us, t, MSS);
		if (ref_every && i % ref_every == ref_every - 1)
			pt_update_reference(f);
	}
	return t;
}

/* RTT = target and flat: Γ = 1, so with β = 0 the window never moves. */
static void test_flat_at_target_beta0(void)
{
	struct pt_params p = theta();
	struct pt_flow f;
	u64 w0;

	p.beta_ppm = 0;
	p.target_permille = 1000;
	p.init_rate_ppm = 500000;	/* mid-range: free to move either way */
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	w0 = f.wnd;
	CHECK(fabs(wnd_pkts(&f) - bdp_pkts(&p) / 2) < 0.01,
	      "start window %.3f, half the BDP %.3f", wnd_pkts(&f),
	      bdp_pkts(&p) / 2);
	feed_flat(&f, &p, 0, 1000, 50 * US, 400, 20);
	CHECK(f.power == PT_POWER_ONE, "power %u", f.power);
	CHECK(f.wnd == w0 || f.wnd + 1 == w0, "window %llu -> %llu",
	      (unsigned long long)w0, (unsigned long long)f.wnd);
}

/* γ = 1: the window is exactly cwnd_old / Γ + β after each sample. */
static void test_gamma_one(void)
{
	struct pt_params p = theta();
	struct pt_flow f;
	u64 beta, w0;

	p.gamma = 1024;
	p.target_permille = 1000;
	p.init_rate_ppm = 100000;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	w0 = f.wnd;
	beta = pt_rate_to_wnd(&p, p.beta_ppm, 1000 * US, MSS);
	feed_flat(&f, &p, 0, 1000, 50 * US, 20, 0);
	CHECK(f.wnd == w0 + beta, "window %llu, expected %llu",
	      (unsigned long long)f.wnd, (unsigned long long)(w0 + beta));
	/* With the reference moving once per RTT: +β per RTT. */
	feed_flat(&f, &p, 1000 * US, 1000, 50 * US, 200, 20);
	CHECK(f.wnd == w0 + 10 * beta, "after 10 RTTs %llu, expected %llu",
	      (unsigned long long)f.wnd, (unsigned long long)(w0 + 10 * beta));
}

/*
 * A slow path (docs/EVOLUTION.md, "The target's floor"): 5 Mbit/s, τ 1014
 * µs, 0.42 packet of BDP, as kmod/tests/idle_probe.sh's traced flow at
 * target 1010: an empty path's RTT 4 µs above τ (power 0.994), one
 * sample and one reference move each 5.3 ms, so each sample weighs γ
 * τ/dt, 0.13. From 80% of the line rate the window grows back to it
 * within a second; with 10 fractional bits of window each step truncates
 * to nothing and the flow stays at 80% for good.
 */
static void test_slow_path_grows(void)
{
	struct pt_params p = theta();
	struct pt_flow f;
	u64 w0;

	p.line_rate_mbps = 5;
	p.base_rtt_us = 1014;
	p.target_permille = 1010;
	p.init_rate_ppm = 800000;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	w0 = f.wnd;
	feed_flat(&f, &p, 0, 1018, 5300 * US, 200, 1);
	CHECK(f.wnd == f.wnd_hi, "window %.4f packet, from %.4f, line %.4f",
	      wnd_pkts(&f), (double)w0 / PT_WND_ONE,
	      (double)f.wnd_hi / PT_WND_ONE);
}

/*
 * From equilibrium (RTT = target, Γ = 1): a rising RTT drives power above 1
 * and shrinks the window; a falling RTT drives it below 1 and grows it.
 */
static void ramp(int step_us, int expect_up)
{
	struct pt_params p = theta();
	struct pt_flow f;
	u64 t, w0;
	int i;

	p.init_rate_ppm = 500000;
	p.beta_ppm = 0;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	t = feed_flat(&f, &p, 0, 1050, 50 * US, 80, 20);
	w0 = f.wnd;
	for (i = 1; i <= 40; i++) {
		t += 50 * US;
		pt_on_rtt(&f, &p, 0, 1050 + step_us * i, t, MSS);
		if (i % 20 == 0)
			pt_update_reference(&f);
	}
	if (expect_up) {
		CHECK(f.power < PT_POWER_ONE * 95 / 100, "falling power %.3f",
		      (double)f.power / PT_POWER_ONE);
		CHECK(f.wnd > w0 * 11 / 10, "falling window %.2f -> %.2f",
		      (double)w0 / PT_WND_ONE, wnd_pkts(&f));
	} else {
		CHECK(f.power > PT_POWER_ONE * 12 / 10, "rising power %.3f",
		      (double)f.power / PT_POWER_ONE);
		CHECK(f.wnd < w0 * 9 / 10, "rising window %.2f -> %.2f",
		      (double)w0 / PT_WND_ONE, wnd_pkts(&f));
	}
}

static void test_rising_and_falling_rtt(void)
{
	ramp(10, 0);	/* dθ/dt = +0.2 */
	ramp(-2, 1);	/* dθ/dt = -0.04 */
}

/* A steep fall is floored at (dθ/dt + 1) = 0.5: Γ = 0.5 · RTT / target. */
static void test_gradient_floor(void)
{
	struct pt_params p = theta();
	u64 tau = 1000 * US, g;

	/* RTT falls 500 µs in 100 µs: dθ/dt = -5, floored to 0.5. */
	g = pt_norm_power(&p, 1050 * US, 1550 * US, 100 * US, tau);
	CHECK(g == PT_POWER_ONE / 2, "floored power %llu", (unsigned long long)g);
	p.grad_floor_permille = 0;
	g = pt_norm_power(&p, 1050 * US, 1550 * US, 100 * US, tau);
	CHECK(g == PT_POWER_ONE * 10 / 1000, "power floor %llu",
	      (unsigned long long)g);
	/* No floor hit: dθ/dt = -0.25 gives 0.75. */
	p = theta();
	g = pt_norm_power(&p, 1050 * US, 1075 * US, 100 * US, tau);
	CHECK(g == PT_POWER_ONE * 3 / 4, "power %llu", (unsigned long long)g);
	/* dt = 1 ns with a 1 ms jump is capped, not overflowed. */
	g = pt_norm_power(&p, 2000 * US, 1000 * US, 1, tau);
	CHECK(g == PT_POWER_MAX, "capped power %llu", (unsigned long long)g);
}

/*
 * The reference window moves once per RTT: with Γ = 0.5 and no reference
 * update, many ACKs converge to 2 · cwnd_old + β, not to exponential growth.
 */
static void test_reference_once_per_rtt(void)
{
	struct pt_params p = theta();
	struct pt_flow f;
	u64 w0, beta, expect;

	p.init_rate_ppm = 100000;
	p.target_permille = 2000;	/* RTT = τ: Γ = 0.5 */
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	w0 = f.wnd;
	beta = pt_rate_to_wnd(&p, p.beta_ppm, 1000 * US, MSS);
	feed_flat(&f, &p, 0, 1000, 50 * US, 400, 0);
	expect = 2 * w0 + beta;
	CHECK(f.wnd >= expect - 4 && f.wnd <= expect,
	      "no reference update: %llu, expected %llu",
	      (unsigned long long)f.wnd, (unsigned long long)expect);
	/* One reference update per RTT doubles (plus β) per RTT. */
	pt_update_reference(&f);
	feed_flat(&f, &p, 400 * 50 * US, 1000, 50 * US, 100, 0);
	CHECK(f.wnd >= 2 * expect + beta - 4 && f.wnd <= 2 * expect + beta,
	      "after one update: %llu", (unsigned long long)f.wnd);
}

/*
 * Closed loop: N paced flows through a FIFO of rate C. At equilibrium the
 * link is full, dθ/dt = 0 and each window w satisfies w = w/Γ + β, so
 * Γ = w / (w - β) with w = BDP / N, and RTT = target · Γ. That is where
 * PowerTCP puts the queue: about target - τ plus N · β of delay. A single
 * flow is held at line rate by the rate cap, with an empty queue.
 */
static void equilibrium(int nflows, u32 beta_ppm)
{
	struct pt_params p = theta();
	struct pt_flow f[16];
	double c = p.line_rate_mbps * 1e6 / 8;	/* bytes/s */
	double tau = p.base_rtt_us * 1e-6, mean_rtt, mean_rate;
	double w, gamma_eq, rtt_eq;
	int i;

	p.beta_ppm = beta_ppm;
	p.init_rate_ppm = 1000000 / nflows / 2;
	for (i = 0; i < nflows; i++)
		pt_flow_init(&f[i], &p, 0, 10, MSS, 0);
	closed_loop(&p, f, nflows, MSS, 3000, 2000, &mean_rtt, &mean_rate,
		    NULL);
	w = bdp_pkts(&p) / nflows;
	gamma_eq = w / (w - bdp_pkts(&p) * beta_ppm / 1e6);
	rtt_eq = tau * p.target_permille / 1000.0 * gamma_eq;
	/* One flow is capped at line rate before the queue builds. */
	if (nflows == 1)
		rtt_eq = tau;
	CHECK(fabs(mean_rtt - rtt_eq) / rtt_eq < 0.02,
	      "%d flows: mean RTT %.1f us, fixed point %.1f us", nflows,
	      mean_rtt * 1e6, rtt_eq * 1e6);
	CHECK(mean_rate > 0.98 * c, "%d flows: throughput %.3f of line",
	      nflows, mean_rate / c);
}

static void test_equilibrium(void)
{
	equilibrium(1, 6000);
	equilibrium(4, 6000);
	equilibrium(10, 6000);
	equilibrium(10, 20000);
}

/* snd_cwnd carries W over the smoothed RTT when that exceeds τ. */
static void test_cwnd_over_srtt(void)
{
	struct pt_params p = theta();
	struct pt_flow f;

	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	f.wnd = 10 * PT_WND_ONE + PT_WND_ONE / 2;	/* 10.5 packets */
	CHECK(pt_cwnd_pkts(&f, &p, 0, 2) == 11, "no srtt: %u",
	      pt_cwnd_pkts(&f, &p, 0, 2));
	CHECK(pt_cwnd_pkts(&f, &p, 900, 2) == 11, "srtt < tau: %u",
	      pt_cwnd_pkts(&f, &p, 900, 2));
	CHECK(pt_cwnd_pkts(&f, &p, 2000, 2) == 21, "srtt = 2 tau: %u",
	      pt_cwnd_pkts(&f, &p, 2000, 2));
	CHECK(pt_cwnd_pkts(&f, &p, 10000, 2) == 21,
	      "srtt = 10 tau: bounded at 2 tau: %u",
	      pt_cwnd_pkts(&f, &p, 10000, 2));
	f.wnd = PT_WND_ONE / 4;
	CHECK(pt_cwnd_pkts(&f, &p, 1000, 2) == 2, "floor: %u",
	      pt_cwnd_pkts(&f, &p, 1000, 2));
	f.wnd = PT_WND_MAX;	/* at 2 τ: twice the largest window */
	CHECK(pt_cwnd_pkts(&f, &p, 10000000, 2) ==
	      2 * (PT_WND_MAX >> PT_WND_SHIFT), "largest: %u",
	      pt_cwnd_pkts(&f, &p, 10000000, 2));
}

/*
 * Fast recovery conserves packets: no more out than the ACK delivered, the
 * window less the newly lost, never above the law's window nor below
 * PT_CWND_MIN, and no wrap on extreme counts.
 */
static void test_recovery_cwnd(void)
{
	/* law 11; snd_cwnd 11, 3 newly lost, 6 in flight, 1 delivered */
	CHECK(pt_recovery_cwnd(11, 11, 3, 6, 1) == 8, "shrink by the lost: %u",
	      pt_recovery_cwnd(11, 11, 3, 6, 1));
	CHECK(pt_recovery_cwnd(11, 8, 0, 7, 2) == 9, "one out per delivered: %u",
	      pt_recovery_cwnd(11, 8, 0, 7, 2));
	CHECK(pt_recovery_cwnd(5, 8, 0, 7, 2) == 5, "law's window caps: %u",
	      pt_recovery_cwnd(5, 8, 0, 7, 2));
	CHECK(pt_recovery_cwnd(11, 2, 5, 0, 0) == PT_CWND_MIN,
	      "floor, no wrap: %u", pt_recovery_cwnd(11, 2, 5, 0, 0));
	CHECK(pt_recovery_cwnd(0xffffffffU, 1, 0, 0xffffffffU, 0xffffffffU) ==
	      0xffffffffU, "no wrap above: %u",
	      pt_recovery_cwnd(0xffffffffU, 1, 0, 0xffffffffU, 0xffffffffU));
}

/*
 * The skb bound (pt_gso_segs()): a share of the window, at least one
 * segment, never above the route's; 0 permille is the route's own.
 */
static void test_gso_segs(void)
{
	CHECK(pt_gso_segs(87, 16, 65535) == 1, "87 packets at 16 permille: %u",
	      pt_gso_segs(87, 16, 65535));
	CHECK(pt_gso_segs(1000, 16, 65535) == 16, "1000 at 16 permille: %u",
	      pt_gso_segs(1000, 16, 65535));
	CHECK(pt_gso_segs(1, 16, 65535) == 1, "one segment at least: %u",
	      pt_gso_segs(1, 16, 65535));
	CHECK(pt_gso_segs(100000, 16, 64) == 64, "route caps: %u",
	      pt_gso_segs(100000, 16, 64));
	CHECK(pt_gso_segs(0xffffffffU, 1000, 65535) == 65535, "no wrap: %u",
	      pt_gso_segs(0xffffffffU, 1000, 65535));
	CHECK(pt_gso_segs(5, 0, 44) == 44, "0 permille, the route's: %u",
	      pt_gso_segs(5, 0, 44));
	CHECK(pt_gso_segs(500, 16, 1) == 1, "a route of one segment: %u",
	      pt_gso_segs(500, 16, 1));
}

/*
 * An ACK whose RTT can only be the timestamp echo's (milliseconds) is not
 * a sample: the newest packet it delivered was a retransmission, or it
 * delivered nothing new.
 */
static void test_rtt_usable(void)
{
	CHECK(pt_rtt_usable(21, 0, 1), "a clean sample is used");
	CHECK(!pt_rtt_usable(1000, 1, 3), "retransmission delivered: skipped");
	CHECK(!pt_rtt_usable(1000, 0, 0), "nothing new delivered: skipped");
	CHECK(!pt_rtt_usable(1000, 0, -1), "no rate sample: skipped");
	CHECK(!pt_rtt_usable(-1, 0, 1), "no RTT: skipped");
	CHECK(!pt_rtt_usable(0, 0, 1), "zero RTT: skipped");
}

/*
 * Automatic τ (base_rtt_us = 0) before the first RTT sample: τ is unknown,
 * so snd_cwnd is the initial window itself, not W * srtt / (1 µs floor),
 * and pacing does not limit below the line rate. After one sample the
 * ratio srtt/τ applies as usual.
 */
static void test_auto_tau_before_sample(void)
{
	struct pt_params p = theta();
	struct pt_flow f;

	p.base_rtt_us = 0;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	CHECK(pt_cwnd_pkts(&f, &p, 5000, PT_CWND_MIN) == 10,
	      "no sample, srtt 5 ms: cwnd %u, want the initial 10",
	      pt_cwnd_pkts(&f, &p, 5000, PT_CWND_MIN));
	CHECK(pt_sk_pacing_rate(&f, &p, MSS) ==
	      (u64)p.line_rate_mbps * 125000, "no sample: pacing %llu",
	      (unsigned long long)pt_sk_pacing_rate(&f, &p, MSS));
	f.min_rtt_us = 2500;
	CHECK(pt_cwnd_pkts(&f, &p, 5000, PT_CWND_MIN) == 20,
	      "after a sample, srtt = 2 tau: cwnd %u, want 20",
	      pt_cwnd_pkts(&f, &p, 5000, PT_CWND_MIN));
}

/*
 * The module's mapping: a quarter-packet window keeps snd_cwnd at the
 * one-packet floor, and sk_pacing_rate is 5/4 of the law's rate W/τ (so
 * the window binds), capped at the line rate.
 */
static void test_mapping(void)
{
	struct pt_params p = theta();
	struct pt_flow f;
	u64 law, sk;

	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	f.wnd = PT_WND_ONE / 4;
	CHECK(pt_cwnd_pkts(&f, &p, 1000, PT_CWND_MIN) == 1, "floor: %u",
	      pt_cwnd_pkts(&f, &p, 1000, PT_CWND_MIN));
	f.wnd = 3 * PT_WND_ONE;
	law = pt_pacing_rate(&f, &p, MSS);
	sk = pt_sk_pacing_rate(&f, &p, MSS);
	CHECK(law == 3ULL * MSS * 1000, "law rate %llu", (unsigned long long)law);
	CHECK(sk == law * 5 / 4, "paced at %llu, law %llu",
	      (unsigned long long)sk, (unsigned long long)law);
	f.wnd = pt_wnd_hi(&p, pt_tau_ns(&p, &f), MSS);
	CHECK(pt_sk_pacing_rate(&f, &p, MSS) == 100000000 / 8,
	      "at line rate: %llu",
	      (unsigned long long)pt_sk_pacing_rate(&f, &p, MSS));
}

/*
 * A receiver that delays ACKs: one segment in flight whose sample is
 * PT_DELACK_US over the minimum RTT, after a prompt one, raises the
 * flow's floor to two packets, for good; a sample just below it, one with
 * two segments out, one before any minimum RTT, or one behind a queue
 * that delayed the previous sample as long does not. A new flow starts
 * at one.
 */
static void test_delack_floor(void)
{
	struct pt_params p = theta();
	struct pt_flow f;

	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	f.wnd = PT_WND_ONE / 4;
	pt_note_delack(&f, 50000, 1);
	CHECK(pt_cwnd_min(&f) == PT_CWND_MIN, "no minimum RTT yet: %u",
	      pt_cwnd_min(&f));
	f.min_rtt_us = 1000;
	pt_note_delack(&f, 1000 + PT_DELACK_US - 1, 1);
	CHECK(pt_cwnd_min(&f) == PT_CWND_MIN, "just below: %u",
	      pt_cwnd_min(&f));
	pt_note_delack(&f, 41000, 2);
	CHECK(pt_cwnd_min(&f) == PT_CWND_MIN, "two in flight: %u",
	      pt_cwnd_min(&f));
	f.rtt_prev_us = 1000 + PT_DELACK_US;
	pt_note_delack(&f, 1000 + 2 * PT_DELACK_US, 1);
	CHECK(pt_cwnd_min(&f) == PT_CWND_MIN, "a standing queue: %u",
	      pt_cwnd_min(&f));
	f.rtt_prev_us = 1000 + PT_DELACK_US - 1;
	CHECK(pt_cwnd_pkts(&f, &p, 1000, pt_cwnd_min(&f)) == 1,
	      "floor before: %u", pt_cwnd_pkts(&f, &p, 1000, pt_cwnd_min(&f)));
	pt_note_delack(&f, 1000 + PT_DELACK_US, 1);
	CHECK(pt_cwnd_min(&f) == PT_CWND_MIN_DELACK, "delayed ACK seen: %u",
	      pt_cwnd_min(&f));
	pt_note_delack(&f, 1000, 1);
	CHECK(pt_cwnd_pkts(&f, &p, 1000, pt_cwnd_min(&f)) == 2,
	      "floor after, sticky: %u",
	      pt_cwnd_pkts(&f, &p, 1000, pt_cwnd_min(&f)));
	/* The floor shares a word with the MSS key: a new MSS keeps it. */
	pt_derive(&f, &p, pt_tau_ns(&p, &f), MSS + 1, 1);
	CHECK(pt_cwnd_min(&f) == PT_CWND_MIN_DELACK && f.mss == MSS + 1,
	      "floor %u, MSS key %u", pt_cwnd_min(&f), f.mss);
	/* An MSS of 16 bits or more is never current: derived every time. */
	pt_derive(&f, &p, pt_tau_ns(&p, &f), 65536 + MSS, 1);
	CHECK(!pt_derived_current(&f, &p, 1, 65536 + MSS),
	      "MSS 2^16 + %u taken for current", MSS);
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	CHECK(pt_cwnd_min(&f) == PT_CWND_MIN, "a new flow: %u", pt_cwnd_min(&f));
}

/* 128-bit references for the fixed-point helpers. */
typedef unsigned __int128 u128;

static u64 rnd64(void)
{
	return (u64)random() << 33 ^ (u64)random() << 11 ^ (u64)random();
}

static u64 rnd_range(u64 lo, u64 hi)
{
	return lo + rnd64() % (hi - lo + 1);
}

static struct pt_params rnd_params(void)
{
	struct pt_params p = {
		.gamma = rnd_range(1, 1024),
		.beta_ppm = rnd_range(0, 1000000),
		.target_permille = rnd_range(1000, 4000),
		.grad_floor_permille = rnd_range(0, 1000),
		.power_floor_permille = rnd_range(1, 1000),
		.min_rate_ppm = rnd_range(0, 1000000),
		.init_rate_ppm = rnd_range(1, 1000000),
		.smooth_pct = rnd_range(1, 100),
		.base_rtt_us = rnd_range(0, 10000000),
		.line_rate_mbps = rnd_range(1, PT_LINE_RATE_MAX_MBPS),
		/* the glue's: 0, 1 µs, or the instrument's quantum */
		.rtt_res_us = rnd64() % 2 ? 0 : rnd_range(1, 1000000),
	};
	return p;
}

/* The extremes the header documents, against exact arithmetic. */
static void test_extremes(void)
{
	struct pt_params p = theta();
	struct pt_flow f = { 0 };
	u64 tau, w, r, t;
	u128 exact;
	const char *why = 0;
	int i;

	p.line_rate_mbps = PT_LINE_RATE_MAX_MBPS;
	p.base_rtt_us = 10000000;	/* 10 s */
	tau = pt_tau_ns(&p, &f);
	w = pt_rate_to_wnd(&p, PT_PPM, tau, 1);
	exact = ((u128)p.line_rate_mbps * tau / 8000 << PT_WND_SHIFT);
	CHECK(w == (u64)exact, "400 Gb/s x 10 s window %llu vs %llu",
	      (unsigned long long)w, (unsigned long long)exact);

	/* Largest window, largest MSS, smallest τ: the rate is the line. */
	f.wnd = PT_WND_MAX;
	f.min_rtt_us = 1;
	p.base_rtt_us = 0;
	r = pt_pacing_rate(&f, &p, 65535);
	CHECK(r == (u64)PT_LINE_RATE_MAX_MBPS * 125000, "rate %llu",
	      (unsigned long long)r);

	/* Power at the largest RTT and gradient. */
	r = pt_norm_power(&p, PT_TIME_MAX_NS, 0, 1, 1000);
	CHECK(r == PT_POWER_MAX, "power %llu", (unsigned long long)r);

	/*
	 * A flow fed 10 s RTTs 1 s apart, then 1 us RTTs 1 ns apart, at
	 * 400 Gb/s keeps its invariants after every sample (the sanitizers
	 * catch an overflow on the way).
	 */
	p.base_rtt_us = 10000000;
	p.gamma = 1024;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	why = pt_check_invariants(&f, &p, MSS, 0);
	for (i = 0, t = 0; i < 100 && !why; i++) {
		u64 rtt_us = i < 50 ? 10000000 : 1;

		t += i < 50 ? 1000000000 : 1;
		pt_on_rtt(&f, &p, 0, rtt_us, t, MSS);
		pt_update_reference(&f);
		why = pt_check_invariants(&f, &p, MSS, rtt_us);
	}
	CHECK(!why, "sample %d: %s", i, why);
}

/* Randomized differential test of the helpers against 128-bit math. */
static void test_random_against_exact(void)
{
	int before = tap_checks_failed;

	for (int i = 0; i < 200000; i++) {
		struct pt_params p = rnd_params();
		struct pt_flow f = { 0 };
		u64 tau, rtt, prev, dt, got, floor, lo;
		u32 mss = rnd_range(1, 65535);
		u128 e;
		__int128 g;

		f.min_rtt_us = rnd_range(1, 10000000);
		tau = pt_tau_ns(&p, &f);
		rtt = rnd_range(1, PT_TIME_MAX_NS);
		prev = rnd_range(1, PT_TIME_MAX_NS);
		dt = rnd_range(1, PT_TIME_MAX_NS);

		/* Γ_norm, exactly (truncating like the fixed point). */
		g = ((__int128)rtt - prev) * PT_POWER_ONE;
		g = (g >= 0 ? g / dt : -(-g / dt)) + PT_POWER_ONE;
		floor = (u64)p.grad_floor_permille * PT_POWER_ONE / 1000;
		if (g < (__int128)floor)
			g = floor;
		if (g > (__int128)PT_POWER_MAX)
			g = PT_POWER_MAX;
		e = (u128)g * rtt / (tau * p.target_permille / 1000);
		lo = (u64)p.power_floor_permille * PT_POWER_ONE / 1000;
		if (e < lo)
			e = lo;
		if (e > PT_POWER_MAX)
			e = PT_POWER_MAX;
		got = pt_norm_power(&p, rtt, prev, dt, tau);
		CHECK(got == (u64)e, "power %llu vs %llu", (unsigned long long)got,
		      (unsigned long long)e);

		/* Pacing rate = wnd · mss / τ, capped at line rate. */
		f.wnd = rnd_range(0, PT_WND_MAX);
		e = (u128)f.wnd * mss * 1000000000 / tau >> PT_WND_SHIFT;
		if (e > (u128)p.line_rate_mbps * 125000)
			e = (u128)p.line_rate_mbps * 125000;
		got = pt_pacing_rate(&f, &p, mss);
		CHECK(got == (u64)e, "rate %llu vs %llu (exact)",
		      (unsigned long long)got, (unsigned long long)e);

		/* β's share at a power: PT_VAR_BETA_FADE's fade (any β < 2^50). */
		p.variant = (u32)rnd_range(0, PT_VAR_ALL);
		f.beta_wnd = rnd_range(0, (1ULL << 50) - 1);
		f.power = (u32)(i % 2 ? rnd_range(1, PT_POWER_MAX) :
				PT_POWER_ONE - 64 + rnd_range(0, 2200));
		e = f.beta_wnd;
		if ((p.variant & PT_VAR_BETA_FADE) && f.power > PT_POWER_ONE)
			e = f.power >= PT_POWER_ONE + PT_POWER_ONE / 32 ? 0 :
			    (u128)f.beta_wnd * (PT_POWER_ONE * 33 / 32 - f.power) /
			    (PT_POWER_ONE / 32);
		got = pt_beta(&p, f.beta_wnd, f.power);
		CHECK(got == (u64)e, "beta %llu vs %llu (exact)",
		      (unsigned long long)got, (unsigned long long)e);
		if (tap_checks_failed != before)
			break;
	}
}

/* Random sample sequences: state stays inside its documented bounds. */
static void test_random_sequences(void)
{
	int before = tap_checks_failed;

	for (int i = 0; i < 2000 && tap_checks_failed == before; i++) {
		struct pt_params p = rnd_params();
		struct pt_flow f;
		u32 mss = rnd_range(1, 65535);
		u64 t = rnd64() >> 2;
		const char *why;

		p.variant = pt_any_variant(random());
		pt_flow_init(&f, &p, 0, rnd_range(1, 100), mss, t);
		for (int j = 0; j < 200; j++) {
			u64 rtt = rnd_range(0, 1ULL << (random() % 40));

			t += rnd_range(0, 1ULL << (random() % 36));
			pt_on_rtt(&f, &p, 0, rtt, t, mss);
			if (p.variant & PT_VAR_COMPETE)
				pt_compete(&f, &p, random() % 4 == 0,
					   rnd_range(0, 1ULL << (random() % 40)),
					   mss, random() % 16 == 0);
			if (random() % 8 == 0)
				pt_update_reference(&f);
			why = pt_check_invariants(&f, &p, mss, rtt);
			CHECK(!why, "step %d: %s", j, why);
			if (why)
				break;
		}
	}
}

/* Redraw one parameter of @p within its range: which, from @r. */
static void rnd_param_write(struct pt_params *p, u64 r)
{
	struct pt_params n = rnd_params();

	switch (r % 12) {
	case 0: p->gamma = n.gamma; break;
	case 1: p->beta_ppm = n.beta_ppm; break;
	case 2: p->target_permille = n.target_permille; break;
	case 3: p->grad_floor_permille = n.grad_floor_permille; break;
	case 4: p->power_floor_permille = n.power_floor_permille; break;
	case 5: p->min_rate_ppm = n.min_rate_ppm; break;
	case 6: p->init_rate_ppm = n.init_rate_ppm; break;
	case 7: p->smooth_pct = n.smooth_pct; break;
	case 8: p->base_rtt_us = r % 3 ? n.base_rtt_us : 0; break;
	case 9: p->line_rate_mbps = n.line_rate_mbps; break;
	case 10: p->rtt_res_us = n.rtt_res_us; break;	/* the quantum's */
	default: p->variant = pt_any_variant(r); break;
	}
}

static const char *same(const struct pt_flow *f, const struct ref_flow *g,
			const struct pt_params *p, u32 mss, u64 srtt_us)
{
	struct pt_flow h = *f;

	if (f->wnd != g->wnd || f->wnd_old != g->wnd_old)
		return "window";
	if (f->power != g->power || f->min_rtt_us != g->min_rtt_us)
		return "power or min RTT";
	if (f->t_prev_ns != g->t_prev_ns || f->ref_t_ns != g->ref_t_ns ||
	    (u64)f->rtt_prev_us * 1000 != g->rtt_prev_ns)
		return "sample state";
	/*
	 * The union holds PT_VAR_GRAD_BASELINE's references, or the
	 * competitive mode's state, or the others' reference.
	 */
	if ((p->variant & PT_VAR_GRAD_BASELINE) &&
	    (f->grad_t_ns != g->grad_t_ns || f->mid_t_ns != g->mid_t_ns ||
	     (u64)f->grad_rtt_us * 1000 != g->grad_rtt_ns ||
	     (u64)f->mid_rtt_us * 1000 != g->mid_rtt_ns))
		return "gradient references";
	if (!(p->variant & (PT_VAR_GRAD_BASELINE | PT_VAR_COMPETE)) &&
	    (f->qref_t_ns != g->qref_t_ns || f->qref_rtt_ns != g->qref_rtt_ns))
		return "gradient reference";
	if (pt_reference_due(f, p) != ref_reference_due(g, p))
		return "reference due";
	/* The mapping reads only wnd and min_rtt_us: equal state, equal
	 * outputs; checked anyway on a copy with the reference's window.
	 */
	h.wnd = g->wnd;
	if (pt_cwnd_pkts(f, p, srtt_us, 1) != pt_cwnd_pkts(&h, p, srtt_us, 1) ||
	    pt_sk_pacing_rate(f, p, mss) != pt_sk_pacing_rate(&h, p, mss))
		return "mapping";
	return 0;
}

/*
 * The cached law is the uncached one (ref_law.h, the law without the
 * cache), bit for bit: random parameters, samples, reference updates,
 * parameter writes (each bumps the generation, as the modules' setter
 * does), MSS changes and line rate changes without a new generation (the
 * modules' line_rate_auto: the flow's device's speed), every step
 * compared.
 */
static void test_cache_is_exact(void)
{
	int before = tap_checks_failed, writes = 0, lines = 0;

	for (int i = 0; i < 3000 && tap_checks_failed == before; i++) {
		struct pt_params p = rnd_params();
		struct pt_flow f;
		struct ref_flow g;
		u32 mss = rnd_range(1, 65535), gen = random();
		u64 t = rnd64() >> 2;
		const char *why = 0;

		p.variant = pt_any_variant(random());
		pt_flow_init(&f, &p, gen, 10, mss, t);
		ref_flow_init(&g, &p, 10, mss, t);
		for (int j = 0; j < 300 && !why; j++) {
			u64 rtt = rnd_range(0, 1ULL << (random() % 26));
			u64 r = rnd64();

			if (r % 16 == 0) {
				rnd_param_write(&p, r >> 4);
				ref_variant_reset(&g);
				gen++;
				writes++;
			}
			if (r % 64 == 1)
				mss = rnd_range(1, 65535);
			if (r % 64 == 3) {
				p.line_rate_mbps = rnd_params().line_rate_mbps;
				lines++;
			}
			t += rnd_range(0, 1ULL << (random() % 30));
			pt_on_rtt(&f, &p, gen, rtt, t, mss);
			ref_on_rtt(&g, &p, rtt, t, mss);
			if (r % 8 == 2 || pt_reference_due(&f, &p)) {
				pt_update_reference(&f);
				ref_update_reference(&g);
			}
			why = same(&f, &g, &p, mss, rtt);
			CHECK(!why, "flow %d step %d: %s differs", i, j, why);
		}
	}
	CHECK(writes > 1000, "only %d parameter writes", writes);
	CHECK(lines > 1000, "only %d line rate changes", lines);
}

/*
 * A parameter write applies at the flow's next sample, well within one
 * RTT: lowering the line rate or raising the rate floor moves the window
 * into the new bounds on the first ACK after the write, and so do β and
 * γ change the very next step. Without a new generation the old derived
 * values stay (that is the cache: the setter must bump it), except for
 * the line rate, which is part of the key: line_rate_auto changes a
 * flow's without one.
 */
static void test_param_write_next_ack(void)
{
	struct pt_params p = theta();
	struct pt_flow f, g;
	u64 t, hi;

	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	t = feed_flat(&f, &p, 0, 1000, 50 * US, 100, 20);
	CHECK(f.wnd > bdp_pkts(&p) * PT_WND_ONE / 2, "window %.2f",
	      wnd_pkts(&f));

	/*
	 * Line rate 100 -> 10 Mb/s: one ACK later, at most the new BDP; the
	 * same without a new generation (line_rate_auto, a device's speed).
	 */
	p.line_rate_mbps = 10;
	g = f;
	pt_on_rtt(&g, &p, 0, 1000, t + 50 * US, MSS);	/* same generation */
	hi = pt_wnd_hi(&p, pt_tau_ns(&p, &f), MSS);
	CHECK(g.wnd <= hi && g.wnd_hi == hi && g.line_mbps == 10,
	      "line rate without a new generation: window %.2f, bound %.2f",
	      wnd_pkts(&g), (double)hi / PT_WND_ONE);
	pt_on_rtt(&f, &p, 1, 1000, t + 50 * US, MSS);
	CHECK(f.wnd <= hi && pt_pacing_rate(&f, &p, MSS) <= 10000000 / 8,
	      "first ACK after the write: window %.2f, bound %.2f, rate %llu",
	      wnd_pkts(&f), (double)hi / PT_WND_ONE,
	      (unsigned long long)pt_pacing_rate(&f, &p, MSS));

	/* Rate floor to 90%: the next ACK lifts the window to it. */
	p.min_rate_ppm = 900000;
	pt_on_rtt(&f, &p, 2, 1000, t + 100 * US, MSS);
	CHECK(f.wnd >= pt_wnd_lo(&p, pt_tau_ns(&p, &f), MSS),
	      "rate floor: window %.2f", wnd_pkts(&f));

	/* β: the next step adds γ · β's window exactly (γ = 1, Γ = 1). */
	p = theta();
	p.gamma = 1024;
	p.target_permille = 1000;
	p.init_rate_ppm = 100000;
	pt_flow_init(&f, &p, 0, 10, MSS, 0);
	t = feed_flat(&f, &p, 0, 1000, 50 * US, 20, 0);
	hi = f.wnd;
	p.beta_ppm = 60000;
	g = f;
	pt_on_rtt(&g, &p, 0, 1000, t + 50 * US, MSS);	/* stale generation */
	CHECK(g.wnd == g.wnd_old + pt_rate_to_wnd(&p, 6000, 1000 * US, MSS),
	      "without a new generation the cache stays: %llu",
	      (unsigned long long)g.wnd);
	pt_on_rtt(&f, &p, 1, 1000, t + 50 * US, MSS);
	CHECK(f.wnd == f.wnd_old + pt_rate_to_wnd(&p, 60000, 1000 * US, MSS),
	      "beta write: %llu, want %llu + %llu", (unsigned long long)f.wnd,
	      (unsigned long long)f.wnd_old,
	      (unsigned long long)pt_rate_to_wnd(&p, 60000, 1000 * US, MSS));
	CHECK(f.wnd > hi, "beta raised the window");
}

/*
 * A sample's weight: γ while samples come τ apart or closer, or the
 * window is paced at a packet per 4/5 τ or more; beyond both γ times
 * τ / dt, never 0.
 */
static void test_gamma_sparse(void)
{
	struct pt_params p = theta();
	u64 sub = PT_WND_ONE / 2;	/* half a packet: paced */

#define GAMMA_IS(wnd, tau, dt, want) \
	CHECK(pt_gamma(&p, wnd, tau, dt) == (want), \
	      "window %llu/%llu, tau %llu ns, dt %llu ns: %llu, want %d", \
	      (unsigned long long)(wnd), PT_WND_ONE, (unsigned long long)(tau), \
	      (unsigned long long)(dt), \
	      (unsigned long long)pt_gamma(&p, wnd, tau, dt), want)
	GAMMA_IS(sub, 1000 * US, 1 * US, 717);
	GAMMA_IS(sub, 1000 * US, 1000 * US, 717);
	GAMMA_IS(sub, 1000 * US, 1001 * US, 716);
	GAMMA_IS(sub, 1000 * US, 2000 * US, 358);
	GAMMA_IS(sub, 1000 * US, 4000 * US, 179);
	GAMMA_IS(1, 1000, PT_TIME_MAX_NS, 1);
	GAMMA_IS(sub, PT_TIME_MAX_NS, PT_TIME_MAX_NS, 717);
	/* 4/5 packet, rounded down and up: 5/4 of it is under, at 1 */
	GAMMA_IS(PT_WND_ONE * 4 / 5, 1000 * US, 2000 * US, 358);
	GAMMA_IS(PT_WND_ONE * 4 / 5 + 1, 1000 * US, 2000 * US, 717);
	/* clocked windows, samples spaced by the receiver: γ */
	GAMMA_IS(2 * PT_WND_ONE, 1000 * US, 40000 * US, 717);
	GAMMA_IS(PT_WND_MAX, 1000 * US, 4000 * US, 717);
	p.gamma = 1;
	GAMMA_IS(sub, 1000 * US, 2000 * US, 1);
	p.gamma = 1024;
	GAMMA_IS(sub, 1000 * US, 3000 * US, 341);
#undef GAMMA_IS
}

/*
 * The packet-level model: N long flows on one FIFO (packet_loop.h), the
 * BDP 8.6 packets, the path's base RTT τ itself. At N = 11 the windows
 * are near one packet and bind: ACKs clock the flows, the queue holds
 * about 2 packets at the law's target and touches empty now and then.
 * At 21 and 51 every window is under 4/5 of a packet: the flows are
 * paced and take a sample a packet gap apart, and with the whole weight
 * γ per sample (pt_gamma() not scaling) they cut and regrow together and the link
 * idles more: 95.5% and 89.2%, against 96.1% at 11. Each must carry at
 * least 95% of the link, the sub-packet ones no less than the clocked
 * ones, and share it fairly.
 */
static void test_packet_loop_subpacket(void)
{
	static const int n[] = { 11, 21, 51 };
	struct pt_params p = theta();
	double clocked = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(n); i++) {
		struct pl_result r = packet_loop(&p, n[i], MSS, 0, 1200, 300);

		printf("# %d flows: %.1f%% of the link, %.1f packets queued, Jain %.3f\n",
		       n[i], 100 * r.util, r.queue_pkts, r.jain);
		CHECK(!r.overflow, "%d flows: ring overflow", n[i]);
		CHECK(r.util >= 0.95, "%d flows: %.1f%% of the link", n[i],
		      100 * r.util);
		if (i == 0)
			clocked = r.util;
		CHECK(r.util >= clocked - 0.005,
		      "%d flows: %.1f%% of the link, 11 clocked flows %.1f%%",
		      n[i], 100 * r.util, 100 * clocked);
		CHECK(r.jain >= 0.95, "%d flows: Jain %.3f", n[i], r.jain);
	}
}

/*
 * The paper's scale in the packet model: 25 Gbit/s, the in-rack base RTT
 * of 4.64 µs, τ = 5 µs (base_rtt_us is whole µs: the one above). Every
 * RTT sample is whole µs, 4 or 5 on the empty path, so one quantum is a
 * fifth of the RTT and two packets of queue (one packet is 0.48 µs);
 * consecutive samples differ by 0 or ±1 µs over ACKs 0.5 µs apart, a
 * gradient of ±2. The same flows at 100 Mbit/s with τ and the path 250
 * times longer see a µs as a thousandth of the RTT; with the instrument
 * rtt_quantum_us at 250 (and the resolution the glue then gives the law)
 * they see the real scale's quantum again. 11 flows must keep 95% of the
 * link, fairly, with at most twice the queue of the scaled run; with the
 * automatic τ (base_rtt_us = 0, whose minimum sample is 4 µs there;
 * pt_tau_ns() adds the quantum: 65% without it) 95% of the link. A lone
 * flow, which differentiated samples 0.5 µs apart before
 * pt_quantum_ref() (52% of the link at 25 Gbit/s, 14% at 100 Gbit/s,
 * 52% in the scaled run with the instrument), must keep 95% of it under
 * the paper's law and under PT_VAR_GRAD_BASELINE (a reference H/4 to H/2
 * old), at both rates, τ set or automatic, and scaled with the
 * instrument.
 */
static void test_packet_loop_real_scale(void)
{
	static const struct {
		u32 mbps, tau_us, nflows, variant, quantum_us;
		u64 path_ns;
		int checks;	/* 0: printed; 1: the link; 2: and queue, Jain */
	} run[] = {
		{ 100, 1250, 11, 0, 0, 4640 * 250, 0 },	/* scaled */
		{ 25000, 5, 11, 0, 0, 4640, 2 },
		{ 25000, 0, 11, 0, 0, 4640, 1 },
		{ 25000, 5, 1, 0, 0, 4640, 1 },
		{ 25000, 0, 1, 0, 0, 4640, 1 },
		{ 25000, 5, 1, PT_VAR_GRAD_BASELINE, 0, 4640, 1 },
		{ 100000, 5, 1, 0, 0, 4640, 1 },
		{ 100, 1250, 11, 0, 250, 4640 * 250, 2 },
		{ 100, 1250, 1, 0, 250, 4640 * 250, 1 },
		{ 100, 0, 1, 0, 250, 4640 * 250, 1 },
	};
	struct pt_params p = theta();
	double scaled = 0;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(run); i++) {
		struct pl_result r;

		p.line_rate_mbps = run[i].mbps;
		p.base_rtt_us = run[i].tau_us;
		p.variant = run[i].variant;
		p.rtt_res_us = run[i].quantum_us;	/* as the glue sets it */
		r = packet_loop_q(&p, run[i].nflows, MSS, run[i].path_ns,
				  run[i].quantum_us, NULL, 1200, 300);
		printf("# %u Mbit/s, tau %u us, %u flows, variant %u, quantum %u us: %.1f%% of the link, %.1f packets queued, Jain %.3f\n",
		       run[i].mbps, run[i].tau_us, run[i].nflows,
		       run[i].variant, run[i].quantum_us, 100 * r.util,
		       r.queue_pkts, r.jain);
		CHECK(!r.overflow, "run %zu: ring overflow", i);
		if (i == 0)
			scaled = r.queue_pkts;
		if (run[i].checks < 1)
			continue;
		CHECK(r.util >= 0.95, "run %zu: %.1f%% of the link", i,
		      100 * r.util);
		if (run[i].checks < 2)
			continue;
		CHECK(r.jain >= 0.95, "run %zu: Jain %.3f", i, r.jain);
		CHECK(r.queue_pkts <= 2 * scaled,
		      "run %zu: %.1f packets queued, scaled %.1f", i,
		      r.queue_pkts, scaled);
	}
}

/*
 * Hosts whose NICs moderate their receive interrupts, as the testbed's
 * --host-stack emulates them: 1 µs at the paper's scale, 250 µs at
 * 100 Mbit/s, GRO, receivers that delay their ACKs as Linux does, 30 µs
 * of jitter; τ the base RTT and both NICs' moderation, what a lone
 * packet sees (docs/TESTBED.md, "The host-stack profile"). The link
 * holds, alone and shared, under the paper's law and PT_VAR_SAMPLE_MIN,
 * over three jitter seeds, and 4 or more flows share it with Jain >= 0.9
 * (0.95-0.99 over ten seeds). With 2 or 3 fairness is printed, not
 * checked: under the paper's law the flow that owns more of a batch's
 * segments samples, through GRO's newest segment, less of the
 * moderation, reads a lower RTT and keeps more of the link (Jain
 * 0.73-0.97 for 2 flows here, the testbed's two-flow phases 0.88-1.00);
 * the testbed measures what the variant does about it
 * (docs/EVOLUTION.md, "A minimum over two samples").
 */
static void test_packet_loop_moderation(void)
{
	static const u32 n[] = { 1, 2, 3, 4, 11 };
	static const u32 variant[] = { 0, PT_VAR_SAMPLE_MIN };
	const u64 slot = 250 * US, path = 1160 * US;
	struct pt_params p = theta();
	size_t i, v;
	u32 seed;

	p.base_rtt_us = (path + 2 * slot) / US;
	for (v = 0; v < ARRAY_SIZE(variant); v++)
		for (i = 0; i < ARRAY_SIZE(n); i++)
			for (seed = 1; seed <= (n[i] > 1 && n[i] < 11 ? 3 : 1);
			     seed++) {
				struct pl_host h = {
					.slot_ns = slot, .jitter_ns = 30 * US,
					.seed = seed, .delack = 1,
				};
				struct pl_result r;

				p.variant = variant[v];
				r = packet_loop_q(&p, n[i], MSS, path, 0, &h,
						  1200, 300);
				printf("# moderation 250 us, variant %u, %u flows, seed %u: %.1f%% of the link, %.1f packets queued, Jain %.3f\n",
				       variant[v], n[i], seed, 100 * r.util,
				       r.queue_pkts, r.jain);
				CHECK(!r.overflow, "%u flows: ring overflow",
				      n[i]);
				CHECK(r.util >= 0.95,
				      "variant %u, %u flows: %.1f%% of the link",
				      variant[v], n[i], 100 * r.util);
				CHECK(n[i] < 4 || r.jain >= 0.9,
				      "variant %u, %u flows: Jain %.3f",
				      variant[v], n[i], r.jain);
			}
}

/*
 * The gradient's reference under the paper's law (pt_quantum_ref()),
 * samples of 1 µs resolution (span 2 µs) and of 250 µs (span 500 µs),
 * known answers: the previous sample where it is a span old, else the
 * kept reference, moved to a span before each sample on the line to it.
 */
static void test_quantum_ref(void)
{
	struct pt_params p = theta();
	struct pt_flow f = { 0 };
	u64 rtt, t;
	int i, off = 0;

#define QREF_IS(prev_rtt, prev_t, rtt, now, want_rtt, want_t, \
		kept_rtt, kept_t) do { \
	u64 r_ = (prev_rtt), t_ = (prev_t); \
	u64 dt_ = (now) > t_ ? (now) - t_ : 1;	/* as pt_on_rtt() */ \
	struct pt_sample s_ = { r_, t_ }; \
	if (pt_quantum_close(&p, dt_)) \
		s_ = pt_quantum_ref(&f, &p, rtt, now, dt_, s_); \
	r_ = s_.rtt_ns; \
	t_ = s_.t_ns; \
	CHECK(r_ == (want_rtt) && t_ == (want_t) && \
	      f.qref_rtt_ns == (kept_rtt) && f.qref_t_ns == (kept_t), \
	      "sample %llu at %llu: ref %llu at %llu, kept %llu at %llu", \
	      (unsigned long long)(rtt), (unsigned long long)(now), \
	      (unsigned long long)r_, (unsigned long long)t_, \
	      (unsigned long long)f.qref_rtt_ns, \
	      (unsigned long long)f.qref_t_ns); \
} while (0)
	/* None kept: the previous sample, which is kept */
	QREF_IS(5000, 1000, 5000, 1500, 5000, 1000, 5000, 1000);
	/* the previous 500 ns old: the kept one, 1000 ns old: not moved */
	QREF_IS(5000, 1500, 6000, 2000, 5000, 1000, 5000, 1000);
	/* 2500 ns old: moved 1/5 of the way to 6000 at 3500, Q16 */
	QREF_IS(6000, 2000, 6000, 3500, 5000, 1000, 5199, 1500);
	/* the previous a span (2 µs) old: it; the kept one untouched */
	QREF_IS(6000, 3500, 4000, 5500, 6000, 3500, 5199, 1500);
	QREF_IS(4000, 5500, 4000, 9000, 4000, 5500, 5199, 1500);
	/* from the future: the previous sample */
	QREF_IS(4000, 9000, 4000, 8000, 4000, 9000, 5199, 1500);
	/* close again, the kept one two spans old: restart at the previous */
	QREF_IS(4000, 9000, 4500, 9500, 4000, 9000, 4000, 9000);
	/* 250 µs samples, 120 µs apart: not a span (500 µs) */
	p.rtt_res_us = 250;
	memset(&f, 0, sizeof(f));
	QREF_IS(1250000, 2000000, 1000000, 2120000, 1250000, 2000000,
		1250000, 2000000);
	QREF_IS(1000000, 2120000, 1250000, 2240000, 1250000, 2000000,
		1250000, 2000000);
	QREF_IS(1250000, 2240000, 1000000, 2600000, 1250000, 2000000,
		1250000 - ((250000 * ((100000ULL << 16) / 600000)) >> 16),
		2100000);
	/* a span apart: the previous sample; the kept one untouched */
	QREF_IS(1000000, 2600000, 1250000, 3100000, 1000000, 2600000,
		1250000 - ((250000 * ((100000ULL << 16) / 600000)) >> 16),
		2100000);
#undef QREF_IS

	/*
	 * An RTT that ramps, sampled 300 ns apart: the kept reference is on
	 * the ramp (to the ns), a span behind each sample once moved.
	 */
	p.rtt_res_us = 0;	/* 1 µs */
	memset(&f, 0, sizeof(f));
	for (i = 1, t = 10000; i < 100 && !off; i++, t += 300) {
		u64 r = 50000 + t / 4, pt = t - 300, pr = 50000 + pt / 4;

		rtt = r;
		pt_quantum_ref(&f, &p, rtt, t, 300,
			       (struct pt_sample){ pr, pt });
		if (i > 8)
			off = f.qref_t_ns != t - 2000 ||
			      f.qref_rtt_ns + 1 < 50000 + f.qref_t_ns / 4 ||
			      f.qref_rtt_ns > 50000 + f.qref_t_ns / 4;
	}
	CHECK(!off, "ramp: sample %d, kept %llu at %llu", i,
	      (unsigned long long)f.qref_rtt_ns,
	      (unsigned long long)f.qref_t_ns);
}

/*
 * The instrument rtt_quantum_us: samples as a clock of q µs takes them,
 * the difference of the two times each truncated to q.
 */
static void test_quantize_rtt(void)
{
#define QUANT_IS(rtt, now_us, q, want) \
	CHECK(pt_quantize_rtt(rtt, (now_us) * US, q) == (want), \
	      "rtt %d us at %d us, quantum %d: %llu, want %d", rtt, \
	      now_us, q, \
	      (unsigned long long)pt_quantize_rtt(rtt, (now_us) * US, q), \
	      want)
	QUANT_IS(1063, 100000, 0, 1063);	/* off */
	QUANT_IS(1063, 100000, 1, 1063);
	QUANT_IS(1063, 100000, 250, 1250);	/* sent at 98937 */
	QUANT_IS(1063, 100062, 250, 1250);	/* 98999 to 100062 */
	QUANT_IS(1063, 100063, 250, 1000);	/* 99000 to 100063 */
	QUANT_IS(100, 100000, 250, 250);
	QUANT_IS(100, 100200, 250, 0);		/* one quantum: none */
	QUANT_IS(5000, 4000, 250, 5000);	/* before the clock's 0 */
#undef QUANT_IS
	CHECK(pt_quantize_rtt(17179869, ~0ULL, 1000000) == 17000000,
	      "extremes: %llu", (unsigned long long)
	      pt_quantize_rtt(17179869, ~0ULL, 1000000));
}

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
	{ "init: start at the configured share of line rate",
	  test_init_line_rate },
	{ "equilibrium: RTT = target, flat, beta = 0 keeps the window",
	  test_flat_at_target_beta0 },
	{ "gamma = 1: window = cwnd_old / power + beta", test_gamma_one },
	{ "rising RTT shrinks, falling RTT grows the window",
	  test_rising_and_falling_rtt },
	{ "gradient floor and power floor", test_gradient_floor },
	{ "reference window advances once per RTT",
	  test_reference_once_per_rtt },
	{ "closed loop settles at the analytic fixed point", test_equilibrium },
	{ "snd_cwnd = W * max(srtt, tau) / tau", test_cwnd_over_srtt },
	{ "fast recovery conserves packets, within the law's window",
	  test_recovery_cwnd },
	{ "skbs: a share of the window, 1 to the route's segments",
	  test_gso_segs },
	{ "an RTT only the timestamp echo gives is not a sample",
	  test_rtt_usable },
	{ "paced sub-packet windows: samples weigh gamma * min(1, tau / dt)",
	  test_gamma_sparse },
	{ "a slow path's sub-packet window grows at a power just below 1",
	  test_slow_path_grows },
	{ "packet model: 11, 21, 51 flows keep the link, fairly",
	  test_packet_loop_subpacket },
	{ "packet model at 25 Gbit/s, 4.64 us, whole-us RTT samples",
	  test_packet_loop_real_scale },
	{ "packet model: NICs that moderate interrupts, GRO's newest sample",
	  test_packet_loop_moderation },
	{ "rtt_quantum_us: samples as a clock of the quantum takes them",
	  test_quantize_rtt },
	{ "gradient reference: the previous sample, or a span of quanta back",
	  test_quantum_ref },
	{ "mapping: floor 1 packet, pacing 5/4 W / tau, capped", test_mapping },
	{ "mapping: floor 2 once the receiver is seen delaying ACKs",
	  test_delack_floor },
	{ "mapping: automatic tau before the first sample", test_auto_tau_before_sample },
	{ "extreme inputs: 10 s RTT, 400 Gb/s, 2^26-packet window",
	  test_extremes },
	{ "random inputs match 128-bit arithmetic", test_random_against_exact },
	{ "random sequences keep state within bounds", test_random_sequences },
	{ "cached per-flow constants: bit-identical to deriving per ACK",
	  test_cache_is_exact },
	{ "a parameter write applies at the next ACK", test_param_write_next_ack },
};

int main(void)
{
	size_t i;

	srandom(1);
	tap_plan(ARRAY_SIZE(tests));
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		tap_run(tests[i].name, tests[i].fn);
	return tap_done();
}
