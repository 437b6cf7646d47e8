#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fairness experiment of the PowerTCP paper (Figure 6's shape) for one
# congestion control, on the star topology of testbed/topology.sh: four
# senders to one receiver through the bottleneck, flow i (from tb_h(i+1))
# active from i to i+4 phases, so 1, 2, 3, 4, 3, 2, 1 flows share the link.
# Runs as root where modules can be loaded: inside the QEMU guest
# (scripts/vm-run.sh) or natively.
#
#   testbed/fairness.sh --cc NAME --out DIR [options]
#
# Scaling: as testbed/incast.sh, the paper's 25 Gb/s, 4.64 us in-rack RTT
# and 4 MB buffer become, at R Mb/s, a time scale of 25000/R. The paper's
# 100 ms phases (21552 base RTTs) are NOT kept: a phase is --phase-rtts
# base RTTs (default 400, 3.25 s of experiment at 100 Mb/s). That is a
# deliberate compression, ~54x at the default: convergence takes tens of
# RTTs, so 400 RTTs still shows it and the steady state after it, and the
# run stays short enough for a TCG guest.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TB_PROG=fairness
# shellcheck source=testbed/topology.sh
. "$ROOT/testbed/topology.sh"

CC='' OUT='' RATE_MBIT=100 FLOWS=4 MTU=1500 SEED=1 SAMPLE=1 HEADROOM=1 TRACE=0
RTT_US='' TAU_US='' BUFFER_BYTES=4000000 PHASE_RTTS=400 INTERVAL_US='' TAIL_US=''
SETTLE_US='' ECN_K_BYTES=30000 LOWAT='' KMOD_DIR=''
PAPER_PHASE_RTTS=21552	# 100 ms / 4.64 us

usage() {
	cat <<USAGE
usage: testbed/fairness.sh --cc NAME --out DIR [options]
  --rate-mbit R      bottleneck rate (default 100)
  --rtt-us T         base RTT (default 4.64 us x 25000/R: 1160 at 100)
  --tau-us T         tau of the PowerTCP modules (default: the base RTT)
  --buffer-bytes B   bottleneck FIFO (default 4000000, the paper's 4 MB)
  --phase-rtts N     length of each of the 7 phases in base RTTs (default
                     400). The paper's phases are 100 ms = 21552 base RTTs;
                     this deliberately compresses them (~54x at 400), as
                     convergence takes tens of RTTs.
  --interval-us T    per-flow goodput interval (default 4 base RTTs)
  --settle-us T      convergence allowance at the start of each phase,
                     excluded from the steady-state statistics (default
                     100 base RTTs, at most a quarter of a phase)
  --tail-us T        run on after the last flow stops, to see the senders'
                     queues drain (default 50 base RTTs)
  --notsent-lowat B  TCP_NOTSENT_LOWAT of the senders, bounds what is left
                     to send after a flow's stop (default 2 BDP; 0 = off)
  --ecn-k-bytes K    DCTCP marking threshold (default 30000, ~2 BDP)
  --mtu M            (default 1500)
  --seed S           traffic seed (default 1)
  --no-sample        do not sample the bottleneck queue
  --no-headroom      skip the CPU headroom check
  --trace            record the powertcp_step tracepoint (theta_powertcp,
                     powertcp_evo) to DIR/trace.txt
  --kmod-dir D       where tcp_theta_powertcp.ko etc. are
                     (default build/kmod-\$(uname -r)/kmod)
USAGE
}


num0() { # option value
	[[ $2 =~ ^[0-9]+$ ]] || tb_die "$1: '$2' is not a non-negative integer"
}

while [ $# -gt 0 ]; do
	case $1 in
	--cc) CC=${2:-}; shift ;;
	--out) OUT=${2:-}; shift ;;
	--rate-mbit) tb_num "$1" "${2:-}"; RATE_MBIT=$2; shift ;;
	--rtt-us) tb_num "$1" "${2:-}"; RTT_US=$2; shift ;;
	--tau-us) tb_num "$1" "${2:-}"; TAU_US=$2; shift ;;
	--buffer-bytes) tb_num "$1" "${2:-}"; BUFFER_BYTES=$2; shift ;;
	--phase-rtts) tb_num "$1" "${2:-}"; PHASE_RTTS=$2; shift ;;
	--interval-us) tb_num "$1" "${2:-}"; INTERVAL_US=$2; shift ;;
	--settle-us) num0 "$1" "${2:-}"; SETTLE_US=$2; shift ;;
	--tail-us) num0 "$1" "${2:-}"; TAIL_US=$2; shift ;;
	--notsent-lowat) num0 "$1" "${2:-}"; LOWAT=$2; shift ;;
	--ecn-k-bytes) tb_num "$1" "${2:-}"; ECN_K_BYTES=$2; shift ;;
	--mtu) tb_num "$1" "${2:-}"; MTU=$2; shift ;;
	--seed) tb_num "$1" "${2:-}"; SEED=$2; shift ;;
	--no-sample) SAMPLE=0 ;;
	--no-headroom) HEADROOM=0 ;;
	--trace) TRACE=1 ;;
	--kmod-dir) KMOD_DIR=${2:-}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[ -n "$CC" ] || tb_die "--cc NAME is required"
[[ $CC =~ ^[a-z0-9_]+$ ]] || tb_die "--cc: '$CC' is not a congestion control name"
[ -n "$OUT" ] || tb_die "--out DIR is required"
[ "$(id -u)" = 0 ] || tb_die "must run as root (namespaces, modules)"

# Scaled-paper defaults: 4.64 us in-rack RTT at 25 Gb/s.
RTT_US=${RTT_US:-$((464 * 25000 / RATE_MBIT / 100))}
TAU_US=${TAU_US:-$RTT_US}
PHASE_US=$((PHASE_RTTS * RTT_US))
PHASES=$((2 * FLOWS - 1))
END_US=$((PHASES * PHASE_US))
INTERVAL_US=${INTERVAL_US:-$((4 * RTT_US))}
TAIL_US=${TAIL_US:-$((50 * RTT_US))}
if [ -z "$SETTLE_US" ]; then
	SETTLE_US=$((100 * RTT_US))
	[ "$SETTLE_US" -le $((PHASE_US / 4)) ] || SETTLE_US=$((PHASE_US / 4))
fi
[ "$SETTLE_US" -lt "$PHASE_US" ] ||
	tb_die "--settle-us: $SETTLE_US is not shorter than a phase ($PHASE_US us)"
[ "$INTERVAL_US" -le $((PHASE_US / 4)) ] ||
	tb_die "--interval-us: $INTERVAL_US is more than a quarter of a phase ($PHASE_US us)"
BDP_BYTES=$((RATE_MBIT * RTT_US / 8))
# A stopped sender still sends what it has buffered, at its rate of the
# moment: keep that to 2 BDP (~2 ms at line rate, 9 at a quarter of it).
LOWAT=${LOWAT:-$((2 * BDP_BYTES))}
TOOLS=$ROOT/userspace-tools/bin
KMOD_DIR=${KMOD_DIR:-$ROOT/build/kmod-$(uname -r)/kmod}
[ -x "$TOOLS/tcpflows" ] || tb_die "$TOOLS/tcpflows missing (make tools)"
if [ "$TRACE" = 1 ]; then
	case $CC in
	theta_powertcp|powertcp_evo) ;;
	*) tb_die "--trace: only for theta_powertcp and powertcp_evo" ;;
	esac
fi

# Flow i from host i+1, active over phases [i, i + FLOWS) of $1 us; with
# $2, all flows from 0 to $2 instead.
flows() { # phase_us [stop_us]
	local i
	echo "--listen $TB_RCV,$TB_RCV_ADDR,5001"
	for i in $(seq 0 $((FLOWS - 1))); do
		echo "--flow $i,tb_h$((i + 1)),$TB_RCV_ADDR,5001,$((i * $1)),0,${2:-$(((i + FLOWS) * $1))}"
	done
}

topology() {
	TB_RATE_MBIT=$RATE_MBIT TB_RTT_US=$RTT_US TB_BUFFER_BYTES=$BUFFER_BYTES \
	TB_MTU=$MTU TB_CC=$CC TB_ECN_K_BYTES=$(tb_ecn_k "$CC" "$ECN_K_BYTES") \
		tb_star "$FLOWS"
}

lowat=()
[ "$LOWAT" -gt 0 ] && lowat=(--notsent-lowat "$LOWAT")

mkdir -p "$OUT"
rm -rf "$OUT"/*.csv "$OUT"/*.json "$OUT"/trace.txt "$OUT/headroom"
# The run writes to a tmpfs first: in the guest, writing through 9p while
# the flows run would make virtual time depend on the host's I/O.
WORK=$(mktemp -d /tmp/fairness.XXXXXX)
TRACEFS=/sys/kernel/tracing
trap 'rm -rf "$WORK"; [ "$TRACE" = 1 ] &&
	echo 0 > "$TRACEFS/events/$CC/powertcp_step/enable" 2>/dev/null; :' EXIT
# Likewise, page the traffic tool in now rather than during the run.
cat "$TOOLS/tcpflows" > /dev/null
tb_load_cc "$CC" "$TAU_US" "$RATE_MBIT" "$KMOD_DIR"
echo "# fairness: $CC, R=${RATE_MBIT} Mbit/s, RTT=${RTT_US} us, tau=${TAU_US} us," \
	"buffer=${BUFFER_BYTES} B, BDP=${BDP_BYTES} B, $FLOWS flows," \
	"$PHASES phases of ${PHASE_RTTS} RTTs (${PHASE_US} us), end ${END_US} us," \
	"goodput every ${INTERVAL_US} us"

# CPU headroom: with the rate limit gone, the same flows (all at once) must
# move at least twice R, or what we measure is the VM's CPU, not the link.
if [ "$HEADROOM" = 1 ]; then
	topology
	tb_unlimit
fi
hd=$((300 * RTT_US))
# shellcheck disable=SC2046
tb_headroom "$HEADROOM" "$RATE_MBIT" "$hd" "$WORK/headroom" "$OUT/headroom.json" \
	--seed "$SEED" "${lowat[@]}" $(flows 0 "$hd")

topology
sample=()
[ "$SAMPLE" = 1 ] && sample=(--sample "$TB_SW,$TB_BOTTLENECK_DEV,$INTERVAL_US")
if [ "$TRACE" = 1 ]; then
	echo 0 > "$TRACEFS/tracing_on"
	echo > "$TRACEFS/trace"
	echo 16384 > "$TRACEFS/buffer_size_kb"
	echo 1 > "$TRACEFS/events/$CC/powertcp_step/enable"
	echo 1 > "$TRACEFS/tracing_on"
fi
# shellcheck disable=SC2046
"$TOOLS/tcpflows" --out-dir "$WORK" --duration-us $((END_US + TAIL_US)) \
	--align-us 100000 --epoch-file "$WORK/epoch_ns" \
	--interval-us "$INTERVAL_US" --seed "$SEED" --quiet --progress \
	"${lowat[@]}" "${sample[@]}" $(flows "$PHASE_US")
if [ "$TRACE" = 1 ]; then
	echo 0 > "$TRACEFS/events/$CC/powertcp_step/enable"
	cp "$TRACEFS/trace" "$WORK/trace.txt"
	echo "# trace: $(grep -vc '^#' "$WORK/trace.txt") powertcp_step events," \
		"epoch $(cat "$WORK/epoch_ns") ns (CLOCK_MONOTONIC)"
fi
[ "$SAMPLE" = 1 ] && mv "$WORK/qdisc-${TB_SW}-${TB_BOTTLENECK_DEV}.csv" "$WORK/qdisc.csv"
cp -r "$WORK"/* "$OUT/"

schedule=$(for i in $(seq 0 $((FLOWS - 1))); do
	printf '%s{"id": %d, "netns": "tb_h%d", "start_us": %d, "stop_us": %d}' \
		"$([ "$i" = 0 ] || echo ', ')" "$i" $((i + 1)) \
		$((i * PHASE_US)) $(((i + FLOWS) * PHASE_US))
done)
cat > "$OUT/params.json" <<JSON
{"experiment": "fairness", "algorithm": "$CC", "kernel": "$(uname -r)",
 "rate_mbit": $RATE_MBIT, "rtt_us": $RTT_US, "tau_us": $TAU_US,
 "buffer_bytes": $BUFFER_BYTES, "bdp_bytes": $BDP_BYTES, "mtu": $MTU,
 "flows": $FLOWS, "phases": $PHASES, "phase_rtts": $PHASE_RTTS,
 "phase_us": $PHASE_US, "end_us": $END_US, "tail_us": $TAIL_US,
 "interval_us": $INTERVAL_US, "settle_us": $SETTLE_US,
 "notsent_lowat": $LOWAT,
 "sample_us": $([ "$SAMPLE" = 1 ] && echo "$INTERVAL_US" || echo 0),
 "ecn_k_bytes": $(tb_ecn_k "$CC" "$ECN_K_BYTES"),
 "seed": $SEED, "time_scale": $((25000 / RATE_MBIT)), "trace": $TRACE,
 "paper_phase_rtts": $PAPER_PHASE_RTTS,
 "phase_compression": $(awk -v a=$PAPER_PHASE_RTTS -v b="$PHASE_RTTS" \
	'BEGIN { printf "%.2f", a / b }'),
 "phase_note": "phases are $PHASE_RTTS base RTTs, not the paper's 100 ms ($PAPER_PHASE_RTTS base RTTs): a deliberate compression to keep guest runs short; convergence takes tens of RTTs",
 "schedule": [$schedule]}
JSON
tb_destroy
echo "# fairness: $CC done, raw data in $OUT"
