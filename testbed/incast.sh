#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The 10:1 incast of the PowerTCP paper for one congestion control, on the
# star topology of testbed/topology.sh. Runs as root where modules can be
# loaded: inside the QEMU guest (testbed/run.sh does that) or natively.
#
#   testbed/incast.sh --cc NAME --out DIR [options]
#
# Scaling (MISSION.md): the paper's 25 Gb/s, 4.64 µs in-rack RTT, 4 MB
# buffer and 20 ms of long flow before the incast become, at R Mb/s, a time
# scale of 25000/R: same flows, same BDP in bytes and packets, same buffer in
# BDPs, same timeline in base RTTs. Defaults are that scaling at 100 Mb/s.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
TB_PROG=incast
# shellcheck source=testbed/topology.sh
. "$ROOT/testbed/topology.sh"

CC= OUT= RATE_MBIT=100 SENDERS=10 MTU=1500 SEED=1 SAMPLE=1
RTT_US= TAU_US= BUFFER_BYTES=4000000 PRE_US= POST_US= SAMPLE_US=
ECN_K_BYTES=30000 HEADROOM=1 KMOD_DIR= JITTER_US=

usage() {
	cat <<USAGE
usage: testbed/incast.sh --cc NAME --out DIR [options]
  --rate-mbit R      bottleneck rate (default 100)
  --rtt-us T         base RTT (default 4.64 us x 25000/R: 1160 at 100)
  --tau-us T         tau of the PowerTCP modules (default: the base RTT)
  --buffer-bytes B   bottleneck FIFO (default 4000000, the paper's 4 MB)
  --senders N        incast senders besides the long flow (default 10)
  --pre-us T         long flow alone before the incast (default 860 RTTs)
  --post-us T        run after the incast starts (default 1300 RTTs)
  --sample-us T      queue sampling interval (default 1.5 x base RTT)
  --no-sample        do not sample the queue (to show sampling is harmless)
  --ecn-k-bytes K    DCTCP marking threshold (default 30000, ~2 BDP)
  --mtu M            (default 1500)
  --seed S           seed of the payload and of the start jitter (default 1)
  --start-jitter-us J  each incast sender starts at a seeded uniform offset
                     in [0, J) after the incast time (default: one MTU's
                     serialization at R, 120 us at 100 Mbit/s), so that
                     seeds differ in packet interleaving
  --no-headroom      skip the CPU headroom check
  --kmod-dir D       where tcp_theta_powertcp.ko etc. are
                     (default build/kmod-\$(uname -r)/kmod)
USAGE
}


while [ $# -gt 0 ]; do
	case $1 in
	--cc) CC=${2:-}; shift ;;
	--out) OUT=${2:-}; shift ;;
	--rate-mbit) tb_num "$1" "${2:-}"; RATE_MBIT=$2; shift ;;
	--rtt-us) tb_num "$1" "${2:-}"; RTT_US=$2; shift ;;
	--tau-us) tb_num "$1" "${2:-}"; TAU_US=$2; shift ;;
	--buffer-bytes) tb_num "$1" "${2:-}"; BUFFER_BYTES=$2; shift ;;
	--senders) tb_num "$1" "${2:-}"; SENDERS=$2; shift ;;
	--pre-us) tb_num "$1" "${2:-}"; PRE_US=$2; shift ;;
	--post-us) tb_num "$1" "${2:-}"; POST_US=$2; shift ;;
	--sample-us) tb_num "$1" "${2:-}"; SAMPLE_US=$2; shift ;;
	--no-sample) SAMPLE=0 ;;
	--ecn-k-bytes) tb_num "$1" "${2:-}"; ECN_K_BYTES=$2; shift ;;
	--mtu) tb_num "$1" "${2:-}"; MTU=$2; shift ;;
	--seed) tb_num "$1" "${2:-}"; SEED=$2; shift ;;
	--start-jitter-us) [[ ${2:-} =~ ^[0-9]+$ ]] ||
		tb_die "$1: '${2:-}' is not a non-negative integer"
		JITTER_US=$2; shift ;;
	--no-headroom) HEADROOM=0 ;;
	--kmod-dir) KMOD_DIR=${2:-}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[ -n "$CC" ] || tb_die "--cc NAME is required"
[ -n "$OUT" ] || tb_die "--out DIR is required"
[ "$(id -u)" = 0 ] || tb_die "must run as root (namespaces, modules)"
[ "$SENDERS" -le 200 ] || tb_die "--senders: at most 200"

# Scaled-paper defaults: 4.64 µs in-rack RTT at 25 Gb/s.
RTT_US=${RTT_US:-$((464 * 25000 / RATE_MBIT / 100))}
TAU_US=${TAU_US:-$RTT_US}
PRE_US=${PRE_US:-$((860 * RTT_US))}
POST_US=${POST_US:-$((1300 * RTT_US))}
SAMPLE_US=${SAMPLE_US:-$((RTT_US * 3 / 2))}
BDP_BYTES=$((RATE_MBIT * RTT_US / 8))
JITTER_US=${JITTER_US:-$((MTU * 8 / RATE_MBIT))}
END_US=$((PRE_US + POST_US))
TOOLS=$ROOT/userspace-tools/bin
KMOD_DIR=${KMOD_DIR:-$ROOT/build/kmod-$(uname -r)/kmod}
[ -x "$TOOLS/tcpflows" ] || tb_die "$TOOLS/tcpflows missing (make tools)"

# One long flow from host 1 from t = 0, SENDERS more from hosts 2.. at PRE
# plus their seeded jitter.
flows() { # start_of_incast end
	local i
	echo "--listen $TB_RCV,$TB_RCV_ADDR,5001"
	echo "--flow 0,tb_h1,$TB_RCV_ADDR,5001,0,0,$2"
	awk -v n="$SENDERS" -v s="$SEED" -v j="$JITTER_US" -v t0="$1" \
	    -v t1="$2" -v a="$TB_RCV_ADDR" 'BEGIN { srand(s)
		for (i = 1; i <= n; i++)
			printf "--flow %d,tb_h%d,%s,5001,%d,0,%d\n", i, i + 1,
			       a, t0 + int(rand() * j), t1 }'
}

topology() {
	TB_RATE_MBIT=$RATE_MBIT TB_RTT_US=$RTT_US TB_BUFFER_BYTES=$BUFFER_BYTES \
	TB_MTU=$MTU TB_CC=$CC TB_ECN_K_BYTES=$(tb_ecn_k "$CC" "$ECN_K_BYTES") \
		tb_star $((SENDERS + 1))
}

mkdir -p "$OUT"
rm -rf "$OUT"/*.csv "$OUT"/*.json "$OUT/headroom"
# The run writes to a tmpfs first: in the guest, writing through 9p while
# the flows run would make virtual time depend on the host's I/O.
WORK=$(mktemp -d /tmp/incast.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
# Likewise, page the traffic tool in now rather than during the run.
cat "$TOOLS/tcpflows" > /dev/null
tb_load_cc "$CC" "$TAU_US" "$RATE_MBIT" "$KMOD_DIR"
echo "# incast: $CC, R=${RATE_MBIT} Mbit/s, RTT=${RTT_US} us, tau=${TAU_US} us," \
	"buffer=${BUFFER_BYTES} B, BDP=${BDP_BYTES} B, 1+${SENDERS} flows," \
	"incast at ${PRE_US} us, end ${END_US} us, sampling ${SAMPLE_US} us"

# CPU headroom: with the rate limit gone, the same flows must move at least
# twice R, or the queue we would measure is the CPU's, not the switch's.
if [ "$HEADROOM" = 1 ]; then
	topology
	tb_unlimit
fi
hd=$((300 * RTT_US))
# shellcheck disable=SC2046
tb_headroom "$HEADROOM" "$RATE_MBIT" "$hd" "$WORK/headroom" "$OUT/headroom.json" \
	--seed "$SEED" $(flows 0 "$hd")

topology
sample=()
[ "$SAMPLE" = 1 ] && sample=(--sample "$TB_SW,$TB_BOTTLENECK_DEV,$SAMPLE_US")
# shellcheck disable=SC2046
"$TOOLS/tcpflows" --out-dir "$WORK" --duration-us $((END_US + 20000)) \
	--align-us 100000 \
	--interval-us "$((RTT_US))" --seed "$SEED" --quiet --progress \
	"${sample[@]}" $(flows "$PRE_US" "$END_US")
[ "$SAMPLE" = 1 ] && mv "$WORK/qdisc-${TB_SW}-${TB_BOTTLENECK_DEV}.csv" "$WORK/qdisc.csv"
cp -r "$WORK"/* "$OUT/"

cat > "$OUT/params.json" <<JSON
{"algorithm": "$CC", "kernel": "$(uname -r)", "rate_mbit": $RATE_MBIT,
 "rtt_us": $RTT_US, "tau_us": $TAU_US, "buffer_bytes": $BUFFER_BYTES,
 "bdp_bytes": $BDP_BYTES, "senders": $SENDERS, "mtu": $MTU,
 "pre_us": $PRE_US, "post_us": $POST_US, "end_us": $END_US,
 "sample_us": $([ "$SAMPLE" = 1 ] && echo "$SAMPLE_US" || echo 0),
 "ecn_k_bytes": $(tb_ecn_k "$CC" "$ECN_K_BYTES"),
 "seed": $SEED, "start_jitter_us": $JITTER_US, "time_scale": $((25000 / RATE_MBIT))}
JSON
tb_destroy
echo "# incast: $CC done, raw data in $OUT"
