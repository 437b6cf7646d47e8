#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Figure-2 style plot of incast experiments, one column per algorithm.

    testbed/incast/plot.py --results DIR --out PNG [--seed S] [--t0-us T0]
                           [--window-us W] [--title TEXT] [--smooth N]

DIR holds one subdirectory per algorithm, named after it, and in it one
per seed, seed-S (testbed/run.sh incast --seeds), with qdisc.csv
(bottleneck qdisc samples), goodput.csv, flows.csv and summary.json (the
output of incast-analyze). The time series are of one seed: S (default:
the lowest there is), said in the figure. Top row: bottleneck queue (KB,
log scale); bottom row: dequeue rate (Mb/s, from sent_bytes over N
samples, default 5); time in ms relative to the incast start T0 (--t0-us,
else summary.json's window_start_us), over [-W/4, 3W/4]. Also writes
<stem>_cdf.png: the CDF of the queue length after the incast, all
algorithms on one axes, seed S bold and every other seed thin.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from plotlib import label, read_csv, seeded_dirs, seeds_of, style  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402 (after plotlib selects Agg)
import numpy as np
PROG = "incast/plot.py"
# What a seed-S/ run directory must hold to be drawn.
RUN_FILES = ("qdisc.csv",)


def fail(msg):
    print(f"{PROG}: {msg}", file=sys.stderr)
    sys.exit(1)


def load_run(path, d, t0_arg):
    """One run: its queue samples, summary.json, T0 and end."""
    try:
        q = read_csv(os.path.join(path, "qdisc.csv"))
    except (OSError, ValueError) as e:
        fail(f"{path}/qdisc.csv: {e}")
    if len(q["time_us"]) < 2:
        fail(f"{path}/qdisc.csv: fewer than 2 samples")
    summ = {}
    if os.path.isfile(os.path.join(path, "summary.json")):
        with open(os.path.join(path, "summary.json")) as f:
            summ = json.load(f)
    t0 = t0_arg if t0_arg is not None else summ.get("window_start_us")
    if t0 is None:
        fail(f"{d}: no --t0-us and no window_start_us in summary.json")
    end = summ.get("window_end_us", q["time_us"][-1])
    return dict(q=q, s=summ, t0=float(t0), end=end)


def load(results, t0_arg, seed):
    """One dict per algorithm subdirectory with seed-S/qdisc.csv, in the
    registry's order (testbed/algorithms.tsv): seed @seed (default: the
    lowest of any algorithm) and, in "others", every other seed. Returns
    (algorithms, the seed, every seed)."""
    dirs, seed, every = seeded_dirs(results, RUN_FILES, seed)
    algs = []
    for d in dirs:
        path = os.path.join(results, d)
        have = seeds_of(path, RUN_FILES)
        if seed not in have:
            print(f"{PROG}: {d}: no seed-{seed}, left out", file=sys.stderr)
            continue
        a = load_run(os.path.join(path, f"seed-{seed}"), d, t0_arg)
        a["name"] = d
        a["others"] = [load_run(os.path.join(path, f"seed-{s}"), d, t0_arg)
                       for s in have if s != seed]
        algs.append(a)
    return algs, seed, every


def rate_mbps(t, sent, k):
    """Dequeue rate over k samples, at the middle of each span."""
    k = max(1, min(k, len(t) - 1))
    dt = t[k:] - t[:-k]
    ok = dt > 0
    return ((t[k:] + t[:-k])[ok] / 2,
            ((sent[k:] - sent[:-k]) * 8)[ok] / dt[ok])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int)
    ap.add_argument("--t0-us", type=float)
    ap.add_argument("--window-us", type=float)
    ap.add_argument("--title")
    ap.add_argument("--smooth", type=int, default=5)
    args = ap.parse_args()

    if not os.path.isdir(args.results):
        fail(f"{args.results}: not a directory")
    algs, seed, every = load(args.results, args.t0_us, args.seed)
    if not algs:
        fail(f"{args.results}: no algorithm subdirectories with "
             f"seed-{'S' if seed is None else seed}/qdisc.csv")
    which = f"seed {seed}" + ("" if len(every) < 2 else
                              f" (of seeds {', '.join(map(str, every))})")

    # W: twice the analysed post-incast time, capped to the data.
    w = args.window_us
    if w is None:
        w = max(min(2 * (a["end"] - a["t0"]),
                    4 / 3 * (a["q"]["time_us"][-1] - a["t0"]))
                for a in algs)
    if not w > 0:
        fail("empty time window: is T0 after the data?")
    lo, hi = -w / 4, 3 * w / 4  # us relative to T0

    n = len(algs)
    colors = [style(a["name"], i)[0] for i, a in enumerate(algs)]
    fig, ax = plt.subplots(2, n, figsize=(3.2 * n, 5.2), sharex=True,
                           sharey="row", squeeze=False)
    for i, a in enumerate(algs):
        q, s, c = a["q"], a["s"], colors[i]
        t = q["time_us"] - a["t0"]
        vis = (t >= lo) & (t <= hi)  # autoscale to what is shown
        ax[0][i].plot(t[vis] / 1e3, q["backlog_bytes"][vis] / 1e3,
                      color=c, lw=1)
        rt, r = rate_mbps(t, q["sent_bytes"], args.smooth)
        vis = (rt >= lo) & (rt <= hi)
        ax[1][i].plot(rt[vis] / 1e3, r[vis], color=c, lw=1)
        if "link_rate_mbps" in s:
            ax[1][i].axhline(s["link_rate_mbps"], color="gray", ls=":",
                             lw=1)
        title = label(a["name"])
        if "avg_queue_bytes" in s and "avg_throughput_mbps" in s:
            title += "\n"
            if "avg_waiting_bytes" in s:
                title += f"waiting {s['avg_waiting_bytes'] / 1e3:.2f} KB, "
            title += (f"backlog {s['avg_queue_bytes'] / 1e3:.2f} KB, "
                      f"{s['avg_throughput_mbps']:.1f} Mb/s")
        ax[0][i].set_title(title, fontsize=10)
        for row in ax[:, i]:
            row.axvline(0, color="k", ls="--", lw=0.8)
            row.grid(alpha=0.3)
        ax[1][i].set_xlabel("time since incast (ms)")
    # Queues span 1 KB to the 4 MB buffer across algorithms: a log scale
    # (linear below 1 KB) keeps the small ones readable next to the big.
    ax[0][0].set_yscale("symlog", linthresh=1)
    ax[0][0].set_ylabel("queue (KB, log)")
    ax[1][0].set_ylabel("throughput (Mb/s)")
    ax[0][0].set_ylim(bottom=0)
    ax[1][0].set_ylim(bottom=0)
    ax[0][0].set_xlim(lo / 1e3, hi / 1e3)
    fig.suptitle((args.title + ": " if args.title else "") + which +
                 ("; the tables give mean ± sd over the seeds"
                  if len(every) > 1 else ""), fontsize=10)
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    plt.close(fig)

    # CDF of the queue from the incast to the end of the analysed window.
    fig, cax = plt.subplots(figsize=(5.5, 3.8))
    for i, a in enumerate(algs):
        for r in [a] + a["others"]:
            q = r["q"]
            sel = (q["time_us"] >= r["t0"]) & (q["time_us"] <= r["end"])
            v = np.sort(q["backlog_bytes"][sel]) / 1e3
            if len(v):
                cax.step(v, np.arange(1, len(v) + 1) / len(v),
                         where="post", color=colors[i],
                         lw=1.5 if r is a else 0.7,
                         alpha=1 if r is a else 0.5,
                         label=label(a["name"]) if r is a else None)
    cax.set_xscale("symlog", linthresh=1)
    cax.set_xlabel("queue length after incast (KB, log)")
    cax.set_ylabel("CDF")
    cax.set_ylim(0, 1.02)
    cax.set_xlim(left=0)
    cax.grid(alpha=0.3)
    cax.legend(fontsize=9)
    cax.set_title((args.title + ": " if args.title else "") +
                  "bottleneck queue after the incast\n" + which +
                  (" bold, the others thin" if len(every) > 1 else ""),
                  fontsize=10)
    fig.tight_layout()
    fig.savefig(os.path.splitext(args.out)[0] + "_cdf.png", dpi=120)
    plt.close(fig)


if __name__ == "__main__":
    main()
