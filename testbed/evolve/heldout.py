#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The held-out checks of a PowerTCP-evo candidate (issue "PowerTCP-evo
must earn its place"), run and judged against θ-PowerTCP in the same runs.

    testbed/evolve/heldout.py run [--params P=V:P=V...] [--out DIR]
        [--checks C,C..] [--ws-loads 50,80] [--ws-seeds N|S,S..]
        [--jobs 2] [--dry-run]
    testbed/evolve/heldout.py report [--out DIR]

run: each check is one testbed/run.sh command (below) into DIR/CHECK/
(default results/heldout), θ-PowerTCP beside the candidate
(powertcp_evo=:PARAMS; no --params: evo's defaults) unless said. A check
whose results are there for the same algorithms is not run again, so a
run stopped part-way resumes, and more web-search seeds are added by a
larger --ws-seeds. Then the report. The checks, none of them seen by the
search:
  incast     the full-length in-rack 10:1 incast, seeds 1-2
  maxrtt     the same at the largest RTT (7240 us, tau 7240), seeds 1-2
  fanin20    the 20:1 incast (--senders 20), seeds 1-2
  burst      the paper's burst (--start together --queries 255), seeds 1-2
  delack     receivers that delay their ACKs (--delayed-acks), seeds 1-2
  fairness   make fairness's phases, seeds 1-3
  bpf        the in-rack incast of the candidate's BPF build (--bpf),
             seeds 1-2 (θ's figures: the incast check's)
  websearch  the 2000-flow web search, each load and seed a check of its
             own (websearch-L-sS; default loads 50 and 80, seeds 1-5)

report: DIR/heldout.json and DIR/heldout.md (printed too), each goal of
the issue for each seed with its figures and a verdict, "met", "not met"
or "not run":
  incast     waiting <= 0.5x θ's and <= 2400 B, link >= 99%, each seed
  maxrtt     waiting <= 0.6x θ's, link >= 98%, each seed
  fanin20    score above θ's, each seed
  burst      score above θ's and the queries' p99 completion no later
  fairness   Jain >= 0.98 in every multi-flow phase, no flow below 0.7x
             its share for more than 50 base RTTs, every seed
  bpf        the incast's goals for the BPF build
  websearch  per load, the short flows' (< 100 KB) p99 and p99.9
             slowdown, the mean over the seeds with its standard error,
             evo no worse than θ: "met" with >= 5 seeds and the sign of
             each mean difference settled (beyond two standard errors
             of the paired difference, or under 2% of θ's), "unsettled"
             otherwise
delack is reported without a goal. Exit status: 0 when every goal with
figures is met, 1 otherwise, 2 on bad arguments.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
THETA = "theta_powertcp"
EVO = "powertcp_evo"
MAXRTT = ["--rtt-us", "7240", "--tau-us", "7240", "--pre-us", "1448000"]
# name: (experiment, seeds, experiment options, θ beside, --bpf)
CHECKS = {
    "incast": ("incast", 2, [], True, False),
    "maxrtt": ("incast", 2, MAXRTT, True, False),
    "fanin20": ("incast", 2, ["--senders", "20"], True, False),
    "burst": ("incast", 2, ["--start", "together", "--queries", "255"],
              True, False),
    "delack": ("incast", 2, ["--delayed-acks"], True, False),
    "fairness": ("fairness", 3, [], True, False),
    "bpf": ("incast", 2, [], False, True),
}
PARAM_RE = re.compile(r"^[a-z][a-z0-9_]*=[0-9]+(:[a-z][a-z0-9_]*=[0-9]+)*$")
WS_FLOWS = 2000
WS_SETTLED = 0.02	# a mean difference under 2% of θ's is settled
WS_MIN_SEEDS = 5


def bad(msg):
    print("heldout: " + msg, file=sys.stderr)
    sys.exit(2)


def seeds_of(arg):
    """--ws-seeds: N (1..N) or a list S,S.."""
    try:
        if "," in arg:
            seeds = [int(s) for s in arg.split(",") if s]
        else:
            seeds = list(range(1, int(arg) + 1))
    except ValueError:
        bad("--ws-seeds: N or S,S.., not '%s'" % arg)
    if not seeds or min(seeds) < 1:
        bad("--ws-seeds: seeds from 1")
    return seeds


def plan(args):
    """[(check, [testbed/run.sh arguments])] in order."""
    evo = EVO + ("=:" + args.params if args.params else "")
    out = []
    for name in args.checks:
        if name == "websearch":
            for load in args.ws_loads:
                for s in args.ws_seeds:
                    check = "websearch-%d-s%d" % (load, s)
                    out.append((check, [
                        "websearch", "--timeout", "20000", "--algorithms",
                        "%s,%s" % (THETA, evo), "--jobs", str(args.jobs),
                        "--out", os.path.join(args.out, check), "--",
                        "--loads", str(load), "--flows", str(WS_FLOWS),
                        "--seed", str(s)]))
            continue
        exp, seeds, opts, beside, bpf = CHECKS[name]
        cmd = [exp, "--algorithms", ("%s,%s" % (THETA, evo)) if beside
               else evo, "--seeds", str(seeds), "--jobs", str(args.jobs),
               "--out", os.path.join(args.out, name)]
        if bpf:
            cmd.append("--bpf")
        out.append((name, cmd + (["--"] + opts if opts else [])))
    return out


def algorithms_of(cmd):
    return cmd[cmd.index("--algorithms") + 1]


def done(check_dir, cmd):
    """Whether @check_dir holds a finished run of @cmd's algorithms and
    options (its run.json's command)."""
    try:
        with open(os.path.join(check_dir, "run.json")) as f:
            ran = json.load(f)["command"]
        ok = os.path.exists(os.path.join(check_dir, "summary.json"))
    except (OSError, ValueError, KeyError):
        return False
    rest = cmd[cmd.index("--") + 1:] if "--" in cmd else []
    ran_rest = ran[ran.index("--") + 1:] if "--" in ran else []
    return (ok and "--algorithms" in ran and
            algorithms_of(ran) == algorithms_of(cmd) and
            ("--bpf" in ran) == ("--bpf" in cmd) and ran_rest == rest)


def run(args):
    steps = plan(args)
    todo = [(c, cmd) for c, cmd in steps
            if not done(os.path.join(args.out, c), cmd)]
    print("heldout: %d checks, %d to run (%s)" % (
        len(steps), len(todo), ", ".join(c for c, _ in todo) or "none"),
        flush=True)
    for i, (check, cmd) in enumerate(todo, 1):
        full = ["bash", os.path.join(ROOT, "testbed", "run.sh")] + cmd
        if args.dry_run:
            full.insert(3, "--dry-run")
        print("== [%d/%d] %s: testbed/run.sh %s" % (
            i, len(todo), check, " ".join(cmd)), flush=True)
        rc = subprocess.run(full).returncode
        if rc != 0:
            print("heldout: %s failed (exit %d); its earlier results, if "
                  "any, are as they were" % (check, rc), file=sys.stderr)
            return 1
    return 0 if args.dry_run else report(args)


# --- report -------------------------------------------------------------

def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def incast_runs(out, check):
    """{seed: {algorithm: run row}} of an incast check's summary.json."""
    s = load(os.path.join(out, check, "summary.json"))
    res = {}
    for r in (s or {}).get("runs", []):
        res.setdefault(r["seed"], {})[r["algorithm"]] = r
    return res


def seed_pairs(out, check, theta_from=None):
    """[(seed, evo's run row, θ's)] of an incast check, in seed order, the
    seeds where both ran; θ's from @theta_from's check if given."""
    runs = incast_runs(out, check)
    theta = incast_runs(out, theta_from) if theta_from else runs
    return [(seed, runs[seed][EVO], theta[seed][THETA])
            for seed in sorted(runs)
            if EVO in runs[seed] and THETA in theta.get(seed, {})]


def link(r):
    return r["avg_throughput_mbps"] / r["link_rate_mbps"]


def queue_row(seed, e, t):
    """One seed's waiting queues and links, evo's against θ's."""
    return "seed %d: %.0f B at %.2f%% against %.0f B at %.2f%%" % (
        seed, e["avg_waiting_bytes"], 100 * link(e), t["avg_waiting_bytes"],
        100 * link(t))


def verdict(oks):
    """'met' if every entry of @oks is true, 'not met' if one is false,
    'not run' if there are none."""
    if not oks:
        return "not run"
    return "met" if all(oks) else "not met"


def judge_queue(out, check, factor, floor_link, cap=None, theta_from=None):
    """The waiting-queue goal of an incast check: evo's waiting at most
    @factor of θ's (same seed; θ's from @theta_from's check if given) and
    at most @cap bytes, its link at least @floor_link."""
    rows, oks = [], []
    for seed, e, t in seed_pairs(out, check, theta_from):
        ratio = e["avg_waiting_bytes"] / t["avg_waiting_bytes"]
        oks.append(ratio <= factor and link(e) >= floor_link and
                   (cap is None or e["avg_waiting_bytes"] <= cap))
        rows.append("%s (%.2fx)" % (queue_row(seed, e, t), ratio))
    return verdict(oks), rows


def judge_score(out, check, queries=False):
    rows, oks = [], []
    for seed, e, t in seed_pairs(out, check):
        ok = e["combined_score"] > t["combined_score"]
        row = "seed %d: score %.1f against %.1f" % (
            seed, e["combined_score"], t["combined_score"])
        if queries:
            ok = ok and e["query_fct_p99_us"] <= t["query_fct_p99_us"]
            row += "; queries' p99 %.1f against %.1f ms" % (
                e["query_fct_p99_us"] / 1000, t["query_fct_p99_us"] / 1000)
        oks.append(ok)
        rows.append(row)
    return verdict(oks), rows


def judge_delack(out):
    rows = [queue_row(*p) for p in seed_pairs(out, "delack")]
    return ("reported" if rows else "not run"), rows


def judge_fairness(out):
    s = load(os.path.join(out, "fairness", "summary.json"))
    a = [r for r in (s or {}).get("algorithms", [])
         if r["algorithm"] == EVO]
    if not a:
        return "not run", []
    j, st = a[0]["jain_goal"], a[0]["starvation_goal"]
    rows = ["seeds %s: lowest Jain %.4f (seed %d, phase %d); longest "
            "below 0.7x the share %.1f base RTTs (seed %s, phase %s)" % (
                ",".join(map(str, a[0]["seeds"])), j["min"], j["seed"],
                j["phase"], st["max_rtts"], st.get("seed"), st.get("phase"))]
    return verdict([j["holds"], st["holds"]]), rows


def mean_se(xs):
    m = statistics.mean(xs)
    return m, (statistics.stdev(xs) / math.sqrt(len(xs))
               if len(xs) > 1 else float("nan"))


def pm_se(m, se, fmt="%.2f"):
    """MEAN ± SE, or MEAN alone for one seed."""
    return fmt % m + ("" if math.isnan(se) else " ± %.2f" % se)


def judge_websearch(out, load_pct):
    """The short flows' p99 and p99.9 over the seeds of one load."""
    per = {}
    prefix = "websearch-%d-s" % load_pct
    for d in sorted(os.listdir(out)) if os.path.isdir(out) else []:
        if not d.startswith(prefix):
            continue
        rows = load(os.path.join(out, d, "summary.json")) or []
        got = {r["algorithm"]: r for r in rows
               if r["bucket"] == "short" and r["load_pct"] == load_pct}
        if EVO in got and THETA in got:
            per[int(d[len(prefix):])] = got
    if not per:
        return "not run", []
    rows, oks, settled = [], [], []
    for key, name in (("p99_slowdown", "p99"), ("p999_slowdown", "p99.9")):
        e = [per[s][EVO][key] for s in sorted(per)]
        t = [per[s][THETA][key] for s in sorted(per)]
        (me, se_e), (mt, se_t) = mean_se(e), mean_se(t)
        diff, se_d = mean_se([a - b for a, b in zip(e, t)])
        oks.append(me <= mt)
        settled.append(abs(diff) > 2 * se_d or abs(diff) < WS_SETTLED * mt)
        rows.append("%s: %s against %s (the difference %s, %+.1f%%), "
                    "seeds %s" % (name, pm_se(me, se_e), pm_se(mt, se_t),
                                  pm_se(diff, se_d, "%+.2f"),
                                  100 * diff / mt,
                                  ",".join(map(str, sorted(per)))))
    if len(per) >= WS_MIN_SEEDS and all(settled):
        return verdict(oks), rows
    if not all(oks) and any(not o and s for o, s in zip(oks, settled)):
        return "not met", rows
    return "unsettled (%d seed%s)" % (len(per), "s"[:len(per) > 1]), rows


def report(args):
    out = args.out
    goals = [
        ("in-rack incast: waiting <= 0.5x θ's and <= 2.4 KB, link >= 99%",
         judge_queue(out, "incast", 0.5, 0.99, cap=2400)),
        ("largest RTT: waiting <= 0.6x θ's, link >= 98%",
         judge_queue(out, "maxrtt", 0.6, 0.98)),
        ("20:1 incast: score above θ's", judge_score(out, "fanin20")),
        ("the paper's burst: score above θ's, queries' p99 no later",
         judge_score(out, "burst", queries=True)),
        ("fairness: Jain >= 0.98, starvation <= 50 base RTTs",
         judge_fairness(out)),
        ("BPF build: the in-rack incast's goals",
         judge_queue(out, "bpf", 0.5, 0.99, cap=2400, theta_from="incast")),
    ]
    for load_pct in (50, 80):
        goals.append(("web search %d%%: short flows' p99 and p99.9 no worse"
                      % load_pct, judge_websearch(out, load_pct)))
    goals.append(("receivers that delay ACKs (no goal)", judge_delack(out)))
    params = None
    for check in ("incast", "fairness"):
        r = load(os.path.join(out, check, "run.json"))
        if r:
            params = [a for a in algorithms_of(r["command"]).split(",")
                      if a.startswith(EVO)][0]
            break
    lines = ["# Held-out checks of %s" % (params or EVO), "",
             "| goal | verdict | figures |", "|---|---|---|"]
    for name, (v, rows) in goals:
        lines.append("| %s | %s | %s |" % (name, v, "; ".join(rows) or "-"))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(out, "heldout.md"), "w") as f:
        f.write(text)
    with open(os.path.join(out, "heldout.json"), "w") as f:
        json.dump({"candidate": params, "goals": [
            {"goal": n, "verdict": v, "figures": r} for n, (v, r) in goals]},
            f, indent=1)
    print(text, end="")
    judged = [v for _, (v, _) in goals if v not in ("not run", "reported")]
    return 0 if judged and all(v == "met" for v in judged) else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=["run", "report"])
    ap.add_argument("--params", help="the candidate's module parameters, "
                    "P=V:P=V.. (default: evo's defaults)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "heldout"))
    ap.add_argument("--checks", default=",".join(list(CHECKS) +
                                                  ["websearch"]))
    ap.add_argument("--ws-loads", default="50,80")
    ap.add_argument("--ws-seeds", default=str(WS_MIN_SEEDS))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--dry-run", action="store_true",
                    help="check the arguments and print each guest's "
                    "command (testbed/run.sh --dry-run); run nothing")
    args = ap.parse_args()
    args.out = os.path.abspath(args.out)
    if args.params is not None and not PARAM_RE.match(args.params):
        bad("--params: P=V[:P=V..] with integer values, not '%s'"
            % args.params)
    args.checks = [c for c in args.checks.split(",") if c]
    unknown = [c for c in args.checks if c not in CHECKS and
               c != "websearch"]
    if unknown or not args.checks:
        bad("--checks: of %s, not '%s'" % (
            ",".join(list(CHECKS) + ["websearch"]), ",".join(unknown)))
    try:
        args.ws_loads = [int(x) for x in args.ws_loads.split(",") if x]
    except ValueError:
        bad("--ws-loads: L,L.. in percent")
    if not args.ws_loads or not all(0 < x < 100 for x in args.ws_loads):
        bad("--ws-loads: loads from 1 to 99 percent")
    args.ws_seeds = seeds_of(args.ws_seeds)
    if not 1 <= args.jobs <= 8:
        bad("--jobs: 1 to 8")
    if args.what == "report":
        if not os.path.isdir(args.out):
            bad("%s: no such directory" % args.out)
        return report(args)
    os.makedirs(args.out, exist_ok=True)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
