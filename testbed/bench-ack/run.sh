#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-ACK cost benchmark in one kernel: runs as root in a kernel
# booted under -icount (testbed/run.sh bench-ack boots one per kernel),
# never on a host. A benchmark, not a test: it asserts nothing about the
# figures.
#
#   testbed/bench-ack/run.sh --kmod-dir D --out DIR [options] ALG...
#
# --write-kb: the size of iperf3's writes (-l), default 128 KB, iperf3's
# own default. It sets how many skbs a write ends in a partly filled one
# (docs/PERF.md). --fixed-mbps: the rate of the CPU per byte runs
# (default 100 Mbit/s); --fixed-tso: those runs with the veth's TSO and
# GSO as they come (on), not one segment per skb.
#
# For each ALG, the cost of its ACK path, one call at a time: a sender and a
# receiver namespace joined by a veth pair, a token bucket at RATE_MBPS on
# the sender's egress and netem's 1 ms on the receiver's; iperf3 with 2
# flows for SECONDS (guest time) while the function_graph tracer times, on
# the x86-tsc trace clock, tcp_ack and the algorithm's per-ACK hooks
# (set_ftrace_filter, so nothing they call is traced):
#
#   theta_powertcp, powertcp_evo   cong_control (powertcp_cong_control_hook)
#   bbr                            cong_control (bbr_main)
#   dctcp                          in_ack_event + cong_avoid
#                                  (dctcp_update_alpha + tcp_reno_cong_avoid)
#   cubic                          pkts_acked + cong_avoid
#                                  (cubictcp_acked + cubictcp_cong_avoid)
#
# Under -icount shift=0 the TSC counts guest instructions, one tick each, so
# a duration in ticks is the number of instructions retired between the
# tracer's two timestamps. That includes part of the tracer itself: the same
# tracer times an empty function (__rcu_read_lock) for the overhead.
#
# Then the CPU headroom, REPS times, the algorithms interleaved: the same
# pair without the token bucket, iperf3 with 2 flows for SECONDS (whole
# seconds: iperf3 -t takes an integer, and 0 is forever). Our modules run
# their whole law on every ACK, but with min_rate_ppm=1000000 its output is
# floored at the line rate (25 Gbit/s): without a bottleneck the only queue
# is the one the saturated CPU makes, and a law that answered it would be
# measured instead of the CPU.
#
# And, in the same repetitions, the CPU per byte at a fixed rate: the
# same pair through a token bucket at FIXED_MBPS, the sender's veth as
# the testbed's host NICs are (one segment per skb), every algorithm as
# it runs on a real path (ours with the testbed's parameters, the law's
# output in force), iperf3 with 2 flows, a window of SECONDS from 0.5 s
# into them; the guest's busy time in it (its time not idle, from
# /proc/timer_list's idle_sleeptime and iowait_sleeptime, in ns) over the
# bytes the receiver's veth took in. Under -icount shift=0 a busy ns is
# one guest instruction, so this is instructions per KB delivered, of the
# whole guest (both stacks, iperf3 and the rest), the CPU-per-byte figure
# in which each algorithm sends as it would.
#
# Each headroom run also counts the sender's retransmitted segments
# (outside iperf3's timed window): a loss would cost the stack work that
# is not the per-ACK hooks'. And the segments it sent and the skbs it
# handed to IP (a TSO skb once): how an algorithm sends changes the
# stack's work per byte too (docs/PERF.md).
#
# Writes DIR/ALG.calls (see parse below), DIR/empty.calls,
# DIR/headroom.csv (rep, algorithm, mbps, retrans_segs, out_segs,
# out_skbs), DIR/cpu.csv (rep, algorithm, rate_mbps, mbps, window_ns,
# busy_ns, rx_bytes, retrans_segs), DIR/meta.json.

# The braces make bash read the whole script first: editing it on the host
# cannot derail a run in flight.
{
set -u

TB_PROG=bench-ack
# shellcheck source=testbed/lib/common.sh
. "$(dirname "$0")/../lib/common.sh"

usage() {
	cat <<USAGE
usage: testbed/bench-ack/run.sh --kmod-dir D --out DIR [options] ALG...
  --kmod-dir D        where tcp_theta_powertcp.ko etc. are (required)
  --out DIR           the raw data (required)
  --seconds S         whole guest seconds of traffic per algorithm, for
                      the per-call cost and for each headroom run (default 1)
  --reps N            interleaved headroom repetitions (default 3; 0: none)
  --write-kb N        iperf3's write size in KB (default 128, iperf3's own)
  --fixed-mbps R      the rate of the CPU-per-byte runs (default 100)
  --fixed-tso         those runs with TSO/GSO on (default: one segment per
                      skb, as the testbed's hosts send)
  --check-args        check the options and exit (testbed/run.sh does, on
                      the host, before any guest boots)
ALG: algorithms of testbed/algorithms.tsv with per-ACK hooks.
USAGE
}

# A bad option: one line and exit 2 (tb_die), which the host's check shows.
whole() { # option value
	[[ $2 =~ ^[1-9][0-9]{0,5}$ ]] || tb_die "$1: '$2' is not a whole number, 1 or more"
}

MODDIR='' OUT='' SECS=1 REPS=3 WRITE_KB=128 FIXED_MBPS=100 FIXED_TSO=0 CHECK=0
while [ $# -gt 0 ]; do
	case $1 in
	--kmod-dir) [ -n "${2:-}" ] || tb_die "$1 needs a value"; MODDIR=$2; shift 2 ;;
	--out) [ -n "${2:-}" ] || tb_die "$1 needs a value"; OUT=$2; shift 2 ;;
	--seconds) whole "$1" "${2:-}"; SECS=$2; shift 2 ;;
	--reps) [[ ${2:-} =~ ^[0-9]{1,3}$ ]] || tb_die "--reps: '${2:-}' is not 0 to 999"
		REPS=$2; shift 2 ;;
	--write-kb) whole "$1" "${2:-}"; WRITE_KB=$2; shift 2 ;;
	--fixed-mbps) whole "$1" "${2:-}"; FIXED_MBPS=$2; shift 2 ;;
	--fixed-tso) FIXED_TSO=1; shift ;;
	--check-args) CHECK=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) tb_die "unknown argument '$1' (see --help)" ;;
	*) break ;;
	esac
done
[ "$CHECK" = 0 ] || exit 0
[ -n "$MODDIR" ] && [ -n "$OUT" ] || tb_die "--kmod-dir and --out are required"
[ $# -gt 0 ] || tb_die "no algorithm given"
ALGS=("$@")
RATE_MBPS=50
RTT_US=1000
T=/sys/kernel/tracing

die() { echo "bench-ack: $*" >&2; exit 1; }
# Progress, with the guest's uptime.
step() { echo "# $(cut -d' ' -f1 /proc/uptime) s: $*"; }

mkdir -p "$OUT" || die "cannot create $OUT"
rm -f "$OUT"/*.calls "$OUT/headroom.csv" "$OUT/cpu.csv" "$OUT/meta.json"

# This run's namespaces (tb_ns), and what tb_load_cc gives our modules.
NS_S=$(tb_ns snd) NS_R=$(tb_ns rcv)
KMOD_DIR=$MODDIR TAU_US=$RTT_US

# hooks ALG: its per-ACK hooks, as set_ftrace_filter takes them (the
# registry's hooks column, testbed/algorithms.tsv).
hooks() {
	local h
	h=$(tb_reg "$1" hooks)
	[ -n "$h" ] && [ "$h" != - ] || die "no hooks known for $1 (testbed/algorithms.tsv)"
	echo "$h"
}

# load ALG: the algorithm, as the experiments load it (lib/common.sh's
# tb_load_cc): our modules from MODDIR with the path's tau and rate.
load() {
	tb_cc_parse "$1"
	CC_SPEC=$1 CC=$TB_CC
	tb_load_cc
}

# shellcheck source=kmod/tests/path.sh
. "$(dirname "$0")/../../kmod/tests/path.sh"	# veth_pair

topology() {
	ip netns del "$NS_S" 2>/dev/null
	ip netns del "$NS_R" 2>/dev/null
	veth_pair 10.78.0 &&
	tc -n "$NS_R" qdisc add dev veth_r root netem delay $((RTT_US / 1000))ms ||
		die "topology failed"
	case $1 in
	limited)
		tc -n "$NS_S" qdisc add dev veth_s root tbf rate ${RATE_MBPS}mbit \
			burst 15kb limit 300kb || die "tbf failed" ;;
	fixed)
		# The testbed's host NIC (testbed/lib/topology.sh, tb_host_nic):
		# one segment per skb. With TSO, a burst of two 64 KB skbs:
		# tbf splits in software a GSO skb larger than its burst,
		# which would be measured instead.
		local burst=15kb limit=300kb
		if [ "$FIXED_TSO" = 1 ]; then
			burst=128kb limit=1mb
		else
			ip netns exec "$NS_S" ethtool -K veth_s tso off gso off \
				> /dev/null &&
			ip -n "$NS_S" link set dev veth_s gso_max_segs 1 ||
				die "cannot make one segment per skb"
		fi
		tc -n "$NS_S" qdisc add dev veth_s root tbf rate ${FIXED_MBPS}mbit \
			burst $burst limit $limit || die "fixed-rate path failed" ;;
	esac
}

# clock_busy: the guest's clock and its time not idle so far, in ns, of
# its one CPU (/proc/timer_list's clock and its idle and iowait totals).
clock_busy() {
	awk '/^now at / { now = $3 }
	     /^ *\.idle_sleeptime *:/ && i == "" { i = $(NF - 1) }
	     /^ *\.iowait_sleeptime *:/ && w == "" { w = $(NF - 1) }
	     END { if (!now || i == "") exit 1
		   printf "%.0f %.0f\n", now, now - i - w }' /proc/timer_list
}

# iperf_server: a one-shot iperf3 server in the receiver's namespace.
iperf_server() {
	ip netns exec "$NS_R" iperf3 -s -1 -D -B 10.78.0.2 -p 5301 \
		--logfile /tmp/iperf3-srv.log || die "iperf3 server failed"
	sleep 0.3
}

# cpu ALG SECONDS: "ns busy_ns rx_bytes" of a window of SECONDS inside a
# run of 2 flows, from 0.5 s after the flows start: iperf3's start and
# end (its processes, the connections) are outside it.
cpu() {
	local pid t0 b0 n0 t1 b1 n1
	iperf_server
	ip netns exec "$NS_S" iperf3 -c 10.78.0.2 -p 5301 -C "$1" -P 2 \
		-t $(($2 + 1)) -l "${WRITE_KB}K" > /tmp/iperf3-cpu.log 2>&1 &
	pid=$!
	sleep 0.5
	read -r t0 b0 < <(clock_busy) && n0=$(rx_bytes)
	sleep "$2"
	read -r t1 b1 < <(clock_busy) && n1=$(rx_bytes)
	wait "$pid" || die "iperf3 $1 failed: $(tail -n 3 /tmp/iperf3-cpu.log)"
	echo "$((t1 - t0)) $((b1 - b0)) $((n1 - n0))"
	sleep 0.3
}

# rx_bytes: the bytes the receiver's veth has taken in.
rx_bytes() {
	ip netns exec "$NS_R" cat /sys/class/net/veth_r/statistics/rx_bytes
}

# params ALG LINE_RATE_MBPS MIN_RATE_PPM: our modules' rate parameters.
params() {
	local m=/sys/module/tcp_$1/parameters
	[ -f "$m/line_rate_mbps" ] || return 0	# not ours (cubic has some)
	echo "$2" > "$m/line_rate_mbps" && echo "$3" > "$m/min_rate_ppm" ||
		die "cannot set $1's rates"
}

# iperf3 ALG SECONDS: prints the receiver's goodput in Mbit/s (python would
# cost the guest seconds to start).
iperf() {
	local out
	iperf_server
	out=$(ip netns exec "$NS_S" iperf3 -c 10.78.0.2 -p 5301 -C "$1" \
		-P 2 -t "$2" -l "${WRITE_KB}K" -f k) ||
		die "iperf3 $1 failed: $(echo "$out" | tail -n 3)"
	echo "$out" | awk '/SUM.*receiver/ {
		for (i = 1; i < NF; i++) if ($(i + 1) == "Kbits/sec") v = $i
		printf "%.3f\n", v / 1000 }'
	sleep 0.3
}

# snmp PROTO FIELD: the sender namespace's counter FIELD of PROTO ("Tcp",
# "Ip") so far, from /proc/net/snmp (each namespace has its own counters).
snmp() {
	ip netns exec "$NS_S" awk -v p="$1:" -v f="$2" '$1 == p {
		if (!n) { for (i = 2; i <= NF; i++) if ($i == f) c = i
			  n = 1; next }
		print $c }' /proc/net/snmp
}

# DCTCP negotiates ECN only from the SYN on (iperf3 -C sets the algorithm
# after it) and with a DCTCP listener: else both ends fall back to Reno,
# and no in_ack_event is called. So for DCTCP both namespaces default to
# it (a namespace may only default to an allowed algorithm); else cubic.
ns_default() {
	local d=cubic
	if [ "$1" = dctcp ]; then
		d=dctcp
		sysctl -qw net.ipv4.tcp_allowed_congestion_control="reno cubic dctcp" ||
			die "cannot allow dctcp"
	fi
	ip netns exec "$NS_R" sysctl -qw net.ipv4.tcp_congestion_control=$d &&
	ip netns exec "$NS_S" sysctl -qw net.ipv4.tcp_congestion_control=$d ||
		die "cannot make the namespaces' default $d"
}

tracer_reset() {
	echo 0 > $T/tracing_on
	echo nop > $T/current_tracer
	echo > $T/set_ftrace_filter
	echo > $T/trace
}

# Durations of the trace, in ticks: one "A ticks N hook,hook..." line per
# tcp_ack that called a hook (the N hooks' ticks summed), one "H name
# ticks" per hook call; "L name ticks" for a traced leaf outside tcp_ack.
parse() {
	awk '
	function ticks(s) {
		if (!match(s, /[0-9]+\.[0-9]+ us/)) return -1
		s = substr(s, RSTART, RLENGTH - 3)
		split(s, p, ".")
		return p[1] * 1000 + p[2]
	}
	/^#/ || !/\|/ { next }
	{
		fn = $0; sub(/.*\| */, "", fn)
		sub(/ \[[A-Za-z_0-9]+\]\(/, "(", fn)	# module functions
		d = ticks($0)
	}
	fn ~ /^[A-Za-z_0-9.]+\(\) \{/ {
		sub(/\(.*/, "", fn); depth++; name[depth] = fn
		sum[depth] = 0; n[depth] = 0; hk[depth] = ""; next
	}
	fn ~ /^\}/ {
		if (depth < 1) next
		if (name[depth] == "tcp_ack") {
			if (n[depth])
				printf "A %d %d %s\n", sum[depth], n[depth],
					substr(hk[depth], 2)
		} else
			hook(name[depth], d)
		depth--; next
	}
	fn ~ /^[A-Za-z_0-9.]+\(\);/ {
		sub(/\(.*/, "", fn)
		if (fn == "tcp_ack") next
		hook(fn, d)
	}
	function hook(f, d,	i) {
		for (i = depth; i >= 1; i--)
			if (name[i] == "tcp_ack") {
				sum[i] += d; n[i]++; hk[i] = hk[i] "," f
				printf "H %s %d\n", f, d
				return
			}
		printf "L %s %d\n", f, d
	}'
}

[ -d $T ] || die "no tracefs at $T"
grep -qw function_graph $T/available_tracers || die "no function_graph tracer"
echo x86-tsc > $T/trace_clock || die "no x86-tsc trace clock"
echo 16384 > $T/buffer_size_kb || die "cannot size the trace buffer"
for o in funcgraph-tail funcgraph-duration funcgraph-irqs; do
	echo 1 > "$T/options/$o"
done
for o in funcgraph-proc funcgraph-cpu funcgraph-abstime; do
	echo 0 > "$T/options/$o"
done
sysctl -qw net.ipv4.tcp_congestion_control=cubic
# Page iperf3 in (host I/O would stall the guest mid-run), and the
# tracer's empty-function overhead.
cat "$(command -v iperf3)" /usr/lib/x86_64-linux-gnu/libiperf.so* > /dev/null
iperf3 -v > /dev/null
step "the tracer's overhead"
tracer_reset
echo __rcu_read_lock > $T/set_ftrace_filter || die "cannot trace __rcu_read_lock"
echo function_graph > $T/current_tracer
echo 1 > $T/tracing_on
cat /proc/self/stat > /dev/null
echo 0 > $T/tracing_on
parse < $T/trace > "$OUT/empty.calls"
tracer_reset

for alg in "${ALGS[@]}"; do
	step "$alg: per-call cost"
	load "$alg"
	topology limited
	ns_default "$alg"
	filt="tcp_ack $(hooks "$alg")"
	for f in $filt; do
		echo "$f" >> $T/set_ftrace_filter || die "cannot trace $f"
	done
	echo function_graph > $T/current_tracer
	echo 1 > $T/tracing_on
	mbps=$(iperf "$alg" "$SECS")
	echo 0 > $T/tracing_on
	[ -z "${BENCH_RAW:-}" ] || head -n 3000 $T/trace > "$OUT/$alg.raw"
	parse < $T/trace > "$OUT/$alg.calls"
	lost=$(awk '/^overrun:/ { print $2 + 0 }' \
		$T/per_cpu/cpu0/stats)
	tracer_reset
	echo "# $alg: $(grep -c '^A' "$OUT/$alg.calls") ACKs timed," \
		"${mbps} Mbit/s through ${RATE_MBPS} Mbit/s, overrun $lost"
	[ "${lost:-0}" = 0 ] || die "$alg: the trace buffer overran ($lost)"
done

echo "rep,algorithm,mbps,retrans_segs,out_segs,out_skbs" > "$OUT/headroom.csv"
echo "rep,algorithm,rate_mbps,mbps,window_ns,busy_ns,rx_bytes,retrans_segs" \
	> "$OUT/cpu.csv"
clock_busy > /dev/null || die "no idle time in /proc/timer_list"
# Our modules' min_rate_ppm as loaded (the testbed's), for the fixed-rate
# runs; the headroom runs floor it.
declare -A min_ppm
for alg in "${ALGS[@]}"; do
	f=/sys/module/tcp_$alg/parameters/min_rate_ppm
	[ ! -f "$f" ] || min_ppm[$alg]=$(cat "$f")
done
for rep in $(seq "$REPS"); do
	for alg in "${ALGS[@]}"; do
		step "$alg: headroom $rep"
		topology unlimited
		ns_default "$alg"
		params "$alg" 25000 1000000
		r0=$(snmp Tcp RetransSegs) g0=$(snmp Tcp OutSegs)
		k0=$(snmp Ip OutRequests)
		mbps=$(iperf "$alg" "$SECS")
		rx=$(($(snmp Tcp RetransSegs) - r0))
		segs=$(($(snmp Tcp OutSegs) - g0))
		skbs=$(($(snmp Ip OutRequests) - k0))
		echo "$rep,$alg,$mbps,$rx,$segs,$skbs" >> "$OUT/headroom.csv"
		echo "# headroom rep $rep $alg: $mbps Mbit/s," \
			"$rx segments retransmitted, $segs sent in $skbs skbs"

		step "$alg: CPU per byte at $FIXED_MBPS Mbit/s, rep $rep"
		topology fixed
		ns_default "$alg"
		params "$alg" "$FIXED_MBPS" "${min_ppm[$alg]:-}"
		r0=$(snmp Tcp RetransSegs)
		read -r ns busy bytes < <(cpu "$alg" "$SECS")
		[ -n "${bytes:-}" ] || die "$alg: no CPU window measured"
		rx=$(($(snmp Tcp RetransSegs) - r0))
		mbps=$(awk -v b="$bytes" -v t="$ns" \
			'BEGIN { printf "%.3f", b * 8e3 / t }')
		echo "$rep,$alg,$FIXED_MBPS,$mbps,$ns,$busy,$bytes,$rx" \
			>> "$OUT/cpu.csv"
		echo "# cpu rep $rep $alg: $mbps Mbit/s, busy $busy of $ns ns" \
			"for $bytes bytes, $rx segments retransmitted"
	done
done
ip netns del "$NS_S"
ip netns del "$NS_R"

cat > "$OUT/meta.json" <<JSON
{"kernel": "$(uname -r)", "seconds": $SECS, "reps": $REPS, "write_kb": $WRITE_KB,
 "rate_mbps": $RATE_MBPS, "fixed_mbps": $FIXED_MBPS, "fixed_tso": $FIXED_TSO, "rtt_us": $RTT_US, "trace_clock": "x86-tsc",
 "tsc": "$(dmesg | grep -m1 -o 'tsc: Refined TSC.*' || dmesg | grep -m1 -o 'tsc: Detected.*')",
 "empty_function": "__rcu_read_lock"}
JSON
echo "# bench-ack: done"
# Never read on past the block: the file may have changed under the run.
exit 0
}
