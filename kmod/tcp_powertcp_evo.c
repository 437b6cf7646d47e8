// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo: θ-PowerTCP's law with the reference window also advanced
 * every τ (PT_VAR_FAST_REF, powertcp_core.h) and a parameter set found by
 * the search on the real-kernel incast (make evolve; trial 19 of the study
 * in docs/EVOLUTION.md): smaller γ and β, a tighter target, a lower
 * gradient floor, a shorter smoothing horizon. It starts at line rate like
 * θ: the search held the initial rate fixed (short flows).
 */
#define POWERTCP_EVO
#define POWERTCP_NAME				"powertcp_evo"
#define POWERTCP_DEF_GAMMA			666	/* 0.65 */
#define POWERTCP_DEF_BETA_PPM			3333
#define POWERTCP_DEF_TARGET_PERMILLE		1026
#define POWERTCP_DEF_GRAD_FLOOR_PERMILLE	331
#define POWERTCP_DEF_POWER_FLOOR_PERMILLE	10
#define POWERTCP_DEF_MIN_RATE_PPM		4000
#define POWERTCP_DEF_INIT_RATE_PPM		1000000
#define POWERTCP_DEF_SMOOTH_PCT			69
#define POWERTCP_DEF_BASE_RTT_US		0
#define POWERTCP_DEF_LINE_RATE_MBPS		25000
#define POWERTCP_DEF_VARIANT			4	/* PT_VAR_FAST_REF */
#define POWERTCP_MAX_VARIANT			7	/* PT_VAR_ALL */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("PowerTCP-evo congestion control (evolved theta-PowerTCP)");
