// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo: θ-PowerTCP's law and parameters with power measured
 * against 1.03 τ instead of 1.05 τ (target_permille 1030). The fourth
 * search's best, trial 2 (target 1010), raised to 1030 when one flow on
 * an idle path with an automatic τ stalled below it (make idle-probe);
 * the stalls were TSO skbs, bounded since (tso_permille), and the
 * search's floor is 1010 again. The search's space holds the
 * law variants of powertcp_core.h (PT_VAR_*, selectable with the variant
 * parameter); its objective has flows arriving beside the incast (make
 * evolve; docs/EVOLUTION.md has the ledger and this default's
 * provenance). It starts at line rate like θ: the search held the
 * initial rate fixed (short flows). The defaults are in powertcp_params.h.
 */
#define POWERTCP_EVO
#define POWERTCP_NAME				"powertcp_evo"
#define POWERTCP_ALG				EVO	/* powertcp_params.h */

#define CREATE_TRACE_POINTS
#include "powertcp_trace.h"

#include "powertcp_module.h"

MODULE_DESCRIPTION("PowerTCP-evo congestion control (evolved theta-PowerTCP)");
