// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo: θ-PowerTCP's law with the reference window also advanced
 * every τ (PT_VAR_FAST_REF, powertcp_core.h) and a parameter set found by
 * the search on the real-kernel incast (make evolve; trial 19 of the study
 * in docs/EVOLUTION.md): smaller γ and β, a tighter target, a lower
 * gradient floor, a shorter smoothing horizon. It starts at line rate like
 * θ: the search held the initial rate fixed (short flows). The defaults
 * are in powertcp_params.h.
 */
#define POWERTCP_EVO
#define POWERTCP_NAME				"powertcp_evo"
#define POWERTCP_ALG				EVO	/* powertcp_params.h */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("PowerTCP-evo congestion control (evolved theta-PowerTCP)");
