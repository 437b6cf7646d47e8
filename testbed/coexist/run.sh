#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Coexistence: the congestion control under test (--cc) sharing the
# bottleneck of testbed/lib/topology.sh's star with each of the peers,
# which our users' other hosts run (the kernel's default, CUBIC, above
# all). Runs as root where modules can be loaded: inside the QEMU guest
# (testbed/run.sh does that) or natively.
#
#   testbed/coexist/run.sh --cc SPEC --out DIR [options]
#
# One run is a set of cases, each on a star built anew: per buffer, per
# peer and per mix A:B, A long flows of --cc from hosts 1..A and B of the
# peer from hosts A+1..A+B, all started at t = 0 (plus their seeded
# jitter) and running to the end. A case's queue is one of
#   shared    one FIFO (tail drop) for both; the ECN step marker of the
#             registry's ecn algorithms (DCTCP) if either side is one
#   isolated  the operator's answer: the hosts of --cc mark their packets
#             DSCP AF41 (iptables' DSCP target in the mangle table), the
#             switch's port serves two classes by deficit round robin
#             (drr), weighted --weights, each a FIFO of the buffer (or
#             ECN-marking, as above, for its own side). A packet of --cc
#             now waits behind the peer's quantum even on an empty class:
#             a module with base_rtt_us gets tau plus that quantum's time
#             at R (--isolated-tau-us) for these cases
#   alone     the A flows of --cc with no peer, the baseline of isolated
# OUT/CASE/ holds each case's raw data (tcpflows' CSVs, the queue
# samples, each host's retransmitted segments) and its case.json;
# testbed/coexist/summarize.py analyzes them.

# "A && B || die" throughout: die if any of the steps fails, as meant.
# shellcheck disable=SC2015
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB_PROG=coexist
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"
# shellcheck source=testbed/lib/topology.sh
. "$ROOT/testbed/lib/topology.sh"

RATE_MBPS=100 PEERS=cubic,reno,bbr,dctcp MIXES=1:1,1:4,4:1
BUFFERS=4000000,4bdp QUEUES=shared,isolated,alone ISOLATE_MIXES=1:1
WEIGHTS=1:1 DURATION_US='' FROM_US='' SAMPLE_US='' INTERVAL_US=''
ISO_TAU_US=''
DSCP=0x22	# AF41: the class of --cc's hosts in isolated cases
TB_NO_OPTS=--no-sample	# the queue is what this measures

usage() {
	cat <<USAGE
usage: testbed/coexist/run.sh --cc SPEC --out DIR [options]
  --peers SPECS       the other congestion controls, comma-separated specs
                      as --cc takes them (default $PEERS)
  --mixes A:B,..      A flows of --cc against B of the peer, each 1 to 8
                      (default $MIXES)
  --buffers B,..      the switch buffers: bytes, or NbdP for N BDPs
                      (default $BUFFERS: the paper's 4 MB and 4 BDP)
  --queues Q,..       shared, isolated and alone (default $QUEUES; see the
                      head of this script)
  --isolate-mixes M   the mixes of the isolated cases (default $ISOLATE_MIXES)
  --weights A:B       the drr weights of --cc's class and the peer's in the
                      isolated cases (default $WEIGHTS)
  --isolated-tau-us T base_rtt_us of --cc in the isolated cases, if its
                      module has it and the spec does not set it (default
                      tau plus the peer's drr quantum at R: B x (MTU + 14)
                      x 8 / R)
  --duration-us T     each case's length (default 2600 base RTTs, 3 s at
                      100 Mbit/s)
  --from-us T         the shares and the queue are measured from T to the
                      end (default a third of the duration)
  --sample-us T       queue sampling interval (default 1.5 x base RTT)
  --interval-us T     per-flow goodput interval (default 4 base RTTs)
USAGE
	tb_usage_common
}

# mixes OPTION LIST: die unless LIST is A:B,.. with A and B from 1 to 8.
mixes() {
	[[ $2 =~ ^[1-8]:[1-8](,[1-8]:[1-8])*$ ]] ||
		tb_die "$1: '$2' is not A:B,.. (each 1 to 8)"
}

opts() {
	case $1 in
	--peers) tb_val "$1" "${2:-}"; PEERS=$2 ;;
	--mixes) mixes "$1" "${2:-}"; MIXES=$2 ;;
	--isolate-mixes) mixes "$1" "${2:-}"; ISOLATE_MIXES=$2 ;;
	--buffers) [[ ${2:-} =~ ^[1-9][0-9]*(bdp)?(,[1-9][0-9]*(bdp)?)*$ ]] ||
		tb_die "$1: '${2:-}' is not B,.. (bytes, or Nbdp)"
		BUFFERS=$2 ;;
	--queues) [[ ${2:-} =~ ^(shared|isolated|alone)(,(shared|isolated|alone))*$ ]] ||
		tb_die "$1: '${2:-}' is not a list of shared, isolated, alone"
		QUEUES=$2 ;;
	--weights) [[ ${2:-} =~ ^[1-9]:[1-9]$ ]] ||
		tb_die "$1: '${2:-}' is not A:B (each 1 to 9)"
		WEIGHTS=$2 ;;
	--duration-us) tb_num "$1" "${2:-}"; DURATION_US=$2 ;;
	--from-us) tb_num0 "$1" "${2:-}"; FROM_US=$2 ;;
	--sample-us) tb_num "$1" "${2:-}"; SAMPLE_US=$2 ;;
	--interval-us) tb_num "$1" "${2:-}"; INTERVAL_US=$2 ;;
	--isolated-tau-us) tb_num "$1" "${2:-}"; ISO_TAU_US=$2 ;;
	*) return 1 ;;
	esac
	TB_SHIFT=2
}

tb_parse_args opts "$@"
[ "$BUFFER_BYTES" = 4000000 ] ||
	tb_die "--buffer-bytes: the buffers are --buffers' here"
tb_setup
TAU_US=${TAU_US:-$((RTT_US + TB_HOST_US))}
DURATION_US=${DURATION_US:-$((2600 * RTT_US))}
FROM_US=${FROM_US:-$((DURATION_US / 3))}
SAMPLE_US=${SAMPLE_US:-$((RTT_US * 3 / 2))}
INTERVAL_US=${INTERVAL_US:-$((4 * RTT_US))}
ISO_TAU_US=${ISO_TAU_US:-$((TAU_US + ${WEIGHTS#*:} * (MTU + 14) * 8 / RATE_MBPS))}
[ "$FROM_US" -lt "$DURATION_US" ] ||
	tb_die "--from-us: $FROM_US is not before the end ($DURATION_US us)"

# The peers, parsed as --cc is (a bad spec dies here, on the host too).
IFS=, read -r -a PEER_SPECS <<< "$PEERS"
PEER_NAMES=()
for p in "${PEER_SPECS[@]}"; do
	TB_CC_OPT=--peers tb_cc_parse "$p"
	[[ " ${PEER_NAMES[*]} " != *" $TB_CC "* ]] ||
		tb_die "--peers: $TB_CC twice"
	[ "$TB_CC" != "$CC" ] || tb_die "--peers: $TB_CC is --cc itself"
	[ "$TB_CHECK" = 0 ] || tb_check_cc
	PEER_NAMES+=("$TB_CC")
done
tb_cc_parse "$CC_SPEC"

# buffer_bytes TOKEN: a --buffers entry in bytes.
buffer_bytes() {
	case $1 in
	*bdp) echo $((${1%bdp} * BDP_BYTES)) ;;
	*) echo "$1" ;;
	esac
}

# The cases, one a line: QUEUE PEER A B BUFFER_TOKEN (alone: PEER -, B 0).
cases() {
	local buf q peer mix
	for buf in ${BUFFERS//,/ }; do
		for q in ${QUEUES//,/ }; do
			case $q in
			alone)
				for mix in $(printf '%s\n' ${MIXES//,/ } \
					     ${ISOLATE_MIXES//,/ } | cut -d: -f1 |
					     sort -un); do
					echo "alone - $mix 0 $buf"
				done ;;
			*)
				for peer in "${PEER_NAMES[@]}"; do
					mix=$MIXES
					[ "$q" = shared ] || mix=$ISOLATE_MIXES
					for mix in ${mix//,/ }; do
						echo "$q $peer ${mix%:*} ${mix#*:} $buf"
					done
				done ;;
			esac
		done
	done
}

# The case being run (set_case): its queue, peer, mix, buffer in bytes.
C_QUEUE='' C_PEER='' C_A=0 C_B=0 C_BUF=0

set_case() { # QUEUE PEER A B BUFFER_TOKEN
	C_QUEUE=$1 C_PEER=$2 C_A=$3 C_B=$4 C_BUF=$(buffer_bytes "$5")
	C_ID=$1-$2-$3to$4-$5
	[ "$1" != alone ] || C_ID=$1-$3-$5
}

# The flows of the case: --cc's from hosts 1..A, the peer's after them.
flows() { # start end
	local i=0 j cc
	echo "--listen $TB_RCV,$TB_RCV_ADDR,5001"
	for j in $(tb_jitter $((C_A + C_B))); do
		cc=$CC
		[ "$i" -lt "$C_A" ] || cc=$C_PEER
		echo "--flow $i,$(tb_host $((i + 1))),$TB_RCV_ADDR,5001,$(($1 + j)),0,$2,$cc"
		i=$((i + 1))
	done
}

# ecn_k CC...: the ECN marking threshold of a queue these share (tb_ecn_k:
# K if one of them runs on the ecn queue, else 0).
ecn_k() {
	local c k=0
	for c in "$@"; do
		[ "$c" = - ] || [ "$(tb_ecn_k "$c" 1)" = 0 ] || k=$ECN_K_BYTES
	done
	echo "$k"
}

topology() {
	local k=0
	[ "$C_QUEUE" = isolated ] || k=$(ecn_k "$CC" "$C_PEER")
	TB_RATE_MBPS=$RATE_MBPS TB_RTT_US=$RTT_US TB_BUFFER_BYTES=$C_BUF \
	TB_MTU=$MTU TB_CC=$CC TB_ECN_K_BYTES=$k tb_star $((C_A + C_B))
	[ "$C_QUEUE" != isolated ] || isolate
}

# leaf CLASS HANDLE CC: the FIFO (or ECN step marker) of one drr class.
leaf() {
	local k
	k=$(ecn_k "$3")
	if [ "$k" -gt 0 ]; then
		tc -n "$TB_SW" qdisc add dev "$TB_BOTTLENECK_DEV" parent "$1" \
			handle "$2" red limit "$C_BUF" min "$k" \
			max $((k + MTU)) avpkt "$MTU" burst $((k / MTU + 1)) \
			probability 1.0 ecn bandwidth "${RATE_MBPS}mbit"
	else
		tc -n "$TB_SW" qdisc add dev "$TB_BOTTLENECK_DEV" parent "$1" \
			handle "$2" bfifo limit "$C_BUF"
	fi
}

# isolate: --cc's hosts mark DSCP AF41; the bottleneck's tbf serves a drr
# of two classes, 10:1 (AF41, leaf 11:) and 10:2 (the rest, leaf 12:),
# their quanta in the ratio of --weights.
isolate() {
	local i q=$((MTU + 14)) dev=$TB_BOTTLENECK_DEV
	for i in $(seq 1 "$C_A"); do
		ip netns exec "$(tb_host "$i")" iptables -t mangle -A OUTPUT \
			-p tcp -j DSCP --set-dscp "$DSCP" ||
			tb_die "cannot mark DSCP on host $i (apt-get install iptables)"
	done
	tc -n "$TB_SW" qdisc add dev "$dev" parent 1:1 handle 10: drr &&
	tc -n "$TB_SW" class add dev "$dev" parent 10: classid 10:1 drr \
		quantum $((q * ${WEIGHTS%:*})) &&
	tc -n "$TB_SW" class add dev "$dev" parent 10: classid 10:2 drr \
		quantum $((q * ${WEIGHTS#*:})) &&
	leaf 10:1 11: "$CC" && leaf 10:2 12: "$C_PEER" &&
	tc -n "$TB_SW" filter add dev "$dev" parent 10: protocol ip prio 1 \
		u32 match ip dsfield "$(printf 0x%x $((DSCP << 2)))" 0xfc classid 10:1 &&
	tc -n "$TB_SW" filter add dev "$dev" parent 10: protocol all prio 2 \
		matchall classid 10:2 ||
		tb_die "cannot build the isolated classes (modprobe sch_drr cls_u32 cls_matchall)"
}

# set_tau T: --cc's base_rtt_us for the next case, where it has one that
# its spec leaves to the testbed (tb_load_cc gave it TAU_US); C_TAU, what
# is in force (empty: no such parameter).
set_tau() {
	C_TAU=''
	[[ " ${TB_CC_PARAMS[*]} " != *" base_rtt_us="* ]] || return 0
	if [ -n "${TB_CC_BPF:-}" ]; then
		"$TB_CC_BPF" set "$CC" base_rtt_us="$1" > /dev/null ||
			tb_die "--bpf: cannot set base_rtt_us=$1"
	elif [ -n "$TB_CC_MODULE" ] &&
	     [ -e "/sys/module/$TB_CC_MODULE/parameters/base_rtt_us" ]; then
		tb_set_param "$TB_CC_MODULE" base_rtt_us "$1"
	else
		return 0
	fi
	C_TAU=$1
}

# load_peers: the peers' modules, as --cc's (tb_load_cc); --cc's spec and
# module stay what tb_prelude loaded. PEER_JSON: what params.json records.
load_peers() {
	local p keep=("$TB_CC_MODULE" "$TB_CC_FILE" "${TB_CC_BPF:-}") j=''
	for p in "${PEER_SPECS[@]}"; do
		TB_CC_OPT=--peers tb_cc_parse "$p"
		tb_load_cc
		j+="${j:+, }{\"name\": \"$TB_CC\", \"spec\": \"$p\","
		j+=" \"module\": \"$TB_CC_MODULE\", \"file\": \"$TB_CC_FILE\"}"
	done
	tb_cc_parse "$CC_SPEC"
	TB_CC_MODULE=${keep[0]} TB_CC_FILE=${keep[1]} TB_CC_BPF=${keep[2]}
	PEER_JSON="[$j]"
}

tb_prelude tcpflows
command -v iptables > /dev/null || [[ $QUEUES != *isolated* ]] ||
	tb_die "isolated cases need iptables (apt-get install iptables)"
load_peers
rm -rf "$OUT"/shared-* "$OUT"/isolated-* "$OUT"/alone-* "$OUT"/*.json \
	"$OUT/headroom"
mapfile -t CASES <<< "$(cases)"
echo "# coexist: $CC against ${PEER_NAMES[*]}, R=${RATE_MBPS} Mbit/s," \
	"RTT=${RTT_US} us, tau=${TAU_US} us, BDP=${BDP_BYTES} B, buffers" \
	"$BUFFERS, ${#CASES[@]} cases of ${DURATION_US} us, measured from" \
	"${FROM_US} us"

# CPU headroom: the largest mix of the peer most often run, its rate
# limit gone, must move twice R.
max=0
for m in ${MIXES//,/ } ${ISOLATE_MIXES//,/ }; do
	[ $((${m%:*} + ${m#*:})) -le "$max" ] || { max=$((${m%:*} + ${m#*:})); mix=$m; }
done
set_case shared "${PEER_NAMES[0]}" "${mix%:*}" "${mix#*:}" "${BUFFERS%%,*}"
tb_headroom_check topology flows

n=0
for c in "${CASES[@]}"; do
	# shellcheck disable=SC2086 # the case's words
	set_case $c
	n=$((n + 1))
	echo "# case $n/${#CASES[@]}: $C_ID"
	dir=$WORK/$C_ID
	mkdir -p "$dir"
	if [ "$C_QUEUE" = isolated ]; then set_tau "$ISO_TAU_US"; else set_tau "$TAU_US"; fi
	topology
	sample=(--sample "$TB_SW,$TB_BOTTLENECK_DEV,$SAMPLE_US")
	[ "$C_QUEUE" != isolated ] || sample+=(
		--sample "$TB_SW,$TB_BOTTLENECK_DEV,$SAMPLE_US,11:"
		--sample "$TB_SW,$TB_BOTTLENECK_DEV,$SAMPLE_US,12:")
	tb_trace_on
	# shellcheck disable=SC2046
	tb_run "$TB_TOOLS/tcpflows" --out-dir "$dir" \
		--duration-us $((DURATION_US + 20000)) --align-us 100000 \
		--interval-us "$INTERVAL_US" --seed "$SEED" --quiet \
		"${sample[@]}" $(flows 0 "$DURATION_US")
	tb_trace_off "$dir/trace.txt"
	tb_retrans "$dir/retrans.csv" $((C_A + C_B))
	for f in "$dir"/qdisc-*.csv; do
		case $f in
		*-11*.csv) mv "$f" "$dir/qdisc-class-ours.csv" ;;
		*-12*.csv) mv "$f" "$dir/qdisc-class-peer.csv" ;;
		*) mv "$f" "$dir/qdisc.csv" ;;
		esac
	done
	cat > "$dir/case.json" <<JSON
{"case": "$C_ID", "queue": "$C_QUEUE", "peer": "$C_PEER",
 "flows_cc": $C_A, "flows_peer": $C_B, "buffer": "${c##* }",
 "buffer_bytes": $C_BUF, "tau_us": ${C_TAU:-null},
 "ecn_k_bytes": $(if [ "$C_QUEUE" = isolated ]; then echo 0; else ecn_k "$CC" "$C_PEER"; fi),
 "weights": "$([ "$C_QUEUE" = isolated ] && echo "$WEIGHTS" || echo -)"}
JSON
	cp -r "$dir" "$OUT/"
	rm -rf "$dir"
done
set_tau "$TAU_US"	# params.json records the module's parameters
tb_param peers "$PEERS" mixes "$MIXES" buffers "$BUFFERS" queues "$QUEUES" \
	isolate_mixes "$ISOLATE_MIXES" weights "$WEIGHTS" dscp "$DSCP" \
	isolated_tau_us "$ISO_TAU_US" \
	duration_us "$DURATION_US" from_us "$FROM_US" \
	sample_us "$SAMPLE_US" interval_us "$INTERVAL_US" cases "${#CASES[@]}"
tb_param_json peer_modules "$PEER_JSON"
tb_write_params "$OUT/params.json"
echo "# coexist: $CC done, raw data in $OUT"
