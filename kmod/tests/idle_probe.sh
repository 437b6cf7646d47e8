#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A probe, not a test: one flow growing on an idle path with an automatic
# τ, for PowerTCP-evo parameter sets. The path is test_kmod.sh's: a tbf
# of RATE Mbit/s (15 KB burst), 1 ms of netem, a receiver that delays its
# ACKs as Linux does; at 50 Mbit/s 4.2 packets of BDP, at 5 (the kernel
# test's delayed-ACK check) 0.4. test_kmod.sh asks 90% of the rate of the
# defaults at 50 and 80% at 5, and this prints what each set moves, so
# that a target the search may take is one that holds on both
# (docs/EVOLUTION.md, "The target's floor"). Runs as root in a booted
# kernel:
#
#   scripts/vm-run.sh --kernel 6.12 --icount -- bash kmod/tests/idle_probe.sh \
#       build/kmod-REL/kmod [--reps N] [--rates R[,R...]] P=V[,P=V...] ...
#                                                          (make idle-probe)
#
# --rates: the tbf's rates in Mbit/s, each a path of its own (default 50).
# Prints one line a run: "idle-probe KERNEL RATE theta_powertcp|SET REP
# KBIT/S", θ-PowerTCP's defaults first in each repetition, each SET's
# parameters written to powertcp_evo before its flow and the values it
# replaced put back after; both modules' line_rate_mbps is the path's.
set -u

MODDIR=${1:?usage: idle_probe.sh MODDIR [--reps N] [--rates R[,R...]] P=V[,P=V...] ...}
shift
REPS=1 RATES=50
while [ $# -gt 0 ]; do
	case $1 in
	--reps) REPS=${2:?--reps needs a value} ;;
	--rates) RATES=${2:?--rates needs a value} ;;
	*) break ;;
	esac
	shift 2
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] ||
	{ echo "idle_probe: --reps '$REPS' is not a count" >&2; exit 2; }
[[ $RATES =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] ||
	{ echo "idle_probe: --rates '$RATES' is not a list of Mbit/s" >&2; exit 2; }
[ $# -gt 0 ] || { echo "idle_probe: no parameter set given" >&2; exit 2; }
NS_S=ptp_snd NS_R=ptp_rcv RATE_MBPS=${RATES%%,*} DELAY_MS=1
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
for RATE_MBPS in ${RATES//,/ }; do
	shape || exit 1
	echo "$RATE_MBPS" > /sys/module/tcp_theta_powertcp/parameters/line_rate_mbps
	echo "$RATE_MBPS" > "$EVO/line_rate_mbps"
	for rep in $(seq "$REPS"); do
		bps=$(iperf_json 5201 theta_powertcp -t 6 -O 2 | json_bps) || exit 1
		echo "idle-probe $(uname -r) $RATE_MBPS theta_powertcp $rep $((bps / 1000))"
		for set in "$@"; do
			set_params "$set" || exit 2
			bps=$(iperf_json 5201 powertcp_evo -t 6 -O 2 | json_bps) || exit 1
			set_params "${OLD%,}"
			echo "idle-probe $(uname -r) $RATE_MBPS $set $rep $((bps / 1000))"
		done
	done
done
