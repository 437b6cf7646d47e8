#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plot web-search slowdowns: p99.9 FCT slowdown vs flow size.

    /usr/bin/python3 testbed/websearch/plot.py --results DIR [--out PNG]
        [--percentile p999|p99|p50]

Reads DIR/summary.json (testbed/websearch/summarize.py): one panel per
load, one line per algorithm over the fine size buckets (x: the bucket's
median flow size, log; y: slowdown, log). Points whose bucket has fewer
than 1000 completed flows (p99.9 not meaningful) are drawn hollow.
"""
import sys
import argparse
import json
import os

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from plotlib import label, order_key, style  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402 (after plotlib selects Agg)
from matplotlib import ticker
NAMES = {"p999": "p99.9", "p99": "p99", "p50": "p50"}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--out")
    ap.add_argument("--percentile", default="p999", choices=sorted(NAMES))
    a = ap.parse_args()
    rows = json.load(open(os.path.join(a.results, "summary.json")))
    key = a.percentile + "_slowdown"
    fine = [r for r in rows if r["bucket"].startswith("fine")]
    loads = sorted({r["load_pct"] for r in fine})
    algs = sorted({r["algorithm"] for r in fine}, key=order_key)
    fig, axes = plt.subplots(1, len(loads), figsize=(max(4.6 * len(loads), 7.5), 4.4),
                             sharey=True, squeeze=False)
    for ax, load in zip(axes[0], loads):
        for i, alg in enumerate(algs):
            pts = sorted((r["median_size_bytes"], r[key], r["p999_meaningful"],
                          r["completed"])
                         for r in fine if r["load_pct"] == load and
                         r["algorithm"] == alg and r[key] is not None)
            if not pts:
                continue
            color, marker = style(alg, i)
            ax.plot([p[0] for p in pts], [p[1] for p in pts], color=color,
                    label=label(alg), lw=1.5)
            ok = a.percentile != "p999"
            for x, y, m, _ in pts:
                full = ok or m
                ax.plot([x], [y], marker=marker, color=color, ms=6,
                        mfc=color if full else "white", ls="none")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title("load %g%%" % load)
        ax.set_xlabel("flow size (bytes, bucket median)")
        ax.grid(True, which="both", alpha=0.3)
        ax.axhline(1, color="black", lw=0.8)
        ax.yaxis.set_major_locator(ticker.LogLocator(subs=(1, 2, 5)))
        ax.yaxis.set_major_formatter(ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(ticker.NullFormatter())
    axes[0][0].set_ylabel("%s FCT slowdown" % NAMES[a.percentile])
    axes[0][0].legend(fontsize=8)
    if a.percentile == "p999":
        fig.text(0.5, 0.005, "hollow: < 1000 flows in the bucket; "
                 "p99.9 is then its maximum, not a percentile",
                 ha="center", fontsize=8)
    fig.suptitle("Web search on the leaf-spine testbed: %s FCT slowdown"
                 % NAMES[a.percentile])
    fig.tight_layout(rect=(0, 0.03, 1, 0.95))
    out = a.out or os.path.join(a.results, "websearch.png")
    fig.savefig(out, dpi=110)
    print(out)


if __name__ == "__main__":
    main()
