# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The kernel tests' path, sourced by test_kmod.sh and idle_probe.sh: a
# sender namespace NS_S and a receiver namespace NS_R joined by a veth
# pair, the sender's egress rate-limited to RATE_MBPS by tbf, the
# receiver's delayed by DELAY_MS with netem; one iperf3 flow across it.
# The sourcing script sets NS_S, NS_R, RATE_MBPS, DELAY_MS and MODDIR
# (testbed/bench-ack/run.sh takes only veth_pair: NS_S and NS_R).

# The modules of MODDIR installed for the running kernel.
setup_modules() {
	mkdir -p "/lib/modules/$(uname -r)/updates" &&
	cp "$MODDIR"/tcp_theta_powertcp.ko "$MODDIR"/tcp_powertcp_evo.ko \
		"/lib/modules/$(uname -r)/updates/" && depmod -a
}

# The path's shape: set, or put back after a check changed it.
shape() {
	tc -n "$NS_S" qdisc replace dev veth_s root tbf rate "${RATE_MBPS}mbit" \
		burst 15kb limit 300kb &&
	tc -n "$NS_R" qdisc replace dev veth_r root netem delay "${DELAY_MS}ms"
}

# veth_pair NET: new namespaces NS_S and NS_R joined by veth_s and veth_r,
# addressed NET.1 and NET.2 (NET: the first three octets of a /24).
veth_pair() {
	ip netns add "$NS_S" && ip netns add "$NS_R" &&
	ip link add veth_s netns "$NS_S" type veth peer name veth_r netns "$NS_R" &&
	ip -n "$NS_S" addr add "$1.1/24" dev veth_s &&
	ip -n "$NS_R" addr add "$1.2/24" dev veth_r &&
	ip -n "$NS_S" link set veth_s up && ip -n "$NS_R" link set veth_r up &&
	ip -n "$NS_S" link set lo up && ip -n "$NS_R" link set lo up
}

topology() {
	veth_pair 10.77.0 && shape
}

# iperf_json PORT CC IPERF3_ARGS...: one iperf3 flow from NS_S to NS_R
# with congestion control CC; its JSON report on stdout.
iperf_json() {
	local port=$1 cc=$2
	shift 2
	ip netns exec "$NS_R" iperf3 -s -1 -D -B 10.77.0.2 -p "$port" || return 1
	sleep 0.5
	ip netns exec "$NS_S" iperf3 -c 10.77.0.2 -p "$port" -C "$cc" -J "$@"
}

# json_bps: the bits per second the receiver got, of the report on stdin.
json_bps() {
	/usr/bin/python3 -c '
import json, sys
print(int(json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"]))'
}
