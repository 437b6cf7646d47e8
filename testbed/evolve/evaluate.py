#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Score one candidate congestion control on the training suite.

    testbed/evolve/evaluate.py --out DIR [--algorithm NAME]
        [--param NAME=VALUE ...] [--module PATH.ko] [--suite FILE]
        [--reference SCORE.json] [--full | --incast-only]
        [--kernel 6.1|6.12] [--seeds 1,2]

A candidate is a congestion control (default powertcp_evo) with module
parameters and, optionally, a module build of its own (--module: a .ko that
registers NAME). The suite (testbed/evolve/suite.json) is the 10:1 incast at
the paper's in-rack and largest RTT, each for two seeds, and the arrivals:
the fairness phases and a short web search (one run per seed, its short
flows pooled). Every case runs in ONE QEMU
guest under -icount, one after the other; each case's raw data and
analysis land in DIR/CASE/, and DIR/score.json holds the objective and
every component (throughput, average/p99 queue, drain time per incast
case, as mean and spread; the arrivals' Jain index, longest starvation and
short-flow tail).

The objective is the incast's mean combined score less the arrivals'
penalties (suite.json "penalty"): for each base RTT of the longest
starvation beyond a free allowance, for a multi-flow phase's Jain index
below 0.98, and for a web-search tail (the given percentile of the
slowdown of flows below a size) above the reference's on the same case and
seed (--reference: θ-PowerTCP's score.json on this suite; without it the
tail is reported and not penalized).

--full runs the full-length incast (860 + 1300 base RTTs) instead of the
suite's short windows and, like --incast-only, no arrivals;
testbed/evolve/rankcheck.py uses it to show that the short windows rank
candidates like the full runs.
"""
import argparse
import csv
import fcntl
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "lib"))
from tblib import ROOT, summarizer  # noqa: E402
analyze_incast = summarizer("incast").analyze
analyze_fairness = summarizer("fairness").analyze
analyze_websearch = summarizer("websearch").analyze

METRICS = ["combined_score", "avg_throughput_mbps", "avg_queue_bytes",
           "p99_queue_bytes", "peak_queue_bytes", "avg_waiting_bytes",
           "p99_waiting_bytes", "waiting_score", "drain_time_us",
           "jain_index", "drops"]
PARAM_RE = re.compile(r"^[a-z][a-z0-9_]*=[0-9]+$")


def die(msg):
    sys.exit("evaluate: " + msg)


def kernels():
    env = {}
    path = os.path.join(ROOT, "build", "kernels.env")
    if not os.path.exists(path):
        die("build/kernels.env missing (run scripts/setup.sh)")
    for line in open(path):
        k, _, v = line.strip().partition("=")
        env[k] = v
    return {"6.1": env["KVER_61"], "6.12": env["KVER_612"]}


def ensure_modules(rel):
    """build/kmod-REL/kmod, built if missing (one builder at a time)."""
    kmod = os.path.join(ROOT, "build", "kmod-" + rel, "kmod")
    os.makedirs(os.path.join(ROOT, "build"), exist_ok=True)
    with open(os.path.join(ROOT, "build", "kmod-%s.lock" % rel), "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        if not os.path.isfile(os.path.join(kmod, "tcp_powertcp_evo.ko")):
            subprocess.run([os.path.join(ROOT, "scripts", "build-kmod.sh"),
                            "/usr/src/linux-headers-" + rel,
                            os.path.join(ROOT, "build", "kmod-" + rel)],
                           check=True, stdout=subprocess.DEVNULL)
    return kmod


def plan(args, suite):
    """The cases to run: (name, rtt_us, pre_us, post_us, seed)."""
    cases = []
    for c in suite["cases"]:
        win = suite["full"] if args.full else c
        for s in args.seeds:
            cases.append(("%s-s%d" % (c["name"], s), c["rtt_us"],
                          win["pre_rtts"] * c["rtt_us"],
                          win["post_rtts"] * c["rtt_us"], s))
    return cases


def cc_spec(args, kmod):
    """The --cc spec of the testbed (testbed/lib/common.sh): our modules and
    --module by file, so that every case runs exactly this build, with the
    candidate's parameters."""
    alg = args.algorithm
    ko = args.module or (os.path.join(kmod, "tcp_%s.ko" % alg)
                         if alg in ("theta_powertcp", "powertcp_evo") else "")
    spec = alg
    if ko or args.param:
        spec += "=" + os.path.abspath(ko) if ko else "="
        spec += "".join(":" + p for p in args.param)
    return spec


def arrivals(args, suite):
    """The arrival cases to run ({} with --full or --incast-only)."""
    if args.full or args.incast_only:
        return {}
    return suite.get("arrivals", {})


def guest_script(args, suite, cases, kmod, out):
    """The shell script the guest runs: each case of the suite in turn."""
    cc = cc_spec(args, kmod)
    link = " --serial-link" if suite.get("serial_link") else ""
    lines = ["set -euo pipefail", "cd %s" % ROOT]
    for name, rtt, pre, post, seed in cases:
        lines.append(
            "bash testbed/incast/run.sh --cc %s --out %s/%s --rate-mbps %d "
            "--rtt-us %d --tau-us %d --pre-us %d --post-us %d --seed %d "
            "--no-headroom --kmod-dir %s%s"
            % (cc, out, name, suite["rate_mbps"], rtt, rtt, pre, post, seed,
               kmod, link))
    arr = arrivals(args, suite)
    if "fairness" in arr:
        f = arr["fairness"]
        lines.append(
            "bash testbed/fairness/run.sh --cc %s --out %s/fairness --rate-mbps "
            "%d --rtt-us %d --tau-us %d --phase-rtts %d --seed %d "
            "--no-headroom --kmod-dir %s%s"
            % (cc, out, suite["rate_mbps"], f["rtt_us"], f["rtt_us"],
               f["phase_rtts"], f["seed"], kmod, link))
    if "websearch" in arr:
        w = arr["websearch"]
        for s in ws_seeds(w):
            lines.append(
                "bash testbed/websearch/run.sh --cc %s --out %s --loads %d "
                "--flows %d --seed %d --no-headroom --kmod-dir %s"
                % (cc, ws_dir(out, w, s), w["load"], w["flows"], s, kmod))
    return "\n".join(lines) + "\n"


def ws_seeds(w):
    """The seeds of the suite's web search @w: "seeds" (a list), or one
    "seed" as the suites before pooling had it."""
    return w["seeds"] if "seeds" in w else [w["seed"]]


def ws_dir(out, w, seed):
    """Where the web search of @seed runs: OUT/websearch, or with several
    seeds OUT/websearch/seed-S."""
    d = os.path.join(out, "websearch")
    return os.path.join(d, "seed-%d" % seed) if "seeds" in w else d


def tail_slowdown(per_flow_csv, below_bytes, percentile):
    """The @percentile of the slowdown of the flows below @below_bytes in
    the per_flow.csv file @per_flow_csv, or in a list of them pooled (one
    run per seed: more flows, a steadier percentile); a flow that did not
    finish counts as the largest slowdown there is."""
    files = [per_flow_csv] if isinstance(per_flow_csv, str) else per_flow_csv
    vals = []
    for path in files:
        with open(path) as f:
            for r in csv.DictReader(f):
                if int(r["bytes"]) < below_bytes:
                    vals.append(float(r["slowdown"]) if r["status"] == "done"
                                else float("inf"))
    if not vals:
        die("%s: no flow below %d B" % (", ".join(files), below_bytes))
    vals.sort()
    return vals[min(len(vals) - 1, int(percentile / 100 * len(vals)))]


def summarize_arrivals(out, arr):
    """The arrival cases' figures: {} if none ran."""
    res = {}
    if "fairness" in arr:
        s = analyze_fairness(os.path.join(out, "fairness"))
        multi = [ph for ph in s["phases"] if ph["flows"] > 1]
        res["fairness"] = {
            "min_jain": min(ph["jain_index"] for ph in multi),
            "starved_rtts": max(ph["starved_rtts"] for ph in s["phases"]),
            "jain": [ph["jain_index"] for ph in s["phases"]]}
    if "websearch" in arr:
        w = arr["websearch"]
        runs = [os.path.join(ws_dir(out, w, s), "load-%d" % w["load"])
                for s in ws_seeds(w)]
        for run in runs:
            analyze_websearch(run)  # writes per_flow.csv
        res["websearch"] = {
            "tail_slowdown": tail_slowdown(
                [os.path.join(run, "per_flow.csv") for run in runs],
                w["below_bytes"], w["percentile"]),
            "below_bytes": w["below_bytes"], "percentile": w["percentile"],
            "seeds": ws_seeds(w)}
    return res


def penalties(arr, pen, ref_tail):
    """The objective's penalties for the arrival figures @arr (those of
    summarize_arrivals) under the suite's weights @pen; @ref_tail is the
    reference's web-search tail, or None (then the tail costs nothing)."""
    out = {}
    if "fairness" in arr:
        f = arr["fairness"]
        out["starvation"] = pen["per_starved_rtt"] * max(
            0.0, f["starved_rtts"] - pen["starved_rtts_free"])
        out["jain"] = pen["per_jain"] * max(0.0, pen["jain_free"] -
                                            f["min_jain"])
    if "websearch" in arr and ref_tail:
        out["tail"] = pen["per_tail_ratio"] * max(
            0.0, arr["websearch"]["tail_slowdown"] / ref_tail - 1)
    return out


def case_mean(res, case, key):
    """The mean of @key over the seeds of incast case @case ("inrack",
    "maxrtt") in a score.json's content @res."""
    return statistics.mean(c[key] for name, c in res["cases"].items()
                           if name.rsplit("-s", 1)[0] == case)


def summarize(out, cases):
    per_case = {}
    for name, *_ in cases:
        run = os.path.join(out, name)
        s = analyze_incast(run)
        per_case[name] = {k: s[k] for k in METRICS}
        per_case[name]["link_fraction"] = (s["avg_throughput_mbps"] /
                                           s["link_rate_mbps"])
    agg = {}
    for k in METRICS + ["link_fraction"]:
        vals = [c[k] for c in per_case.values()]
        agg[k] = {"mean": statistics.mean(vals),
                  "min": min(vals), "max": max(vals),
                  "stdev": statistics.stdev(vals) if len(vals) > 1 else 0.0}
    return per_case, agg


def finish(res, weights, ref_tail):
    """@res (a score.json's content) scored against @ref_tail: the
    penalties and the objective, in place."""
    res["reference_tail"] = ref_tail
    res["penalties"] = penalties(res["arrivals"], weights, ref_tail)
    res["score"] = res["incast_score"] - sum(res["penalties"].values())
    return res


def reference_tail(path):
    """The web-search tail of the reference score.json at @path."""
    try:
        with open(path) as f:
            return json.load(f)["arrivals"]["websearch"]["tail_slowdown"]
    except (OSError, ValueError, KeyError) as e:
        die("--reference: %s: no web-search tail (%s)" % (path, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--algorithm", default="powertcp_evo")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--module")
    ap.add_argument("--suite", default=os.path.join(HERE, "suite.json"))
    ap.add_argument("--full", action="store_true")
    ap.add_argument("--incast-only", action="store_true")
    ap.add_argument("--reference")
    ap.add_argument("--kernel", default="6.1", choices=["6.1", "6.12"])
    ap.add_argument("--seeds")
    ap.add_argument("--timeout", type=int, default=3600)
    args = ap.parse_args()

    if not re.match(r"^[a-z0-9_]+$", args.algorithm):
        die("--algorithm: bad name '%s'" % args.algorithm)
    for p in args.param:
        if not PARAM_RE.match(p):
            die("--param: '%s' is not NAME=INTEGER" % p)
    if args.module and not os.path.isfile(args.module):
        die("--module: %s: no such file" % args.module)
    ref_tail = reference_tail(args.reference) if args.reference else None
    with open(args.suite) as f:
        suite = json.load(f)
    args.seeds = ([int(s) for s in args.seeds.split(",")] if args.seeds
                  else suite["seeds"])
    out = os.path.abspath(args.out)
    if not out.startswith(ROOT + os.sep):
        die("--out must be inside the repository (the guest shares only it)")
    os.makedirs(out, exist_ok=True)
    rel = kernels()[args.kernel]
    kmod = ensure_modules(rel)
    cases = plan(args, suite)
    script = os.path.join(out, "guest.sh")
    with open(script, "w") as f:
        f.write(guest_script(args, suite, cases, kmod, out))
    with open(os.path.join(out, "vm.log"), "w") as log:
        rc = subprocess.run(
            [os.path.join(ROOT, "scripts", "vm-run.sh"), "--kernel",
             args.kernel, "--icount", "--timeout", str(args.timeout), "--",
             "bash", script], stdout=log, stderr=subprocess.STDOUT).returncode
    if rc != 0:
        die("guest run failed (exit %d), see %s/vm.log" % (rc, out))
    per_case, agg = summarize(out, cases)
    arr = summarize_arrivals(out, arrivals(args, suite))
    incast = agg["combined_score"]["mean"]
    res = finish({"algorithm": args.algorithm, "params": dict(
        p.split("=") for p in args.param), "module": args.module,
        "kernel": rel, "full": args.full, "seeds": args.seeds,
        "suite": suite,
        "incast_score": incast, "cases": per_case, "aggregate": agg,
        "arrivals": arr}, suite.get("penalty", {}), ref_tail)
    with open(os.path.join(out, "score.json"), "w") as f:
        json.dump(res, f, indent=1)
    extra = ""
    if "fairness" in arr:
        extra += "  Jain %.3f  starved %.0f RTTs" % (
            arr["fairness"]["min_jain"], arr["fairness"]["starved_rtts"])
    if "websearch" in arr:
        extra += "  tail %.2f" % arr["websearch"]["tail_slowdown"]
    print("score %.2f (incast %.2f)  link %.1f%%  avg queue %.0f B"
          " (waiting %.0f B)%s  (%s)"
          % (res["score"], incast, 100 * agg["link_fraction"]["mean"],
             agg["avg_queue_bytes"]["mean"], agg["avg_waiting_bytes"]["mean"],
             extra, out))


if __name__ == "__main__":
    main()
