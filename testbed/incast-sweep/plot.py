#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Plots of an incast sweep, from its summary.json.

    testbed/incast-sweep/plot.py --results DIR --out PNG

DIR/summary.json is testbed/incast-sweep/summarize.py's. PNG: the average
and p99 queue (the bytes waiting) against the fan-in N, log-log, one colour
an algorithm (average solid, p99 dashed; a bar the seeds' min-max), with
the law's floors drawn in: N + 1 packets in flight and the queue they
leave beyond the BDP, and the N at which N + 1 flows at the law's floors
fill the link (min_rate_ppm each, and β each: under a standing queue the
law's W = W/Γ + β tends to β). <stem>_throughput.png: throughput (fraction of the link)
and Jain's index over the incast flows against N. A point whose guest
was CPU-bound is hollow.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from plotlib import label, style, summary_args  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402 (after plotlib selects Agg)

PROG = "incast-sweep/plot.py"


def series(points, alg, key):
    """(N, mean, min, max, cpu_bound) of @key for @alg, by N."""
    out = []
    for p in points:
        if p["algorithm"] == alg and p.get(key):
            a = p[key]
            out.append((p["fanin"], a["mean"], a["min"], a["max"],
                        p["cpu_bound"]))
    return sorted(out)


def draw(ax, xs, pts, colour, marker, ls, lab, scale=1.0):
    if not xs:
        return
    ax.plot(xs, [p[1] / scale for p in pts], ls, color=colour, lw=1.6,
            label=lab)
    for p in pts:
        ax.plot([p[0], p[0]], [p[2] / scale, p[3] / scale], "-",
                color=colour, lw=0.8)
        ax.plot(p[0], p[1] / scale, marker, color=colour, ms=6,
                mfc="none" if p[4] else colour)


def main():
    a, doc = summary_args(PROG, __doc__)
    pts, floors = doc["points"], doc["floors"]
    algs = list(dict.fromkeys(p["algorithm"] for p in pts))
    rate = pts[0]["rate_mbps"]

    fig, ax = plt.subplots(figsize=(8, 5.5))
    for i, alg in enumerate(algs):
        c, m = style(alg, i)
        for key, ls, suffix in (("avg_waiting_bytes", "-", "average"),
                                ("p99_waiting_bytes", "--", "p99")):
            s = series(pts, alg, key)
            # A queue of 0 has no place on a log axis: drawn at 1 B.
            s = [(n, max(v, 1), max(lo, 1), max(hi, 1), b)
                 for n, v, lo, hi, b in s]
            draw(ax, [p[0] for p in s], s, c, m, ls,
                 "%s, %s" % (label(alg), suffix), 1000)
    fn = [f["fanin"] for f in floors]
    ax.plot(fn, [f["one_packet_bytes"] / 1000 for f in floors], ":",
            color="k", lw=1.2, label="N + 1 packets in flight")
    q = [(f["fanin"], f["one_packet_queue_bytes"] / 1000) for f in floors
         if f["one_packet_queue_bytes"] > 0]
    if q:
        ax.plot(*zip(*q), "-.", color="0.4", lw=1.2,
                label="their queue beyond the BDP")
    for key, text in (("min_rate_ppm", "min-rate floors"),
                      ("beta_ppm", "β floors")):
        n_fill = 1e6 / doc["law"][key] - 1
        ax.axvline(n_fill, color="0.5", lw=0.8, ls="--")
        ax.text(n_fill, 0.02, "%s fill the link" % text, va="bottom",
                ha="right", rotation=90, fontsize=7, color="0.3",
                transform=ax.get_xaxis_transform())
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xticks(fn)
    ax.set_xticklabels([str(n) for n in fn])
    ax.set_xlabel("fan-in N (incast senders, besides the long flow)")
    ax.set_ylabel("queue, bytes waiting (KB)")
    seeds = doc["seeds"]
    ax.set_title("Incast sweep at %g Mbit/s: queue against the fan-in "
                 "(seed%s %s)" % (rate, "s" if len(seeds) > 1 else "",
                                  ", ".join(str(s) for s in seeds)))
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2, loc="upper left")
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    plt.close(fig)

    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 6.5), sharex=True)
    for i, alg in enumerate(algs):
        c, m = style(alg, i)
        s = series(pts, alg, "avg_throughput_mbps")
        draw(ax1, [p[0] for p in s], s, c, m, "-", label(alg), rate / 100)
        s = series(pts, alg, "incast_jain_index")
        draw(ax2, [p[0] for p in s], s, c, m, "-", label(alg))
    ax1.set_ylabel("throughput (% of the link)")
    ax2.set_ylabel("Jain's index, incast flows")
    ax2.set_ylim(0, 1.02)
    ax2.axhline(0.95, color="0.5", lw=0.8, ls=":")
    ax2.set_xscale("log")
    ax2.set_xticks(fn)
    ax2.set_xticklabels([str(n) for n in fn])
    ax2.set_xlabel("fan-in N (incast senders, besides the long flow)")
    ax1.set_title("Incast sweep: throughput and fairness against the fan-in")
    for ax in (ax1, ax2):
        ax.grid(True, which="both", alpha=0.3)
    ax1.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    stem, ext = os.path.splitext(a.out)
    fig.savefig(stem + "_throughput" + ext, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
