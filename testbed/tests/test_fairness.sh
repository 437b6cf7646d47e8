#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end check of the fairness pipeline on short phases, inside a
# booted kernel: topology, module load, staggered flows, per-flow goodput,
# per-phase analysis, summary. Checks that the pipeline works and is
# self-consistent, not the paper's numbers.
#
#   testbed/tests/test_fairness.sh KMOD_DIR
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KMOD_DIR=${1:?usage: test_fairness.sh KMOD_DIR}
# A kernel's own: make check runs two kernels' guests at once.
OUT=$ROOT/build/test-fairness/$(uname -r)
ANALYZE=$ROOT/userspace-tools/bin/fairness-analyze
PHASE_RTTS=60

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

# Every flow connected on time (i x phase), sent and got bytes.
flows_started() { # dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
p = json.load(open(d + "/params.json"))
rows = list(csv.DictReader(open(d + "/flows.csv")))
errs = []
for i, r in enumerate(rows):
    want = i * p["phase_us"]
    jit = p["start_jitter_us"]
    if int(r["id"]) != i or not want <= int(r["start_us"]) < want + max(jit, 1):
        errs.append("flow %s scheduled at %s, want %d + [0, %d)" % (r["id"], r["start_us"], want, jit))
    want = int(r["start_us"])
    if not want <= int(r["started_us"]) <= want + 5000:
        errs.append("flow %d started at %s, want %d" % (i, r["started_us"], want))
    if int(r["bytes_received"]) <= 0 or int(r["first_byte_us"]) < want:
        errs.append("flow %d: %s bytes, first at %s" % (i, r["bytes_received"], r["first_byte_us"]))
print("%d flows, started %s us late at most" % (len(rows), max(
    int(r["started_us"]) - int(r["start_us"]) for r in rows)))
sys.exit("; ".join(errs) if errs or len(rows) != p["flows"] else 0)
PY
}

# The receiver sees no bytes of flow i before its start, and none after
# its stop plus what can still be in flight: the largest queue sampled,
# the sender's unsent data at a quarter of the link, and 50 ms (an RTO).
# A flow whose stop + allowance is before the end must have closed.
flows_stop() { # dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
p = json.load(open(d + "/params.json"))
g = [tuple(map(int, (r["time_us"], r["flow_id"], r["bytes_total"])))
     for r in csv.DictReader(open(d + "/goodput.csv"))]
maxq = max(int(r["backlog_bytes"]) for r in csv.DictReader(open(d + "/qdisc.csv")))
rate = p["rate_mbps"]  # bytes * 8 / rate = us
allow = (maxq * 8 + p["notsent_lowat"] * 8 * 4) // rate + 50000
end = p["end_us"] + p["tail_us"]
status = {int(r["id"]): r["status"] for r in csv.DictReader(open(d + "/flows.csv"))}
errs, late = [], []
for s in p["schedule"]:
    i, t0, t1 = s["id"], s["start_us"], s["stop_us"]
    rows = sorted((t, b) for t, f, b in g if f == i)
    if not rows or rows[0][0] < t0:
        errs.append("flow %d: first row %s before its start %d" % (i, rows[:1], t0))
    last = max((t for (t, b), (_, pb) in zip(rows[1:], rows) if b > pb),
               default=rows[0][0] if rows else 0)
    late.append(last - t1)
    if last > t1 + allow:
        errs.append("flow %d: bytes at %d us, stop %d + %d" % (i, last, t1, allow))
    if t1 + allow < end and status[i] != "closed":
        errs.append("flow %d: %s, not closed" % (i, status[i]))
print("last bytes %s us after the stops (allowance %d us)" % (late, allow))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# Goodput rows at the configured interval and covering each flow's time.
goodput_interval() { # dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
p = json.load(open(d + "/params.json"))
iv = p["interval_us"]
g = [tuple(map(int, (r["time_us"], r["flow_id"]))) for r in csv.DictReader(open(d + "/goodput.csv"))]
errs, gaps = [], []
for s in p["schedule"]:
    t = sorted(tt for tt, f in g if f == s["id"])
    gaps += [b - a for a, b in zip(t, t[1:])]
    need = 0.9 * (s["stop_us"] - s["start_us"]) / iv
    if len(t) < need:
        errs.append("flow %d: %d rows, want >= %d" % (s["id"], len(t), need))
gaps.sort()
med = gaps[len(gaps) // 2]
off = sum(not 0.5 * iv <= x <= 1.5 * iv for x in gaps)
if abs(med - iv) > 0.05 * iv or off > 0.02 * len(gaps):
    errs.append("median interval %d us, %d of %d off" % (med, off, len(gaps)))
print("%d intervals, median %d us (want %d), %d off by > 50%%" % (len(gaps), med, iv, off))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# The analyzer's per-phase figures agree with the raw series, recomputed
# here, and Jain's index with its own per-flow means; 1,2,3,4,3,2,1 flows;
# the longest starvation too (a flow's average over K ticks, wholly after
# the allowance, below the fraction of the fair share; each tick counting
# from the one before).
analyzer_consistent() { # dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
p = json.load(open(d + "/params.json"))
s = json.load(open(d + "/summary.json"))
ser = {}
for r in csv.DictReader(open(d + "/goodput.csv")):
    ser.setdefault(int(r["flow_id"]), []).append((int(r["time_us"]), int(r["bytes_total"])))
for v in ser.values():
    v.sort()
ticks = sorted({t for v in ser.values() for t, _ in v})

def at(f, t):
    b = [x for tt, x in ser.get(f, []) if tt <= t]
    return b[-1] if b else 0

def jain(x):
    return sum(x) ** 2 / (len(x) * sum(v * v for v in x)) if any(x) else 0

errs = []
want = [1, 2, 3, 4, 3, 2, 1]
if [ph["flows"] for ph in s["phases"]] != want:
    errs.append("flows per phase %s" % [ph["flows"] for ph in s["phases"]])
for ph in s["phases"]:
    k, a, b = ph["phase"], ph["window_start_us"], ph["end_us"]
    act = [f for f in range(4) if f <= k < f + 4]
    if ph["active"] != act or ph["start_us"] != k * p["phase_us"] or \
       a != ph["start_us"] + p["settle_us"]:
        errs.append("phase %d: active %s, window %d" % (k, ph["active"], a))
    means = []
    for f in act:
        w = [(t, x) for t, x in ser.get(f, []) if a <= t <= b]
        means.append((w[-1][1] - w[0][1]) * 8 / (w[-1][0] - w[0][0]) if len(w) > 1 else 0)
    ta = min(t for t in ticks if t >= a)
    tb = max(t for t in ticks if t <= b)
    thr = sum(at(f, tb) - at(f, ta) for f in ser) * 8 / (tb - ta)
    for x, y in zip(means, ph["flow_rates_mbps"]):
        if abs(x - y) > 0.002 + 1e-4 * x:
            errs.append("phase %d: flow rate %.3f vs %.3f" % (k, x, y))
    if abs(jain(means) - ph["jain_index"]) > 2e-4 or \
       abs(jain(ph["flow_rates_mbps"]) - ph["jain_index"]) > 2e-4:
        errs.append("phase %d: jain %.4f (raw), %.4f (its means) vs %.4f" % (
            k, jain(means), jain(ph["flow_rates_mbps"]), ph["jain_index"]))
    if abs(thr - ph["throughput_mbps"]) > 0.002 + 1e-4 * thr:
        errs.append("phase %d: throughput %.3f vs %.3f" % (k, thr, ph["throughput_mbps"]))
    if not 0 < ph["throughput_mbps"] <= 1.02 * p["rate_mbps"]:
        errs.append("phase %d: throughput %.3f outside (0, link]" % (k, ph["throughput_mbps"]))
    sd = sum(ph["flow_stddev_mbps"]) / len(act)
    if abs(sd - ph["rate_stddev_mbps"]) > 0.002:
        errs.append("phase %d: stddev %.3f vs mean of flows' %.3f" % (k, ph["rate_stddev_mbps"], sd))
    ct = ph["convergence_time_us"]
    if (k < 4) != (ct is not None) or (ct is not None and not (ct == -1 or 0 < ct <= p["phase_us"])):
        errs.append("phase %d: convergence_time_us %s" % (k, ct))
    K, thr = s["smooth_intervals"], s["starve_fraction"] * ph["fair_share_mbps"]
    longest, who = 0, None
    for f in act:
        start = None
        for i in range(K, len(ticks)):
            if ticks[i - K] < a or ticks[i] > b:
                continue
            r = (at(f, ticks[i]) - at(f, ticks[i - K])) * 8 / (ticks[i] - ticks[i - K])
            if r >= thr:
                start = None
                continue
            start = ticks[i - 1] if start is None else start
            if ticks[i] - start > longest:
                longest, who = ticks[i] - start, f
    if longest != ph["starved_us"] or (longest and who != ph["starved_flow"]):
        errs.append("phase %d: starved %d us (flow %s) vs %d (flow %s)" % (
            k, longest, who, ph["starved_us"], ph["starved_flow"]))
    if abs(ph["starved_rtts"] - longest / p["rtt_us"]) > 0.01:
        errs.append("phase %d: starved_rtts %s" % (k, ph["starved_rtts"]))
print("Jain per phase %s, starved %s RTTs" % (
    " ".join("%.3f" % ph["jain_index"] for ph in s["phases"]),
    " ".join("%.0f" % ph["starved_rtts"] for ph in s["phases"])))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# Known answers: 4 flows at exactly the fair share of 100 Mbit/s (12.5
# bytes/us) in rows every 100 us, except that each newcomer first sends at
# twice its share for 2 ms. Every Jain index is 1, throughput 100 Mbit/s
# (after the allowance); the first 3-interval mean within 10% of the share
# is the one of rows 2100..2300 us after the start: centred at 2150.
synthetic() {
	local d=$OUT/synthetic
	mkdir -p "$d"
	/usr/bin/python3 - "$d" <<'PY'
import sys
d, P, iv = sys.argv[1], 20000, 100
with open(d + "/flows.csv", "w") as f:
    f.write("id,src_netns,cc,start_us,bytes,first_byte_us,completion_us,"
            "bytes_received,connect_us,started_us,bytes_sent,status\n")
    for i in range(4):
        f.write("%d,h%d,x,%d,0,0,0,0,0,0,0,closed\n" % (i, i, i * P))
b = [0] * 4
with open(d + "/goodput.csv", "w") as f:
    f.write("time_us,flow_id,bytes_total\n")
    for t in range(iv, 7 * P + iv, iv):
        act = [i for i in range(4) if i * P < t <= (i + 4) * P]
        for i in act:
            fair = 12.5 / len(act)
            b[i] += int(iv * fair * (2 if t - i * P <= 2000 and i == max(act) and t <= 4 * P else 1))
            f.write("%d,%d,%d\n" % (t, i, b[i]))
PY
	"$ANALYZE" --goodput "$d/goodput.csv" --flows "$d/flows.csv" \
		--phase-us 20000 --phases 7 --algorithm synthetic \
		--link-mbps 100 --settle-us 5000 --json "$d/out.json" &&
	/usr/bin/python3 - "$d/out.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
errs = []
for ph in s["phases"]:
    if abs(ph["jain_index"] - 1) > 1e-3 or abs(ph["throughput_mbps"] - 100) > 0.5:
        errs.append("phase %d: jain %s, %s Mbit/s" % (ph["phase"], ph["jain_index"], ph["throughput_mbps"]))
    want = 2150 if ph["phase"] <= 3 else None
    if ph["convergence_time_us"] != want:
        errs.append("phase %d: convergence %s, want %s" % (ph["phase"], ph["convergence_time_us"], want))
print("convergence %s us" % [ph["convergence_time_us"] for ph in s["phases"]])
sys.exit("; ".join(errs) if errs else 0)
PY
}

# Each run in OUT/ALG/seed-S, as testbed/run.sh lays them out; cubic with
# seed 2, so that its flows start at other offsets.
rm -rf "$OUT"
mkdir -p "$OUT"
check "analyzer gives the known answers on a synthetic series" synthetic
for run in theta_powertcp/seed-1 cubic/seed-2; do
	cc=${run%/*} d=$OUT/$run
	check "$cc: short fairness run ($PHASE_RTTS-RTT phases, ${run#*/})" \
		bash "$ROOT/testbed/fairness/run.sh" --cc "$cc" --out "$d" \
		--phase-rtts $PHASE_RTTS --seed "${run#*seed-}" \
		--kmod-dir "$KMOD_DIR"
	check "$cc: CPU headroom measured and sufficient" \
		headroom_ok "$d/headroom.json"
	check "$cc: params.json has the common schema" \
		params_common "$d/params.json" fairness "$cc"
	check "$cc: flows start on schedule" flows_started "$d"
	check "$cc: no bytes before a flow's start or after its stop" \
		flows_stop "$d"
	check "$cc: goodput rows at the interval" goodput_interval "$d"
done
check "summary table written for both" sh -c "/usr/bin/python3 \
	'$ROOT/testbed/fairness/summarize.py' '$OUT' > '$OUT/table.txt' &&
	grep -c . '$OUT/table.txt'"
for run in theta_powertcp/seed-1 cubic/seed-2; do
	check "${run%/*}: analyzer agrees with the raw series" \
		analyzer_consistent "$OUT/$run"
done
check "summary.json: every run has every required field, 7 phases each" \
	summary_fields --rows runs "$OUT/summary.json" 14 algorithm seed phase \
	flows jain_index convergence_time_us rate_stddev_mbps throughput_mbps \
	starved_us starved_rtts starved_flow
check "summary.json: the spread over the seeds, per algorithm and phase" \
	summary_fields --rows phases "$OUT/summary.json" 14 algorithm phase \
	seeds n_seeds jain_index starved_rtts
check "summary.json: the goals, per algorithm" summary_fields --rows \
	algorithms "$OUT/summary.json" 2 algorithm seeds jain_goal \
	starvation_goal
check "the table says whether each goal holds, for both" sh -c "n=\$(grep -E \
	'^(theta_powertcp|cubic): (Jain >= 0.98 in every multi-flow phase|longest starvation).*: (yes|NO)( |\$)' \
	'$OUT/table.txt' | wc -l); echo \$n lines; [ \$n = 4 ]"
check "a bad argument exits 2 with a one-line reason" bad_arg \
	bash "$ROOT/testbed/fairness/run.sh" --cc cubic --out /tmp/x --phase-rtts x
check "the analyzer: a bad argument exits 2 with a one-line reason" bad_arg \
	"$ANALYZE" --goodput "$OUT/cubic/seed-2/goodput.csv" \
	--flows "$OUT/cubic/seed-2/flows.csv" --algorithm cubic --link-mbps 100 \
	--phase-us 12x

tap_done
