#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize an incast sweep: analyze each run, aggregate the seeds per
algorithm and fan-in.

    testbed/incast-sweep/summarize.py RESULTS_DIR

RESULTS_DIR/ALG/n-N/seed-S/ holds one run of testbed/incast/run.sh
--senders N (params.json, headroom.json, qdisc.csv, goodput.csv,
flows.csv, retrans.csv), as testbed/run.sh incast-sweep lays them out.
Each is analyzed as testbed/incast/summarize.py does (incast-analyze over
the incast window; ALG/n-N/seed-S/summary.json). Then
RESULTS_DIR/summary.json:
  runs    one row per algorithm, fan-in and seed: the analyzer's figures,
          headroom_mbps, headroom_ok, params
  points  one row per algorithm and fan-in: fanin, rate_mbps, seeds,
          n_seeds, cpu_bound (a seed failed its CPU headroom check: the
          guest could not carry N flows at twice R, its queue may be the
          CPU's) and every figure's spread over the seeds
          {mean, sd, min, max, n}
  law     the law's parameters the floors are of: min_rate_ppm and
          beta_ppm of the first of our modules' runs (the defaults if none)
  floors  the law's floors per fan-in, the long flow counted: N + 1 flows
          at the rate floor (min_rate_ppm of the line rate each), at β
          (beta_ppm each: under a standing queue W = W/Γ + β tends to β),
          N + 1 packets in flight (a window of one packet each) and the
          queue they leave, what exceeds the BDP
RESULTS_DIR/summary.csv: the points, M_mean, M_sd, M_min, M_max of the
table's figures. Prints the table, "mean ± sd" over the seeds. A point
whose guest ran out of CPU is marked, not refused: the others stand.
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from tblib import (order_key, pm, print_table, seed_runs,  # noqa: E402
                   spread_columns, spread_fields, summarizer, write_summary)
PROG = "incast-sweep/summarize.py"
INCAST = summarizer("incast")
# The table's figures and their formats.
COLUMNS = [("avg_throughput_mbps", "%.2f"), ("avg_waiting_bytes", "%.0f"),
           ("p99_waiting_bytes", "%.0f"), ("peak_queue_bytes", "%.0f"),
           ("drain_time_us", "%.0f"), ("drops", "%.0f"),
           ("retrans_segs", "%.0f"), ("incast_jain_index", "%.3f"),
           ("incast_stall_max_us", "%.0f"), ("headroom_mbps", "%.0f")]
# The law's floors, where no run of ours records its parameters: θ-PowerTCP's
# and PowerTCP-evo's defaults (kmod/powertcp_params.h).
LAW_DEFAULTS = {"min_rate_ppm": 4000, "beta_ppm": 6000}


def sweep_runs(res):
    """(algorithm, fan-in, seed, directory) of every ALG/n-N/seed-S/ with a
    params.json under @res, in the registry's order, then N, then S: each
    ALG/ is to tblib's seed_runs() what an incast's results are."""
    if not os.path.isdir(res):
        sys.exit("%s: %s: not a directory" % (PROG, res))
    found = []
    for alg in sorted(os.listdir(res)):
        if alg.startswith("_") or not os.path.isdir(os.path.join(res, alg)):
            continue
        for n, seed, run in seed_runs(os.path.join(res, alg), PROG):
            m = re.fullmatch(r"n-([0-9]+)", n)
            if m:
                found.append((alg, int(m.group(1)), seed, run))
    found.sort(key=lambda r: order_key(r[0]) + (r[1], r[2]))
    return found


def law_of(rows):
    """min_rate_ppm and beta_ppm of the first run of a module that has
    them (params.json's module.params), else LAW_DEFAULTS."""
    for r in rows:
        mp = ((r["params"].get("module") or {}).get("params") or {})
        if all(k in mp for k in LAW_DEFAULTS):
            return {k: int(mp[k]) for k in LAW_DEFAULTS}
    return dict(LAW_DEFAULTS)


def floors(fanins, p, law):
    """The law's floors at each fan-in, from one run's parameters @p."""
    r = p["rate_mbps"] / 1e6
    return [{"fanin": n, "flows": n + 1,
             "rate_floor_mbps": (n + 1) * law["min_rate_ppm"] * r,
             "beta_floor_mbps": (n + 1) * law["beta_ppm"] * r,
             "one_packet_bytes": (n + 1) * p["mtu"],
             "one_packet_queue_bytes": max(0, (n + 1) * p["mtu"] -
                                           p["bdp_bytes"])}
            for n in fanins]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", metavar="RESULTS_DIR",
                    help="ALG/n-N/seed-S/ runs of testbed/incast/run.sh")
    res = ap.parse_args().results
    rows = []
    for alg, n, seed, run in sweep_runs(res):
        r = INCAST.analyze(run)
        r["algorithm"], r["fanin"], r["seed"] = alg, n, seed
        rows.append(r)
    points = []
    for alg, n in dict.fromkeys((r["algorithm"], r["fanin"]) for r in rows):
        mine = [r for r in rows if r["algorithm"] == alg and r["fanin"] == n]
        pt = {"algorithm": alg, "fanin": n,
              "rate_mbps": mine[0]["params"]["rate_mbps"],
              "seeds": [r["seed"] for r in mine], "n_seeds": len(mine),
              "cpu_bound": not all(r["headroom_ok"] for r in mine)}
        points.append(spread_fields(pt, mine, INCAST.NEVER))
    metrics = [k for k, _ in COLUMNS]
    csv_rows = []
    for pt in points:
        c = {k: pt[k] for k in ("algorithm", "fanin", "rate_mbps",
                                "n_seeds", "cpu_bound")}
        c["seeds"] = " ".join(str(s) for s in pt["seeds"])
        c.update(spread_columns(pt, metrics))
        csv_rows.append(c)
    fanins = sorted({pt["fanin"] for pt in points})
    law = law_of(rows)
    write_summary(res, csv_rows, list(csv_rows[0]),
                  doc={"experiment": "incast-sweep", "fanins": fanins,
                       "seeds": sorted({r["seed"] for r in rows}),
                       "law": law, "points": points,
                       "floors": floors(fanins, rows[0]["params"], law),
                       "runs": rows})
    print("# incast sweep: mean ± sd over the seeds; queue figures are the "
          "bytes waiting (the backlog without the packet in service)")
    print_table(["algorithm", "N", "seeds"] + metrics,
                [[pt["algorithm"], str(pt["fanin"]) +
                  ("" if pt["rate_mbps"] == rows[0]["params"]["rate_mbps"]
                   else " @%g Mbit/s" % pt["rate_mbps"]) +
                  (" cpu-bound" if pt["cpu_bound"] else ""),
                  str(pt["n_seeds"])] +
                 [pm(pt.get(k), f) for k, f in COLUMNS] for pt in points])
    bound = ["%s N=%d" % (pt["algorithm"], pt["fanin"])
             for pt in points if pt["cpu_bound"]]
    if bound:
        print("CPU-BOUND (the guest could not move twice R without the rate "
              "limit; these queues may be the CPU's): " + ", ".join(bound))


if __name__ == "__main__":
    main()
