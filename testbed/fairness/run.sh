#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fairness experiment of the PowerTCP paper (Figure 6's shape) for one
# congestion control, on the star topology of testbed/lib/topology.sh: four
# senders to one receiver through the bottleneck, flow i (from host i+1)
# active from i to i+4 phases, so 1, 2, 3, 4, 3, 2, 1 flows share the link.
# Runs as root where modules can be loaded: inside the QEMU guest
# (scripts/vm-run.sh) or natively.
#
#   testbed/fairness/run.sh --cc SPEC --out DIR [options]
#
# Scaling: as testbed/incast/run.sh, the paper's 25 Gb/s, 4.64 us in-rack RTT
# and 4 MB buffer become, at R Mb/s, a time scale of 25000/R. The paper's
# 100 ms phases (21552 base RTTs) are NOT kept: a phase is --phase-rtts
# base RTTs (default 400, 3.25 s of experiment at 100 Mb/s). That is a
# deliberate compression, ~54x at the default: convergence takes tens of
# RTTs, so 400 RTTs still shows it and the steady state after it, and the
# run stays short enough for a TCG guest.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB_PROG=fairness
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"
# shellcheck source=testbed/lib/topology.sh
. "$ROOT/testbed/lib/topology.sh"

RATE_MBPS=100 FLOWS=4 PHASE_RTTS=400 INTERVAL_US='' TAIL_US='' SETTLE_US=''
LOWAT=''
PAPER_PHASE_RTTS=21552	# 100 ms / 4.64 us

usage() {
	cat <<USAGE
usage: testbed/fairness/run.sh --cc SPEC --out DIR [options]
  --phase-rtts N      length of each of the 7 phases in base RTTs (default
                      400). The paper's phases are 100 ms = 21552 base RTTs;
                      this deliberately compresses them (~54x at 400), as
                      convergence takes tens of RTTs.
  --interval-us T     per-flow goodput interval (default 4 base RTTs)
  --settle-us T       convergence allowance at the start of each phase,
                      excluded from the steady-state statistics (default
                      100 base RTTs, at most a quarter of a phase)
  --tail-us T         run on after the last flow stops, to see the senders'
                      queues drain (default 50 base RTTs)
  --notsent-lowat B   TCP_NOTSENT_LOWAT of the senders, bounds what is left
                      to send after a flow's stop (default 2 BDP; 0 = off)
USAGE
	tb_usage_common
}

opts() {
	case $1 in
	--phase-rtts) tb_num "$1" "${2:-}"; PHASE_RTTS=$2 ;;
	--interval-us) tb_num "$1" "${2:-}"; INTERVAL_US=$2 ;;
	--settle-us) tb_num0 "$1" "${2:-}"; SETTLE_US=$2 ;;
	--tail-us) tb_num0 "$1" "${2:-}"; TAIL_US=$2 ;;
	--notsent-lowat) tb_num0 "$1" "${2:-}"; LOWAT=$2 ;;
	*) return 1 ;;
	esac
	TB_SHIFT=2
}

tb_parse_args opts "$@"
tb_setup
TAU_US=${TAU_US:-$((RTT_US + TB_HOST_US))}
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
# A stopped sender still sends what it has buffered, at its rate of the
# moment: keep that to 2 BDP (~2 ms at line rate, 9 at a quarter of it).
LOWAT=${LOWAT:-$((2 * BDP_BYTES))}

# Flow i from host i+1, active over phases [i, i + FLOWS) of $1 us, its
# start delayed by its seeded jitter; with $2, all flows from 0 to $2.
flows() { # phase_us [stop_us]
	local i=0 j
	echo "--listen $TB_RCV,$TB_RCV_ADDR,5001"
	for j in $(tb_jitter "$FLOWS"); do
		echo "--flow $i,$(tb_host $((i + 1))),$TB_RCV_ADDR,5001,$((i * $1 + j)),0,${2:-$(((i + FLOWS) * $1))}"
		i=$((i + 1))
	done
}

topology() {
	TB_RATE_MBPS=$RATE_MBPS TB_RTT_US=$RTT_US TB_BUFFER_BYTES=$BUFFER_BYTES \
	TB_MTU=$MTU TB_CC=$CC TB_ECN_K_BYTES=$(tb_ecn_k "$CC" "$ECN_K_BYTES") \
		tb_star "$FLOWS"
}

lowat=()
[ "$LOWAT" -gt 0 ] && lowat=(--notsent-lowat "$LOWAT")

tb_prelude tcpflows
rm -rf "$OUT"/*.csv "$OUT"/*.json "$OUT"/trace.txt "$OUT/headroom"
echo "# fairness: $CC, R=${RATE_MBPS} Mbit/s, RTT=${RTT_US} us, tau=${TAU_US} us," \
	"buffer=${BUFFER_BYTES} B, BDP=${BDP_BYTES} B, $FLOWS flows," \
	"$PHASES phases of ${PHASE_RTTS} RTTs (${PHASE_US} us), end ${END_US} us," \
	"goodput every ${INTERVAL_US} us"

# CPU headroom: with the rate limit gone, the same flows (all at once) must
# move at least twice R, or what we measure is the VM's CPU, not the link.
tb_headroom_check topology flows "${lowat[@]}"

topology
sample=()
[ "$SAMPLE" = 1 ] && sample=(--sample "$TB_SW,$TB_BOTTLENECK_DEV,$INTERVAL_US")
tb_trace_on
# shellcheck disable=SC2046
tb_run "$TB_TOOLS/tcpflows" --out-dir "$WORK" --duration-us $((END_US + TAIL_US)) \
	--align-us 100000 --epoch-file "$WORK/epoch_ns" \
	--interval-us "$INTERVAL_US" --seed "$SEED" --quiet --progress \
	"${lowat[@]}" "${sample[@]}" $(flows "$PHASE_US")
tb_trace_off "$WORK/trace.txt"
[ "$TRACE" = 0 ] || echo "# trace: epoch $(cat "$WORK/epoch_ns") ns (CLOCK_MONOTONIC)"
[ "$SAMPLE" = 1 ] && mv "$WORK/qdisc-${TB_SW}-${TB_BOTTLENECK_DEV}.csv" "$WORK/qdisc.csv"
cp -r "$WORK"/* "$OUT/"

# Not < <(...): the guest's /dev has no /dev/fd for process substitution.
mapfile -t jit <<< "$(tb_jitter "$FLOWS")"
schedule=$(for i in $(seq 0 $((FLOWS - 1))); do
	printf '%s{"id": %d, "netns": "%s", "start_us": %d, "stop_us": %d}' \
		"$([ "$i" = 0 ] || echo ', ')" "$i" "$(tb_host $((i + 1)))" \
		$((i * PHASE_US + jit[i])) $(((i + FLOWS) * PHASE_US))
done)
tb_param flows "$FLOWS" phases "$PHASES" phase_rtts "$PHASE_RTTS" \
	phase_us "$PHASE_US" end_us "$END_US" tail_us "$TAIL_US" \
	interval_us "$INTERVAL_US" settle_us "$SETTLE_US" notsent_lowat "$LOWAT" \
	sample_us "$([ "$SAMPLE" = 1 ] && echo "$INTERVAL_US" || echo 0)" \
	paper_phase_rtts "$PAPER_PHASE_RTTS" \
	phase_compression "$(awk -v a=$PAPER_PHASE_RTTS -v b="$PHASE_RTTS" \
		'BEGIN { printf "%.2f", a / b }')" \
	phase_note "phases are $PHASE_RTTS base RTTs, not the paper's 100 ms ($PAPER_PHASE_RTTS base RTTs): a deliberate compression to keep guest runs short; convergence takes tens of RTTs"
tb_param_json schedule "[$schedule]"
tb_write_params "$OUT/params.json"
echo "# fairness: $CC done, raw data in $OUT"
