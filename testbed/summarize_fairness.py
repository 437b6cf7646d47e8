#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize fairness runs: analyze each algorithm's raw data and merge.

    testbed/summarize_fairness.py RESULTS_DIR

RESULTS_DIR holds one directory per algorithm, each written by
testbed/fairness.sh (params.json, headroom.json, goodput.csv, flows.csv).
For each, runs userspace-tools/bin/fairness-analyze with the run's
parameters (phase length, convergence allowance settle_us, link rate; the
fair share is the goodput of R / n, i.e. R x (MTU - 52) / (MTU + 14) / n
for TCP with timestamps) and writes ALG/summary.json; then
RESULTS_DIR/summary.json and summary.csv, one row per algorithm and phase:
algorithm, phase, flows, jain_index, convergence_time_us (phases where a
flow starts; -1 never within 10% of its fair share; null otherwise),
all_fair_time_us, rate_stddev_mbps, throughput_mbps; and prints the table.
Exits 1, loudly, if any run failed the CPU headroom check: its rates would
be the VM's CPU, not the link's.
"""
import os
import subprocess
import sys

from tblib import analyze_run, refuse_if_starved, runs, write_summary
ROW = ["algorithm", "phase", "flows", "jain_index", "convergence_time_us",
       "all_fair_time_us", "rate_stddev_mbps", "throughput_mbps"]
COLUMNS = [("algorithm", "%-15s"), ("phase", "%5d"), ("flows", "%5d"),
           ("jain_index", "%10.4f"), ("convergence_time_us", "%19s"),
           ("all_fair_time_us", "%16s"), ("rate_stddev_mbps", "%16.2f"),
           ("throughput_mbps", "%15.2f")]


def analyze(run):
    # The fair share is in goodput: R less the TCP/IP/Ethernet headers.
    return analyze_run(run, "fairness-analyze", lambda p: [
        "--goodput", os.path.join(run, "goodput.csv"),
        "--flows", os.path.join(run, "flows.csv"),
        "--algorithm", p["algorithm"],
        "--link-mbps", str(p["rate_mbit"]),
        "--goodput-ratio", "%.6f" % ((p["mtu"] - 52) / (p["mtu"] + 14)),
        "--phase-us", str(p["phase_us"]),
        "--phases", str(p["phases"]),
        "--settle-us", str(p["settle_us"])])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: summarize_fairness.py RESULTS_DIR")
    res = sys.argv[1]
    try:
        algs = [analyze(os.path.join(res, d))
                for d in runs(res, "summarize_fairness")]
    except subprocess.CalledProcessError as e:
        sys.exit("summarize_fairness: %s failed (exit %d)"
                 % (" ".join(e.cmd[:1]), e.returncode))
    refuse_if_starved([(a["algorithm"], a["headroom_ok"], a["headroom_mbps"],
                        2 * a["link_mbps"]) for a in algs], "rates")
    rows = [dict(zip(ROW, [a["algorithm"]] + [ph[k] for k in ROW[1:]]))
            for a in algs for ph in a["phases"]]
    write_summary(res, rows, ROW)
    p = algs[0]["params"]
    print("# fairness: %d flows, phases of %d base RTTs (%d us), "
          "statistics after %d us of each, fair share %.2f Mbit/s / n"
          % (p["flows"], p["phase_rtts"], p["phase_us"], p["settle_us"],
             algs[0]["phases"][0]["fair_share_mbps"]))
    print(" ".join(k for k, _ in COLUMNS))
    for r in rows:
        print(" ".join(fmt % ("-" if r[k] is None else r[k])
                       for k, fmt in COLUMNS))


if __name__ == "__main__":
    main()
