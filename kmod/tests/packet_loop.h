/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A packet-level model of the law for the unit tests: @nflows long flows
 * through one FIFO that serves the line rate, each flow run as the
 * modules' glue runs it (powertcp_module.h): per ACK pt_note_delack() and
 * pt_on_rtt(), the reference moved once a round (snd_una past snd_nxt at
 * the last move) or when pt_reference_due(), snd_cwnd from pt_cwnd_pkts()
 * and sk_pacing_rate from pt_sk_pacing_rate(). What the fluid model
 * (closed_loop.h) leaves out and this one keeps: whole packets, a window
 * that binds, and TCP's pacing as tcp_update_skb_after_send() does it, a
 * packet's departure time set when the one before it left, at the rate of
 * that moment (less up to half a gap of credit after an idle spell, and
 * only from the 10th segment on). The receiver ACKs every segment at
 * once; no loss (the FIFO has no bound). The RTT samples are whole µs, as
 * the kernel's rate_sample.rtt_us: at the paper's 25 Gbit/s and 4.64 µs
 * a path samples 4 or 5, a fifth of the RTT; in a testbed scaled to
 * 100 Mbit/s a µs is a thousandth.
 *
 * The hosts (struct pl_host). With a moderation slot_ns their NICs
 * moderate their receive interrupts as the testbed's --host-stack
 * emulates them (a netem slot): what reaches a NIC within slot_ns of the
 * first packet after a quiet spell is taken in at once, the receiver's
 * for all flows and each sender's for its own ACKs, and GRO merges a
 * flow's segments of one batch into one skb, ACKed with the RTT sample
 * of its newest segment, as the kernel takes rate_sample.rtt_us. With
 * delack the receiver delays its ACKs as Linux does
 * (__tcp_ack_snd_check()): an skb that leaves more than one segment
 * unacknowledged is ACKed at once, a lone segment waits for the next skb
 * or the delayed-ACK timer (40 ms, TCP_DELACK_MIN). With jitter_ns each
 * packet reaches the receiver's NIC late by up to that much (uniform,
 * from a fixed generator seeded by seed): real hosts' timing is not
 * lockstep, and a model without it phase-locks flows to the batches.
 *
 * The flows start together (flow i at i serialization times) at
 * pt_flow_init()'s initial rate, the kernel's initial window of 10. Time
 * runs in steps of a tenth of a serialization time or 1 µs, the shorter.
 * Include after ../powertcp_core.h.
 */
#ifndef _POWERTCP_PACKET_LOOP_H
#define _POWERTCP_PACKET_LOOP_H

#define PL_MAX_FLOWS	64
#define PL_RING		256	/* packets in flight a flow may have */
#define PL_WIRE		1514	/* bytes on the wire of an MSS segment */

struct pl_flow {
	struct pt_flow f;
	u64 sent_ns[PL_RING];	/* per segment in flight: sent, */
	u64 acked_ns[PL_RING];	/* and its ACK back at the sender */
	u8 sample[PL_RING];	/* its ACK carries the RTT sample */
	u64 batch_ns;		/* the receiver's batch of the last segment */
	u32 batch_k;		/* and its ring slot */
	u32 ack_from;		/* the first segment of the open ACK */
	u64 pend_timer_ns;	/* delack: a lone segment's timer (0: none) */
	u64 ack_slot_ns;	/* the end of the sender's NIC batch */
	u64 wstamp_ns;		/* tcp_wstamp_ns: next departure */
	u64 srtt_us;
	u64 rate;		/* sk_pacing_rate, bytes/s */
	u64 bytes;		/* bytes delivered in the measured span */
	u32 snd_nxt, snd_una;	/* in segments */
	u32 cwnd;
};

struct pl_host {
	u64 slot_ns;		/* NICs' moderation (0: none) */
	u32 jitter_ns;		/* arrival jitter at the receiver's NIC */
	u32 seed;		/* of the jitter's generator */
	u8 delack;		/* Linux's delayed ACKs */
};

#define PL_DELACK_NS	40000000ULL	/* TCP_DELACK_MIN */

struct pl_result {
	double util;		/* the link's busy share over the span */
	double queue_pkts;	/* average packets at the bottleneck */
	double jain;		/* over the flows' delivered bytes */
	int overflow;		/* a flow passed PL_RING in flight */
};

/*
 * The ACK of the oldest segment in flight, at @now (ns), as
 * powertcp_ack() takes it. Its RTT sample is the difference of two µs
 * clocks, as tcp_stamp_us_delta() takes it.
 */
static inline void pl_ack(struct pl_flow *x, const struct pt_params *p,
			  u32 mss, u32 quantum_us, u64 now)
{
	u32 k = x->snd_una % PL_RING;
	u64 rtt_us = x->sample[k] ? now / 1000 - x->sent_ns[k] / 1000 : 0;
	u32 prior = x->snd_nxt - x->snd_una;

	x->snd_una++;
	if (rtt_us)
		x->srtt_us = x->srtt_us ? (7 * x->srtt_us + rtt_us) / 8 :
			     rtt_us;
	/* The instrument, as the glue applies it: to the law's sample only */
	rtt_us = pt_quantize_rtt(rtt_us, now, quantum_us);
	if (rtt_us) {
		pt_note_delack(&x->f, rtt_us, prior);
		pt_on_rtt(&x->f, p, 0, rtt_us, now, mss);
	}
	if (x->snd_una >= x->f.ref_seq ||	/* no wrap here */
	    pt_reference_due(&x->f, p)) {
		pt_update_reference(&x->f);
		x->f.ref_seq = x->snd_nxt;
	}
	x->cwnd = pt_cwnd_pkts(&x->f, p, x->srtt_us, pt_cwnd_min(&x->f));
	x->rate = pt_sk_pacing_rate(&x->f, p, mss);
}

/*
 * A NIC's moderation: a packet at @t is taken in at the end of the batch
 * it joins, or opens one that ends @slot later.
 */
static inline u64 pl_nic(u64 *batch_end, u64 t, u64 slot)
{
	if (!slot)
		return t;
	if (t > *batch_end)
		*batch_end = t + slot;
	return *batch_end;
}

/*
 * Segments @from to @k (ring slots of consecutive segments) are ACKed by
 * one ACK the receiver sends at @rx, which carries the sample of @k.
 */
static inline void pl_ack_at(struct pl_flow *x, u32 from, u32 k, u64 rx,
			     u64 prop, u64 slot)
{
	u64 at = pl_nic(&x->ack_slot_ns, rx + prop, slot);
	u32 j;

	for (j = from; j != k; j = (j + 1) % PL_RING) {
		x->acked_ns[j] = at;
		x->sample[j] = 0;
	}
	x->acked_ns[k] = at;
	x->sample[k] = 1;
}

/*
 * Segment @k (ring slot) of @x leaves the bottleneck at @t and reaches the
 * receiver's NIC at @t + @jitter: when its ACK (or the one that covers
 * it) reaches the sender, and whether it carries the sample. Segments
 * reach the receiver in order, so an skb's last segment is known when it
 * arrives: a later one of the same batch joins the ACK that the earlier
 * ones were given.
 */
static inline void pl_deliver(struct pl_flow *x, u32 k, u64 t, u64 jitter,
			      u64 prop, const struct pl_host *h, u64 *rx_batch)
{
	u64 rx = pl_nic(rx_batch, t + jitter, h->slot_ns);
	int joins = h->slot_ns && x->batch_ns == rx &&
		    x->snd_nxt > x->snd_una;
	int pending = x->pend_timer_ns && rx < x->pend_timer_ns;

	if (!joins && !pending)
		x->ack_from = k;
	if (h->delack && !joins && !pending) {
		/* A lone segment: the timer's ACK, unless another comes (the
		 * sender's NIC batching left out: the timer seldom fires).
		 */
		x->pend_timer_ns = rx + PL_DELACK_NS;
		pl_ack_at(x, k, k, x->pend_timer_ns, prop, 0);
	} else {
		x->pend_timer_ns = 0;
		pl_ack_at(x, x->ack_from, k, rx, prop, h->slot_ns);
	}
	x->batch_ns = rx;
	x->batch_k = k;
}

/* The departure after one at @now: tcp_update_skb_after_send(). */
static inline void pl_paced(struct pl_flow *x, u64 now)
{
	u64 prior = x->wstamp_ns, gap, credit;

	if (now > x->wstamp_ns)
		x->wstamp_ns = now;
	if (x->snd_nxt < 10 || !x->rate)
		return;
	gap = (u64)PL_WIRE * 1000000000ULL / x->rate;
	credit = x->wstamp_ns - prior;
	x->wstamp_ns += gap - pt_min(gap / 2, credit);
}

/*
 * Run @nflows (<= PL_MAX_FLOWS) flows for @taus base RTTs of a path whose
 * base RTT (propagation and one packet's serialization at the line rate)
 * is @path_ns (0: τ, which must then be set); measure over the base RTTs
 * from @from_taus on. With @quantum_us the law's samples are taken as the
 * modules' rtt_quantum_us takes them (pt_quantize_rtt(); p->rtt_res_us
 * is the caller's to set, as the glue sets it); @h the hosts (NULL: the
 * paper's, which ACK every segment at once).
 */
static inline struct pl_result packet_loop_q(const struct pt_params *p,
					     int nflows, u32 mss, u64 path_ns,
					     u32 quantum_us,
					     const struct pl_host *h,
					     int taus, int from_taus)
{
	static const struct pl_host paper;
	static struct pl_flow fl[PL_MAX_FLOWS];
	u64 tau = (u64)p->base_rtt_us * 1000;
	u64 ser = (u64)PL_WIRE * 8000 / p->line_rate_mbps;
	u64 step = pt_clamp(ser / 10, 1, 1000);
	u64 path = path_ns ? path_ns : tau, prop = path - ser;
	u64 from = from_taus * path, end = taus * path;
	u64 link_free = 0, busy = 0, queued = 0, steps = 0, now, rx_batch = 0;
	double sum = 0, sum2 = 0;
	struct pl_result r = { 0 };
	u64 rnd;
	int i;

	if (!h)
		h = &paper;
	rnd = h->seed | 1ULL << 32;	/* never 0 */
	memset(fl, 0, sizeof(fl));
	for (i = 0; i < nflows; i++) {
		pt_flow_init(&fl[i].f, p, 0, 10, mss, 0);
		fl[i].cwnd = 10;
		fl[i].rate = pt_sk_pacing_rate(&fl[i].f, p, mss);
		fl[i].wstamp_ns = i * ser;
	}
	for (now = 0; now < end; now += step) {
		for (i = 0; i < nflows; i++) {
			struct pl_flow *x = &fl[i];

			while (x->snd_una != x->snd_nxt &&
			       x->acked_ns[x->snd_una % PL_RING] <= now) {
				if (now >= from)
					x->bytes += mss;
				pl_ack(x, p, mss, quantum_us, now);
			}
			while (x->snd_nxt - x->snd_una < x->cwnd &&
			       x->wstamp_ns <= now) {
				u32 k = x->snd_nxt % PL_RING;
				u64 start = pt_max(link_free, now);

				if (x->snd_nxt - x->snd_una >= PL_RING - 1) {
					r.overflow = 1;
					break;
				}
				link_free = start + ser;
				if (start >= from && start < end)
					busy += ser;
				x->sent_ns[k] = now;
				rnd ^= rnd << 13;	/* xorshift64 */
				rnd ^= rnd >> 7;
				rnd ^= rnd << 17;
				pl_deliver(x, k, link_free, h->jitter_ns ?
					   rnd % h->jitter_ns : 0,
					   prop, h, &rx_batch);
				x->snd_nxt++;
				pl_paced(x, now);
			}
		}
		/*
		 * Segments not yet through the bottleneck: the FIFO finishes
		 * one every ser, the last at link_free.
		 */
		if (now >= from) {
			if (link_free > now)
				queued += (link_free - now + ser - 1) / ser;
			steps++;
		}
	}
	for (i = 0; i < nflows; i++) {
		sum += fl[i].bytes;
		sum2 += (double)fl[i].bytes * fl[i].bytes;
	}
	r.util = (double)busy / (end - from);
	r.queue_pkts = steps ? (double)queued / steps : 0;
	r.jain = sum2 > 0 ? sum * sum / (nflows * sum2) : 0;
	return r;
}

/* The same, the samples whole µs (no instrument). */
static inline struct pl_result packet_loop(const struct pt_params *p,
					   int nflows, u32 mss, u64 path_ns,
					   int taus, int from_taus)
{
	return packet_loop_q(p, nflows, mss, path_ns, 0, NULL, taus,
			     from_taus);
}

#endif
