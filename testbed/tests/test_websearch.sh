#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end check of the web-search pipeline on a tiny run, inside a
# booted kernel: leaf-spine topology, module load, generated workload,
# traffic, FCT analysis, summary. Checks that the pipeline works and is
# self-consistent, not the paper's numbers.
#
#   testbed/tests/test_websearch.sh KMOD_DIR
#
# FLOWS (default 60) flows at LOAD percent (default 50). To stay within
# two minutes under vm-run --icount, flow sizes come from the web-search
# CDF cut at 1 MB (the CDF conditioned on size <= 1 MB): the full CDF's
# long flows carry 97% of its bytes, and a run costs its bytes.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KMOD_DIR=${1:?usage: test_websearch.sh KMOD_DIR}
# A kernel's own: make check runs two kernels' guests at once.
OUT=$ROOT/build/test-websearch/$(uname -r)
FLOWS=${FLOWS:-60}
LOAD=${LOAD:-50}
LATE_US=5000

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

rm -rf "$OUT"
mkdir -p "$OUT"
awk '!/^#/ && NF == 2 && $1 <= 1000000 { print $1, $2 / 0.7 }' \
	"$ROOT/testbed/websearch/cdf.txt" > "$OUT/cdf_1mb.txt"

# Every flow connect()ed within LATE_US of its start, and its handshake
# took at least (nearly) its propagation RTT.
on_schedule() { # run dir
	/usr/bin/python3 - "$1" "$LATE_US" <<'PY'
import csv, json, sys
d, late = sys.argv[1], int(sys.argv[2])
p = json.load(open(d + "/params.json"))
man = {r["id"]: r for r in csv.DictReader(open(d + "/manifest.csv"))}
bad, worst = [], 0
for r in csv.DictReader(open(d + "/flows.csv")):
    m = man[r["id"]]
    s, st, c = int(r["start_us"]), int(r["started_us"]), int(r["connect_us"])
    prop = p["prop_rtt_cross_us" if m["src_leaf"] != m["dst_leaf"]
             else "prop_rtt_rack_us"]
    worst = max(worst, st - s)
    if st < s or st - s > late or c < s + 0.9 * prop:
        bad.append((r["id"], s, st, c))
print("%d flows, latest connect() %d us after its start" % (len(man), worst))
sys.exit("off schedule: %s" % bad[:5] if bad else 0)
PY
}

# Every flow completed (or is counted unfinished by the analyzer), with the
# manifest's size, all bytes received.
complete_sizes() { # run dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
man = {r["id"]: int(r["bytes"]) for r in csv.DictReader(open(d + "/manifest.csv"))}
fl = list(csv.DictReader(open(d + "/flows.csv")))
s = json.load(open(d + "/fct.json"))
errs = []
if sorted(r["id"] for r in fl) != sorted(man):
    errs.append("flow ids differ from the manifest")
done = [r for r in fl if r["status"] == "done"]
for r in fl:
    if int(r["bytes"]) != man[r["id"]]:
        errs.append("flow %s: %s bytes, manifest %d" % (r["id"], r["bytes"], man[r["id"]]))
for r in done:
    if int(r["bytes_received"]) != man[r["id"]]:
        errs.append("flow %s: received %s of %d" % (r["id"], r["bytes_received"], man[r["id"]]))
if s["completed"] != len(done) or s["completed"] + s["unfinished"] != len(fl):
    errs.append("analyzer counts %d + %d vs %d done of %d" % (
        s["completed"], s["unfinished"], len(done), len(fl)))
print("%d of %d done, %d unfinished" % (len(done), len(fl), s["unfinished"]))
sys.exit("; ".join(errs[:5]) if errs else 0)
PY
}

# No flow beat its ideal FCT by more than 10%.
fct_ideal() { # run dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1] + "/per_flow.csv"))
        if r["status"] == "done"]
low = [r for r in rows if int(r["fct_us"]) < 0.9 * float(r["ideal_us"])]
print("min FCT/ideal %.3f over %d flows" % (
    min(int(r["fct_us"]) / float(r["ideal_us"]) for r in rows), len(rows)))
sys.exit("below 0.9 x ideal: %s" % [(r["id"], r["bytes"], r["fct_us"],
         r["ideal_us"]) for r in low[:5]] if low else 0)
PY
}

# The analyzer's percentiles, recomputed from flows.csv and the manifest.
percentiles_agree() { # run dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, math, sys
d = sys.argv[1]
p = json.load(open(d + "/params.json"))
s = json.load(open(d + "/fct.json"))
man = {r["id"]: r for r in csv.DictReader(open(d + "/manifest.csv"))}
mss = p["mtu"] - 52
sd = []
for r in csv.DictReader(open(d + "/flows.csv")):
    if r["status"] != "done":
        continue
    m, size = man[r["id"]], int(r["bytes"])
    prop = p["prop_rtt_cross_us" if m["src_leaf"] != m["dst_leaf"]
             else "prop_rtt_rack_us"]
    n = -(-(size + 8) // mss)
    ideal = 1.5 * prop + max(0, size + 8 + 66 * n - 2 * p["mtu"]) * 8 / p["rate_mbps"]
    sd.append((size, (int(r["completion_us"]) - int(r["start_us"])) / ideal))
def rank(v, q):
    v = sorted(v)
    return v[max(1, math.ceil(q * len(v) - 1e-9)) - 1]
errs, n = [], 0
for b in s["buckets"] + s["fine_buckets"]:
    v = [x for size, x in sd if size >= b["lo_bytes"] and
         (b["hi_bytes"] < 0 or size < b["hi_bytes"])]
    if len(v) != b["completed"]:
        errs.append("%s: %d vs %d flows" % (b["bucket"], len(v), b["completed"]))
        continue
    for q, k in ((0.5, "p50"), (0.99, "p99"), (0.999, "p999")):
        if not v:
            if b[k + "_slowdown"] is not None:
                errs.append("%s %s should be null" % (b["bucket"], k))
            continue
        n += 1
        if abs(rank(v, q) - b[k + "_slowdown"]) > 1e-3 * rank(v, q):
            errs.append("%s %s: %.4f vs %.4f" % (b["bucket"], k, rank(v, q),
                        b[k + "_slowdown"]))
    if b["p999_meaningful"] != (len(v) >= 1000):
        errs.append("%s: p999_meaningful wrong" % b["bucket"])
print("%d percentiles agree" % n)
sys.exit("; ".join(errs[:5]) if errs else 0)
PY
}

# Each sampled port carried at least the payload of the flows through it
# (host 5's NIC what host 5 sent, leaf 2's port to host 5 what it
# received, leaf 1's uplink and the spine's port to leaf 1 the cross-leaf
# flows from and to leaf 1), its counters never fall, and the samples
# span the run.
queues_carry() { # run dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, os, sys
d = sys.argv[1]
m = list(csv.DictReader(open(os.path.join(d, "manifest.csv"))))
want = {
    "h5": sum(int(r["bytes"]) for r in m if r["src"] == "5"),
    "l2-h5": sum(int(r["bytes"]) for r in m if r["dst"] == "5"),
    "l1-up": sum(int(r["bytes"]) for r in m
                 if r["src_leaf"] == "1" and r["dst_leaf"] != "1"),
    "s1": sum(int(r["bytes"]) for r in m
              if r["dst_leaf"] == "1" and r["src_leaf"] != "1"),
}
last = max(int(r["start_us"]) for r in m)
errs = []
for port, payload in want.items():
    rows = list(csv.DictReader(open(os.path.join(d, "queue-%s.csv" % port))))
    sent = [int(r["sent_bytes"]) for r in rows]
    if any(b < a for a, b in zip(sent, sent[1:])):
        errs.append("%s: sent bytes fall" % port)
    if not rows or int(rows[-1]["time_us"]) < last:
        errs.append("%s: samples end before the last arrival" % port)
    if not payload or sent[-1] < payload:
        errs.append("%s: sent %d of the flows' %d B" % (port, sent[-1], payload))
    print("%s: %d samples, %d B sent, flows %d B" % (port, len(rows), sent[-1], payload))
sys.exit("; ".join(errs) if errs else 0)
PY
}

for cc in theta_powertcp cubic; do
	run=$OUT/$cc/load-$LOAD
	ports=()
	[ "$cc" = cubic ] || ports=(--sample-ports 'h5,l2-h5,l1-up,s1')
	check "$cc: tiny web-search run" bash "$ROOT/testbed/websearch/run.sh" \
		--cc "$cc" --loads "$LOAD" --flows "$FLOWS" --out "$OUT/$cc" \
		--cdf "$OUT/cdf_1mb.txt" --drain-us 5000000 \
		--kmod-dir "$KMOD_DIR" "${ports[@]}"
	check "$cc: CPU headroom measured and sufficient" \
		headroom_ok "$run/headroom.json"
	check "$cc: params.json has the common schema" \
		params_common "$run/params.json" websearch "$cc"
	check "$cc: flows start on schedule" on_schedule "$run"
done
check "theta_powertcp: qdisc_stats.txt has every switch's qdiscs" sh -c "
	grep -c '^== .*_\(l[12]\|s1\)\$' '$OUT/theta_powertcp/load-$LOAD/qdisc_stats.txt' |
	grep -qx 3 && grep -c '^qdisc tbf' \
	'$OUT/theta_powertcp/load-$LOAD/qdisc_stats.txt'"
check "theta_powertcp: --sample-ports: each port carries its flows" \
	queues_carry "$OUT/theta_powertcp/load-$LOAD"
check "websearch/summarize.py writes the summary" sh -c "/usr/bin/python3 \
	'$ROOT/testbed/websearch/summarize.py' '$OUT' > '$OUT/table.txt' &&
	grep -c . '$OUT/table.txt'"
for cc in theta_powertcp cubic; do
	run=$OUT/$cc/load-$LOAD
	check "$cc: flows complete (or counted), sizes match the manifest" \
		complete_sizes "$run"
	check "$cc: FCT >= 0.9 x ideal for every flow" fct_ideal "$run"
	check "$cc: analyzer percentiles agree with a recomputation" \
		percentiles_agree "$run"
done
check "summary.json has every required field" summary_fields \
	"$OUT/summary.json" '' algorithm load_pct bucket flows completed \
	unfinished p50_slowdown p99_slowdown p999_slowdown p999_meaningful
check "summary.json has every bucket of both algorithms" /usr/bin/python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))
got = {(r["algorithm"], r["bucket"]) for r in rows}
want = {(a, b) for a in ("theta_powertcp", "cubic")
        for b in ("short", "medium", "long", "all")}
sys.exit("missing %s" % sorted(want - got) if want - got else 0)' \
	"$OUT/summary.json"
check "websearch.sh: a bad argument exits 2 with a one-line reason" \
	bad_arg bash "$ROOT/testbed/websearch/run.sh" --cc cubic --out /tmp/x \
	--load abc
check "websearch.sh: a port not in the fabric exits 2 with a one-line reason" \
	bad_arg bash "$ROOT/testbed/websearch/run.sh" --cc cubic --out /tmp/x \
	--sample-ports h5,l1-h5
check "websearch-gen: a bad argument exits 2 with a one-line reason" \
	bad_arg "$ROOT/userspace-tools/bin/websearch-gen" --load 150
check "fct-analyze: a bad argument exits 2 with a one-line reason" \
	bad_arg "$ROOT/userspace-tools/bin/fct-analyze" --link-mbps -3

tap_done
