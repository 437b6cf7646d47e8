#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Figure-6 style plot of fairness experiments, one panel per algorithm.

    testbed/fairness/plot.py --results DIR --out PNG [--seed S] [--smooth N]
                             [--no-raw] [--title TEXT]

DIR holds one subdirectory per algorithm, named after it, and in it one
per seed, seed-S (testbed/run.sh fairness --seeds), written by
testbed/fairness/run.sh (params.json, goodput.csv) and, for the Jain index of
each phase, testbed/fairness/summarize.py (summary.json). Each panel shows
one seed, S (default: the lowest there is): the goodput of every flow over
time (Mb/s over each goodput interval, or a moving average over N of them
with --smooth N), the phase boundaries as light vertical lines, the fair
share of the active flows as a dotted staircase, and each phase's Jain
index over its statistics window (shaded before it: the convergence
allowance); with more seeds, under it the lowest and highest Jain index of
the phase over every seed. Each flow is drawn twice: faint,
its goodput over each goodput interval (the oscillation; --no-raw omits
it), and bold, a moving average over N intervals (default 8, --smooth 1
for none). Panels share both axes; algorithms in the order of
testbed/algorithms.tsv, then others.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from plotlib import label, read_csv, seeded_dirs, seeds_of  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402 (after plotlib selects Agg)
from matplotlib.transforms import offset_copy  # noqa: E402
import numpy as np
PROG = "plot_fairness.py"
# What a seed-S/ run directory must hold to be drawn.
RUN_FILES = ("goodput.csv", "params.json")


def fail(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(1)


def jains(path):
    """Jain's index per phase of the run in @path (its summary.json), or
    None."""
    try:
        with open(os.path.join(path, "summary.json")) as f:
            return [q["jain_index"] for q in json.load(f)["phases"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def load(results, seed):
    dirs, seed, every = seeded_dirs(results, RUN_FILES, seed)
    algs = []
    for d in dirs:
        have = seeds_of(os.path.join(results, d), RUN_FILES)
        if seed not in have:
            print(f"{PROG}: {d}: no seed-{seed}, left out", file=sys.stderr)
            continue
        path = os.path.join(results, d, f"seed-{seed}")
        with open(os.path.join(path, "params.json")) as f:
            p = json.load(f)
        try:
            g = read_csv(os.path.join(path, "goodput.csv"))
        except (OSError, ValueError) as e:
            fail(f"{path}/goodput.csv: {e}")
        s = None
        if os.path.isfile(os.path.join(path, "summary.json")):
            with open(os.path.join(path, "summary.json")) as f:
                s = json.load(f)
            if "phases" not in s:
                s = None
        every_j = [j for j in (jains(os.path.join(results, d, f"seed-{x}"))
                               for x in have) if j]
        algs.append(dict(name=d, p=p, g=g, s=s, every_j=every_j))
    return algs, seed, every


def flow_rates(g, fid, k):
    """(time, Mb/s) of one flow, averaged over k intervals, at the middle."""
    sel = g["flow_id"] == fid
    t, b = g["time_us"][sel], g["bytes_total"][sel]
    k = max(1, min(k, len(t) - 1))
    if len(t) < 2:
        return np.zeros(0), np.zeros(0)
    dt = t[k:] - t[:-k]
    ok = dt > 0
    return (((t[k:] + t[:-k]) / 2)[ok],
            ((b[k:] - b[:-k]) * 8)[ok] / dt[ok])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--smooth", type=int, default=8)
    ap.add_argument("--no-raw", action="store_true")
    ap.add_argument("--title")
    args = ap.parse_args()

    if not os.path.isdir(args.results):
        fail(f"{args.results}: not a directory")
    if args.smooth < 1:
        fail("--smooth: at least 1")
    algs, seed, every = load(args.results, args.seed)
    if not algs:
        fail(f"{args.results}: no algorithm subdirectories with "
             f"seed-{'S' if seed is None else seed}/params.json and "
             "goodput.csv")
    which = f"seed {seed}" + ("" if len(every) < 2 else
                              f" (of seeds {', '.join(map(str, every))})")

    n = len(algs)
    colors = plt.get_cmap("tab10").colors
    fig, axes = plt.subplots(n, 1, figsize=(11, 2.4 * n + 0.8), sharex=True,
                             sharey=True, squeeze=False)
    ymax = 0
    for ax, a in zip(axes[:, 0], algs):
        p, g, s = a["p"], a["g"], a["s"]
        ph, nph, nfl = p["phase_us"], p["phases"], p["flows"]
        mtu = p["mtu"]
        cap = p["rate_mbps"] * (mtu - 52) / (mtu + 14)
        ymax = max(ymax, p["rate_mbps"])
        for fid in range(nfl):
            c = colors[fid % len(colors)]
            if not args.no_raw and args.smooth > 1:
                t, r = flow_rates(g, fid, 1)
                ax.plot(t / 1e3, r, color=c, lw=0.6, alpha=0.3)
            t, r = flow_rates(g, fid, args.smooth)
            ax.plot(t / 1e3, r, color=c, lw=1.4, label=f"flow {fid + 1}")
        # Fair share staircase and phase boundaries.
        xs, ys = [], []
        for k in range(nph):
            active = min(k + 1, nfl, nph - k)
            xs += [k * ph / 1e3, (k + 1) * ph / 1e3]
            ys += [cap / active] * 2
            ax.axvline(k * ph / 1e3, color="0.8", lw=0.8, zorder=0)
            ax.axvspan(k * ph / 1e3, (k * ph + p["settle_us"]) / 1e3,
                       color="0.94", lw=0, zorder=-1)
        ax.axvline(nph * ph / 1e3, color="0.8", lw=0.8, zorder=0)
        ax.plot(xs, ys, color="k", ls=":", lw=1.2,
                label="fair share" if ax is axes[0, 0] else None)
        title = label(a["name"])
        many = len(a["every_j"]) > 1
        if s:
            for k, q in enumerate(s["phases"]):
                js = [j[k] for j in a["every_j"] if len(j) > k]
                rng = (f"\n[{min(js):.3f}, {max(js):.3f}]"
                       if many and js else "")
                ax.text((k + 0.5) * ph / 1e3, 1.0,
                        f"J={q['jain_index']:.3f}{rng}",
                        transform=ax.get_xaxis_transform(), ha="center",
                        va="bottom", fontsize=8, linespacing=1.1)
            title += ("   (Jain index per phase above; mean "
                      f"{np.mean([q['jain_index'] for q in s['phases']]):.3f}"
                      + (f"; [range over {len(a['every_j'])} seeds]"
                         if many else "") + ")")
        ax.set_title(title, loc="left", fontsize=10, pad=24 if many else 12)
        ax.set_ylabel("goodput (Mb/s)")
        ax.grid(alpha=0.25)
    p0 = algs[0]["p"]
    axes[0, 0].set_ylim(0, 1.08 * ymax)
    axes[0, 0].set_xlim(0, (p0["phases"] * p0["phase_us"] +
                            p0.get("tail_us", 0)) / 1e3)
    axes[-1, 0].set_xlabel(
        f"time (ms): phases of {p0['phase_rtts']} base RTTs = "
        f"{p0['phase_us'] / 1e3:g} ms (compressed; the paper's are 100 ms)\n"
        f"faint: goodput per {p0['interval_us'] / 1e3:g} ms; bold: mean of "
        f"{args.smooth}; grey: convergence allowance, not in the Jain index",
        fontsize=9)
    # On the first panel's title line, right-aligned (the title is left).
    axes[0, 0].legend(loc="lower right", fontsize=8, ncol=p0["flows"] + 1,
                      bbox_to_anchor=(1.0, 1.0), borderaxespad=0,
                      bbox_transform=offset_copy(
                          axes[0, 0].transAxes, fig=fig, units="points",
                          y=24 if len(algs[0]["every_j"]) > 1 else 12),
                      frameon=False)
    fig.suptitle((args.title + ": " if args.title else "") +
                 f"per-flow goodput, {which}", fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
