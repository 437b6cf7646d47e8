#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end test of tcpflows through namespaces and a rate limit. Needs
# root, iproute2 (ip with netns support, tc), awk, and a kernel with
# netns, veth, tbf, netem and the reno, cubic and bbr congestion controls;
# run in a guest by make check. What needs no root (bad arguments, a
# loopback run, the epoch file) is in tests/test_tools_noroot.sh. Prints
# KTAP (scripts/tap.sh); exits 1 if any check fails.
#
#   h1 \
#   h2 -- sw --[tbf RATE_MBPS]--> rcv   (netem 1 ms delay on rcv's egress)
#   h3 /
#
# Environment: BIN (default: ../bin, built with make if missing),
# RATE_MBPS (default 100), DUR_US (default 4000000), SAMPLE_US (qdisc
# sampling interval, default 500), LATE_US (allowed flow start lateness,
# default 2000; raise it for slow emulated CPUs), KEEP=1 keeps the output
# directory.
set -u

HERE=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$HERE/../scripts/tap.sh"
# shellcheck source=userspace-tools/tests/lib.sh
. "$HERE/tests/lib.sh"
BIN=${BIN:-$HERE/bin}
RATE=${RATE_MBPS:-100}
DUR=${DUR_US:-4000000}
P=tft$$				# namespace prefix, unique per run
LIMIT=$((RATE * 2000))		# tbf queue limit, bytes: 16 ms
[ $LIMIT -ge 40000 ] || LIMIT=40000
SIZE=$((RATE * 20000))		# sized flow, bytes: 160 ms alone
IV=1000				# goodput interval, us
SIV=${SAMPLE_US:-500}		# sampler interval, us
LATE=${LATE_US:-2000}		# allowed start lateness, us
OUT=$(mktemp -d /tmp/test_tools.XXXXXX)

cleanup() {
	for ns in h1 h2 h3 sw rcv; do
		ip netns del "$P$ns" 2>/dev/null
	done
	[ "${KEEP:-0}" = 1 ] && echo "# output kept in $OUT" || rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || tap_bail "must run as root"
for t in ip tc awk; do
	command -v $t >/dev/null || tap_bail "needs $t"
done
if [ ! -x "$BIN/tcpflows" ]; then
	make -s -C "$HERE" >/dev/null || tap_bail "build failed"
fi
TF=$BIN/tcpflows

# Topology.
nsx() { ns=$1; shift; ip netns exec "$P$ns" "$@"; }
setup() {
	for ns in h1 h2 h3 sw rcv; do
		ip netns add "$P$ns" || return 1
		ip -n "$P$ns" link set lo up
	done
	for i in 1 2 3; do
		ip -n "${P}h$i" link add eth0 type veth peer name "h$i" \
			netns "${P}sw" || return 1
		ip -n "${P}h$i" addr add "10.0.$i.1/24" dev eth0
		ip -n "${P}h$i" link set eth0 up
		ip -n "${P}h$i" route add default via "10.0.$i.2"
		ip -n "${P}sw" addr add "10.0.$i.2/24" dev "h$i"
		ip -n "${P}sw" link set "h$i" up
	done
	ip -n "${P}sw" link add out type veth peer name eth0 netns "${P}rcv" ||
		return 1
	ip -n "${P}sw" addr add 10.0.100.1/24 dev out
	ip -n "${P}sw" link set out up
	ip -n "${P}rcv" addr add 10.0.100.2/24 dev eth0
	ip -n "${P}rcv" link set eth0 up
	ip -n "${P}rcv" route add default via 10.0.100.1
	nsx sw sh -c 'echo 1 >/proc/sys/net/ipv4/ip_forward' || return 1
	tc -n "${P}sw" qdisc add dev out root handle 1: tbf \
		rate "${RATE}mbit" burst 32kb limit $LIMIT
}
check "topology: 3 senders, router with tbf ${RATE}mbit, receiver" setup ||
	tap_bail "cannot set up namespaces"
if tc -n "${P}rcv" qdisc add dev eth0 root netem delay 1ms limit 10000 \
	2>/dev/null; then
	ok "netem 1 ms delay on the receiver's egress"
else
	skip "netem delay" "netem not available in this kernel"
fi

A=10.0.100.2
L=(--listen "${P}rcv,$A,5001")

# Main run: staggered cubic, reno and bbr flows, a sized flow, the qdisc
# sampled in process.
D=$OUT/run1
mkdir -p "$D"
"$TF" --out-dir "$D" --duration-us "$DUR" --interval-us $IV --cc cubic \
	--margin-us 20000 --progress --notsent-lowat 65536 \
	--sample "${P}sw,out,$SIV" "${L[@]}" \
	--flow "1,${P}h1,$A,5001,0,0,$((DUR * 7 / 8)),cubic" \
	--flow "2,${P}h2,$A,5001,$((DUR / 4)),0,0,reno" \
	--flow "3,${P}h3,$A,5001,$((DUR / 2)),0,0,bbr" \
	--flow "4,${P}h1,$A,5001,$((DUR * 3 / 8)),$SIZE,0" \
	>"$D/summary.txt" 2>"$D/stderr.txt"
rc=$?
sed 's/^/# /' "$D/summary.txt" "$D/stderr.txt"
check "tcpflows run exits 0" [ $rc -eq 0 ]
check "summary has 4 flow lines" [ "$(grep -c '^flow ' "$D/summary.txt")" -eq 4 ]
check "progress lines printed" [ "$(grep -c 't=.*Mbit/s' "$D/stderr.txt")" -ge 2 ]

F=$D/flows.csv
G=$D/goodput.csv
Q=$D/qdisc-${P}sw-out.csv
awk_check "flows.csv: 4 flows, cc as asked" "$F" '
	NR > 1 { n++; cc = cc $3 " " }
	END { print cc; exit !(n == 4 && cc == "cubic reno bbr cubic ") }'
awk_check "flows start on time (started_us - start_us < $LATE us)" "$F" \
	-v late=$LATE '
	NR > 1 { d = $10 - $4; if (d > m) m = d; if (d < 0) bad = 1 }
	END { print "max late " m " us"; exit bad || m > late }'
# A SYN dropped at the full bottleneck queue costs a 1 s retransmit.
awk_check "all flows connect" "$F" '
	NR > 1 { d = $9 - $4; if (d > m) m = d; if ($9 < 0) bad = 1 }
	END { print "max " m " us after start"; exit bad || m > 3100000 }'
awk_check "flow 1 stopped at STOP_US" "$F" -v stop=$((DUR * 7 / 8)) '
	$1 == 1 { print $12, "completion", $7, "us";
		  exit !($12 == "closed" && $7 >= stop && $7 < stop + 500000) }'
awk_check "flows 2, 3 active until the end" "$F" '
	$1 == 2 || $1 == 3 { s = s $12 " " }
	END { print s; exit s != "active active " }'
awk_check "sized flow 4 complete" "$F" -v rate="$RATE" '
	$1 == 4 { fct = $7 - $4; min = $5 * 8 / rate;
		  print $12, $8, "B, fct", fct, "us, >=", min;
		  exit !($12 == "done" && $8 == $5 && $7 > $6 && fct >= min) }'
c4=$(awk -F, '$1 == 4 { print $7 }' "$F")
awk_check "goodput.csv agrees with completion of flow 4" "$G" \
	-v c="$c4" -v iv=$IV -v size=$SIZE '
	$2 == 4 && $3 == size && !t { t = $1 }
	$2 == 4 { last = $1 }
	END { print "row at", t, "completion", c;
	      exit !(t >= c && t <= c + iv + 5000 && last == t) }'
awk_check "goodput.csv rows every ${IV} us" "$G" -v iv=$IV '
	$2 == 1 && NR > 1 { if (p) { d[k++] = $1 - p } p = $1 }
	END { for (i = 0; i < k; i++) s += d[i];
	      print "mean", s / k, "us over", k;
	      exit !(k > 100 && s / k < iv * 1.2) }'
# Aggregate goodput over the middle of the run, all flows.
awk_check "aggregate goodput ~ tbf rate" "$G" -v t1=$((DUR / 8)) \
	-v t2=$((DUR * 7 / 8)) -v rate="$RATE" '
	NR > 1 && $1 <= t1 { b1[$2] = $3 }
	NR > 1 && $1 <= t2 { b2[$2] = $3 }
	END { for (f in b2) s += b2[f] - b1[f]; r = s * 8 / (t2 - t1);
	      printf "%.1f Mbit/s payload", r;
	      exit !(r > 0.85 * rate && r < 1.02 * rate) }'
awk_check "qdisc: samples every ${SIV} us" "$Q" -v iv=$SIV -v dur="$DUR" '
	NR > 1 { if (p != "") d[k++] = $1 - p; p = $1 }
	END { for (i = 0; i < k; i++) { s += d[i]; if (d[i] > m) m = d[i] }
	      printf "%d samples, mean %.1f us, max %d us", k + 1, s / k, m;
	      exit !(k + 1 >= 0.9 * dur / iv && s / k < iv * 1.1) }'
awk_check "qdisc: sent rate ~ tbf rate" "$Q" -v t1=$((DUR / 8)) \
	-v t2=$((DUR * 7 / 8)) -v rate="$RATE" '
	NR > 1 && $1 <= t1 { a = $4; ta = $1 }
	NR > 1 && $1 <= t2 { b = $4; tb = $1 }
	END { r = (b - a) * 8 / (tb - ta); printf "%.1f Mbit/s", r;
	      exit !(r > 0.9 * rate && r < 1.03 * rate) }'
awk_check "qdisc: backlog plausible" "$Q" -v lim=$LIMIT '
	NR > 1 { if ($2 > m) m = $2; if ($3 > mp) mp = $3; s += $2; k++;
		 if ($2 > 0 && $3 == 0 || $2 < 0) bad = 1 }
	END { printf "max %d B / %d pkts, mean %.0f B, drops %d", m, mp,
		s / k, $6;
	      exit bad || !(m > 0 && m <= lim + 65536) }'
# A sized flow alone: completion time ~ size / rate, about 0.4 s.
D=$OUT/run2
mkdir -p "$D"
"$TF" --out-dir "$D" --duration-us 2000000 --quiet "${L[@]}" \
	--flow "7,${P}h2,$A,5001,100000,$((SIZE * 5 / 2)),0,cubic" \
	2>"$D/stderr.txt"
rc=$?
check "sized run exits 0" [ $rc -eq 0 ]
awk_check "$((SIZE * 5 / 2)) B alone: fct ~ size / rate" "$D/flows.csv" \
	-v rate="$RATE" '
	$1 == 7 { fct = $7 - $4; ideal = $5 * 8 / rate / (1448 / 1514);
		  printf "%s, fct %d us, ideal %d us", $12, fct, ideal;
		  exit !($12 == "done" && fct >= 0.95 * ideal &&
			 fct < 1.5 * ideal + 100000) }'
check "quiet prints nothing" [ ! -s "$D/stderr.txt" ]

# Many short flows at once through one listener.
D=$OUT/run3
mkdir -p "$D"
: >"$D/flows.txt"
i=0
while [ $i -lt 200 ]; do
	echo "$((100 + i)),${P}h$((i % 3 + 1)),$A,5001,$((i * 5000))," \
		"$((RATE * 200)),0" | tr -d ' ' >>"$D/flows.txt"
	i=$((i + 1))
done
"$TF" --out-dir "$D" --duration-us 3000000 --quiet "${L[@]}" \
	--flow-file "$D/flows.txt" 2>"$D/stderr.txt"
rc=$?
check "200 short flows: exit 0" [ $rc -eq 0 ]
awk_check "200 short flows all done" "$D/flows.csv" '
	NR > 1 { n++; d += $12 == "done" && $8 == $5 }
	END { print d "/" n; exit !(n == 200 && d == n) }'

# The bytes waiting (incast-analyze), where the answer is known: three
# 1000 B datagrams (1042 B at the qdisc) back to back into a tbf at
# 1 Mbit/s whose bucket holds one. The first leaves at once, the second
# is in service for its tokens' 8 ms, the third waits behind it: the
# backlog peaks at 2 packets, 2084 B, of which one, 1042 B, waits. Sent
# by bash's /dev/udp from the run's start: a Python would take longer to
# start in a guest than some runs are long.
D=$OUT/run4
mkdir -p "$D"
tc -n "${P}sw" qdisc replace dev out root handle 1: tbf rate 1mbit \
	burst 1600 limit 10000
"$TF" --out-dir "$D" --duration-us 2000000 --quiet "${L[@]}" \
	--sample "${P}sw,out,500" --epoch-file "$D/epoch" 2>"$D/stderr.txt" &
tfpid=$!
for _ in $(seq 200); do [ -s "$D/epoch" ] && break; sleep 0.05; done
nsx h1 bash -c 'p=$(printf "%1000s" ""); for _ in 1 2 3; do
	printf %s "$p" > /dev/udp/10.0.100.2/9; done'
wait $tfpid
check "tbf at 1 Mbit/s: tcpflows samples it, exit 0" [ $? -eq 0 ]
"$BIN/incast-analyze" --qdisc "$D/qdisc-${P}sw-out.csv" \
	--goodput "$D/goodput.csv" --flows "$D/flows.csv" --algorithm cubic \
	--link-mbps 1 --incast-us 0 --end-us 2000000 --bdp-bytes 1042 \
	--json "$D/summary.json" 2>>"$D/stderr.txt"
check "two packets at the tbf: one in service, one waiting (1042 B)" \
	/usr/bin/python3 -c '
import csv, json, sys
s = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
sent = int(rows[-1]["sent_pkts"]) - int(rows[0]["sent_pkts"])
print("backlog peak %d B, waiting peak %d B, %d samples, %d packets sent"
      % (s["peak_queue_bytes"], s["peak_waiting_bytes"], s["samples"], sent))
sys.exit(s["peak_queue_bytes"] != 2084 or s["peak_waiting_bytes"] != 1042)' \
	"$D/summary.json" "$D/qdisc-${P}sw-out.csv"

# nsconf: the topologies' settings in two namespaces from one process, the
# same as ip, sysctl and ethtool leave them (the veth's other end, set by
# ethtool, is the reference); its counters; its errors, one line each.
NC=$BIN/nsconf
nsconf_sets() {
	ip netns add "${P}na" && ip netns add "${P}nb" &&
	ip link add eth0 netns "${P}na" type veth peer name eth0 netns "${P}nb" &&
	ip netns exec "${P}nb" ethtool -K eth0 tso off gso off &&
	"$NC" --up lo --sysctl net.ipv4.tcp_ecn=1 \
		--sysctl net.ipv4.tcp_congestion_control=reno \
		--no-offload eth0 --gso-max-segs eth0=1 "${P}na" "${P}nb" || return 1
	diff <(ip netns exec "${P}na" ethtool -k eth0) \
	     <(ip netns exec "${P}nb" ethtool -k eth0) > /dev/null ||
		{ echo "features differ from ethtool -K's"; return 1; }
	for ns in "${P}na" "${P}nb"; do
		[ "$(ip netns exec "$ns" sysctl -n net.ipv4.tcp_ecn \
			net.ipv4.tcp_congestion_control | paste -sd ' ')" = "1 reno" ] &&
		ip -n "$ns" -d link show eth0 | grep -q 'gso_max_segs 1 ' &&
		ip -n "$ns" link show lo | grep -q '[<,]UP[,>]' ||
			{ echo "$ns not set"; return 1; }
	done
	echo "ecn, reno, lo up, gso_max_segs 1, features as ethtool's in 2 namespaces"
}
check "nsconf: sysctls, lo up, tso/gso off, gso_max_segs" nsconf_sets
check "nsconf: Tcp.RetransSegs of each namespace" sh -c '
	out=$("$1" --snmp Tcp.RetransSegs "$2na" "$2nb" | paste -sd " ") &&
	echo "$out" && [ "$out" = "$2na,0 $2nb,0" ]' _ "$NC" "$P"
for bad in "--sysctl net.ipv4.nosuch=1 ${P}na" "--gso-max-segs eth0 ${P}na" \
	   "--up lo ${P}none" "--snmp Tcp.Nope ${P}na"; do
	# shellcheck disable=SC2086 # the arguments, a word each
	check "nsconf: refuses $bad in one line" sh -c '
		"$@" 2> "$0" > /dev/null; rc=$?
		[ $rc != 0 ] && [ "$(wc -l < "$0")" = 1 ] && cat "$0"' \
		"$OUT/nsconf.err" "$NC" $bad
done
ip netns del "${P}na"; ip netns del "${P}nb"

tap_done
