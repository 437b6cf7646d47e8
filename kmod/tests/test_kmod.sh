#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel tests of the congestion-control modules. Runs as root inside a
# booted kernel (scripts/vm-run.sh), never on a host it could break.
#
#   kmod/tests/test_kmod.sh MODDIR
#
# MODDIR holds tcp_theta_powertcp.ko and tcp_powertcp_evo.ko built for the
# running kernel. Prints KTAP (scripts/tap.sh): "ok N - ..." / "not ok N -
# ..." per check, the plan and the totals; exits non-zero if anything failed.
set -u

MODDIR=${1:?usage: test_kmod.sh MODDIR}
KREL=$(uname -r)
RATE_MBPS=50 DELAY_MS=1
# PT_TEST_SLOW_KERNEL=1: a debug kernel (make check-debug), about 7 times
# slower than Debian's under -icount, whose guest moves about 7 Mbit/s: the
# rate is 5 Mbit/s and the delay 10 ms, so that a window still holds
# several packets, the delayed-ACK check's path is 2 Mbit/s, and the check
# that needs RTTs under a millisecond through a loaded guest is skipped.
SLOW=${PT_TEST_SLOW_KERNEL:-0}
[ "$SLOW" = 0 ] || { RATE_MBPS=5; DELAY_MS=10; }
# The line rate the parameter-write check sets: a tenth of the rate.
WRITE_MBPS=$(( RATE_MBPS / 10 > 0 ? RATE_MBPS / 10 : 1 ))
NS_S=ptk_snd
NS_R=ptk_rcv

# shellcheck source=scripts/tap.sh
. "$(dirname "$0")/../../scripts/tap.sh"
# shellcheck source=kmod/tests/path.sh
. "$(dirname "$0")/path.sh"	# setup_modules, shape, topology, iperf_json

loaded() { grep -q "^$1 " /proc/modules; }
not_loaded() { ! loaded "$1"; }
available() { grep -qw "$1" /proc/sys/net/ipv4/tcp_available_congestion_control; }

unload() {
	sysctl -qw net.ipv4.tcp_congestion_control=cubic
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_R" 2>/dev/null
	modprobe -r "$1" 2>/dev/null
	not_loaded "$1"
}

# Open a connection with congestion control $1 (setsockopt) and hold it
# open for $2 seconds, printing the algorithm the socket reports.
hold_conn() {
	/usr/bin/python3 - "$1" "$2" <<'EOF'
import socket, sys, time
cc, secs = sys.argv[1].encode(), float(sys.argv[2])
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
c = socket.socket()
c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc)
c.connect(srv.getsockname())
a, _ = srv.accept()
c.sendall(b"x" * 100000)
print(c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16)
      .rstrip(b"\0").decode(), flush=True)
time.sleep(secs)
EOF
}

param() { cat "/sys/module/$1/parameters/$2"; }

# A write that must be refused, leaving the old value.
refused_write() { # module param value
	local before after
	before=$(param "$1" "$2")
	if echo "$3" > "/sys/module/$1/parameters/$2" 2>/dev/null; then
		echo "write of '$3' to $2 was accepted"
		return 1
	fi
	after=$(param "$1" "$2")
	[ "$before" = "$after" ] || { echo "$2 changed: $before -> $after"; return 1; }
}

iperf_rate_ok() { # cc
	local json bps
	json=$(iperf_json 5201 "$1" -t 6 -O 2) ||
		{ echo "$json" | tail -n 5; return 1; }
	bps=$(echo "$json" | json_bps)
	echo "# $1: iperf3 $((bps / 1000)) kbit/s through a ${RATE_MBPS} Mbit/s tbf"
	[ "$bps" -ge $((RATE_MBPS * 1000000 * 90 / 100)) ] ||
		{ echo "below 90% of ${RATE_MBPS} Mbit/s"; return 1; }
	echo "$json" | grep -q "\"$1\"" ||
		{ echo "iperf3 did not report $1"; return 1; }
}

# flow_bg PORT CC: a 3 s iperf3 flow with CC in the background, its pid
# in FLOW_PID; returns once the flow has run for 1.5 s.
flow_bg() {
	ip netns exec "$NS_R" iperf3 -s -1 -D -B 10.77.0.2 -p "$1" || return 1
	sleep 0.5
	ip netns exec "$NS_S" iperf3 -c 10.77.0.2 -p "$1" -C "$2" -t 3 \
		>/dev/null 2>&1 &
	FLOW_PID=$!
	sleep 1.5
}

ss_shows() { # cc
	local rc=0
	flow_bg 5202 "$1" || return 1
	ip netns exec "$NS_S" ss -tin dst 10.77.0.2 | grep -qw "$1" || rc=1
	wait "$FLOW_PID"
	return $rc
}

rmmod_refused_while_in_use() { # module cc
	local pid
	# The last check's file must be gone first: the background shell
	# truncates it only when it starts, and an old line would send rmmod
	# in before this socket exists.
	rm -f /tmp/hold.out
	hold_conn "$2" 30 > /tmp/hold.out &
	pid=$!
	# Up to 30 s: under -icount, guest time runs on while python is read
	# over 9p from a loaded host (5 s was once too short).
	for _ in $(seq 300); do [ -s /tmp/hold.out ] && break; sleep 0.1; done
	if [ ! -s /tmp/hold.out ]; then
		echo "the socket of $2 was not set up within 30 s"
		pkill -P "$pid"
		return 1
	fi
	if [ "$(cat /tmp/hold.out)" != "$2" ]; then
		echo "the socket reports '$(cat /tmp/hold.out)', not $2"
		pkill -P "$pid"
		return 1
	fi
	if rmmod "$1" 2>/dev/null; then
		echo "rmmod succeeded while a socket used $2"
		pkill -P "$pid"
		return 1
	fi
	# hold_conn runs in a subshell: end its python child.
	pkill -P "$pid"
	wait "$pid" 2>/dev/null
	# The sockets are gone once the process exits: rmmod must work now.
	for _ in $(seq 50); do rmmod "$1" 2>/dev/null && return 0; sleep 0.1; done
	echo "rmmod still refused after the flow ended"
	return 1
}

trace_event_fires() { # cc
	local ev=/sys/kernel/tracing/events/$1/powertcp_step
	[ -d "$ev" ] || { echo "no $ev"; return 1; }
	echo > /sys/kernel/tracing/trace
	echo 1 > "$ev/enable"
	hold_conn "$1" 0.5 >/dev/null
	echo 0 > "$ev/enable"
	grep -m1 'powertcp_step:.*cwnd=' /sys/kernel/tracing/trace ||
		{ echo "no powertcp_step events"; return 1; }
}

# The test instrument rtt_quantum_us (pt_quantize_rtt()): with a quantum
# of 250 µs every sample the law takes on the path (DELAY_MS, so no RTT
# within one quantum) is a whole multiple of it (the trace's rtt_us; the
# data's sender only, dport 5208); the parameter is put back to 0, the
# samples as the kernel takes them.
quantized_samples() { # module cc
	local ev=/sys/kernel/tracing/events/$2/powertcp_step
	local tr=/sys/kernel/tracing rc=0
	echo 250 > "/sys/module/$1/parameters/rtt_quantum_us" || return 1
	echo > $tr/trace
	echo 1 > "$ev/enable"
	iperf_json 5208 "$2" -t 1 > /dev/null || rc=1
	echo 0 > "$ev/enable"
	echo 0 > "/sys/module/$1/parameters/rtt_quantum_us" || rc=1
	awk '/powertcp_step:.* dport=5208 / {
		r = $0; sub(/.*rtt_us=/, "", r); r += 0
		if (r > 0) { n++; if (r % 250) { odd++; if (!ex) ex = $0 } }
	     }
	     END {
		printf "%d samples, %d not a multiple of 250 us\n", n, odd
		if (ex) print ex
		exit !(n > 0 && odd == 0)
	     }' $tr/trace || rc=1
	return $rc
}

# A parameter write applies to a live flow from its next ACK (well within
# one RTT, the bound the modules promise): while an iperf3 flow runs at
# RATE_MBPS, line_rate_mbps goes to a tenth of it (WRITE_MBPS); every
# powertcp_step after the write (between two trace_marker lines) paces at
# most that, and before it, faster. The flows' per-flow constants are
# cached (powertcp_core.h): this is the parameters' generation at work.
param_write_next_ack() { # module cc
	local ev=/sys/kernel/tracing/events/$2/powertcp_step rc=0
	local tr=/sys/kernel/tracing
	flow_bg 5203 "$2" || return 1
	echo > $tr/trace
	echo 1 > "$ev/enable"
	sleep 0.2
	echo pt-write-begin > $tr/trace_marker
	echo "$WRITE_MBPS" > "/sys/module/$1/parameters/line_rate_mbps"
	echo pt-write-end > $tr/trace_marker
	sleep 0.2
	echo 0 > "$ev/enable"
	wait "$FLOW_PID"
	echo "$RATE_MBPS" > "/sys/module/$1/parameters/line_rate_mbps"
	awk -v mbit="$WRITE_MBPS" '
	     BEGIN { max = mbit * 125000 }
	     /pt-write-begin/ { phase = 1; next }
	     /pt-write-end/ { phase = 2; next }
	     /powertcp_step:/ {
		r = $0; sub(/.*rate_Bps=/, "", r); r += 0
		if (phase == 0 && r > max) fast++
		if (phase == 2) { after++; if (r > max) bad++ }
	     }
	     END {
		printf "%d steps above %d Mbit/s before, %d after the write" \
			" (%d above)\n", fast, mbit, after, bad
		exit !(fast > 0 && after > 0 && bad == 0)
	     }' $tr/trace || rc=1
	return $rc
}

# The competitive mode (PT_VAR_COMPETE) beside CUBIC, through a switch: a
# namespace between the two hosts whose egress to the receiver is the
# bottleneck (RATE_MBPS, a 300 KB FIFO, 1 ms each way), so that the queue
# is the switch's, not a sender's own qdisc, whose bytes TCP small queues
# would count against the sender. A CUBIC flow fills it; PowerTCP-evo with
# variant 32, from a second host 0.5 s later, enters compete (its
# powertcp_step events say mode=compete) and takes a part of the link a
# delay-based law does not: at least 15% of the two flows' bytes (0.2-1.2%
# without it, docs/TESTBED.md). A floor, not the figure (make coexist has
# those). The variant is put back after.
compete_net() {
	local n
	for n in ptk_c1 ptk_c2 ptk_cw ptk_cr; do ip netns add $n || return 1; done
	ip link add v1 netns ptk_c1 type veth peer name w1 netns ptk_cw &&
	ip link add v2 netns ptk_c2 type veth peer name w2 netns ptk_cw &&
	ip link add vr netns ptk_cr type veth peer name wr netns ptk_cw &&
	ip -n ptk_c1 addr add 10.78.1.2/24 dev v1 &&
	ip -n ptk_c2 addr add 10.78.2.2/24 dev v2 &&
	ip -n ptk_cr addr add 10.78.3.2/24 dev vr &&
	ip -n ptk_cw addr add 10.78.1.1/24 dev w1 &&
	ip -n ptk_cw addr add 10.78.2.1/24 dev w2 &&
	ip -n ptk_cw addr add 10.78.3.1/24 dev wr || return 1
	for n in ptk_c1:v1 ptk_c2:v2 ptk_cr:vr ptk_cw:w1 ptk_cw:w2 ptk_cw:wr; do
		ip -n "${n%:*}" link set "${n#*:}" up || return 1
	done
	ip -n ptk_c1 route add default via 10.78.1.1 &&
	ip -n ptk_c2 route add default via 10.78.2.1 &&
	ip -n ptk_cr route add default via 10.78.3.1 &&
	ip netns exec ptk_cw sysctl -qw net.ipv4.ip_forward=1 &&
	tc -n ptk_cw qdisc add dev wr root handle 1: tbf rate "${RATE_MBPS}mbit" \
		burst 15kb limit 300kb &&
	tc -n ptk_cw qdisc add dev wr parent 1:1 netem delay 1ms &&
	tc -n ptk_cr qdisc add dev vr root netem delay 1ms
}

compete_beside_cubic() { # module cc
	local ev=/sys/kernel/tracing/events/$2/powertcp_step tr=/sys/kernel/tracing
	local rc=0 cubic ours tmp old n
	old=$(param "$1" variant)
	tmp=$(mktemp -d) || return 1
	compete_net || rc=1
	echo 32 > "/sys/module/$1/parameters/variant" || rc=1
	ip netns exec ptk_cr iperf3 -s -1 -D -B 10.78.3.2 -p 5210 &&
	ip netns exec ptk_cr iperf3 -s -1 -D -B 10.78.3.2 -p 5211 || rc=1
	sleep 0.5
	echo > $tr/trace
	echo 1 > "$ev/enable"
	[ $rc != 0 ] || {
		ip netns exec ptk_c1 iperf3 -c 10.78.3.2 -p 5210 -C cubic -t 5 -J \
			> "$tmp/cubic.json" 2>&1 &
		sleep 0.5
		ip netns exec ptk_c2 iperf3 -c 10.78.3.2 -p 5211 -C "$2" -t 4 -J \
			> "$tmp/ours.json" 2>&1 || rc=1
		wait || rc=1
	}
	echo 0 > "$ev/enable"
	echo "$old" > "/sys/module/$1/parameters/variant"
	for n in ptk_c1 ptk_c2 ptk_cw ptk_cr; do ip netns del $n 2>/dev/null; done
	cubic=$(json_bps < "$tmp/cubic.json") ours=$(json_bps < "$tmp/ours.json") ||
		rc=1
	[ $rc = 0 ] || { tail -n 3 "$tmp"/*.json; rm -rf "$tmp"; return 1; }
	rm -rf "$tmp"
	echo "# cubic $((cubic / 1000)) kbit/s over 5 s, $2 $((ours / 1000)) kbit/s over 4 s;" \
		"$(grep -c 'mode=compete' $tr/trace) steps in compete," \
		"$(grep -c 'mode=probe' $tr/trace) in probe"
	grep -q 'powertcp_step:.*mode=compete' $tr/trace ||
		{ echo "never entered compete"; return 1; }
	[ $((ours * 4 * 100)) -ge $(((ours * 4 + cubic * 5) * 15)) ] ||
		{ echo "share below 15%"; return 1; }
}

# On a lossy path every RTT the law takes is a µs sample: none of the whole
# milliseconds the timestamp echo gives for an ACK of retransmitted data
# (pt_rtt_usable()). For 2 s the sender's egress is a 500 Mbit/s netem that
# drops 2% and holds 10 packets, the ACK path 300 µs: every real RTT is
# under 600 µs, and an echo's sample is 1000 µs or more. The receiver ACKs
# every segment (route quickack), as the testbed's does, so that no
# delayed ACK (40 ms, a real sample) can look like an echo's. τ is set
# above the path's RTT (base_rtt_us 1000): the law then runs at its line
# rate, 50 Mbit/s on the 500 Mbit/s path, whatever the guest's RTT
# jitter, and the check sees the samples, not the law's equilibrium. Only
# the data's sender is read (dport 5204). The trace's rtt_us is what the
# law took (-1: none). The topology and τ are put back after.
lossy_rtt_samples() { # module cc
	local ev=/sys/kernel/tracing/events/$2/powertcp_step rc=0 r0 r1
	local tr=/sys/kernel/tracing json kbps=0 tau
	tau=$(param "$1" base_rtt_us)
	retrans() {
		ip netns exec "$NS_S" nstat -az TcpRetransSegs |
			awk '/TcpRetransSegs/ { print $2 }'
	}
	tc -n "$NS_R" qdisc change dev veth_r root netem delay 300us &&
	tc -n "$NS_S" qdisc replace dev veth_s root netem rate 500mbit \
		loss 2% limit 10 &&
	ip -n "$NS_R" route replace 10.77.0.0/24 dev veth_r src 10.77.0.2 \
		quickack 1 &&
	echo 1000 > "/sys/module/$1/parameters/base_rtt_us" || return 1
	r0=$(retrans)
	echo > $tr/trace
	echo 1 > "$ev/enable"
	json=$(iperf_json 5204 "$2" -t 2) &&
		kbps=$(($(echo "$json" | json_bps) / 1000)) || rc=1
	echo 0 > "$ev/enable"
	r1=$(retrans)
	shape &&
	ip -n "$NS_R" route replace 10.77.0.0/24 dev veth_r src 10.77.0.2 &&
	echo "$tau" > "/sys/module/$1/parameters/base_rtt_us" || rc=1
	awk -v retx=$((r1 - r0)) -v kbps="$kbps" '/powertcp_step:.* dport=5204 / {
		r = $0; sub(/.*rtt_us=/, "", r); r += 0
		if (r > 0) { n++; if (r >= 1000) { ms++; if (!ex) ex = $0 } }
		else skipped++
	     }
	     END {
		printf "%d kbit/s, %d segments retransmitted, %d samples" \
			" taken, %d skipped, %d of 1 ms or more\n", kbps, retx,
			n, skipped, ms
		if (ex) print ex
		exit !(retx > 0 && n > 0 && ms == 0)
	     }' $tr/trace || rc=1
	return $rc
}

# A receiver that delays its ACKs (Linux's default; the testbed's quickack)
# on a path whose BDP is under one packet: a 5 Mbit/s tbf and 1 ms of
# delay, 0.6 packet. With one segment in flight the receiver holds its ACK
# for the delayed-ACK timer (40 ms), and a flow whose window floor stays at
# one packet takes that for its RTT and never climbs (89 kbit/s measured;
# docs/MODULE.md, "The one-packet floor and a receiver that delays ACKs").
# The flow must reach 80% of the rate, as cubic does. The topology and the
# line rate are put back after.
delayed_ack_rate() { # module cc
	local json bps rc=0 rate=5
	[ "$SLOW" = 0 ] || rate=2
	tc -n "$NS_S" qdisc replace dev veth_s root tbf rate ${rate}mbit \
		burst 15kb limit 300kb &&
	tc -n "$NS_R" qdisc replace dev veth_r root netem delay 1ms &&
	echo "$rate" > "/sys/module/$1/parameters/line_rate_mbps" || return 1
	json=$(iperf_json 5205 "$2" -t 5 -O 1) &&
		bps=$(echo "$json" | json_bps) || rc=1
	shape &&
	echo "$RATE_MBPS" > "/sys/module/$1/parameters/line_rate_mbps" || rc=1
	[ "$rc" = 0 ] || return 1
	echo "# $2: iperf3 $((bps / 1000)) kbit/s through a $rate Mbit/s tbf," \
		"1 ms delay, delayed ACKs"
	[ "$bps" -ge $((rate * 1000000 * 80 / 100)) ] ||
		{ echo "below 80% of $rate Mbit/s"; return 1; }
}

# Segments per skb the sender's namespace sent, phase by phase, on one
# connection across the path: for each CC given, setsockopt(TCP_CONGESTION)
# to it (CC:PERMILLE: and write PERMILLE to the module's tso_permille
# first), 1 s to settle (the skbs already queued leave), then the segments
# (Tcp OutSegs) over the skbs handed to IP (Ip OutRequests) of the next
# 1 s, a line "CC RATIO" each. The veth's TSO is on (path.sh leaves it as
# it comes).
skbs_per_phase() { # port cc...
	local port=$1 rc=0
	shift
	rm -f /tmp/sink.out
	ip netns exec "$NS_R" /usr/bin/python3 -c '
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("10.77.0.2", int(sys.argv[1]))); s.listen(1); print(flush=True)
a, _ = s.accept()
while a.recv(1 << 20): pass' "$port" > /tmp/sink.out &
	for _ in $(seq 300); do [ -s /tmp/sink.out ] && break; sleep 0.1; done
	ip netns exec "$NS_S" /usr/bin/python3 - "$port" "$@" <<'EOF' || rc=1
import socket, sys, threading, time
def counts():
    lines = open("/proc/net/snmp").read().splitlines()
    d = {}
    for k, v in zip(lines[::2], lines[1::2]):
        d.update({k.split()[0] + n: int(x)
                  for n, x in zip(k.split()[1:], v.split()[1:])})
    return d["Ip:OutRequests"], d["Tcp:OutSegs"]
c = socket.create_connection(("10.77.0.2", int(sys.argv[1])))
def send():
    buf = b"x" * 131072
    try:
        while True:
            c.sendall(buf)
    except OSError:
        pass
for i, phase in enumerate(sys.argv[2:]):
    cc, _, pm = phase.partition(":")
    if pm:
        with open("/sys/module/tcp_%s/parameters/tso_permille" % cc, "w") as f:
            f.write(pm)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
    if i == 0:
        threading.Thread(target=send, daemon=True).start()
    time.sleep(1)
    skbs0, segs0 = counts()
    time.sleep(1)
    skbs1, segs1 = counts()
    print("%s %.2f" % (cc, (segs1 - segs0) / max(skbs1 - skbs0, 1)))
c.shutdown(socket.SHUT_RDWR)
EOF
	wait
	return $rc
}

# With TSO on, an skb holds at most tso_permille of the window: one
# segment on this path (a window of about 5 packets). The kernel's own
# sizing (several segments a skb here) comes back when tso_permille is 0,
# on an open connection from its next ACKs and on a new one, and when
# another algorithm takes the socket over (release); the bound comes back
# with tso_permille.
tso_sizing() { # module cc
	local out out0 rc=0 pm
	pm=$(param "$1" tso_permille)
	out=$(skbs_per_phase 5206 "$2" "$2:0" "$2:$pm" cubic) || rc=1
	echo 0 > "/sys/module/$1/parameters/tso_permille" || return 1
	out0=$(skbs_per_phase 5207 "$2") || rc=1
	echo "$pm" > "/sys/module/$1/parameters/tso_permille" || rc=1
	printf '%s\n' "$out" "$out0" | awk -v cc="$2" -v pm="$pm" '
	     $1 != (NR == 4 ? "cubic" : cc) { bad = 1 }
	     NR == 1 { own = $2; if ($2 > 1.05) bad = 1 }
	     NR == 2 { zero = $2; if ($2 < 1.5) bad = 1 }
	     NR == 3 { back = $2; if ($2 > 1.05) bad = 1 }
	     NR == 4 { after = $2; if ($2 < 1.5) bad = 1 }
	     NR == 5 { off = $2; if ($2 < 1.5) bad = 1 }
	     END {
		printf "segments per skb: %s %s at tso_permille %s, %s at 0" \
			" and %s at %s again, cubic after it %s; a new" \
			" connection %s at 0\n", cc, own, pm, zero, back, pm,
			after, off
		exit bad || NR != 5
	     }' || rc=1
	return $rc
}

setsockopt_autoloads() { # module cc
	[ "$(hold_conn "$2" 0)" = "$2" ] && loaded "$1"
}

route_autoloads() { # module cc
	local rc=0
	ip route add 10.99.0.0/24 dev lo congctl "$2" || return 1
	ip route show 10.99.0.0/24 | grep -q "congctl $2" || rc=1
	loaded "$1" || rc=1
	ip route del 10.99.0.0/24 dev lo
	return $rc
}

echo "# kernel $KREL, modules from $MODDIR"
check "modules installed for $KREL and depmod ran" setup_modules
modprobe -q veth sch_tbf 2>/dev/null

for cc in theta_powertcp powertcp_evo; do
	mod=tcp_$cc
	check "$cc: modprobe $mod" modprobe "$mod"
	check "$cc: listed in tcp_available_congestion_control" available "$cc"
	check "$cc: modinfo lists parameters with units" \
		sh -c "modinfo $mod | grep -q 'parm:.*gamma:.*1/1024'"

	check "$cc: unloaded" unload "$mod"
	check "$cc: sysctl tcp_congestion_control=$cc autoloads it" \
		sh -c "sysctl -qw net.ipv4.tcp_congestion_control=$cc &&
		       grep -q '^$mod ' /proc/modules"
	check "$cc: unloaded" unload "$mod"
	check "$cc: setsockopt(TCP_CONGESTION) autoloads it" \
		setsockopt_autoloads "$mod" "$cc"
	check "$cc: unloaded" unload "$mod"
	check "$cc: ip route ... congctl $cc autoloads it" \
		route_autoloads "$mod" "$cc"
	check "$cc: unloaded" unload "$mod"

	modprobe "$mod"
	check "$cc: topology with a ${RATE_MBPS} Mbit/s tbf" topology
	echo "$RATE_MBPS" > "/sys/module/$mod/parameters/line_rate_mbps"
	check "$cc: ss -ti shows it on a live flow" ss_shows "$cc"
	check "$cc: iperf3 -C $cc reaches >= 90% of the rate limit" \
		iperf_rate_ok "$cc"
	check "$cc: the powertcp_step tracepoint fires" trace_event_fires "$cc"
	check "$cc: a parameter write applies to a live flow at its next ACK" \
		param_write_next_ack "$mod" "$cc"
	if [ "$SLOW" = 0 ]; then
		check "$cc: with 2% loss the law takes only µs RTT samples" \
			lossy_rtt_samples "$mod" "$cc"
	else
		skip "$cc: with 2% loss the law takes only µs RTT samples" \
			"a slow kernel's RTTs exceed the 1 ms of the echo's"
	fi

	check "$cc: delayed ACKs, BDP under a packet: >= 80% of the rate" \
		delayed_ack_rate "$mod" "$cc"
	check "$cc: with TSO on, skbs hold at most tso_permille of the window" \
		tso_sizing "$mod" "$cc"
	check "$cc: rtt_quantum_us=250: the law's samples are multiples of it" \
		quantized_samples "$mod" "$cc"

	check "$cc: gamma=0 refused, value kept" refused_write "$mod" gamma 0
	check "$cc: gamma=1025 refused, value kept" refused_write "$mod" gamma 1025
	check "$cc: beta_ppm=abc refused, value kept" refused_write "$mod" beta_ppm abc
	check "$cc: line_rate_mbps=400001 refused, value kept" \
		refused_write "$mod" line_rate_mbps 400001
	check "$cc: smooth_pct=-1 refused, value kept" refused_write "$mod" smooth_pct -1
	check "$cc: tso_permille=1001 refused, value kept" \
		refused_write "$mod" tso_permille 1001
	check "$cc: rtt_quantum_us=1000001 refused, value kept" \
		refused_write "$mod" rtt_quantum_us 1000001
	max=$(modinfo -F parm "$mod" | sed -n 's/^variant:.*range 0\.\.\([0-9]*\)).*/\1/p')
	check "$cc: variant=$((max + 1)) refused, value kept" \
		refused_write "$mod" variant $((max + 1))
	if [ "$cc" = powertcp_evo ]; then
		check "$cc: variant=33 (compete with the gradient baseline) refused" \
			refused_write "$mod" variant 33
		check "$cc: variant=96 (compete with the sample minimum) refused" \
			refused_write "$mod" variant 96
		check "$cc: variant=32 beside CUBIC: enters compete, >= 15% of the link" \
			compete_beside_cubic "$mod" "$cc"
	fi
	check "$cc: a valid write takes effect" \
		sh -c "echo 1024 > /sys/module/$mod/parameters/gamma &&
		       [ \$(cat /sys/module/$mod/parameters/gamma) = 1024 ]"
	check "$cc: rmmod refused while a flow uses it, accepted after" \
		rmmod_refused_while_in_use "$mod" "$cc"
	check "$cc: modprobe with an out-of-range parameter fails" \
		sh -c "! modprobe $mod target_permille=999 2>/dev/null &&
		       ! grep -q '^$mod ' /proc/modules"
	check "$cc: loads again with a valid parameter" \
		sh -c "modprobe $mod target_permille=1100 &&
		       [ \$(cat /sys/module/$mod/parameters/target_permille) = 1100 ]"
	check "$cc: unloaded at the end" unload "$mod"
done

tap_done
