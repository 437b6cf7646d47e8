#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The fault matrix in one figure: per kernel, each case's goodput of every
algorithm relative to cubic's in the same case (bars), a cross on a case
that failed, and the longest gap without progress against the case's
stall bound (dots). From DIR/summary.json (testbed/faults/summarize.py).

    /usr/bin/python3 testbed/faults/plot.py --results DIR --out DIR/faults.png
"""
import argparse
import json
import os
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
try:
    import tblib  # noqa: E402
    COLOUR = {n: tblib.registry()[n]["colour"] for n in tblib.registry()}
except Exception:  # the registry's colours, if it reads
    COLOUR = {}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    s = json.load(open(os.path.join(a.results, "summary.json")))
    by = {(r["kernel"], r["cc"], r["case"]): r for r in s["results"]}
    ks, algs, cases = s["kernels"], s["algorithms"], s["cases"]
    fig, axes = plt.subplots(2 * len(ks), 1, figsize=(max(10, 0.45 * len(cases)), 5 * len(ks)),
                             squeeze=False)
    w = 0.8 / len(algs)
    for i, k in enumerate(ks):
        ax, gx = axes[2 * i][0], axes[2 * i + 1][0]
        for j, n in enumerate(algs):
            xs, ys, gs, bad = [], [], [], []
            for x, c in enumerate(cases):
                r = by.get((k, n, c))
                cub = by.get((k, "cubic", c))
                if not r:
                    continue
                base = cub["goodput_mbps"] if cub and cub["goodput_mbps"] > 0 else None
                xs.append(x + (j - (len(algs) - 1) / 2) * w)
                ys.append(r["goodput_mbps"] / base if base else 0)
                gs.append(r["max_gap_us"] / max(r["stall_bound_us"], 1))
                if not r["ok"]:
                    bad.append((xs[-1], ys[-1]))
            col = COLOUR.get(n)
            ax.bar(xs, ys, w, label=n, color=col)
            gx.scatter(xs, gs, label=n, color=col, s=18)
            for bx, by_ in bad:
                ax.plot(bx, by_ + 0.05, "kx", ms=8)
        ax.axhline(1, color="k", lw=0.5)
        ax.set_ylabel("goodput / cubic's")
        ax.set_title("%s: goodput relative to cubic in the same case (x: case failed)" % k)
        ax.set_xticks(range(len(cases)))
        ax.set_xticklabels(cases, rotation=60, ha="right", fontsize=8)
        ax.legend(fontsize=8)
        gx.axhline(1, color="r", lw=0.5)
        gx.set_yscale("log")
        gx.set_ylabel("longest gap / stall bound")
        gx.set_title("%s: longest time without progress, relative to the case's bound" % k)
        gx.set_xticks(range(len(cases)))
        gx.set_xticklabels(cases, rotation=60, ha="right", fontsize=8)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print("wrote %s" % a.out)


if __name__ == "__main__":
    main()
