#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize incast runs: analyze each run's raw data, aggregate the seeds.

    testbed/incast/summarize.py RESULTS_DIR

RESULTS_DIR/ALG/seed-S/ holds one run of testbed/incast/run.sh (params.json,
headroom.json, qdisc.csv, goodput.csv, flows.csv, retrans.csv), as testbed/run.sh
incast --seeds lays them out. For each, runs userspace-tools/bin/
incast-analyze over the incast window (incast start to end) and writes
ALG/seed-S/summary.json. Then RESULTS_DIR/summary.json:
  runs        one row per algorithm and seed: the analyzer's figures,
              headroom_mbps, headroom_ok, params (the run's params.json)
  algorithms  one row per algorithm: seeds, n_seeds and, for every figure,
              its spread over the seeds: {mean, sd, min, max, n} (sd: the
              sample standard deviation, null for one seed; drain_time_us
              leaves out the seeds that never drained and counts them in
              "never")
RESULTS_DIR/summary.csv: one row per algorithm, M_mean, M_sd, M_min, M_max
of the table's figures. Prints the table, "mean ± sd" over the seeds.
Exits 1, loudly, if any run failed the CPU headroom check: its queue would
be the VM's CPU, not the switch.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from tblib import (analyze_run, link_args, pm, print_table,  # noqa: E402
                   refuse_if_starved, seed_runs, spread_columns,
                   spread_fields, write_summary)
# The table's figures and their formats.
COLUMNS = [("avg_throughput_mbps", "%.2f"), ("link_rate_mbps", "%.0f"),
           ("avg_queue_bytes", "%.0f"), ("p99_queue_bytes", "%.0f"),
           ("peak_queue_bytes", "%.0f"), ("avg_waiting_bytes", "%.0f"),
           ("p99_waiting_bytes", "%.0f"), ("drain_time_us", "%.0f"),
           ("combined_score", "%.1f"), ("waiting_score", "%.1f")]
NEVER = {"drain_time_us", "query_fct_p50_us", "query_fct_p99_us",
         "query_fct_max_us"}	# -1: never drained, none done
# With --queries: their completion times (-1 where none finished).
QUERY_COLUMNS = [("queries_done", "%.0f"), ("query_fct_p50_us", "%.0f"),
                 ("query_fct_p99_us", "%.0f"), ("query_fct_max_us", "%.0f")]


def analyze(run):
    """One run's figures; the senders' retransmissions where the run
    counted them (retrans.csv)."""
    retrans = os.path.join(run, "retrans.csv")
    return analyze_run(run, "incast-analyze", lambda p: [
        "--qdisc", os.path.join(run, "qdisc.csv"),
        "--goodput", os.path.join(run, "goodput.csv"),
        "--flows", os.path.join(run, "flows.csv"),
        "--algorithm", p["algorithm"],
        "--link-mbps", str(p["rate_mbps"]),
        "--incast-us", str(p["pre_us"]),
        "--end-us", str(p["end_us"]),
        "--bdp-bytes", str(p["bdp_bytes"])] +
        (["--retrans", retrans] if os.path.isfile(retrans) else []) +
        link_args(p))


def aggregate(rows):
    """One row per algorithm: the spread of every numeric figure."""
    algs = []
    for r in rows:
        if r["algorithm"] not in algs:
            algs.append(r["algorithm"])
    out = []
    for a in algs:
        mine = [r for r in rows if r["algorithm"] == a]
        out.append(spread_fields({"algorithm": a,
                                  "seeds": [r["seed"] for r in mine],
                                  "n_seeds": len(mine)}, mine, NEVER))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", metavar="RESULTS_DIR",
                    help="ALG/seed-S/ runs of testbed/incast/run.sh")
    res = ap.parse_args().results
    rows = []
    for alg, seed, run in seed_runs(res, "incast/summarize.py"):
        r = analyze(run)
        r["algorithm"], r["seed"] = alg, seed
        rows.append(r)
    refuse_if_starved([("%s seed %d" % (r["algorithm"], r["seed"]),
                        r["headroom_ok"], r["headroom_mbps"],
                        2 * r["link_rate_mbps"]) for r in rows],
                      "queue")
    algs = aggregate(rows)
    seeds = sorted({r["seed"] for r in rows})
    cols = COLUMNS + (QUERY_COLUMNS if any(r.get("queries") for r in rows)
                      else [])
    metrics = [k for k, _ in cols] + ["headroom_mbps"]
    csv_rows = []
    for a in algs:
        c = {"algorithm": a["algorithm"], "n_seeds": a["n_seeds"],
             "seeds": " ".join(str(s) for s in a["seeds"])}
        c.update(spread_columns(a, metrics))
        csv_rows.append(c)
    write_summary(res, csv_rows, list(csv_rows[0]),
                  doc={"experiment": "incast", "seeds": seeds,
                       "algorithms": algs, "runs": rows})
    print("# incast: mean ± sd over the seeds (%s)"
          % ", ".join(str(s) for s in seeds))
    print_table(["algorithm", "seeds"] + [k for k, _ in cols],
                [[a["algorithm"], str(a["n_seeds"])] +
                 [f % a[k]["mean"] if k == "link_rate_mbps" else
                  pm(a.get(k), f) for k, f in cols] for a in algs])


if __name__ == "__main__":
    main()
