#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fan-in sweep's pipeline on two points, N = 10 and N = 50, one
# algorithm, a short timeline, inside a booted kernel: the star of 1 + N
# hosts, traffic, the senders' retransmissions, the sweep's analysis
# (testbed/incast-sweep/summarize.py), its plots and its report section.
# Checks that the pipeline works and agrees with the raw data, not the
# sweep's figures (make incast-sweep).
#
#   testbed/tests/test_incast_sweep.sh KMOD_DIR
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KMOD_DIR=${1:?usage: test_incast_sweep.sh KMOD_DIR}
# A kernel's own: make check runs two kernels' guests at once.
BASE=$ROOT/build/test-incast-sweep/$(uname -r)
OUT=$BASE/incast-sweep
PRE=100000
POST=200000
CC=theta_powertcp

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

# 1 + N flows, each from its own host, each got bytes; a retransmission
# count for each of them.
flows_and_hosts() { # dir n
	/usr/bin/python3 - "$1" "$2" <<'PY'
import csv, sys
d, n = sys.argv[1], int(sys.argv[2])
flows = list(csv.DictReader(open(d + "/flows.csv")))
rt = list(csv.DictReader(open(d + "/retrans.csv")))
hosts = {f["src_netns"] for f in flows}
got = sum(1 for f in flows if int(f["bytes_received"]) > 0)
print("%d flows from %d hosts, %d got bytes, %d retransmission counts"
      % (len(flows), len(hosts), got, len(rt)))
sys.exit(not (len(flows) == len(hosts) == got == n + 1 and
              sorted(int(r["id"]) for r in rt) == list(range(n + 1)) and
              all(int(r["retrans_segs"]) >= 0 for r in rt)))
PY
}

# The incast flows' Jain index and longest stall, recomputed here from
# goodput.csv as the analyzer defines them.
incast_figures_agree() { # dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
s = json.load(open(d + "/summary.json"))
ta, t1 = s["window_start_us"], s["window_end_us"]
ids = {int(f["id"]) for f in csv.DictReader(open(d + "/flows.csv"))
       if int(f["bytes"]) == 0 and int(f["id"]) != 0}
rows = {}
for r in csv.DictReader(open(d + "/goodput.csv")):
    i = int(r["flow_id"])
    if i in ids:
        rows.setdefault(i, []).append((int(r["time_us"]),
                                       int(r["bytes_total"])))
got, stall = [], 0
for i in ids:
    rs = sorted(rows.get(i, []))
    base = max([b for t, b in rs if t <= ta], default=0)
    end = max([b for t, b in rs if t <= t1], default=0)
    got.append(end - base)
    win = [(t, b) for t, b in rs if ta <= t <= t1]
    at = prev = None
    for t, b in win:
        if at is None or b > prev:
            if at is not None:
                stall = max(stall, t - at)
            at = t
        prev = b
    if win:
        stall = max(stall, win[-1][0] - at)
jain = sum(got) ** 2 / (len(got) * sum(g * g for g in got))
print("%d incast flows: Jain %.4f (analyzer %.4f), stall %d us (analyzer %d)"
      % (len(ids), jain, s["incast_jain_index"], stall,
         s["incast_stall_max_us"]))
sys.exit(not (len(ids) == s["incast_flows"] and
              abs(jain - s["incast_jain_index"]) < 1e-3 and
              stall == s["incast_stall_max_us"]))
PY
}

# The sweep's summary: a point per fan-in with the table's figures, the
# floors of each N.
sweep_summary() {
	/usr/bin/python3 - "$OUT/summary.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
pts, fl = doc["points"], doc["floors"]
need = ["avg_throughput_mbps", "avg_waiting_bytes", "p99_waiting_bytes",
        "peak_queue_bytes", "drops", "retrans_segs", "incast_jain_index",
        "incast_stall_max_us", "incast_first_byte_max_us", "headroom_mbps"]
miss = [(p["fanin"], k) for p in pts for k in need if not p.get(k)]
mtu = doc["runs"][0]["params"]["mtu"]
print("points %s, floors %s, missing %s" % (
    [(p["algorithm"], p["fanin"]) for p in pts],
    [(f["fanin"], f["one_packet_bytes"]) for f in fl], miss))
sys.exit(not ([p["fanin"] for p in pts] == [10, 50] == doc["fanins"] and
              not miss and not any(p["cpu_bound"] for p in pts) and
              [f["one_packet_bytes"] for f in fl] == [11 * mtu, 51 * mtu]))
PY
}

rm -rf "$BASE"
for n in 10 50; do
	d=$OUT/$CC/n-$n/seed-1
	check "N=$n: short incast runs" bash "$ROOT/testbed/incast/run.sh" \
		--cc "$CC" --out "$d" --pre-us $PRE --post-us $POST --start together \
		--senders "$n" --kmod-dir "$KMOD_DIR"
	check "N=$n: CPU headroom measured and sufficient" \
		headroom_ok "$d/headroom.json"
	check "N=$n: every flow from its own host got bytes; retransmissions counted" \
		flows_and_hosts "$d" "$n"
done
check "the sweep's summary and table" sh -c "/usr/bin/python3 \
	'$ROOT/testbed/incast-sweep/summarize.py' '$OUT' > '$OUT/table.txt' &&
	grep -c '^$CC' '$OUT/table.txt'"
for n in 10 50; do
	check "N=$n: the incast flows' Jain index and stall agree with goodput.csv" \
		incast_figures_agree "$OUT/$CC/n-$n/seed-1"
done
check "summary.json: a point per fan-in, the floors of each" sweep_summary
check "the plots: queue and throughput against the fan-in" sh -c "
	/usr/bin/python3 '$ROOT/testbed/incast-sweep/plot.py' --results '$OUT' \
		--out '$OUT/incast-sweep.png' &&
	test -s '$OUT/incast-sweep.png' &&
	test -s '$OUT/incast-sweep_throughput.png' && echo 2 plots"
check "the report's section" sh -c "/usr/bin/python3 '$ROOT/testbed/report.py' \
	--results '$BASE' --out '$BASE' > /dev/null &&
	grep -c '^| $CC | [15]0 |' '$BASE/RESULTS.md' | grep -qx 2 && echo 2 rows"
check "a fan-in above 255 exits 2 with a one-line reason" bad_arg \
	bash "$ROOT/testbed/incast/run.sh" --cc cubic --out /tmp/x --senders 256

tap_done
