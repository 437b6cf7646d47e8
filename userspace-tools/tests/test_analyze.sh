#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The analyzers on fixed inputs with known answers: incast-analyze,
# fairness-analyze and fct-analyze on synthetic CSVs (figures worked out
# by hand in the comments), their one-line errors; testbed/summarize_
# incast.py and fairness/summarize.py on several seeds of those inputs
# (the spread over the seeds, the fairness goals) and report.py on their
# summaries; testbed/incast/plot.py on a synthetic two-algorithm,
# two-seed results directory. No root needed: bash, awk and python3 (json;
# matplotlib for the plot).
# Prints KTAP (scripts/tap.sh); exits 1 if any check fails.
#
# Environment: BIN (default: ../bin, the analyzers built with make),
# PYTHON (for the plot; default: the first of /usr/bin/python3, python3
# that has matplotlib), KEEP=1 keeps the output directory.
set -u

HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
if [ -z "${BIN:-}" ]; then
	BIN=$HERE/bin
	make -s -C "$HERE" bin/incast-analyze bin/fairness-analyze \
		bin/fct-analyze >&2 || tap_bail "make"
fi
A=$BIN/incast-analyze
# The checks need only python's standard library: the system's python
# starts fastest (a pyenv shim takes seconds on a busy machine).
PY3=/usr/bin/python3
[ -x "$PY3" ] || PY3=python3
FA=$BIN/fairness-analyze
FCT=$BIN/fct-analyze
PLOT=$ROOT/testbed/incast/plot.py
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test_analyze.XXXXXX")

cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then echo "# output kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

# jchecks JSON: one check per line "PATH WANT [TOL]" on stdin: the value
# at PATH (keys and list indices joined by '.') of the JSON file is WANT:
# a number within TOL (default 0, and then it must be an integer), null,
# true, false, or else a string. The checks are queued; jchecks_run runs
# them all in one python process (a python start is slow on a busy
# machine) and prints their results.
JCHECKS=$OUT/jchecks.txt
jchecks() {
	local line
	while read -r line; do
		[ -n "$line" ] && printf '%s %s\n' "$1" "$line"
	done >> "$JCHECKS"
}

jchecks_run() {
	local st msg
	[ -s "$JCHECKS" ] || return 0
	while read -r st msg; do
		if [ "$st" = 1 ]; then ok "$msg"; else not_ok "$msg"; fi
	done < <("$PY3" -c '
import json, sys
docs = {}
for line in open(sys.argv[1]):
    f = line.split()
    name = f[0].rsplit("/", 1)[-1].rsplit(".", 1)[0]
    if f[0] not in docs:
        try:
            docs[f[0]] = json.load(open(f[0]))
        except Exception as e:
            docs[f[0]] = None
            print("0 %s: not JSON: %s" % (name, e))
    d = docs[f[0]]
    if d is None:
        continue
    path, want, tol = f[1], f[2], float(f[3]) if len(f) > 3 else 0.0
    v = d
    try:
        for k in path.split("."):
            v = v[int(k)] if isinstance(v, list) else v[k]
    except (KeyError, IndexError, ValueError, TypeError):
        print("0 %s: %s missing" % (name, path))
        continue
    if want in ("null", "true", "false"):
        good = v == {"null": None, "true": True, "false": False}[want]
    else:
        try:
            w = float(want)
        except ValueError:
            good = v == want
        else:
            good = (isinstance(v, (int, float)) and not isinstance(v, bool)
                    and abs(v - w) <= tol and (tol > 0 or isinstance(v, int)))
    print("%d %s: %s = %s (want %s)" % (bool(good), name, path, json.dumps(v), want))
' "$JCHECKS")
	: > "$JCHECKS"
}

# expect_err DESC CMD...: CMD exits 2 with one line "PROG: ..." on stderr
# (PROG: CMD's name) and nothing on stdout.
expect_err() {
	local desc=$1 rc msg
	shift
	"$@" >"$OUT/err.out" 2>"$OUT/err.err"
	rc=$?
	msg=$(head -n 1 "$OUT/err.err")
	if [ $rc -eq 2 ] && [ "$(wc -l <"$OUT/err.err")" -eq 1 ] &&
	   [ ! -s "$OUT/err.out" ] && [[ $msg == "$(basename "$1"): "* ]]; then
		ok "error: $desc: $msg"
	else
		not_ok "error: $desc: exit $rc, stderr '$(cat "$OUT/err.err")'"
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
	not_ok "main run: $(cat "$OUT/main.err")"
fi
J=$OUT/main.json
jchecks "$J" <<EOF
avg_throughput_mbps 100 0.0005
link_rate_mbps 100 0.0005
thr_norm_gbps 25 0.0005
avg_queue_bytes 14851.485 0.001
p99_queue_bytes 95000
peak_queue_bytes 100000
drain_time_us 26000
combined_score $(awk 'BEGIN { printf "%.4f", exp(5) - 1500000 / 101 / 100 }') 0.002
goodput_mbps 96 0.0005
jain_index $(awk 'BEGIN { printf "%.6f", 1.44 / 1.62 }') 0.0001
drops 100
flows 4
samples 101
mean_interval_us 1000 0.0005
window_start_us 100000
window_end_us 200000
pre_avg_queue_bytes 5000 0.0005
pre_throughput_mbps 100 0.0005
queries 0
query_fct_p99_us -1
incast_flows 3
incast_jain_index $(awk 'BEGIN { printf "%.6f", 7e5 ^ 2 / (3 * (2e5 ^ 2 + 5e5 ^ 2)) }') 0.0001
incast_stall_max_us 1000
incast_first_byte_max_us 1
retrans_segs -1
EOF
if note=$("$PY3" -c '
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
' "$J"); then
	ok "all keys, in order: $note"
else
	not_ok "keys: $note"
fi

# The incast flows' stalls: input 1 with flow 1's count frozen from
# 120 to 135 ms (it grows at 120 ms, next at 136 ms: 16 ms), flow 3's
# first byte never come (T1 - start = 200 ms), and the senders'
# retransmissions, 3 + 4.
DS=$OUT/ins
mkdir -p "$DS"
cp "$D1/qdisc.csv" "$DS/"
awk -F, 'NR > 1 && $2 == 1 { t = $1; b = t < 120000 ? t : t <= 135000 ? 120000 : t - 15000
	print t ",1," 2 * b; next } { print }' "$D1/goodput.csv" >"$DS/goodput.csv"
sed 's/^3,h3,cubic,0,0,1,/3,h3,cubic,0,0,-1,/' "$D1/flows.csv" >"$DS/flows.csv"
printf 'id,retrans_segs\n0,3\n1,4\n' >"$DS/retrans.csv"
# shellcheck disable=SC2086
"$A" --qdisc "$DS/qdisc.csv" --goodput "$DS/goodput.csv" --flows "$DS/flows.csv" \
	--retrans "$DS/retrans.csv" ${ARGS1#"$IN1"} --json "$OUT/stall.json" 2>"$OUT/stall.err" ||
	not_ok "stall run: $(cat "$OUT/stall.err")"
jchecks "$OUT/stall.json" <<EOF
incast_stall_max_us 16000
incast_first_byte_max_us 200000
retrans_segs 7
goodput_mbps 93.6 0.0005
EOF
printf 'id,retrans_segs\n0,x\n' >"$DS/bad-retrans.csv"
# shellcheck disable=SC2086
expect_err "--retrans: a bad row" "$A" --retrans "$DS/bad-retrans.csv" $ARGS1

# The bytes waiting: the backlog without the packet in service. 1000 B
# packets, 0, 1, 2, 3, 4, 3, 2, 1, 0, 0, 0 of them a ms apart: waiting
# 0, 0, 1000, 2000, 3000, 2000, 1000, 0, 0, 0, 0 (mean 9000 / 11, peak
# and p99 3000) against a backlog of mean 16000 / 11, peak 4000. Then
# a 1500 B and a 40 B packet: the mean size, 770, stands in for the head.
DW=$OUT/inw
mkdir -p "$DW"
awk 'BEGIN {
	print "time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts,drops,overlimits"
	split("0 1 2 3 4 3 2 1 0 0 0", n, " ")
	for (k = 0; k <= 10; k++)
		printf "%d,%d,%d,%d,%d,0,0\n", k * 1000, 1000 * n[k + 1],
		       n[k + 1], k * 12500, k * 8
	print "11000,1540,2,137500,88,0,0"
}' >"$DW/qdisc.csv"
cp "$D1/goodput.csv" "$DW/"
# And the queries' completion times: three sized flows from 100 us, two
# done in 1000 and 3000 us, one not done; the long flow is not one.
{
	head -n 1 "$D1/flows.csv"
	echo "0,h0,cubic,0,0,1,-1,1,1,1,1,closed"
	echo "1000,h1,cubic,100,2800,300,1100,2800,50,100,2800,done"
	echo "1001,h2,cubic,100,2800,300,3100,2800,50,100,2800,done"
	echo "1002,h3,cubic,100,2800,-1,-1,0,50,100,2800,active"
} >"$DW/flows.csv"
INW="--qdisc $DW/qdisc.csv --goodput $DW/goodput.csv --flows $DW/flows.csv --algorithm cubic --link-mbps 100 --bdp-bytes 25000"
# shellcheck disable=SC2086
"$A" $INW --incast-us 0 --end-us 10000 --json "$OUT/wait.json" 2>&1
jchecks "$OUT/wait.json" <<EOF
avg_waiting_bytes $(awk 'BEGIN { printf "%.4f", 9000 / 11 }') 0.001
p99_waiting_bytes 3000
peak_waiting_bytes 3000
avg_queue_bytes $(awk 'BEGIN { printf "%.4f", 16000 / 11 }') 0.001
peak_queue_bytes 4000
waiting_score $(awk 'BEGIN { printf "%.4f", exp(5) - 9000 / 11 / 100 }') 0.002
queries 3
queries_done 2
query_fct_p50_us 1000
query_fct_p99_us 3000
query_fct_max_us 3000
EOF
# shellcheck disable=SC2086
"$A" $INW --incast-us 10000 --end-us 11000 --json "$OUT/wait2.json" 2>&1
jchecks "$OUT/wait2.json" <<EOF
peak_waiting_bytes 770
avg_waiting_bytes 385 0.001
EOF
# --serial-link: the bucket sends a packet when its service starts, so
# the whole backlog waits (mean 16000 / 11, peak 4000).
# shellcheck disable=SC2086
"$A" $INW --incast-us 0 --end-us 10000 --serial-link \
	--json "$OUT/wait-serial.json" 2>&1
jchecks "$OUT/wait-serial.json" <<EOF
avg_waiting_bytes $(awk 'BEGIN { printf "%.4f", 16000 / 11 }') 0.001
peak_waiting_bytes 4000
avg_queue_bytes $(awk 'BEGIN { printf "%.4f", 16000 / 11 }') 0.001
EOF

# Later analysis window: the queue has drained (all 0), drain time is
# still from T0; goodput (250000 + 100000 + 500000 B) / 50 ms = 136 Mbit/s,
# Jain 850000^2 / (3 * 322500000000).
# shellcheck disable=SC2086
"$A" $ARGS1 --from-us 150000 --json "$OUT/from.json" >"$OUT/from.out" 2>&1
rc=$?
if [ $rc -eq 0 ] && [ ! -s "$OUT/from.out" ]; then ok "--json writes the file only"; else not_ok "--from-us/--json run: exit $rc $(cat "$OUT/from.out")"; fi
J=$OUT/from.json
jchecks "$J" <<EOF
window_start_us 150000
samples 51
avg_queue_bytes 0 0.0005
peak_queue_bytes 0
drain_time_us 26000
goodput_mbps 136 0.0005
jain_index $(awk 'BEGIN { printf "%.6f", 0.7225 / (3 * 0.3225) }') 0.0001
drops 50
EOF

# Normalisation to a 25 Gbit/s link: 100 of 200 Mbit/s is 12.5.
# shellcheck disable=SC2086
"$A" $IN1 --algorithm x --link-mbps 200 --incast-us 100000 --end-us 200000 \
	--bdp-bytes 25000 --json "$OUT/r200.json" 2>&1
jchecks "$OUT/r200.json" <<EOF
thr_norm_gbps 12.5 0.0005
EOF

# --- CSV rows ------------------------------------------------------------
# shellcheck disable=SC2086
"$A" $ARGS1 --csv-row "$OUT/rows.csv" >/dev/null &&
	"$A" $ARGS1 --from-us 150000 --csv-row "$OUT/rows.csv" >/dev/null
if note=$("$PY3" -c '
import csv, json, sys
rows = list(csv.reader(open(sys.argv[1])))
d = json.load(open(sys.argv[2]))
hdr_ok = rows[0] == list(d)
vals_ok = len(rows) == 3 and all(
    (v == d[k] if k == "algorithm" else abs(float(v) - d[k]) < 1e-9)
    for k, v in zip(rows[0], rows[1]))
print(f"{len(rows)} lines, header = JSON keys: {hdr_ok}, values: {vals_ok}")
sys.exit(0 if hdr_ok and vals_ok else 1)
' "$OUT/rows.csv" "$OUT/main.json" 2>&1); then
	ok "--csv-row appends: $note"
else
	not_ok "--csv-row: $note"
fi

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
jchecks "$J" <<EOF
samples 100
avg_queue_bytes 50500 0.0005
p99_queue_bytes 99000
peak_queue_bytes 100000
drain_time_us -1
goodput_mbps 0 0.0005
jain_index 0 0.0005
flows 0
pre_avg_queue_bytes 0 0.0005
pre_throughput_mbps 0 0.0005
EOF
# shellcheck disable=SC2086
"$A" $IN2 --bdp-bytes 200000 --json "$OUT/ramp_bigb.json"
jchecks "$OUT/ramp_bigb.json" <<EOF
drain_time_us 0
EOF

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
jchecks "$J" <<EOF
avg_throughput_mbps 100 0.0005
samples 81
mean_interval_us 1000 0.0005
drain_time_us -1
EOF

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

# --- fairness-analyze --------------------------------------------------
# Two flows, phases of 10 ms (P), goodput rows every ms, link 100 Mbit/s,
# settle 2 ms, averages over 3 intervals, 10% tolerance. Per ms (bytes):
#   flow 0, (0, 20] ms:  11875 (95 Mbit/s) to 10 ms, 9375 (75) to 13 ms,
#                        then 6000 (48)
#   flow 1, (10, 30] ms: 2500 (20) to 13 ms, 6000 (48) to 20 ms, then
#                        12000 (96)
# Phase 0 [0, 10]: flow 0 alone, 95 Mbit/s in [2, 10]; its first 3-interval
#   average, over (1, 4] ms, is within 10% of 100: converged at 2500 us.
# Phase 1 [10, 20]: fair share 50; in [12, 20] ms flow 0 sends 9375 + 7 x
#   6000 B = 51.375 Mbit/s, flow 1 2500 + 7 x 6000 = 44.5; Jain
#   95.875^2 / (2 (51.375^2 + 44.5^2)) = 0.9949; interval rates 75, 7 x 48
#   and 20, 7 x 48: std devs sqrt(2719.125 - 51.375^2) = 8.929 and
#   sqrt(2066 - 44.5^2) = 9.260, mean 9.095. Flow 1's averages (11, 14]:
#   29.3, (12, 15]: 38.7, (13, 16]: 48 -> converged at (13 + 16) / 2 -
#   10 = 4.5 ms; flow 0's average there is 48 too: all fair at 4.5 ms.
# Phase 2 [20, 30]: flow 1 alone at 96, its first average (20, 23] ms:
#   all fair at 1.5 ms; no newcomer.
D4=$OUT/fair
mkdir -p "$D4"
awk 'BEGIN {
	print "time_us,flow_id,bytes_total"
	for (t = 1000; t <= 30000; t += 1000) {
		if (t <= 20000) {
			b0 += t <= 10000 ? 11875 : t <= 13000 ? 9375 : 6000
			printf "%d,0,%d\n", t, b0
		}
		if (t > 10000) {
			b1 += t <= 13000 ? 2500 : t <= 20000 ? 6000 : 12000
			printf "%d,1,%d\n", t, b1
		}
	}
}' >"$D4/goodput.csv"
{
	head -n 1 "$D1/flows.csv"
	echo "0,h0,x,0,0,1000,-1,1,1,1,1,closed"
	echo "1,h1,x,10000,0,11000,-1,1,1,1,1,closed"
} >"$D4/flows.csv"
FARGS=(--goodput "$D4/goodput.csv" --flows "$D4/flows.csv" --phase-us 10000
       --link-mbps 100 --settle-us 2000)
check "fairness-analyze runs" "$FA" "${FARGS[@]}" --algorithm synth \
	--phases 3 --json "$OUT/fair.json"
jchecks "$OUT/fair.json" <<EOF
algorithm synth
flows 2
interval_us 1000
smooth_intervals 3
phases.0.active.0 0
phases.0.window_start_us 2000
phases.0.flow_rates_mbps.0 95 0.0005
phases.0.throughput_mbps 95 0.0005
phases.0.jain_index 1 0.00005
phases.0.convergence_time_us 2500
phases.0.all_fair_time_us 2500
phases.0.min_intervals 8
phases.1.flows 2
phases.1.fair_share_mbps 50 0.0005
phases.1.flow_rates_mbps.0 51.375 0.0005
phases.1.flow_rates_mbps.1 44.5 0.0005
phases.1.flow_stddev_mbps.0 8.929 0.0005
phases.1.flow_stddev_mbps.1 9.260 0.0005
phases.1.rate_stddev_mbps 9.095 0.0005
phases.1.jain_index 0.9949 0.00005
phases.1.throughput_mbps 95.875 0.0005
phases.1.newcomer 1
phases.1.convergence_time_us 4500
phases.1.all_fair_time_us 4500
phases.2.active.0 1
phases.2.flow_rates_mbps.0 96 0.0005
phases.2.throughput_mbps 96 0.0005
phases.2.newcomer null
phases.2.convergence_time_us null
phases.2.all_fair_time_us 1500
EOF
# Tolerance 4%: 95 is not within 4% of 100, 48 of 50 and 96 of 100 are.
"$FA" "${FARGS[@]}" --algorithm synth --tolerance 4 --json "$OUT/fair4.json"
jchecks "$OUT/fair4.json" <<EOF
tolerance 0.04 0.00005
phases.0.convergence_time_us -1
phases.1.convergence_time_us 4500
phases.2.all_fair_time_us 1500
EOF
expect_err "fairness-analyze: bad --algorithm" "$FA" "${FARGS[@]}" \
	--algorithm 'a b'
expect_err "fairness-analyze: --phases for other flows" "$FA" \
	"${FARGS[@]}" --algorithm synth --phases 5
sed '3s/,10000,/,9000,/' "$D4/flows.csv" >"$OUT/fair_start.csv"
expect_err "fairness-analyze: a flow off its phase" "$FA" \
	--goodput "$D4/goodput.csv" --flows "$OUT/fair_start.csv" \
	--phase-us 10000 --link-mbps 100 --algorithm synth
sed '3s/,10000,/,12001,/' "$D4/flows.csv" >"$OUT/fair_late.csv"
expect_err "fairness-analyze: a flow later than the allowance" "$FA" \
	--goodput "$D4/goodput.csv" --flows "$OUT/fair_late.csv" \
	--phase-us 10000 --link-mbps 100 --settle-us 2000 --algorithm synth
expect_err "fairness-analyze: --starve-fraction above 1" "$FA" \
	"${FARGS[@]}" --algorithm synth --starve-fraction 1.5
expect_err "fairness-analyze: --starve-fraction 0" "$FA" \
	"${FARGS[@]}" --algorithm synth --starve-fraction 0
expect_err "fairness-analyze: --rtt-us 0" "$FA" \
	"${FARGS[@]}" --algorithm synth --rtt-us 0
# Starvation on the first input: nothing below 0.7 of the share (the
# lowest 3-interval average in a window is flow 1's 38.67 of 50, over
# (12, 15] ms). Below 0.9 (45): that one average, 1 ms (from tick 14).
jchecks "$OUT/fair.json" <<EOF
starve_fraction 0.7 0.00005
rtt_us null
phases.0.starved_us 0
phases.1.starved_us 0
phases.1.starved_flow null
phases.1.starved_rtts null
phases.2.starved_us 0
EOF
"$FA" "${FARGS[@]}" --algorithm synth --starve-fraction 0.9 \
	--json "$OUT/fair09.json"
jchecks "$OUT/fair09.json" <<EOF
phases.1.starved_us 1000
phases.1.starved_flow 1
phases.0.starved_us 0
EOF

# Starvation, known answers. Two flows, phases of 100 ms, rows every ms,
# link 100 Mbit/s, allowance 10 ms, averages over 3 intervals; flow 1
# starts 40 us late (a start jitter). Per ms, in Mbit/s:
#   flow 0, (0, 200]:   100 to 100 ms; then 50, except 75 over (130, 150]
#                       and 25 over (170, 175]
#   flow 1, (100, 300]: 50, except 25 over (130, 150] and 75 over
#                       (170, 175]; from 200 ms 100, except 50 over
#                       (200, 215]
# Phase 1 (fair share 50, threshold 35): an average with L intervals at
# 25 is 50 - 25 L / 3: below 35 for L >= 2, i.e. flow 1's averages ending
# at 132..151 ms, counted from tick 131: 20 ms = 20 base RTTs of 1 ms.
# Flow 0's dip: ticks 172..176, 5 ms. The longest: flow 1, 20000 us.
# Below 0.9 (45, L >= 1): 131..152 from 130, 22 ms. Below 0.4 (20, and
# 40 in phase 2): never.
# Phase 2 (flow 1 alone, share 100, threshold 70): 50 over (200, 215], an
# average with L such intervals 100 - 50 L / 3 < 70 for L >= 2; averages
# wholly after 210 ms end at 213 or later: 213..216, from 212: 4000 us.
# Phase 0: flow 0 at the share. Flow 1's convergence: its first average,
# over (101, 104] ms, is at the share: (101 + 104) / 2 - 100.04 = 2.46 ms.
D6=$OUT/starve
mkdir -p "$D6"
awk 'BEGIN {
	print "time_us,flow_id,bytes_total"
	for (t = 1; t <= 300; t++) {
		if (t <= 200) {
			if (t <= 100) r = 100
			else if (t > 130 && t <= 150) r = 75
			else if (t > 170 && t <= 175) r = 25
			else r = 50
			b0 += r * 125
			printf "%d,0,%d\n", t * 1000, b0
		}
		if (t > 100) {
			if (t > 200) r = t <= 215 ? 50 : 100
			else if (t > 130 && t <= 150) r = 25
			else if (t > 170 && t <= 175) r = 75
			else r = 50
			b1 += r * 125
			printf "%d,1,%d\n", t * 1000, b1
		}
	}
}' >"$D6/goodput.csv"
{
	head -n 1 "$D1/flows.csv"
	echo "0,h0,x,0,0,1000,-1,1,1,1,1,closed"
	echo "1,h1,x,100040,0,101000,-1,1,1,1,1,closed"
} >"$D6/flows.csv"
SARGS=(--goodput "$D6/goodput.csv" --flows "$D6/flows.csv" --phase-us 100000
       --link-mbps 100 --settle-us 10000 --algorithm synth)
check "fairness-analyze: starvation input runs" "$FA" "${SARGS[@]}" \
	--rtt-us 1000 --json "$OUT/starve.json"
jchecks "$OUT/starve.json" <<EOF
rtt_us 1000
starve_fraction 0.7 0.00005
phases.0.starved_us 0
phases.0.starved_flow null
phases.0.starved_rtts 0 0.00005
phases.1.starved_us 20000
phases.1.starved_flow 1
phases.1.starved_rtts 20 0.00005
phases.1.convergence_time_us 2460
phases.2.starved_us 4000
phases.2.starved_flow 1
phases.2.starved_rtts 4 0.00005
EOF
"$FA" "${SARGS[@]}" --starve-fraction 0.9 --json "$OUT/starve09.json"
jchecks "$OUT/starve09.json" <<EOF
phases.1.starved_us 22000
phases.1.starved_rtts null
EOF
"$FA" "${SARGS[@]}" --starve-fraction 0.4 --json "$OUT/starve04.json"
jchecks "$OUT/starve04.json" <<EOF
phases.1.starved_us 0
phases.1.starved_flow null
phases.2.starved_us 0
EOF

# --- fct-analyze -------------------------------------------------------
# MTU 1500 (MSS 1448), 100 Mbit/s, propagation RTT 100 us in a rack, 200
# across. ideal = 1.5 P + max(0, S + 8 + 66 n - 3000) * 8 / 100 us,
# n = ceil((S + 8) / 1448):
#   0: 1440 B rack:  150 us; FCT 300: slowdown 2
#   1: 1440 B cross: 300 us; FCT 450: 1.5
#   2: 50000 B rack: n 35, 150 + 49318 * 0.08 = 4095.44 us; FCT 12286:
#      2.99992
#   3: 200000 B rack: n 139, 150 + 206182 * 0.08 = 16644.56; FCT 33289:
#      1.99999
#   4: 2 MB cross, never started: n 1382, 300 + 2088220 * 0.08 = 167357.6
#   5: 1440 B rack, short (not all bytes): unfinished
# short (< 100 KB): 4 flows, 3 done, slowdowns 1.5, 2, 2.99992: p50 2
# (rank 2 of 3), p99 2.9999, mean 2.16664; all: p50 1.99999 (rank 2 of 4),
# mean 2.12498; long: none done, null percentiles.
D5=$OUT/fct
mkdir -p "$D5"
cat >"$D5/manifest.csv" <<EOF
id,src,dst,src_leaf,dst_leaf,start_us,bytes
0,1,2,1,1,1000,1440
1,1,5,1,2,2000,1440
2,2,3,1,1,3000,50000
3,3,4,1,1,4000,200000
4,4,8,1,2,5000,2000000
5,5,6,2,2,6000,1440
EOF
{
	head -n 1 "$D1/flows.csv"
	echo "0,tb_h1,x,1000,1440,1200,1300,1440,1150,1010,1440,done"
	echo "1,tb_h1,x,2000,1440,2400,2450,1440,2300,2005,1440,done"
	echo "2,tb_h2,x,3000,50000,3200,15286,50000,3150,3020,50000,done"
	echo "3,tb_h3,x,4000,200000,4200,37289,200000,4150,4100,200000,done"
	echo "4,tb_h4,x,5000,2000000,-1,-1,0,-1,-1,0,unstarted"
	echo "5,tb_h5,x,6000,1440,6200,-1,700,6100,6050,1440,short"
} >"$D5/flows.csv"
CARGS=(--flows "$D5/flows.csv" --manifest "$D5/manifest.csv" --load 50
       --link-mbps 100 --prop-rtt-rack-us 100 --prop-rtt-cross-us 200)
check "fct-analyze runs" "$FCT" "${CARGS[@]}" --algorithm synth \
	--json "$OUT/fct.json" --per-flow "$D5/per_flow.csv"
jchecks "$OUT/fct.json" <<EOF
algorithm synth
mtu 1500
flows 6
completed 4
unfinished 2
never_started 1
max_start_lateness_us 100
last_start_us 6000
min_slowdown 1.5 0.00005
buckets.0.bucket short
buckets.0.flows 4
buckets.0.completed 3
buckets.0.unfinished 1
buckets.0.median_size_bytes 1440
buckets.0.p50_slowdown 2 0.00005
buckets.0.p99_slowdown 2.9999 0.00005
buckets.0.max_slowdown 2.9999 0.00005
buckets.0.mean_slowdown 2.1666 0.00005
buckets.0.p999_meaningful false
buckets.1.flows 1
buckets.1.p50_slowdown 2 0.00005
buckets.2.bucket long
buckets.2.hi_bytes -1
buckets.2.completed 0
buckets.2.unfinished 1
buckets.2.p50_slowdown null
buckets.3.bucket all
buckets.3.flows 6
buckets.3.p50_slowdown 2 0.00005
buckets.3.p999_slowdown 2.9999 0.00005
buckets.3.mean_slowdown 2.1250 0.00005
fine_buckets.0.flows 3
fine_buckets.0.p50_slowdown 1.5 0.00005
fine_buckets.4.lo_bytes 50000
fine_buckets.4.completed 1
fine_buckets.8.unfinished 1
fine_buckets.10.median_size_bytes -1
EOF
check "fct-analyze --per-flow rows" diff -u - "$D5/per_flow.csv" <<EOF
id,src,dst,cross,bytes,start_us,started_us,connect_us,completion_us,fct_us,ideal_us,slowdown,status
0,1,2,0,1440,1000,1010,1150,1300,300,150.0,2.0000,done
1,1,5,1,1440,2000,2005,2300,2450,450,300.0,1.5000,done
2,2,3,0,50000,3000,3020,3150,15286,12286,4095.4,2.9999,done
3,3,4,0,200000,4000,4100,4150,37289,33289,16644.6,2.0000,done
4,4,8,1,2000000,5000,-1,-1,-1,-1,167357.6,-1.0000,unstarted
5,5,6,0,1440,6000,6050,6100,-1,-1,150.0,-1.0000,short
EOF
expect_err "fct-analyze: bad --algorithm" "$FCT" "${CARGS[@]}" \
	--algorithm 'x"y'
sed '4s/,50000,/,50001,/' "$D5/flows.csv" >"$OUT/fct_size.csv"
expect_err "fct-analyze: a size that differs from the manifest" "$FCT" \
	--flows "$OUT/fct_size.csv" --manifest "$D5/manifest.csv" --load 50 \
	--link-mbps 100 --prop-rtt-rack-us 100 --prop-rtt-cross-us 200 \
	--algorithm synth
head -n 6 "$D5/flows.csv" >"$OUT/fct_missing.csv"
expect_err "fct-analyze: a flow missing from flows.csv" "$FCT" \
	--flows "$OUT/fct_missing.csv" --manifest "$D5/manifest.csv" \
	--load 50 --link-mbps 100 --prop-rtt-rack-us 100 \
	--prop-rtt-cross-us 200 --algorithm synth

# --- incast/summarize.py, fairness/summarize.py: the seeds ---------------
# Results laid out as testbed/run.sh --seeds does (ALG/seed-S/), from the
# inputs above; params.json and headroom.json as the experiments write
# them (the fields the summaries read).
TB=$ROOT/testbed
S=$OUT/summ
headroom() { echo '{"unlimited_mbps": 300, "ok": true}' >"$1/headroom.json"; }
# Incast: the first input as three seeds of cubic whose windows end at
# 200, 120 and 150 ms: avg queue 1500000 / 101 = 14851.485, (550000 +
# 5000 x (19 + .. + 10)) / 21 = 60714.286, 1500000 / 51 = 29411.765 B:
# mean 34992.512, sd sqrt((20141.027^2 + 25721.774^2 + 5580.747^2) / 2)
# = 23435.18; drains below 1 BDP 26 ms after the incast, except seed 2
# (never, its window ends at 50000 B): 26000 over 2 seeds, 1 never.
for s in 1 2 3; do
	R=$S/incast/cubic/seed-$s
	mkdir -p "$R"
	cp "$D1"/*.csv "$R/"
	printf '{"algorithm": "cubic", "rate_mbps": 100, "pre_us": 100000, "end_us": %d, "bdp_bytes": 25000, "seed": %d, "mtu": 1500, "rtt_us": 1000, "tau_us": 1000, "senders": 3}\n' \
		$((s == 1 ? 200000 : s == 2 ? 120000 : 150000)) "$s" >"$R/params.json"
	headroom "$R"
done
mkdir -p "$S/incast/_nosample/cubic/seed-1" "$S/incast/notes"
check "incast/summarize.py: three seeds" sh -c "'$PY3' '$TB/incast/summarize.py' \
	'$S/incast' >'$S/incast.txt' && grep -c . '$S/incast.txt'"
jchecks "$S/incast/summary.json" <<EOF
seeds.2 3
runs.1.seed 2
runs.1.avg_queue_bytes 60714.286 0.0005
algorithms.0.n_seeds 3
algorithms.0.avg_queue_bytes.mean 34992.512 0.0005
algorithms.0.avg_queue_bytes.sd 23435.18 0.005
algorithms.0.avg_queue_bytes.min 14851.485 0.0005
algorithms.0.avg_queue_bytes.max 60714.286 0.0005
algorithms.0.drain_time_us.mean 26000 0.0005
algorithms.0.drain_time_us.never 1
algorithms.0.drain_time_us.n 2
algorithms.0.peak_queue_bytes.sd 0 0.0005
EOF
check "incast/summarize.py: mean ± sd in the table" \
	grep -E '^cubic +3 .* 34993 ± 23435 .* 26000 ± 0 \+1 never' "$S/incast.txt"
check "incast/summarize.py: summary.csv, one row per algorithm" sh -c "
	head -n 1 '$S/incast/summary.csv' | grep -q '^algorithm,n_seeds,seeds,.*avg_queue_bytes_mean,avg_queue_bytes_sd,avg_queue_bytes_min,avg_queue_bytes_max' &&
	[ \$(wc -l < '$S/incast/summary.csv') = 2 ] && echo 2 lines"
# Fairness: the starvation input as two seeds of theta_powertcp with base
# RTTs of 1000 and 250 us: phase 1's 20 ms below 0.7 of the share is 20
# and 80 base RTTs (mean 50, sd sqrt(2 x 30^2) = 42.4264); Jain of the
# phase (window 110..200 ms): flows at 4875 / 90 and 4125 / 90 Mbit/s,
# 100^2 / (2 (54.1667^2 + 45.8333^2)) = 0.9931 in both. The goals: Jain
# holds (min 0.9931), starvation does not (80 > 50 RTTs, seed 2).
for s in 1 2; do
	R=$S/fairness/theta_powertcp/seed-$s
	mkdir -p "$R"
	cp "$D6"/*.csv "$R/"
	printf '{"algorithm": "theta_powertcp", "rate_mbps": 100, "mtu": 1500, "phase_us": 100000, "phases": 3, "settle_us": 10000, "rtt_us": %d, "flows": 2, "phase_rtts": 100, "seed": %d}\n' \
		$((s == 1 ? 1000 : 250)) "$s" >"$R/params.json"
	headroom "$R"
done
check "fairness/summarize.py: two seeds" sh -c "'$PY3' '$TB/fairness/summarize.py' \
	'$S/fairness' >'$S/fairness.txt' && grep -c . '$S/fairness.txt'"
jchecks "$S/fairness/summary.json" <<EOF
seeds.1 2
starve_fraction 0.7 0.00005
runs.4.seed 2
runs.4.phase 1
runs.4.starved_rtts 80 0.005
runs.4.starved_flow 1
phases.1.phase 1
phases.1.n_seeds 2
phases.1.jain_index.mean 0.9931 0.00005
phases.1.jain_index.sd 0 0.00005
phases.1.starved_rtts.mean 50 0.0005
phases.1.starved_rtts.sd 42.4264 0.0005
phases.1.starved_rtts.min 20 0.0005
phases.1.starved_rtts.max 80 0.0005
phases.1.convergence_time_us.mean 2460 0.0005
phases.2.convergence_time_us null
algorithms.0.jain_goal.holds true
algorithms.0.jain_goal.min 0.9931 0.00005
algorithms.0.starvation_goal.holds false
algorithms.0.starvation_goal.max_rtts 80 0.005
algorithms.0.starvation_goal.seed 2
algorithms.0.starvation_goal.phase 1
EOF
check "fairness/summarize.py: the Jain goal, per algorithm" grep -F \
	"theta_powertcp: Jain >= 0.98 in every multi-flow phase of every seed (2 seeds): yes (min 0.9931" \
	"$S/fairness.txt"
check "fairness/summarize.py: the starvation goal, per algorithm" grep -F \
	"theta_powertcp: longest starvation 80.0 RTTs (goal <= 50, 2 seeds): NO" \
	"$S/fairness.txt"
check "fairness/summarize.py: summary.csv, one row per phase" sh -c "
	head -n 1 '$S/fairness/summary.csv' | grep -q '^algorithm,phase,flows,n_seeds,jain_index_mean,jain_index_sd,jain_index_min,jain_index_max' &&
	[ \$(wc -l < '$S/fairness/summary.csv') = 4 ] && echo 4 lines"
check "report.py: RESULTS.md from the seeds' summaries" sh -c "
	'$PY3' '$TB/report.py' '$S' '$S/docs' >/dev/null &&
	grep -q '^| cubic | 3 | 100.00 ± 0.00 | 100.0% ± 0.0% | [0-9]* ± [0-9]* | [0-9]* ± [0-9]* | 34993 ± 23435 | .* | 26000 ± 0 +1 never |' '$S/docs/RESULTS.md' &&
	grep -q '^| cubic | 3 | 100.00 | 100.0% | [0-9]*–[0-9]* | [0-9]*–[0-9]* | 14851–60714 |' '$S/docs/RESULTS.md' &&
	grep -q '^| theta_powertcp | .* | 0.993 ± 0.000 (0.993) |' '$S/docs/RESULTS.md' &&
	grep -q '^| theta_powertcp | 2 | yes | 0.993 (1, 1) | \*\*no\*\* | 80.0 RTTs (2, 1, 1) |' '$S/docs/RESULTS.md' &&
	grep -c 'seeds (1, 2' '$S/docs/RESULTS.md'"
# --keep: a rerun of fairness alone keeps the incast section it finds in
# RESULTS.md, and the run without --keep drops it.
check "report.py --keep: the other experiments' sections stay" sh -c "
	mkdir -p '$S/fonly' '$S/docs2' && ln -sfn '$S/fairness' '$S/fonly/fairness' &&
	cp '$S/docs/RESULTS.md' '$S/docs2/' &&
	sed -i 's/^| cubic | 3 | 100.00 ± 0.00 |/| cubic | 3 | 100.00 ± 0.00 KEPT |/' '$S/docs2/RESULTS.md' &&
	'$PY3' '$TB/report.py' --keep '$S/fonly' '$S/docs2' >/dev/null &&
	grep -q '^| cubic | 3 | 100.00 ± 0.00 KEPT |' '$S/docs2/RESULTS.md' &&
	grep -q '^| theta_powertcp | 2 | yes | 0.993 (1, 1) |' '$S/docs2/RESULTS.md' &&
	'$PY3' '$TB/report.py' '$S/fonly' '$S/docs2' >/dev/null &&
	! grep -q '^## 10:1 incast' '$S/docs2/RESULTS.md' &&
	grep -q '^## Fairness' '$S/docs2/RESULTS.md' && echo kept, then dropped"
check "fairness/summarize.py: no runs, one line" sh -c "mkdir -p '$S/none/x'
	! '$PY3' '$TB/fairness/summarize.py' '$S/none' 2>'$S/none.err' &&
	[ \$(wc -l < '$S/none.err') = 1 ] && cat '$S/none.err'"

# --- the evolution's objective (testbed/evolve/evaluate.py) ---------------
# The tail: the 95th percentile of the slowdown of flows below 1 MB, an
# unfinished flow the largest; the penalties: starvation beyond the free
# 40 RTTs at 5 a RTT, Jain below 0.98 at 2000 a unit, the tail above the
# reference's at 200 a unit of ratio, none without a reference.
E=$OUT/evolve
mkdir -p "$E"
{
	echo id,src,dst,cross,bytes,start_us,started_us,connect_us,completion_us,fct_us,ideal_us,slowdown,status
	for i in $(seq 1 19); do echo "$i,1,2,0,50000,0,0,0,0,0,0,$i.0,done"; done
	echo "20,1,2,0,2000000,0,0,0,0,0,0,99.0,done"
	echo "21,1,2,0,60000,0,0,0,0,0,0,-1,unfinished"
} > "$E/per_flow.csv"
check "evaluate.py: the tail counts an unfinished flow, not a long one" \
	"$PY3" -c "
import sys; sys.path.insert(0, '$ROOT/testbed/evolve')
from evaluate import tail_slowdown as t
p = '$E/per_flow.csv'
assert t(p, 1000000, 95) == float('inf'), t(p, 1000000, 95)
assert t(p, 1000000, 50) == 11.0, t(p, 1000000, 50)
print('p50 11.0, p95 inf')"
check "evaluate.py: the penalties" "$PY3" -c "
import sys; sys.path.insert(0, '$ROOT/testbed/evolve')
from evaluate import penalties
pen = {'starved_rtts_free': 40, 'per_starved_rtt': 5, 'jain_free': 0.98,
       'per_jain': 2000, 'per_tail_ratio': 200}
arr = {'fairness': {'starved_rtts': 50.0, 'min_jain': 0.97},
       'websearch': {'tail_slowdown': 6.0}}
got = penalties(arr, pen, 4.0)
want = {'starvation': 50.0, 'jain': 20.0, 'tail': 100.0}
assert all(abs(got[k] - v) < 1e-9 for k, v in want.items()), got
assert 'tail' not in penalties(arr, pen, None)
ok = {'fairness': {'starved_rtts': 10.0, 'min_jain': 0.99},
      'websearch': {'tail_slowdown': 3.0}}
assert sum(penalties(ok, pen, 4.0).values()) == 0
print(got)"

# The JSON checks queued above.
jchecks_run

# --- incast/plot.py ------------------------------------------------------
# Two algorithms, two seeds each (ALG/seed-S, as testbed/run.sh lays them
# out), 0.5 ms samples over 0.5 s, incast at 200 ms, analysed to 400 ms,
# 100 Mbit/s: a short queue spike for theta_powertcp, a long one and a
# sawtooth for cubic.
PY=${PYTHON:-}
for p in /usr/bin/python3 python3; do
	[ -n "$PY" ] && break
	"$p" -c 'import matplotlib, numpy' 2>/dev/null && PY=$p
done
if [ -z "$PY" ]; then
	skip "incast/plot.py" "no python3 with matplotlib and numpy"
else
	P=$OUT/results
	for run in cubic/seed-1 cubic/seed-2 theta_powertcp/seed-1 \
		   theta_powertcp/seed-2; do
		alg=${run%/*} R=$P/$run
		mkdir -p "$R"
		awk -v alg="$alg" -v seed="${run#*seed-}" 'BEGIN {
			print "time_us,backlog_bytes,backlog_pkts,sent_bytes,sent_pkts,drops,overlimits"
			srand(seed)
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
		}' >"$R/qdisc.csv"
		awk 'BEGIN {
			print "time_us,flow_id,bytes_total"
			for (t = 1000; t <= 500000; t += 1000)
				for (f = 0; f < 4; f++) printf "%d,%d,%d\n", t, f, 3 * t
		}' >"$R/goodput.csv"
		cp "$D1/flows.csv" "$R/flows.csv"
		"$A" --qdisc "$R/qdisc.csv" --goodput "$R/goodput.csv" \
			--flows "$R/flows.csv" --algorithm "$alg" --link-mbps 100 \
			--incast-us 200000 --end-us 400000 --bdp-bytes 25000 \
			--json "$R/summary.json"
	done
	mkdir -p "$P/notes/seed-1"	# no qdisc.csv: not an algorithm
	# Not an algorithm either: the incast's run without the sampler.
	mkdir -p "$P/_nosample/theta_powertcp/seed-1"
	cp "$P/cubic/seed-1/qdisc.csv" "$P/_nosample/theta_powertcp/seed-1/"
	if "$PY" "$PLOT" --results "$P" --out "$OUT/fig.png" --title "synthetic incast" 2>"$OUT/plot.err" &&
	   [ ! -s "$OUT/plot.err" ]; then
		ok "incast/plot.py runs (seed 1 of 2, two algorithms)"
	else
		not_ok "incast/plot.py: $(cat "$OUT/plot.err")"
	fi
	for f in fig.png fig_cdf.png; do
		size=$(wc -c <"$OUT/$f" 2>/dev/null || echo 0)
		magic=$(head -c 4 "$OUT/$f" 2>/dev/null | tail -c 3)
		if [ "$magic" = PNG ] && [ "$size" -gt 20000 ]; then
			ok "$f is a PNG of $size bytes"
		else
			not_ok "$f: '$magic', $size bytes"
		fi
	done
	mkdir -p "$OUT/noalgs/x"
	"$PY" "$PLOT" --results "$OUT/noalgs" --out "$OUT/none.png" 2>"$OUT/plot.err"
	rc=$?
	if [ $rc -ne 0 ] && [ "$(wc -l <"$OUT/plot.err")" -eq 1 ] && [ ! -e "$OUT/none.png" ]; then
		ok "incast/plot.py without algorithms fails: $(cat "$OUT/plot.err")"
	else
		not_ok "incast/plot.py without algorithms: exit $rc, $(cat "$OUT/plot.err")"
	fi
fi

tap_done
