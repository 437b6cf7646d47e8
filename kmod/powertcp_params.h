/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunables of both algorithms, in one table: name, valid range, unit
 * and meaning, and each algorithm's default. The kernel modules declare
 * their module parameters from it (powertcp_module.h), the BPF build's
 * loader (userspace-tools/powertcp-bpf.c) its PARAM=VALUE arguments, so
 * both accept and refuse the same values. Each name is a field of struct
 * pt_params (powertcp_core.h).
 *
 * The table is a list of POWERTCP_PARAM_ROW(name, default, min, max,
 * description); statements, each ending in a semicolon. To expand it,
 * define POWERTCP_ALG (THETA for theta_powertcp, EVO for powertcp_evo:
 * whose defaults) and POWERTCP_PARAM_ROW, then include this file; it
 * undefines POWERTCP_PARAM_ROW, so it can be included again. Ranges are
 * inclusive; the description states the unit and goes into modinfo.
 *
 * POWERTCP_MODULE_PARAM_ROW, same arguments, lists the parameters only the
 * kernel modules have (no field of struct pt_params): line_rate_auto, as
 * the BPF build cannot read a device's link speed, tso_permille, as it
 * cannot write sk_gso_max_segs, and rtt_quantum_us, a test instrument of
 * the modules' glue (pt_quantize_rtt()).
 */
#ifndef _POWERTCP_PARAMS_H
#define _POWERTCP_PARAMS_H

/* θ-PowerTCP: the ns-3 reference model (see tcp_theta_powertcp.c). */
#define PT_THETA_GAMMA			717	/* 0.7 */
#define PT_THETA_BETA_PPM		6000
#define PT_THETA_TARGET_PERMILLE	1050
#define PT_THETA_GRAD_FLOOR_PERMILLE	500
#define PT_THETA_POWER_FLOOR_PERMILLE	10
#define PT_THETA_MIN_RATE_PPM		4000
#define PT_THETA_INIT_RATE_PPM		1000000
#define PT_THETA_SMOOTH_PCT		100
#define PT_THETA_BASE_RTT_US		0
#define PT_THETA_LINE_RATE_MBPS		25000
#define PT_THETA_LINE_RATE_AUTO		1
#define PT_THETA_TSO_PERMILLE		16
#define PT_THETA_RTT_QUANTUM_US		0
#define PT_THETA_VARIANT		0
#define PT_THETA_MAX_VARIANT		0	/* the paper's law only */

/* PowerTCP-evo: the search's best (see tcp_powertcp_evo.c). */
#define PT_EVO_GAMMA			717	/* 0.7 */
#define PT_EVO_BETA_PPM			6000
#define PT_EVO_TARGET_PERMILLE		1030
#define PT_EVO_GRAD_FLOOR_PERMILLE	500
#define PT_EVO_POWER_FLOOR_PERMILLE	10
#define PT_EVO_MIN_RATE_PPM		4000
#define PT_EVO_INIT_RATE_PPM		1000000
#define PT_EVO_SMOOTH_PCT		100
#define PT_EVO_BASE_RTT_US		0
#define PT_EVO_LINE_RATE_MBPS		25000
#define PT_EVO_LINE_RATE_AUTO		1
#define PT_EVO_TSO_PERMILLE		16
#define PT_EVO_RTT_QUANTUM_US		0
#define PT_EVO_VARIANT			0	/* the paper's law */
#define PT_EVO_MAX_VARIANT		255	/* PT_VAR_ALL */

/* The default of parameter NAME for POWERTCP_ALG, e.g. PT_THETA_GAMMA. */
#define PT_PARAM_DEF(name)		__PT_PARAM_DEF(POWERTCP_ALG, name)
#define __PT_PARAM_DEF(alg, name)	___PT_PARAM_DEF(alg, name)
#define ___PT_PARAM_DEF(alg, name)	PT_##alg##_##name

#endif /* _POWERTCP_PARAMS_H */

#ifdef POWERTCP_PARAM_ROW
POWERTCP_PARAM_ROW(gamma, PT_PARAM_DEF(GAMMA), 1, 1024,
		   "EWMA weight gamma, in 1/1024");
POWERTCP_PARAM_ROW(beta_ppm, PT_PARAM_DEF(BETA_PPM), 0, 1000000,
		   "additive increase beta, in ppm of line rate");
POWERTCP_PARAM_ROW(target_permille, PT_PARAM_DEF(TARGET_PERMILLE), 1000, 4000,
		   "target RTT, in permille of base RTT");
POWERTCP_PARAM_ROW(grad_floor_permille, PT_PARAM_DEF(GRAD_FLOOR_PERMILLE), 0,
		   1000, "floor of (RTT gradient + 1), in permille");
POWERTCP_PARAM_ROW(power_floor_permille, PT_PARAM_DEF(POWER_FLOOR_PERMILLE), 1,
		   1000, "floor of normalized power, in permille");
POWERTCP_PARAM_ROW(min_rate_ppm, PT_PARAM_DEF(MIN_RATE_PPM), 0, 1000000,
		   "minimum rate, in ppm of line rate");
POWERTCP_PARAM_ROW(init_rate_ppm, PT_PARAM_DEF(INIT_RATE_PPM), 1, 1000000,
		   "initial rate of a new flow, in ppm of line rate");
POWERTCP_PARAM_ROW(smooth_pct, PT_PARAM_DEF(SMOOTH_PCT), 1, 100,
		   "power smoothing horizon, in percent of base RTT");
POWERTCP_PARAM_ROW(base_rtt_us, PT_PARAM_DEF(BASE_RTT_US), 0, 10000000,
		   "base RTT tau, in us; 0 = auto, each flow's minimum RTT");
POWERTCP_PARAM_ROW(line_rate_mbps, PT_PARAM_DEF(LINE_RATE_MBPS), 1, 400000,
		   "host line rate, in Mbit/s");
POWERTCP_PARAM_ROW(variant, PT_PARAM_DEF(VARIANT), 0, PT_PARAM_DEF(MAX_VARIANT),
		   "control-law variant, a mask of powertcp_core.h's PT_VAR_* (at most one of 1, 32 and 64)");
#undef POWERTCP_PARAM_ROW
#endif /* POWERTCP_PARAM_ROW */

#ifdef POWERTCP_MODULE_PARAM_ROW
POWERTCP_MODULE_PARAM_ROW(line_rate_auto, PT_PARAM_DEF(LINE_RATE_AUTO), 0, 1,
			  "1 = line rate from the egress device's link speed where it reports one, else line_rate_mbps");
POWERTCP_MODULE_PARAM_ROW(tso_permille, PT_PARAM_DEF(TSO_PERMILLE), 0, 1000,
			  "largest TSO/GSO skb, in permille of snd_cwnd, at least one segment; 0 = the kernel's own sizing");
POWERTCP_MODULE_PARAM_ROW(rtt_quantum_us, PT_PARAM_DEF(RTT_QUANTUM_US), 0, 1000000,
			  "test instrument: each RTT sample in whole multiples of this many us, as a us clock takes it at a time scale this many times shorter; 0 = off");
#undef POWERTCP_MODULE_PARAM_ROW
#endif /* POWERTCP_MODULE_PARAM_ROW */
