/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the BPF struct_ops build (kmod/bpf/, the .bpf.c files) and its loader
 * (userspace-tools/powertcp-bpf.c) share: the maps' names and value
 * layouts, and where the loader pins them. Included after vmlinux.h in BPF
 * and after <linux/types.h> in userspace.
 *
 * Maps of each algorithm, pinned under PT_BPF_PIN_ROOT/<name>/:
 *   ops      the struct_ops map (tcp_congestion_ops) that registers it
 *   link     its struct_ops link, on kernels that have them (6.4+)
 *   params   ARRAY[1] of struct pt_params (powertcp_core.h): the tunables
 *   ctl      ARRAY[1] of struct pt_bpf_ctl, mmapable: the loader changes
 *            one field at a time with an atomic operation on the mapping
 *   events   RINGBUF of struct pt_bpf_event, one per ACK while tracing
 */
#ifndef _POWERTCP_BPF_H
#define _POWERTCP_BPF_H

#define PT_BPF_PIN_ROOT		"/sys/fs/bpf/powertcp"
#define PT_BPF_EVENTS_BYTES	(1024 * 1024)

struct pt_bpf_ctl {
	__u32 trace;		/* nonzero: emit events (a reader is there) */
	__u32 gen;		/* the parameters' generation: the loader
				 * adds 1 after every write of params
				 */
	__u64 lost;		/* events dropped: ring buffer full */
};

/* One control-law step: the fields of the modules' powertcp_step event. */
struct pt_bpf_event {
	__u64 now_ns;		/* TCP clock (tcp_clock_cache), ns */
	__u64 rate;		/* sk_pacing_rate set, bytes/s */
	__s64 rtt_us;		/* the ACK's RTT sample; < 0: none */
	__u32 daddr;		/* network order */
	__u32 power;		/* smoothed power, Q16 */
	__u32 cwnd;		/* snd_cwnd set, packets */
	__u16 sport;
	__u16 dport;
	__u32 mode;		/* the competitive mode's state, PT_CM_* */
};

#endif /* _POWERTCP_BPF_H */
