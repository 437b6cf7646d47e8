// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo: θ-PowerTCP's control law with an evolved parameter set.
 *
 * What is known of the evolved variant is that it starts lower and reacts
 * faster. These defaults are provisional (lower initial rate and smaller
 * additive increase, larger γ, a shorter power-smoothing horizon and a
 * tighter target) until the testbed search replaces them.
 */
#define POWERTCP_EVO
#define POWERTCP_NAME				"powertcp_evo"
#define POWERTCP_DEF_GAMMA			921	/* 0.9 */
#define POWERTCP_DEF_BETA_PPM			3000
#define POWERTCP_DEF_TARGET_PERMILLE		1020
#define POWERTCP_DEF_GRAD_FLOOR_PERMILLE	500
#define POWERTCP_DEF_POWER_FLOOR_PERMILLE	10
#define POWERTCP_DEF_MIN_RATE_PPM		4000
#define POWERTCP_DEF_INIT_RATE_PPM		250000
#define POWERTCP_DEF_SMOOTH_PCT			50
#define POWERTCP_DEF_BASE_RTT_US		0
#define POWERTCP_DEF_LINE_RATE_MBPS		25000
#define POWERTCP_DEF_VARIANT			0
#define POWERTCP_MAX_VARIANT			7	/* PT_VAR_ALL */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("PowerTCP-evo congestion control (evolved theta-PowerTCP)");
