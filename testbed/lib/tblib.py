# SPDX-License-Identifier: GPL-2.0
"""Shared pieces of the testbed's summarizers and plots (testbed/EXP/*.py)."""
import csv
import importlib.util
import json
import math
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
REGISTRY = os.path.join(ROOT, "testbed", "algorithms.tsv")


def registry():
    """testbed/algorithms.tsv: {name: {label, colour, marker, qdisc, load,
    experiments}}, in the registry's order."""
    with open(REGISTRY, encoding="utf-8") as f:
        lines = [ln for ln in f if ln.strip() and not ln.startswith("#")]
    return {r["name"]: r for r in csv.DictReader(lines, delimiter="\t")}


ALGORITHMS = registry()
ORDER = list(ALGORITHMS)


def order_key(name):
    """Sort key: the registry's order, then any other algorithm by name."""
    return (ORDER.index(name) if name in ORDER else len(ORDER), name)


def label(name):
    """How plots show algorithm @name (its registry label, or the name)."""
    return ALGORITHMS[name]["label"] if name in ALGORITHMS else name


def style(name, i=0):
    """(colour, marker) of algorithm @name; others get the tab10 colour
    @i places after the registry's and a dot."""
    if name in ALGORITHMS:
        return ALGORITHMS[name]["colour"], ALGORITHMS[name]["marker"]
    return "C%d" % ((len(ORDER) + i) % 10), "."


def tool(name):
    """Path of a userspace-tools binary."""
    return os.path.join(ROOT, "userspace-tools", "bin", name)


def summarizer(exp):
    """testbed/@exp/summarize.py as a module (its analyze() and the rest)."""
    path = os.path.join(ROOT, "testbed", exp, "summarize.py")
    spec = importlib.util.spec_from_file_location("summarize_" + exp, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def seed_runs(res, prog, marker="params.json"):
    """The runs under @res of testbed/run.sh incast|fairness: (algorithm,
    seed, directory) of every ALG/seed-S/ holding @marker, in ORDER, then
    by seed. Directories starting with '_' (_nosample) are not algorithms.
    """
    if not os.path.isdir(res):
        sys.exit("%s: %s: not a directory" % (prog, res))
    found = []
    for d in sorted(os.listdir(res)):
        path = os.path.join(res, d)
        if d.startswith("_") or not os.path.isdir(path):
            continue
        for s in os.listdir(path):
            m = re.fullmatch(r"seed-([0-9]+)", s)
            if m and os.path.isfile(os.path.join(path, s, marker)):
                found.append((d, int(m.group(1)), os.path.join(path, s)))
    if not found:
        sys.exit("%s: no runs (ALG/seed-S/%s) under %s" % (prog, marker, res))
    found.sort(key=lambda r: order_key(r[0]) + (r[1],))
    return found


def spread(values, never=False):
    """Mean, sample standard deviation, min and max of @values over the
    seeds: {mean, sd, min, max, n}; sd is None for one value. With @never,
    -1 means "never" (a drain or convergence that did not happen): those
    are counted in "never" and left out of the rest. None if a value is
    None (the metric does not apply)."""
    if any(v is None for v in values):
        return None
    out = {}
    if never:
        out["never"] = sum(1 for v in values if v == -1)
        values = [v for v in values if v != -1]
    n = len(values)
    mean = sum(values) / n if n else None
    sd = (math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
          if n > 1 else None)
    out.update(mean=None if mean is None else round(mean, 4),
               sd=None if sd is None else round(sd, 4),
               min=min(values) if n else None,
               max=max(values) if n else None, n=n)
    return out


def spread_fields(row, runs, never=()):
    """@row with the spread over @runs (one a seed) of every number of the
    first run that every run has and @row has not, "seed" and booleans
    left out; -1 means never for those in @never."""
    for k, v in runs[0].items():
        if k in row or k == "seed" or isinstance(v, bool) or \
                not isinstance(v, (int, float)):
            continue
        if all(isinstance(r.get(k), (int, float)) for r in runs):
            row[k] = spread([r[k] for r in runs], never=k in never)
    return row


def spread_columns(row, metrics):
    """CSV columns of the spreads of @metrics in @row: M_mean, M_sd, M_min,
    M_max (and M_never where counted)."""
    out = {}
    for m in metrics:
        a = row.get(m) or {}
        for k in ("mean", "sd", "min", "max", "never"):
            if k in a or k != "never":
                out["%s_%s" % (m, k)] = a.get(k)
    return out


def pm(a, fmt):
    """A spread as text: "mean ± sd" (the mean alone for one seed), '-' if
    it does not apply, "never" if it never happened, "+N never" after the
    mean of the others if some never did."""
    if a is None:
        return "-"
    if not a["n"]:
        return "never"
    t = fmt % a["mean"]
    if a["sd"] is not None:
        t += " ± " + (fmt % a["sd"]).strip()
    if a.get("never"):
        t += " +%d never" % a["never"]
    return t


def print_table(header, rows):
    """@rows of strings under @header, columns as wide as their cells."""
    w = [max(len(str(r[i])) for r in [header] + rows)
         for i in range(len(header))]
    for r in [header] + rows:
        print("  ".join(("%-*s" if i == 0 else "%*s") % (w[i], c)
                        for i, c in enumerate(r)).rstrip())


def link_args(p):
    """incast-analyze's reading of the bottleneck a run's params.json @p
    records: ["--serial-link"] on --serial-link's (its backlog is all
    waiting), [] on the default bucket."""
    return ["--serial-link"] if p.get("serial_link") else []


def analyze_run(run, analyzer, args):
    """Run @analyzer on one run's raw data; its JSON, with the headroom check
    and the run's params.json added (headroom_mbps, headroom_ok, params).

    @args(p) gives the analyzer's arguments from params.json; the JSON goes
    to RUN/summary.json.
    """
    with open(os.path.join(run, "params.json")) as f:
        p = json.load(f)
    out = os.path.join(run, "summary.json")
    subprocess.run([tool(analyzer)] + args(p) + ["--json", out], check=True)
    with open(out) as f:
        s = json.load(f)
    with open(os.path.join(run, "headroom.json")) as f:
        h = json.load(f)
    s["headroom_mbps"] = h["unlimited_mbps"]
    s["headroom_ok"] = h["ok"]
    s["params"] = p
    return s


def refuse_if_starved(checks, what):
    """Exit 1, loudly, if a run failed its CPU headroom check.

    @checks: (algorithm, ok, unlimited_mbps, needed_mbps) per run.
    """
    bad = [c for c in checks if not c[1]]
    if not bad:
        return
    print("*" * 72)
    print("INVALID MEASUREMENT: without the rate limits the VM's CPU could")
    print("not move twice what the experiment needs, for: %s"
          % ", ".join(sorted({c[0] for c in bad})))
    for alg, ok, got, need in checks:
        print("  %s: %d Mbit/s unlimited, %d Mbit/s needed%s"
              % (alg, got, need, "" if ok else "  <-- too slow"))
    print("The %s measured would be the CPU's, not the network's." % what)
    print("*" * 72)
    sys.exit(1)


def write_summary(res, rows, keys, doc=None):
    """RESULTS_DIR/summary.json (@doc, or @rows with all their fields) and
    summary.csv (@keys of @rows)."""
    with open(os.path.join(res, "summary.json"), "w") as f:
        json.dump(rows if doc is None else doc, f, indent=1)
    with open(os.path.join(res, "summary.csv"), "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join("" if r.get(k) is None else str(r[k])
                             for k in keys) + "\n")
