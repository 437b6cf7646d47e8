/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API differences between the kernels we build against, in one place.
 *
 *  - 6.10 added @ack and @flag to tcp_congestion_ops.cong_control
 *    (commit 57bfc7605ca5, "tcp: add ack and flag to cong_control").
 *  - 5.19 added tcp_snd_cwnd()/tcp_snd_cwnd_set() accessors.
 *  - 6.7 added microsecond TCP timestamps (tcp_sock.tcp_usec_ts) and
 *    renamed tcp_time_stamp() tcp_time_stamp_ms().
 */
#ifndef _POWERTCP_COMPAT_H
#define _POWERTCP_COMPAT_H

#include <net/tcp.h>

/*
 * Features are probed from the kernel's own headers by kmod/Kbuild rather
 * than guessed from the version number, so distribution backports work:
 * POWERTCP_HAVE_SND_CWND_SET, POWERTCP_HAVE_CONG_CONTROL_ACK and
 * POWERTCP_HAVE_USEC_TS.
 */
#ifndef POWERTCP_HAVE_SND_CWND_SET
static inline u32 tcp_snd_cwnd(const struct tcp_sock *tp)
{
	return tp->snd_cwnd;
}

static inline void tcp_snd_cwnd_set(struct tcp_sock *tp, u32 val)
{
	tp->snd_cwnd = val;
}
#endif

/*
 * The local TCP timestamp clock in the unit of the peer's TSval, and that
 * unit in µs (POWERTCP_HAVE_USEC_TS).
 */
#ifdef POWERTCP_HAVE_USEC_TS
static inline u32 powertcp_ts_now(const struct tcp_sock *tp)
{
	return tcp_time_stamp_ts(tp);
}

static inline u32 powertcp_ts_unit_us(const struct tcp_sock *tp)
{
	return tp->tcp_usec_ts ? 1 : USEC_PER_MSEC;
}
#else
static inline u32 powertcp_ts_now(const struct tcp_sock *tp)
{
	return tcp_time_stamp(tp);
}

static inline u32 powertcp_ts_unit_us(const struct tcp_sock *tp)
{
	return USEC_PER_MSEC;
}
#endif

/*
 * POWERTCP_CONG_CONTROL(name, fn) defines @name, a cong_control callback
 * with the signature of the kernel being built, that calls
 * fn(sk, rate_sample).
 */
#ifdef POWERTCP_HAVE_CONG_CONTROL_ACK
#define POWERTCP_CONG_CONTROL(name, fn)					\
static void name(struct sock *sk, u32 ack, int flag,			\
		 const struct rate_sample *rs)				\
{									\
	fn(sk, rs);							\
}
#else
#define POWERTCP_CONG_CONTROL(name, fn)					\
static void name(struct sock *sk, const struct rate_sample *rs)		\
{									\
	fn(sk, rs);							\
}
#endif

#endif /* _POWERTCP_COMPAT_H */
