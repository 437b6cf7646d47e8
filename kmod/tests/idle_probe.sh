#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A probe, not a test: one flow growing on an idle path with an automatic
# τ, for PowerTCP-evo parameter sets. The path is test_kmod.sh's (50
# Mbit/s tbf, 1 ms netem: 4.2 packets of BDP); test_kmod.sh asks 90% of
# the rate of the defaults, and this prints what each set moves, so that a
# target the search may take is one that holds here (docs/EVOLUTION.md,
# "The target's floor"). Runs as root in a booted kernel:
#
#   scripts/vm-run.sh --kernel 6.12 --icount -- bash kmod/tests/idle_probe.sh \
#       build/kmod-REL/kmod [--reps N] P=V[,P=V...] ...     (make idle-probe)
#
# Prints one line a run: "idle-probe KERNEL theta_powertcp|SET REP KBIT/S",
# θ-PowerTCP's defaults first in each repetition, each SET's parameters
# written to powertcp_evo before its flow and the values it replaced put
# back after.
set -u

MODDIR=${1:?usage: idle_probe.sh MODDIR [--reps N] P=V[,P=V...] ...}
shift
REPS=1
if [ "${1:-}" = --reps ]; then
	REPS=${2:?--reps needs a value}
	shift 2
fi
[ $# -gt 0 ] || { echo "idle_probe: no parameter set given" >&2; exit 2; }
NS_S=ptp_snd NS_R=ptp_rcv RATE_MBPS=50 DELAY_MS=1
EVO=/sys/module/tcp_powertcp_evo/parameters
# shellcheck source=kmod/tests/path.sh
. "$(dirname "$0")/path.sh"

# set_params P=V,...: written to powertcp_evo, the values they replace
# in OLD (P=V,...) to put back.
set_params() {
	local kv p
	OLD=''
	for kv in ${1//,/ }; do
		p=$EVO/${kv%%=*}
		[ -w "$p" ] || { echo "idle_probe: no parameter ${kv%%=*}" >&2; return 1; }
		OLD+="${kv%%=*}=$(cat "$p"),"
		echo "${kv#*=}" > "$p" || return 1
	done
}

if ! { setup_modules && modprobe veth && modprobe sch_tbf &&
	modprobe tcp_theta_powertcp && modprobe tcp_powertcp_evo && topology; }; then
	echo "idle_probe: setup failed" >&2
	exit 1
fi
echo "$RATE_MBPS" > /sys/module/tcp_theta_powertcp/parameters/line_rate_mbps
echo "$RATE_MBPS" > "$EVO/line_rate_mbps"

for rep in $(seq "$REPS"); do
	bps=$(iperf_json 5201 theta_powertcp -t 6 -O 2 | json_bps) || exit 1
	echo "idle-probe $(uname -r) theta_powertcp $rep $((bps / 1000))"
	for set in "$@"; do
		set_params "$set" || exit 2
		bps=$(iperf_json 5201 powertcp_evo -t 6 -O 2 | json_bps) || exit 1
		set_params "${OLD%,}"
		echo "idle-probe $(uname -r) $set $rep $((bps / 1000))"
	done
done
