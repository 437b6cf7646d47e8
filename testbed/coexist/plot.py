#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The shares of coexistence runs, from their summary.

    testbed/coexist/plot.py --results DIR --out PNG

DIR/summary.json is testbed/coexist/summarize.py's. One panel per queue
(shared, isolated) and buffer: for each peer and mix, the share of the
link that --cc's flows got over their fair share (1: fair, 0.01: a
hundredth of it; log scale), one marker per algorithm, the bar from the
lowest seed to the highest.
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "lib"))
from plotlib import label, order_key, style, summary_args  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402 (after plotlib selects Agg)

PROG = "coexist/plot.py"


def main():
    a, doc = summary_args(PROG, __doc__)
    cases = [c for c in doc["cases"] if c["queue"] != "alone"]
    if not cases:
        sys.exit("%s: no shared or isolated cases in %s" % (PROG, a.results))
    queues = [q for q in ("shared", "isolated")
              if any(c["queue"] == q for c in cases)]
    size = {c["buffer"]: c["buffer_bytes"] for c in cases}
    buffers = sorted(size, key=size.get, reverse=True)
    algs = sorted({c["algorithm"] for c in cases}, key=order_key)
    fig, axes = plt.subplots(len(queues), len(buffers), squeeze=False,
                             figsize=(5.5 * len(buffers), 3.6 * len(queues)))
    for qi, q in enumerate(queues):
        for bi, b in enumerate(buffers):
            ax = axes[qi][bi]
            mine = [c for c in cases if c["queue"] == q and c["buffer"] == b]
            slots = sorted({(c["peer"], c["mix"]) for c in mine},
                           key=lambda s: (order_key(s[0]), s[1]))
            for ai, alg in enumerate(algs):
                col, mk = style(alg, ai)
                off = (ai - (len(algs) - 1) / 2) * 0.18
                first = True	# the legend's entry: its first point
                for si, s in enumerate(slots):
                    c = next((c for c in mine if c["algorithm"] == alg and
                              (c["peer"], c["mix"]) == s), None)
                    if not c:
                        continue
                    r = c["share_ratio"]
                    lo, hi = max(r["min"], 1e-3), max(r["max"], 1e-3)
                    y = max(r["mean"], 1e-3)
                    ax.errorbar([si + off], [y], yerr=[[y - lo], [hi - y]],
                                color=col, marker=mk, ms=6, capsize=2, lw=1,
                                label=label(alg) if first else None)
                    first = False
            ax.axhline(1, color="#444444", lw=0.8, ls="--")
            ax.set_yscale("log")
            # up to the largest (a mix's one flow can take 1/share)
            ax.set_ylim(1e-3, max([3] + [1.3 * c["share_ratio"]["max"]
                                        for c in mine]))
            ax.set_xticks(range(len(slots)))
            ax.set_xticklabels(["%s\n%s" % (p, m) for p, m in slots],
                               fontsize=8)
            ax.set_title("%s queue, buffer %s" % (q, b), fontsize=10)
            ax.grid(alpha=0.3, axis="y")
            if bi == 0:
                ax.set_ylabel("share / fair share")
            if qi == 0 and bi == len(buffers) - 1:
                ax.legend(fontsize=8, loc="lower right")
    fig.suptitle("Next to other algorithms: the part of the link each "
                 "algorithm's flows got (mix = its flows : the peer's)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(a.out, dpi=110)
    print("wrote %s" % a.out)


if __name__ == "__main__":
    main()
