/* SPDX-License-Identifier: GPL-2.0 */
/*
 * θ-PowerTCP control law in integer fixed point.
 *
 * This file is the only place where the algorithm lives. It is compiled into
 * both kernel modules (tcp_theta_powertcp, tcp_powertcp_evo), into their BPF
 * struct_ops builds (kmod/bpf/, clang -target bpf) and into the userspace
 * unit tests and fuzzers, so it uses no kernel API beyond the u32/u64/s64
 * types and div64_u64(), which the userspace and BPF builds provide
 * themselves. For BPF it also keeps to: unsigned 64-bit division only
 * (signed division needs BPF cpu v4), no 128-bit types, no loops.
 *
 * Per ACK (PowerTCP, NSDI '22, with the ns-3 model's "fast react"):
 *
 *   dθ/dt    = (RTT - RTT_ref) / (t - t_ref)
 *   Γ_norm   = max(dθ/dt + 1, grad_floor) * RTT / target,   target = k * τ
 *   Γ_smooth = (Γ_smooth * (H - Δ) + Γ_norm * Δ) / H,       Δ = min(dt, H)
 *   cwnd     = γ_s * (cwnd_old / Γ_smooth + β) + (1 - γ_s) * cwnd
 *   rate     = cwnd / τ
 *
 * where RTT_ref is the previous sample, or where that is younger than two
 * of the samples' resolution one kept that far back (pt_quantum_ref()),
 * cwnd_old is the reference window, advanced once per RTT by the caller,
 * H is the smoothing horizon (τ scaled by smooth_pct), and
 * γ_s = γ * min(1, τ / dt), dt the time since the previous sample, for
 * a window paced below a packet per 4/5 τ; γ itself for every other
 * (pt_gamma()).
 *
 * Fixed-point scales and the input ranges they are proven for (the unit
 * tests exercise each bound against a 128-bit reference):
 *
 *   time        ns, u64; RTT and τ are clamped to PT_TIME_MAX_NS (2^34 ns,
 *               about 17 s), dt to the same.
 *   power Γ     Q16 (PT_POWER_ONE = 1.0), clamped to [power_floor,
 *               PT_POWER_MAX = 256.0], so Γ < 2^25.
 *   gradient    (dθ/dt + 1) in Q16, clamped to [grad_floor, 256.0].
 *   window      packets in Q16 (PT_WND_ONE = 1 packet), clamped to
 *               PT_WND_MAX = 2^26 packets (64 GB of 1 KB segments), so a
 *               window is < 2^42. Q16, not coarser: a window of a third
 *               of a packet (a slow path) is 2^14 units, so a step of
 *               0.5% weighted by a scaled γ of 1/8 (pt_gamma()) is still
 *               10 units; with 10 fractional bits it truncates to none
 *               and the window stalls (docs/EVOLUTION.md, "The target's
 *               floor").
 *   γ           Q10 (1024 = 1.0).
 *   rates       Mb/s as u32 for the line rate (<= 400 Gb/s), bytes/s as
 *               u64 for the pacing rate.
 *
 * Worst-case intermediates: Γ_norm: gradient (2^24) * RTT (2^34) = 2^58;
 * smoothing: Γ (2^25) * H (2^34) = 2^59, sum of two such < 2^60;
 * window: cwnd_old (2^42) << 16 = 2^58, plus β's window (<= 2^42; faded,
 * times at most 2^11 = 2^53, then shifted back), then clamped to
 * PT_WND_MAX before multiplying by γ (2^42 * 2^10 = 2^52). All fit in
 * u64 / s64.
 *
 * Per-ACK cost. What depends only on the parameters, τ and the MSS (the
 * window bounds and β as a window: three divisions by the MSS, six by
 * constants) is derived per flow when one of those changes (pt_derive(),
 * keyed on the parameters' generation, the MSS, τ and the line rate), not
 * per ACK; the result is bit-identical to deriving it every time (the unit
 * tests run the uncached law beside it). The divisions left on the ACK
 * path have a per-ACK divisor (dt, Γ_smooth, target, H, τ) and stay exact:
 * a multiply-shift reciprocal of a 64-bit dividend needs a 128-bit
 * product, which BPF does not have, and the precision budget above has no
 * bits to spare for a truncated one. The pacing rate takes one division
 * instead of two below 2^34 bytes (same result, see pt_pacing_rate()).
 */
#ifndef _POWERTCP_CORE_H
#define _POWERTCP_CORE_H

#ifdef __KERNEL__
#include <linux/bits.h>
#include <linux/math64.h>
#include <linux/types.h>
#else
#ifndef __bpf__		/* BPF (kmod/bpf/): vmlinux.h, included first, has them */
#include <linux/types.h>
typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s64 s64;
#endif
#define BIT_ULL(n)	(1ULL << (n))
#define BIT(n)		(1UL << (n))
#ifndef __always_inline	/* the kernel's: inlining matters only there */
#define __always_inline	inline
#endif
static inline u64 div64_u64(u64 a, u64 b)
{
	return a / b;
}
#endif

/*
 * A slow path, out of the ACK path's registers: out of line in the
 * modules; inline in BPF, whose calls return one register
 * (pt_quantum_ref() returns two), and in the tests.
 */
#ifdef __KERNEL__
#define pt_slow_path	noinline
#else
#define pt_slow_path	__always_inline
#endif

#define PT_POWER_SHIFT		16
#define PT_POWER_ONE		BIT_ULL(PT_POWER_SHIFT)
#define PT_POWER_MAX		(256ULL << PT_POWER_SHIFT)
#define PT_WND_SHIFT		16
#define PT_WND_ONE		BIT_ULL(PT_WND_SHIFT)
#define PT_WND_MAX		BIT_ULL(26 + PT_WND_SHIFT)
#define PT_GAMMA_ONE		1024U
#define PT_TIME_MAX_NS		BIT_ULL(34)
#define PT_LINE_RATE_MAX_MBPS	400000U
#define PT_PPM			1000000U
#define PT_PERMILLE		1000U
#define PT_CWND_MIN		1	/* snd_cwnd floors: see the mapping */
#define PT_CWND_MIN_DELACK	2
#define PT_RTT_QUANTUM_US	1	/* an RTT sample's resolution */
#define PT_RTT_REF_QUANTA	2	/* gradient span, in resolutions */
#define PT_PACING_GAIN_NUM	5	/* pacing at 5/4 of the law's rate */
#define PT_PACING_GAIN_DEN	4

/*
 * Law variants (pt_params.variant, a bit mask), for PowerTCP-evo's search.
 * θ-PowerTCP runs variant 0, the paper's law.
 *
 * PT_VAR_GRAD_BASELINE: the RTT gradient is taken against a reference
 *	sample at least H/4 old, not the previous ACK's. Back-to-back samples
 *	differ by whole packets of queue (one packet is 10% of a 10-packet
 *	BDP), so their gradient is mostly quantization noise, and the floor on
 *	(dθ/dt + 1) clips only its negative half.
 * PT_VAR_QDELAY: power is computed from the queueing delay the flow sees,
 *	RTT - min RTT, on top of τ, not from the raw RTT: a configured τ that
 *	differs from the path's real base RTT then no longer moves the
 *	operating point.
 * PT_VAR_FAST_REF: the reference window also advances every τ, not only
 *	once per RTT. Under a standing queue an RTT is many τ long (a 10:1
 *	incast that starts at line rate queues 10 BDP, so RTT = 11τ), and the
 *	law could cut the window only once per such RTT: the queue drains in
 *	tens of base RTTs. At the operating point RTT ≈ τ and nothing changes.
 * PT_VAR_DRAIN_REF: the reference window advances every τ only while
 *	Γ_smooth >= PT_DRAIN_POWER (2: a BDP or more of queue above the
 *	target), once per RTT otherwise. The fast reference's drain without
 *	its cost near the operating point, where it compounds a cut twice in
 *	an RTT of 2τ: there the law is θ's exactly (docs/EVOLUTION.md).
 * PT_VAR_BETA_FADE: the additive increase β fades out as Γ_smooth rises
 *	above 1, linearly to none at 1 + 1/32 (PT_BETA_FADE_SHIFT). θ's
 *	fixed point W = W/Γ + β puts Γ at W/(W - β): N flows sharing a BDP
 *	hold about N β of queue on top of the target's, more than the
 *	target's own 5% once N β passes 5% of the BDP (11 flows at θ's β
 *	of 0.6% of the BDP: Γ = 1.071). Faded, Γ - 1 = b d/(b + d) with
 *	b = β/W and d = 1/32: 0.021 for those 11 flows. Below the target
 *	the law is θ's: an idle path still reads Γ < 1 and grows by 1/Γ
 *	and the whole β. The price: flows converge to their shares by 1/Γ
 *	a round, and Γ sits nearer 1.
 * PT_VAR_COMPETE: a competitive mode for a queue shared with loss-based
 *	algorithms (CUBIC, Reno), which fill any buffer: next to them a
 *	delay-based law backs off to its floor and keeps a fraction of a
 *	percent of the link. When a BDP of queue stands through whole
 *	rounds, does not drain, and the flow is at its floor, the queue is
 *	not the law's own to drain; the flow then competes as CUBIC does
 *	until a probe finds the queue gone with it (see "Competitive mode"
 *	below). It uses PT_VAR_GRAD_BASELINE's state: a mask with both is
 *	refused (pt_variant_valid()).
 * PT_VAR_SAMPLE_MIN: the law's RTT sample is the lesser of this ACK's
 *	and the one before it (PT_SMIN_SAMPLES), a window of samples, not
 *	of time. For hosts whose NICs moderate their interrupts: GRO gives
 *	an ACK the RTT of its newest segment, whose wait in the receiver's
 *	batch depends on the flow's place in it, and the flow that reads
 *	less of the wait keeps more of the link. A minimum over each flow's
 *	own samples takes out much of the wait for every flow alike, where
 *	a minimum over time favours the flow with more samples in it. The
 *	price: the law reads less than the mean RTT and holds more queue
 *	(docs/EVOLUTION.md). It keeps its sample in the gradient
 *	reference's state: not with PT_VAR_GRAD_BASELINE or PT_VAR_COMPETE
 *	(pt_variant_valid()).
 * PT_VAR_FIRST_POWER: a flow's first RTT sample, which has no sample
 *	before it to take a gradient against, sets Γ_smooth to its RTT's
 *	power alone, RTT / (target τ), and updates the window, where that
 *	power is above 1; the paper's law keeps Γ_smooth at 1 and the window
 *	as they are. An incast sender that starts behind other senders'
 *	first windows reads a queue of several τ in its first sample; at 1
 *	its Γ_smooth climbs to it by Δ/H a sample, about ten samples at the
 *	line rate, and it paces at the line rate meanwhile, into the queue.
 *	A first sample at or below the target changes nothing.
 */
#define PT_VAR_GRAD_BASELINE	BIT(0)
#define PT_VAR_QDELAY		BIT(1)
#define PT_VAR_FAST_REF		BIT(2)
#define PT_VAR_DRAIN_REF	BIT(3)
#define PT_VAR_BETA_FADE	BIT(4)
#define PT_VAR_COMPETE		BIT(5)
#define PT_VAR_SAMPLE_MIN	BIT(6)
#define PT_VAR_FIRST_POWER	BIT(7)
#define PT_VAR_ALL		(PT_VAR_GRAD_BASELINE | PT_VAR_QDELAY | \
				 PT_VAR_FAST_REF | PT_VAR_DRAIN_REF | \
				 PT_VAR_BETA_FADE | PT_VAR_COMPETE | \
				 PT_VAR_SAMPLE_MIN | PT_VAR_FIRST_POWER)
/* the variants with state of their own in struct pt_flow's union */
#define PT_VAR_OWN_STATE	(PT_VAR_GRAD_BASELINE | PT_VAR_COMPETE | \
				 PT_VAR_SAMPLE_MIN)
#define PT_SMIN_SAMPLES		2	/* PT_VAR_SAMPLE_MIN's window */
#define PT_DRAIN_POWER		(2 * PT_POWER_ONE)
#define PT_BETA_FADE_SHIFT	11	/* fade width PT_POWER_ONE >> 5 */

/* Tunables, shared by every flow of one algorithm. */
struct pt_params {
	u32 gamma;		/* EWMA weight γ, Q10, 1..1024 */
	u32 beta_ppm;		/* additive increase β, ppm of line rate */
	u32 target_permille;	/* target RTT as permille of τ (1050 = 1.05τ) */
	u32 grad_floor_permille;	/* floor of (dθ/dt + 1), permille */
	u32 power_floor_permille;	/* floor of Γ_norm, permille (> 0) */
	u32 min_rate_ppm;	/* rate floor, ppm of line rate */
	u32 init_rate_ppm;	/* starting rate, ppm of line rate */
	u32 smooth_pct;		/* smoothing horizon H, percent of τ */
	u32 base_rtt_us;	/* τ in µs; 0 = per-flow minimum RTT */
	u32 line_rate_mbps;	/* host line rate, Mb/s */
	u32 variant;		/* PT_VAR_* mask; 0 = the paper's law */
	u32 rtt_res_us;		/* RTT samples' resolution, µs (0: 1); */
				/* not a tunable: the glue's (last) */
};

/*
 * Per-flow state; must fit in the kernel's icsk_ca_priv (104 bytes: it
 * does, exactly). RTTs are kept in µs, as they are sampled (< 2^25 after
 * the clamp), to leave room for the derived values.
 *
 * The derived values are what the law needs per ACK but that changes only
 * with the parameters, τ, the MSS or the line rate: the window bounds and
 * β as a window, three divisions by the MSS and six by constants each.
 * pt_derive() computes them when one of those changes: the parameters'
 * generation @gen (which the parameter setter bumps), the MSS, τ (a new
 * minimum RTT with an automatic τ, which pt_on_rtt() sees itself), or
 * the line rate, which the caller may set per flow without a new
 * generation (the modules' line_rate_auto: the flow's device's speed,
 * which changes when the device's does or the flow's route moves). Keyed
 * on every input, the cache is exact: the law is bit-identical to
 * deriving them on every ACK, and a parameter write applies from the next
 * ACK.
 *
 * The line rate key shares a word with wnd_hi (at most PT_WND_MAX =
 * 2^42, 43 bits): 21 bits hold any line rate up to PT_LINE_RATE_MAX_MBPS
 * (< 2^19), and one above 2^21 - 1 never compares equal, so it would be
 * derived on every sample, still exactly. The MSS key is 16 bits, as
 * TCP's MSS option; a larger MSS would never compare equal, in the same
 * way.
 */
struct pt_compete {
	union {
		u32 w_max;	/* compete: window at the last loss, */
				/* packets (0: none) */
		u32 rev_base;	/* delay, test: the least reverse */
				/* reading (pt_cm_reverse()) */
	};
	union {
		u32 t_k;	/* compete: when the cubic is back at */
				/* w_max, in ticks of 2^PT_CM_TICK_SHIFT ns */
		u32 rev_min_us;	/* delay, test: the round's least */
				/* reverse queue, µs, plus 1 (0: none) */
	};
	union {
		u32 w_est;	/* the Reno-friendly window, packets, */
				/* PT_CM_EST_SHIFT */
		u32 test_ref_us;	/* in test: the standing round's */
				/* smallest forward RTT */
	};
	u32 round_min_us;	/* smallest RTT sample of the round (0: none) */
	union {
		u32 prev_min_us;	/* delay, test: the round before's */
				/* smallest forward RTT (0: none) */
		u32 rev_us;	/* compete, probe: the reverse queue at */
				/* the entry, µs */
	};
	u8 state;		/* PT_CM_DELAY, _COMPETE, _PROBE, _TEST */
	u8 rounds;		/* rounds in the state (or standing, in delay) */
	union {
		u8 cut;		/* compete: rounds a loss is already */
				/* answered for */
		u8 rev_known;	/* delay, test: rev_base is set */
	};
	u8 backoff;		/* delay and test: tests that found the */
				/* queue our own; compete and probe: */
				/* probes that found it standing */
};

struct pt_flow {
	u64 t_prev_ns;		/* time of the previous RTT sample */
	u64 wnd;		/* current window, packets Q16 */
	u64 wnd_old;		/* reference window (one RTT ago), Q16 */
	/*
	 * The variants' own state, cleared by a parameter write
	 * (pt_variant_reset()); PT_VAR_COMPETE and PT_VAR_GRAD_BASELINE
	 * never run together (pt_variant_valid()); the others' gradient
	 * reference where neither runs.
	 */
	union {
		struct {	/* PT_VAR_GRAD_BASELINE */
			u64 grad_t_ns;	/* reference sample's time, at least */
					/* H/4 old once set (0: none), */
			u64 mid_t_ns;	/* and the next one's, at most H/4 old */
			u32 grad_rtt_us;	/* their RTTs, µs */
			u32 mid_rtt_us;
		};
		struct {	/* the others: pt_quantum_ref() */
			u64 qref_t_ns;	/* gradient reference's time */
					/* (0: none), */
			u64 qref_rtt_ns;	/* and its RTT, ns */
			/*
			 * PT_VAR_SAMPLE_MIN: the samples before this
			 * ACK's, newest first, each µs above min_rtt_us
			 * plus 1 (0: none; at most 0xffff, so one more
			 * than 65534 µs above is kept as that)
			 */
			u16 smin[PT_SMIN_SAMPLES - 1];
		};
		struct pt_compete cm;	/* PT_VAR_COMPETE */
	};
	u64 ref_t_ns;		/* time of the last reference update */
	u64 wnd_lo;		/* derived: pt_wnd_lo() */
	u64 wnd_hi : 43;	/* derived: pt_wnd_hi() (<= PT_WND_MAX) */
	u64 line_mbps : 21;	/* the line rate they are of */
	u64 beta_wnd;		/* derived: pt_beta_wnd() (<= PT_WND_MAX) */
	u32 rtt_prev_us;	/* previous RTT sample, µs (0: none) */
	u32 power;		/* Γ_smooth, Q16 */
	u32 min_rtt_us;		/* smallest RTT seen, µs (0 = none yet) */
	u32 gen;		/* parameter generation the derived values are of */
	u16 mss;		/* and MSS (and line_mbps, above) */
	u8 cwnd_min;		/* snd_cwnd floor, packets: pt_note_delack() */
	u8 skb_segs;		/* the glue's: the skb bound it last left in
				 * force (0: none known); pt_derive() clears it
				 */
	u32 ref_seq;		/* the glue's: snd_nxt at the last reference
				 * update (in here to fit icsk_ca_priv)
				 */
};

static inline u64 pt_min(u64 a, u64 b)
{
	return a < b ? a : b;
}

static inline u64 pt_max(u64 a, u64 b)
{
	return a > b ? a : b;
}

static inline u64 pt_clamp(u64 v, u64 lo, u64 hi)
{
	return pt_min(pt_max(v, lo), hi);
}

/*
 * Is τ known? With an automatic τ (base_rtt_us = 0) it is not until the
 * flow's first RTT sample; pt_tau_ns() then returns its 1 µs floor, which
 * the mapping below must not divide by.
 */
static inline int pt_tau_known(const struct pt_params *p,
			       const struct pt_flow *f)
{
	return p->base_rtt_us || f->min_rtt_us;
}

/*
 * The resolution of the RTT samples, µs: the kernel's are whole µs
 * (PT_RTT_QUANTUM_US); the modules' test instrument rtt_quantum_us
 * coarsens them to its quantum, which the glue then sets here.
 */
static inline u64 pt_rtt_res_us(const struct pt_params *p)
{
	return p->rtt_res_us ? p->rtt_res_us : PT_RTT_QUANTUM_US;
}

/*
 * τ in ns for this flow: the configured base RTT, or the flow's min RTT
 * sample and the sample's quantum. The kernel's samples are whole µs, the
 * difference of two µs clocks, so a path of 4.64 µs samples 4 or 5 and
 * its minimum is 4: taken as τ, the law's target (5% above) would be
 * below the empty path's RTT and the flow would read a queue that is not
 * there (11 flows moved 65% of the link in the unit tests' packet model,
 * 100% with the quantum). The path's RTT is under min + 1 µs; at 100 µs
 * and above the quantum is 1% or less.
 */
static inline u64 pt_tau_ns(const struct pt_params *p, const struct pt_flow *f)
{
	u64 us = p->base_rtt_us ? p->base_rtt_us :
		 (u64)f->min_rtt_us + pt_rtt_res_us(p);

	return pt_clamp(us * 1000, 1000, PT_TIME_MAX_NS);
}

/*
 * Window (packets, Q16) that carries @ppm of the line rate over @tau_ns with
 * segments of @mss bytes. line rate (< 2^19 Mb/s) * τ (< 2^35 ns) < 2^54;
 * bytes (< 2^41) << 16 < 2^57.
 */
static inline u64 pt_rate_to_wnd(const struct pt_params *p, u32 ppm,
				 u64 tau_ns, u32 mss)
{
	u64 bytes = div64_u64((u64)p->line_rate_mbps * tau_ns, 8000);

	bytes = div64_u64(bytes * ppm, PT_PPM);
	return div64_u64(bytes << PT_WND_SHIFT, mss ? mss : 1);
}

/*
 * Window bounds: [min_rate, line rate] over τ. The window may be a fraction
 * of a packet: the kernel keeps snd_cwnd >= 2 while the pacing rate, from
 * this window, carries the fraction. It never reaches 0 (1/65536 packet).
 */
static inline u64 pt_wnd_lo(const struct pt_params *p, u64 tau_ns, u32 mss)
{
	return pt_clamp(pt_rate_to_wnd(p, p->min_rate_ppm, tau_ns, mss), 1,
			PT_WND_MAX);
}

static inline u64 pt_wnd_hi(const struct pt_params *p, u64 tau_ns, u32 mss)
{
	return pt_clamp(pt_rate_to_wnd(p, PT_PPM, tau_ns, mss), 1, PT_WND_MAX);
}

/* β as a window, at most PT_WND_MAX (the window's own bound). */
static inline u64 pt_beta_wnd(const struct pt_params *p, u64 tau_ns, u32 mss)
{
	return pt_min(pt_rate_to_wnd(p, p->beta_ppm, tau_ns, mss), PT_WND_MAX);
}

/*
 * Is @variant a mask the law can run? PT_VAR_COMPETE, PT_VAR_GRAD_BASELINE
 * and PT_VAR_SAMPLE_MIN keep their state in one place (struct pt_flow's
 * union), so at most one of them; the modules' and the BPF loader's
 * parameter checks refuse the others.
 */
static inline int pt_variant_valid(u32 variant)
{
	u32 own = variant & PT_VAR_OWN_STATE;

	return !(variant & ~(u32)PT_VAR_ALL) && (!own || !(own & (own - 1)));
}

/*
 * The variants' state as at a flow's start: no gradient baseline yet, the
 * competitive mode's delay state with no rounds seen. Also on every
 * parameter write, which may change the variant mask and so what the
 * union holds.
 */
static inline void pt_variant_reset(struct pt_flow *f)
{
	f->grad_t_ns = 0;
	f->mid_t_ns = 0;
	f->grad_rtt_us = 0;
	f->mid_rtt_us = 0;	/* and so cm and smin, in the same 24 */
				/* bytes, are zero */
}

/*
 * The derived values of a flow (see struct pt_flow) for τ = @tau_ns, @mss
 * and the parameters @p of generation @gen, with its line rate.
 */
static inline void pt_derive(struct pt_flow *f, const struct pt_params *p,
			     u64 tau_ns, u32 mss, u32 gen)
{
	if (f->gen != gen)	/* a parameter write: the variant may change */
		pt_variant_reset(f);
	f->wnd_lo = pt_wnd_lo(p, tau_ns, mss);
	f->wnd_hi = pt_wnd_hi(p, tau_ns, mss);
	f->beta_wnd = pt_beta_wnd(p, tau_ns, mss);
	f->gen = gen;
	f->mss = (u16)mss;	/* a larger one never compares equal */
	f->line_mbps = p->line_rate_mbps;
	f->skb_segs = 0;	/* the glue's bound may be of older parameters */
}

/* Are @f's derived values those of @p (generation @gen) and @mss? */
static inline int pt_derived_current(const struct pt_flow *f,
				     const struct pt_params *p, u32 gen,
				     u32 mss)
{
	return f->gen == gen && f->mss == mss &&
	       f->line_mbps == p->line_rate_mbps;
}

/*
 * Start a flow at init_rate of the line rate. With an automatic τ and no
 * RTT sample yet, @fallback_pkts (the kernel's initial window) is used.
 */
static inline void pt_flow_init(struct pt_flow *f, const struct pt_params *p,
				u32 gen, u32 fallback_pkts, u32 mss,
				u64 now_ns)
{
	u64 tau;

	f->t_prev_ns = now_ns;
	f->rtt_prev_us = 0;
	pt_variant_reset(f);
	f->ref_t_ns = now_ns;
	f->power = PT_POWER_ONE;
	f->min_rtt_us = 0;
	f->cwnd_min = PT_CWND_MIN;
	tau = pt_tau_ns(p, f);
	pt_derive(f, p, tau, mss, gen);
	if (p->base_rtt_us)
		f->wnd = pt_clamp(pt_rate_to_wnd(p, p->init_rate_ppm, tau, mss),
				  f->wnd_lo, f->wnd_hi);
	else
		f->wnd = pt_clamp((u64)fallback_pkts << PT_WND_SHIFT,
				  PT_WND_ONE, PT_WND_MAX);
	f->wnd_old = f->wnd;
}

/*
 * Normalized power from two RTT samples @dt_ns apart (dt >= 1).
 * Returns Γ_norm in Q16, within [power_floor, PT_POWER_MAX].
 */
static inline u64 pt_norm_power(const struct pt_params *p, u64 rtt_ns,
				u64 rtt_prev_ns, u64 dt_ns, u64 tau_ns)
{
	s64 diff = (s64)rtt_ns - (s64)rtt_prev_ns;	/* |diff| < 2^34 */
	s64 grad;					/* dθ/dt + 1, Q16 */
	u64 g, target, power;

	/* |diff| << 16 < 2^50: the shift is done on the magnitude. */
	if (diff >= 0)
		grad = (s64)div64_u64((u64)diff << PT_POWER_SHIFT, dt_ns);
	else
		grad = -(s64)div64_u64((u64)-diff << PT_POWER_SHIFT, dt_ns);
	grad += (s64)PT_POWER_ONE;

	g = grad < 0 ? 0 : (u64)grad;
	g = pt_clamp(g, div64_u64((u64)p->grad_floor_permille * PT_POWER_ONE,
				  PT_PERMILLE), PT_POWER_MAX);

	target = div64_u64(tau_ns * p->target_permille, PT_PERMILLE);
	power = div64_u64(g * rtt_ns, target ? target : 1);
	return pt_clamp(power,
			pt_max(div64_u64((u64)p->power_floor_permille *
					 PT_POWER_ONE, PT_PERMILLE), 1),
			PT_POWER_MAX);
}

/*
 * PT_VAR_GRAD_BASELINE: the sample to differentiate against. Keeps two
 * references, moved every @span (H/4): the older one is then between
 * @span and 2 @span old. Until it exists, the previous sample serves.
 */
static inline void pt_grad_ref(struct pt_flow *f, u64 span, u32 rtt_us,
			       u64 now_ns, u64 *ref_rtt, u64 *ref_t)
{
	if (!f->mid_t_ns || now_ns < f->mid_t_ns ||
	    now_ns - f->mid_t_ns >= span) {
		f->grad_rtt_us = f->mid_rtt_us;
		f->grad_t_ns = f->mid_t_ns;
		f->mid_rtt_us = rtt_us;
		f->mid_t_ns = now_ns;
	}
	if (f->grad_t_ns && now_ns > f->grad_t_ns) {
		*ref_rtt = (u64)f->grad_rtt_us * 1000;
		*ref_t = f->grad_t_ns;
	}
}

/* An RTT sample, ns, and its time */
struct pt_sample {
	u64 rtt_ns;
	u64 t_ns;
};

/*
 * The sample to differentiate against under the other variants (the
 * paper's law among them): the previous one where it is at least a span
 * of PT_RTT_REF_QUANTA resolutions (pt_rtt_res_us()) old, else a
 * reference kept a span behind the samples.
 *
 * Samples are whole resolutions, each within one of the true RTT. At the
 * paper's 25 Gbit/s and 4.64 µs, 1 µs samples over ACKs 0.5 µs apart
 * step by 0 or ±1 µs: a gradient of ±2 from the quantum alone. The floor
 * on (dθ/dt + 1) clips the falling half of that noise and not the rising
 * one, so noise reads as power above 1 (a lone flow moved 52% of the
 * link in the unit tests' packet model, 14% at 100 Gbit/s). Over a span
 * s the sample's error is res/s: within ±1/2 over two resolutions,
 * which the default floor (1/2) never clips. The reference's own error
 * averages out: each sample moves it to a span before the sample, on
 * the line from it to the sample (t_R' = now - s, exact for an RTT that
 * ramps), so it is a moving mean of the samples over about a span. A
 * longer span delays the gradient: 2 resolutions is 0.4 τ there.
 *
 * Where samples come a span apart or more (a host's 1 µs samples of ACKs
 * a packet time apart at 100 Mbit/s, 120 µs) the reference is the
 * previous sample, and the law is the paper's bit for bit. Its state is
 * PT_VAR_GRAD_BASELINE's (which has its own reference) or
 * PT_VAR_COMPETE's (which goes without).
 */
/* pt_on_rtt()'s test: are samples @dt apart closer than a span? */
static __always_inline int pt_quantum_close(const struct pt_params *p,
					    u64 dt)
{
	/* A constant first, for a host's 1 µs samples (nearly every ACK) */
	return dt < PT_RTT_REF_QUANTA * 1000 || p->rtt_res_us;
}

/*
 * The reference for a sample at @now_ns whose previous one @prev is less
 * than two default resolutions old, or is any age with a coarser
 * resolution (pt_quantum_close()). It starts at the previous sample
 * where none was kept over the last two spans.
 */
static pt_slow_path struct pt_sample
pt_quantum_ref(struct pt_flow *f, const struct pt_params *p, u64 rtt_ns,
	       u64 now_ns, u64 dt, struct pt_sample prev)
{
	u64 span = PT_RTT_REF_QUANTA * pt_rtt_res_us(p) * 1000;
	struct pt_sample ref = { f->qref_rtt_ns, f->qref_t_ns };
	u64 age, w, d;

	/* The previous sample where it is a span old (or in the future) */
	if (dt >= span || now_ns < prev.t_ns)
		return prev;
	/*
	 * Samples closer than a span. None kept over the last two spans
	 * (the samples came further apart until now): the reference starts
	 * at the previous sample, and this one's weight in Γ_smooth is at
	 * most a span's.
	 */
	if (!f->qref_t_ns || now_ns < f->qref_t_ns ||
	    now_ns - f->qref_t_ns >= 2 * span) {
		f->qref_t_ns = prev.t_ns;
		f->qref_rtt_ns = prev.rtt_ns;
		return prev;
	}
	age = now_ns - f->qref_t_ns;
	if (age <= span)
		return ref;
	/* To now - span: w = (age - span)/age of the way, Q16 (< 2^50). */
	w = div64_u64((age - span) << 16, age);
	if (rtt_ns >= f->qref_rtt_ns) {		/* RTTs < 2^35 */
		d = rtt_ns - f->qref_rtt_ns;
		f->qref_rtt_ns += (d * w) >> 16;
	} else {
		d = f->qref_rtt_ns - rtt_ns;
		f->qref_rtt_ns -= (d * w) >> 16;
	}
	f->qref_t_ns = now_ns - span;
	return ref;
}

/*
 * PT_VAR_SAMPLE_MIN: the smallest of @rtt_us and the flow's samples kept
 * before it; keeps @rtt_us. Called after min_rtt_us has taken @rtt_us in,
 * so every kept sample is at least min_rtt_us when it is kept (one kept
 * before the minimum fell reads that much lower until it leaves).
 */
static inline u64 pt_sample_min(struct pt_flow *f, u64 rtt_us)
{
	u64 m = rtt_us;
	int i;

	for (i = PT_SMIN_SAMPLES - 2; i >= 0; i--) {
		if (f->smin[i])
			m = pt_min(m, f->min_rtt_us + f->smin[i] - 1ULL);
		if (i)
			f->smin[i] = f->smin[i - 1];
	}
	f->smin[0] = (u16)pt_min(rtt_us - f->min_rtt_us + 1, 0xffff);
	return m;
}

/* PT_VAR_QDELAY: τ plus the queueing delay in @rtt_ns (all < 2^35). */
static inline u64 pt_qdelay_rtt(u64 rtt_ns, const struct pt_flow *f, u64 tau)
{
	u64 base = (u64)f->min_rtt_us * 1000;

	return pt_min(tau + pt_max(rtt_ns, base) - base, PT_TIME_MAX_NS);
}

/*
 * Is an ACK's RTT sample one the law can use? The law works in µs, and an
 * ACK whose RTT the kernel could only take from the timestamp echo carries
 * one of millisecond granularity (tcp_ack_update_rtt(), TCP_TS_HZ 1000):
 * 1000 µs on a 20 µs path, a power 50 times too high. The kernel falls back
 * to the echo when the ACK acked retransmitted data, or only data SACKed
 * before, and the ACK's rate sample shows both: @is_retrans, the newest
 * packet it delivered was a retransmission; @delivered <= 0, no new
 * delivery. Such an ACK is skipped, as one with no sample (@rtt_us <= 0).
 */
static inline int pt_rtt_usable(long rtt_us, int is_retrans, int delivered)
{
	return rtt_us > 0 && !is_retrans && delivered > 0;
}

/*
 * The test instrument rtt_quantum_us (a module parameter, 0 = off): the
 * RTT sample @rtt_us of an ACK at @now_ns as a clock of @q µs takes it,
 * the difference of the ACK's and the send's times each truncated to a
 * whole @q. That is what the kernel's whole-µs samples are at a time
 * scale @q times shorter: in the testbed (×250) @q = 250 gives a path of
 * 4.64 µs at 25 Gbit/s its samples of 4 or 5 µs. 0 where both fall in
 * one quantum (the caller then has no sample).
 */
static inline u64 pt_quantize_rtt(u64 rtt_us, u64 now_ns, u32 q)
{
	u64 now_us = div64_u64(now_ns, 1000);

	if (!q || rtt_us > now_us)
		return rtt_us;
	return (div64_u64(now_us, q) - div64_u64(now_us - rtt_us, q)) * q;
}

/*
 * The additive increase β (@beta_wnd, as a window) that applies at power
 * @power: all of it, or with PT_VAR_BETA_FADE above Γ = 1 a share that
 * falls linearly to none at 1 + 1/32 (beta_wnd <= 2^42, times <= 2^11).
 */
static inline u64 pt_beta(const struct pt_params *p, u64 beta_wnd, u32 power)
{
	u64 end = PT_POWER_ONE + BIT_ULL(PT_BETA_FADE_SHIFT);

	if (!(p->variant & PT_VAR_BETA_FADE) || power <= PT_POWER_ONE)
		return beta_wnd;
	if (power >= end)
		return 0;
	return (beta_wnd * (end - power)) >> PT_BETA_FADE_SHIFT;
}

/*
 * The weight of one sample's update, Q10: γ, scaled by τ / @dt_ns for a
 * flow paced below a packet per 4/5 τ (PT_PACING_GAIN * @wnd < 1 packet)
 * whose samples come more than τ apart. Such a flow takes one sample per
 * packet, a packet gap apart, and the rate that a sample sets applies
 * from the departure after the one already timed, so it acts on the
 * queue a gap after the sample was taken. Its neighbours sample the same
 * queue and act as late: with the whole weight each, N such flows cut and
 * regrow together in a cycle of 15 to 40 base RTTs, and the link idles in
 * its troughs (20 to 50 flows on a 10-packet BDP moved 89-91% of the
 * link; docs/MODULE.md). Scaled, a flow's samples weigh about γ a τ
 * together, as at a packet a τ. The scale is τ, not the sample's RTT: a
 * weight that grows with the RTT gives a late sample more say than a
 * prompt one, and a receiver's delayed ACK (40 ms where τ is 1 ms) then
 * pulls the window down (half the rate on test_kmod.sh's delayed-ACK
 * path). A window of a packet or more is clocked by ACKs; where its
 * samples come far apart the receiver or the application spaced them,
 * and γ applies as it is, as it does wherever samples come τ apart or
 * closer. Never 0. @wnd < 2^42; @tau_ns, @dt_ns < 2^35.
 */
static inline u64 pt_gamma(const struct pt_params *p, u64 wnd, u64 tau_ns,
			   u64 dt_ns)
{
	if (wnd * PT_PACING_GAIN_NUM >= PT_WND_ONE * PT_PACING_GAIN_DEN ||
	    dt_ns <= tau_ns)
		return p->gamma;
	return pt_max(div64_u64(p->gamma * tau_ns, dt_ns), 1);
}

/*
 * Process one RTT sample @rtt_us taken at @now_ns; updates Γ_smooth and the
 * window. @gen is the parameters' generation (a parameter write changes
 * it), @mss the flow's current segment size, p->line_rate_mbps the flow's
 * line rate (may change without @gen). Returns nothing: read f->wnd /
 * pt_pacing_rate() afterwards. Always inlined: it runs on every ACK, and
 * a caller's constant variant mask folds through it (powertcp_module.h).
 */
static __always_inline void pt_on_rtt(struct pt_flow *f,
				      const struct pt_params *p, u32 gen,
				      u64 rtt_us, u64 now_ns, u32 mss)
{
	u64 rtt_ns, rtt_prev = (u64)f->rtt_prev_us * 1000;
	u64 dt, tau, horizon, delta, norm, target_wnd, wnd;
	u64 ref_rtt, ref_t, pwr_rtt, gamma;
	int new_tau = 0;

	rtt_us = pt_clamp(rtt_us, 1, PT_TIME_MAX_NS / 1000);
	if (!f->min_rtt_us || rtt_us < f->min_rtt_us) {
		f->min_rtt_us = (u32)rtt_us;
		new_tau = !p->base_rtt_us;
	}
	tau = pt_tau_ns(p, f);
	if (new_tau || !pt_derived_current(f, p, gen, mss))
		pt_derive(f, p, tau, mss, gen);
	if (p->variant & PT_VAR_SAMPLE_MIN)
		rtt_us = pt_sample_min(f, rtt_us);
	rtt_ns = rtt_us * 1000;
	if ((p->variant & PT_VAR_COMPETE) &&
	    (!f->cm.round_min_us || rtt_us < f->cm.round_min_us))
		f->cm.round_min_us = (u32)rtt_us;

	/*
	 * First sample: nothing to differentiate against yet. With
	 * PT_VAR_FIRST_POWER its RTT alone sets Γ_smooth where it is above
	 * the target, and the window follows.
	 */
	if (!rtt_prev) {
		f->rtt_prev_us = (u32)rtt_us;
		f->t_prev_ns = now_ns;
		wnd = f->wnd;
		if (!(p->variant & PT_VAR_FIRST_POWER))
			goto out;
		norm = pt_norm_power(p, rtt_ns, rtt_ns, 1, tau);
		if (norm <= PT_POWER_ONE)
			goto out;
		f->power = (u32)norm;
		dt = tau;
		goto update;
	}

	dt = now_ns > f->t_prev_ns ? now_ns - f->t_prev_ns : 1;
	dt = pt_min(dt, PT_TIME_MAX_NS);
	horizon = pt_max(div64_u64(tau * p->smooth_pct, 100), 1);

	/* The gradient's baseline and the RTT that power is computed from. */
	ref_rtt = rtt_prev;
	ref_t = f->t_prev_ns;
	if (p->variant & PT_VAR_GRAD_BASELINE)
		pt_grad_ref(f, horizon / 4, (u32)rtt_us, now_ns, &ref_rtt,
			    &ref_t);
	else if (!(p->variant & PT_VAR_COMPETE) && pt_quantum_close(p, dt)) {
		struct pt_sample r = pt_quantum_ref(f, p, rtt_ns, now_ns, dt,
						    (struct pt_sample){
							ref_rtt, ref_t });

		ref_rtt = r.rtt_ns;
		ref_t = r.t_ns;
	}
	pwr_rtt = rtt_ns;
	if (p->variant & PT_VAR_QDELAY) {
		pwr_rtt = pt_qdelay_rtt(rtt_ns, f, tau);
		ref_rtt = pt_qdelay_rtt(ref_rtt, f, tau);
	}
	norm = pt_norm_power(p, pwr_rtt, ref_rtt,
			     pt_clamp(now_ns - pt_min(ref_t, now_ns), 1,
				      PT_TIME_MAX_NS), tau);

	/* Γ_smooth: EWMA over the horizon H, weight Δ/H (Γ < 2^25, H < 2^35). */
	delta = pt_min(dt, horizon);
	f->power = (u32)pt_clamp(div64_u64(f->power * (horizon - delta) +
					   norm * delta, horizon),
				 1, PT_POWER_MAX);

	f->rtt_prev_us = (u32)rtt_us;
	f->t_prev_ns = now_ns;

update:
	/* cwnd = γ (cwnd_old / Γ_smooth + β) + (1 - γ) cwnd */
	target_wnd = div64_u64(f->wnd_old << PT_POWER_SHIFT, f->power);
	target_wnd = pt_min(target_wnd + pt_beta(p, f->beta_wnd, f->power),
			    PT_WND_MAX);
	gamma = pt_gamma(p, f->wnd, tau, dt);
	wnd = (gamma * target_wnd + (PT_GAMMA_ONE - gamma) * f->wnd) >> 10;
out:
	/* τ, the line rate or the MSS may have moved the bounds. */
	f->wnd = pt_clamp(wnd, f->wnd_lo, f->wnd_hi);
}

/*
 * Advance the reference window: called once per RTT, and whenever
 * pt_reference_due() says so. Stamped with the last sample's time.
 */
static inline void pt_update_reference(struct pt_flow *f)
{
	f->wnd_old = f->wnd;
	f->ref_t_ns = f->t_prev_ns;
}

/*
 * PT_VAR_FAST_REF, and PT_VAR_DRAIN_REF under a power of PT_DRAIN_POWER or
 * more: a τ has passed since the last reference update.
 */
static inline int pt_reference_due(const struct pt_flow *f,
				   const struct pt_params *p)
{
	int fast = (p->variant & PT_VAR_FAST_REF) ||
		   ((p->variant & PT_VAR_DRAIN_REF) &&
		    f->power >= PT_DRAIN_POWER);

	return fast && f->t_prev_ns - f->ref_t_ns >= pt_tau_ns(p, f) &&
	       f->t_prev_ns > f->ref_t_ns;
}

/*
 * Competitive mode (PT_VAR_COMPETE).
 *
 * Next to a loss-based flow the queue is that flow's: it fills any buffer
 * whatever we do, and the law, which reads every queue as its own, backs
 * off to its floor (Vegas against Reno; docs/TESTBED.md has the shares
 * measured). What tells such a queue from one our own flows hold is that
 * it does not answer our backing off. Copa (NSDI '18) turns competitive
 * when its queue has not emptied for 5 RTTs; Nimbus (SIGCOMM '22), when it
 * finds the cross traffic elastic, and then competes as CUBIC. Here, at the
 * end of each round (the glue's once-per-RTT boundary, pt_compete()):
 *
 *   delay    the law. A round is standing when its forward RTT (below)
 *            is 2τ or more (a BDP of queue never left) while the window is at
 *            its floor (at most twice min rate plus β) and the queue is not
 *            draining (that sample is not 1/8 nearer τ than the previous
 *            round's). PT_CM_ENTER_ROUNDS standing rounds in a row start
 *            a test. An incast of our own flows drains round after
 *            round, and our flows at their operating point hold less than
 *            a BDP: Γ = 1/(1 - Nβ/BDP) < 2 while Nβ < BDP/2, 83 flows at
 *            θ's β. More flows than that hold a queue of their own, at
 *            their floors; the test tells it from a competitor's.
 *   test     PT_CM_TEST_ROUNDS rounds at min rate (the floor without β,
 *            0.4 of the floor at the defaults). A queue our own flows
 *            hold at their floors is theirs: every one of them sees the
 *            same standing queue from the same rounds on and tests with
 *            the others, their sending falls below the line rate, and
 *            the queue drains; a loss-based flow's does not answer. A
 *            test round whose forward RTT is under 2τ, or has lost a
 *            quarter of the queue above τ that the standing round before
 *            the test had, returns to delay, where the next test waits
 *            for twice the standing rounds the last one did (at most
 *            2^PT_CM_TEST_BACKOFF times PT_CM_ENTER_ROUNDS: a crowd of
 *            our own that stands on tests every 64 rounds, and gives up
 *            a test's rounds of link each time; the doubling is undone
 *            only by compete or a parameter write); the last test round
 *            whose queue has not answered enters compete.
 *   compete  CUBIC (RFC 9438) on the flow's own window: after a loss at a
 *            window of w_max packets, W(t) = C (t - K)^3 + w_max, K the
 *            time back to w_max from 0.7 w_max, C = 0.4 packets/s^3, and
 *            at least the Reno-friendly window (+0.53 packets a round);
 *            a loss takes the window to 0.7 of itself, with CUBIC's fast
 *            convergence, and the losses of that round and the next (the
 *            packets sent before the cut) are the same congestion event.
 *            Entering, the flow takes the pipe it sees (line rate x the
 *            RTT, srtt or the last sample if that is larger: what all
 *            flows have in flight, so that against one it holds half)
 *            and grows it 5% a round until its first loss, as
 *            Linux's CUBIC does before its first (tcp_cubic.c: at least a
 *            packet every 20 ACKs while last_max_cwnd is 0). It paces
 *            at 1.25 W/srtt (pt_sk_pacing_rate() of the rate window
 *            cwnd x τ/srtt), at most the line rate, so its window grows
 *            no further than twice the pipe (pt_cm_cap()). A round whose
 *            queue left (forward RTT below 1.25τ: under a quarter of
 *            a BDP, where a competitor that has cut its window after a
 *            loss still holds more) returns to delay, where the law
 *            regrows from the window it finds. After PT_CM_PROBE_ROUNDS
 *            rounds the flow probes, and each probe that leaves it in
 *            compete doubles the rounds to the next (at most
 *            2^PT_CM_PROBE_BACKOFF times): a probe hands the competitor
 *            an RTT of the link, and at one every 16 rounds BBR took 12%
 *            of a deep buffer's link from the flow (docs/EVOLUTION.md).
 *   probe    one round at the law's floor (min rate plus β), then compete
 *            again, on its cubic's clock: the round after the probe sees
 *            the samples of the packets sent in it, and if the queue left
 *            with the flow's backing off, it was the flow's own, and that
 *            round's end returns to delay.
 *
 * The forward RTT is the round's smallest sample less the least queue
 * its ACKs met on the way back (pt_cm_reverse(), from TCP timestamps;
 * none where the ACKs carry none). A queue on the reverse path is not one
 * the flow could take a share of by competing, and our own flows hold
 * one by design: where base RTTs differ, a flow whose base RTT is less
 * than τ waits (target τ - its base RTT) at its bottleneck, and that is
 * the reverse path of every flow into its sender (docs/EVOLUTION.md, the
 * web search). Linux's timestamps count milliseconds, so this sees only
 * reverse queues of 2 ms or more (a tick of each clock is not counted):
 * in a scaled testbed, not at a datacenter's µs RTTs, unless the path
 * has microsecond timestamps (6.7 and later, the route's tcp_usec_ts).
 * In compete the reverse queue stays the one read at the entry.
 *
 * The law runs on beneath every state (Γ_smooth, the reference window),
 * so that it resumes from what the samples say.
 */
#define PT_CM_DELAY		0
#define PT_CM_COMPETE		1
#define PT_CM_PROBE		2
#define PT_CM_TEST		3
#define PT_CM_ENTER_ROUNDS	4
#define PT_CM_TEST_ROUNDS	2
#define PT_CM_TEST_BACKOFF	4	/* at most 2^4 x the standing rounds */
#define PT_CM_PROBE_ROUNDS	16
#define PT_CM_PROBE_BACKOFF	3	/* at most 2^3 x the probe rounds */
#define PT_CM_TICK_SHIFT	20	/* the cubic's clock: 2^20 ns = 1.05 ms */
#define PT_CM_C_SHIFT		31	/* C: 2^-31 packets/tick^3 = 0.404/s^3 */
#define PT_CM_BETA		717	/* β_cubic, 1/1024: 0.7 */
#define PT_CM_EST_SHIFT		10	/* w_est: packets, Q10 */
#define PT_CM_ALPHA		542	/* 3(1 - β)/(1 + β) packets, Q10 */
#define PT_CM_DT_MAX		BIT_ULL(20)	/* |t - K| bound, ticks: 18 min */

/* The number of bits of @x (0 for 0): fls64(), with no loop, for BPF. */
static inline u32 pt_bits(u64 x)
{
	u32 n = 0;

	if (x >> 32) {
		n += 32;
		x >>= 32;
	}
	if (x >> 16) {
		n += 16;
		x >>= 16;
	}
	if (x >> 8) {
		n += 8;
		x >>= 8;
	}
	if (x >> 4) {
		n += 4;
		x >>= 4;
	}
	if (x >> 2) {
		n += 2;
		x >>= 2;
	}
	if (x >> 1) {
		n += 1;
		x >>= 1;
	}
	return n + (u32)x;
}

/*
 * floor(cbrt(@x)) for @x < 2^63. Newton's iteration from above, from a
 * power of two within twice the root: six steps take it to within one of
 * the floor (the unit tests check every result), the last test to it.
 */
static inline u64 pt_cbrt(u64 x)
{
	u64 y;

	if (!x)
		return 0;
	y = BIT_ULL((pt_bits(x) + 2) / 3);	/* y^2 <= 2^42 */
	y = (2 * y + div64_u64(x, y * y)) / 3;
	y = (2 * y + div64_u64(x, y * y)) / 3;
	y = (2 * y + div64_u64(x, y * y)) / 3;
	y = (2 * y + div64_u64(x, y * y)) / 3;
	y = (2 * y + div64_u64(x, y * y)) / 3;
	y = (2 * y + div64_u64(x, y * y)) / 3;
	if (y * y * y > x)
		y--;
	return y;
}

/* The cubic's window at @now_ns, packets: C (t - K)^3 + w_max. */
static inline u64 pt_cm_cubic(const struct pt_compete *c, u64 now_ns)
{
	s64 d = (s64)(u32)(now_ns >> PT_CM_TICK_SHIFT) - (s64)c->t_k;
	u64 off, delta;

	/* The clock is 32 bits of ticks (52 days): the nearer turn. */
	if (d >= (s64)BIT_ULL(31))
		d -= (s64)BIT_ULL(32);
	else if (d < -(s64)BIT_ULL(31))
		d += (s64)BIT_ULL(32);
	off = pt_min(d < 0 ? (u64)-d : (u64)d, PT_CM_DT_MAX);
	delta = (off * off * off) >> PT_CM_C_SHIFT;	/* < 2^29 */

	if (d < 0)
		return c->w_max > delta ? c->w_max - delta : 0;
	return c->w_max + delta;
}

/* The competitive window, packets: the cubic's or the Reno-friendly one. */
static inline u32 pt_cm_cwnd(const struct pt_flow *f)
{
	u64 w = pt_max(pt_cm_cubic(&f->cm, f->t_prev_ns),
		       f->cm.w_est >> PT_CM_EST_SHIFT);

	return (u32)pt_clamp(w, PT_CWND_MIN_DELACK, 0xffffffffULL);
}

/*
 * A new epoch of the cubic at @now_ns: the window was @w packets (a loss,
 * or the entry's estimate) and is 0.7 w from now. With @fast, a loss
 * below the last w_max gives way: w_max = 0.85 w (fast convergence).
 */
static inline void pt_cm_epoch(struct pt_compete *c, u64 w, u64 now_ns,
			       int fast)
{
	u64 after;

	w = pt_min(w, 0xffffffffULL);
	after = (w * PT_CM_BETA) >> 10;
	c->w_max = (u32)(fast && w < c->w_max ?
			 (w * (1024 + PT_CM_BETA)) >> 11 : w);
	/* K^3 C = w_max - after, C = 2^-31: (w_max - after) << 31 < 2^63 */
	c->t_k = (u32)((now_ns >> PT_CM_TICK_SHIFT) +
		       (c->w_max > after ?
			pt_cbrt((c->w_max - after) << PT_CM_C_SHIFT) : 0));
	c->w_est = (u32)pt_min(after << PT_CM_EST_SHIFT, 0xffffffffULL);
}

/*
 * The pipe: the line rate's window over the RTT now, whole packets. A
 * competitor in slow start grows the queue faster than srtt follows: the
 * last sample, where it is above srtt.
 */
static inline u64 pt_cm_pipe(const struct pt_flow *f,
			     const struct pt_params *p, u64 srtt_us, u32 mss)
{
	return pt_rate_to_wnd(p, PT_PPM,
			      pt_min(pt_max(srtt_us, f->rtt_prev_us),
				     PT_TIME_MAX_NS / 1000) * 1000,
			      mss) >> PT_WND_SHIFT;
}

/*
 * The competitive window grows no further than @cap packets: the flow
 * paces at most at the line rate, and a window that rate cannot fill in
 * an RTT is not used (Linux's CUBIC grows only a window that limited
 * the flow). A window that the round took above it stays where it was
 * before the round (@before, or @cap if larger), on a cubic restarted
 * there as before the first loss: it does not shrink when the RTT falls,
 * and grows again once the RTT has grown the cap past it.
 */
static inline void pt_cm_cap(struct pt_flow *f, u64 cap, u64 before)
{
	struct pt_compete *c = &f->cm;

	if (pt_cm_cwnd(f) <= cap)
		return;
	cap = pt_min(pt_max(cap, before), 0xffffffffULL >> PT_CM_EST_SHIFT);
	c->w_max = 0;
	c->t_k = (u32)(f->t_prev_ns >> PT_CM_TICK_SHIFT);
	c->w_est = (u32)(cap << PT_CM_EST_SHIFT);
}

/* Delay and test read the reverse path; compete's words hold the cubic. */
static inline int pt_cm_reads_reverse(const struct pt_compete *c)
{
	return c->state == PT_CM_DELAY || c->state == PT_CM_TEST;
}

/*
 * The reverse path's queue (see above), on every ACK that carries a TCP
 * timestamp, in delay and test: @reading is the local TS clock less the
 * peer's TSval the ACK carries, in TS units of @unit_us µs (1000: Linux's
 * millisecond clock; 1: microsecond timestamps). The two clocks' offset
 * is constant, so the least reading is the empty reverse path's (where
 * the path was empty at some time since the reading began: else the
 * queue reads as less than it is), and a reading above it is the ACK's
 * wait; its first unit is the two clocks' ticks, not a wait, and is not
 * counted. The reading begins again at each return to delay.
 */
static inline void pt_cm_reverse(struct pt_flow *f, const struct pt_params *p,
				 u32 reading, u32 unit_us)
{
	struct pt_compete *c = &f->cm;
	/* reading - rev_base, modulo 2^32, as a signed 32-bit count */
	u64 d = ((u64)reading + BIT_ULL(32) - c->rev_base) & 0xffffffffULL;
	s64 above = d < BIT_ULL(31) ? (s64)d : (s64)d - (s64)BIT_ULL(32);
	u64 us;

	if (!(p->variant & PT_VAR_COMPETE) || !pt_cm_reads_reverse(c))
		return;
	if (!c->rev_known || above < 0) {
		c->rev_base = reading;
		c->rev_known = 1;
		above = 0;
	}
	us = pt_min(above > 1 ? (u64)(above - 1) * unit_us : 0, 0xfffffffeULL);
	if (!c->rev_min_us || us < c->rev_min_us - 1)
		c->rev_min_us = (u32)us + 1;
}

/* Back to delay, where the reverse path is read afresh. */
static inline void pt_cm_delay(struct pt_compete *c)
{
	c->state = PT_CM_DELAY;
	c->rounds = 0;
	c->backoff = 0;
	c->rev_known = 0;
	c->rev_min_us = 0;
	c->prev_min_us = 0;
}

/*
 * The end of a round (see above): the state's transitions. @srtt_us and
 * @mss size the pipe.
 */
static inline void pt_cm_round(struct pt_flow *f, const struct pt_params *p,
			       u64 srtt_us, u32 mss)
{
	struct pt_compete *c = &f->cm;
	u64 tau = pt_tau_ns(p, f), pipe, before;
	u64 rmin = (u64)c->round_min_us * 1000;
	int own = pt_cm_reads_reverse(c);
	u64 rev_us, fwd, prev;
	int standing;

	if (!rmin)
		return;		/* no sample: the round told nothing */
	c->round_min_us = 0;
	/*
	 * The forward path's RTT: the least sample less the least reverse
	 * queue of the round (at most the reverse queue of that sample), in
	 * compete the one read at the entry.
	 */
	if (own) {
		rev_us = c->rev_min_us ? c->rev_min_us - 1 : 0;
		c->rev_min_us = 0;
	} else {
		rev_us = c->rev_us;
	}
	fwd = rmin - pt_min(rmin, rev_us * 1000);
	prev = pt_max((u64)c->prev_min_us * 1000, tau);
	standing = fwd >= 2 * tau;
	if (own)
		c->prev_min_us = (u32)pt_min(fwd / 1000, 0xffffffffULL);
	switch (c->state) {
	case PT_CM_COMPETE:
		if (c->cut)
			c->cut--;
		before = pt_cm_cwnd(f);
		/* Before the first loss, 5% a round (w_est < 2^32) */
		c->w_est = (u32)pt_min((u64)c->w_est + (c->w_max ? PT_CM_ALPHA :
							c->w_est / 20 + 1),
				       0xffffffffULL);
		pt_cm_cap(f, 2 * pt_cm_pipe(f, p, srtt_us, mss), before);
		/* The queue left: under a quarter of a BDP. */
		if (4 * fwd < 5 * tau) {
			pt_cm_delay(c);
		} else if (++c->rounds >= PT_CM_PROBE_ROUNDS << c->backoff) {
			/*
			 * Each probe that does not end compete doubles
			 * the wait for the next.
			 */
			if (c->backoff < PT_CM_PROBE_BACKOFF)
				c->backoff++;
			c->state = PT_CM_PROBE;
			c->rounds = 0;
		}
		return;
	case PT_CM_PROBE:
		/* compete's next round end judges the queue it left */
		c->state = PT_CM_COMPETE;
		c->rounds = 0;
		return;
	case PT_CM_TEST:
		/* The queue answered: our own flows backed off with us. */
		if (!standing ||
		    4 * (fwd - tau) <= 3 * ((u64)c->test_ref_us * 1000 - tau)) {
			c->state = PT_CM_DELAY;
			c->rounds = 0;
			if (c->backoff < PT_CM_TEST_BACKOFF)
				c->backoff++;
			return;
		}
		if (++c->rounds < PT_CM_TEST_ROUNDS)
			return;
		break;
	default:
		if (!standing) {
			c->rounds = 0;
			return;
		}
		/* At the floor, and the queue above τ is not 1/8 smaller. */
		if (f->wnd <= 2 * (f->wnd_lo + f->beta_wnd) &&
		    8 * (fwd - tau) > 7 * (prev - tau) && c->rounds < 255)
			c->rounds++;
		if (c->rounds < PT_CM_ENTER_ROUNDS << c->backoff)
			return;
		/* fwd >= 2τ: the test's reference is above τ */
		c->state = PT_CM_TEST;
		c->rounds = 0;
		c->test_ref_us = c->prev_min_us;
		return;
	}
	pipe = pt_cm_pipe(f, p, srtt_us, mss);
	c->state = PT_CM_COMPETE;
	c->rounds = 0;
	c->cut = 0;
	c->backoff = 0;
	c->rev_us = (u32)rev_us;
	c->w_max = 0;		/* no loss yet */
	c->t_k = (u32)(f->t_prev_ns >> PT_CM_TICK_SHIFT);
	c->w_est = (u32)pt_min(pt_max(pipe, PT_CWND_MIN_DELACK) << PT_CM_EST_SHIFT,
			       0xffffffffULL);
}

/*
 * PT_VAR_COMPETE, on every ACK after the law's sample: the end of a round
 * (@round), a loss (@lost: the ACK marked packets lost), and the rate
 * window of the state: in compete the competitive window's rate over
 * srtt (@srtt_us), W = cwnd τ/srtt; in probe the law's floor; in test
 * min rate.
 */
static inline void pt_compete(struct pt_flow *f, const struct pt_params *p,
			      int round, u64 srtt_us, u32 mss, int lost)
{
	struct pt_compete *c = &f->cm;
	u64 tau, srtt, w;

	if (round)
		pt_cm_round(f, p, srtt_us, mss);
	if (c->state == PT_CM_DELAY)
		return;
	if (c->state == PT_CM_TEST) {
		w = f->wnd_lo;
	} else if (c->state == PT_CM_PROBE) {
		w = f->wnd_lo + f->beta_wnd;
	} else {
		if (lost && !c->cut) {
			pt_cm_epoch(c, pt_cm_cwnd(f), f->t_prev_ns, 1);
			c->cut = 2;	/* this round and the next */
		}
		/*
		 * τ/srtt in Q20 (<= 1): cwnd (at most PT_WND_MAX, Q16) x
		 * it < 2^62
		 */
		tau = pt_tau_ns(p, f);
		srtt = pt_max(pt_min(srtt_us, PT_TIME_MAX_NS / 1000) * 1000,
			      tau);
		w = ((pt_min(pt_cm_cwnd(f), PT_WND_MAX >> PT_WND_SHIFT) <<
		      PT_WND_SHIFT) * div64_u64(tau << 20, srtt)) >> 20;
	}
	f->wnd = pt_clamp(w, f->wnd_lo, f->wnd_hi);
}

/* The competitive mode's state, for the trace: PT_CM_DELAY without it. */
static inline u32 pt_cm_state(const struct pt_flow *f,
			      const struct pt_params *p)
{
	return p->variant & PT_VAR_COMPETE ? f->cm.state : PT_CM_DELAY;
}

/*
 * Realizing the law's window W on a TCP socket (the module's mapping; the
 * law itself is above). W is a rate, W/τ, and a window: at that rate
 * W * RTT/τ is in flight.
 *
 *   snd_cwnd = ceil(W * min(max(srtt, τ), PT_CWND_RTT_MAX * τ)/τ),
 *              at least pt_cwnd_min(): 1 packet, 2 at a delaying receiver
 *   pacing   = PT_PACING_GAIN * W/τ, at most the line rate
 *
 * The window binds and sets the ACK clock; pacing only spreads each window
 * over 1/PT_PACING_GAIN of an RTT, and carries on its own the windows too
 * small to bind (below 1/PT_PACING_GAIN packet). Pacing alone at exactly
 * W/τ is not enough: with sub-packet windows (11 flows on a 10-packet
 * BDP) nothing clocks the flows, their rates dip together and the link
 * idles (docs/MODULE.md). max(srtt, τ): on a real host the RTT of an
 * empty path exceeds τ (host latency, the flow's own serialization), and
 * a snd_cwnd of W would throttle the rate the law chose.
 *
 * The bound PT_CWND_RTT_MAX (2: a BDP of queue): past it the window stops
 * growing with the RTT, and the flow is ACK-clocked at W * 2τ/srtt, below
 * the law's W/τ. Without it the mapping feeds back on itself: a queue
 * raises srtt, which raises snd_cwnd, which keeps the queue. When the
 * law's floors (β and min_rate per flow) sum above the link, as 1000
 * flows on one 100 Mbit/s link do, the law cannot take them lower, and
 * without the bound the queue would grow to the buffer and drops follow
 * (docs/RELIABILITY.md). The paper's window is W itself (a bound of 1).
 *
 * The floor is one packet (PT_CWND_MIN), so that flows whose windows are
 * below a packet (11 flows on a 10-packet BDP) do not hold a standing
 * queue of their floors. One packet exposes a flow to a receiver that
 * delays ACKs: with one segment out, the ACK waits for the delayed-ACK
 * timer (40 ms on Linux, more elsewhere), the law takes that for the RTT
 * and shrinks the window, which stays at one segment: on a path whose BDP
 * is under one packet the flow collapses (docs/MODULE.md, "The one-packet
 * floor and a receiver that delays ACKs"). A receiver ACKs at once on a
 * second full segment, so a flow that has seen its receiver delay
 * (pt_note_delack()) keeps a floor of PT_CWND_MIN_DELACK = 2 packets for
 * the rest of its life. The cost is that floor of 2 where every flow has
 * sub-packet windows: their floors then hold a standing queue.
 */
/*
 * (PT_CWND_MIN, PT_CWND_MIN_DELACK and PT_PACING_GAIN_* are at the top of
 * this file.)
 * A sample this far (µs) above the flow's minimum RTT, with one segment in
 * flight, is taken for the receiver's delayed-ACK timer: half of Linux's
 * shortest (TCP_DELACK_MIN, 40 ms), which others' exceed.
 */
#define PT_DELACK_US		20000
#define PT_CWND_RTT_MAX		2

/*
 * snd_cwnd in whole packets (see above), at least @min_pkts. The ratio
 * max(srtt, τ)/τ is Q10 and at most PT_CWND_RTT_MAX (2^11), so W * ratio
 * < 2^53.
 * With τ not known yet (automatic τ, no sample) the ratio is 1: snd_cwnd
 * is W, the kernel's initial window that pt_flow_init() took.
 */
static inline u32 pt_cwnd_pkts(const struct pt_flow *f,
			       const struct pt_params *p, u64 srtt_us,
			       u32 min_pkts)
{
	u64 tau = pt_tau_ns(p, f);
	u64 srtt = pt_min(srtt_us, PT_TIME_MAX_NS / 1000) * 1000;
	u64 ratio = 1 << 10;
	u64 pkts;

	if (pt_tau_known(p, f))
		ratio = pt_min(div64_u64(pt_max(srtt, tau) << 10, tau),
			       PT_CWND_RTT_MAX << 10);
	pkts = ((f->wnd * ratio >> 10) + PT_WND_ONE - 1) >> PT_WND_SHIFT;
	/* In compete the window is the cubic's, not bound to 2 W. */
	if (pt_cm_state(f, p) == PT_CM_COMPETE)
		pkts = pt_max(pt_cm_cwnd(f),
			      (f->wnd + PT_WND_ONE - 1) >> PT_WND_SHIFT);
	return (u32)pt_clamp(pkts, min_pkts, 0xffffffffULL);
}

/*
 * Note an RTT sample @rtt_us of an ACK that found @prior_in_flight packets
 * in flight: one segment alone whose sample is PT_DELACK_US over the
 * minimum RTT, when the flow's previous sample was not, was held by the
 * receiver's delayed-ACK timer. A receiver delays the ACK of a segment
 * alone and not those before it (a second full segment is ACKed at once),
 * so the first such sample follows prompt ones. A queue that long and
 * standing delays every sample, the previous one too: many flows at their
 * floors on one link hold one (an incast of 200 senders, docs/TESTBED.md),
 * and a floor of two packets each would be N more packets of it. A queue
 * that grows through PT_DELACK_US between two samples still passes for
 * the timer. Sticky: once the floor is two the receiver no longer delays,
 * and the evidence is gone.
 */
static inline void pt_note_delack(struct pt_flow *f, u64 rtt_us,
				  u32 prior_in_flight)
{
	u64 late = (u64)f->min_rtt_us + PT_DELACK_US;

	if (prior_in_flight <= 1 && f->min_rtt_us && rtt_us >= late &&
	    f->rtt_prev_us < late)
		f->cwnd_min = PT_CWND_MIN_DELACK;
}

/* The flow's snd_cwnd floor, in packets (see PT_CWND_MIN above). */
static inline u32 pt_cwnd_min(const struct pt_flow *f)
{
	return f->cwnd_min;
}

/*
 * snd_cwnd during fast recovery: packet conservation. Each ACK lets out no
 * more than it says left the network (@in_flight + @acked, the packets it
 * newly delivered), and the window shrinks by the packets it newly marked
 * lost (@cwnd_now - @losses); the larger of the two, as tcp_bbr's first
 * round of recovery, within [PT_CWND_MIN, @cwnd], the law's (above). This
 * is RFC 5681's principle, which the kernel's PRR applies to algorithms
 * without cong_control; ours replaces PRR. Without it a flow that loses
 * packets in a shallow buffer keeps the law's whole window in flight,
 * the buffer stays full, and a competing flow's retransmission is lost
 * again and again. The law's window applies whole again when recovery
 * ends, about one RTT later.
 */
static inline u32 pt_recovery_cwnd(u32 cwnd, u32 cwnd_now, u32 losses,
				   u32 in_flight, u32 acked)
{
	u64 keep = cwnd_now > losses ? cwnd_now - losses : 0;
	u64 conserve = (u64)in_flight + acked;

	return (u32)pt_min(pt_max(pt_max(keep, conserve), PT_CWND_MIN), cwnd);
}

/*
 * The law's rate in bytes/s: W / τ, capped at the line rate.
 * bytes = wnd * mss < 2^58 (Q16). Below 2^34 (a window under 256 KB),
 * bytes * 10^9 < 2^64 and one division gives the rate. Above, it is
 * computed as q * 10^9 + r * 10^9 / τ with q, r = divmod(bytes, τ): τ <=
 * 2^34 keeps r * 10^9 < 2^64, and q >= 2^34 means a rate far above any
 * line rate. Both are floor(bytes * 10^9 / τ), exactly.
 * With τ not known yet the window has no rate: the line rate (snd_cwnd,
 * the initial window, limits the flight until the first sample).
 */
static inline u64 pt_pacing_rate(const struct pt_flow *f,
				 const struct pt_params *p, u32 mss)
{
	u64 bytes_q = f->wnd * mss;
	u64 tau = pt_tau_ns(p, f);
	u64 line = (u64)p->line_rate_mbps * 125000;
	u64 q, r, rate_q;

	if (!pt_tau_known(p, f))
		return line;
	if (bytes_q < BIT_ULL(34)) {
		rate_q = div64_u64(bytes_q * 1000000000, tau);
	} else {
		q = div64_u64(bytes_q, tau);
		if (q >= BIT_ULL(34))
			return line;
		r = bytes_q - q * tau;
		rate_q = q * 1000000000 + div64_u64(r * 1000000000, tau);
	}
	return pt_min(rate_q >> PT_WND_SHIFT, line);
}

/* sk_pacing_rate, bytes/s: the law's rate times the pacing gain, capped. */
static inline u64 pt_sk_pacing_rate(const struct pt_flow *f,
				    const struct pt_params *p, u32 mss)
{
	u64 rate = pt_pacing_rate(f, p, mss);	/* < 2^46 */

	return pt_min(div64_u64(rate * PT_PACING_GAIN_NUM, PT_PACING_GAIN_DEN),
		      (u64)p->line_rate_mbps * 125000);
}

/*
 * The most segments one skb may carry (sk_gso_max_segs): @permille of the
 * window @cwnd, at least one, at most @route_max, the route's own; with
 * @permille 0, the route's. TCP stamps an skb once and its segments leave
 * back to back, so the skb's k-th segment comes back (k - 1) segment times
 * late: with TSO a sample can carry up to k / BDP of τ that is no queue of
 * the path's, and the law answers it as queue (tcp_tso_autosize() sizes an
 * skb to about 1 ms of the pacing rate, capped at 64 KB, and at a few
 * hundred µs of min RTT and below, 64 KB whatever the rate). A window is at
 * most the path's BDP plus the target's queue, so k <= @permille of it
 * bounds that lateness to about @permille of τ at any rate. The share is
 * rounded down: at the default 16 permille, windows of up to 124 packets
 * get one segment per skb, and 125 packets get two.
 */
static inline u32 pt_gso_segs(u32 cwnd, u32 permille, u32 route_max)
{
	if (!permille)
		return route_max;
	return (u32)pt_clamp(div64_u64((u64)cwnd * permille, PT_PERMILLE), 1,
			     route_max);
}

#endif /* _POWERTCP_CORE_H */
