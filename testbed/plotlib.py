# SPDX-License-Identifier: GPL-2.0
"""Shared pieces of the testbed's plot_*.py scripts (matplotlib, Agg)."""
import os
import sys
import warnings

import matplotlib
matplotlib.use("Agg")
import numpy as np  # noqa: E402

from tblib import label, order_key, style  # noqa: E402,F401 (re-exported)


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
