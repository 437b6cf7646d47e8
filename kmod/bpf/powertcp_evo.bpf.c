// SPDX-License-Identifier: GPL-2.0
/*
 * PowerTCP-evo as a BPF struct_ops tcp_congestion_ops: the same control law
 * and glue as tcp_powertcp_evo.ko, for kernels without module support.
 * Loaded, configured and unloaded by userspace-tools/powertcp-bpf.
 */
#define POWERTCP_NAME	"powertcp_evo"

#include "powertcp_struct_ops.h"

POWERTCP_OPS(powertcp_evo);
