#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Compare the incast summaries of two backends, run by run.

    testbed/mininet/compare.py NETNS_RESULTS MININET_RESULTS \\
        [--algorithm NAME] [--thr-mbps T] [--queue-pct P] [--queue-bytes B]

Each RESULTS directory is summarized already (incast/summarize.py wrote its
summary.json). For every (algorithm, seed) in both: the throughput must
agree within T Mbit/s (default 3, 3% of the 100 Mbit/s link) and the
average queue within P percent of the netns figure or B bytes, whichever
is larger (default 15% or 1500 B, one packet). Prints one
line per run compared, with the p99 queue of both for information (one
tail sample of a short run: not compared); exits 1 if a run is outside,
or none was compared.
Why these tolerances: docs/TESTBED.md, "The Mininet backend".
"""
import argparse
import json
import os
import sys


def runs(res):
    path = os.path.join(res, "summary.json")
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("compare: %s: %s" % (path, e))
    return {(r["algorithm"], r["seed"]): r for r in doc["runs"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("netns")
    ap.add_argument("mininet")
    ap.add_argument("--algorithm")
    ap.add_argument("--thr-mbps", type=float, default=3.0)
    ap.add_argument("--queue-pct", type=float, default=15.0)
    ap.add_argument("--queue-bytes", type=float, default=1500.0)
    a = ap.parse_args()
    n, m = runs(a.netns), runs(a.mininet)
    keys = sorted(k for k in n if k in m and
                  (a.algorithm is None or k[0] == a.algorithm))
    if not keys:
        sys.exit("compare: no (algorithm, seed) in both %s and %s"
                 % (a.netns, a.mininet))
    bad = 0
    for k in keys:
        x, y = n[k], m[k]
        dthr = y["avg_throughput_mbps"] - x["avg_throughput_mbps"]
        dq = y["avg_queue_bytes"] - x["avg_queue_bytes"]
        qtol = max(a.queue_pct / 100 * x["avg_queue_bytes"], a.queue_bytes)
        ok = abs(dthr) <= a.thr_mbps and abs(dq) <= qtol
        bad += not ok
        print("%s seed %d: throughput %.2f vs %.2f Mbit/s (%+.2f, within "
              "%g), avg queue %.0f vs %.0f B (%+.1f%%, within %.0f B), "
              "p99 queue %s vs %s B%s"
              % (k[0], k[1], x["avg_throughput_mbps"],
                 y["avg_throughput_mbps"], dthr, a.thr_mbps,
                 x["avg_queue_bytes"], y["avg_queue_bytes"],
                 100 * dq / max(1, x["avg_queue_bytes"]), qtol,
                 x.get("p99_queue_bytes"), y.get("p99_queue_bytes"),
                 "" if ok else ": OUTSIDE"))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
