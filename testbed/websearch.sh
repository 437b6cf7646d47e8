#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The web-search experiment of the PowerTCP paper (Figure 7's shape) for
# one congestion control at one load, on the leaf-spine fabric of
# testbed/leafspine.sh. Runs as root where modules can be loaded: inside
# the QEMU guest (scripts/vm-run.sh --icount) or natively.
#
#   testbed/websearch.sh --cc NAME --out DIR [--loads 20,50,80] [options]
#
# Flows arrive as a Poisson process between random host pairs, sizes from
# testbed/websearch_cdf.txt (userspace-tools/websearch-gen); every host
# both sends and receives; one tcpflows process runs them all. Each load
# runs on a fresh topology; raw data go to DIR/load-L/ (flows.csv,
# manifest.csv, flowfile.txt, gen.json, headroom.json, params.json,
# qdisc_stats.txt); testbed/summarize_websearch.py RESULTS analyzes
# RESULTS/ALG/load-L/ (so --out RESULTS/ALG).
{
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=testbed/leafspine.sh
TB_PROG=websearch
. "$ROOT/testbed/leafspine.sh"

CC= OUT= LOADS=20,50,80 FLOWS=300 RATE_MBIT=25 UPLINK_MBIT= LEAVES=2 HPL=4
RTT_US= TAU_US= BUFFER_BYTES=4000000 ECN_K_BYTES=30000 MTU=1500 SEED=1
PAIRS=any DRAIN_US= HEADROOM=1 LONE=0 KMOD_DIR= CDF=$ROOT/testbed/websearch_cdf.txt

usage() {
	cat <<USAGE
usage: testbed/websearch.sh --cc NAME --out DIR [options]
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
  --rate-mbit R       host link rate (default 25, see below)
  --uplink-mbit U     leaf-spine link rate (default R: 4:1 oversubscribed)
  --leaves K          leaves (default 2); --hosts-per-leaf H (default 4)
  --rtt-us T          in-rack base RTT (default 4.64 us x 25000/R: 4640
                      at 25, 1160 at 100); cross-leaf: 2 x its propagation
                      + serialization (9760 at 25, 2440 at 100)
  --tau-us T          tau of the PowerTCP modules (default: the largest base
                      RTT, cross-leaf: a flow whose RTT is above tau sees
                      power > 1 on an empty network and starves)
  --buffer-bytes B    FIFO of every switch port (default 4000000)
  --ecn-k-bytes K     DCTCP marking threshold at R ports (default 30000,
                      scaled by rate on others)
  --pairs any|cross   any host pair (default) or cross-leaf pairs only
  --drain-us T        run after the last arrival (default 5 x the largest
                      flow at R)
  --cdf F             flow size CDF (default testbed/websearch_cdf.txt)
  --mtu M             (default 1500)
  --seed S            arrivals, pairs and sizes (default 1)
  --no-headroom       skip the CPU headroom check
  --lone              validation of the ideal FCT instead of the workload:
                      flows of 1 kB, 10 kB, 100 kB, 1 MB and 10 MB, in-rack
                      (h1 -> h2) and cross-leaf (h1 -> first host of leaf 2),
                      one at a time on the empty fabric, into DIR/lone
  --kmod-dir D        where tcp_theta_powertcp.ko etc. are
                      (default build/kmod-\$(uname -r)/kmod)
CPU headroom: before the run, with every token bucket removed (delays
kept), one unlimited cross-leaf flow per host for 300 in-rack RTTs must move
at least twice the offered load of the whole fabric (gen.json
offered_mbps); otherwise headroom.json says ok: false and
summarize_websearch.py refuses the run.
Why R = 25 by default: the fabric's offered load is 3.5 x L x R (load L on
the uplinks, any pair, 4/7 of the pairs cross leaves); the single-vCPU
guest under -icount moves about 190 Mbit/s over cross-leaf paths, so at
R = 100 (the incast's rate, 1160 us in-rack RTT) only loads up to ~25%
pass the check. R = 25 with the same scaling (time x 1000) passes to ~95%.
A run's cost is the bytes it moves (idle virtual time is skipped), not R.
USAGE
}


while [ $# -gt 0 ]; do
	case $1 in
	--cc) CC=${2:-}; shift ;;
	--out) OUT=${2:-}; shift ;;
	--load|--loads) [[ ${2:-} =~ ^[0-9]+(,[0-9]+)*$ ]] ||
			tb_die "$1: '${2:-}' is not a list of percentages"
		LOADS=$2; shift ;;
	--flows) tb_num "$1" "${2:-}"; FLOWS=$2; shift ;;
	--rate-mbit) tb_num "$1" "${2:-}"; RATE_MBIT=$2; shift ;;
	--uplink-mbit) tb_num "$1" "${2:-}"; UPLINK_MBIT=$2; shift ;;
	--leaves) tb_num "$1" "${2:-}"; LEAVES=$2; shift ;;
	--hosts-per-leaf) tb_num "$1" "${2:-}"; HPL=$2; shift ;;
	--rtt-us) tb_num "$1" "${2:-}"; RTT_US=$2; shift ;;
	--tau-us) tb_num "$1" "${2:-}"; TAU_US=$2; shift ;;
	--buffer-bytes) tb_num "$1" "${2:-}"; BUFFER_BYTES=$2; shift ;;
	--ecn-k-bytes) tb_num "$1" "${2:-}"; ECN_K_BYTES=$2; shift ;;
	--pairs) [[ ${2:-} =~ ^(any|cross)$ ]] ||
			tb_die "--pairs: '${2:-}' is not any or cross"
		PAIRS=$2; shift ;;
	--drain-us) tb_num "$1" "${2:-}"; DRAIN_US=$2; shift ;;
	--cdf) CDF=${2:-}; [ -f "$CDF" ] || tb_die "--cdf: no file '$CDF'"; shift ;;
	--mtu) tb_num "$1" "${2:-}"; MTU=$2; shift ;;
	--seed) tb_num "$1" "${2:-}"; SEED=$2; shift ;;
	--no-headroom) HEADROOM=0 ;;
	--lone) LONE=1 ;;
	--kmod-dir) KMOD_DIR=${2:-}; shift ;;
	-h|--help) usage; exit 0 ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
[ -n "$CC" ] || tb_die "--cc NAME is required"
[ -n "$OUT" ] || tb_die "--out DIR is required"
for l in ${LOADS//,/ }; do
	[ "$l" -ge 1 ] && [ "$l" -le 100 ] || tb_die "--loads: $l is not 1 to 100"
done
[ "$LEAVES" -ge 2 ] && [ "$LEAVES" -le 9 ] || tb_die "--leaves: 2 to 9"
[ "$HPL" -le 50 ] || tb_die "--hosts-per-leaf: at most 50"
[ "$FLOWS" -le 100000 ] || tb_die "--flows: at most 100000"
[ "$(id -u)" = 0 ] || tb_die "must run as root (namespaces, modules)"

UPLINK_MBIT=${UPLINK_MBIT:-$RATE_MBIT}
RTT_US=${RTT_US:-$((464 * 25000 / RATE_MBIT / 100))}
HOSTS=$((LEAVES * HPL))
PROP_US=$(ls_prop_us "$RTT_US" "$RATE_MBIT" "$MTU")
[ "$PROP_US" -gt 0 ] || tb_die "--rtt-us: shorter than one MTU at R"
RTT_CROSS_US=$(ls_rtt_cross "$RTT_US" "$RATE_MBIT" "$UPLINK_MBIT" "$MTU")
TAU_US=${TAU_US:-$RTT_CROSS_US}
MAXSIZE=$(awk '!/^#/ && NF == 2 { m = $1 } END { printf "%d", m }' "$CDF")
DRAIN_US=${DRAIN_US:-$((5 * MAXSIZE * 8 / RATE_MBIT))}
TOOLS=$ROOT/userspace-tools/bin
KMOD_DIR=${KMOD_DIR:-$ROOT/build/kmod-$(uname -r)/kmod}
for t in tcpflows websearch-gen; do
	[ -x "$TOOLS/$t" ] || tb_die "$TOOLS/$t missing (make -C userspace-tools)"
done

topology() { # unlimited
	TB_LEAVES=$LEAVES TB_HPL=$HPL TB_RATE_MBIT=$RATE_MBIT \
	TB_UPLINK_MBIT=$UPLINK_MBIT TB_RTT_US=$RTT_US \
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

json_get() { # file key: an integer
	python3 -c 'import json,sys; print(int(round(json.load(open(sys.argv[1]))[sys.argv[2]])))' "$1" "$2"
}

# Lone flows: each starts 3 ideal FCTs + 50 RTTs after the previous one.
lone_flows() { # dir
	awk -v r="$RATE_MBIT" -v rtt="$RTT_CROSS_US" -v hpl="$HPL" \
	    -v mss=$((MTU - 52)) -v m="$1/manifest.csv" '
	BEGIN {
		print "id,src,dst,src_leaf,dst_leaf,start_us,bytes" > m
		t = 100000; n = split("1000 10000 100000 1000000 10000000", sz)
		for (c = 0; c < 2; c++) for (i = 1; i <= n; i++) {
			d = c ? hpl + 1 : 2
			printf "%d,tb_h1,10.%d.%d.2,5001,%d,%d,0\n", id, c + 1,
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
# Measured once; each load compares its offered load with it.
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
	"$TOOLS/tcpflows" --out-dir "$WORK/headroom" --duration-us $((hd + 50000)) \
		--interval-us 0 --quiet --seed "$SEED" \
		$(cat "$WORK/headroom/args") >/dev/null
	awk -F, -v t="$hd" 'NR > 1 { b += $8 } END { printf "%d", b * 8 / t }' \
		"$WORK/headroom/flows.csv"
	rm -rf "$WORK/headroom"
}

run_one() { # name load_or_0 -> OUT/name
	local name=$1 load=$2 w=$WORK/$1 offered last end drain rc=0 t0 virt
	mkdir -p "$w"
	rm -rf "${OUT:?}/$name"
	if [ "$load" = 0 ]; then
		lone_flows "$w"
		drain=$((2 * 10000000 * 8 / RATE_MBIT + 50 * RTT_CROSS_US))
	else
		"$TOOLS/websearch-gen" --cdf "$CDF" --load "$load" \
			--hosts "$HOSTS" --leaves "$LEAVES" \
			--link-mbps "$RATE_MBIT" --uplink-mbps "$UPLINK_MBIT" \
			--flows "$FLOWS" --seed "$SEED" --pairs "$PAIRS" \
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
{"checked": $HEADROOM, "unlimited_mbps": $HEADROOM_MBPS,
 "offered_mbps": $offered, "required_mbps": $((2 * offered)),
 "ok": $([ "$HEADROOM" = 0 ] || [ "$HEADROOM_MBPS" -ge $((2 * offered)) ] &&
	echo true || echo false)}
JSON
	topology 0
	t0=$(date +%s)	# guest seconds: virtual under -icount
	"$TOOLS/tcpflows" --out-dir "$w" --duration-us "$end" \
		--align-us 100000 --interval-us 0 --seed "$SEED" --quiet \
		--progress --flow-file "$w/flowfile.txt" $(listeners) || rc=$?
	# 1: a flow failed, which is a result; more: the run itself failed.
	[ "$rc" -le 1 ] || tb_die "tcpflows failed (exit $rc)"
	virt=$(($(date +%s) - t0))
	for ns in $(ip netns list | awk '/^tb_[ls]/ {print $1}'); do
		echo "== $ns"
		tc -n "$ns" -s qdisc show
	done > "$w/qdisc_stats.txt"
	cat > "$w/params.json" <<JSON
{"algorithm": "$CC", "kernel": "$(uname -r)", "load_pct": $load,
 "flows": $(($(wc -l < "$w/manifest.csv") - 1)), "lone": $([ "$load" = 0 ] && echo 1 || echo 0),
 "leaves": $LEAVES, "hosts_per_leaf": $HPL, "spines": 1, "pairs": "$PAIRS",
 "rate_mbit": $RATE_MBIT, "uplink_mbit": $UPLINK_MBIT,
 "rtt_rack_us": $RTT_US, "rtt_cross_us": $RTT_CROSS_US,
 "prop_us": $PROP_US, "prop_rtt_rack_us": $((4 * PROP_US)),
 "prop_rtt_cross_us": $((8 * PROP_US)), "tau_us": $TAU_US,
 "tau_rule": "largest base RTT (cross-leaf) unless --tau-us",
 "buffer_bytes": $BUFFER_BYTES, "mtu": $MTU,
 "ecn_k_bytes": $(tb_ecn_k "$CC" "$ECN_K_BYTES"),
 "offered_mbps": $offered, "last_start_us": $last,
 "drain_us": $drain, "end_us": $end, "seed": $SEED,
 "tcpflows_status": $rc, "guest_seconds": $virt,
 "time_scale": $((25000 / RATE_MBIT))}
JSON
	mkdir -p "$OUT/$name"
	cp -r "$w"/* "$OUT/$name/"
	rm -rf "$w"
	echo "# websearch: $CC $name done ($virt s of guest time)," \
		"raw data in $OUT/$name"
}

mkdir -p "$OUT"
# Written to a tmpfs first: in the guest, writing through 9p while the
# flows run would make virtual time depend on the host's I/O.
WORK=$(mktemp -d /tmp/websearch.XXXXXX)
trap 'rm -rf "$WORK"; tb_destroy' EXIT
cat "$TOOLS/tcpflows" "$TOOLS/websearch-gen" > /dev/null
tb_load_cc "$CC" "$TAU_US" "$RATE_MBIT" "$KMOD_DIR"
echo "# websearch: $CC, ${LEAVES}x${HPL} hosts, R=${RATE_MBIT}" \
	"U=${UPLINK_MBIT} Mbit/s, RTT ${RTT_US}/${RTT_CROSS_US} us," \
	"tau=${TAU_US} us, buffer=${BUFFER_BYTES} B, $FLOWS flows a load"
HEADROOM_MBPS=0
if [ "$HEADROOM" = 1 ]; then
	HEADROOM_MBPS=$(headroom | tail -n 1)
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
