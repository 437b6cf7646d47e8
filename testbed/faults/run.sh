#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fault matrix for one congestion control (docs/RELIABILITY.md): each
# case builds the star of testbed/lib/topology.sh anew, adds its fault (loss,
# reordering, a link down, a blackhole, an odd MTU, a wrong tau, parameter
# writes, rmmod attempts...) and runs flows whose every byte the receiver
# checks (tcpflows --verify). A case passes if every flow finishes, every
# byte arrives right, no flow goes longer than the case's bound without
# progress, and the kernel logs nothing bad. Runs as root where modules
# can be loaded: inside the QEMU guest (testbed/run.sh faults does that).
#
#   testbed/faults/run.sh --cc SPEC --out DIR [--cases A,B,..] [options]
#
# Prints KTAP, one result per case; OUT/CASE/ holds flows.csv, verify.csv,
# case.json (the figures), dmesg.txt and ss-hN.txt (the senders' sockets
# at the end), qdisc-hN.txt (their netem's counters, in the netem cases);
# OUT/params.json the run.

# "A && B || C" throughout: C if either fails, as meant.
# shellcheck disable=SC2015
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB_PROG=faults
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"
# shellcheck source=testbed/lib/topology.sh
. "$ROOT/testbed/lib/topology.sh"
# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"

ALL_CASES=(base loss0.1 loss1 loss5 reorder duplicate corrupt linkdown1s
	blackhole10s buffer3pkt ecn mtu1280 mtu9000 pmtu ipv6 flows1000
	conns10000 applimited rwndlimited rtt260us rtt50ms rtt500ms tau_low
	tau_high rate_high rate_low ccswitch paramwrites rmmod)
SMOKE_CASES=(loss1 ccswitch paramwrites rmmod)
RATE_MBPS=100 DURATION_US=1500000 CASES_ARG=''
TB_NO_OPTS='--no-sample --trace --start-jitter-us --ecn-k-bytes --host-stack --rx-usecs --serial-link'

usage() {
	cat <<USAGE
usage: testbed/faults/run.sh --cc SPEC --out DIR [options]
  --cases A,B,..      the cases (default: all of them), or 'smoke' for
                      $(IFS=,; echo "${SMOKE_CASES[*]}"); all:
                      $(IFS=,; echo "${ALL_CASES[*]}")
  --duration-us T     traffic per case (default 1500000; the long-RTT and
                      blackhole cases take longer, see docs/RELIABILITY.md)
  --list-cases        print all the cases, comma-separated, and exit
USAGE
	tb_usage_common
}

opts() {
	case $1 in
	--cases) tb_val "$1" "${2:-}"; CASES_ARG=$2 ;;
	--duration-us) tb_num "$1" "${2:-}"; DURATION_US=$2 ;;
	--list-cases) (IFS=,; echo "${ALL_CASES[*]}"); exit 0 ;;
	*) return 1 ;;
	esac
	TB_SHIFT=2
}

tb_parse_args opts "$@"
CASES=()
case $CASES_ARG in
'') CASES=("${ALL_CASES[@]}") ;;
smoke) CASES=("${SMOKE_CASES[@]}") ;;
*)	IFS=, read -r -a CASES <<< "$CASES_ARG"
	for c in "${CASES[@]}"; do
		[[ " ${ALL_CASES[*]} " == *" $c "* ]] ||
			tb_die "--cases: no case '$c' (see --help)"
	done ;;
esac
[ "$DURATION_US" -ge 500000 ] || tb_die "--duration-us: at least 500000"
tb_setup
[ "$TB_CHECK" = 1 ] || trap 'rc=$?; stop_bg; (exit $rc); tb_cleanup' EXIT
TAU_US=${TAU_US:-$RTT_US}
BG=''		# the case's background action, if running
BAD_LOG='WARNING:|BUG:|Oops|sleeping function called from invalid context|Call Trace|general protection|KASAN|UBSAN|refcount_t|list_add corruption|soft lockup|hung task|rcu.*stall'

tb_prelude tcpflows param-writer
# ss -tinoe reads sockets through sock_diag (not built in on Debian).
modprobe -qa inet_diag tcp_diag 2>/dev/null || true
OURS=0
[ -n "$TB_CC_MODULE" ] && [ -e "/sys/module/$TB_CC_MODULE/parameters/base_rtt_us" ] &&
	OURS=1

# set_param NAME VALUE: a parameter of our module (nothing for others).
set_param() {
	[ "$OURS" = 1 ] || return 0
	tb_set_param "$TB_CC_MODULE" "$1" "$2"
}

stop_bg() {
	if [ -n "$BG" ]; then
		kill "$BG" 2>/dev/null || true
		wait "$BG" 2>/dev/null || true
		BG=''
	fi
}

# at_us T: wait until tcpflows has written its epoch, then about T us
# more. The epoch is the end of its setup plus --margin-us (10 ms), so T
# from the file's appearance (polled every 10 ms) is T to within 10 ms.
at_us() {
	local n=0
	while [ ! -s "$WORK/epoch" ]; do
		n=$((n + 1))
		[ $n -lt 6000 ] || exit 1
		sleep 0.01
	done
	[ "$1" -le 0 ] || sleep "$(awk -v t="$1" 'BEGIN { printf "%.3f", t / 1e6 }')"
}

# --- the cases' actions (in the background during the traffic) -----------

# sleeper VAR: VAR gets a descriptor that never has data, for "read -t T"
# as a sleep that is a builtin (no process per millisecond).
sleeper() {
	local f=$WORK/sleeper.$BASHPID
	mkfifo "$f"
	exec {fd}<> "$f"
	rm -f "$f"
	printf -v "$1" '%s' "$fd"
}

# The bottleneck's link down for 1 s at 1/3 of the run.
act_linkdown1s() {
	at_us $((C_STOP_US / 3))
	ip -n "$TB_SW" link set "$TB_BOTTLENECK_DEV" down
	sleep 1
	ip -n "$TB_SW" link set "$TB_BOTTLENECK_DEV" up
	echo "link down 1 s" > "$WORK/action.txt"
}

# Everything towards the receiver silently dropped for 10 s.
act_blackhole10s() {
	at_us 1000000
	ip -n "$TB_SW" route add blackhole "$TB_RCV_ADDR/32"
	sleep 10
	ip -n "$TB_SW" route del blackhole "$TB_RCV_ADDR/32"
	echo "blackhole 10 s" > "$WORK/action.txt"
	# The first sender's socket 1, 5 and 10 s after: the RTO backoff.
	local t prev=0
	for t in 1 5 10; do
		sleep $((t - prev))
		prev=$t
		ip netns exec "$(tb_host 1)" ss -tinoe > "$WORK/ss-h1-after-${t}s.txt" 2>&1 || true
	done
}

# The path MTU drops from 1500 to 1280 at 1/3 of the run: the switch sends
# "fragmentation needed" and the senders must resegment.
act_pmtu() {
	at_us $((C_STOP_US / 3))
	ip -n "$TB_SW" link set "$TB_BOTTLENECK_DEV" mtu 1280
	echo "bottleneck mtu 1500 -> 1280" > "$WORK/action.txt"
}

# Parameter writes every millisecond under load (param-writer, on an
# absolute schedule), cycling through the valid values, then the refused
# ones (out of range, not a number): a valid write must be taken, an
# invalid one must fail. action.txt, rewritten every ~100 ms: "writes
# taken refused bad mean_interval_us max_late_us". exec: stop_bg's kill
# reaches the writer itself.
act_paramwrites() {
	local inv=()
	[ ${#PW_INVALID[@]} = 0 ] ||
		inv=(--invalid "$(IFS=,; echo "${PW_INVALID[*]}")")
	at_us 0
	exec "$TB_TOOLS/param-writer" --dir "/sys/module/$PW_MOD/parameters" \
		--period-us 1000 --duration-us "$C_STOP_US" \
		--status "$WORK/action.txt" \
		--valid "$(IFS=,; echo "${PW_VALID[*]}")" "${inv[@]}"
}

# rmmod attempts every 100 ms while flows use the module: every one must
# be refused.
act_rmmod() {
	local n=0 done=0 fd
	sleeper fd
	at_us 0
	while [ $n -lt $((C_STOP_US / 100000)) ]; do
		n=$((n + 1))
		rmmod "$RM_MOD" 2>/dev/null && done=$((done + 1))
		echo "$n $done" > "$WORK/action.tmp"
		mv "$WORK/action.tmp" "$WORK/action.txt"
		read -r -t 0.1 -u "$fd" _ || true
	done
}

# --- one case --------------------------------------------------------------

# case_defaults, then case_set CASE: the case's topology, flows, fault and
# stall bound.
case_defaults() {
	C_HOSTS=2 C_FLOWS=2 C_BYTES=0 C_STOP_US=$DURATION_US C_DRAIN_US=2000000
	C_RTT_US=$RTT_US C_MTU=$MTU C_BUF=$BUFFER_BYTES C_K=0 C_V6=0
	C_TAU_US=$TAU_US C_LINE_MBPS=$RATE_MBPS C_NETEM='' C_ACTION=''
	C_BOUND_US=1000000 C_TF=() C_SPACING_US=1000 C_CC0='' C_NOTE=''
}

case_set() {
	case $1 in
	base) C_NOTE="4 MB buffer, no fault" ;;
	loss0.1) C_NETEM='loss 0.1%' ;;
	loss1) C_NETEM='loss 1%' ;;
	# A retransmission lost again doubles the RTO (200, 400, 800 ms...):
	# at 5% some segment of a run meets three losses in a row (p^3 over
	# ~500 losses: ~6% of runs), so 3.2 s, four RTOs.
	loss5) C_NETEM='loss 5%' C_BOUND_US=3200000 ;;
	# netem reorders by delaying: 75% of packets take 300 us more, so
	# the path's base RTT is RTT + 300 us, and that is tau.
	reorder) C_NETEM='delay 300us reorder 25% 50%'
		C_TAU_US=$((RTT_US + 300)) C_NOTE="tau = RTT + netem's 300 us" ;;
	duplicate) C_NETEM='duplicate 2%' ;;
	corrupt) C_NETEM='corrupt 1%' ;;
	linkdown1s) C_ACTION=act_linkdown1s C_BOUND_US=3000000 C_DRAIN_US=6000000 ;;
	blackhole10s) C_ACTION=act_blackhole10s C_STOP_US=$((DURATION_US + 10000000))
		C_DRAIN_US=15000000 C_BOUND_US=25000000 ;;
	# The queue counts frames with their 14-byte Ethernet header: 3 *
	# MTU bytes held two full-size packets, not three.
	buffer3pkt) C_BUF=$((3 * (MTU + 14))) ;;
	ecn) C_K=$((20 * MTU)) C_NOTE="RED marks ECN at 20 packets" ;;
	mtu1280) C_MTU=1280 ;;
	mtu9000) C_MTU=9000 C_RTT_US=$((RTT_US > 1600 ? RTT_US : 1600)) C_TAU_US=$C_RTT_US ;;
	pmtu) C_ACTION=act_pmtu ;;
	ipv6) C_V6=1 ;;
	# Each sender keeps at most 16 KB unsent (TCP_NOTSENT_LOWAT): without
	# it, 1000 send buffers hold ~57 MB at the stop, 4.5 s of the link,
	# and no drain short of that lets the flows finish.
	flows1000) C_HOSTS=1 C_FLOWS=1000 C_SPACING_US=1 C_BOUND_US=5000000
		C_TF=(--chunk 16384 --notsent-lowat 16384) C_DRAIN_US=6000000
		C_NOTE="1000 flows from one host, 16 KB unsent each at most" ;;
	# One every 100 us was more than a TCG guest accepts: cubic's as
	# ours, a third of them waited out a SYN retransmission (1 s) and
	# the last finished 3 s after the first; one a millisecond is what
	# the guest keeps up with.
	conns10000) C_HOSTS=2 C_FLOWS=10000 C_BYTES=2000 C_SPACING_US=1000
		C_STOP_US=0 C_TF=(--chunk 16384) C_DRAIN_US=5000000
		C_NOTE="10000 connections of 2000 B, one every 1000 us" ;;
	applimited) C_TF=(--app-rate-mbps 20) C_NOTE="each flow writes 20 Mbit/s" ;;
	rwndlimited) C_TF=(--rcvbuf 16384) C_NOTE="receiver SO_RCVBUF 16 KB" ;;
	rtt260us) C_RTT_US=260 C_TAU_US=260 ;;
	rtt50ms) C_RTT_US=50000 C_TAU_US=50000 C_STOP_US=$((DURATION_US * 2)) ;;
	rtt500ms) C_RTT_US=500000 C_TAU_US=500000 C_STOP_US=$((DURATION_US * 4))
		C_DRAIN_US=6000000 C_BOUND_US=5000000 ;;
	tau_low) C_TAU_US=$((RTT_US / 100)) C_NOTE="tau = RTT/100" ;;
	tau_high) C_TAU_US=$((RTT_US * 100)) C_NOTE="tau = 100 x RTT" ;;
	rate_high) C_LINE_MBPS=$((RATE_MBPS * 10)) C_NOTE="line_rate_mbps 10x the link" ;;
	rate_low) C_LINE_MBPS=$((RATE_MBPS / 10)) C_NOTE="line_rate_mbps the link / 10" ;;
	ccswitch) C_CC0=cubic
		C_TF=(--cc-switch "$((DURATION_US / 3)),$CC"
		      --cc-switch "$((DURATION_US * 2 / 3)),cubic")
		C_NOTE="cubic, $CC at 1/3, cubic at 2/3" ;;
	paramwrites) C_ACTION=act_paramwrites ;;
	rmmod) C_ACTION=act_rmmod ;;
	esac
}

# The star with the case's MTU, RTT, buffer, ECN threshold; a netem on
# each sender's egress for the case's loss/reordering/duplication/
# corruption; IPv6 addresses for the ipv6 case.
case_topology() {
	local i
	TB_RATE_MBPS=$RATE_MBPS TB_RTT_US=$C_RTT_US TB_BUFFER_BYTES=$C_BUF \
	TB_MTU=$C_MTU TB_CC=$CC TB_ECN_K_BYTES=$C_K tb_star "$C_HOSTS"
	if [ -n "$C_NETEM" ]; then
		for i in $(seq 1 "$C_HOSTS"); do
			add_netem "$(tb_host "$i")"
		done
	fi
	if [ "$C_V6" = 1 ]; then
		ip netns exec "$TB_SW" sysctl -qw net.ipv6.conf.all.forwarding=1
		ip -n "$TB_RCV" addr add fd00::2/64 dev eth0 nodad &&
		ip -n "$TB_SW" addr add fd00::1/64 dev "$TB_BOTTLENECK_DEV" nodad &&
		ip -n "$TB_RCV" -6 route add default via fd00::1 quickack 1 ||
			tb_die "cannot add IPv6 to the receiver"
		for i in $(seq 1 "$C_HOSTS"); do
			ip -n "$(tb_host "$i")" addr add "fd00:$i::2/64" dev eth0 nodad &&
			ip -n "$TB_SW" addr add "fd00:$i::1/64" dev "to_h$i" nodad &&
			ip -n "$(tb_host "$i")" -6 route add default via "fd00:$i::1" ||
				tb_die "cannot add IPv6 to host $i"
		done
	fi
}

case_flows() {
	local i dst=$TB_RCV_ADDR start stop=$C_STOP_US
	[ "$C_V6" = 1 ] && dst=fd00::2
	echo "--listen $TB_RCV,$dst,5001"
	for i in $(seq 0 $((C_FLOWS - 1))); do
		start=$((i * C_SPACING_US))
		echo "--flow $i,$(tb_host $((i % C_HOSTS + 1))),$dst,5001,$start,$C_BYTES,$stop${C_CC0:+,$C_CC0}"
	done
}

# add_netem NS: the case's netem on NS's eth0, for TCP segments other than
# SYNs. A lost SYN waits out TCP's initial RTO of 1 s (RFC 6298), and a lost
# ARP packet the neighbour table's 1 s retransmission (retrans_time_ms), so
# the flow connects a second late whatever the congestion control: in a
# run of a second or so it never connects at all. The cases test the
# transfer: a prio qdisc sends TCP to the band with the netem, and SYNs
# (IPv4 without options: TCP's flags at byte 33), ARP and the rest to the
# band without.
add_netem() {
	local netem
	read -r -a netem <<< "$C_NETEM"
	tc -n "$1" qdisc add dev eth0 root handle 1: prio bands 2 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 &&
	tc -n "$1" qdisc add dev eth0 parent 1:2 handle 20: netem \
		"${netem[@]}" limit 100000 &&
	tc -n "$1" filter add dev eth0 parent 1: protocol ip prio 1 u32 \
		match ip protocol 6 0xff match u8 0x05 0x0f at 0 \
		match u8 0x02 0x02 at 33 flowid 1:1 &&
	tc -n "$1" filter add dev eth0 parent 1: protocol ip prio 2 u32 \
		match ip protocol 6 0xff flowid 1:2 ||
		tb_die "cannot add netem $C_NETEM"
}

run_case() {
	local name=$1 dir=$OUT/$1 n0 rc=0 dur i
	case_defaults
	case_set "$name"
	mkdir -p "$dir"
	rm -f "$dir"/* "$WORK"/*
	set_param base_rtt_us "$C_TAU_US"
	set_param line_rate_mbps "$C_LINE_MBPS"
	case_topology
	case_flows | tr ' ' '\n' > "$WORK/args"
	# End: the last stop (or start) plus the drain time.
	dur=$(( (C_STOP_US > 0 ? C_STOP_US : C_FLOWS * C_SPACING_US) + C_DRAIN_US ))
	n0=$(dmesg | wc -l)
	if [ -n "$C_ACTION" ]; then
		"$C_ACTION" &
		BG=$!
	fi
	mapfile -t args < "$WORK/args"
	tb_run "$TB_TOOLS/tcpflows" --out-dir "$WORK" --duration-us "$dur" \
		--interval-us "$([ "$name" = applimited ] && echo 1000 || echo 0)" \
		--epoch-file "$WORK/epoch" --seed "$SEED" --verify --quiet \
		"${C_TF[@]}" "${args[@]}" > "$WORK/tcpflows.out" 2>&1 || rc=$?
	[ "$rc" = 0 ] || stop_bg
	wait_bg
	dmesg | tail -n +$((n0 + 1)) > "$dir/dmesg.txt"
	# The senders' sockets as the case ends (ss -tinoe: state, timers,
	# RTO and backoff, cwnd, pacing, retransmissions), for a flow that
	# did not finish.
	for i in $(seq 1 "$C_HOSTS"); do
		ip netns exec "$(tb_host "$i")" ss -tinoe > "$dir/ss-h$i.txt" 2>&1 || true
		[ -z "$C_NETEM" ] ||
			{ tc -n "$(tb_host "$i")" -s qdisc show dev eth0
			  tc -n "$(tb_host "$i")" -s class show dev eth0; } > "$dir/qdisc-h$i.txt" 2>&1
	done
	cp "$WORK/flows.csv" "$WORK/verify.csv" "$WORK/tcpflows.out" "$dir/" 2>/dev/null || true
	cp "$WORK"/action.txt "$WORK"/ss-h1-after-* "$dir/" 2>/dev/null || true
	tb_destroy
	# Reload: with no connection left, the module must go, and come back.
	RELOAD=na
	if [ -n "$TB_CC_FILE" ]; then
		# The namespaces' references go when their cleanup runs
		# (asynchronously): up to 10 s.
		for _ in $(seq 100); do
			rmmod "$TB_CC_MODULE" 2>"$WORK/rmmod.err" && break
			sleep 0.1
		done
		if ! [ -d "/sys/module/$TB_CC_MODULE" ]; then
			tb_load_cc
			RELOAD=ok
		else
			RELOAD="refused: $(cat "$WORK/rmmod.err")"
			RELOAD=${RELOAD//\"/\'}
		fi
	fi
	/usr/bin/python3 "$ROOT/testbed/faults/case.py" --dir "$dir" --case "$name" \
		--cc "$CC" --tcpflows-rc "$rc" --stop-us "$C_STOP_US" \
		--bound-us "$C_BOUND_US" --flows "$C_FLOWS" --bytes "$C_BYTES" \
		--reload "$RELOAD" --bad-log "$BAD_LOG" --note "$C_NOTE" \
		--setting "rtt_us=$C_RTT_US" --setting "tau_us=$C_TAU_US" \
		--setting "mtu=$C_MTU" --setting "buffer_bytes=$C_BUF" \
		--setting "ecn_k_bytes=$C_K" --setting "line_rate_mbps=$C_LINE_MBPS" \
		--setting "netem=$C_NETEM" --setting "ipv6=$C_V6" \
		--setting "ours=$OURS"
}

wait_bg() {
	if [ -n "$BG" ]; then
		wait "$BG" 2>/dev/null || true
		BG=''
	fi
}

# The parameter writes: ours get valid and refused values of gamma and
# beta_ppm; CUBIC's own (built in, or tcp_cubic) valid betas and a
# non-number.
PW_MOD=$TB_CC_MODULE RM_MOD=$TB_CC_MODULE
if [ "$OURS" = 1 ]; then
	PW_VALID=(gamma=700 "gamma=$(cat "/sys/module/$PW_MOD/parameters/gamma")"
		  beta_ppm=3000 "beta_ppm=$(cat "/sys/module/$PW_MOD/parameters/beta_ppm")")
	PW_INVALID=(gamma=0 gamma=5000 beta_ppm=2000000 gamma=x)
else
	PW_MOD=tcp_$CC RM_MOD=tcp_$CC
	PW_VALID=() PW_INVALID=()
	if [ -w "/sys/module/$PW_MOD/parameters/beta" ]; then
		b=$(cat "/sys/module/$PW_MOD/parameters/beta")
		PW_VALID=(beta=$((b - 1)) "beta=$b")
		PW_INVALID=(beta=x)
	fi
fi

echo "# faults: $CC, R=${RATE_MBPS} Mbit/s, RTT=${RTT_US} us, tau=${TAU_US} us," \
	"${#CASES[@]} cases, ${DURATION_US} us of traffic each"
tap_plan "${#CASES[@]}"
for c in "${CASES[@]}"; do
	if [ "$c" = paramwrites ] && [ ${#PW_VALID[@]} = 0 ]; then
		skip "$c" "$CC has no writable parameters"
		continue
	fi
	run_case "$c"
	line=$(/usr/bin/python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(("ok" if d["ok"] else "NOTOK") + " " + d["line"])' "$OUT/$c/case.json")
	if [ "${line%% *}" = ok ]; then ok "${line#* }"; else not_ok "${line#* }"; fi
done
set_param base_rtt_us "$TAU_US"
set_param line_rate_mbps "$RATE_MBPS"

tb_param cases "$(IFS=,; echo "${CASES[*]}")" duration_us "$DURATION_US"
tb_write_params "$OUT/params.json"
tap_done
