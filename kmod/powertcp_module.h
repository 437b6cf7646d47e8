/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel glue shared by tcp_theta_powertcp and tcp_powertcp_evo: module
 * parameters, tcp_congestion_ops callbacks, registration. Each module's .c
 * defines POWERTCP_NAME and POWERTCP_ALG (its column of defaults in
 * powertcp_params.h), then includes this.
 *
 * The control law itself is in powertcp_core.h. Here we only feed it the
 * kernel's per-ACK RTT sample (rate_sample.rtt_us) and nanosecond TCP clock
 * (tcp_clock_cache), advance the reference window once per RTT, apply the
 * result to snd_cwnd and sk_pacing_rate, and bound the skbs TSO builds to a
 * share of the window (sk_gso_max_segs) whenever the window changes.
 * Nothing here sleeps: init runs in softirq context when a passive
 * connection is established.
 *
 * Parameters are writable at run time under
 * /sys/module/tcp_<name>/parameters/. A write out of range fails with -EINVAL
 * and leaves the old value in force. A change applies to every connection
 * using the algorithm from its next ACK; init_rate_ppm affects connections
 * that start afterwards. Each write bumps powertcp_gen, the parameters'
 * generation: a flow derives its per-flow constants (powertcp_core.h,
 * pt_derive()) again when it sees a new one, not on every ACK.
 */
#ifndef _POWERTCP_MODULE_H
#define _POWERTCP_MODULE_H

#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <net/tcp.h>

#include "powertcp_compat.h"
#include "powertcp_core.h"
#include "powertcp_linkspeed.h"
#include "powertcp_params.h"

/* A u32 parameter: its value and inclusive valid range. */
struct powertcp_param {
	u32 val;
	u32 min;
	u32 max;
};

/*
 * The parameters' generation: bumped after every write, so that a flow
 * that reads a new generation then reads the new value. Writers are
 * serialized by the module's kernel_param_lock (sysfs) or run alone
 * (module load).
 */
static u32 powertcp_gen;

/* Declared with the others below: a mask, which pt_variant_valid() checks. */
static struct powertcp_param powertcp_param_variant;

static int powertcp_param_set(const char *buf, const struct kernel_param *kp)
{
	struct powertcp_param *p = kp->arg;
	u32 v;

	if (kstrtou32(buf, 0, &v) || v < p->min || v > p->max ||
	    (p == &powertcp_param_variant && !pt_variant_valid(v)))
		return -EINVAL;
	WRITE_ONCE(p->val, v);
	smp_wmb();	/* the value before the generation: see powertcp_gen */
	WRITE_ONCE(powertcp_gen, powertcp_gen + 1);
	return 0;
}

static int powertcp_param_get(char *buf, const struct kernel_param *kp)
{
	const struct powertcp_param *p = kp->arg;

	return scnprintf(buf, PAGE_SIZE, "%u\n", READ_ONCE(p->val));
}

static const struct kernel_param_ops powertcp_param_ops = {
	.set = powertcp_param_set,
	.get = powertcp_param_get,
};

/* Declares powertcp_param_<name>, with a modinfo description that states
 * the unit (in @desc), the default and the valid range.
 */
#define POWERTCP_PARAM(name, def, lo, hi, desc)				\
	static struct powertcp_param powertcp_param_##name = {		\
		def, lo, hi };						\
	module_param_cb(name, &powertcp_param_ops,			\
			&powertcp_param_##name, 0644);			\
	__MODULE_INFO(parm, powertcp_desc_##name, #name ":" desc	\
		      " (default " __stringify(def) ", range "		\
		      __stringify(lo) ".." __stringify(hi) ")")

/* One per row of powertcp_params.h, with this algorithm's defaults. */
#define POWERTCP_PARAM_ROW POWERTCP_PARAM
#define POWERTCP_MODULE_PARAM_ROW POWERTCP_PARAM
#include "powertcp_params.h"

/* Read-only: the devices whose speed line_rate_auto uses. */
module_param_cb(link_speeds, &pt_ls_list_ops, NULL, 0444);
MODULE_PARM_DESC(link_speeds, "devices whose link speed line_rate_auto uses, one a line: NAME ifindex N netns INODE MBIT/S (read-only)");

/*
 * Per-connection state, in icsk_ca_priv; flow.ref_seq is snd_nxt when the
 * reference window last moved. It fills icsk_ca_priv: line_rate_auto
 * keeps nothing per flow (powertcp_line_rate()).
 */
struct powertcp_sock {
	struct pt_flow flow;
};

/*
 * The parameters, and their generation read before them (powertcp_gen).
 * init_rate_ppm only at init (@init), as only pt_flow_init() reads it;
 * the variant mask only where @variants, else variant 0, a constant, and
 * the test instrument rtt_quantum_us only where @instrument, else off
 * (see powertcp_cong_control()). Inlined, as powertcp_apply(): both run
 * on every ACK.
 */
static __always_inline u32 powertcp_read_params(struct pt_params *p, bool init,
						bool variants, bool instrument)
{
	u32 gen = READ_ONCE(powertcp_gen);

	smp_rmb();	/* pairs with powertcp_param_set()'s smp_wmb() */
	p->gamma = READ_ONCE(powertcp_param_gamma.val);
	p->beta_ppm = READ_ONCE(powertcp_param_beta_ppm.val);
	p->target_permille = READ_ONCE(powertcp_param_target_permille.val);
	p->grad_floor_permille =
		READ_ONCE(powertcp_param_grad_floor_permille.val);
	p->power_floor_permille =
		READ_ONCE(powertcp_param_power_floor_permille.val);
	p->min_rate_ppm = READ_ONCE(powertcp_param_min_rate_ppm.val);
	p->init_rate_ppm = init ? READ_ONCE(powertcp_param_init_rate_ppm.val) :
			   0;
	p->smooth_pct = READ_ONCE(powertcp_param_smooth_pct.val);
	p->base_rtt_us = READ_ONCE(powertcp_param_base_rtt_us.val);
	p->line_rate_mbps = READ_ONCE(powertcp_param_line_rate_mbps.val);
	p->variant = variants ? READ_ONCE(powertcp_param_variant.val) : 0;
	/* The samples' resolution: the test instrument's quantum (0: 1 µs) */
	p->rtt_res_us = instrument ?
			READ_ONCE(powertcp_param_rtt_quantum_us.val) : 0;
	return gen;
}

/*
 * line_rate_auto: the flow's line rate is its egress device's speed,
 * looked up on every ACK (an RCU hash lookup, none while no device reports
 * a speed), so it follows a speed change or a route moving to another
 * device from the next ACK; line_rate_mbps where the speed is unknown
 * (powertcp_linkspeed.h). Nothing is kept per flow: the core keys the
 * flow's derived values on the line rate it is given, as on the MSS, and
 * derives them again when it changes (pt_derived_current()). Returns
 * whether the rate is the device's. Inlined, as powertcp_apply().
 */
static __always_inline bool powertcp_line_rate(struct sock *sk,
					       struct pt_params *p)
{
	u32 mbps;

	if (!READ_ONCE(powertcp_param_line_rate_auto.val))
		return false;
	mbps = pt_ls_sk_mbps(sk);
	if (!mbps)
		return false;
	p->line_rate_mbps = min(mbps, powertcp_param_line_rate_mbps.max);
	return true;
}

/*
 * Push the flow's window and rate into the socket. @rs is the ACK's rate
 * sample (NULL at init), read only in fast recovery (@recovery), and
 * @rtt_us the RTT the law took from it (-1: none), for the trace. Returns
 * whether snd_cwnd changed.
 */
static __always_inline bool powertcp_apply(struct sock *sk,
					   struct powertcp_sock *ca,
					   const struct pt_params *p,
					   const struct rate_sample *rs,
					   bool recovery, long rtt_us,
					   bool line_auto)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 mss = max_t(u32, tp->mss_cache, 1);
	u32 cwnd = min(pt_cwnd_pkts(&ca->flow, p, tp->srtt_us >> 3,
				    pt_cwnd_min(&ca->flow)),
		       tp->snd_cwnd_clamp);
	u64 rate = pt_sk_pacing_rate(&ca->flow, p, mss);
	bool changed;

	/* Fast recovery conserves packets (pt_recovery_cwnd()). */
	if (recovery)
		cwnd = pt_recovery_cwnd(cwnd, tcp_snd_cwnd(tp),
					max(rs->losses, 0),
					tcp_packets_in_flight(tp),
					rs->acked_sacked);
	changed = cwnd != tcp_snd_cwnd(tp);
	tcp_snd_cwnd_set(tp, cwnd);
	rate = min_t(u64, rate, READ_ONCE(sk->sk_max_pacing_rate));
	WRITE_ONCE(sk->sk_pacing_rate, rate);
	trace_powertcp_step(sk, tp->tcp_clock_cache, rtt_us, ca->flow.power,
			    cwnd, rate, p->line_rate_mbps, line_auto,
			    pt_cm_state(&ca->flow, p));
	return changed;
}

/*
 * The most segments the socket's route takes in one skb: what
 * sk_setup_caps() puts in sk_gso_max_segs. 0 without GSO (the value is
 * then unused) or without a route.
 */
static noinline u32 powertcp_route_gso_segs(struct sock *sk)
{
	const struct dst_entry *dst;
	u32 segs = 0;

	if (!sk_can_gso(sk))
		return 0;
	rcu_read_lock();
	dst = rcu_dereference(sk->sk_dst_cache);
	if (dst && dst->dev)
		segs = max_t(u32, READ_ONCE(dst->dev->gso_max_segs), 1);
	rcu_read_unlock();
	return segs;
}

/*
 * Bound the socket's skbs to @permille of its window (pt_gso_segs()); 0
 * gives it back the route's bound. The route is looked up only to raise
 * the bound, and nothing is written while it holds. Leaves in
 * flow.skb_segs the bound now in force (powertcp_skbs_sized()). Inlined,
 * as powertcp_apply().
 */
static __always_inline void powertcp_size_skbs(struct sock *sk,
					       struct powertcp_sock *ca,
					       u32 permille)
{
	u32 now = READ_ONCE(sk->sk_gso_max_segs);
	u32 segs = pt_gso_segs(tcp_snd_cwnd(tcp_sk(sk)), permille, U16_MAX);

	if (segs > now)
		segs = min(segs, powertcp_route_gso_segs(sk));
	if (segs && segs != now)
		WRITE_ONCE(sk->sk_gso_max_segs, segs);
	else
		segs = now;
	/* A bound above U8_MAX is not kept: it is sized on every ACK. */
	ca->flow.skb_segs = segs <= U8_MAX ? segs : 0;
}

/*
 * Does the skb bound still hold on an ACK that kept the window? It does
 * while sk_gso_max_segs is the bound the flow last left (a new route
 * rewrites it: sk_setup_caps()) and no parameter changed (pt_derive()
 * clears flow.skb_segs, and so does a loss that hands the window to the
 * kernel: powertcp_set_state()).
 */
static __always_inline bool powertcp_skbs_sized(const struct sock *sk,
						const struct powertcp_sock *ca)
{
	return READ_ONCE(sk->sk_gso_max_segs) == ca->flow.skb_segs;
}

static void powertcp_init(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct powertcp_sock *ca = inet_csk_ca(sk);
	struct pt_params p;
	u32 gen = powertcp_read_params(&p, true, PT_PARAM_DEF(MAX_VARIANT),
				       true);
	bool line_auto = powertcp_line_rate(sk, &p);

	pt_flow_init(&ca->flow, &p, gen, tcp_snd_cwnd(tp),
		     max_t(u32, tp->mss_cache, 1), tp->tcp_clock_cache);
	ca->flow.ref_seq = tp->snd_nxt;
	tp->snd_ssthresh = TCP_INFINITE_SSTHRESH;
	/* Ask for pacing, as tcp_bbr does: fq if present, else TCP's own. */
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
	powertcp_apply(sk, ca, &p, NULL, false, -1, line_auto);
	powertcp_size_skbs(sk, ca, READ_ONCE(powertcp_param_tso_permille.val));
}

/* Another algorithm, or none, takes over: the route's skbs again. */
static void powertcp_release(struct sock *sk)
{
	powertcp_size_skbs(sk, inet_csk_ca(sk), 0);
}

/*
 * A retransmission timeout: tcp_enter_loss() sets snd_cwnd itself, so the
 * next ACK cannot tell from the window whether the bound is still its.
 */
static void powertcp_set_state(struct sock *sk, u8 new_state)
{
	if (new_state == TCP_CA_Loss) {
		struct powertcp_sock *ca = inet_csk_ca(sk);

		ca->flow.skb_segs = 0;
	}
}

/*
 * One ACK, under the law's variant mask where @variants, else under
 * variant 0, the paper's law, and with the test instrument where
 * @instrument, else without: constants, with which the compiler drops
 * every variant's test and the instrument's. Inlined twice
 * (powertcp_cong_control()).
 */
static __always_inline void powertcp_ack(struct sock *sk,
					 const struct rate_sample *rs,
					 bool variants, bool instrument)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct powertcp_sock *ca = inet_csk_ca(sk);
	/*
	 * powertcp_read_params() writes every field before any is read;
	 * without __uninitialized, CONFIG_INIT_STACK_ALL_ZERO (Debian's
	 * kernels) would zero it first on every ACK.
	 */
	struct pt_params p __uninitialized;
	bool line_auto, new_cwnd, round;
	long rtt_us;
	u32 gen, quantum;

	gen = powertcp_read_params(&p, false, variants, instrument);
	line_auto = powertcp_line_rate(sk, &p);
	/*
	 * An ACK without a µs RTT sample (pt_rtt_usable()) keeps the last
	 * power and window.
	 */
	rtt_us = pt_rtt_usable(rs->rtt_us, rs->is_retrans, rs->delivered) ?
		 rs->rtt_us : -1;
	quantum = p.rtt_res_us;
	if (unlikely(quantum) && rtt_us > 0) {
		/* The test instrument; within one quantum there is no sample. */
		rtt_us = pt_quantize_rtt(rtt_us, tp->tcp_clock_cache, quantum);
		if (!rtt_us)
			rtt_us = -1;
	}
	if (rtt_us > 0) {
		pt_note_delack(&ca->flow, rtt_us, rs->prior_in_flight);
		pt_on_rtt(&ca->flow, &p, gen, rtt_us, tp->tcp_clock_cache,
			  max_t(u32, tp->mss_cache, 1));
	}

	/*
	 * Once per RTT (a round): all data sent at the last update is now
	 * acked. The competitive mode's round ends there; the reference
	 * moves then, or sooner where the law's variant asks for it.
	 */
	round = !before(tp->snd_una, ca->flow.ref_seq);
	if (variants && (p.variant & PT_VAR_COMPETE)) {
		if (tp->rx_opt.saw_tstamp)
			pt_cm_reverse(&ca->flow, &p, powertcp_ts_now(tp) -
				      tp->rx_opt.rcv_tsval,
				      powertcp_ts_unit_us(tp));
		pt_compete(&ca->flow, &p, round, tp->srtt_us >> 3,
			   max_t(u32, tp->mss_cache, 1), rs->losses > 0);
	}
	if (round || pt_reference_due(&ca->flow, &p)) {
		pt_update_reference(&ca->flow);
		ca->flow.ref_seq = tp->snd_nxt;
	}
	new_cwnd = powertcp_apply(sk, ca, &p, rs,
				  inet_csk(sk)->icsk_ca_state == TCP_CA_Recovery,
				  rtt_us, line_auto);
	/* The skb bound follows the window (powertcp_size_skbs()). */
	if (new_cwnd || !powertcp_skbs_sized(sk, ca))
		powertcp_size_skbs(sk, ca,
				   READ_ONCE(powertcp_param_tso_permille.val));
}

/*
 * The ACK path of the variants (PowerTCP-evo's; θ-PowerTCP has only
 * variant 0) and of the test instrument rtt_quantum_us: out of line.
 */
static noinline void powertcp_ack_variants(struct sock *sk,
					   const struct rate_sample *rs)
{
	powertcp_ack(sk, rs, PT_PARAM_DEF(MAX_VARIANT) != 0, true);
}

/*
 * The paper's law, variant 0 without the instrument, has an ACK path of
 * its own, inlined here and compiled with both constants: the variants'
 * tests and the instrument's cost it nothing while neither is set.
 */
static void powertcp_cong_control(struct sock *sk,
				  const struct rate_sample *rs)
{
	const struct powertcp_sock *ca = inet_csk_ca(sk);

	/* The SYN-ACK is acked before init runs on an active open. */
	if (unlikely(!ca->flow.wnd))
		return;
	if (unlikely(READ_ONCE(powertcp_param_rtt_quantum_us.val) |
		     (PT_PARAM_DEF(MAX_VARIANT) ?
		      READ_ONCE(powertcp_param_variant.val) : 0))) {
		powertcp_ack_variants(sk, rs);
		return;
	}
	powertcp_ack(sk, rs, false, false);
}

POWERTCP_CONG_CONTROL(powertcp_cong_control_hook, powertcp_cong_control)

/*
 * No slow start and no multiplicative decrease on loss by the kernel (the
 * competitive mode, PT_VAR_COMPETE, cuts its own window in cong_control).
 */
static u32 powertcp_ssthresh(struct sock *sk)
{
	return TCP_INFINITE_SSTHRESH;
}

static u32 powertcp_undo_cwnd(struct sock *sk)
{
	return tcp_snd_cwnd(tcp_sk(sk));
}

static struct tcp_congestion_ops powertcp_ops __read_mostly = {
	.name		= POWERTCP_NAME,
	.owner		= THIS_MODULE,
	.init		= powertcp_init,
	.cong_control	= powertcp_cong_control_hook,
	.ssthresh	= powertcp_ssthresh,
	.undo_cwnd	= powertcp_undo_cwnd,
	.set_state	= powertcp_set_state,
	.release	= powertcp_release,
};

static int __init powertcp_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct powertcp_sock) > ICSK_CA_PRIV_SIZE);
	/* pt_variant_reset() clears the union through its other half. */
	BUILD_BUG_ON(sizeof(struct pt_compete) != 24);
	BUILD_BUG_ON(PT_EVO_MAX_VARIANT != PT_VAR_ALL);
	err = tcp_register_congestion_control(&powertcp_ops);
	if (!err)
		pt_ls_init();
	return err;
}

static void __exit powertcp_unregister(void)
{
	tcp_unregister_congestion_control(&powertcp_ops);
	pt_ls_exit();
}

module_init(powertcp_register);
module_exit(powertcp_unregister);

MODULE_AUTHOR("PowerTCP for Linux developers");
MODULE_LICENSE("GPL");
MODULE_ALIAS("tcp-" POWERTCP_NAME);

#endif /* _POWERTCP_MODULE_H */
