/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control law without the core's per-flow cache (ref_* for pt_*):
 * every ACK derives τ's window bounds and β again (β's fade,
 * PT_VAR_BETA_FADE, through the core's pt_beta()). The unit tests run it
 * beside the cached law and require the two to agree bit for bit,
 * parameter writes and MSS changes included. Include after
 * ../powertcp_core.h.
 */
#ifndef _POWERTCP_REF_LAW_H
#define _POWERTCP_REF_LAW_H

/* Per-flow state; must fit in the kernel's icsk_ca_priv (104 bytes). */
struct ref_flow {
	u64 t_prev_ns;		/* time of the previous RTT sample */
	u64 rtt_prev_ns;	/* previous RTT sample, ns (< 2^34; 0: none) */
	u64 wnd;		/* current window, packets Q16 */
	u64 wnd_old;		/* reference window (one RTT ago), Q16 */
	u64 grad_rtt_ns;	/* gradient reference sample (below), */
	u64 grad_t_ns;		/* at least H/4 old once set (0: none) */
	u64 mid_rtt_ns;		/* and the next one, at most H/4 old */
	u64 mid_t_ns;
	u64 qref_t_ns;		/* the others' reference (0: none) */
	u64 qref_rtt_ns;
	u32 smin_us[PT_SMIN_SAMPLES];	/* PT_VAR_SAMPLE_MIN: a ring of */
					/* samples, µs above min_rtt_us */
					/* plus 1 (0: none), */
	u32 smin_n;			/* and how many were taken */
	u64 ref_t_ns;		/* time of the last reference update */
	u32 power;		/* Γ_smooth, Q16 */
	u32 min_rtt_us;		/* smallest RTT seen, µs (0 = none yet) */
};

static inline int ref_tau_known(const struct pt_params *p,
				const struct ref_flow *f)
{
	return p->base_rtt_us || f->min_rtt_us;
}

/* τ in ns for this flow: the configured base RTT, or the flow's min RTT. */
static inline u64 ref_tau_ns(const struct pt_params *p, const struct ref_flow *f)
{
	u64 us = p->base_rtt_us ? p->base_rtt_us :
		 (u64)f->min_rtt_us + pt_rtt_res_us(p);

	return pt_clamp(us * 1000, 1000, PT_TIME_MAX_NS);
}

/* A parameter write: the variants' state starts again (pt_variant_reset()). */
static inline void ref_variant_reset(struct ref_flow *f)
{
	f->grad_rtt_ns = 0;
	f->grad_t_ns = 0;
	f->mid_rtt_ns = 0;
	f->mid_t_ns = 0;
	f->qref_t_ns = 0;
	f->qref_rtt_ns = 0;
	memset(f->smin_us, 0, sizeof(f->smin_us));
	f->smin_n = 0;
}

/* PT_VAR_SAMPLE_MIN: the least of @rtt_us and the last samples before it. */
static inline u64 ref_sample_min(struct ref_flow *f, u64 rtt_us)
{
	u64 m = rtt_us;
	u32 i;

	for (i = 0; i < PT_SMIN_SAMPLES; i++) {
		u64 kept = f->min_rtt_us + f->smin_us[i] - 1ULL;

		if (i != f->smin_n % PT_SMIN_SAMPLES && f->smin_us[i] &&
		    kept < m)
			m = kept;
	}
	f->smin_us[f->smin_n++ % PT_SMIN_SAMPLES] =
		(u32)pt_min(rtt_us - f->min_rtt_us + 1, 0xffff);
	return m;
}

/*
 * Start a flow at init_rate of the line rate. With an automatic τ and no
 * RTT sample yet, @fallback_pkts (the kernel's initial window) is used.
 */
static inline void ref_flow_init(struct ref_flow *f, const struct pt_params *p,
				 u32 fallback_pkts, u32 mss, u64 now_ns)
{
	u64 tau;

	f->t_prev_ns = now_ns;
	f->rtt_prev_ns = 0;
	ref_variant_reset(f);
	f->ref_t_ns = now_ns;
	f->power = PT_POWER_ONE;
	f->min_rtt_us = 0;
	if (p->base_rtt_us) {
		tau = ref_tau_ns(p, f);
		f->wnd = pt_clamp(pt_rate_to_wnd(p, p->init_rate_ppm, tau, mss),
				  pt_wnd_lo(p, tau, mss),
				  pt_wnd_hi(p, tau, mss));
	} else {
		f->wnd = pt_clamp((u64)fallback_pkts << PT_WND_SHIFT,
				  PT_WND_ONE, PT_WND_MAX);
	}
	f->wnd_old = f->wnd;
}

/*
 * PT_VAR_GRAD_BASELINE: the sample to differentiate against. Keeps two
 * references, moved every @span (H/4): the older one is then between
 * @span and 2 @span old. Until it exists, the previous sample serves.
 */
static inline void ref_grad_ref(struct ref_flow *f, u64 span, u64 rtt_ns,
				u64 now_ns, u64 *ref_rtt, u64 *ref_t)
{
	if (!f->mid_t_ns || now_ns < f->mid_t_ns ||
	    now_ns - f->mid_t_ns >= span) {
		f->grad_rtt_ns = f->mid_rtt_ns;
		f->grad_t_ns = f->mid_t_ns;
		f->mid_rtt_ns = rtt_ns;
		f->mid_t_ns = now_ns;
	}
	if (f->grad_t_ns && now_ns > f->grad_t_ns) {
		*ref_rtt = f->grad_rtt_ns;
		*ref_t = f->grad_t_ns;
	}
}

/*
 * The other variants' (the paper's law's): the previous sample where it
 * is a span of PT_RTT_REF_QUANTA resolutions old, else a reference kept
 * a span behind the samples, moved on the line to each (pt_quantum_ref()).
 */
static inline void ref_quantum_ref(struct ref_flow *f,
				   const struct pt_params *p, u64 rtt_ns,
				   u64 now_ns, u64 *ref_rtt, u64 *ref_t)
{
	u64 span = PT_RTT_REF_QUANTA * pt_rtt_res_us(p) * 1000;
	u64 age, w, d;

	if (now_ns < *ref_t || now_ns - *ref_t >= span)
		return;
	if (!f->qref_t_ns || now_ns < f->qref_t_ns ||
	    now_ns - f->qref_t_ns >= 2 * span) {
		f->qref_t_ns = *ref_t;
		f->qref_rtt_ns = *ref_rtt;
		return;
	}
	*ref_t = f->qref_t_ns;
	*ref_rtt = f->qref_rtt_ns;
	age = now_ns - f->qref_t_ns;
	if (age <= span)
		return;
	w = ((age - span) << 16) / age;
	d = rtt_ns > f->qref_rtt_ns ? rtt_ns - f->qref_rtt_ns :
	    f->qref_rtt_ns - rtt_ns;
	if (rtt_ns > f->qref_rtt_ns)
		f->qref_rtt_ns += d * w >> 16;
	else
		f->qref_rtt_ns -= d * w >> 16;
	f->qref_t_ns = now_ns - span;
}

/* PT_VAR_QDELAY: τ plus the queueing delay in @rtt_ns (all < 2^35). */
static inline u64 ref_qdelay_rtt(u64 rtt_ns, const struct ref_flow *f, u64 tau)
{
	u64 base = (u64)f->min_rtt_us * 1000;

	return pt_min(tau + pt_max(rtt_ns, base) - base, PT_TIME_MAX_NS);
}

/*
 * Process one RTT sample @rtt_us taken at @now_ns; updates Γ_smooth and the
 * window. @mss is the flow's current segment size. Returns nothing: read
 * f->wnd / pt_pacing_rate() afterwards.
 */
static inline void ref_on_rtt(struct ref_flow *f, const struct pt_params *p,
			      u64 rtt_us, u64 now_ns, u32 mss)
{
	u64 rtt_ns, rtt_prev = f->rtt_prev_ns;
	u64 dt, tau, horizon, delta, norm, target_wnd, beta, wnd, gamma;
	u64 ref_rtt, ref_t, pwr_rtt;

	rtt_us = pt_clamp(rtt_us, 1, PT_TIME_MAX_NS / 1000);
	if (!f->min_rtt_us || rtt_us < f->min_rtt_us)
		f->min_rtt_us = (u32)rtt_us;
	tau = ref_tau_ns(p, f);
	if (p->variant & PT_VAR_SAMPLE_MIN)
		rtt_us = ref_sample_min(f, rtt_us);
	rtt_ns = rtt_us * 1000;

	/*
	 * First sample: nothing to differentiate against yet; with
	 * PT_VAR_FIRST_POWER, above the target, its RTT's power alone (a
	 * gradient of 0) is Γ_smooth, and the window takes a whole γ step.
	 */
	if (!rtt_prev) {
		f->rtt_prev_ns = rtt_ns;
		f->t_prev_ns = now_ns;
		wnd = f->wnd;
		if (!(p->variant & PT_VAR_FIRST_POWER))
			goto out;
		norm = pt_norm_power(p, rtt_ns, rtt_ns, 1, tau);
		if (norm <= PT_POWER_ONE)
			goto out;
		f->power = (u32)norm;
		target_wnd = div64_u64(f->wnd_old << PT_POWER_SHIFT, f->power);
		beta = pt_beta(p, pt_beta_wnd(p, tau, mss), f->power);
		target_wnd = pt_min(target_wnd + beta, PT_WND_MAX);
		wnd = (p->gamma * target_wnd +
		       (PT_GAMMA_ONE - p->gamma) * f->wnd) >> 10;
		goto out;
	}

	dt = now_ns > f->t_prev_ns ? now_ns - f->t_prev_ns : 1;
	dt = pt_min(dt, PT_TIME_MAX_NS);
	horizon = pt_max(div64_u64(tau * p->smooth_pct, 100), 1);

	/* The gradient's baseline and the RTT that power is computed from. */
	ref_rtt = rtt_prev;
	ref_t = f->t_prev_ns;
	if (p->variant & PT_VAR_GRAD_BASELINE)
		ref_grad_ref(f, horizon / 4, rtt_ns, now_ns, &ref_rtt, &ref_t);
	else if (!(p->variant & PT_VAR_COMPETE))
		ref_quantum_ref(f, p, rtt_ns, now_ns, &ref_rtt, &ref_t);
	pwr_rtt = rtt_ns;
	if (p->variant & PT_VAR_QDELAY) {
		pwr_rtt = ref_qdelay_rtt(rtt_ns, f, tau);
		ref_rtt = ref_qdelay_rtt(ref_rtt, f, tau);
	}
	norm = pt_norm_power(p, pwr_rtt, ref_rtt,
			     pt_clamp(now_ns - pt_min(ref_t, now_ns), 1,
				      PT_TIME_MAX_NS), tau);

	/* Γ_smooth: EWMA over the horizon H, weight Δ/H (Γ < 2^25, H < 2^35). */
	delta = pt_min(dt, horizon);
	f->power = (u32)pt_clamp(div64_u64(f->power * (horizon - delta) +
					   norm * delta, horizon),
				 1, PT_POWER_MAX);

	f->rtt_prev_ns = rtt_ns;
	f->t_prev_ns = now_ns;

	/* cwnd = γ (cwnd_old / Γ_smooth + β) + (1 - γ) cwnd */
	target_wnd = div64_u64(f->wnd_old << PT_POWER_SHIFT, f->power);
	beta = pt_beta(p, pt_beta_wnd(p, tau, mss), f->power);
	target_wnd = pt_min(target_wnd + beta, PT_WND_MAX);
	gamma = pt_gamma(p, f->wnd, tau, dt);
	wnd = (gamma * target_wnd + (PT_GAMMA_ONE - gamma) * f->wnd) >> 10;
out:
	/* τ, the line rate or the MSS may have moved the bounds. */
	f->wnd = pt_clamp(wnd, pt_wnd_lo(p, tau, mss), pt_wnd_hi(p, tau, mss));
}

/*
 * Advance the reference window: called once per RTT, and whenever
 * ref_reference_due() says so. Stamped with the last sample's time.
 */
static inline void ref_update_reference(struct ref_flow *f)
{
	f->wnd_old = f->wnd;
	f->ref_t_ns = f->t_prev_ns;
}

/*
 * PT_VAR_FAST_REF, and PT_VAR_DRAIN_REF while Γ_smooth >= PT_DRAIN_POWER: a
 * τ has passed since the last reference update.
 */
static inline int ref_reference_due(const struct ref_flow *f,
				    const struct pt_params *p)
{
	int fast = (p->variant & PT_VAR_FAST_REF) ||
		   ((p->variant & PT_VAR_DRAIN_REF) &&
		    f->power >= PT_DRAIN_POWER);

	return fast && f->t_prev_ns - f->ref_t_ns >= ref_tau_ns(p, f) &&
	       f->t_prev_ns > f->ref_t_ns;
}

#endif
