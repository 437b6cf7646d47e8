#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize coexistence runs: analyze each case, aggregate the seeds.

    testbed/coexist/summarize.py RESULTS_DIR

RESULTS_DIR/ALG/seed-S/ holds one run of testbed/coexist/run.sh (params.json,
headroom.json and a directory per case), as testbed/run.sh coexist --seeds
lays them out. Per case, over [from_us, duration_us]:
  share, share_peer   each side's part of the bytes received (the goodput
                      of --cc's flows and of the peer's over all of it)
  fair_share          --cc's part if every flow had the same (shared: A /
                      (A + B)) or if each class had its weight (isolated)
  share_ratio         share / fair_share (1: fair; 0.01: starved)
  link_fraction, link_fraction_peer  each side's goodput over what the
                      link carries (R x (MTU - 52) / (MTU + 14))
  jain_index          Jain's index of every flow's goodput
  retrans_segs, retrans_segs_peer  each side's retransmitted segments
  and the bottleneck's queue, throughput and drops (incast-analyze over
  the same window: avg/p99/peak of the backlog and of the bytes waiting);
  isolated cases also class_avg_waiting_bytes and class_avg_queue_bytes,
  the queue of --cc's own class, and class_queue_vs_alone, its average
  backlog over that of the alone case of the same flows, buffer and seed.
Writes ALG/seed-S/summary.json (its cases), then RESULTS_DIR/summary.json:
  runs    one row per algorithm, seed and case
  cases   one row per algorithm and case: seeds, n_seeds and each figure's
          spread over the seeds {mean, sd, min, max, n}
RESULTS_DIR/summary.csv: the cases, M_mean, M_sd, M_min, M_max of the
figures. Prints the table. Exits 1, loudly, if a run failed its CPU
headroom check.
"""
import argparse
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from tblib import (link_args, order_key, pm, print_table,  # noqa: E402
                   refuse_if_starved, seed_runs, spread_columns,
                   spread_fields, tool, write_summary)
QUEUE_ORDER = ["shared", "isolated", "alone"]
# The table's figures and their formats.
COLUMNS = [("share", "%.3f"), ("share_ratio", "%.2f"),
           ("link_fraction", "%.3f"), ("link_fraction_peer", "%.3f"),
           ("jain_index", "%.3f"), ("avg_waiting_bytes", "%.0f"),
           ("avg_queue_bytes", "%.0f"), ("class_avg_queue_bytes", "%.0f"),
           ("class_queue_vs_alone", "%.2f"), ("retrans_segs", "%.0f"),
           ("retrans_segs_peer", "%.0f")]
QUEUE_FIGURES = ["avg_throughput_mbps", "avg_queue_bytes", "p99_queue_bytes",
                 "peak_queue_bytes", "avg_waiting_bytes", "p99_waiting_bytes",
                 "peak_waiting_bytes", "drops"]


def queue(case, qdisc, p, c):
    """incast-analyze's figures of one queue's samples over the window."""
    out = subprocess.run(
        [tool("incast-analyze"), "--qdisc", os.path.join(case, qdisc),
         "--goodput", os.path.join(case, "goodput.csv"),
         "--flows", os.path.join(case, "flows.csv"),
         "--algorithm", p["algorithm"], "--link-mbps", str(p["rate_mbps"]),
         "--incast-us", str(p["from_us"]), "--end-us", str(p["duration_us"]),
         "--bdp-bytes", str(p["bdp_bytes"])] + link_args(p),
        check=True, capture_output=True, text=True).stdout
    q = json.loads(out)
    return {k: q[k] for k in QUEUE_FIGURES}


def flow_bytes(case, t0, t1):
    """Each flow's goodput bytes over [t0, t1] (goodput.csv: the last
    total at or before each end)."""
    at0, at1 = {}, {}
    with open(os.path.join(case, "goodput.csv")) as f:
        for r in csv.DictReader(f):
            t, i, b = (int(r["time_us"]), int(r["flow_id"]),
                       int(r["bytes_total"]))
            if t <= t0:
                at0[i] = b
            if t <= t1:
                at1[i] = b
    with open(os.path.join(case, "flows.csv")) as f:
        ids = [int(r["id"]) for r in csv.DictReader(f)]
    return {i: at1.get(i, 0) - at0.get(i, 0) for i in ids}


def analyze_case(case, p):
    with open(os.path.join(case, "case.json")) as f:
        c = json.load(f)
    a = c["flows_cc"]
    t0, t1 = p["from_us"], p["duration_us"]
    got = flow_bytes(case, t0, t1)
    ours = sum(b for i, b in got.items() if i < a)
    total = sum(got.values())
    rates = list(got.values())
    goodput_mbps = (p["rate_mbps"] * (p["mtu"] - 52) / (p["mtu"] + 14))
    to_frac = 8.0 / (t1 - t0) / goodput_mbps
    with open(os.path.join(case, "retrans.csv")) as f:
        rtx = {int(r["id"]): int(r["retrans_segs"]) for r in csv.DictReader(f)}
    if c["queue"] == "isolated":
        w = [int(x) for x in c["weights"].split(":")]
        fair = w[0] / (w[0] + w[1])
    else:
        fair = a / (a + c["flows_peer"])
    share = ours / total if total else 0.0
    r = {"case": c["case"], "queue": c["queue"], "peer": c["peer"],
         "mix": "%d:%d" % (a, c["flows_peer"]), "buffer": c["buffer"],
         "buffer_bytes": c["buffer_bytes"], "ecn_k_bytes": c["ecn_k_bytes"],
         "share": round(share, 4),
         "share_peer": round(1 - share, 4) if total else 0.0,
         "fair_share": round(fair, 4), "share_ratio": round(share / fair, 4),
         "link_fraction": round(ours * to_frac, 4),
         "link_fraction_peer": round((total - ours) * to_frac, 4),
         "jain_index": round(sum(rates) ** 2 /
                             (len(rates) * sum(x * x for x in rates)), 4)
         if any(rates) else 0.0,
         "retrans_segs": sum(v for i, v in rtx.items() if i < a),
         "retrans_segs_peer": sum(v for i, v in rtx.items() if i >= a)}
    if c["queue"] == "alone":
        for k in ("share_peer", "share_ratio", "link_fraction_peer",
                  "retrans_segs_peer"):
            r[k] = None
    r.update(queue(case, "qdisc.csv", p, c))
    if c["queue"] == "isolated":
        q = queue(case, "qdisc-class-ours.csv", p, c)
        r["class_avg_waiting_bytes"] = q["avg_waiting_bytes"]
        r["class_avg_queue_bytes"] = q["avg_queue_bytes"]
    return r


def analyze(run):
    """The cases of one run, in the order it ran them."""
    with open(os.path.join(run, "params.json")) as f:
        p = json.load(f)
    with open(os.path.join(run, "headroom.json")) as f:
        h = json.load(f)
    rows = []
    for d in sorted(os.listdir(run)):
        if os.path.isfile(os.path.join(run, d, "case.json")):
            rows.append(analyze_case(os.path.join(run, d), p))
    # An isolated class's queue against the same flows alone.
    alone = {(r["mix"].split(":")[0], r["buffer"]): r["avg_queue_bytes"]
             for r in rows if r["queue"] == "alone"}
    for r in rows:
        b = alone.get((r["mix"].split(":")[0], r["buffer"]))
        if r["queue"] == "isolated" and b:
            r["class_queue_vs_alone"] = round(r["class_avg_queue_bytes"] / b, 3)
    with open(os.path.join(run, "summary.json"), "w") as f:
        json.dump({"cases": rows, "headroom_mbps": h["unlimited_mbps"],
                   "headroom_ok": h["ok"], "params": p}, f, indent=1)
    return rows, h, p


def case_key(r):
    return (order_key(r["algorithm"]), QUEUE_ORDER.index(r["queue"]),
            order_key(r["peer"]), r["buffer"], r["mix"])


def aggregate(rows):
    """One row per algorithm and case: the spread of every figure."""
    groups = {}
    for r in rows:
        groups.setdefault((r["algorithm"], r["case"]), []).append(r)
    out = []
    for (alg, case), mine in groups.items():
        row = {k: mine[0][k] for k in ("algorithm", "case", "queue", "peer",
                                       "mix", "buffer", "buffer_bytes",
                                       "fair_share")}
        row["seeds"] = [r["seed"] for r in mine]
        row["n_seeds"] = len(mine)
        out.append(spread_fields(row, mine))
    out.sort(key=case_key)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", metavar="RESULTS_DIR",
                    help="ALG/seed-S/ runs of testbed/coexist/run.sh")
    res = ap.parse_args().results
    rows, checks = [], []
    for alg, seed, run in seed_runs(res, "coexist/summarize.py"):
        cases, h, p = analyze(run)
        for r in cases:
            r["algorithm"], r["seed"] = alg, seed
        rows += cases
        checks.append(("%s seed %d" % (alg, seed), h["ok"],
                       h["unlimited_mbps"], 2 * p["rate_mbps"]))
    refuse_if_starved(checks, "shares")
    rows.sort(key=lambda r: case_key(r) + (r["seed"],))
    cases = aggregate(rows)
    seeds = sorted({r["seed"] for r in rows})
    metrics = [k for k, _ in COLUMNS] + [
        k for k in QUEUE_FIGURES + ["share_peer", "class_avg_waiting_bytes"]
        if k not in dict(COLUMNS)]
    csv_rows = []
    for a in cases:
        c = {k: a[k] for k in ("algorithm", "queue", "peer", "mix", "buffer",
                               "fair_share", "n_seeds")}
        c["seeds"] = " ".join(str(s) for s in a["seeds"])
        c.update(spread_columns(a, metrics))
        csv_rows.append(c)
    write_summary(res, csv_rows, list(csv_rows[0]),
                  doc={"experiment": "coexist", "seeds": seeds,
                       "cases": cases, "runs": rows})
    print("# coexist: mean ± sd over the seeds (%s); share: of the bytes"
          " received, --cc's side" % ", ".join(str(s) for s in seeds))
    print_table(["algorithm", "queue", "peer", "mix", "buffer"] +
                [k for k, _ in COLUMNS],
                [[a["algorithm"], a["queue"], a["peer"], a["mix"],
                  a["buffer"]] + [pm(a.get(k), f) for k, f in COLUMNS]
                 for a in cases])


if __name__ == "__main__":
    main()
