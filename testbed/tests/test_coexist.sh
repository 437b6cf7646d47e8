#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# End-to-end check of the coexistence pipeline on short cases, inside a
# booted kernel: two congestion controls on one star, per-flow algorithm,
# the shared queue, the isolated classes (DSCP marking, drr), the alone
# baseline, the analysis and the summary. Checks that the pipeline works
# and that isolation gives the weights, not the experiment's figures.
#
#   testbed/tests/test_coexist.sh KMOD_DIR
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KMOD_DIR=${1:?usage: test_coexist.sh KMOD_DIR}
# A kernel's own: make check runs two kernels' guests at once.
OUT=$ROOT/build/test-coexist/$(uname -r)
RUN=$ROOT/testbed/coexist/run.sh
SHORT=(--duration-us 800000 --from-us 300000)

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

# Every case of a run is there, with its files, and each flow ran the
# algorithm of its side: --cc's from hosts 1..A, the peer's after.
cases_complete() { # dir want_cases
	/usr/bin/python3 - "$@" <<'PY'
import csv, json, os, sys
d, want = sys.argv[1], int(sys.argv[2])
p = json.load(open(d + "/params.json"))
errs, n = [], 0
for c in sorted(os.listdir(d)):
    cd = os.path.join(d, c)
    if not os.path.isfile(os.path.join(cd, "case.json")):
        continue
    n += 1
    k = json.load(open(os.path.join(cd, "case.json")))
    need = ["flows.csv", "goodput.csv", "qdisc.csv", "retrans.csv"]
    if k["queue"] == "isolated":
        need += ["qdisc-class-ours.csv", "qdisc-class-peer.csv"]
    errs += ["%s: no %s" % (c, f) for f in need
             if not os.path.isfile(os.path.join(cd, f))]
    rows = list(csv.DictReader(open(os.path.join(cd, "flows.csv"))))
    want_cc = [p["algorithm"]] * k["flows_cc"] + [k["peer"]] * k["flows_peer"]
    got = [r["cc"] for r in rows]
    if got != want_cc:
        errs.append("%s: flows ran %s, want %s" % (c, got, want_cc))
    if any(int(r["bytes_received"]) <= 0 for r in rows):
        errs.append("%s: a flow got no bytes" % c)
print("%d cases" % n)
if n != want:
    errs.append("%d cases, want %d" % (n, want))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# In an isolated case, --cc's class carried exactly its flows' packets:
# the bytes its leaf sent are their bytes received plus the headers
# (1514 B frames for 1448 B of payload), within 3% (retransmissions, the
# handshakes, data in flight at the end).
class_bytes() { # case_dir
	/usr/bin/python3 - "$1" <<'PY'
import csv, json, sys
d = sys.argv[1]
k = json.load(open(d + "/case.json"))
rows = list(csv.DictReader(open(d + "/flows.csv")))
def payload(side):
    return sum(int(r["bytes_received"]) for r in rows
               if (int(r["id"]) < k["flows_cc"]) == side)
errs = []
for side, f in ((True, "qdisc-class-ours.csv"), (False, "qdisc-class-peer.csv")):
    q = list(csv.DictReader(open(d + "/" + f)))
    sent = int(q[-1]["sent_bytes"]) - int(q[0]["sent_bytes"])
    want = payload(side) * 1514 / 1448
    print("%s: sent %d B, its flows' frames %d B" % (f, sent, want))
    if not 0.97 * want <= sent <= 1.03 * want:
        errs.append("%s sent %d B, want %d +- 3%%" % (f, sent, want))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# One figure of one case of the summary (python expression on the row r)
# holds.
case_holds() { # summary_json case expr
	/usr/bin/python3 - "$@" <<'PY'
import json, sys
path, case, expr = sys.argv[1:]
rows = [r for r in json.load(open(path))["runs"] if r["case"] == case]
if len(rows) != 1:
    sys.exit("%d rows of case %s" % (len(rows), case))
r = rows[0]
print("%s: share %.3f, peer %.3f, jain %.3f, queue %s B, retrans %s / %s" % (
    case, r["share"], r["share_peer"] or 0, r["jain_index"],
    r["avg_queue_bytes"], r["retrans_segs"], r["retrans_segs_peer"]))
sys.exit(0 if eval(expr) else "does not hold: " + expr)
PY
}

rm -rf "$OUT"
mkdir -p "$OUT"
A=$OUT/theta_powertcp/seed-1 B=$OUT/cubic/seed-2
check "theta_powertcp against cubic: shared, isolated and alone, 1:1, 4 BDP" \
	bash "$RUN" --cc theta_powertcp --out "$A" --kmod-dir "$KMOD_DIR" \
	--peers cubic --mixes 1:1 --buffers 4bdp "${SHORT[@]}"
check "theta_powertcp: CPU headroom measured and sufficient" \
	headroom_ok "$A/headroom.json"
check "theta_powertcp: params.json has the common schema" \
	params_common "$A/params.json" coexist theta_powertcp
check "theta_powertcp: every case, each flow with its side's algorithm" \
	cases_complete "$A" 3
check "isolated: each class carried its own side's packets" \
	class_bytes "$A/isolated-cubic-1to1-4bdp"
# Both loss-based: each class full, so the weights decide. 1 flow
# against 4 in classes weighted 3:1 gets three quarters.
check "cubic against reno, isolated 1:4 weighted 3:1" \
	bash "$RUN" --cc cubic --out "$B" --kmod-dir "$KMOD_DIR" --seed 2 \
	--peers reno --queues isolated --isolate-mixes 1:4 --weights 3:1 \
	--buffers 4bdp --no-headroom "${SHORT[@]}"
check "cubic: every case, each flow with its side's algorithm" \
	cases_complete "$B" 1
check "summary written for both" sh -c "/usr/bin/python3 \
	'$ROOT/testbed/coexist/summarize.py' '$OUT' > '$OUT/table.txt' &&
	grep -c . '$OUT/table.txt'"
S=$OUT/summary.json
check "summary.json: every case has every field" summary_fields --rows \
	runs "$S" 4 algorithm seed case queue peer mix share share_peer \
	fair_share share_ratio link_fraction jain_index avg_queue_bytes \
	avg_waiting_bytes retrans_segs drops
check "isolation: weights 3:1 give the one cubic flow 3/4 of the link" \
	case_holds "$S" isolated-reno-1to4-4bdp \
	'abs(r["share"] - 0.75) <= 0.05 and r["link_fraction"] + r["link_fraction_peer"] >= 0.95'
check "shared: the shares add up to all bytes, the link is full" \
	case_holds "$S" shared-cubic-1to1-4bdp \
	'abs(r["share"] + r["share_peer"] - 1) < 1e-3 and r["link_fraction"] + r["link_fraction_peer"] >= 0.9'
check "shared 4 BDP: cubic overflows the buffer, drops are retransmitted" \
	case_holds "$S" shared-cubic-1to1-4bdp \
	'r["drops"] > 0 and r["retrans_segs"] + r["retrans_segs_peer"] > 0'
check "alone: theta_powertcp fills the link on its own" \
	case_holds "$S" alone-1-4bdp 'r["link_fraction"] >= 0.95'
check "isolated: theta_powertcp's class gets its weight, within 10%" \
	case_holds "$S" isolated-cubic-1to1-4bdp \
	'abs(r["share_ratio"] - 1) <= 0.1 and r.get("class_queue_vs_alone") is not None'
check "the plot is drawn" /usr/bin/python3 "$ROOT/testbed/coexist/plot.py" \
	--results "$OUT" --out "$OUT/coexist.png"
check "a bad mix exits 2 with a one-line reason" bad_arg \
	bash "$RUN" --cc cubic --out /tmp/x --mixes 0:1
check "a peer that is --cc itself exits 2 with a one-line reason" bad_arg \
	bash "$RUN" --cc cubic --out /tmp/x --peers reno,cubic
check "an unknown queue exits 2 with a one-line reason" bad_arg \
	bash "$RUN" --cc cubic --out /tmp/x --queues shared,fifo

tap_done
