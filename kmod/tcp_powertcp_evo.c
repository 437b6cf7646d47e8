// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo: θ-PowerTCP's law and parameters with power measured
 * against 1.01 τ instead of 1.05 τ (target_permille 1010): the best of the
 * fourth search, whose space holds the law variants of powertcp_core.h
 * (PT_VAR_*, selectable with the variant parameter) and whose objective has
 * flows arriving beside the incast (make evolve; trial 2 of the study in
 * docs/EVOLUTION.md). It starts at line rate like θ: the search held the
 * initial rate fixed (short flows). The defaults are in powertcp_params.h.
 */
#define POWERTCP_EVO
#define POWERTCP_NAME				"powertcp_evo"
#define POWERTCP_ALG				EVO	/* powertcp_params.h */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("PowerTCP-evo congestion control (evolved theta-PowerTCP)");
