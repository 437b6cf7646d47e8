#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize fairness runs: analyze each run's raw data, aggregate the
seeds, check the goals.

    testbed/fairness/summarize.py RESULTS_DIR

RESULTS_DIR/ALG/seed-S/ holds one run of testbed/fairness/run.sh (params.json,
headroom.json, goodput.csv, flows.csv), as testbed/run.sh fairness --seeds
lays them out. For each, runs userspace-tools/bin/fairness-analyze with
the run's parameters (phase length, convergence allowance settle_us, link
rate, base RTT; the fair share is the goodput of R / n, i.e. R x (MTU - 52)
/ (MTU + 14) / n for TCP with timestamps) and writes ALG/seed-S/
summary.json. Then RESULTS_DIR/summary.json:
  runs        one row per algorithm, seed and phase: flows, jain_index,
              convergence_time_us (phases where a flow starts; -1 never
              within 10% of its fair share; null otherwise),
              all_fair_time_us, rate_stddev_mbps, throughput_mbps,
              starved_us, starved_rtts, starved_flow (the longest time a
              flow's rate stayed below 0.7 of its fair share after the
              allowance, in us and base RTTs, and that flow)
  phases      one row per algorithm and phase: seeds, n_seeds and, for
              each of those figures, its spread over the seeds {mean, sd,
              min, max, n} (sd: the sample standard deviation, null for
              one seed; -1 times are left out and counted in "never")
  starve_fraction, smooth_intervals, tolerance  the analyzer's (0.7, the
              averages over K intervals, the convergence tolerance)
  algorithms  one row per algorithm, the goals over every seed:
              jain_goal (Jain >= 0.98 in every multi-flow phase: holds,
              min and where) and starvation_goal (no flow below 0.7 x its
              fair share for more than 50 base RTTs after the allowance:
              holds, the longest and where)
RESULTS_DIR/summary.csv: one row per algorithm and phase, M_mean, M_sd,
M_min, M_max of the figures. Prints the table ("mean ± sd" over the
seeds), each seed's Jain index per phase, and whether each goal holds.
Exits 1, loudly, if any run failed the CPU headroom check: its rates would
be the VM's CPU, not the link's.
"""
import argparse
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from tblib import (analyze_run, pm, print_table, refuse_if_starved,  # noqa: E402
                   seed_runs, spread, spread_columns, write_summary)
JAIN_GOAL = 0.98	# in every multi-flow phase of every seed
STARVE_GOAL_RTTS = 50	# the longest below STARVE_FRACTION of the share
STARVE_FRACTION = 0.7
# Per-phase figures, their formats, and whether -1 means never.
FIGURES = [("jain_index", "%.4f", False),
           ("convergence_time_us", "%.0f", True),
           ("all_fair_time_us", "%.0f", True),
           ("rate_stddev_mbps", "%.2f", False),
           ("throughput_mbps", "%.2f", False),
           ("starved_us", "%.0f", False),
           ("starved_rtts", "%.1f", False)]
TABLE = ["jain_index", "convergence_time_us", "all_fair_time_us",
         "rate_stddev_mbps", "throughput_mbps", "starved_rtts"]


def analyze(run):
    # The fair share is in goodput: R less the TCP/IP/Ethernet headers.
    return analyze_run(run, "fairness-analyze", lambda p: [
        "--goodput", os.path.join(run, "goodput.csv"),
        "--flows", os.path.join(run, "flows.csv"),
        "--algorithm", p["algorithm"],
        "--link-mbps", str(p["rate_mbps"]),
        "--goodput-ratio", "%.6f" % ((p["mtu"] - 52) / (p["mtu"] + 14)),
        "--phase-us", str(p["phase_us"]),
        "--phases", str(p["phases"]),
        "--settle-us", str(p["settle_us"]),
        "--starve-fraction", str(STARVE_FRACTION),
        "--rtt-us", str(p["rtt_us"])])


def goals(alg, rows):
    """The two goals of @alg over its per-seed phase @rows."""
    multi = [r for r in rows if r["flows"] > 1]
    worst = min(multi, key=lambda r: (r["jain_index"], r["seed"]),
                default={"jain_index": None, "seed": None, "phase": None})
    starved = max(rows, key=lambda r: (r["starved_rtts"], r["starved_us"],
                                       -r["seed"]))
    seeds = sorted({r["seed"] for r in rows})
    return {
        "algorithm": alg, "seeds": seeds, "n_seeds": len(seeds),
        "jain_goal": {
            "threshold": JAIN_GOAL,
            "holds": all(r["jain_index"] >= JAIN_GOAL for r in multi),
            "min": worst["jain_index"], "seed": worst["seed"],
            "phase": worst["phase"]},
        "starvation_goal": {
            "fraction": STARVE_FRACTION, "limit_rtts": STARVE_GOAL_RTTS,
            "holds": starved["starved_rtts"] <= STARVE_GOAL_RTTS,
            "max_rtts": starved["starved_rtts"],
            "max_us": starved["starved_us"], "seed": starved["seed"],
            "phase": starved["phase"], "flow": starved["starved_flow"]}}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("results", metavar="RESULTS_DIR",
                    help="ALG/seed-S/ runs of testbed/fairness/run.sh")
    res = ap.parse_args().results
    runs = []
    try:
        for alg, seed, run in seed_runs(res, "fairness/summarize.py"):
            runs.append((alg, seed, analyze(run)))
    except subprocess.CalledProcessError as e:
        sys.exit("fairness/summarize.py: %s failed (exit %d)"
                 % (" ".join(e.cmd[:1]), e.returncode))
    refuse_if_starved([("%s seed %d" % (alg, seed), a["headroom_ok"],
                        a["headroom_mbps"], 2 * a["link_mbps"])
                       for alg, seed, a in runs], "rates")
    keys = ["flows"] + [k for k, _, _ in FIGURES] + ["starved_flow"]
    rows = [dict([("algorithm", alg), ("seed", seed),
                  ("phase", ph["phase"])] + [(k, ph[k]) for k in keys])
            for alg, seed, a in runs for ph in a["phases"]]
    algs = []
    for alg, _, _ in runs:
        if alg not in algs:
            algs.append(alg)
    phases, csv_rows, goal = [], [], []
    for alg in algs:
        mine = [r for r in rows if r["algorithm"] == alg]
        goal.append(goals(alg, mine))
        for k in sorted({r["phase"] for r in mine}):
            ph = [r for r in mine if r["phase"] == k]
            row = {"algorithm": alg, "phase": k, "flows": ph[0]["flows"],
                   "seeds": [r["seed"] for r in ph], "n_seeds": len(ph)}
            for m, _, never in FIGURES:
                row[m] = spread([r[m] for r in ph], never)
            phases.append(row)
            c = {x: row[x] for x in ("algorithm", "phase", "flows",
                                     "n_seeds")}
            c.update(spread_columns(row, [m for m, _, _ in FIGURES]))
            csv_rows.append(c)
    seeds = sorted({r["seed"] for r in rows})
    p = runs[0][2]["params"]
    write_summary(res, csv_rows, list(csv_rows[0]), doc={
        "experiment": "fairness", "seeds": seeds,
        "starve_fraction": STARVE_FRACTION,
        "smooth_intervals": runs[0][2]["smooth_intervals"],
        "tolerance": runs[0][2]["tolerance"], "algorithms": goal,
        "phases": phases, "runs": rows})

    print("# fairness: %d flows, phases of %d base RTTs (%d us), "
          "statistics after %d us of each, fair share %.2f Mbit/s / n; "
          "mean ± sd over the seeds (%s)"
          % (p["flows"], p["phase_rtts"], p["phase_us"], p["settle_us"],
             runs[0][2]["phases"][0]["fair_share_mbps"],
             ", ".join(str(s) for s in seeds)))
    fmt = {m: f for m, f, _ in FIGURES}
    print_table(["algorithm", "phase", "flows", "seeds"] + TABLE,
                [[r["algorithm"], str(r["phase"]), str(r["flows"]),
                  str(r["n_seeds"])] + [pm(r[m], fmt[m]) for m in TABLE]
                 for r in phases])
    print("# Jain's index per phase, each seed")
    print_table(["algorithm", "seed"] + ["phase %d" % ph["phase"]
                                         for ph in runs[0][2]["phases"]],
                [[alg, str(seed)] + ["%.4f" % ph["jain_index"]
                                     for ph in a["phases"]]
                 for alg, seed, a in runs])
    print("# goals: Jain >= %.2f in every multi-flow phase; no flow below "
          "%.1f x its fair share for more than %d base RTTs after the "
          "allowance" % (JAIN_GOAL, STARVE_FRACTION, STARVE_GOAL_RTTS))
    for g in goal:
        j, s = g["jain_goal"], g["starvation_goal"]
        n = "%d seed%s" % (g["n_seeds"], "" if g["n_seeds"] == 1 else "s")
        print("%s: Jain >= %.2f in every multi-flow phase of every seed "
              "(%s): %s (min %.4f, seed %d phase %d)"
              % (g["algorithm"], JAIN_GOAL, n, "yes" if j["holds"] else "NO",
                 j["min"], j["seed"], j["phase"]))
        print("%s: longest starvation %.1f RTTs (goal <= %d, %s): %s%s"
              % (g["algorithm"], s["max_rtts"], STARVE_GOAL_RTTS, n,
                 "yes" if s["holds"] else "NO",
                 "" if s["flow"] is None else " (seed %d phase %d, flow %d)"
                 % (s["seed"], s["phase"], s["flow"])))


if __name__ == "__main__":
    main()
