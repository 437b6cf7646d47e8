// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo: θ-PowerTCP's control law with the defaults of a parameter
 * search (make evolve; docs/EVOLUTION.md).
 *
 * One default differs from θ's: target_permille 1030, power measured
 * against 1.03 τ instead of 1.05 τ, so the law settles with 0.03 τ of
 * queueing delay instead of 0.05 τ (plus β's share, powertcp_core.h).
 * That margin must stay above the delay a TSO skb adds to its own RTT
 * samples, which tso_permille (16) bounds to about 0.016 τ (pt_gso_segs()).
 *
 * The variant parameter selects the law variants of powertcp_core.h
 * (PT_VAR_*: the search's space, and 32, the competitive mode next to
 * loss-based flows); the default, 0, is the paper's law, as in
 * θ-PowerTCP. Like θ it starts at line rate: the search kept the
 * initial rate fixed, as its flows are long and cannot show what a lower
 * start costs short ones. The defaults are in powertcp_params.h.
 */
#define POWERTCP_EVO
#define POWERTCP_NAME				"powertcp_evo"
#define POWERTCP_ALG				EVO	/* powertcp_params.h */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("PowerTCP-evo congestion control (evolved theta-PowerTCP)");
