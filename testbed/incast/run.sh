#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The 10:1 incast of the PowerTCP paper for one congestion control, on the
# star topology of testbed/lib/topology.sh. Runs as root where modules can be
# loaded: inside the QEMU guest (testbed/run.sh does that) or natively.
#
#   testbed/incast/run.sh --cc SPEC --out DIR [options]
#
# Scaling (docs/TESTBED.md): the paper's 25 Gb/s, 4.64 us in-rack RTT and
# 4 MB buffer become, at R Mb/s, a time scale of 25000/R: same flows, same
# BDP in bytes and packets, same buffer in BDPs, same timeline in base RTTs.
# Defaults are that scaling at 100 Mb/s: the long flow alone for 860 base
# RTTs, then 1300 more with the incast.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB_PROG=incast
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"
# shellcheck source=testbed/lib/topology.sh
. "$ROOT/testbed/lib/topology.sh"

RATE_MBPS=100 SENDERS=10 PRE_US='' POST_US='' SAMPLE_US='' BACKEND=netns
START=connect QUERIES=0 QUERY_BYTES=2800 ORACLE=''

usage() {
	cat <<USAGE
usage: testbed/incast/run.sh --cc SPEC --out DIR [options]
  --senders N         incast senders besides the long flow (default 10)
  --pre-us T          long flow alone before the incast (default 860 RTTs)
  --post-us T         run after the incast starts (default 1300 RTTs)
  --sample-us T       queue sampling interval (default 1.5 x base RTT)
  --start S           connect (default): each incast sender connects at its
                      instant and writes once connected (one after another
                      on a guest's CPU); together: every sender connects at
                      t = 0, before any queue, and the incast senders write
                      from the incast's instant (plus their seeded jitter),
                      so that their first windows leave together, as ns-3's
                      flows do (docs/TESTBED.md)
  --queries N         N queries besides, sized flows of --query-bytes from
                      the incast senders' hosts in turn, at the incast's
                      instant (plus seeded jitter), as the paper's burst
                      experiment's 255 (default 0); their completion times
                      are in the summary
  --query-bytes B     a query's size (default 2800, the artifact's)
  --oracle D[,P]      a test instrument, the bound of issue "PowerTCP-evo must
                      earn its place": every sender's pacing capped
                      (SO_MAX_PACING_RATE) to the schedule of a law that
                      drains at once and then holds the ideal rates: the
                      long flow alone at P permille of the link's payload
                      rate (default 990), from the incast one segment per
                      D us for D us, then each of the 1+N flows at P/(1+N)
                      permille. With a window that does not bind (cubic's
                      in the 4 MB buffer) the queue is the schedule's
                      (docs/TESTBED.md, "The incast's bound")
  --backend B         netns (default): the star of testbed/lib/topology.sh;
                      mininet: the same star built by Mininet (a Linux
                      bridge, no controller; testbed/mininet/star.sh),
                      with the same link settings, traffic and analysis
USAGE
	tb_usage_common
}

opts() {
	case $1 in
	--senders) tb_num "$1" "${2:-}"; SENDERS=$2 ;;
	--pre-us) tb_num "$1" "${2:-}"; PRE_US=$2 ;;
	--post-us) tb_num "$1" "${2:-}"; POST_US=$2 ;;
	--sample-us) tb_num "$1" "${2:-}"; SAMPLE_US=$2 ;;
	--start) [[ ${2:-} =~ ^(together|connect)$ ]] ||
		tb_die "--start: '${2:-}' is not together or connect"
		START=$2 ;;
	--queries) tb_num0 "$1" "${2:-}"; QUERIES=$2 ;;
	--query-bytes) tb_num "$1" "${2:-}"; QUERY_BYTES=$2 ;;
	--oracle) if ! [[ ${2:-} =~ ^[1-9][0-9]{0,6}(,[1-9][0-9]{0,3})?$ ]] ||
		   { [[ $2 == *,* ]] && [ "${2#*,}" -gt 1000 ]; }; then
			tb_die "--oracle: '${2:-}' is not D_US[,PERMILLE] (D 1..9999999 us, PERMILLE 1..1000)"
		fi
		ORACLE=$2 ;;
	--backend) [[ ${2:-} =~ ^(netns|mininet)$ ]] ||
		tb_die "--backend: '${2:-}' is not netns or mininet"
		BACKEND=$2 ;;
	*) return 1 ;;
	esac
	TB_SHIFT=2
}

tb_parse_args opts "$@"
[ "$SENDERS" -le 255 ] || tb_die "--senders: at most 255 (the paper's burst)"
[ "$QUERIES" -le 1000 ] || tb_die "--queries: at most 1000"
[ "$QUERIES" = 0 ] || [ "$SENDERS" -ge 1 ] || tb_die "--queries: needs a sender"
[ -z "$ORACLE" ] || [ "$QUERIES" = 0 ] ||
	tb_die "--oracle: not with --queries (its schedule is for the long flows)"
tb_setup
TAU_US=${TAU_US:-$((RTT_US + TB_HOST_US))}
PRE_US=${PRE_US:-$((860 * RTT_US))}
POST_US=${POST_US:-$((1300 * RTT_US))}
SAMPLE_US=${SAMPLE_US:-$((RTT_US * 3 / 2))}
END_US=$((PRE_US + POST_US))
STAR=tb_star
if [ "$BACKEND" = mininet ]; then
	[ "$HOST_STACK" = 0 ] ||
		tb_die "--host-stack: the netns backend's only (its NICs' hop)"
	# shellcheck source=testbed/mininet/star.sh
	. "$ROOT/testbed/mininet/star.sh"
	# Not in the host's check: setup.sh installs Mininet.
	[ "$TB_CHECK" = 1 ] || tb_mn_check
	STAR=tb_mn_star
fi

# One long flow from host 1 from t = 0, SENDERS more from hosts 2.. at PRE
# plus each one's seeded jitter; with --start together all connect at 0.
flows() { # start_of_incast end
	local i=1 j
	echo "--listen $TB_RCV,$TB_RCV_ADDR,5001"
	[ "$START" = connect ] || echo "--preconnect-us $1"
	echo "--flow 0,$(tb_host 1),$TB_RCV_ADDR,5001,0,0,$2"
	for j in $(tb_jitter "$SENDERS"); do
		echo "--flow $i,$(tb_host $((i + 1))),$TB_RCV_ADDR,5001,$(($1 + j)),0,$2"
		i=$((i + 1))
	done
	# Not in the headroom check (flows 0 END: every flow from 0), which
	# measures what the CPU moves without a cap.
	[ -z "$ORACLE" ] || [ "$1" = 0 ] || oracle "$1"
	# Queries: ids from 1000, on the incast senders' hosts in turn.
	i=0
	[ "$QUERIES" = 0 ] || for j in $(SEED=$((SEED + 1000)) tb_jitter "$QUERIES"); do
		echo "--flow $((1000 + i)),$(tb_host $((i % SENDERS + 2))),$TB_RCV_ADDR,5001,$(($1 + j)),$QUERY_BYTES,0"
		i=$((i + 1))
	done
}

# --oracle D[,P]: the pacing caps (payload bytes/s; the kernel paces
# skb->len, a segment's payload, and the tbf counts its frame: MSS + 66).
oracle() { # start_of_incast
	local d=${ORACLE%%,*} p=${ORACLE#*,} mss=$((MTU - 52))
	[ "$p" != "$ORACLE" ] || p=990
	local full=$((RATE_MBPS * 125000 * mss / (MTU + 14)))
	echo "--max-pacing 0,$((full * p / 1000))"
	echo "--max-pacing $1,$((mss * 1000000 / d))"
	echo "--max-pacing $(($1 + d)),$((full * p / 1000 / (SENDERS + 1)))"
}

topology() {
	TB_RATE_MBPS=$RATE_MBPS TB_RTT_US=$RTT_US TB_BUFFER_BYTES=$BUFFER_BYTES \
	TB_MTU=$MTU TB_CC=$CC TB_ECN_K_BYTES=$(tb_ecn_k "$CC" "$ECN_K_BYTES") \
		"$STAR" $((SENDERS + 1))
}

tb_prelude tcpflows
rm -rf "$OUT"/*.csv "$OUT"/*.json "$OUT"/trace.txt "$OUT/headroom"
echo "# incast: $CC, R=${RATE_MBPS} Mbit/s, RTT=${RTT_US} us, tau=${TAU_US} us," \
	"buffer=${BUFFER_BYTES} B, BDP=${BDP_BYTES} B, 1+${SENDERS} flows," \
	"$BACKEND backend, incast at ${PRE_US} us, end ${END_US} us, sampling ${SAMPLE_US} us"

# CPU headroom: with the rate limit gone, the same flows must move at least
# twice R, or the queue we would measure is the CPU's, not the switch's.
tb_headroom_check topology flows

topology
sample=()
[ "$SAMPLE" = 1 ] && sample=(--sample "$TB_SW,$TB_BOTTLENECK_DEV,$SAMPLE_US")
tb_trace_on
# shellcheck disable=SC2046
tb_run "$TB_TOOLS/tcpflows" --out-dir "$WORK" --duration-us $((END_US + 20000)) \
	--align-us 100000 \
	--interval-us "$((RTT_US))" --seed "$SEED" --quiet --progress \
	"${sample[@]}" $(flows "$PRE_US" "$END_US")
tb_trace_off "$WORK/trace.txt"
tb_retrans "$WORK/retrans.csv" $((SENDERS + 1))
[ "$SAMPLE" = 1 ] && mv "$WORK/qdisc-${TB_SW}-${TB_BOTTLENECK_DEV}.csv" "$WORK/qdisc.csv"
cp -r "$WORK"/* "$OUT/"

tb_param backend "$BACKEND" senders "$SENDERS" start "$START" \
	queries "$QUERIES" query_bytes "$QUERY_BYTES" oracle "${ORACLE:-none}" \
	pre_us "$PRE_US" post_us "$POST_US" \
	end_us "$END_US" sample_us "$([ "$SAMPLE" = 1 ] && echo "$SAMPLE_US" || echo 0)"
tb_write_params "$OUT/params.json"
echo "# incast: $CC done, raw data in $OUT"
