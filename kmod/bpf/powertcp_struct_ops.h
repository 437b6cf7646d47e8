/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF struct_ops glue shared by theta_powertcp.bpf.c and powertcp_evo.bpf.c:
 * the BPF build of kmod/powertcp_module.h, for kernels that cannot load
 * modules. Each .bpf.c defines POWERTCP_NAME, then includes this.
 *
 * The control law is kmod/powertcp_core.h, compiled here unchanged; this
 * file only does what powertcp_module.h does: feed it the kernel's per-ACK
 * RTT sample and nanosecond TCP clock, advance the reference window once
 * per RTT (or when pt_reference_due()), write snd_cwnd and sk_pacing_rate.
 * The per-flow state is in icsk_ca_priv, as in the module. The tunables
 * are a map the loader writes (powertcp_bpf.h), checked against
 * kmod/powertcp_params.h, the ranges the modules use; after each write
 * the loader bumps ctl.gen, the generation that tells flows to derive
 * their per-flow constants again (the module's powertcp_gen).
 *
 * Kernel interface (all through CO-RE, so one object runs on 6.1 .. 6.18):
 *  - struct_ops programs may write snd_cwnd, snd_ssthresh, sk_pacing_rate
 *    and sk_pacing_status of the socket directly (bpf_tcp_ca.c's write
 *    rules; sk_pacing_* since 6.0), and icsk_ca_priv. tcp_snd_cwnd_set()
 *    is a kernel inline, not callable: we store the field.
 *  - 6.10 added (ack, flag) to cong_control before the rate sample. The
 *    loader reads the kernel's prototype from its BTF and sets
 *    pt_cong_control_ack; the verifier then sees only the branch that
 *    matches (a read-only value is a known constant to it).
 *  - there is no cmpxchg on kernel memory in BPF: init runs under the
 *    socket lock, so sk_pacing_status is tested and set plainly.
 */
#ifndef _POWERTCP_STRUCT_OPS_H
#define _POWERTCP_STRUCT_OPS_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_endian.h>

#include "../powertcp_core.h"
#include "powertcp_bpf.h"

char _license[] SEC("license") = "GPL";

#define PT_INFINITE_SSTHRESH	0x7fffffff	/* TCP_INFINITE_SSTHRESH */

/* Set by the loader before load: cong_control has (sk, ack, flag, rs). */
const volatile bool pt_cong_control_ack;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pt_params);
} params SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pt_bpf_ctl);
	__uint(map_flags, BPF_F_MMAPABLE);	/* the loader's atomics */
} ctl SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PT_BPF_EVENTS_BYTES);
} events SEC(".maps");

/* The kernel's tcp_sk(), inet_csk() and inet_csk_ca(), for BPF. */
static __always_inline struct tcp_sock *pt_tcp_sk(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct inet_connection_sock *pt_inet_csk(struct sock *sk)
{
	return (struct inet_connection_sock *)sk;
}

static __always_inline void *pt_inet_csk_ca(struct sock *sk)
{
	return (void *)pt_inet_csk(sk)->icsk_ca_priv;
}

static __always_inline bool pt_before(__u32 seq1, __u32 seq2)
{
	return (__s32)(seq1 - seq2) < 0;
}

/* Per-connection state, in icsk_ca_priv: the module's struct. */
struct powertcp_sock {
	struct pt_flow flow;
};

_Static_assert(sizeof(struct powertcp_sock) <=
	       sizeof(((struct inet_connection_sock *)0)->icsk_ca_priv),
	       "per-flow state must fit in icsk_ca_priv");

/*
 * One copy of the tunables per callback, like the module's READ_ONCE()s,
 * and their generation (ctl.gen, which the loader bumps after it writes
 * them; read first, like the module's powertcp_gen).
 */
static __always_inline bool pt_read_params(struct pt_params *p, __u32 *gen)
{
	__u32 zero = 0;
	struct pt_bpf_ctl *c = bpf_map_lookup_elem(&ctl, &zero);
	struct pt_params *v;

	if (!c)
		return false;
	*gen = c->gen;
	v = bpf_map_lookup_elem(&params, &zero);
	if (!v)
		return false;
	*p = *v;
	p->rtt_res_us = 0;	/* 1 µs: no rtt_quantum_us here */
	return true;
}

/* The powertcp_step event, while a reader has asked for them. */
static __always_inline void pt_trace(struct sock *sk, __u64 now_ns,
				     long rtt_us, __u32 power, __u32 cwnd,
				     __u64 rate, __u32 mode)
{
	__u32 zero = 0;
	struct pt_bpf_ctl *c = bpf_map_lookup_elem(&ctl, &zero);
	struct pt_bpf_event *e;

	if (!c || !c->trace)
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		__sync_fetch_and_add(&c->lost, 1);
		return;
	}
	e->now_ns = now_ns;
	e->rate = rate;
	e->rtt_us = rtt_us;
	e->daddr = sk->__sk_common.skc_daddr;
	e->power = power;
	e->cwnd = cwnd;
	e->sport = sk->__sk_common.skc_num;
	e->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	e->mode = mode;
	bpf_ringbuf_submit(e, 0);
}

/*
 * Push the flow's window and rate into the socket. @rs is the ACK's rate
 * sample (NULL at init), read only in fast recovery (@recovery), and
 * @rtt_us the RTT the law took from it (-1: none), for the trace.
 */
static __always_inline void pt_apply(struct sock *sk, struct powertcp_sock *ca,
				     const struct pt_params *p,
				     const struct rate_sample *rs,
				     bool recovery, long rtt_us)
{
	struct tcp_sock *tp = pt_tcp_sk(sk);
	__u32 mss = tp->mss_cache ? tp->mss_cache : 1;
	__u32 cwnd = pt_cwnd_pkts(&ca->flow, p, tp->srtt_us >> 3,
				  pt_cwnd_min(&ca->flow));
	__u64 rate = pt_sk_pacing_rate(&ca->flow, p, mss);

	if (cwnd > tp->snd_cwnd_clamp)
		cwnd = tp->snd_cwnd_clamp;
	/*
	 * Fast recovery conserves packets (pt_recovery_cwnd()). In flight
	 * as tcp_packets_in_flight(), a kernel inline.
	 */
	if (recovery)
		cwnd = pt_recovery_cwnd(cwnd, tp->snd_cwnd,
					rs->losses > 0 ? rs->losses : 0,
					tp->packets_out - tp->sacked_out -
					tp->lost_out + tp->retrans_out,
					rs->acked_sacked);
	tp->snd_cwnd = cwnd;
	if (rate > sk->sk_max_pacing_rate)
		rate = sk->sk_max_pacing_rate;
	sk->sk_pacing_rate = rate;
	pt_trace(sk, tp->tcp_clock_cache, rtt_us, ca->flow.power, cwnd, rate,
		 pt_cm_state(&ca->flow, p));
}

SEC("struct_ops/powertcp_init")
void BPF_PROG(powertcp_init, struct sock *sk)
{
	struct tcp_sock *tp = pt_tcp_sk(sk);
	struct powertcp_sock *ca = pt_inet_csk_ca(sk);
	struct pt_params p;
	__u32 gen;

	if (!pt_read_params(&p, &gen))
		return;
	pt_flow_init(&ca->flow, &p, gen, tp->snd_cwnd,
		     tp->mss_cache ? tp->mss_cache : 1, tp->tcp_clock_cache);
	ca->flow.ref_seq = tp->snd_nxt;
	tp->snd_ssthresh = PT_INFINITE_SSTHRESH;
	/* Ask for pacing, as tcp_bbr does: fq if present, else TCP's own. */
	if (sk->sk_pacing_status == SK_PACING_NONE)
		sk->sk_pacing_status = SK_PACING_NEEDED;
	pt_apply(sk, ca, &p, NULL, false, -1);
}

/*
 * The rate sample: the last argument of cong_control, the 2nd before 6.10
 * and the 4th since. The verifier knows pt_cong_control_ack (read-only
 * data) and never walks the branch for the other prototype, whose load
 * it would refuse. The loads are asm, so that the compiler cannot merge
 * them into one load at a computed offset (the verifier refuses those).
 */
static __always_inline const struct rate_sample *
pt_rate_sample(unsigned long long *ctx)
{
	const struct rate_sample *rs;

	if (pt_cong_control_ack)
		asm volatile("%0 = *(u64 *)(%1 + 24)" : "=r"(rs) : "r"(ctx));
	else
		asm volatile("%0 = *(u64 *)(%1 + 8)" : "=r"(rs) : "r"(ctx));
	return rs;
}

SEC("struct_ops/powertcp_cong_control")
void powertcp_cong_control(unsigned long long *ctx)
{
	struct sock *sk = (struct sock *)ctx[0];
	const struct rate_sample *rs = pt_rate_sample(ctx);
	struct tcp_sock *tp = pt_tcp_sk(sk);
	struct powertcp_sock *ca = pt_inet_csk_ca(sk);
	struct pt_params p;
	long rtt_us;
	bool round;
	__u32 gen;

	/* The SYN-ACK is acked before init runs on an active open. */
	if (!ca->flow.wnd || !pt_read_params(&p, &gen))
		return;
	/*
	 * An ACK without a µs RTT sample (pt_rtt_usable()) keeps the last
	 * power and window.
	 */
	rtt_us = pt_rtt_usable(rs->rtt_us, rs->is_retrans, rs->delivered) ?
		 rs->rtt_us : -1;
	if (rtt_us > 0) {
		pt_note_delack(&ca->flow, rtt_us, rs->prior_in_flight);
		pt_on_rtt(&ca->flow, &p, gen, rtt_us, tp->tcp_clock_cache,
			  tp->mss_cache ? tp->mss_cache : 1);
	}

	/*
	 * Once per RTT (a round): all data sent at the last update is now
	 * acked. The competitive mode's round ends there; the reference
	 * moves then, or sooner where the law's variant asks for it.
	 */
	round = !pt_before(tp->snd_una, ca->flow.ref_seq);
	if (p.variant & PT_VAR_COMPETE) {
		/*
		 * The millisecond clock of tcp_time_stamp(): on a path with
		 * microsecond timestamps (6.7+) the readings fall as fast as
		 * time goes, and the reverse queue reads as none.
		 */
		if (tp->rx_opt.saw_tstamp)
			pt_cm_reverse(&ca->flow, &p,
				      (__u32)(tp->tcp_mstamp / 1000) -
				      tp->rx_opt.rcv_tsval, 1000);
		pt_compete(&ca->flow, &p, round, tp->srtt_us >> 3,
			   tp->mss_cache ? tp->mss_cache : 1, rs->losses > 0);
	}
	if (round || pt_reference_due(&ca->flow, &p)) {
		pt_update_reference(&ca->flow);
		ca->flow.ref_seq = tp->snd_nxt;
	}
	pt_apply(sk, ca, &p, rs,
		 tp->inet_conn.icsk_ca_state == TCP_CA_Recovery, rtt_us);
}

/* No slow start and no multiplicative decrease on loss. */
SEC("struct_ops/powertcp_ssthresh")
__u32 BPF_PROG(powertcp_ssthresh, struct sock *sk)
{
	return PT_INFINITE_SSTHRESH;
}

SEC("struct_ops/powertcp_undo_cwnd")
__u32 BPF_PROG(powertcp_undo_cwnd, struct sock *sk)
{
	return pt_tcp_sk(sk)->snd_cwnd;
}

/* The struct_ops map is named after the algorithm, as it registers. */
#define __POWERTCP_OPS(var)						\
	SEC(".struct_ops")						\
	struct tcp_congestion_ops var = {				\
		.init		= (void *)powertcp_init,		\
		.cong_control	= (void *)powertcp_cong_control,	\
		.ssthresh	= (void *)powertcp_ssthresh,		\
		.undo_cwnd	= (void *)powertcp_undo_cwnd,		\
		.name		= POWERTCP_NAME,			\
	}
#define POWERTCP_OPS(var)	__POWERTCP_OPS(var)

#endif /* _POWERTCP_STRUCT_OPS_H */
