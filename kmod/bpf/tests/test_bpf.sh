#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Kernel tests of the BPF struct_ops builds (kmod/bpf/) and their loader,
# the counterpart of kmod/tests/test_kmod.sh. Runs as root, natively on a
# host with BPF but no module support, or in a booted kernel
# (scripts/vm-run.sh). Everything it does is in network namespaces of its
# own, and it unloads what it loaded, so it is safe on a host.
#
#   kmod/bpf/tests/test_bpf.sh [BIN [MODDIR]]
#
# BIN is the loader (default userspace-tools/bin/powertcp-bpf, from
# 'make bpf'). MODDIR, if given, holds tcp_theta_powertcp.ko and
# tcp_powertcp_evo.ko for the running kernel: then a module and a BPF build
# of the same name are tried against each other too. KTAP output ("ok N -",
# "not ok N -", "# SKIP"), closing with the totals; exits non-zero if
# anything failed.
set -u

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
BIN=${1:-$ROOT/userspace-tools/bin/powertcp-bpf}
MODDIR=${2:-}
RATE_MBPS=50
NS_S=ptb_snd$$
NS_R=ptb_rcv$$
ADDR_S=10.78.0.1
ADDR_R=10.78.0.2
PORT_SINK=5300			# the python sink in NS_R
PIN=/sys/fs/bpf/powertcp
AVAIL=/proc/sys/net/ipv4/tcp_available_congestion_control
PY=$(command -v /usr/bin/python3 || command -v python3)
TMP=$(mktemp -d /tmp/test_bpf.XXXXXX)

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
declare -F skip >/dev/null || skip() { ok "$1 # SKIP ${2:-}"; }

pt() { "$BIN" "$@"; }
available() { grep -qw "$1" "$AVAIL"; }

# The kernel's version as a number, e.g. 601 for 6.1.
kver() { uname -r | awk -F'[.-]' '{ print $1 * 100 + $2 }'; }

# A TCP client and a sink, in python (see --help of the heredoc).
cat > "$TMP/conn.py" <<'EOF'
"""sink PORT: accept and discard, forever.
client ADDR PORT CC SECS: connect (CC '-': the default), print the
algorithm getsockopt reports, send for SECS s printing 'sent N' every
0.2 s, then print the algorithm again."""
import socket, sys, threading, time
if sys.argv[1] == "sink":
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("", int(sys.argv[2])))
    srv.listen(64)
    def drain(a):
        while a.recv(1 << 20):
            pass
    while True:
        a, _ = srv.accept()
        threading.Thread(target=drain, args=(a,), daemon=True).start()
addr, port, cc, secs = sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
c = socket.socket()
if cc != "-":
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, cc.encode())
c.connect((addr, port))
def algo():
    return c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION,
                        16).rstrip(b"\0").decode()
print(algo(), flush=True)
c.settimeout(0.2)
sent, t0, last = 0, time.time(), 0
while time.time() - t0 < secs:
    try:
        sent += c.send(b"x" * 65536)
    except socket.timeout:
        pass
    if time.time() - last >= 0.2:
        print("sent", sent, flush=True)
        last = time.time()
print(algo(), flush=True)
EOF

cleanup() {
	local cc pid
	for pid in "$TMP"/*.pid; do
		[ -f "$pid" ] && kill "$(cat "$pid")" 2>/dev/null
	done
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_R" 2>/dev/null
	for cc in theta_powertcp powertcp_evo; do
		[ -d "$PIN/$cc" ] && pt unload "$cc" >/dev/null 2>&1
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# A sender and a receiver namespace joined by a veth pair; the sender's
# egress is rate-limited with tbf, the receiver's delayed by 1 ms. The
# receiver ACKs every segment (route quickack), as in the testbed: a window
# of one packet would otherwise wait for the 40 ms delayed-ACK timer. It
# runs a sink on PORT_SINK.
topology() { # cc
	ip netns add "$NS_S" && ip netns add "$NS_R" &&
	ip link add veth_s netns "$NS_S" type veth peer name veth_r netns "$NS_R" &&
	ip -n "$NS_S" addr add $ADDR_S/24 dev veth_s &&
	ip -n "$NS_R" addr add $ADDR_R/24 dev veth_r &&
	ip -n "$NS_S" link set veth_s up && ip -n "$NS_R" link set veth_r up &&
	ip -n "$NS_S" link set lo up && ip -n "$NS_R" link set lo up &&
	ip -n "$NS_R" route replace 10.78.0.0/24 dev veth_r quickack 1 &&
	tc -n "$NS_S" qdisc add dev veth_s root tbf rate ${RATE_MBPS}mbit \
		burst 15kb limit 300kb || return 1
	if ! tc -n "$NS_R" qdisc add dev veth_r root netem delay 1ms 2>/dev/null; then
		# e.g. a host kernel without sch_netem: τ stands in for the delay
		echo "no netem here: no 1 ms path delay, base_rtt_us=1000 instead"
		pt set "$1" base_rtt_us=1000 || return 1
	fi
	ip netns exec "$NS_R" "$PY" "$TMP/conn.py" sink $PORT_SINK \
		>"$TMP/sink.log" 2>&1 &
	echo $! > "$TMP/sink.pid"	# (check runs this in a subshell)
	for _ in $(seq 50); do
		ip netns exec "$NS_R" ss -tln | grep -q ":$PORT_SINK " && return 0
		sleep 0.1
	done
	echo "the sink did not start"
	return 1
}

untopology() {
	[ -f "$TMP/sink.pid" ] && kill "$(cat "$TMP/sink.pid")" 2>/dev/null
	rm -f "$TMP/sink.pid"
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_R" 2>/dev/null
	return 0
}

# client CC_OR_- SECS: a flow from NS_S to the sink; its output on stdout.
client() {
	ip netns exec "$NS_S" "$PY" "$TMP/conn.py" client $ADDR_R $PORT_SINK "$1" "$2"
}

# The algorithm a new connection gets: $1 is the setsockopt argument, '-'
# for none (the namespace's default, or the route's congctl).
conn_algo() { client "$1" 0 | head -n1; }

# The one-line refusal: exit status 1, one line of output.
refused() { # loader args...
	local out rc
	out=$(pt "$@" 2>&1)
	rc=$?
	[ "$rc" -eq 1 ] || { echo "exit $rc, not 1: $out"; return 1; }
	[ "$(printf '%s\n' "$out" | grep -c '')" -eq 1 ] ||
		{ echo "more than one line:"; echo "$out"; return 1; }
	echo "$out"
}

# The id of CC's struct_ops map, kept in a file (checks run in subshells).
ops_id_save() { # cc
	command -v bpftool >/dev/null || return 0
	bpftool map show pinned "$PIN/$1/ops" | sed -n 's/^\([0-9]*\):.*/\1/p' \
		> "$TMP/$1.ops_id"
}

load_ok() { # cc params...
	pt load "$@" >/dev/null || return 1
	available "$1" || { echo "$1 not in $AVAIL after load"; return 1; }
	ops_id_save "$1"
	echo "registered, the loader has exited"
}

pins_ok() { # cc
	local f
	for f in ops params ctl events; do
		[ -e "$PIN/$1/$f" ] || { echo "no $PIN/$1/$f"; return 1; }
	done
	if [ -e "$PIN/$1/link" ]; then
		echo "struct_ops link pinned"
	elif [ "$(kver)" -ge 604 ]; then
		echo "no struct_ops link pinned on $(uname -r) (>= 6.4)"
		return 1
	else
		echo "struct_ops map pinned, the kernel holds the registration (no links before 6.4)"
	fi
}

# The struct_ops map we loaded last still exists.
ops_map_alive() { # cc
	[ -s "$TMP/$1.ops_id" ] &&
		bpftool map show id "$(cat "$TMP/$1.ops_id")" >/dev/null 2>&1
}

# Nothing of CC left: not registered, no pins, its struct_ops map freed.
nothing_left() { # cc
	for _ in $(seq 50); do
		if ! available "$1" && [ ! -e "$PIN/$1" ] && ! ops_map_alive "$1"; then
			return 0
		fi
		sleep 0.1
	done
	available "$1" && echo "$1 still in $AVAIL"
	[ -e "$PIN/$1" ] && echo "$PIN/$1 still there"
	ops_map_alive "$1" && echo "struct_ops map id $(cat "$TMP/$1.ops_id") still exists"
	return 1
}

setsockopt_selects() { # cc
	local got
	got=$(conn_algo "$1")
	[ "$got" = "$1" ] || { echo "setsockopt($1) gave '$got'"; return 1; }
}

# The default of our namespace: a namespace other than the host's may only
# pick an algorithm listed in tcp_allowed_congestion_control (global), so
# it is listed for the time of the check. (Without, the write fails with
# EPERM, and 6.1 .. 6.18 leak a reference to the algorithm doing so:
# neither a module nor a BPF build could then ever be freed.)
sysctl_selects() { # cc
	local allowed old got rc=0
	allowed=$(sysctl -n net.ipv4.tcp_allowed_congestion_control)
	old=$(ip netns exec "$NS_S" sysctl -n net.ipv4.tcp_congestion_control)
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed $1" ||
		return 1
	if ip netns exec "$NS_S" sysctl -qw net.ipv4.tcp_congestion_control="$1"; then
		got=$(conn_algo -)
		# The namespace's default holds a reference: put the old one back.
		ip netns exec "$NS_S" sysctl -qw net.ipv4.tcp_congestion_control="$old"
		[ "$got" = "$1" ] ||
			{ echo "the namespace default $1 gave '$got'"; rc=1; }
	else
		rc=1
	fi
	sysctl -qw net.ipv4.tcp_allowed_congestion_control="$allowed"
	return $rc
}

route_selects() { # cc
	local got rc=0
	ip -n "$NS_S" route add $ADDR_R/32 dev veth_s congctl "$1" || return 1
	ip -n "$NS_S" route show $ADDR_R/32 | grep -q "congctl $1" ||
		{ echo "route does not show congctl $1"; rc=1; }
	got=$(conn_algo -)
	ip -n "$NS_S" route del $ADDR_R/32 dev veth_s
	[ "$got" = "$1" ] || { echo "route congctl $1 gave '$got'"; rc=1; }
	return $rc
}

# Throughput of one iperf3 run of 6 s (after 2 s omitted) with CC, bit/s.
iperf_bps() { # cc
	local json port=$((5201 + RANDOM % 90))	# below PORT_SINK
	ip netns exec "$NS_R" iperf3 -s -1 -D -B $ADDR_R -p $port \
		-I "$TMP/iperf-$port.pid" --logfile "$TMP/iperf3-srv.log" || return 1
	sleep 0.5
	json=$(ip netns exec "$NS_S" timeout 120 iperf3 -c $ADDR_R -p $port \
		-C "$1" -t 6 -O 2 -J) || { echo "$json" | tail -n 5 >&2; return 1; }
	echo "$json" | grep -q "\"$1\"" ||
		{ echo "iperf3 did not report $1" >&2; return 1; }
	echo "$json" | "$PY" -c '
import json, sys
r = json.load(sys.stdin)
print(int(r["end"]["sum_received"]["bits_per_second"]))'
}

# At least 90% of the rate limit, or, where the machine itself costs flows
# their rate (a loaded host), of what cubic moves on the same link just
# after. Twice, if the first try falls short.
iperf_rate_ok() { # cc
	local bps ref log='' min=$((RATE_MBPS * 1000000 * 90 / 100))
	for _ in 1 2; do
		bps=$(iperf_bps "$1") || return 1
		log="$log${log:+; }$((bps / 1000)) kbit/s"
		[ "$bps" -ge "$min" ] && { echo "$log"; return 0; }
		ref=$(iperf_bps cubic) || return 1
		log="$log (cubic $((ref / 1000)) kbit/s)"
		[ "$bps" -ge $((ref * 90 / 100)) ] && { echo "$log"; return 0; }
	done
	echo "$log: below 90% of ${RATE_MBPS} Mbit/s (and of cubic's rate)"
	return 1
}

# Wait until the flow writing to FILE has sent data (python starts slowly
# in a TCG guest).
flow_started() { # file
	for _ in $(seq 100); do
		grep -q '^sent [1-9]' "$1" && return 0
		sleep 0.1
	done
	return 1
}

ss_shows() { # cc
	local pid rc=0
	client "$1" 3 > "$TMP/ss.out" &
	pid=$!
	flow_started "$TMP/ss.out" || { echo "the flow did not start"; rc=1; }
	ip netns exec "$NS_S" ss -tin dst $ADDR_R | grep -qw "$1" ||
		{ echo "ss -ti does not show $1"; rc=1; }
	wait "$pid"
	return $rc
}

trace_fires() { # cc
	local pid line on=0
	pt trace "$1" -c 3 -t 90 > "$TMP/trace.out" 2>&1 &
	pid=$!
	# The trace turns the events on once it has mapped the ring buffer.
	# In a guest under a loaded host that can take seconds of guest time
	# (the loader pages in over 9p, and an idle -icount guest's clock
	# runs with the host's), so the flows wait for status to say the
	# events are on; then flows until the trace has its 3 events and
	# exits, at most 5. Up to 60 s: with three guests on two host cores
	# 20 s was once too short.
	for _ in $(seq 300); do
		pt status "$1" 2>/dev/null | grep -q 'events on' &&
			{ on=1; break; }
		sleep 0.2
	done
	[ "$on" = 1 ] || echo "# status did not say 'events on' within 60 s"
	for _ in 1 2 3 4 5; do
		client "$1" 2 >/dev/null
		kill -0 "$pid" 2>/dev/null || break
	done
	wait "$pid"
	line=$(grep -m1 '^t=[0-9]* sport=.* daddr=.* dport=.* rtt_us=.* power_q16=.* cwnd=[0-9]* rate_Bps=' "$TMP/trace.out") ||
		{ echo "no events:"; cat "$TMP/trace.out"; return 1; }
	echo "$line"
}

# gen CC: the parameters' generation, from status.
gen() {
	pt status "$1" | sed -n "s/.*parameters' generation \([0-9]*\);.*/\1/p"
}

# Two writers of different parameters and a trace turning events on and
# off, all at once: every set lands and bumps the generation once.
concurrent_sets() { # cc
	local g0 g1 tpid apid bpid n=100 i
	g0=$(gen "$1")
	[ -n "$g0" ] || { echo "no generation in status"; return 1; }
	for i in 1 2 3; do pt trace "$1" -t 0.3 >/dev/null 2>&1; done &
	tpid=$!
	(for i in $(seq $n); do pt set "$1" gamma=$((500 + i)) || exit 1; done) &
	apid=$!
	(for i in $(seq $n); do pt set "$1" beta_ppm=$((1000 + i)) || exit 1; done) &
	bpid=$!
	if ! wait $apid || ! wait $bpid; then
		echo "a set failed"
		return 1
	fi
	wait $tpid
	g1=$(gen "$1")
	[ "$((g1 - g0))" = $((2 * n)) ] ||
		{ echo "generation $g0 -> $g1 after $((2 * n)) sets"; return 1; }
	[ "$(pt get "$1" gamma),$(pt get "$1" beta_ppm)" = "$((500 + n)),$((1000 + n))" ] ||
		{ echo "a lost write: gamma $(pt get "$1" gamma), beta_ppm $(pt get "$1" beta_ppm)"; return 1; }
	echo "generation $g0 -> $g1, both last values in force"
}

# A refused write leaves the old value.
refused_set() { # cc param value
	local before after out
	before=$(pt get "$1" "$2") || return 1
	out=$(refused set "$1" "$2=$3") || { echo "$out"; return 1; }
	after=$(pt get "$1" "$2")
	[ "$before" = "$after" ] || { echo "$2 changed: $before -> $after"; return 1; }
}

# Unload while a flow uses the algorithm: the unload succeeds, the flow
# keeps running with it (the kernel holds the programs until the socket
# goes), and once it ends nothing is left.
unload_in_use() { # cc
	local pid n0 n1
	client "$1" 4 > "$TMP/hold.out" &
	pid=$!
	flow_started "$TMP/hold.out"
	[ "$(head -n1 "$TMP/hold.out")" = "$1" ] ||
		{ echo "the flow did not get $1"; kill "$pid"; return 1; }
	pt unload "$1" >/dev/null || { kill "$pid"; return 1; }
	available "$1" && { echo "still registered after unload"; kill "$pid"; return 1; }
	n0=$(grep '^sent' "$TMP/hold.out" | tail -n1 | cut -d' ' -f2)
	sleep 1
	n1=$(grep '^sent' "$TMP/hold.out" | tail -n1 | cut -d' ' -f2)
	wait "$pid" || { echo "the flow failed"; return 1; }
	[ "$n1" -gt "$n0" ] || { echo "the flow stalled after unload ($n0 -> $n1 bytes)"; return 1; }
	[ "$(tail -n1 "$TMP/hold.out")" = "$1" ] ||
		{ echo "the flow ended with $(tail -n1 "$TMP/hold.out")"; return 1; }
	echo "the flow sent $((n1 - n0)) bytes in the second after unload"
}

# A module and a BPF build of the same name: whichever is first wins, the
# other is refused.
module_conflict() { # cc
	local ko=$MODDIR/tcp_$1.ko out rc=0
	insmod "$ko" || { echo "insmod $ko failed"; return 1; }
	out=$(refused load "$1") || rc=1
	echo "$out" | grep -q "kernel module tcp_$1" ||
		{ echo "the refusal does not name the module: $out"; rc=1; }
	rmmod "tcp_$1" || rc=1
	pt load "$1" >/dev/null || return 1
	if insmod "$ko" 2>/dev/null; then
		echo "insmod succeeded while the BPF build was registered"
		rmmod "tcp_$1"
		rc=1
	fi
	pt unload "$1" >/dev/null || rc=1
	[ $rc -eq 0 ] && echo "$out"
	return $rc
}

echo "# kernel $(uname -r), loader $BIN"
[ -x "$BIN" ] || { not_ok "loader $BIN missing (make bpf)"; tap_done; exit 1; }
[ -r /sys/kernel/btf/vmlinux ] ||
	{ not_ok "no /sys/kernel/btf/vmlinux: struct_ops needs BTF"; tap_done; exit 1; }
modprobe -qa veth sch_tbf sch_netem 2>/dev/null

for cc in theta_powertcp powertcp_evo; do
	if [ -d "$PIN/$cc" ]; then
		pt unload "$cc" >/dev/null 2>&1	# a previous run's
	fi
	if available "$cc"; then
		skip "$cc: all" "$cc is already registered by something else"
		continue
	fi
	check "$cc: load with target_permille=999 refused, nothing registered" \
		sh -c "'$BIN' load $cc target_permille=999 2>/dev/null;
		       [ \$? = 1 ] && ! grep -qw $cc $AVAIL"
	check "$cc: load" load_ok "$cc"
	check "$cc: pinned under $PIN/$cc" pins_ok "$cc"
	check "$cc: status reports the BPF build" \
		sh -c "'$BIN' status $cc | grep -q '^$cc: BPF struct_ops, registered'"
	check "$cc: a second load is refused in one line" refused load "$cc"
	if [ ! -e /proc/modules ]; then
		skip "$cc: a module of the same name is refused, and refuses" \
			"no module support in this kernel"
	elif [ -z "$MODDIR" ]; then
		skip "$cc: a module of the same name is refused, and refuses" \
			"no MODDIR given"
	else
		pt unload "$cc" >/dev/null
		check "$cc: a module of the same name is refused, and refuses" \
			module_conflict "$cc"
		pt load "$cc" >/dev/null
		ops_id_save "$cc"
	fi

	check "$cc: topology with a ${RATE_MBPS} Mbit/s tbf" topology "$cc"
	check "$cc: line_rate_mbps=$RATE_MBPS set" \
		sh -c "'$BIN' set $cc line_rate_mbps=$RATE_MBPS &&
		       [ \$('$BIN' get $cc line_rate_mbps) = $RATE_MBPS ]"
	check "$cc: setsockopt(TCP_CONGESTION) selects it" setsockopt_selects "$cc"
	check "$cc: sysctl tcp_congestion_control=$cc (netns default) selects it" \
		sysctl_selects "$cc"
	check "$cc: ip route ... congctl $cc selects it" route_selects "$cc"
	check "$cc: ss -ti shows it on a live flow" ss_shows "$cc"
	check "$cc: iperf3 -C $cc reaches >= 90% of the rate limit" \
		iperf_rate_ok "$cc"
	check "$cc: trace prints the powertcp_step fields per ACK" trace_fires "$cc"

	check "$cc: concurrent sets and a trace: no write or generation lost" \
		concurrent_sets "$cc"
	check "$cc: gamma=0 refused, value kept" refused_set "$cc" gamma 0
	check "$cc: gamma=1025 refused, value kept" refused_set "$cc" gamma 1025
	check "$cc: beta_ppm=abc refused, value kept" refused_set "$cc" beta_ppm abc
	check "$cc: line_rate_mbps=400001 refused, value kept" \
		refused_set "$cc" line_rate_mbps 400001
	check "$cc: smooth_pct=-1 refused, value kept" refused_set "$cc" smooth_pct -1
	check "$cc: variant=256 refused, value kept" refused_set "$cc" variant 256
	[ "$cc" != powertcp_evo ] ||
		check "$cc: variant=33 (compete with the gradient baseline) refused" \
			refused_set "$cc" variant 33
	[ "$cc" != powertcp_evo ] ||
		check "$cc: variant=96 (compete with the sample minimum) refused" \
			refused_set "$cc" variant 96
	check "$cc: a valid set takes effect" \
		sh -c "'$BIN' set $cc gamma=1024 &&
		       [ \$('$BIN' get $cc gamma) = 1024 ]"

	check "$cc: unload while a flow uses it: the flow keeps it and runs on" \
		unload_in_use "$cc"
	check "$cc: nothing left registered or pinned" nothing_left "$cc"
	check "$cc: unload when not loaded is refused in one line" \
		refused unload "$cc"
	check "$cc: loads again with target_permille=1100" \
		sh -c "'$BIN' load $cc target_permille=1100 >/dev/null &&
		       [ \$('$BIN' get $cc target_permille) = 1100 ]"
	ops_id_save "$cc"
	check "$cc: a flow runs with it" setsockopt_selects "$cc"
	check "$cc: unloaded at the end" sh -c "'$BIN' unload $cc >/dev/null"
	untopology
	check "$cc: nothing left at the end" nothing_left "$cc"
done

tap_done
