# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The star of testbed/lib/topology.sh built by Mininet: the Mininet backend of
# testbed/incast/run.sh (--backend mininet). Sourced after topology.sh.
#
# Mininet (testbed/mininet/mnnet.py, the topology incast,N of topos.py)
# creates the hosts (a namespace and a shell each), the switch (a router:
# a node of its own that forwards IPv4, one /24 per port, as the netns
# backend's) and the veth links, and holds them while the experiment runs.
# This side then names the namespaces as the netns backend does (ip netns
# attach: TB_RCV, tb_host I, TB_SW for the router s1) and configures them
# with the netns backend's own function, tb_star_shape: the same sysctls,
# NIC settings, netem delay and bottleneck (tbf, and RED for the ecn queue)
# with the same tc commands, on the router's port towards the receiver,
# to_rcv. Traffic, sampling and analysis are then the same as the netns
# backend's.
#
# So both backends build the same forwarding path, addresses, routes and
# port names; what differs is who creates the namespaces and links
# (Mininet's shells, idle during the run, in every node) and the MAC
# addresses. Not a Linux bridge: docs/TESTBED.md, "The Mininet backend".

# "A && B || die" throughout: die if any of the steps fails, as meant.
# shellcheck disable=SC2015

TB_MN_PID='' TB_MN_FD='' TB_MN_DIR=''

# tb_mn_check: die with the package to install if Mininet cannot run.
tb_mn_check() {
	[ -x /usr/bin/python3 ] ||
		tb_die "--backend mininet: /usr/bin/python3 missing (apt-get install python3)"
	/usr/bin/python3 -c 'import mininet.net' 2>/dev/null ||
		tb_die "--backend mininet: Mininet missing (apt-get install mininet)"
	command -v mnexec > /dev/null ||
		tb_die "--backend mininet: mnexec missing (apt-get install mininet)"
}

# tb_mn_stop: stop the Mininet network, if one runs: its stdin closes and
# it stops the network itself (net.stop()); SIGTERM after 60 s.
tb_mn_stop() {
	local _
	[ -n "$TB_MN_PID" ] || return 0
	[ -z "$TB_MN_FD" ] || exec {TB_MN_FD}>&-
	for _ in $(seq 600); do
		kill -0 "$TB_MN_PID" 2> /dev/null || break
		sleep 0.1
	done
	kill -TERM "$TB_MN_PID" 2> /dev/null || true
	wait "$TB_MN_PID" 2> /dev/null || true
	TB_MN_PID='' TB_MN_FD=''
	[ -z "$TB_MN_DIR" ] || rm -rf "$TB_MN_DIR"
	TB_MN_DIR=''
}

# tb_mn_star N_HOSTS: tb_star's topology (and variables), by Mininet. Sets
# TB_BOTTLENECK_DEV to the router's port towards the receiver (to_rcv).
tb_mn_star() {
	local n=$1 mtu=${TB_MTU:-1500} cc=${TB_CC:-cubic}
	local kind a b d swports=() ns dev

	tb_mn_check
	tb_prepare "$cc"
	TB_MN_DIR=$(mktemp -d /tmp/tb_mininet.XXXXXX)
	mkfifo "$TB_MN_DIR/in"
	/usr/bin/python3 "$TB_ROOT/testbed/mininet/mnnet.py" "incast,$((n - 1))" \
		< "$TB_MN_DIR/in" > "$TB_MN_DIR/out" 2> "$TB_MN_DIR/err" &
	TB_MN_PID=$!
	exec {TB_MN_FD}> "$TB_MN_DIR/in"
	# No time limit: under -icount the guest's clock races ahead while it
	# waits for the host (9p), and Mininet either starts or exits.
	until grep -qx ready "$TB_MN_DIR/out"; do
		kill -0 "$TB_MN_PID" 2> /dev/null ||
			tb_die "Mininet failed: $(tail -n 1 "$TB_MN_DIR/err")"
		sleep 0.2
	done
	TB_BOTTLENECK_DEV=''
	while read -r kind a b _ d; do
		case $kind in
		host) ns=$(tb_ns "$a")
			[ "$a" != s1 ] || ns=$TB_SW
			tb_ns_add "$ns" "$b" ||
			tb_die "cannot name Mininet node $a's namespace" ;;
		link) swports+=("$d")
			[ "$a" != rcv ] || TB_BOTTLENECK_DEV=$d ;;
		esac
	done < "$TB_MN_DIR/out"
	[ -n "$TB_BOTTLENECK_DEV" ] || tb_die "Mininet: no link from rcv"
	for ns in "$TB_RCV" $(tb_hosts "$n"); do
		ip -n "$ns" link set eth0 mtu "$mtu" ||
			tb_die "cannot set the MTU of $ns"
	done
	for dev in "${swports[@]}"; do
		ip -n "$TB_SW" link set "$dev" mtu "$mtu" ||
			tb_die "cannot set the MTU of $dev"
	done
	# The receiver ACKs every segment (quickack on its default route), as
	# in tb_star; the switch's own defaults are tb_star's too.
	tb_rcv_route_opts
	ip -n "$TB_RCV" route replace default via 10.0.0.1 \
		"${TB_RCV_ROUTE_OPTS[@]}" ||
		tb_die "cannot set the receiver's route"
	tb_ns_defaults "$cc" "$TB_SW"
	tb_star_shape "$n"
}
