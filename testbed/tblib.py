# SPDX-License-Identifier: GPL-2.0
"""Shared pieces of the testbed's summarize_*.py scripts."""
import csv
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
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


def runs(res, prog, marker="params.json"):
    """Algorithm directories under @res holding @marker, in ORDER."""
    if not os.path.isdir(res):
        sys.exit("%s: %s: not a directory" % (prog, res))
    found = [d for d in sorted(os.listdir(res))
             if os.path.isfile(os.path.join(res, d, marker))]
    if not found:
        sys.exit("%s: no runs (ALG/%s) under %s" % (prog, marker, res))
    found.sort(key=order_key)
    return found


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


def write_summary(res, rows, keys):
    """RESULTS_DIR/summary.json (all fields) and summary.csv (@keys)."""
    with open(os.path.join(res, "summary.json"), "w") as f:
        json.dump(rows, f, indent=1)
    with open(os.path.join(res, "summary.csv"), "w") as f:
        f.write(",".join(keys) + "\n")
        for r in rows:
            f.write(",".join("" if r.get(k) is None else str(r[k])
                             for k in keys) + "\n")
