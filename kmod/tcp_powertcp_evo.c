// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo: θ-PowerTCP's law with the RTT gradient taken against a
 * sample H/4 to H/2 old (PT_VAR_GRAD_BASELINE, powertcp_core.h) and θ's
 * parameters: the best of the search whose objective has flows arriving
 * beside the incast (make evolve; trial 3 of the study in
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
