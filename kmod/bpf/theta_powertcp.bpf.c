// SPDX-License-Identifier: GPL-2.0
/*
 * θ-PowerTCP as a BPF struct_ops tcp_congestion_ops: the same control law
 * and glue as tcp_theta_powertcp.ko, for kernels without module support.
 * Loaded, configured and unloaded by userspace-tools/powertcp-bpf.
 */
#define POWERTCP_NAME	"theta_powertcp"

#include "powertcp_struct_ops.h"

POWERTCP_OPS(theta_powertcp);
