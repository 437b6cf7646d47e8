# SPDX-License-Identifier: GPL-2.0
"""Shared pieces of the plots, testbed/EXP/plot.py (matplotlib, Agg)."""
import argparse
import json
import os
import re
import sys
import warnings

import matplotlib
matplotlib.use("Agg")
import numpy as np  # noqa: E402

from tblib import label, order_key, style  # noqa: E402

# label and style are tblib's, re-exported for the plots.
__all__ = ["label", "order_key", "style", "read_csv", "seeds_of",
           "seeded_dirs", "summary_args"]


def summary_args(prog, doc):
    """A plot of one summary: --results DIR and --out PNG parsed (the
    description @doc's first paragraph), and DIR/summary.json read; exits
    with "@prog: reason" if it cannot be."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--results", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    try:
        with open(os.path.join(a.results, "summary.json")) as f:
            return a, json.load(f)
    except (OSError, ValueError) as e:
        sys.exit("%s: %s" % (prog, e))


def read_csv(path):
    """Columns of an integer CSV with a header line, as {name: array}."""
    with open(path) as f:
        names = f.readline().strip().split(",")
        with warnings.catch_warnings():  # header only: no rows
            warnings.simplefilter("ignore")
            rows = np.loadtxt(f, delimiter=",", ndmin=2)
    if rows.size == 0:
        rows = np.zeros((0, len(names)))
    if rows.shape[1] != len(names):
        sys.exit("%s: %s: %d columns, header has %d"
                 % (os.path.basename(sys.argv[0]), path, rows.shape[1],
                    len(names)))
    return {n: rows[:, i] for i, n in enumerate(names)}


def seeds_of(path, files):
    """The seeds S of PATH/seed-S/ that hold every one of @files, sorted."""
    out = []
    for s in os.listdir(path) if os.path.isdir(path) else []:
        m = re.fullmatch(r"seed-([0-9]+)", s)
        if m and all(os.path.isfile(os.path.join(path, s, f))
                     for f in files):
            out.append(int(m.group(1)))
    return sorted(out)


def seeded_dirs(results, files, seed):
    """The algorithm directories under @results with seed-S/ runs holding
    @files, in the registry's order (testbed/algorithms.tsv); the seed to
    draw (@seed, or the lowest of any algorithm); and every seed."""
    dirs = [d for d in sorted(os.listdir(results))
            if not d.startswith("_") and
            seeds_of(os.path.join(results, d), files)]
    dirs.sort(key=order_key)
    every = sorted({s for d in dirs for s in
                    seeds_of(os.path.join(results, d), files)})
    if seed is None and every:
        seed = every[0]
    return dirs, seed, every
