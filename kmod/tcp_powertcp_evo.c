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
#define POWERTCP_ALG				EVO	/* powertcp_params.h */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("PowerTCP-evo congestion control (evolved theta-PowerTCP)");
