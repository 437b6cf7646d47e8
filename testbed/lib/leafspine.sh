# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A two-tier leaf-spine fabric of network namespaces for the web-search
# experiment. Sourced by testbed/websearch/run.sh (it sources topology.sh for
# tb_link, tb_load_cc, tb_destroy, tb_die). Needs root, iproute2, ethtool
# and the veth, sch_tbf, sch_netem (and for ECN marking sch_red) modules.
#
# Default: 2 leaves x 4 hosts, 1 spine; host links at R, leaf uplinks at U
# (default R: 4 x R down, 1 x U up, 4:1 oversubscribed at the uplinks).
#
#                s1                       spine
#              /     \                    U each way, netem p on both ends
#            l1       l2                  leaves
#         / | | \   / | | \               R each way; netem 2p on the leaf end
#        h1 h2 h3 h4 h5 h6 h7 h8          hosts
#
# (namespaces this run's, lib/common.sh's tb_ns: TB_SPINE, ls_leaf_ns L,
# tb_host H)
#
# Every switch egress port (leaf->host, leaf->spine, spine->leaf) is a
# netem delay line in front of a token bucket at the link rate draining a
# FIFO of TB_BUFFER_BYTES (tail drop), or with TB_ECN_K_BYTES > 0 a RED
# step marker at K scaled by the port's rate (K x rate / R), as tb_star.
# With --host-stack each host's link passes a namespace of its own, its
# NIC's receive moderation (topology.sh's tb_nic_link), after the leaf's
# port.
# Each host's egress is a token bucket at R too (its NIC): a host never
# sends faster than its link. No delay line on a host's own egress: TCP
# small queues count a socket's packets until they leave the host, so
# delay there would throttle the sender.
#
# Delays: every link has one-way propagation p. A host link's delay, both
# ways, sits on the leaf's port towards the host (2p), an uplink's on each
# end's egress (p). So an in-rack RTT is 4p of propagation, a cross-leaf
# one 8p. p = (RTT_rack - one MTU at R) / 4, so that the in-rack base RTT
# of a full-size packet is TB_RTT_US like tb_star's (1160 us at 100 Mbit/s).
# Cross-leaf base RTT: 8p + one MTU at R + 2 MTU at U (2320 us at defaults).
#
# Addresses: host H (1-based, global) on leaf L = (H-1)/HPL + 1 at index
# I = (H-1)%HPL + 1 is 10.L.I.2/24, its leaf port 10.L.I.1; uplink of leaf
# L: leaf 10.100.L.1, spine 10.100.L.2. Routes: hosts default via their
# leaf (quickack unless --delayed-acks: every host receives), leaves
# default via the spine, spine 10.L.0.0/16 via leaf L. One spine: no ECMP,
# every path unique.

# "A && B || die" throughout: die if any of the steps fails, as meant.
# shellcheck disable=SC2015

# shellcheck source=testbed/lib/topology.sh
. "$(dirname "${BASH_SOURCE[0]}")/topology.sh"
TB_SPINE=$(tb_ns s1)

ls_leaf_ns() { tb_ns "l$1"; }
# ls_host_addr H HPL
ls_host_addr() { echo "10.$((($1 - 1) / $2 + 1)).$((($1 - 1) % $2 + 1)).2"; }

# One-way propagation delay per link, us: (RTT - MTU at R) / 4.
ls_prop_us() { # rtt_us rate_mbps mtu
	echo $((($1 - $3 * 8 / $2) / 4))
}

# ls_port NS DEV DELAY_US RATE_MBPS BUF K MTU: netem -> tbf -> [red].
# RATE_MBPS 0: netem only (no rate limit, for the CPU headroom check).
ls_port() {
	local ns=$1 dev=$2 d=$3 rate=$4 buf=$5 k=$6 mtu=$7
	tc -n "$ns" qdisc add dev "$dev" root handle 1: netem delay "${d}us" \
		limit 100000 || tb_die "cannot add netem on $ns/$dev"
	[ "$rate" -gt 0 ] || return 0
	tc -n "$ns" qdisc add dev "$dev" parent 1:1 handle 2: tbf \
		rate "${rate}mbit" burst $((2 * mtu)) limit "$buf" ||
		tb_die "cannot add tbf on $ns/$dev"
	[ "$k" -gt 0 ] || return 0
	tc -n "$ns" qdisc add dev "$dev" parent 2:1 handle 3: red \
		limit "$buf" min "$k" max $((k + mtu)) avpkt "$mtu" \
		burst $((k / mtu + 1)) probability 1.0 ecn \
		bandwidth "${rate}mbit" || tb_die "cannot add red on $ns/$dev"
}

# tb_leafspine — uses TB_LEAVES (2), TB_HPL (hosts per leaf, 4),
# TB_RATE_MBPS, TB_UPLINK_MBPS (default R), TB_RTT_US (in-rack base RTT),
# TB_BUFFER_BYTES, TB_MTU, TB_ECN_K_BYTES, TB_CC, TB_UNLIMITED (1: no token
# buckets anywhere, delays only).
tb_leafspine() {
	local leaves=${TB_LEAVES:-2} hpl=${TB_HPL:-4}
	local rate=${TB_RATE_MBPS:?} rtt=${TB_RTT_US:?} buf=${TB_BUFFER_BYTES:?}
	local up=${TB_UPLINK_MBPS:-$rate} mtu=${TB_MTU:-1500}
	local k=${TB_ECN_K_BYTES:-0} cc=${TB_CC:-cubic} unl=${TB_UNLIMITED:-0}
	local p l i h ns leaf r_host r_up

	p=$(ls_prop_us "$rtt" "$rate" "$mtu")
	[ "$p" -gt 0 ] || tb_die "base RTT ${rtt} us is too short for R=${rate}"
	r_host=$rate r_up=$up
	[ "$unl" = 1 ] && r_host=0 r_up=0
	tb_prepare "$cc"
	tb_ns_add "$TB_SPINE" || tb_die "cannot create network namespaces"
	ip netns exec "$TB_SPINE" sysctl -qw net.ipv4.ip_forward=1
	tb_rcv_route_opts
	for l in $(seq 1 "$leaves"); do
		leaf=$(ls_leaf_ns "$l")
		tb_ns_add "$leaf" || tb_die "cannot create $leaf"
		ip netns exec "$leaf" sysctl -qw net.ipv4.ip_forward=1
		tb_link "$leaf" up0 "10.100.$l.1" "$TB_SPINE" "to_l$l" \
			"10.100.$l.2" "$mtu" || tb_die "cannot link $leaf"
		ip -n "$leaf" route add default via "10.100.$l.2" &&
		ip -n "$TB_SPINE" route add "10.$l.0.0/16" via "10.100.$l.1" ||
			tb_die "cannot route $leaf"
		ls_port "$leaf" up0 "$p" "$r_up" "$buf" $((k * up / rate)) "$mtu"
		ls_port "$TB_SPINE" "to_l$l" "$p" "$r_up" "$buf" \
			$((k * up / rate)) "$mtu"
		for i in $(seq 1 "$hpl"); do
			h=$(((l - 1) * hpl + i))
			ns=$(tb_host "$h")
			tb_ns_add "$ns" &&
			tb_nic_link "$ns" eth0 "10.$l.$i.2" "$leaf" "to_h$h" \
				"10.$l.$i.1" "$mtu" "$(tb_ns "nic$h")" &&
			ip -n "$ns" route add default via "10.$l.$i.1" \
				"${TB_RCV_ROUTE_OPTS[@]}" ||
				tb_die "cannot create host $h"
			ls_port "$leaf" "to_h$h" $((2 * p)) "$r_host" "$buf" "$k" \
				"$mtu"
		done
	done
	tb_ns_defaults "$cc" "${TB_NS_MADE[@]}"
	# Hosts send packet by packet (tb_host_nic); their NIC is a bucket at R.
	# shellcheck disable=SC2046 # a namespace a word
	tb_host_nic $(tb_hosts $((leaves * hpl)))
	for h in $(seq 1 $((leaves * hpl))); do
		ns=$(tb_host "$h")
		[ "$unl" = 1 ] && continue
		tc -n "$ns" qdisc add dev eth0 root tbf rate "${rate}mbit" \
			burst $((2 * mtu)) limit "$buf" ||
			tb_die "cannot add tbf on $ns"
	done
	ls_warm $((leaves * hpl)) "$hpl"
}

# ls_warm N HPL: a TCP SYN from every host to every other one (port 9,
# closed: answered by a reset), so that the neighbor (ARP) entries on every
# hop exist both ways before the flows start: the first packet of a path
# would otherwise wait for address resolution on each hop. A reset means
# the pair is reachable. The first packets into a fresh fabric can be lost
# (seen: a destination host silent for 10 s of guest time, then fine), so
# a pair gets three tries of 10 s; anything else (no route) fails.
ls_warm() {
	local n=$1 hpl=$2 s pids=() rc=0
	for s in $(seq 1 "$n"); do
		# shellcheck disable=SC2016 # expanded by the inner bash
		ip netns exec "$(tb_host "$s")" bash -c '
			s=$1 n=$2 hpl=$3
			for d in $(seq 1 "$n"); do
				[ "$s" = "$d" ] && continue
				a=10.$(((d - 1) / hpl + 1)).$(((d - 1) % hpl + 1)).2
				for t in 1 2 3; do
					e=$(timeout 10 bash -c "exec 3<>/dev/tcp/$a/9" 2>&1)
					[[ $e == *refused* ]] && break
					echo "$s -> $a: attempt $t: ${e:-no answer in 10 s}"
				done
				[[ $e == *refused* ]] || exit 1
			done' warm "$s" "$n" "$hpl" >&2 &
		pids+=($!)
	done
	for s in "${pids[@]}"; do wait "$s" || rc=1; done
	[ "$rc" = 0 ] || tb_die "a host pair is unreachable"
}

# Base RTTs (us) of the defaults, as the comment above defines them.
ls_rtt_rack() { echo "$1"; }	# rtt
ls_rtt_cross() { # rtt rate uplink mtu
	local p
	p=$(ls_prop_us "$1" "$2" "$4")
	echo $((8 * p + $4 * 8 / $2 + 2 * ($4 * 8 / $3)))
}
