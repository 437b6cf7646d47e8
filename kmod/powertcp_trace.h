/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One tracepoint per control-law step. Each module gets its own trace
 * system, named after the algorithm:
 *
 *   /sys/kernel/tracing/events/theta_powertcp/powertcp_step
 *   /sys/kernel/tracing/events/powertcp_evo/powertcp_step
 *
 * e.g. bpftrace -e 'tracepoint:theta_powertcp:powertcp_step { ... }'
 */
#undef TRACE_SYSTEM
#ifdef POWERTCP_EVO
#define TRACE_SYSTEM powertcp_evo
#else
#define TRACE_SYSTEM theta_powertcp
#endif

#if !defined(_POWERTCP_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _POWERTCP_TRACE_H

#include <linux/tracepoint.h>
#include <net/sock.h>

TRACE_EVENT(powertcp_step,
	    TP_PROTO(const struct sock *sk, u64 now_ns, long rtt_us,
		     u32 power, u32 cwnd, u64 rate, u32 line_mbps,
		     bool line_auto, u32 mode),
	    TP_ARGS(sk, now_ns, rtt_us, power, cwnd, rate, line_mbps,
		    line_auto, mode),
	    TP_STRUCT__entry(__field(u64, now_ns)
			     __field(u32, daddr)	/* network order */
			     __field(u16, sport)
			     __field(u16, dport)
			     __field(long, rtt_us)
			     __field(u32, power)
			     __field(u32, cwnd)
			     __field(u64, rate)
			     __field(u32, line_mbps)
			     __field(bool, line_auto)
			     __field(u8, mode)),
	    TP_fast_assign(__entry->now_ns = now_ns;
			   __entry->daddr = (__force u32)sk->sk_daddr;
			   __entry->sport = sk->sk_num;
			   __entry->dport = ntohs(sk->sk_dport);
			   __entry->rtt_us = rtt_us;
			   __entry->power = power;
			   __entry->cwnd = cwnd;
			   __entry->rate = rate;
			   __entry->line_mbps = line_mbps;
			   __entry->line_auto = line_auto;
			   __entry->mode = mode;),
	    TP_printk("t=%llu sport=%u daddr=%pI4 dport=%u rtt_us=%ld power_q16=%u cwnd=%u rate_Bps=%llu line_mbps=%u line_from=%s mode=%s",
		      __entry->now_ns, __entry->sport, &__entry->daddr,
		      __entry->dport, __entry->rtt_us, __entry->power,
		      __entry->cwnd, __entry->rate, __entry->line_mbps,
		      __entry->line_auto ? "device" : "param",
		      __print_symbolic(__entry->mode, { 0, "delay" },
				       { 1, "compete" }, { 2, "probe" },
				       { 3, "test" }))
);

#endif /* _POWERTCP_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE powertcp_trace
#include <trace/define_trace.h>
