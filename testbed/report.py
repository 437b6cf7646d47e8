#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write docs/RESULTS.md from results/ (make incast/fairness/... run this).

    testbed/report.py [RESULTS_ROOT [DOCS_DIR]]

For each experiment with a summary under RESULTS_ROOT (incast, fairness,
websearch), copies its plots into DOCS_DIR/img/ and writes its tables, how
the run was made (RESULTS_ROOT/EXP/run.json of testbed/run.sh), the exact
parameters and what ran for each algorithm (the runs' params.json).

Every figure in the document comes from the results it is written from;
what does not change from run to run (why the testbed is built as it is,
how to read the tables) is in the hand-written docs/DESIGN.md, linked.
Results of older runs without run.json or the module record still work:
what they do not record is said to be unrecorded.
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tblib import order_key  # noqa: E402

root = sys.argv[1] if len(sys.argv) > 1 else "results"
docs = sys.argv[2] if len(sys.argv) > 2 else "docs"
DESIGN = "DESIGN.md"
# Per-algorithm fields of params.json, listed per algorithm, not in the
# common block.
PER_ALG = ("algorithm", "algorithm_spec", "module", "ecn_k_bytes", "qdisc",
           "kernel")


def load(exp):
    """The experiment's summary rows, after copying its plots; or None."""
    d = os.path.join(root, exp)
    if not os.path.exists(os.path.join(d, "summary.json")):
        return None
    os.makedirs(os.path.join(docs, "img"), exist_ok=True)
    for png in sorted(os.listdir(d)):
        if png.endswith(".png"):
            shutil.copy(os.path.join(d, png), os.path.join(docs, "img", png))
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def all_params(exp):
    """{algorithm: params.json of its first run}, _nosample left out."""
    out = {}
    for dirpath, _, files in sorted(os.walk(os.path.join(root, exp))):
        if "params.json" in files and "_nosample" not in dirpath:
            with open(os.path.join(dirpath, "params.json")) as f:
                p = json.load(f)
            out.setdefault(p.get("algorithm", dirpath), p)
    return dict(sorted(out.items(), key=lambda kv: order_key(kv[0])))


out = []
w = out.append


def how_made(exp):
    """How the experiment's results were produced, from run.json."""
    path = os.path.join(root, exp, "run.json")
    if not os.path.exists(path):
        w("How this run was made is not recorded (no %s/run.json: results"
          % exp)
        w("older than testbed/run.sh's record).")
        w("")
        return
    with open(path) as f:
        r = json.load(f)
    where = ("natively on kernel %s" % r["kernel"] if r.get("native") else
             "in QEMU guests (kernel %s) under -icount" % r["kernel"])
    commit = r.get("commit") or "an unknown commit"
    w("Made by `%s` %s, on %s, from commit %s%s." % (
        " ".join(r["command"]), where, r.get("date", "an unrecorded date"),
        commit[:12], " with local changes" if r.get("modified") else ""))
    w("")


def params_block(exp):
    """The common parameters, then what ran for each algorithm."""
    ps = all_params(exp)
    if not ps:
        return
    first = next(iter(ps.values()))
    common = {k: v for k, v in first.items() if k not in PER_ALG}
    w("Parameters common to the algorithms (of the first run; per-run")
    w("fields such as a load's flows differ between runs):")
    w("")
    w("```")
    w(json.dumps(common, indent=1, sort_keys=True))
    w("```")
    w("")
    w("| algorithm | --cc | queue | kernel | module | build id | parameters set |")
    w("|---|---|---|---|---|---|---|")
    for alg, p in ps.items():
        q = p.get("qdisc") or ("ecn" if p.get("ecn_k_bytes") else "fifo")
        if q == "ecn":
            q = "ECN marking at K = %d B" % p.get("ecn_k_bytes", 0)
        m = p.get("module")
        if "module" not in p:
            mod = bid = ps_set = "not recorded"
        elif m is None:
            mod, bid, ps_set = "built into the kernel", "-", "-"
        else:
            mod = m["name"] + (" (built in)" if m.get("builtin") else "")
            if m.get("file"):
                mod += ", " + os.path.basename(m["file"])
            bid = (m.get("build_id") or "-")[:12]
            ps_set = ", ".join("%s=%s" % kv for kv in
                               sorted(m.get("params_set", {}).items())) or "-"
        w("| %s | `%s` | %s | %s | %s | %s | %s |" % (
            alg, p.get("algorithm_spec", alg), q, p.get("kernel", "?"), mod,
            bid, ps_set))
    w("")
    w("Every parameter in force of each module is in its run's params.json")
    w("(`module.params`).")
    w("")


def incast(rows):
    p = rows[0]["params"]
    w("## 10:1 incast")
    w("")
    how_made("incast")
    w("| algorithm | throughput (Mbit/s) | of link | avg queue (B) | p99 queue (B)"
      " | peak queue (B) | drain to < 1 BDP (µs) | combined_score |")
    w("|---|---|---|---|---|---|---|---|")
    for r in rows:
        w("| %s | %.2f | %.1f%% | %.0f | %d | %d | %s | %.1f |" % (
            r["algorithm"], r["avg_throughput_mbps"],
            100 * r["avg_throughput_mbps"] / r["link_rate_mbps"],
            r["avg_queue_bytes"], r["p99_queue_bytes"], r["peak_queue_bytes"],
            "never" if r["drain_time_us"] < 0 else r["drain_time_us"],
            r["combined_score"]))
    w("")
    w("Measured at the switch's egress port towards the receiver, from the")
    w("incast start (%d µs) to the end of the run (%d µs). `combined_score` is"
      % (p["pre_us"], p["end_us"]))
    w("`exp(thr - 20) - avg_queue / 100` with the throughput normalized to a")
    w("25 Gb/s link (25 x measured / R, in Gb/s).")
    w("")
    w("![queue and throughput around the incast](img/incast.png)")
    w("")
    w("![CDF of the queue after the incast](img/incast_cdf.png)")
    w("")
    w("CPU headroom (all flows, no rate limit; must be at least 2x the link,")
    w("%d Mbit/s): " % (2 * p["rate_mbit"]) +
      ", ".join("%s %d Mbit/s" % (r["algorithm"], r["headroom_mbps"])
                for r in rows) + ".")
    w("")
    samp = os.path.join(root, "incast", "sampling.json")
    if os.path.exists(samp):
        with open(samp) as f:
            sm = json.load(f)
        w("Sampling the queue: the same theta_powertcp run without the sampler")
        w("delivered %d bytes, with it %d (%+.2f%%)."
          % (sm["without_sampling_bytes"], sm["with_sampling_bytes"],
             sm["difference_pct"]))
        w("")
    mtu, rate, tau = p["mtu"], p["rate_mbit"], p["tau_us"]
    w("At this run's scale: R = %d Mbit/s, time x %d; the base RTT is %d µs"
      % (rate, p.get("time_scale", 25000 // rate), p["rtt_us"]))
    w("and τ = %d µs; the BDP is %d B = %.1f full-size packets, shared by %d"
      % (tau, p["bdp_bytes"], p["bdp_bytes"] / mtu, p["senders"] + 1))
    w("flows after the incast; one packet of queue is %d µs at R, %.0f%% of τ."
      % (mtu * 8 // rate, 100.0 * mtu * 8 / rate / tau))
    w("How to read the table, and why the testbed is built as it is:")
    w("[DESIGN.md](%s)." % DESIGN)
    w("")
    w("### Parameters of this run")
    w("")
    params_block("incast")


def fairness(rows):
    algs = []
    for r in rows:
        if r["algorithm"] not in algs:
            algs.append(r["algorithm"])
    phases = sorted({r["phase"] for r in rows})
    by = {(r["algorithm"], r["phase"]): r for r in rows}
    flows = [by[(algs[0], k)]["flows"] for k in phases]
    p = next(iter(all_params("fairness").values()), {})
    w("## Fairness")
    w("")
    how_made("fairness")
    if p:
        w("%d flows start one phase (%d base RTTs, %d µs) apart and stop in the"
          % (p["flows"], p["phase_rtts"], p["phase_us"]))
        w("same order (%s flows in the phases). Jain's fairness index of the"
          % ", ".join(str(n) for n in flows))
        w("flows' mean rates per phase, after the convergence allowance of %d µs:"
          % p["settle_us"])
    else:
        w("Jain's fairness index of the flows' mean rates per phase (%s flows),"
          % ", ".join(str(n) for n in flows))
        w("after the convergence allowance:")
    w("")
    w("| algorithm | " + " | ".join("phase %d (%d)" % (k, n)
                                      for k, n in zip(phases, flows)) + " |")
    w("|---|" + "---|" * len(phases))
    for a in algs:
        w("| %s | " % a + " | ".join("%.3f" % by[(a, k)]["jain_index"]
                                   for k in phases) + " |")
    w("")
    w("Time for the newcomer to come within 10% of its fair share (ms), and")
    w("the mean standard deviation of a flow's rate within the phase (Mbit/s):")
    w("")
    w("| algorithm | " + " | ".join("phase %d" % k for k in phases) + " |")
    w("|---|" + "---|" * len(phases))
    for a in algs:
        cells = []
        for k in phases:
            r = by[(a, k)]
            c = r.get("convergence_time_us")
            conv = ("-" if c is None else "never" if c < 0
                    else "%.0f" % (c / 1000))
            cells.append("%s / %.1f" % (conv, r["rate_stddev_mbps"]))
        w("| %s | " % a + " | ".join(cells) + " |")
    w("")
    w("![per-flow throughput over time](img/fairness.png)")
    w("")
    if p.get("paper_phase_rtts"):
        w("The paper's phases are %d base RTTs; these are %d, %.1fx shorter"
          % (p["paper_phase_rtts"], p["phase_rtts"],
             p["paper_phase_rtts"] / p["phase_rtts"]))
        w("([DESIGN.md](%s): where the testbed departs from the paper)."
          % DESIGN)
        w("")
    params_block("fairness")


def websearch(rows):
    main = [r for r in rows if r["bucket"] in ("short", "medium", "long")]
    w("## Web search")
    w("")
    how_made("websearch")
    w("Flow completion time slowdown (FCT / FCT alone on the empty network)")
    w("per size bucket: short < 100 KB, medium, long >= 1 MB. p50 / p99 /")
    w("p99.9; *italic* p99.9 means the bucket has fewer than 1000 flows, so")
    w("p99.9 is only its largest value.")
    w("")
    loads = sorted({r["load_pct"] for r in main})
    w("Loads in this run: %s%% of the leaf uplinks (`testbed/websearch.sh"
      % ", ".join("%g" % x for x in loads))
    w("--help` gives the default set; `testbed/run.sh websearch -- --loads")
    w("L1,L2` runs others).")
    w("")
    w("| algorithm | load | short | medium | long | flows (unfinished) |")
    w("|---|---|---|---|---|---|")
    keys = []
    for r in main:
        k = (r["algorithm"], r["load_pct"])
        if k not in keys:
            keys.append(k)
    by = {(r["algorithm"], r["load_pct"], r["bucket"]): r for r in main}
    for a, load in keys:
        cells, n, unf = [], 0, 0
        for b in ("short", "medium", "long"):
            r = by.get((a, load, b))
            if not r or r["p50_slowdown"] is None:
                cells.append("-")
                continue
            p999 = "%.2f" % r["p999_slowdown"]
            if not r["p999_meaningful"]:
                p999 = "*%s*" % p999
            cells.append("%.2f / %.2f / %s" % (r["p50_slowdown"],
                                               r["p99_slowdown"], p999))
            n, unf = r["run_flows"], r["run_unfinished"]
        w("| %s | %d%% | %s | %d (%d) |" % (a, load, " | ".join(cells), n, unf))
    w("")
    w("![p99.9 slowdown against flow size](img/websearch.png)")
    w("")
    params_block("websearch")


def main():
    w("# Results")
    w("")
    w("Written by testbed/report.py from the results of `make reproduce` (or")
    w("`make incast`, `make fairness`, `make websearch` for one experiment);")
    w("every figure below comes from those results. What the figures mean,")
    w("the scaling and where the testbed departs from the paper:")
    w("[DESIGN.md](%s)." % DESIGN)
    w("")
    done = 0
    for exp, fn in (("incast", incast), ("fairness", fairness),
                    ("websearch", websearch)):
        rows = load(exp)
        if rows:
            fn(rows)
            done += 1
    if not done:
        sys.exit("report: no results under %s (run make incast first)" % root)
    with open(os.path.join(docs, "RESULTS.md"), "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")
    print("wrote %s/RESULTS.md" % docs)


if __name__ == "__main__":
    main()
