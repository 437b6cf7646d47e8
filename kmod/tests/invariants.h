/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What must hold for a flow after any sequence of inputs; shared by the
 * unit tests and the fuzzer. Returns NULL, or what was violated.
 */
#ifndef _POWERTCP_INVARIANTS_H
#define _POWERTCP_INVARIANTS_H

static inline const char *pt_check_invariants(const struct pt_flow *f,
					      const struct pt_params *p,
					      u32 mss, u64 srtt_us)
{
	u64 tau = pt_tau_ns(p, f);

	/* Automatic τ before the first RTT sample: the kernel's window. */
	if (!p->base_rtt_us && !f->min_rtt_us)
		return f->wnd ? 0 : "zero window";
	if (f->wnd < pt_wnd_lo(p, tau, mss))
		return "window below the minimum rate";
	if (f->wnd > pt_wnd_hi(p, tau, mss))
		return "window above the line rate";
	if (f->power < 1 || f->power > PT_POWER_MAX)
		return "power out of range";
	if (pt_pacing_rate(f, p, mss) > (u64)p->line_rate_mbps * 125000)
		return "pacing rate above the line rate";
	if (pt_cwnd_pkts(f, p, srtt_us, 2) < 2)
		return "cwnd below 2 packets";
	if ((u64)pt_cwnd_pkts(f, p, srtt_us, 2) << PT_WND_SHIFT < f->wnd &&
	    f->wnd <= 0xffffffffULL << PT_WND_SHIFT)
		return "cwnd below the law's window";
	return 0;
}

/*
 * A variant mask the law can run, from any number: PT_VAR_COMPETE,
 * PT_VAR_GRAD_BASELINE and PT_VAR_SAMPLE_MIN share their state, and a
 * mask of more than one (which the parameter checks refuse) keeps the
 * highest of them.
 */
static inline u32 pt_any_variant(u64 r)
{
	u32 v = (u32)(r % (PT_VAR_ALL + 1));

	if (!pt_variant_valid(v))
		v &= ~(u32)PT_VAR_GRAD_BASELINE;
	if (!pt_variant_valid(v))
		v &= ~(u32)PT_VAR_COMPETE;
	return v;
}

#endif
