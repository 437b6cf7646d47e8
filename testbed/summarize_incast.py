#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize incast runs: analyze each algorithm's raw data and merge.

    testbed/summarize_incast.py RESULTS_DIR

RESULTS_DIR holds one directory per algorithm, each written by
testbed/incast.sh (params.json, headroom.json, qdisc.csv, goodput.csv,
flows.csv). For each, runs userspace-tools/bin/incast-analyze over the
incast window (incast start to end) and writes ALG/summary.json; then
RESULTS_DIR/summary.json and summary.csv (one row per algorithm) and prints
the table. Exits 1, loudly, if any run failed the CPU headroom check: its
queue would be the VM's CPU, not the switch.
"""
import os
import sys

from tblib import analyze_run, refuse_if_starved, runs, write_summary
COLUMNS = [("algorithm", "%-15s"), ("avg_throughput_mbps", "%8.2f"),
           ("link_rate_mbps", "%6d"), ("avg_queue_bytes", "%10.0f"),
           ("p99_queue_bytes", "%9d"), ("peak_queue_bytes", "%9d"),
           ("drain_time_us", "%9d"), ("combined_score", "%12.1f")]


def analyze(run):
    return analyze_run(run, "incast-analyze", lambda p: [
        "--qdisc", os.path.join(run, "qdisc.csv"),
        "--goodput", os.path.join(run, "goodput.csv"),
        "--flows", os.path.join(run, "flows.csv"),
        "--algorithm", p["algorithm"],
        "--link-mbps", str(p["rate_mbit"]),
        "--incast-us", str(p["pre_us"]),
        "--end-us", str(p["end_us"]),
        "--bdp-bytes", str(p["bdp_bytes"])])


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: summarize_incast.py RESULTS_DIR")
    res = sys.argv[1]
    rows = [analyze(os.path.join(res, d)) for d in runs(res, "summarize_incast")]
    refuse_if_starved([(r["algorithm"], r["headroom_ok"], r["headroom_mbps"],
                        2 * r["link_rate_mbps"]) for r in rows],
                      "queue")
    write_summary(res, rows, [k for k in rows[0] if k != "params"])
    print(" ".join(k for k, _ in COLUMNS))
    for r in rows:
        print(" ".join(fmt % r[k] for k, fmt in COLUMNS))


if __name__ == "__main__":
    main()
