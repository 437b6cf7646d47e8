# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# A star of network namespaces: N sender hosts and one receiver around one
# switch namespace. Sourced by the experiments; needs root, iproute2 and the
# veth, sch_tbf, sch_netem (and, for ECN marking, sch_red) modules.
#
#   h1 .. hN ─┐
#             ├─ sw ══[bottleneck]══> rcv
#
# (namespaces TB_SW, TB_RCV and tb_host I: this run's, lib/common.sh's
# tb_ns)
#
# The bottleneck is the switch's egress port towards the receiver: a token
# bucket at TB_RATE_MBPS draining a FIFO of TB_BUFFER_BYTES (tail drop), or,
# with TB_ECN_K_BYTES > 0, a RED queue that marks ECN at that instantaneous
# threshold (DCTCP's K; lib/common.sh's tb_ecn_k gives a K only to the
# algorithms whose queue in testbed/algorithms.tsv is ecn). The base RTT,
# less one MTU's serialization at the bottleneck, is one netem delay on the
# receiver's egress (the ACK path), so the data path's only queue is the
# bottleneck.
# The receiver ACKs every segment (route quickack), as the paper's hosts do:
# Linux's 40 ms delayed-ACK timer would otherwise dwarf a 1 ms base RTT
# (--delayed-acks: it does not, tb_rcv_route_opts). With --host-stack the
# hosts are default Linux hosts (GRO, delayed ACKs, TSO), and their NICs
# moderate interrupts: the receiver's in a namespace of its own between
# the bottleneck and the receiver (TB_NIC, tb_nic_link), the senders' on
# the switch's ports towards them (tb_rx_moderation).
#
# Addresses: receiver 10.0.0.2, host i 10.0.i.2 (i up to 255; host 256 is
# 10.1.0.2: tb_host_net), the switch .1 of each host's /24.

# "A && B || die" throughout: die if any of the steps fails, as meant.
# shellcheck disable=SC2015

# shellcheck source=testbed/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"

TB_SW=$(tb_ns sw)
TB_RCV=$(tb_ns rcv)
TB_NIC=$(tb_ns nic)
TB_RCV_ADDR=10.0.0.2
TB_BOTTLENECK_DEV=to_rcv

tb_host() { tb_ns "h$1"; }

# tb_host_net I: the first three octets of host I's /24, 10.0.I for the
# first 255 hosts, 10.1.0 for the 256th (the paper's burst: 255 senders
# besides the long flow).
tb_host_net() { echo "10.$(($1 / 256)).$(($1 % 256))"; }

# tb_hosts N: the namespaces of hosts 1..N, one a line.
tb_hosts() {
	local i
	for i in $(seq 1 "$1"); do tb_host "$i"; done
}

# tb_headroom CHECK RATE_MBPS DURATION_US WORKDIR JSON TCPFLOWS_ARGS...
# The CPU headroom check, on a topology whose rate limit is gone
# (tb_unlimit): the same flows must move at least twice R, or what we would
# measure is the VM's CPU, not the switch. Writes JSON; CHECK=0 records a
# skipped check.
tb_headroom() {
	local check=$1 rate=$2 dur=$3 work=$4 json=$5 mbps=0 ok=true
	shift 5
	if [ "$check" = 1 ]; then
		mkdir -p "$work"
		tb_run "$TB_ROOT/userspace-tools/bin/tcpflows" --out-dir "$work" \
			--duration-us $((dur + 50000)) --interval-us 0 --quiet \
			"$@" >/dev/null || tb_die "the headroom run failed"
		mbps=$(awk -F, -v t="$dur" 'NR > 1 { b += $8 }
			END { printf "%d", b * 8 / t }' "$work/flows.csv")
		echo "# headroom: ${mbps} Mbit/s without the rate limit" \
			"($((mbps * 100 / rate))% of R)"
		[ "$mbps" -ge $((2 * rate)) ] || ok=false
	fi
	cat > "$json" <<JSON
{"checked": $([ "$check" = 1 ] && echo true || echo false),
 "unlimited_mbps": $mbps, "rate_mbps": $rate, "ok": $ok}
JSON
}

# tb_headroom_check TOPOLOGY FLOWS [TCPFLOWS_ARGS...]: the experiment's
# headroom check (tb_headroom, into WORK/headroom and OUT/headroom.json)
# over 300 base RTTs: the flows of FLOWS 0 END_US, on TOPOLOGY's
# topology with its rate limit gone; HEADROOM=0 records a skipped check.
tb_headroom_check() {
	local topo=$1 flows=$2 hd=$((300 * RTT_US))
	shift 2
	if [ "$HEADROOM" = 1 ]; then
		"$topo"
		tb_unlimit
	fi
	# shellcheck disable=SC2046 # one tcpflows argument a word
	tb_headroom "$HEADROOM" "$RATE_MBPS" "$hd" "$WORK/headroom" \
		"$OUT/headroom.json" --seed "$SEED" "$@" $("$flows" 0 "$hd")
}

# tb_nsconf ACTION... NS...: userspace-tools/bin/nsconf, the same settings
# in many namespaces from one process (an exec costs milliseconds in a TCG
# guest, and the sweep's star has 258 namespaces); dies with its reason.
tb_nsconf() {
	local err
	[ -x "$TB_NSCONF" ] || tb_die "$TB_NSCONF missing (make tools)"
	err=$("$TB_NSCONF" "$@" 2>&1 > /dev/null) || tb_die "${err#nsconf: }"
}

# tb_retrans FILE N: each of hosts 1..N's retransmitted segments (its
# namespace's TCP RetransSegs) as a CSV id,retrans_segs, the id that of
# the host's flow (host I carries flow I - 1).
tb_retrans() {
	[ -x "$TB_NSCONF" ] || tb_die "$TB_NSCONF missing (make tools)"
	{
		echo "id,retrans_segs"
		# shellcheck disable=SC2046 # a namespace a word
		"$TB_NSCONF" --snmp Tcp.RetransSegs $(tb_hosts "$2") |
			awk -F, '{ print NR - 1 "," $2 }'
	} > "$1" || tb_die "cannot read the hosts' retransmissions"
}

tb_link() { # ns_a dev_a addr_a ns_b dev_b addr_b mtu
	ip link add "$2" netns "$1" mtu "$7" type veth peer name "$5" \
		netns "$4" mtu "$7" &&
	ip -n "$1" addr add "$3/24" dev "$2" &&
	ip -n "$4" addr add "$6/24" dev "$5" &&
	ip -n "$1" link set "$2" up &&
	ip -n "$4" link set "$5" up
}

# tb_prepare CC: a clean slate for a topology whose namespaces default to
# congestion control CC.
tb_prepare() {
	tb_destroy
	# Modules, or built in (a kernel without module support).
	modprobe -qa veth sch_tbf sch_netem sch_red 2>/dev/null || true
	# Only algorithms in the allowed list may be a namespace's default.
	grep -qw "$1" /proc/sys/net/ipv4/tcp_allowed_congestion_control ||
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="$(cat \
			/proc/sys/net/ipv4/tcp_allowed_congestion_control) $1" ||
		tb_die "cannot allow congestion control $1"
}

# tb_ns_defaults CC NS...: in each NS, loopback up, CC the default, ECN
# on, no cached metrics carried from one flow to the next, no IPv6. IPv6's
# autoconf sends router solicitations and MLD reports after random delays
# (the kernel's random numbers, new at every boot) for seconds after a
# link comes up, some through the bottleneck: packets at a different time
# in every run of the same seed (docs/TESTBED.md, "Why QEMU with -icount").
tb_ns_defaults() {
	local cc=$1 a=(--up lo)
	shift
	[ -x "$TB_NSCONF" ] || tb_die "$TB_NSCONF missing (make tools)"
	[ ! -d /proc/sys/net/ipv6 ] ||
		a+=(--sysctl net.ipv6.conf.all.disable_ipv6=1
		    --sysctl net.ipv6.conf.default.disable_ipv6=1)
	a+=(--sysctl net.ipv4.tcp_congestion_control="$cc"
	    --sysctl net.ipv4.tcp_ecn=1 --sysctl net.ipv4.tcp_no_metrics_save=1)
	"$TB_NSCONF" "${a[@]}" "$@" 2> /dev/null && return 0
	"$TB_NSCONF" --sysctl net.ipv4.tcp_congestion_control="$cc" "$@" \
		2> /dev/null || tb_die "congestion control $cc not available"
	tb_nsconf "${a[@]}" "$@"
}

# tb_host_nic NS...: the hosts send packet by packet, as the paper's do: with
# TSO/GSO a paced sender emits bursts of up to 1 ms of data, which at a
# scaled line rate is most of a base RTT and would be a queue of its own.
# With --host-stack the hosts keep a default host's offloads (TSO, GSO;
# the modules bound their skbs to tso_permille of the window) and turn GRO
# on, which a veth only has when asked (it then receives through NAPI).
tb_host_nic() {
	if [ "$HOST_STACK" = 1 ]; then
		tb_nsconf --gro eth0 "$@"
		return
	fi
	# TSO and GSO off (ethtool -K eth0 tso off gso off). TCP builds GSO
	# skbs whatever the device's features (the stack segments them in
	# software), and pacing spaces skbs, not segments: one segment per
	# skb (gso_max_segs 1) makes pacing per packet.
	tb_nsconf --no-offload eth0 --gso-max-segs eth0=1 "$@"
}

# tb_rx_moderation NS DEV...: with --host-stack, each DEV of NS delays what
# it sends by the receiving NIC's interrupt moderation: a netem slot of
# TB_RX_SLOT_US holds the first packet after a quiet spell that long and
# releases with it all that came meanwhile, as a NIC raises its interrupt
# rx-usecs after the first packet and NAPI then takes in the batch. GRO
# can only merge segments that arrive in one NAPI poll; at a scaled line
# rate packets come 120 us apart and would never share one.
tb_rx_moderation() {
	local ns=$1 dev
	shift
	[ "${TB_RX_SLOT_US:-0}" -gt 0 ] || return 0
	for dev in "$@"; do
		echo "qdisc add dev $dev root netem slot ${TB_RX_SLOT_US}us limit 100000"
	done | tc -n "$ns" -b - ||
		tb_die "cannot add the NICs' moderation (netem slot)"
}

# tb_nic_link NS_A DEV_A ADDR_A NS_B DEV_B ADDR_B MTU NIC_NS: tb_link's
# link between host NS_A and switch NS_B, with --host-stack's moderation
# (TB_RX_SLOT_US > 0) through NIC_NS, the host's NIC: a wire (tc mirred
# both ways, no address, no routing) whose egress towards the host is the
# moderation, after the switch's port. That egress sends without TSO, so
# the host's veth takes the packets through NAPI and GRO
# (veth_skb_is_eligible_for_gro()).
tb_nic_link() {
	local mtu=$7 ns=$8
	if [ "${TB_RX_SLOT_US:-0}" = 0 ]; then
		tb_link "$@"
		return
	fi
	modprobe -qa sch_ingress cls_u32 act_mirred 2>/dev/null || true
	tb_ns_add "$ns" &&
	ip link add eth0 netns "$ns" mtu "$mtu" type veth peer name "$5" \
		netns "$4" mtu "$mtu" &&
	ip link add to_host netns "$ns" mtu "$mtu" type veth peer name "$2" \
		netns "$1" mtu "$mtu" &&
	ip -n "$4" addr add "$6/24" dev "$5" &&
	ip -n "$1" addr add "$3/24" dev "$2" &&
	tc -n "$ns" -b - <<-TC &&
		qdisc add dev eth0 ingress
		filter add dev eth0 ingress u32 match u32 0 0 action mirred egress redirect dev to_host
		qdisc add dev to_host ingress
		filter add dev to_host ingress u32 match u32 0 0 action mirred egress redirect dev eth0
	TC
	tb_ns_defaults "${TB_CC:-cubic}" "$ns" &&
	tb_nsconf --no-offload to_host --up eth0 --up to_host "$ns" &&
	ip -n "$4" link set "$5" up &&
	ip -n "$1" link set "$2" up || return 1
	tb_rx_moderation "$ns" to_host
}

# tb_star N_HOSTS — uses TB_RATE_MBPS, TB_RTT_US, TB_BUFFER_BYTES, TB_MTU,
# TB_ECN_K_BYTES, TB_CC (default congestion control of every namespace).
tb_star() {
	local n=$1 i mtu=${TB_MTU:-1500} cc=${TB_CC:-cubic}

	tb_prepare "$cc"
	tb_ns_add "$TB_SW" && tb_ns_add "$TB_RCV" ||
		tb_die "cannot create network namespaces"
	ip netns exec "$TB_SW" sysctl -qw net.ipv4.ip_forward=1
	tb_nic_link "$TB_RCV" eth0 "$TB_RCV_ADDR" "$TB_SW" "$TB_BOTTLENECK_DEV" \
		10.0.0.1 "$mtu" "$TB_NIC" || tb_die "cannot create the receiver link"
	tb_rcv_route_opts
	ip -n "$TB_RCV" route add default via 10.0.0.1 \
		"${TB_RCV_ROUTE_OPTS[@]}" ||
		tb_die "cannot route the receiver"
	# The hosts as tb_link would make them, in one ip batch for all
	# namespaces and veth pairs, one for the switch's ports and one per
	# host: a few processes, not seven a host (an exec costs milliseconds
	# in a TCG guest, and the sweep's star has 256 hosts).
	local made='' ports='' hosts=() nets=()
	for i in $(seq 1 "$n"); do
		hosts+=("$(tb_host "$i")") nets+=("$(tb_host_net "$i")")
		TB_NS_MADE+=("${hosts[-1]}")
		made+="netns add ${hosts[-1]}"$'\n'
		made+="link add eth0 netns ${hosts[-1]} mtu $mtu type veth"
		made+=" peer name to_h$i netns $TB_SW mtu $mtu"$'\n'
		ports+="addr add ${nets[-1]}.1/24 dev to_h$i"$'\n'
		ports+="link set to_h$i up"$'\n'
	done
	[ "$n" = 0 ] || { ip -b - <<< "$made" && ip -n "$TB_SW" -b - <<< "$ports"; } ||
		tb_die "cannot create the hosts"
	for i in "${!hosts[@]}"; do
		printf 'addr add %s.2/24 dev eth0\nlink set eth0 up\nroute add default via %s.1\n' \
			"${nets[$i]}" "${nets[$i]}" | ip -n "${hosts[$i]}" -b - ||
			tb_die "cannot create host $((i + 1))"
	done
	tb_ns_defaults "$cc" "$TB_SW"
	# shellcheck disable=SC2046 # a port a word
	tb_rx_moderation "$TB_SW" $(seq -f 'to_h%g' 1 "$n")
	tb_star_shape "$n"
}

# tb_star_shape N_HOSTS: the star's settings once its nodes and links exist,
# the same for both backends (this file's tb_star and Mininet's,
# testbed/mininet/star.sh): the namespaces' TCP defaults and NICs, the
# base RTT's delay line and the bottleneck. Uses the variables of tb_star.
tb_star_shape() {
	local n=$1 burst ser delay hosts
	local rate=${TB_RATE_MBPS:?} rtt=${TB_RTT_US:?} buf=${TB_BUFFER_BYTES:?}
	local mtu=${TB_MTU:-1500} k=${TB_ECN_K_BYTES:-0} cc=${TB_CC:-cubic}

	mapfile -t hosts < <(tb_hosts "$n")
	tb_ns_defaults "$cc" "$TB_RCV" "${hosts[@]}"
	tb_host_nic "$TB_RCV" "${hosts[@]}"

	# Base RTT: the RTT of a full-size packet on empty queues, like the
	# paper's 4.64 µs, which includes serialization. The bottleneck's
	# serialization of one MTU is part of it; the rest is on the ACK path.
	# With --serial-link the bucket holds one frame: an isolated packet
	# leaves it at once, as a link starts to send it, and every packet
	# behind it waits its frame's time, as on a link; the ACK path then
	# carries the whole base RTT, so that the ACK comes back when a
	# link's would. An eighth of a frame more absorbs a late dequeue timer
	# (docs/TESTBED.md, "The bottleneck").
	ser=$((mtu * 8 / rate))
	[ "$rtt" -gt $((2 * ser)) ] ||
		tb_die "base RTT ${rtt} us is not longer than two MTU times (2 x ${ser} us)"
	delay=$((rtt - ser))
	[ "${SERIAL_LINK:-0}" = 0 ] || delay=$rtt
	tc -n "$TB_RCV" qdisc add dev eth0 root netem delay "${delay}us" \
		limit 100000 || tb_die "cannot add netem (modprobe sch_netem)"

	# Bottleneck: token bucket of two MTUs at the line rate (a frame and
	# an eighth with --serial-link), FIFO behind.
	burst=$((2 * mtu))
	[ "${SERIAL_LINK:-0}" = 0 ] || burst=$(((mtu + 14) * 9 / 8))
	tc -n "$TB_SW" qdisc add dev "$TB_BOTTLENECK_DEV" root handle 1: tbf \
		rate "${rate}mbit" burst "$burst" limit "$buf" ||
		tb_die "cannot add tbf (modprobe sch_tbf)"
	if [ "$k" -gt 0 ]; then
		# RED as a step marker: min = K, max just above, probability
		# 1 and the smallest burst, so marking follows the
		# instantaneous queue as DCTCP expects.
		tc -n "$TB_SW" qdisc add dev "$TB_BOTTLENECK_DEV" parent 1:1 \
			handle 10: red limit "$buf" min "$k" \
			max $((k + mtu)) avpkt "$mtu" burst $((k / mtu + 1)) \
			probability 1.0 ecn bandwidth "${rate}mbit" ||
			tb_die "cannot add red (modprobe sch_red)"
	fi
}

# Remove the rate limit, for the CPU headroom check (tb_star builds the
# topology anew for the measurement).
tb_unlimit() {
	tc -n "$TB_SW" qdisc del dev "$TB_BOTTLENECK_DEV" root
}
