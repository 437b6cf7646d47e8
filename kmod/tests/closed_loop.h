/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A closed-loop model of the law for the unit tests: @nflows flows, each
 * sending at pt_pacing_rate(), through one FIFO that drains at the line
 * rate. Every τ/32 the queue integrates the flows' rates less the line
 * rate, and each flow takes a sample of RTT = τ + queue / line rate; once
 * per RTT every flow's reference moves, as the glue's does, and its round
 * ends (PT_VAR_COMPETE, pt_compete(), with no loss: the queue has no
 * bound). The caller initializes the flows. Include after
 * ../powertcp_core.h.
 */
#ifndef _POWERTCP_CLOSED_LOOP_H
#define _POWERTCP_CLOSED_LOOP_H

/*
 * Run the loop for @taus base RTTs; from @from_taus on, average the RTT
 * (seconds, into @mean_rtt) and the rate the link carries (bytes/s, into
 * @mean_rate). The flows' state is left in @f. Returns how many flow
 * samples found their flow out of the competitive mode's delay state;
 * @competing (if not NULL) counts those in compete or probe.
 */
static inline long closed_loop(const struct pt_params *p, struct pt_flow *f,
			       int nflows, u32 mss, int taus, int from_taus,
			       double *mean_rtt, double *mean_rate,
			       long *competing)
{
	double c = p->line_rate_mbps * 1e6 / 8;	/* bytes/s */
	double tau = p->base_rtt_us * 1e-6, q = 0, t = 0, dt = tau / 32;
	double next_ref = tau, rtt = tau, sum_rtt = 0, sum_rate = 0;
	long not_delay = 0;
	int i, n = 0, round;

	for (int step = 0; step < 32 * taus; step++) {
		double in = 0;

		for (i = 0; i < nflows; i++)
			in += pt_pacing_rate(&f[i], p, mss);
		q += (in - c) * dt;
		if (q < 0)
			q = 0;
		t += dt;
		rtt = tau + q / c;
		round = t >= next_ref;
		for (i = 0; i < nflows; i++) {
			pt_on_rtt(&f[i], p, 0, (u64)(rtt * 1e6 + 0.5),
				  (u64)(t * 1e9), mss);
			if (p->variant & PT_VAR_COMPETE)
				pt_compete(&f[i], p, round,
					   (u64)(rtt * 1e6 + 0.5), mss, 0);
			u32 mode = pt_cm_state(&f[i], p);

			not_delay += mode != PT_CM_DELAY;
			if (competing)
				*competing += mode == PT_CM_COMPETE ||
					      mode == PT_CM_PROBE;
		}
		if (round) {
			for (i = 0; i < nflows; i++)
				pt_update_reference(&f[i]);
			next_ref = t + rtt;
		}
		if (step >= 32 * from_taus) {
			sum_rtt += rtt;
			sum_rate += in < c ? in : c;
			n++;
		}
	}
	*mean_rtt = sum_rtt / n;
	*mean_rate = sum_rate / n;
	return not_delay;
}

#endif
