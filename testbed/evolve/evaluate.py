#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Score one candidate congestion control on the training suite.

    testbed/evolve/evaluate.py --out DIR [--algorithm NAME]
        [--param NAME=VALUE ...] [--module PATH.ko] [--suite FILE]
        [--full] [--kernel 6.1|6.12] [--seeds 1,2]

A candidate is a congestion control (default powertcp_evo) with module
parameters and, optionally, a module build of its own (--module: a .ko that
registers NAME). The suite (testbed/evolve/suite.json) is the 10:1 incast at
the paper's in-rack and largest RTT, each for two seeds. Every case runs in
ONE QEMU guest under -icount, one after the other; each case's raw data and
analysis land in DIR/CASE-sSEED/, and DIR/score.json holds the objective
(the mean combined score over the cases) and every component (throughput,
average/p99 queue, drain time) per case and as mean and spread.

--full runs the full-length incast (860 + 1300 base RTTs) instead of the
suite's short windows; testbed/evolve/rankcheck.py uses it to show that the
short windows rank candidates like the full runs.
"""
import argparse
import fcntl
import json
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
from tblib import ROOT  # noqa: E402
from summarize_incast import analyze as analyze_incast  # noqa: E402

METRICS = ["combined_score", "avg_throughput_mbps", "avg_queue_bytes",
           "p99_queue_bytes", "peak_queue_bytes", "drain_time_us",
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


def guest_script(args, suite, cases, kmod, out):
    """The shell script the guest runs: each case of the suite in turn."""
    lines = ["set -euo pipefail", "cd %s" % ROOT]
    for name, rtt, pre, post, seed in cases:
        lines.append(
            "bash testbed/incast.sh --cc %s --out %s/%s --rate-mbit %d "
            "--rtt-us %d --tau-us %d --pre-us %d --post-us %d --seed %d "
            "--no-headroom --kmod-dir %s"
            % (cc_spec(args, kmod), out, name, suite["rate_mbit"], rtt, rtt,
               pre, post, seed, kmod))
    return "\n".join(lines) + "\n"


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


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[1])
    ap.add_argument("--out", required=True)
    ap.add_argument("--algorithm", default="powertcp_evo")
    ap.add_argument("--param", action="append", default=[])
    ap.add_argument("--module")
    ap.add_argument("--suite", default=os.path.join(HERE, "suite.json"))
    ap.add_argument("--full", action="store_true")
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
    res = {"algorithm": args.algorithm, "params": dict(
        p.split("=") for p in args.param), "module": args.module,
        "kernel": rel, "full": args.full, "seeds": args.seeds,
        "score": agg["combined_score"]["mean"], "cases": per_case,
        "aggregate": agg}
    with open(os.path.join(out, "score.json"), "w") as f:
        json.dump(res, f, indent=1)
    print("score %.2f  link %.1f%%  avg queue %.0f B  (%s)" % (
        res["score"], 100 * agg["link_fraction"]["mean"],
        agg["avg_queue_bytes"]["mean"], out))


if __name__ == "__main__":
    main()
