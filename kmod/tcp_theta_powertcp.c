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
#define POWERTCP_ALG				THETA	/* powertcp_params.h */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("theta-PowerTCP congestion control (RTT-gradient power)");
