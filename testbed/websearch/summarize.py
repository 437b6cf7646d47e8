#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize web-search runs: FCT slowdowns per algorithm, load and bucket.

    testbed/websearch/summarize.py RESULTS_DIR

RESULTS_DIR/ALG/load-L/ holds one run of testbed/websearch/run.sh (params.json,
headroom.json, manifest.csv, flows.csv, ...). For each, runs
userspace-tools/bin/fct-analyze (writing fct.json and per_flow.csv there),
then writes RESULTS_DIR/summary.json: one row per algorithm, load and size
bucket (short < 100 KB, medium [100 KB, 1 MB), long >= 1 MB, all, and the
finer buckets fine0..fine10) with flows, completed, unfinished,
p50/p99/p999_slowdown and p999_meaningful (>= 1000 completed flows), and
RESULTS_DIR/summary.csv; prints the coarse table. Exits 1, loudly, if any
run failed the CPU headroom check (its queues would be the VM's CPU), and
warns about unfinished flows and p99.9 values that mean nothing.
ALG/lone/ runs (websearch.sh --lone: flows alone on the empty fabric) are
tabulated as the validation of the ideal FCT: RESULTS_DIR/ideal_check.json.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from tblib import order_key, refuse_if_starved, tool, write_summary  # noqa: E402

ANALYZE = tool("fct-analyze")
KEYS = ["algorithm", "load_pct", "bucket", "lo_bytes", "hi_bytes", "flows",
        "completed", "unfinished", "median_size_bytes", "p50_slowdown",
        "p99_slowdown", "p999_slowdown", "p999_meaningful", "max_slowdown",
        "mean_slowdown"]


def analyze(run):
    with open(os.path.join(run, "params.json")) as f:
        p = json.load(f)
    out = os.path.join(run, "fct.json")
    subprocess.run([ANALYZE, "--flows", os.path.join(run, "flows.csv"),
                    "--manifest", os.path.join(run, "manifest.csv"),
                    "--algorithm", p["algorithm"],
                    "--load", str(p["load_pct"]),
                    "--link-mbps", str(p["rate_mbps"]),
                    "--prop-rtt-rack-us", str(p["prop_rtt_rack_us"]),
                    "--prop-rtt-cross-us", str(p["prop_rtt_cross_us"]),
                    "--mtu", str(p["mtu"]), "--json", out,
                    "--per-flow", os.path.join(run, "per_flow.csv")],
                   check=True)
    with open(out) as f:
        s = json.load(f)
    with open(os.path.join(run, "headroom.json")) as f:
        s["headroom"] = json.load(f)
    s["params"] = p
    return s


def lone_check(res):
    out = []
    for alg in sorted(os.listdir(res)):
        run = os.path.join(res, alg, "lone")
        if not os.path.isfile(os.path.join(run, "params.json")):
            continue
        analyze(run)
        import csv
        for r in csv.DictReader(open(os.path.join(run, "per_flow.csv"))):
            out.append({"algorithm": alg, "bytes": int(r["bytes"]),
                        "cross_leaf": r["cross"] == "1",
                        "fct_us": int(r["fct_us"]),
                        "ideal_us": float(r["ideal_us"]),
                        "slowdown": float(r["slowdown"]),
                        "status": r["status"]})
    if not out:
        return
    with open(os.path.join(res, "ideal_check.json"), "w") as f:
        json.dump(out, f, indent=1)
    print("ideal FCT check (flows alone):")
    print("%-15s %9s %5s %9s %9s %7s" % ("algorithm", "bytes", "path",
                                          "fct_us", "ideal_us", "ratio"))
    for r in out:
        print("%-15s %9d %5s %9d %9.0f %7.3f%s" % (
            r["algorithm"], r["bytes"], "cross" if r["cross_leaf"] else
            "rack", r["fct_us"], r["ideal_us"], r["slowdown"],
            "" if r["status"] == "done" else "  " + r["status"]))


def runs(res):
    for alg in sorted(os.listdir(res)):
        d = os.path.join(res, alg)
        if not os.path.isdir(d):
            continue
        for load in sorted(os.listdir(d)):
            run = os.path.join(d, load)
            if (load.startswith("load-") and
                    os.path.isfile(os.path.join(run, "params.json"))):
                yield run


def main():
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", metavar="RESULTS_DIR",
                    help="ALG/load-L/ runs of testbed/websearch/run.sh")
    res = ap.parse_args().results
    if not os.path.isdir(res):
        sys.exit("websearch/summarize.py: %s is not a directory" % res)
    found = list(runs(res))
    lone_check(res)
    if not found:
        sys.exit("websearch/summarize.py: no runs (ALG/load-L/params.json) "
                 "under %s" % res)
    results = [analyze(r) for r in found]
    results.sort(key=lambda s: order_key(s["algorithm"]) + (s["load_pct"],))
    refuse_if_starved([("%s at %g%%" % (s["algorithm"], s["load_pct"]),
                        s["headroom"]["ok"], s["headroom"]["unlimited_mbps"],
                        s["headroom"]["required_mbps"]) for s in results],
                      "queues")
    rows = []
    for s in results:
        for b in s["buckets"] + s["fine_buckets"]:
            r = {"algorithm": s["algorithm"], "load_pct": s["load_pct"]}
            r.update(b)
            r["headroom_mbps"] = s["headroom"]["unlimited_mbps"]
            r["offered_mbps"] = s["headroom"]["offered_mbps"]
            r["run_flows"] = s["flows"]
            r["run_unfinished"] = s["unfinished"]
            rows.append(r)
    write_summary(res, rows, KEYS + [k for k in rows[0] if k not in KEYS])

    def fmt(v):
        return "%8s" % "-" if v is None else "%8.2f" % v
    print("%-15s %4s %-6s %6s %5s %8s %8s %8s" % (
        "algorithm", "load", "bucket", "flows", "unfin", "p50", "p99",
        "p99.9"))
    for r in rows:
        if r["bucket"].startswith("fine"):
            continue
        print("%-15s %3g%% %-6s %6d %5d %s %s %s%s" % (
            r["algorithm"], r["load_pct"], r["bucket"], r["flows"],
            r["unfinished"], fmt(r["p50_slowdown"]), fmt(r["p99_slowdown"]),
            fmt(r["p999_slowdown"]),
            "" if r["p999_meaningful"] else "  (p99.9: < 1000 flows, "
            "not meaningful)"))
    unf = [(s["algorithm"], s["load_pct"], s["unfinished"], s["flows"])
           for s in results if s["unfinished"]]
    for a, l, u, n in unf:
        print("WARNING: %s at %g%%: %d of %d flows unfinished at the end "
              "(counted, not in the percentiles)" % (a, l, u, n))
    print("summary: %s" % os.path.join(res, "summary.json"))


if __name__ == "__main__":
    main()
