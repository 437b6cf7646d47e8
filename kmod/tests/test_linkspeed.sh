#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# line_rate_auto: the line rate from the egress device's link speed. Runs
# as root in a guest booted with two NICs on one QEMU hub,
#
#   scripts/vm-run.sh --nic 2500 --nic 0 -- kmod/tests/test_linkspeed.sh MODDIR
#
# NIC 1 (MAC 52:54:00:12:00:01) reports 2500 Mbit/s, NIC 2 (…:02) no speed.
# They go into a sender and a receiver namespace; flows over NIC 1 must use
# its speed, flows over NIC 2, veth (which reports a made-up 10000 Mbit/s)
# or with line_rate_auto=0 the line_rate_mbps parameter; a speed change
# (ethtool -s, then the link bounced as a renegotiation would) must reach
# a running flow. Checked through the powertcp_step tracepoint's line_mbps
# and line_from fields and the module's link_speeds listing. Skips all if
# the NICs are missing. Prints KTAP (scripts/tap.sh).
set -u

MODDIR=${1:?usage: test_linkspeed.sh MODDIR}
MOD=tcp_theta_powertcp
CC=theta_powertcp
PARAM=/sys/module/$MOD/parameters
EV=/sys/kernel/tracing/events/$CC/powertcp_step
FALLBACK=777

# shellcheck source=scripts/tap.sh
. "$(dirname "$0")/../../scripts/tap.sh"

nic() { # MAC -> interface name
	local d
	for d in /sys/class/net/*; do
		[ "$(cat "$d/address" 2>/dev/null)" = "$1" ] && { basename "$d"; return 0; }
	done
	return 1
}

# flow NS DADDR SECONDS: a flow of congestion control $CC, trace enabled;
# prints "line_mbps line_from" of its powertcp_step events, first and last.
flow() {
	local ns=$1 dst=$2 secs=$3
	echo 8192 > /sys/kernel/tracing/buffer_size_kb
	echo > /sys/kernel/tracing/trace
	echo 1 > "$EV/enable"
	ip netns exec "$ns" /usr/bin/python3 - "$dst" "$secs" "$CC" <<'PY'
import socket, sys, time
dst, secs, cc = sys.argv[1], float(sys.argv[2]), sys.argv[3].encode()
c = socket.socket()
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc)
c.settimeout(10)
c.connect((dst, 5999))
end = time.time() + secs
buf = b"x" * 16384
while time.time() < end:    # ~13 Mbit/s: the trace buffer holds every ACK
    c.sendall(buf)
    time.sleep(0.01)
c.close()
PY
	local rc=$?
	echo 0 > "$EV/enable"
	[ $rc = 0 ] || { echo "flow to $dst failed"; return 1; }
	grep -o "daddr=$dst .*line_mbps=[0-9]* line_from=[a-z]*" /sys/kernel/tracing/trace |
		sed 's/.*line_mbps=\([0-9]*\) line_from=\([a-z]*\)/\1 \2/' | sed -n '1p;$p'
}

# sink NS ADDR: a receiver that reads and drops, forever.
sink() {
	ip netns exec "$1" /usr/bin/python3 - "$2" <<'PY' &
import socket, sys, threading
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 5999)); s.listen(8)
def drain(a):
    while a.recv(1 << 16): pass
while True:
    a, _ = s.accept()
    threading.Thread(target=drain, args=(a,), daemon=True).start()
PY
	SINKS+=($!)
}

uses() { # expected "MBPS FROM" for first and last event; flow args
	local want=$1 got
	shift
	got=$(flow "$@") || { echo "$got"; return 1; }
	[ -n "$got" ] || { echo "no powertcp_step events"; return 1; }
	echo "$got" | tr '\n' ' '
	[ "$(echo "$got" | sort -u)" = "$want" ]
}

listed() { # name mbps netns-file: within 10 s (a namespace goes away
	   # asynchronously after ip netns del)
	for _ in $(seq 20); do
		grep -q "^$1 ifindex [0-9]* netns $(stat -L -c %i "$3") $2\$" \
			"$PARAM/link_speeds" && return 0
		sleep 0.5
	done
	cat "$PARAM/link_speeds"
	return 1
}

# A running flow sees the speed change: its events go from 2500 to 1000,
# and so do the values the law derives from the line rate (cached per
# flow, keyed on it): with the rate floor at the line rate and τ = 100 ms
# (far above the path's RTT) the window is pinned at line rate x τ, so
# snd_cwnd must drop with the speed to 1000/2500 of what it was (stale
# derived values would keep it).
speed_change_reaches_flow() {
	local got cw first last
	echo 1000000 > "$PARAM/min_rate_ppm"
	echo 100000 > "$PARAM/base_rtt_us"
	# once the flow is running (python's start is seconds of guest time
	# under -icount)
	( for _ in $(seq 200); do
		grep -q 'daddr=10.88.0.2 ' /sys/kernel/tracing/trace && break
		sleep 0.1
	  done
	  sleep 1
	  ip netns exec pt_a ethtool -s "$N1" speed 1000 duplex full &&
	  ip -n pt_a link set "$N1" down && ip -n pt_a link set "$N1" up ) &
	got=$(flow pt_a 10.88.0.2 8) || { echo "$got"; wait; return 1; }
	wait || { echo "ethtool -s or the link bounce failed"; return 1; }
	echo "$got" | tr '\n' ' '
	cw=$(grep -o 'daddr=10.88.0.2 .* cwnd=[0-9]*' /sys/kernel/tracing/trace |
		sed 's/.*cwnd=//')
	first=$(echo "$cw" | head -n1) last=$(echo "$cw" | tail -n1)
	echo "cwnd $first -> $last"
	echo 4000 > "$PARAM/min_rate_ppm"
	echo 0 > "$PARAM/base_rtt_us"
	[ "$(echo "$got" | head -n1)" = "2500 device" ] &&
	[ "$(echo "$got" | tail -n1)" = "1000 device" ] &&
	[ -n "$first" ] && [ -n "$last" ] &&
	[ $((last * 2500)) -le $((first * 1000 + 2500)) ] &&
	[ $((last * 2500)) -ge $((first * 1000 - 2500 * 2)) ]
}

cleanup() {
	[ ${#SINKS[@]} = 0 ] || kill "${SINKS[@]}" 2>/dev/null
	ip netns del pt_a 2>/dev/null
	ip netns del pt_b 2>/dev/null
	ip netns del pt_v 2>/dev/null
	modprobe -r $MOD 2>/dev/null
}
SINKS=()

N1=$(nic 52:54:00:12:00:01) N2=$(nic 52:54:00:12:00:02)
if [ -z "$N1" ] || [ -z "$N2" ]; then
	skip "line_rate_auto" "no NICs 52:54:00:12:00:01/02 (vm-run.sh --nic 2500 --nic 0)"
	tap_done
	exit
fi
trap cleanup EXIT
# virtio-net reads the host's speed when the link comes up (on 6.12: only
# once the device is opened), so up before the load, for its scan.
ip link set "$N1" up && ip link set "$N2" up
sleep 1
echo "# NIC 1 $N1: $(ethtool "$N1" | grep -i speed), NIC 2 $N2: $(ethtool "$N2" | grep -i speed)"

check "insmod $MOD with line_rate_mbps=$FALLBACK (auto is the default)" sh -c "
	insmod $MODDIR/$MOD.ko line_rate_mbps=$FALLBACK &&
	[ \$(cat $PARAM/line_rate_auto) = 1 ]"
scan_lists_nic1() {
	listed "$N1" 2500 /proc/1/ns/net && ! grep -q "^$N2 " "$PARAM/link_speeds"
}
check "the scan at load (a work item) lists NIC 1 at 2500 Mbit/s, not NIC 2" scan_lists_nic1
check "line_rate_auto=2 refused, value kept" sh -c "
	! echo 2 > $PARAM/line_rate_auto 2>/dev/null && [ \$(cat $PARAM/line_rate_auto) = 1 ]"
check "link_speeds is read-only" sh -c "! echo x > $PARAM/link_speeds 2>/dev/null"

check "topology: NIC 1 in namespace pt_a, NIC 2 in pt_b, a veth pair in pt_a/pt_v" sh -c "
	ip netns add pt_a && ip netns add pt_b && ip netns add pt_v &&
	ip link set $N1 netns pt_a && ip link set $N2 netns pt_b &&
	ip -n pt_a addr add 10.88.0.1/24 dev $N1 && ip -n pt_a link set $N1 up &&
	ip -n pt_b addr add 10.88.0.2/24 dev $N2 && ip -n pt_b link set $N2 up &&
	ip -n pt_a link add vpa type veth peer name vpv netns pt_v &&
	ip -n pt_a addr add 10.89.0.1/24 dev vpa && ip -n pt_a link set vpa up &&
	ip -n pt_v addr add 10.89.0.2/24 dev vpv && ip -n pt_v link set vpv up &&
	ip -n pt_a link set lo up && ip -n pt_b link set lo up && ip -n pt_v link set lo up"
sink pt_b 10.88.0.2
sink pt_a 10.88.0.1
sink pt_v 10.89.0.2
sleep 1
check "moved into pt_a, NIC 1 is listed there (unregister, register)" \
	listed "$N1" 2500 /run/netns/pt_a
check "veth reports a speed of its own (10000), but is not listed" sh -c "
	ip netns exec pt_a ethtool vpa | grep -q 'Speed: 10000Mb/s' &&
	! grep -q '^vpa ' $PARAM/link_speeds"
check "a flow out of NIC 1 uses its 2500 Mbit/s" uses "2500 device" pt_a 10.88.0.2 1
check "a flow out of NIC 2 (no speed) uses line_rate_mbps" uses "$FALLBACK param" pt_b 10.88.0.1 1
check "a flow out of the veth uses line_rate_mbps" uses "$FALLBACK param" pt_a 10.89.0.2 1
check "line_rate_auto=0: a flow out of NIC 1 uses line_rate_mbps" sh -c "
	echo 0 > $PARAM/line_rate_auto"
check "... and it does" uses "$FALLBACK param" pt_a 10.88.0.2 1
echo 1 > "$PARAM/line_rate_auto"
check "a running flow follows NIC 1 from 2500 to 1000 Mbit/s, its window bounds too" speed_change_reaches_flow
check "the listing shows 1000 Mbit/s" listed "$N1" 1000 /run/netns/pt_a
check "a new flow out of NIC 1 uses 1000 Mbit/s" uses "1000 device" pt_a 10.88.0.2 1
# The receivers hold sockets, and so their namespaces, alive.
kill "${SINKS[@]}" 2>/dev/null
SINKS=()
ip netns del pt_a
check "pt_a deleted: NIC 1 back in the initial namespace, listed there" \
	listed "$N1" 1000 /proc/1/ns/net
check "rmmod (the notifier unregisters, the table empties)" sh -c "
	ip netns del pt_b; ip netns del pt_v; sleep 1; rmmod $MOD"

tap_done
