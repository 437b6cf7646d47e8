#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The web-search experiment of the PowerTCP paper (Figure 7's shape) for
# one congestion control at one load, on the leaf-spine fabric of
# testbed/lib/leafspine.sh. Runs as root where modules can be loaded: inside
# the QEMU guest (scripts/vm-run.sh --icount) or natively.
#
#   testbed/websearch/run.sh --cc SPEC --out DIR [--loads 20,50,80] [options]
#
# Flows arrive as a Poisson process between random host pairs, sizes from
# testbed/websearch/cdf.txt (userspace-tools/websearch-gen); every host
# both sends and receives; one tcpflows process runs them all. Each load
# runs on a fresh topology; raw data go to DIR/load-L/ (flows.csv,
# manifest.csv, flowfile.txt, gen.json, headroom.json, params.json,
# qdisc_stats.txt, queue-PORT.csv with --sample-ports); testbed/websearch/summarize.py RESULTS analyzes
# RESULTS/ALG/load-L/ (so --out RESULTS/ALG).
{
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TB_PROG=websearch
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"
# shellcheck source=testbed/lib/leafspine.sh
. "$ROOT/testbed/lib/leafspine.sh"

LOADS=20,50,80 FLOWS=300 RATE_MBPS=25 UPLINK_MBPS='' LEAVES=2 HPL=4
PAIRS=any DRAIN_US='' LONE=0 CDF=$ROOT/testbed/websearch/cdf.txt
SAMPLE_PORTS='' SAMPLE_PORT_US=''
PORT_RE='(h[0-9]+|l[0-9]+-(h[0-9]+|up)|s[0-9]+)'	# --sample-ports' names
TB_NO_OPTS='--no-sample --serial-link'	# the leaf-spine's ports: two frames
TB_TAU_HELP="the largest base RTT, cross-leaf: a flow whose RTT
                      is above tau sees power > 1 on an empty network and
                      starves; with --host-stack plus 2 x --rx-usecs
                      scaled, the hosts' moderation"

usage() {
	cat <<USAGE
usage: testbed/websearch/run.sh --cc SPEC --out DIR [options]
  --loads L1,L2,...   offered loads, percent of the busiest link class (the
                      leaf uplinks at the defaults; see websearch-gen --help),
                      one run each into DIR/load-L (default 20,50,80; the CI
                      set is --loads 50 --flows 60, testbed/tests)
  --load L            the same as --loads L
  --flows N           flows per load (default 300: about 3.5 minutes wall a
                      load in a vm-run --icount guest, a run costs the bytes
                      it moves, ~0.7 s wall a flow; 5 algorithms x 3 loads
                      on 2 VMs ~ 30-35 minutes; p99.9 of a bucket
                      means something only with >= 1000 flows in it, so at
                      this default it is the bucket's maximum: see
                      p999_meaningful)
  --uplink-mbps U     leaf-spine link rate (default R: 4:1 oversubscribed)
  --leaves K          leaves (default 2); --hosts-per-leaf H (default 4)
  --pairs any|cross   any host pair (default) or cross-leaf pairs only
  --drain-us T        run after the last arrival (default 5 x the largest
                      flow at R)
  --cdf F             flow size CDF (default testbed/websearch/cdf.txt)
  --sample-ports P1,P2,...
                      sample these ports' queues every --sample-us (default
                      the cross-leaf base RTT) into DIR/load-L/queue-P.csv
                      (backlog, drops): hH is host H's NIC (its egress, the
                      path of its data and of the ACKs of every flow into
                      it), lL-hH leaf L's port to host H, lL-up leaf L's
                      uplink, sL the spine's port to leaf L
  --sample-us T       the sampling interval, us
  --lone              validation of the ideal FCT instead of the workload:
                      flows of 1 kB, 10 kB, 100 kB, 1 MB and 10 MB, in-rack
                      (h1 -> h2) and cross-leaf (h1 -> first host of leaf 2),
                      one at a time on the empty fabric, into DIR/lone
Common options (--rate-mbps is the host link rate, --rtt-us the in-rack
base RTT: cross-leaf it is 2 x its propagation + serialization, 9760 at 25,
2440 at 100; --ecn-k-bytes applies at R ports, scaled by rate on others;
--buffer-bytes is every switch port's FIFO; the queues are sampled only
with --sample-ports, each run saves every switch's qdisc statistics):
USAGE
	tb_usage_common
	cat <<USAGE
CPU headroom: before the run, with every token bucket removed (delays
kept), one unlimited cross-leaf flow per host for 300 in-rack RTTs must move
at least twice the offered load of the whole fabric (gen.json
offered_mbps); otherwise headroom.json says ok: false and
websearch/summarize.py refuses the run.
Why R = 25 by default: the fabric's offered load is 3.5 x L x R (load L on
the uplinks, any pair, 4/7 of the pairs cross leaves); the single-vCPU
guest under -icount moves about 190 Mbit/s over cross-leaf paths, so at
R = 100 (the incast's rate, 1160 us in-rack RTT) only loads up to ~25%
pass the check. R = 25 with the same scaling (time x 1000) passes to ~95%.
A run's cost is the bytes it moves (idle virtual time is skipped), not R.
USAGE
}

# shellcheck disable=SC2317 # called by tb_parse_args
opts() {
	case $1 in
	--load|--loads) [[ ${2:-} =~ ^[0-9]+(,[0-9]+)*$ ]] ||
			tb_die "$1: '${2:-}' is not a list of percentages"
		LOADS=$2 ;;
	--flows) tb_num "$1" "${2:-}"; FLOWS=$2 ;;
	--uplink-mbps) tb_num "$1" "${2:-}"; UPLINK_MBPS=$2 ;;
	--leaves) tb_num "$1" "${2:-}"; LEAVES=$2 ;;
	--hosts-per-leaf) tb_num "$1" "${2:-}"; HPL=$2 ;;
	--pairs) [[ ${2:-} =~ ^(any|cross)$ ]] ||
			tb_die "--pairs: '${2:-}' is not any or cross"
		PAIRS=$2 ;;
	--drain-us) tb_num "$1" "${2:-}"; DRAIN_US=$2 ;;
	--cdf) CDF=${2:-}; [ -f "$CDF" ] || tb_die "--cdf: no file '$CDF'" ;;
	--sample-ports) [[ ${2:-} =~ ^$PORT_RE(,$PORT_RE)*$ ]] ||
			tb_die "--sample-ports: '${2:-}' is not a list of hH, lL-hH, lL-up, sL"
		SAMPLE_PORTS=$2 ;;
	--sample-us) tb_num "$1" "${2:-}"; SAMPLE_PORT_US=$2 ;;
	--lone) LONE=1; TB_SHIFT=1; return 0 ;;
	*) return 1 ;;
	esac
	TB_SHIFT=2
}

tb_parse_args opts "$@"
for l in ${LOADS//,/ }; do
	[[ $l -ge 1 && $l -le 100 ]] ||
		tb_die "--loads: $l is not 1 to 100"
done
[[ $LEAVES -ge 2 && $LEAVES -le 9 ]] || tb_die "--leaves: 2 to 9"
[ "$HPL" -le 50 ] || tb_die "--hosts-per-leaf: at most 50"
[ "$FLOWS" -le 100000 ] || tb_die "--flows: at most 100000"
[ "$SAMPLE_PORT_US" = '' ] || [ "$SAMPLE_PORT_US" -ge 100 ] ||
	tb_die "--sample-us: at least 100"
# port_spec P: NETNS,DEV,INTERVAL,HANDLE for tcpflows --sample (the port's
# token bucket, 2:, on a switch; the host's NIC is its root bucket).
port_spec() {
	local l h
	if [[ $1 =~ ^h([0-9]+)$ ]]; then
		h=${BASH_REMATCH[1]}
		[ "$h" -ge 1 ] && [ "$h" -le $((LEAVES * HPL)) ] || return 1
		echo "$(tb_host "$h"),eth0,$SAMPLE_PORT_US,root"
	elif [[ $1 =~ ^l([0-9]+)-up$ ]]; then
		l=${BASH_REMATCH[1]}
		[ "$l" -ge 1 ] && [ "$l" -le "$LEAVES" ] || return 1
		echo "$(ls_leaf_ns "$l"),up0,$SAMPLE_PORT_US,2:"
	elif [[ $1 =~ ^l([0-9]+)-h([0-9]+)$ ]]; then
		l=${BASH_REMATCH[1]} h=${BASH_REMATCH[2]}
		[ "$l" -ge 1 ] && [ "$l" -le "$LEAVES" ] &&
		[ "$h" -gt $(((l - 1) * HPL)) ] && [ "$h" -le $((l * HPL)) ] ||
			return 1
		echo "$(ls_leaf_ns "$l"),to_h$h,$SAMPLE_PORT_US,2:"
	else
		l=${1#s}
		[ "$l" -ge 1 ] && [ "$l" -le "$LEAVES" ] || return 1
		echo "$TB_SPINE,to_l$l,$SAMPLE_PORT_US,2:"
	fi
}
for port in ${SAMPLE_PORTS//,/ }; do
	port_spec "$port" > /dev/null ||
		tb_die "--sample-ports: no port $port on $LEAVES leaves of $HPL hosts"
done
tb_setup

UPLINK_MBPS=${UPLINK_MBPS:-$RATE_MBPS}
HOSTS=$((LEAVES * HPL))
PROP_US=$(ls_prop_us "$RTT_US" "$RATE_MBPS" "$MTU")
[ "$PROP_US" -gt 0 ] || tb_die "--rtt-us: shorter than one MTU at R"
RTT_CROSS_US=$(ls_rtt_cross "$RTT_US" "$RATE_MBPS" "$UPLINK_MBPS" "$MTU")
TAU_US=${TAU_US:-$((RTT_CROSS_US + TB_HOST_US))}
SAMPLE_PORT_US=${SAMPLE_PORT_US:-$RTT_CROSS_US}
MAXSIZE=$(awk '!/^#/ && NF == 2 { m = $1 } END { printf "%d", m }' "$CDF")
DRAIN_US=${DRAIN_US:-$((5 * MAXSIZE * 8 / RATE_MBPS))}

topology() { # unlimited
	TB_LEAVES=$LEAVES TB_HPL=$HPL TB_RATE_MBPS=$RATE_MBPS \
	TB_UPLINK_MBPS=$UPLINK_MBPS TB_RTT_US=$RTT_US \
	TB_BUFFER_BYTES=$BUFFER_BYTES TB_MTU=$MTU TB_CC=$CC TB_UNLIMITED=$1 \
	TB_ECN_K_BYTES=$(tb_ecn_k "$CC" "$ECN_K_BYTES") \
		tb_leafspine
}

listeners() {
	local h
	for h in $(seq 1 "$HOSTS"); do
		echo "--listen $(tb_host "$h"),$(ls_host_addr "$h" "$HPL"),5001"
	done
}

samplers() {
	local port
	for port in ${SAMPLE_PORTS//,/ }; do
		echo "--sample $(port_spec "$port")"
	done
}

json_get() { # file key: an integer
	/usr/bin/python3 -c 'import json,sys; print(int(round(json.load(open(sys.argv[1]))[sys.argv[2]])))' "$1" "$2"
}

# Lone flows: each starts 3 ideal FCTs + 50 RTTs after the previous one.
lone_flows() { # dir
	awk -v r="$RATE_MBPS" -v rtt="$RTT_CROSS_US" -v hpl="$HPL" -v h1="$(tb_host 1)" \
	    -v mss=$((MTU - 52)) -v m="$1/manifest.csv" '
	BEGIN {
		print "id,src,dst,src_leaf,dst_leaf,start_us,bytes" > m
		t = 100000; n = split("1000 10000 100000 1000000 10000000", sz)
		for (c = 0; c < 2; c++) for (i = 1; i <= n; i++) {
			d = c ? hpl + 1 : 2
			printf "%d,%s,10.%d.%d.2,5001,%d,%d,0\n", id, h1, c + 1,
				c ? 1 : 2, t, sz[i]
			printf "%d,1,%d,1,%d,%d,%d\n", id++, d, c + 1, t, sz[i] > m
			last = t
			t += int(3 * (1.5 * rtt + (sz[i] / mss + 1) * (mss + 66) * 8 / r)) + 50 * rtt
		}
		printf "{\"offered_mbps\": %d, \"last_start_us\": %d, \"flows\": %d, \"lone\": true}\n", r, last, id > "/dev/stderr"
	}' 2> "$1/gen.json" > "$1/flowfile.txt"
}

# CPU headroom: without token buckets, one unlimited flow from every host
# to the host at the same place on the next leaf (the longest paths) must
# move twice the offered load, or the queues we measure are the CPU's.
# Measured once into HEADROOM_MBPS; each load compares its offered load
# with it.
headroom() {
	local hd=$((300 * RTT_US)) h d
	topology 1
	mkdir -p "$WORK/headroom"
	{
		listeners
		for h in $(seq 1 "$HOSTS"); do
			d=$(((h - 1 + HPL) % HOSTS + 1))
			echo "--flow $h,$(tb_host "$h"),$(ls_host_addr "$d" "$HPL"),5001,0,0,$hd"
		done
	} > "$WORK/headroom/args"
	# shellcheck disable=SC2046
	tb_run "$TB_TOOLS/tcpflows" --out-dir "$WORK/headroom" \
		--duration-us $((hd + 50000)) --interval-us 0 --quiet \
		--seed "$SEED" $(cat "$WORK/headroom/args") >/dev/null ||
		tb_die "the headroom run failed"
	HEADROOM_MBPS=$(awk -F, -v t="$hd" 'NR > 1 { b += $8 }
		END { printf "%d", b * 8 / t }' "$WORK/headroom/flows.csv")
	rm -rf "$WORK/headroom"
}

run_one() { # name load_or_0 -> OUT/name
	local name=$1 load=$2 w=$WORK/$1 offered last end drain rc=0 t0 virt
	local port ns dev handle
	mkdir -p "$w"
	rm -rf "${OUT:?}/$name"
	if [ "$load" = 0 ]; then
		lone_flows "$w"
		drain=$((2 * 10000000 * 8 / RATE_MBPS + 50 * RTT_CROSS_US))
	else
		"$TB_TOOLS/websearch-gen" --cdf "$CDF" --load "$load" \
			--hosts "$HOSTS" --leaves "$LEAVES" \
			--link-mbps "$RATE_MBPS" --uplink-mbps "$UPLINK_MBPS" \
			--flows "$FLOWS" --seed "$SEED" --pairs "$PAIRS" \
			--prefix "$(tb_ns h)" \
			--start-us 100000 --flow-file "$w/flowfile.txt" \
			--manifest "$w/manifest.csv" > "$w/gen.json" ||
			tb_die "websearch-gen failed"
		drain=$DRAIN_US
	fi
	offered=$(json_get "$w/gen.json" offered_mbps)
	last=$(json_get "$w/gen.json" last_start_us)
	end=$((last + drain))
	echo "# websearch: $CC, $name (${offered} Mbit/s offered)," \
		"$(($(wc -l < "$w/manifest.csv") - 1)) flows, last arrival" \
		"${last} us, end ${end} us"
	cat > "$w/headroom.json" <<JSON
{"checked": $([ "$HEADROOM" = 1 ] && echo true || echo false),
 "unlimited_mbps": $HEADROOM_MBPS,
 "offered_mbps": $offered, "required_mbps": $((2 * offered)),
 "ok": $([ "$HEADROOM" = 0 ] || [ "$HEADROOM_MBPS" -ge $((2 * offered)) ] &&
	echo true || echo false)}
JSON
	topology 0
	t0=$(date +%s)	# guest seconds: virtual under -icount
	tb_trace_on
	# shellcheck disable=SC2046
	tb_run "$TB_TOOLS/tcpflows" --out-dir "$w" --duration-us "$end" \
		--align-us 100000 --interval-us 0 --seed "$SEED" --quiet \
		--progress --flow-file "$w/flowfile.txt" $(listeners) \
		$(samplers) || rc=$?
	# 1: a flow failed, which is a result; more: the run itself failed.
	[ "$rc" -le 1 ] || tb_die "tcpflows failed (exit $rc)"
	tb_trace_off "$w/trace.txt"
	for port in ${SAMPLE_PORTS//,/ }; do
		IFS=, read -r ns dev _ handle <<< "$(port_spec "$port")"
		mv "$w/qdisc-$ns-$dev${handle:+-${handle//:/_}}.csv" \
			"$w/queue-$port.csv"
	done
	virt=$(($(date +%s) - t0))
	for ns in $(seq 1 "$LEAVES" | while read -r l; do ls_leaf_ns "$l"; done) \
	    "$TB_SPINE"; do
		echo "== $ns"
		tc -n "$ns" -s qdisc show
	done > "$w/qdisc_stats.txt"
	tb_param load_pct "$load" flows $(($(wc -l < "$w/manifest.csv") - 1)) \
		leaves "$LEAVES" hosts_per_leaf "$HPL" spines 1 pairs "$PAIRS" \
		uplink_mbps "$UPLINK_MBPS" rtt_rack_us "$RTT_US" \
		rtt_cross_us "$RTT_CROSS_US" prop_us "$PROP_US" \
		prop_rtt_rack_us $((4 * PROP_US)) \
		prop_rtt_cross_us $((8 * PROP_US)) \
		tau_rule "largest base RTT (cross-leaf) unless --tau-us" \
		offered_mbps "$offered" last_start_us "$last" drain_us "$drain" \
		sample_ports "$SAMPLE_PORTS" sample_us "$SAMPLE_PORT_US" \
		end_us "$end" tcpflows_status "$rc" guest_seconds "$virt"
	tb_param_bool lone "$([ "$load" = 0 ] && echo 1 || echo 0)"
	tb_write_params "$w/params.json"
	mkdir -p "$OUT/$name"
	cp -r "$w"/* "$OUT/$name/"
	rm -rf "$w"
	echo "# websearch: $CC $name done ($virt s of guest time)," \
		"raw data in $OUT/$name"
}

tb_prelude tcpflows websearch-gen
echo "# websearch: $CC, ${LEAVES}x${HPL} hosts, R=${RATE_MBPS}" \
	"U=${UPLINK_MBPS} Mbit/s, RTT ${RTT_US}/${RTT_CROSS_US} us," \
	"tau=${TAU_US} us, buffer=${BUFFER_BYTES} B, $FLOWS flows a load"
HEADROOM_MBPS=0
if [ "$HEADROOM" = 1 ]; then
	headroom
	echo "# headroom: ${HEADROOM_MBPS} Mbit/s without the rate limits"
fi
if [ "$LONE" = 1 ]; then
	run_one lone 0
else
	for l in ${LOADS//,/ }; do
		run_one "load-$l" "$l"
	done
fi
exit 0
}
