#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Test of incast-analyze on synthetic CSVs with known answers, and of
# testbed/plot_incast.py on a synthetic two-algorithm results directory.
# No root needed. POSIX sh, awk and python3 (json; matplotlib for the
# plot). Prints TAP lines; exits 1 if any check fails.
#
# Environment: BIN (default: ../bin, incast-analyze built with make),
# PYTHON (for the plot; default: the first of python3, /usr/bin/python3
# that has matplotlib), KEEP=1 keeps the output directory.
set -u

HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/.." && pwd)
if [ -z "${BIN:-}" ]; then
	BIN=$HERE/bin
	make -s -C "$HERE" bin/incast-analyze >&2 || { echo "Bail out! make"; exit 1; }
fi
A=$BIN/incast-analyze
PLOT=$ROOT/testbed/plot_incast.py
OUT=$(mktemp -d /tmp/test_analyze.XXXXXX)
n=0
fails=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
notok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }

cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then echo "# output kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

# jcheck JSON KEY WANT [TOL]: the number KEY of the JSON file is WANT
# within TOL (default 0, and then it must be an integer).
jcheck() {
	note=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
k, want, tol = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
v = d.get(k)
print(f"{k} = {v} (want {sys.argv[3]})")
good = isinstance(v, (int, float)) and abs(v - want) <= tol
sys.exit(0 if good and (tol or isinstance(v, int)) else 1)
' "$1" "$2" "$3" "${4:-0}" 2>&1)
	if [ $? -eq 0 ]; then ok "$(basename "$1" .json): $note"; else notok "$(basename "$1" .json): $note"; fi
}

# expect_err DESC CMD...: CMD exits 2 with one line "incast-analyze: ..."
# on stderr and nothing on stdout.
expect_err() {
	desc=$1
	shift
	"$@" >"$OUT/err.out" 2>"$OUT/err.err"
	rc=$?
	msg=$(head -n 1 "$OUT/err.err")
	if [ $rc -eq 2 ] && [ "$(wc -l <"$OUT/err.err")" -eq 1 ] &&
	   [ ! -s "$OUT/err.out" ] && case $msg in incast-analyze:\ *) true;; *) false;; esac; then
		ok "error: $desc: $msg"
	else
		notok "error: $desc: exit $rc, stderr '$(cat "$OUT/err.err")'"
	fi
}

# --- synthetic input 1: incast at T0 = 100 ms, end T1 = 200 ms ---------
# qdisc sampled every 1 ms, k = 0..250, sent at exactly 12.5 B/us (100
# Mbit/s). Queue 5000 B before T0, then 0, 10000, .., 100000 (peak at
# k = 110), then down 5000 a ms to 0 at k = 130: below B = 25000 first at
# k = 126 (the early 10000, 20000 are before the peak and do not count).
# Window k = 100..200: mean 1500000 / 101, p99 (rank 100 of 101) 95000.
# One drop a ms after T0.
D1=$OUT/in1
mkdir -p "$D1"
awk 'BEGIN {
	print "time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts,drops,overlimits"
	for (k = 0; k <= 250; k++) {
		if (k < 100) q = 5000
		else if (k <= 110) q = (k - 100) * 10000
		else { q = 100000 - (k - 110) * 5000; if (q < 0) q = 0 }
		d = k > 100 ? k - 100 : 0
		printf "%d,%d,%d,%d,%d,%d,0\n", k * 1000, q, int(q / 1500),
		       k * 12500, int(k * 12500 / 1500), d
	}
}' >"$D1/qdisc.csv"
# Goodput rows every ms: flow 0 at 5 B/us, flow 1 at 2 B/us, flow 2 only
# until 50 ms (nothing in the window), flow 3 from 150 ms at 10 B/us.
# In [100, 200] ms: 500000 + 200000 + 500000 B = 96 Mbit/s, Jain 1.44/1.62.
awk 'BEGIN {
	print "time_us,flow_id,bytes_total"
	for (t = 1000; t <= 250000; t += 1000) {
		printf "%d,0,%d\n", t, 5 * t
		if (t <= 50000) printf "%d,2,%d\n", t, 3 * t
		printf "%d,1,%d\n", t, 2 * t
		if (t >= 150000) printf "%d,3,%d\n", t, 10 * (t - 150000)
	}
}' >"$D1/goodput.csv"
{
	echo "id,src_netns,cc,start_us,bytes,first_byte_us,completion_us,bytes_received,connect_us,started_us,bytes_sent,status"
	for i in 0 1 2 3; do echo "$i,h$i,cubic,0,0,1,-1,1,1,1,1,closed"; done
} >"$D1/flows.csv"
IN1="--qdisc $D1/qdisc.csv --goodput $D1/goodput.csv --flows $D1/flows.csv"
ARGS1="$IN1 --algorithm cubic --link-mbps 100 --incast-us 100000 --end-us 200000 --bdp-bytes 25000"

# shellcheck disable=SC2086
if "$A" $ARGS1 >"$OUT/main.json" 2>"$OUT/main.err"; then
	ok "main run: $(tr -d '\n' <"$OUT/main.json" | cut -c1-60)..."
else
	notok "main run: $(cat "$OUT/main.err")"
fi
J=$OUT/main.json
jcheck "$J" avg_throughput_mbps 100 0.0005
jcheck "$J" link_rate_mbps 100 0.0005
jcheck "$J" thr_norm_gbps 25 0.0005
jcheck "$J" avg_queue_bytes 14851.485 0.001
jcheck "$J" p99_queue_bytes 95000
jcheck "$J" peak_queue_bytes 100000
jcheck "$J" drain_time_us 26000
jcheck "$J" combined_score "$(awk 'BEGIN { printf "%.4f", exp(5) - 1500000 / 101 / 100 }')" 0.002
jcheck "$J" goodput_mbps 96 0.0005
jcheck "$J" jain_index "$(awk 'BEGIN { printf "%.6f", 1.44 / 1.62 }')" 0.0001
jcheck "$J" drops 100
jcheck "$J" flows 4
jcheck "$J" samples 101
jcheck "$J" mean_interval_us 1000 0.0005
jcheck "$J" window_start_us 100000
jcheck "$J" window_end_us 200000
jcheck "$J" pre_avg_queue_bytes 5000 0.0005
jcheck "$J" pre_throughput_mbps 100 0.0005
note=$(python3 -c '
import json, sys
keys = ["algorithm", "avg_throughput_mbps", "link_rate_mbps",
        "avg_queue_bytes", "p99_queue_bytes", "peak_queue_bytes",
        "drain_time_us", "combined_score", "thr_norm_gbps", "goodput_mbps",
        "jain_index", "drops", "samples", "mean_interval_us",
        "window_start_us", "window_end_us", "pre_avg_queue_bytes",
        "pre_throughput_mbps"]
d = json.load(open(sys.argv[1]))
miss = [k for k in keys if k not in d]
order = [k for k in d if k in keys] == keys
print("missing %s, order %s, algorithm %s" % (miss, order, d.get("algorithm")))
sys.exit(0 if not miss and order and d["algorithm"] == "cubic" else 1)
' "$J")
if [ $? -eq 0 ]; then ok "all keys, in order: $note"; else notok "keys: $note"; fi

# Later analysis window: the queue has drained (all 0), drain time is
# still from T0; goodput (250000 + 100000 + 500000 B) / 50 ms = 136 Mbit/s,
# Jain 850000^2 / (3 * 322500000000).
# shellcheck disable=SC2086
"$A" $ARGS1 --from-us 150000 --json "$OUT/from.json" >"$OUT/from.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$OUT/from.out" ]; then ok "--json writes the file only"; else notok "--from-us/--json run: exit $rc $(cat "$OUT/from.out")"; fi
J=$OUT/from.json
jcheck "$J" window_start_us 150000
jcheck "$J" samples 51
jcheck "$J" avg_queue_bytes 0 0.0005
jcheck "$J" peak_queue_bytes 0
jcheck "$J" drain_time_us 26000
jcheck "$J" goodput_mbps 136 0.0005
jcheck "$J" jain_index "$(awk 'BEGIN { printf "%.6f", 0.7225 / (3 * 0.3225) }')" 0.0001
jcheck "$J" drops 50

# Normalisation to a 25 Gbit/s link: 100 of 200 Mbit/s is 12.5.
# shellcheck disable=SC2086
"$A" $IN1 --algorithm x --link-mbps 200 --incast-us 100000 --end-us 200000 \
	--bdp-bytes 25000 --json "$OUT/r200.json" 2>&1
jcheck "$OUT/r200.json" thr_norm_gbps 12.5 0.0005

# --- CSV rows ------------------------------------------------------------
# shellcheck disable=SC2086
"$A" $ARGS1 --csv-row "$OUT/rows.csv" >/dev/null &&
	"$A" $ARGS1 --from-us 150000 --csv-row "$OUT/rows.csv" >/dev/null
note=$(python3 -c '
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
hdr_ok = rows[0] == list(d)
vals_ok = len(rows) == 3 and all(
    (v == d[k] if k == "algorithm" else abs(float(v) - d[k]) < 1e-9)
    for k, v in zip(rows[0], rows[1]))
print(f"{len(rows)} lines, header = JSON keys: {hdr_ok}, values: {vals_ok}")
sys.exit(0 if hdr_ok and vals_ok else 1)
' "$OUT/rows.csv" "$OUT/main.json" 2>&1)
if [ $? -eq 0 ]; then ok "--csv-row appends: $note"; else notok "--csv-row: $note"; fi

# --- synthetic input 2: a ramp ------------------------------------------
# Samples every ms, queue (i + 1) * 1000 for i = 0..99 then 0: mean 50500,
# p99 (rank 99 of 100) 99000, peak 100000 at the window's end, so with
# B = 50000 it never drains in [0, 99] ms (-1); with B = 200000 it never
# exceeded B (0). No data before T0 = 0: baseline 0. No goodput, no flows.
D2=$OUT/in2
mkdir -p "$D2"
awk 'BEGIN {
	print "time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts,drops,overlimits"
	for (i = 0; i <= 120; i++)
		printf "%d,%d,0,%d,0,0,0\n", i * 1000, i < 100 ? (i + 1) * 1000 : 0, i * 12500
}' >"$D2/qdisc.csv"
echo "time_us,flow_id,bytes_total" >"$D2/goodput.csv"
head -n 1 "$D1/flows.csv" >"$D2/flows.csv"
IN2="--qdisc $D2/qdisc.csv --goodput $D2/goodput.csv --flows $D2/flows.csv --algorithm reno --link-mbps 100 --incast-us 0 --end-us 99000"
# shellcheck disable=SC2086
"$A" $IN2 --bdp-bytes 50000 --json "$OUT/ramp.json"
J=$OUT/ramp.json
jcheck "$J" samples 100
jcheck "$J" avg_queue_bytes 50500 0.0005
jcheck "$J" p99_queue_bytes 99000
jcheck "$J" peak_queue_bytes 100000
jcheck "$J" drain_time_us -1
jcheck "$J" goodput_mbps 0 0.0005
jcheck "$J" jain_index 0 0.0005
jcheck "$J" flows 0
jcheck "$J" pre_avg_queue_bytes 0 0.0005
jcheck "$J" pre_throughput_mbps 0 0.0005
# shellcheck disable=SC2086
"$A" $IN2 --bdp-bytes 200000 --json "$OUT/ramp_bigb.json"
jcheck "$OUT/ramp_bigb.json" drain_time_us 0

# --- synthetic input 3: jittered sample times ---------------------------
# t = 1000 k + (even jitter in [-8, 8]), exact at k = 10 and 90, sent =
# 12.5 t: the rate is exactly 100 Mbit/s whatever the jitter, 81 samples
# in [10, 90] ms, mean interval 1000.
D3=$OUT/in3
mkdir -p "$D3"
awk 'BEGIN {
	print "time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts,drops,overlimits"
	for (k = 1; k <= 100; k++) {
		t = k * 1000 + ((k == 10 || k == 90) ? 0 : 2 * ((k * 7) % 9) - 8)
		printf "%d,3000,2,%d,0,0,0\n", t, t * 25 / 2
	}
}' >"$D3/qdisc.csv"
# shellcheck disable=SC2086
"$A" --qdisc "$D3/qdisc.csv" --goodput "$D2/goodput.csv" --flows "$D1/flows.csv" \
	--algorithm bbr --link-mbps 100 --incast-us 10000 --end-us 90000 \
	--bdp-bytes 1000 --json "$OUT/jitter.json"
J=$OUT/jitter.json
jcheck "$J" avg_throughput_mbps 100 0.0005
jcheck "$J" samples 81
jcheck "$J" mean_interval_us 1000 0.0005
jcheck "$J" drain_time_us -1

# --- errors ------------------------------------------------------------
R="--algorithm a --link-mbps 100 --incast-us 100000 --end-us 200000 --bdp-bytes 25000"
# shellcheck disable=SC2086
{
expect_err "no arguments" "$A"
expect_err "missing --qdisc" "$A" --goodput "$D1/goodput.csv" --flows "$D1/flows.csv" $R
expect_err "--link-mbps 0" "$A" $IN1 --algorithm a --link-mbps 0 --incast-us 100000 --end-us 200000 --bdp-bytes 25000
expect_err "--link-mbps -5" "$A" $IN1 --algorithm a --link-mbps -5 --incast-us 100000 --end-us 200000 --bdp-bytes 25000
expect_err "--link-mbps abc" "$A" $IN1 --algorithm a --link-mbps abc --incast-us 100000 --end-us 200000 --bdp-bytes 25000
expect_err "--link-mbps inf" "$A" $IN1 --algorithm a --link-mbps inf --incast-us 100000 --end-us 200000 --bdp-bytes 25000
expect_err "--bdp-bytes 0" "$A" $IN1 --algorithm a --link-mbps 100 --incast-us 100000 --end-us 200000 --bdp-bytes 0
expect_err "--incast-us x" "$A" $IN1 --algorithm a --link-mbps 100 --incast-us x --end-us 200000 --bdp-bytes 1
expect_err "--end-us before --incast-us" "$A" $IN1 --algorithm a --link-mbps 100 --incast-us 100000 --end-us 100000 --bdp-bytes 1
expect_err "--from-us after --end-us" "$A" $ARGS1 --from-us 200000
expect_err "bad --algorithm" "$A" $IN1 --algorithm 'a"b' --link-mbps 100 --incast-us 100000 --end-us 200000 --bdp-bytes 1
expect_err "unknown option" "$A" $ARGS1 --frobnicate
expect_err "option without argument" "$A" $ARGS1 --json
expect_err "stray argument" "$A" $ARGS1 extra
expect_err "missing file" "$A" --qdisc "$OUT/nonexistent.csv" --goodput "$D1/goodput.csv" --flows "$D1/flows.csv" $R
sed '1s/.*/time,backlog/' "$D1/qdisc.csv" >"$OUT/badhdr.csv"
expect_err "wrong header" "$A" --qdisc "$OUT/badhdr.csv" --goodput "$D1/goodput.csv" --flows "$D1/flows.csv" $R
sed '5s/,0$/,x/' "$D1/qdisc.csv" >"$OUT/badnum.csv"
expect_err "non-numeric field" "$A" --qdisc "$OUT/badnum.csv" --goodput "$D1/goodput.csv" --flows "$D1/flows.csv" $R
sed '7s/,0$//' "$D1/qdisc.csv" >"$OUT/short.csv"
expect_err "missing field" "$A" --qdisc "$OUT/short.csv" --goodput "$D1/goodput.csv" --flows "$D1/flows.csv" $R
sed '9s/^[0-9]*,/1,/' "$D1/qdisc.csv" >"$OUT/back.csv"
expect_err "time going backwards" "$A" --qdisc "$OUT/back.csv" --goodput "$D1/goodput.csv" --flows "$D1/flows.csv" $R
sed '2s/,0,/,0,,/' "$D1/goodput.csv" >"$OUT/badgp.csv"
expect_err "malformed goodput row" "$A" --qdisc "$D1/qdisc.csv" --goodput "$OUT/badgp.csv" --flows "$D1/flows.csv" $R
: >"$OUT/empty.csv"
expect_err "empty flows file" "$A" --qdisc "$D1/qdisc.csv" --goodput "$D1/goodput.csv" --flows "$OUT/empty.csv" $R
expect_err "window after the data" "$A" $IN1 --algorithm a --link-mbps 100 --incast-us 300000 --end-us 400000 --bdp-bytes 1
expect_err "window with one sample" "$A" $IN1 --algorithm a --link-mbps 100 --incast-us 100500 --end-us 101500 --bdp-bytes 1
}

# --- plot_incast.py ------------------------------------------------------
# Two algorithms, 0.5 ms samples over 0.5 s, incast at 200 ms, analysed to
# 400 ms, 100 Mbit/s: a short queue spike for theta_powertcp, a long one
# and a sawtooth for cubic.
PY=${PYTHON:-}
for p in python3 /usr/bin/python3; do
	[ -n "$PY" ] && break
	"$p" -c 'import matplotlib, numpy' 2>/dev/null && PY=$p
done
if [ -z "$PY" ]; then
	ok "# SKIP plot_incast.py: no python3 with matplotlib and numpy"
else
	P=$OUT/results
	for alg in cubic theta_powertcp; do
		mkdir -p "$P/$alg"
		awk -v alg=$alg 'BEGIN {
			print "time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts,drops,overlimits"
			srand(1)
			sent = 0
			for (t = 0; t <= 500000; t += 500) {
				u = t - 200000
				if (alg == "cubic") {
					q = 60000 + 40000 * ((t % 40000) / 40000)
					if (u >= 0 && u < 60000) q += 300000 * exp(-u / 20000)
				} else {
					q = 3000 + 1000 * rand()
					if (u >= 0 && u < 20000) q += 150000 * exp(-u / 3000)
				}
				rate = 12.5 * (alg == "cubic" || u < 0 || u > 5000 ? 1 : 0.9)
				sent += 500 * rate * (0.97 + 0.06 * rand())
				printf "%d,%d,%d,%d,%d,0,0\n", t, q, q / 1500, sent, sent / 1500
			}
		}' >"$P/$alg/qdisc.csv"
		awk 'BEGIN {
			print "time_us,flow_id,bytes_total"
			for (t = 1000; t <= 500000; t += 1000)
				for (f = 0; f < 4; f++) printf "%d,%d,%d\n", t, f, 3 * t
		}' >"$P/$alg/goodput.csv"
		cp "$D1/flows.csv" "$P/$alg/flows.csv"
		"$A" --qdisc "$P/$alg/qdisc.csv" --goodput "$P/$alg/goodput.csv" \
			--flows "$P/$alg/flows.csv" --algorithm $alg --link-mbps 100 \
			--incast-us 200000 --end-us 400000 --bdp-bytes 25000 \
			--json "$P/$alg/summary.json"
	done
	mkdir -p "$P/notes"		# no qdisc.csv: not an algorithm
	if "$PY" "$PLOT" --results "$P" --out "$OUT/fig.png" --title "synthetic incast" 2>"$OUT/plot.err"; then
		ok "plot_incast.py runs"
	else
		notok "plot_incast.py: $(cat "$OUT/plot.err")"
	fi
	for f in fig.png fig_cdf.png; do
		size=$(wc -c <"$OUT/$f" 2>/dev/null || echo 0)
		magic=$(head -c 4 "$OUT/$f" 2>/dev/null | tail -c 3)
		if [ "$magic" = PNG ] && [ "$size" -gt 20000 ]; then
			ok "$f is a PNG of $size bytes"
		else
			notok "$f: '$magic', $size bytes"
		fi
	done
	mkdir -p "$OUT/noalgs/x"
	"$PY" "$PLOT" --results "$OUT/noalgs" --out "$OUT/none.png" 2>"$OUT/plot.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$OUT/plot.err")" -eq 1 ] && [ ! -e "$OUT/none.png" ]; then
		ok "plot_incast.py without algorithms fails: $(cat "$OUT/plot.err")"
	else
		notok "plot_incast.py without algorithms: exit $rc, $(cat "$OUT/plot.err")"
	fi
fi

echo "1..$n"
[ $fails -eq 0 ] || { echo "# $fails of $n failed"; exit 1; }
