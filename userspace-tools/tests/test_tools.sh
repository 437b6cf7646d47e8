#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end test of tcpflows and qdisc-sampler. Needs root, iproute2 (ip
# with netns support, tc), awk, and a kernel with netns, veth, tbf, netem
# and the reno, cubic and bbr congestion controls. POSIX sh, so that it
# also runs in a small VM. Prints TAP lines; exits 1 if any check fails.
#
#   h1 \
#   h2 -- sw --[tbf RATE_MBIT]--> rcv   (netem 1 ms delay on rcv's egress)
#   h3 /
#
# Environment: BIN (default: ../bin, built with make if missing),
# RATE_MBIT (default 100), DUR_US (default 4000000), SAMPLE_US (qdisc
# sampling interval, default 500), LATE_US (allowed flow start lateness,
# default 2000; raise it for slow emulated CPUs), KEEP=1 keeps the output
# directory.
set -u

HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=${BIN:-$HERE/bin}
RATE=${RATE_MBIT:-100}
DUR=${DUR_US:-4000000}
P=tft$$				# namespace prefix, unique per run
LIMIT=$((RATE * 2000))		# tbf queue limit, bytes: 16 ms
[ $LIMIT -ge 40000 ] || LIMIT=40000
SIZE=$((RATE * 20000))		# sized flow, bytes: 160 ms alone
IV=1000				# goodput interval, us
SIV=${SAMPLE_US:-500}		# sampler interval, us
LATE=${LATE_US:-2000}		# allowed start lateness, us
OUT=$(mktemp -d /tmp/test_tools.XXXXXX)
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
bail() { echo "Bail out! $*"; exit 1; }

# check DESC CMD...: ok if CMD succeeds.
check() {
	desc=$1
	shift
	if "$@"; then ok "$desc"; else notok "$desc"; fi
}

# awk_check DESC FILE [-v VAR=VALUE...] PROGRAM: PROGRAM reads the CSV
# FILE, prints a note and exits 0 (pass) or 1 (fail); the note goes on the
# TAP line.
awk_check() {
	desc=$1
	file=$2
	shift 2
	note=$(awk -F, "$@" "$file")
	rc=$?
	if [ $rc -eq 0 ]; then ok "$desc: $note"; else notok "$desc: $note"; fi
}

# expect_err DESC PATTERN CMD...: CMD must fail with one line matching
# PATTERN on stderr.
expect_err() {
	desc=$1
	pat=$2
	shift 2
	"$@" >"$OUT/err.out" 2>"$OUT/err.txt"
	rc=$?
	msg=$(cat "$OUT/err.txt")
	if [ $rc -ne 0 ] && [ "$(wc -l <"$OUT/err.txt")" -eq 1 ] &&
	   grep -q -e "$pat" "$OUT/err.txt"; then
		ok "$desc: rc=$rc '$msg'"
	else
		notok "$desc: rc=$rc '$msg'"
	fi
}

cleanup() {
	for ns in h1 h2 h3 sw rcv; do
		ip netns del "$P$ns" 2>/dev/null
	done
	[ "${KEEP:-0}" = 1 ] && echo "# output kept in $OUT" || rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

[ "$(id -u)" = 0 ] || bail "must run as root"
for t in ip tc awk; do
	command -v $t >/dev/null || bail "needs $t"
done
if [ ! -x "$BIN/tcpflows" ] || [ ! -x "$BIN/qdisc-sampler" ]; then
	make -s -C "$HERE" >/dev/null || bail "build failed"
fi
TF=$BIN/tcpflows
QS=$BIN/qdisc-sampler

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
	bail "cannot set up namespaces"
if tc -n "${P}rcv" qdisc add dev eth0 root netem delay 1ms limit 10000 \
	2>/dev/null; then
	ok "netem 1 ms delay on the receiver's egress"
else
	ok "netem delay # SKIP netem not available in this kernel"
fi

A=10.0.100.2
L="--listen ${P}rcv,$A,5001"

# Bad arguments: one line on stderr, non-zero exit.
expect_err "tcpflows: START_US not a number" "--flow 3: START_US not a number" \
	"$TF" --out-dir "$OUT" --duration-us 1000 $L \
	--flow "3,${P}h1,$A,5001,abc,0,0"
expect_err "tcpflows: unknown netns" "unknown network namespace 'nosuchns'" \
	"$TF" --out-dir "$OUT" --duration-us 1000 $L \
	--flow "1,nosuchns,$A,5001,0,0,0"
expect_err "tcpflows: unknown congestion control" \
	"--flow 1: congestion control 'nosuchcc' is not available" \
	"$TF" --out-dir "$OUT" --duration-us 1000 $L --cc nosuchcc \
	--flow "1,${P}h1,$A,5001,0,0,0"
expect_err "tcpflows: bad address" "--flow 2: '10.0.0' is not an IPv4" \
	"$TF" --out-dir "$OUT" --duration-us 1000 \
	--flow "2,${P}h1,10.0.0,5001,0,0,0"
expect_err "tcpflows: wrong field count" "--flow 4: expected 7 or 8" \
	"$TF" --out-dir "$OUT" --duration-us 1000 --flow "4,${P}h1,$A,5001"
expect_err "tcpflows: duplicate id" "--flow 5: duplicate flow id" \
	"$TF" --out-dir "$OUT" --duration-us 1000 \
	--flow "5,${P}h1,$A,5001,0,0,0" --flow "5,${P}h2,$A,5001,0,0,0"
expect_err "tcpflows: missing --out-dir" "--out-dir is required" \
	"$TF" --duration-us 1000 $L
expect_err "tcpflows: unknown option" "unknown option '--bogus'" \
	"$TF" --bogus
expect_err "qdisc-sampler: unknown device" "no device 'nosuchdev'" \
	"$QS" --netns "${P}sw" --dev nosuchdev --duration-us 1000
expect_err "qdisc-sampler: no such qdisc" "no 5: qdisc on 'out'" \
	"$QS" --netns "${P}sw" --dev out --parent 5: --duration-us 1000
expect_err "qdisc-sampler: bad --parent" "--parent: 'x1' is not" \
	"$QS" --netns "${P}sw" --dev out --parent x1 --duration-us 1000
expect_err "qdisc-sampler: bad interval" "--interval-us: 'x' is not" \
	"$QS" --netns "${P}sw" --dev out --interval-us x

# Main run: staggered cubic, reno and bbr flows, a sized flow, the qdisc
# sampled both in process and by a standalone sampler sharing the epoch.
D=$OUT/run1
mkdir -p "$D"
"$QS" --netns "${P}sw" --dev out --interval-us $SIV --duration-us "$DUR" \
	--epoch-file "$D/epoch" --out "$D/standalone.csv" 2>"$D/qs.err" &
qspid=$!
"$TF" --out-dir "$D" --duration-us "$DUR" --interval-us $IV --cc cubic \
	--epoch-file "$D/epoch" --margin-us 20000 --progress \
	--notsent-lowat 65536 \
	--sample "${P}sw,out,$SIV" $L \
	--flow "1,${P}h1,$A,5001,0,0,$((DUR * 7 / 8)),cubic" \
	--flow "2,${P}h2,$A,5001,$((DUR / 4)),0,0,reno" \
	--flow "3,${P}h3,$A,5001,$((DUR / 2)),0,0,bbr" \
	--flow "4,${P}h1,$A,5001,$((DUR * 3 / 8)),$SIZE,0" \
	>"$D/summary.txt" 2>"$D/stderr.txt"
rc=$?
wait $qspid
qsrc=$?
sed 's/^/# /' "$D/summary.txt" "$D/stderr.txt" "$D/qs.err"
check "tcpflows run exits 0" [ $rc -eq 0 ]
check "qdisc-sampler run exits 0" [ $qsrc -eq 0 ]
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
# The standalone sampler read the epoch from the file: both series align.
# Its first sample may come late by its start-up in a slow guest (20 ms).
awk_check "standalone sampler aligned with tcpflows" "$D/standalone.csv" \
	-v q="$Q" -v iv=$SIV -v m=$((DUR / 2)) '
	NR == 2 { first = $1 }
	NR > 1 && (!t || ($1 - m)^2 < (t - m)^2) { t = $1; v = $4 }
	END { while ((getline l < q) > 0) { split(l, x, ",");
		if (x[1] ~ /^[0-9]+$/ && x[1] <= t - 1000) lo = x[4];
		if (x[1] ~ /^[0-9]+$/ && x[1] >= t + 1000 && !hi) hi = x[4] }
	      print "first at", first, "us; at", t, "us sent", v,
		"in [" lo "," hi "]";
	      exit !(first >= 0 && first < iv + 20000 && v >= lo && v <= hi) }'

# A sized flow alone: completion time ~ size / rate, about 0.4 s.
D=$OUT/run2
mkdir -p "$D"
"$TF" --out-dir "$D" --duration-us 2000000 --quiet $L \
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
"$TF" --out-dir "$D" --duration-us 3000000 --quiet $L \
	--flow-file "$D/flows.txt" 2>"$D/stderr.txt"
rc=$?
check "200 short flows: exit 0" [ $rc -eq 0 ]
awk_check "200 short flows all done" "$D/flows.csv" '
	NR > 1 { n++; d += $12 == "done" && $8 == $5 }
	END { print d "/" n; exit !(n == 200 && d == n) }'

echo "1..$n"
[ $fails -eq 0 ] || { echo "# $fails of $n checks failed"; exit 1; }
