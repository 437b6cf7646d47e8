// SPDX-License-Identifier: GPL-2.0
/*
 * θ-PowerTCP: delay-based PowerTCP (Addanki et al., NSDI '22) that computes
 * power from end-host RTT samples alone.
 *
 * Defaults follow the ns-3 reference model: γ = 0.7, β = 150 Mb/s of a
 * 25 Gb/s line (0.6%), power measured against 1.05·τ, (dθ/dt + 1) >= 0.5,
 * start at line rate, rate floor 100 Mb/s of 25 Gb/s (0.4%), reaction on
 * every ACK and reference window once per RTT.
 */
#define POWERTCP_NAME				"theta_powertcp"
#define POWERTCP_DEF_GAMMA			717	/* 0.7 */
#define POWERTCP_DEF_BETA_PPM			6000
#define POWERTCP_DEF_TARGET_PERMILLE		1050
#define POWERTCP_DEF_GRAD_FLOOR_PERMILLE	500
#define POWERTCP_DEF_POWER_FLOOR_PERMILLE	10
#define POWERTCP_DEF_MIN_RATE_PPM		4000
#define POWERTCP_DEF_INIT_RATE_PPM		1000000
#define POWERTCP_DEF_SMOOTH_PCT			100
#define POWERTCP_DEF_BASE_RTT_US		0
#define POWERTCP_DEF_LINE_RATE_MBPS		25000
#define POWERTCP_DEF_VARIANT			0
#define POWERTCP_MAX_VARIANT			0	/* the paper's law only */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("theta-PowerTCP congestion control (RTT-gradient power)");
