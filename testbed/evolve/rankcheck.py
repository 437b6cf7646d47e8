#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Do the search's short windows rank candidates like full-length runs?

    testbed/evolve/rankcheck.py [--out results/evolve] [--sample 6]
        [--jobs 2] [--seeds 1]

Takes --sample completed trials of the study in OUT (spread evenly over
their score range), runs each again on the full-length incast
(evaluate.py --full: 860 + 1300 base RTTs per case), and reports the
Spearman rank correlation between the short-window score the search used
and the full-length score, and, for a multi-objective study's trials, the
same for the in-rack incast's bytes waiting (the search's first
objective). Writes OUT/rankcheck.json and OUT/rankcheck.png.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from evaluate import case_mean  # noqa: E402


def ranks(xs):
    """Ranks, ties averaged (1-based)."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    n = len(a)
    ma, mb = sum(ra) / n, sum(rb) / n
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra)
    vb = sum((y - mb) ** 2 for y in rb)
    return cov / (va * vb) ** 0.5 if va and vb else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "evolve"))
    ap.add_argument("--sample", type=int, default=6)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seeds", default="1")
    args = ap.parse_args()
    out = os.path.abspath(args.out)
    hist = os.path.join(out, "history.csv")
    if not os.path.exists(hist):
        sys.exit("rankcheck: %s missing (run make evolve first)" % hist)
    rows = sorted(csv.DictReader(open(hist)), key=lambda r: float(r["score"]))
    if len(rows) < 3:
        sys.exit("rankcheck: need at least 3 completed trials")
    n = min(args.sample, len(rows))
    pick = [rows[round(i * (len(rows) - 1) / (n - 1))] for i in range(n)]
    pick = list({r["trial"]: r for r in pick}.values())

    def full(r):
        d = os.path.join(out, "rankcheck", "%04d" % int(r["trial"]))
        params = json.load(open(os.path.join(
            out, "trials", "%04d" % int(r["trial"]), "score.json")))["params"]
        cmd = [sys.executable, os.path.join(HERE, "evaluate.py"), "--full",
               "--out", d, "--seeds", args.seeds]
        for k, v in sorted(params.items()):
            cmd += ["--param", "%s=%s" % (k, v)]
        subprocess.run(cmd, check=True)
        res = json.load(open(os.path.join(d, "score.json")))
        return res["score"], case_mean(res, "inrack", "avg_waiting_bytes")

    with ThreadPoolExecutor(args.jobs) as ex:
        got = list(ex.map(full, pick))
    fulls = [g[0] for g in got]
    shorts = [float(r["score"]) for r in pick]
    rho = spearman(shorts, fulls)
    res = {"trials": [int(r["trial"]) for r in pick], "short": shorts,
           "full": fulls, "spearman": rho, "seeds": args.seeds}
    if all(r.get("waiting") for r in pick):
        res["short_waiting"] = [float(r["waiting"]) for r in pick]
        res["full_waiting"] = [g[1] for g in got]
        res["spearman_waiting"] = spearman(res["short_waiting"],
                                           res["full_waiting"])
    with open(os.path.join(out, "rankcheck.json"), "w") as f:
        json.dump(res, f, indent=1)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    ax.scatter(shorts, fulls)
    for t, x, y in zip(res["trials"], shorts, fulls):
        ax.annotate(str(t), (x, y), fontsize=8)
    ax.set_xlabel("short-window score (search)")
    ax.set_ylabel("full-length score")
    ax.set_title("rank correlation %.2f over %d candidates" % (rho, len(pick)))
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "rankcheck.png"), dpi=110)
    for t, s, f in zip(res["trials"], shorts, fulls):
        print("trial %4d: short %9.2f  full %9.2f" % (t, s, f))
    print("Spearman rank correlation: %.3f" % rho)
    if "spearman_waiting" in res:
        print("the same for the in-rack bytes waiting: %.3f"
              % res["spearman_waiting"])


if __name__ == "__main__":
    main()
