#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Write the results report, OUT_DIR/RESULTS.md, from the results of the runs.

    testbed/report.py [--keep] [RESULTS_ROOT [OUT_DIR]]
    testbed/report.py [--keep] [--results RESULTS_ROOT] [--out OUT_DIR]

RESULTS_ROOT defaults to results, OUT_DIR to results: a user's run
(make incast, fairness, websearch, bench-ack, reproduce) writes
results/RESULTS.md and leaves the clone as it was; the maintainer's make
update-docs writes the committed docs/RESULTS.md (OUT_DIR docs).

For each experiment with a summary under RESULTS_ROOT (incast, fairness,
websearch, bench-ack), copies its plots into OUT_DIR/img/ and writes its
tables, how the run was made (RESULTS_ROOT/EXP/run.json of testbed/run.sh),
the exact parameters and what ran for each algorithm (the runs'
params.json). The incast and fairness figures are over the seeds of the
run (testbed/run.sh --seeds): mean ± standard deviation and min–max, the
number of seeds stated; the fairness goals are checked for every seed.

Every figure in the document comes from the results it is written from;
what does not change from run to run is in the hand-written docs, linked
relative to OUT_DIR: docs/TESTBED.md (why the testbed is built as it is,
how to read the tables, where it departs from the paper) and docs/PERF.md
(the per-ACK cost). Results of older runs without run.json or the module
record still work: what they do not record is said to be unrecorded.

--keep (what make incast, fairness, websearch and bench-ack use): a
section whose experiment has no results under RESULTS_ROOT is kept as the
existing OUT_DIR/RESULTS.md has it, with its own "Made by" line (each
section says which run and commit it is from), so that one experiment can
be rerun without rerunning the others. Without it (make reproduce), the
document holds the experiments found and nothing else.
"""
import argparse
import json
import os
import re
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "lib"))
from tblib import order_key, pm  # noqa: E402

# The hand-written docs the report links to, in the repository's docs/.
DOCS = os.path.join(os.path.dirname(HERE), "docs")
# Set by main() from the command line.
KEEP = False
root = "results"	# RESULTS_ROOT
outdir = "results"	# OUT_DIR, where RESULTS.md and img/ are written
# Per-algorithm fields of params.json, listed per algorithm, not in the
# common block.
PER_ALG = ("algorithm", "algorithm_spec", "module", "ecn_k_bytes", "qdisc",
           "kernel")
# Experiments run once per seed (ALG/seed-S/); the seed is then per run.
SEEDED = ("incast", "incast-sweep", "fairness", "coexist", "coexist-compete",
          "incast-host-stack", "fairness-host-stack", "incast-quantized",
          "fairness-quantized")


def doc_link(name, anchor=None):
    """A Markdown link to the hand-written docs/@name (#@anchor), relative
    to OUT_DIR, where the report is written. (The plots the report shows
    are its own copies in OUT_DIR/img/, linked as img/NAME.png.)"""
    path = os.path.relpath(os.path.join(DOCS, name), os.path.abspath(outdir))
    return "[%s](%s%s)" % (name, path, "#" + anchor if anchor else "")


# Results of an experiment's own script run another way, reported apart:
# their folder under the results and the experiment they are of.
VARIANT_OF = {"coexist-compete": "coexist",
              "incast-host-stack": "incast", "fairness-host-stack": "fairness",
              "incast-quantized": "incast", "fairness-quantized": "fairness"}
# What the variant's runs had that the experiment's do not (their command,
# in the "Made by" line, says how), and the doc that says more.
HOST_STACK_NOTE = ("Hosts of the host-stack profile (--host-stack: GRO,"
                   " delayed ACKs, TSO, the NICs' interrupt moderation; %s).",
                   ("TESTBED.md", "the-host-stack-profile"))
QUANTIZED_NOTE = ("The law's RTT samples in whole multiples of"
                  " rtt_quantum_us, the real scale's resolution (%s).",
                  ("MODULE.md", "a-test-instrument-the-sample-resolution-at-"
                   "real-scale"))
VARIANT_NOTE = {"incast-host-stack": HOST_STACK_NOTE,
                "fairness-host-stack": HOST_STACK_NOTE,
                "incast-quantized": QUANTIZED_NOTE,
                "fairness-quantized": QUANTIZED_NOTE}


def variant_note(exp):
    """A variant's line under its title: what its runs had."""
    if exp in VARIANT_NOTE:
        text, doc = VARIANT_NOTE[exp]
        w(text % doc_link(*doc))
        w("")


def img_name(exp, png):
    """The name under img/ of @exp's plot @png: its own, or for a variant
    (VARIANT_OF: coexist.png of coexist-compete) the variant's name."""
    kind = VARIANT_OF.get(exp)
    return png.replace(kind, exp, 1) if kind else png


def load(exp):
    """The experiment's summary rows, after copying its plots; or None."""
    d = os.path.join(root, exp)
    if not os.path.exists(os.path.join(d, "summary.json")):
        return None
    os.makedirs(os.path.join(outdir, "img"), exist_ok=True)
    for png in sorted(os.listdir(d)):
        if png.endswith(".png"):
            shutil.copy(os.path.join(d, png),
                        os.path.join(outdir, "img", img_name(exp, png)))
    with open(os.path.join(d, "summary.json")) as f:
        return json.load(f)


def all_params(exp):
    """{algorithm: params.json of its first run (lowest seed)}, _nosample
    left out; in the seeded experiments, only ALG/seed-S/ runs."""
    out = {}
    for dirpath, _, files in sorted(os.walk(os.path.join(root, exp))):
        if "params.json" not in files or "_nosample" in dirpath:
            continue
        if exp in SEEDED and not re.fullmatch(r"seed-[0-9]+",
                                              os.path.basename(dirpath)):
            continue
        with open(os.path.join(dirpath, "params.json")) as f:
            p = json.load(f)
        a = p.get("algorithm", dirpath)
        if a not in out or p.get("seed", 0) < out[a].get("seed", 0):
            out[a] = p
    return dict(sorted(out.items(), key=lambda kv: order_key(kv[0])))


out = []
w = out.append


def command_text(cmd, exp):
    """run.json's @cmd as a shell line, its --out the folder the report
    reads @exp's results from (a run's output may have been moved there;
    where it went does not change what it measured)."""
    cmd = list(cmd)
    for i, arg in enumerate(cmd[:-1]):
        if arg == "--":
            break
        if arg == "--out":
            cmd[i + 1] = os.path.join(os.path.basename(root.rstrip("/")) or
                                      root, exp)
    return " ".join(cmd)


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
        command_text(r["command"], exp), where, r.get("date", "an unrecorded date"),
        commit[:12], " with local changes" if r.get("modified") else ""))
    w("")


def how_made_by_algorithm(exp):
    """How each algorithm's results were produced, from the run.json that
    testbed/run.sh leaves beside them (runs of different algorithms may
    join in one OUT); the experiment's own run.json if there are none."""
    base = os.path.join(root, exp)
    made = {}
    for d in sorted(os.listdir(base), key=order_key):
        path = os.path.join(base, d, "run.json")
        # A run under way stages in OUT/.run-*.
        if not d.startswith(".") and os.path.isfile(path):
            with open(path) as f:
                r = json.load(f)
            made.setdefault(json.dumps(r, sort_keys=True), []).append(d)
    if not made:
        how_made(exp)
    for r, algs in made.items():
        r = json.loads(r)
        w("%s: made by `%s` in QEMU guests (kernel %s) under -icount, on %s,"
          " from commit %s%s." % (
              ", ".join(algs), " ".join(r["command"]), r["kernel"],
              r.get("date", "an unrecorded date"),
              (r.get("commit") or "an unknown commit")[:12],
              " with local changes" if r.get("modified") else ""))
        w("")


def params_block(exp):
    """The common parameters, then what ran for each algorithm."""
    ps = all_params(exp)
    if not ps:
        return
    first = next(iter(ps.values()))
    per_run = PER_ALG + (("seed",) if exp in SEEDED else ())
    common = {k: v for k, v in first.items() if k not in per_run}
    if exp in SEEDED:
        w("Parameters common to the algorithms and seeds (of the first run;")
        w("the seed is the run's, and with it its flows' start offsets):")
    else:
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


def seeds_text(seeds):
    return "%d seed%s (%s)" % (len(seeds), "" if len(seeds) == 1 else "s",
                               ", ".join(str(x) for x in seeds))


def mm(a, fmt):
    """min–max of a spread ('-' if it does not apply)."""
    if a is None:
        return "-"
    if not a["n"]:
        return "never"
    lo, hi = fmt % a["min"], fmt % a["max"]
    t = lo if lo == hi else lo + "–" + hi
    if a.get("never"):
        t += ", %d never" % a["never"]
    return t


def old_layout(exp):
    w("`%s/%s/summary.json` is of the layout before seeds (one run per" %
      (root, exp))
    w("algorithm): rerun `make %s` to report it." % exp)
    w("")


def incast(doc, exp="incast"):
    w(TITLES[exp])
    w("")
    variant_note(exp)
    how_made(exp)
    if not isinstance(doc, dict):
        old_layout(exp)
        return
    algs, seeds = doc["algorithms"], doc["seeds"]
    p = doc["runs"][0]["params"]
    many = any(a["n_seeds"] > 1 for a in algs)
    if many:
        w("Every algorithm ran with %s, each run in its own guest; each"
          % seeds_text(seeds))
        w("cell is the mean ± standard deviation over the seeds (the second")
        w("table: min–max).")
    else:
        w("Every algorithm ran with %s: one run each, no spread." %
          seeds_text(seeds))
    w("")
    cols = [("avg_throughput_mbps", "%.2f"), (None, None),
            ("avg_waiting_bytes", "%.0f"), ("p99_waiting_bytes", "%.0f"),
            ("avg_queue_bytes", "%.0f"), ("p99_queue_bytes", "%.0f"),
            ("peak_queue_bytes", "%.0f"), ("drain_time_us", "%.0f"),
            ("waiting_score", "%.1f"), ("combined_score", "%.1f")]

    def of_link(a, f):
        t = a["avg_throughput_mbps"]
        return f(dict(t, **{k: None if t[k] is None else
                            100 * t[k] / a["link_rate_mbps"]["mean"]
                            for k in ("mean", "sd", "min", "max")}),
                 "%.1f%%")
    head = ("| algorithm | seeds | throughput (Mbit/s) | of link"
            " | avg waiting (B) | p99 waiting (B) | avg backlog (B)"
            " | p99 backlog (B) | peak backlog (B) | drain to < 1 BDP (µs) |"
            " score, waiting | score, backlog |")
    for f in (pm, mm) if many else (pm,):
        w(head)
        w("|---" * 12 + "|")
        for a in algs:
            w("| %s | %d | " % (a["algorithm"], a["n_seeds"]) + " | ".join(
                of_link(a, f) if k is None else f(a.get(k), fmt)
                for k, fmt in cols) + " |")
        w("")
    w("Measured at the switch's egress port towards the receiver, from the")
    w("incast start (%d µs) to the end of the run (%d µs). *Waiting*: the"
      % (p["pre_us"], p["end_us"]))
    w("bytes waiting, without the packet in service, as ns-3 counts a queue")
    w("and as the case study's figures are; *backlog*: the qdisc's backlog,")
    w("with it (docs/TESTBED.md, \"The queue: waiting and backlog\").")
    w("The score is `exp(thr - 20) - avg_queue / 100` of each, with the")
    w("throughput normalized to a 25 Gb/s link (25 x measured / R, in")
    w("Gb/s); the search's objective is the backlog's. A drain time")
    w("\"never\": the")
    w("queue did not go below one BDP in that many seeds (the others'")
    w("spread is given).")
    w("")
    w("![queue and throughput around the incast](img/%s)"
      % img_name(exp, "incast.png"))
    w("")
    w("![CDF of the queue after the incast](img/%s)"
      % img_name(exp, "incast_cdf.png"))
    w("")
    w("The plots show seed %d (the CDF: every seed, seed %d bold)."
      % (seeds[0], seeds[0]))
    w("")
    w("CPU headroom (all flows, no rate limit; must be at least 2x the link,")
    w("%d Mbit/s), the lowest over the seeds: " % (2 * p["rate_mbps"]) +
      ", ".join("%s %d Mbit/s" % (a["algorithm"], a["headroom_mbps"]["min"])
                for a in algs) + ".")
    w("")
    samp = os.path.join(root, exp, "sampling.json")
    if os.path.exists(samp):
        with open(samp) as f:
            sm = json.load(f)
        w("Sampling the queue: the same theta_powertcp run%s without the"
          % (" (seed %d)" % sm["seed"] if "seed" in sm else ""))
        w("sampler delivered %d bytes, with it %d (%+.2f%%)."
          % (sm["without_sampling_bytes"], sm["with_sampling_bytes"],
             sm["difference_pct"]))
        w("")
    mtu, rate, tau = p["mtu"], p["rate_mbps"], p["tau_us"]
    w("At this run's scale: R = %d Mbit/s, time x %d; the base RTT is %d µs"
      % (rate, p.get("time_scale", 25000 // rate), p["rtt_us"]))
    w("and τ = %d µs; the BDP is %d B = %.1f full-size packets, shared by %d"
      % (tau, p["bdp_bytes"], p["bdp_bytes"] / mtu, p["senders"] + 1))
    w("flows after the incast; one packet of queue is %d µs at R, %.0f%% of τ."
      % (mtu * 8 // rate, 100.0 * mtu * 8 / rate / tau))
    w("How to read the table, and why the testbed is built as it is:")
    w("%s." % doc_link("TESTBED.md"))
    w("")
    w("### Parameters of this run")
    w("")
    params_block(exp)


def incast_sweep(doc):
    w(TITLES["incast-sweep"])
    w("")
    how_made_by_algorithm("incast-sweep")
    pts, floors = doc["points"], doc["floors"]
    p = doc["runs"][0]["params"]
    rate = p["rate_mbps"]
    w("The incast of the section above at each fan-in N (N incast senders")
    w("besides the long flow), %s, every algorithm, fan-in and seed in a"
      % seeds_text(doc["seeds"]))
    w("guest of its own; each cell the mean ± standard deviation over the")
    w("seeds. Queue figures are the bytes waiting (the backlog without the")
    w("packet in service); the peak is the backlog's. Jain's index and the")
    w("longest stall are over the N incast flows (a flow that got nothing")
    w("counts as 0); a stall is the longest time between two goodput")
    w("samples (every base RTT) at which a flow's count grew, and the first")
    w("byte the longest a flow waited for its first. Retransmissions are the")
    w("senders' (their namespaces' TCP RetransSegs). Headroom: the rate the")
    w("guest moved the same flows at without the rate limit (≥ %d Mbit/s"
      % (2 * rate))
    w("needed); a row whose guest fell short is marked *CPU-bound*.")
    w("")
    cols = [("avg_waiting_bytes", "%.0f"), ("p99_waiting_bytes", "%.0f"),
            ("peak_queue_bytes", "%.0f"), ("drain_time_us", "%.0f"),
            ("drops", "%.0f"), ("retrans_segs", "%.0f"),
            ("incast_jain_index", "%.3f"), ("incast_stall_max_us", "%.0f"),
            ("incast_first_byte_max_us", "%.0f"), ("headroom_mbps", "%.0f")]
    w("| algorithm | N | of link | avg waiting (B) | p99 waiting (B) |"
      " peak backlog (B) | drain to < 1 BDP (µs) | drops | retransmitted"
      " | Jain, incast flows | longest stall (µs) | first byte (µs) |"
      " headroom (Mbit/s) |")
    w("|---" * 13 + "|")
    for pt in pts:
        t = pt["avg_throughput_mbps"]
        share = dict(t, **{k: None if t[k] is None else 100 * t[k] / pt[
            "rate_mbps"] for k in ("mean", "sd", "min", "max")})
        n = "%d" % pt["fanin"]
        if pt["rate_mbps"] != rate:
            n += " (at %g Mbit/s)" % pt["rate_mbps"]
        if pt["cpu_bound"]:
            n += " *CPU-bound*"
        w("| %s | %s | %s | " % (pt["algorithm"], n, pm(share, "%.1f%%")) +
          " | ".join(pm(pt.get(k), f) for k, f in cols) + " |")
    w("")
    law = doc["law"]
    w("The law's floors at each N (min_rate_ppm %d and beta_ppm %d, of"
      % (law["min_rate_ppm"], law["beta_ppm"]))
    w("our modules' runs; the long flow counted): every flow at its rate")
    w("floor, %g%% of the link each; every flow at β, %g%% each (under a"
      % (law["min_rate_ppm"] / 1e4, law["beta_ppm"] / 1e4))
    w("standing queue the law's W = W/Γ + β tends to β); every flow with")
    w("one packet in flight, and the queue those packets leave beyond the")
    w("BDP (%d B)." % p["bdp_bytes"])
    w("")
    w("| N | flows | rate floors (Mbit/s) | of link | β floors (Mbit/s) |"
      " of link | one packet each (B) | its queue (B) |")
    w("|---|---|---|---|---|---|---|---|")
    for f in floors:
        w("| %d | %d | %.1f | %.0f%% | %.1f | %.0f%% | %d | %d |" % (
            f["fanin"], f["flows"], f["rate_floor_mbps"],
            100 * f["rate_floor_mbps"] / rate, f["beta_floor_mbps"],
            100 * f["beta_floor_mbps"] / rate, f["one_packet_bytes"],
            f["one_packet_queue_bytes"]))
    w("")
    w("![queue against the fan-in](img/incast-sweep.png)")
    w("")
    w("![throughput and Jain's index against the fan-in]"
      "(img/incast-sweep_throughput.png)")
    w("")
    w("What the sweep shows and why: %s." % doc_link(
        "TESTBED.md", "the-incast-at-scale-fan-in-sweep"))
    w("")
    w("### Parameters of this run")
    w("")
    params_block("incast-sweep")


def fairness(doc, exp="fairness"):
    w(TITLES[exp])
    w("")
    variant_note(exp)
    how_made(exp)
    if not isinstance(doc, dict):
        old_layout(exp)
        return
    seeds, rows, goals = doc["seeds"], doc["phases"], doc["algorithms"]
    algs = [g["algorithm"] for g in goals]
    phases = sorted({r["phase"] for r in rows})
    by = {(r["algorithm"], r["phase"]): r for r in rows}
    flows = [by[(algs[0], k)]["flows"] for k in phases]
    p = next(iter(all_params(exp).values()), {})
    if any(g["n_seeds"] > 1 for g in goals):
        w("Every algorithm ran with %s, each run in its own guest; each"
          % seeds_text(seeds))
        w("cell is the mean ± standard deviation over the seeds, then the")
        w("min–max.")
    else:
        w("Every algorithm ran with %s: one run each, no spread." %
          seeds_text(seeds))
    w("")
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

    def table(cell):
        w("| algorithm | " + " | ".join("phase %d (%d)" % (k, n)
                                          for k, n in zip(phases, flows)) +
          " |")
        w("|---|" + "---|" * len(phases))
        for a in algs:
            w("| %s | " % a + " | ".join(cell(by[(a, k)]) for k in phases) +
              " |")
        w("")

    def both(x, fmt):
        if x is None or not x["n"] or x["sd"] is None:
            return pm(x, fmt)
        return "%s (%s)" % (pm(x, fmt), mm(x, fmt))

    def ms(x):
        if x is None:
            return None
        return dict(x, **{k: None if x[k] is None else x[k] / 1000
                          for k in ("mean", "sd", "min", "max")})
    table(lambda r: both(r["jain_index"], "%.3f"))
    w("Time for the newcomer to come within %g%% of its fair share (ms; -"
      % (100 * doc["tolerance"]))
    w("where no flow starts; \"never\": not within the phase in that many")
    w("seeds):")
    w("")
    table(lambda r: both(ms(r["convergence_time_us"]), "%.1f"))
    w("The mean standard deviation of a flow's rate within the phase")
    w("(Mbit/s):")
    w("")
    table(lambda r: both(r["rate_stddev_mbps"], "%.1f"))
    w("The longest time a flow's rate (averaged over %d goodput intervals)"
      % doc["smooth_intervals"])
    w("stayed below %.1f of its fair share after the allowance, in base RTTs:"
      % doc["starve_fraction"])
    w("")
    table(lambda r: both(r["starved_rtts"], "%.1f"))
    jg = goals[0]["jain_goal"]["threshold"]
    sg = goals[0]["starvation_goal"]["limit_rtts"]
    w("The goals, over every seed: Jain's index at least %g in every" % jg)
    w("multi-flow phase; no flow below %.1f of its fair share for more than"
      % doc["starve_fraction"])
    w("%g base RTTs after the convergence allowance." % sg)
    w("")
    w("| algorithm | seeds | Jain >= %g | lowest Jain (seed, phase) |"
      " ≤ %g RTTs starved | longest (seed, phase, flow) |" % (jg, sg))
    w("|---|---|---|---|---|---|")
    for g in goals:
        j, st = g["jain_goal"], g["starvation_goal"]
        w("| %s | %d | %s | %s | %s | %s |" % (
            g["algorithm"], g["n_seeds"], "yes" if j["holds"] else "**no**",
            "-" if j["min"] is None else
            "%.3f (%d, %d)" % (j["min"], j["seed"], j["phase"]),
            "yes" if st["holds"] else "**no**",
            "%.1f RTTs" % st["max_rtts"] + (
                "" if st["flow"] is None else
                " (%d, %d, %d)" % (st["seed"], st["phase"], st["flow"]))))
    w("")
    w("![per-flow throughput over time](img/%s)"
      % img_name(exp, "fairness.png"))
    w("")
    w("The plot shows seed %d; over each phase its Jain index and, in"
      % seeds[0])
    w("brackets, the range of the phase's index over the seeds.")
    w("")
    if p.get("paper_phase_rtts"):
        w("The paper's phases are %d base RTTs; these are %d, %.1fx shorter"
          % (p["paper_phase_rtts"], p["phase_rtts"],
             p["paper_phase_rtts"] / p["phase_rtts"]))
        w("(%s: where the testbed departs from the paper)."
          % doc_link("TESTBED.md"))
        w("")
    params_block(exp)


def websearch(rows):
    main = [r for r in rows if r["bucket"] in ("short", "medium", "long")]
    w(TITLES["websearch"])
    w("")
    how_made("websearch")
    w("Flow completion time slowdown (FCT / FCT alone on the empty network)")
    w("per size bucket: short < 100 KB, medium, long >= 1 MB. p50 / p99 /")
    w("p99.9; *italic* p99.9 means the bucket has fewer than 1000 flows, so")
    w("p99.9 is only its largest value.")
    w("")
    loads = sorted({r["load_pct"] for r in main})
    w("Loads in this run: %s%% of the leaf uplinks (`testbed/websearch/run.sh"
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


def seed_params(exp):
    """The params.json of every run of @exp, every seed."""
    out = []
    for dirpath, _, files in sorted(os.walk(os.path.join(root, exp))):
        if "params.json" in files and re.fullmatch(
                r"seed-[0-9]+", os.path.basename(dirpath)):
            with open(os.path.join(dirpath, "params.json")) as f:
                out.append(json.load(f))
    return out


def coexist(doc, exp="coexist"):
    w(TITLES[exp])
    w("")
    if exp == "coexist-compete":
        w("PowerTCP-evo with its competitive mode on (`variant=32`,"
          " PT_VAR_COMPETE,")
        w("%s), in the same cases as above." % doc_link(
            "MODULE.md", "the-competitive-mode-next-to-loss-based-flows"))
        w("")
    how_made_by_algorithm(exp)
    cases, seeds = doc["cases"], doc["seeds"]
    par = next(iter(all_params(exp).values()), {})
    w("Each algorithm ran with %s, a guest per seed; each cell is the mean"
      % seeds_text(seeds))
    w("± standard deviation over the seeds. Shares are of the bytes"
      " received")
    w("from %d µs to the end of each case (%d µs); *of link*: each side's"
      % (par.get("from_us", 0), par.get("duration_us", 0)))
    w("goodput over what the link carries. Mix: the algorithm's flows : the")
    w("peer's. The queue: the bottleneck's average bytes waiting.")
    w("")
    w("### Shared queue")
    w("")
    w("| algorithm | peer | mix | buffer | share | share / fair | of link,"
      " algorithm / peer | Jain | avg waiting (B) | drops |"
      " retransmitted segments, algorithm / peer |")
    w("|---" * 11 + "|")
    for c in cases:
        if c["queue"] != "shared":
            continue
        w("| %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s | %s / %s |"
          % (c["algorithm"], c["peer"], c["mix"], c["buffer"],
             pm(c["share"], "%.3f"), pm(c["share_ratio"], "%.2f"),
             pm(c["link_fraction"], "%.3f"),
             pm(c["link_fraction_peer"], "%.3f"),
             pm(c["jain_index"], "%.3f"), pm(c["avg_waiting_bytes"], "%.0f"),
             pm(c["drops"], "%.0f"), pm(c["retrans_segs"], "%.0f"),
             pm(c["retrans_segs_peer"], "%.0f")))
    w("")
    iso = [c for c in cases if c["queue"] == "isolated"]
    if iso:
        w("### Isolated classes")
        w("")
        w("The algorithm's hosts mark DSCP AF41; the switch's port serves"
          " two")
        w("drr classes, the algorithm's and the rest, weighted to give the")
        w("algorithm the *weight* column's part, each a FIFO of the buffer;")
        w("our modules' base_rtt_us is τ plus the peer's quantum at R in")
        w("these cases (%s µs). *Class queue*: the" % ", ".join(sorted({
            str(p.get("isolated_tau_us")) for p in seed_params(exp)})))
        w("algorithm's class's average backlog; *vs alone*: over that of"
          " its")
        w("flows alone on the link (same buffer and seed).")
        w("")
        w("| algorithm | peer | mix | buffer | share | weight | of link,"
          " algorithm / peer | class queue (B) | vs alone | whole queue,"
          " waiting (B) |")
        w("|---" * 10 + "|")
        for c in iso:
            w("| %s | %s | %s | %s | %s | %.2f | %s / %s | %s | %s | %s |"
              % (c["algorithm"], c["peer"], c["mix"], c["buffer"],
                 pm(c["share"], "%.3f"), c["fair_share"],
                 pm(c["link_fraction"], "%.3f"),
                 pm(c["link_fraction_peer"], "%.3f"),
                 pm(c.get("class_avg_queue_bytes"), "%.0f"),
                 pm(c.get("class_queue_vs_alone"), "%.2f"),
                 pm(c["avg_waiting_bytes"], "%.0f")))
        w("")
    alone = [c for c in cases if c["queue"] == "alone"]
    if alone:
        w("Alone: " + "; ".join(
            "%s, %s flow%s, buffer %s: %s of the link, backlog %s B" % (
                c["algorithm"], c["mix"].split(":")[0],
                "" if c["mix"].startswith("1:") else "s", c["buffer"],
                pm(c["link_fraction"], "%.3f"),
                pm(c["avg_queue_bytes"], "%.0f")) for c in alone) + ".")
        w("")
    w("![share of the link against the fair share](img/%s)"
      % img_name(exp, "coexist.png"))
    w("")
    k = max(r.get("ecn_k_bytes") or 0 for r in doc["runs"])
    w("At this run's scale: R = %d Mbit/s, base RTT %d µs, BDP %d B. DCTCP's"
      % (par.get("rate_mbps", 0), par.get("rtt_us", 0),
         par.get("bdp_bytes", 0)))
    w("pairs share the ECN queue%s, the others a"
      % (" (marking at K = %d B)" % k if k else ""))
    w("tail-drop FIFO. What the figures mean and how to deploy: %s."
      % doc_link("TESTBED.md", "next-to-other-algorithms"))
    w("")
    w("### Parameters of this run")
    w("")
    params_block(exp)


def bench_ack(doc):
    """The per-ACK cost benchmark (make bench-ack): results/bench-ack."""
    w(TITLES["bench-ack"])
    w("")
    w("Instructions per ACK of each algorithm's ACK-path hooks, timed by the")
    w("function_graph tracer in a guest under -icount, where the x86-tsc")
    w("trace clock ticks once per instruction; net of the tracer (the median")
    w("of an empty function, subtracted once per hook timed; what that leaves")
    w("in, the empty function's own few instructions, is the same for every")
    wk = sorted({k.get("meta", {}).get("write_kb") for k in doc["kernels"]}
                - {None})
    w("algorithm). CPU headroom: iperf3 with 2 flows and no rate limit%s, the"
      % ("" if not wk else ", writes of %s KB" % "/".join(map(str, wk))))
    w("algorithms interleaved in one guest, median [min, max] of the")
    w("repetitions; ours with min_rate_ppm=1000000, so that the law runs on")
    w("every ACK but its output, floored at the line rate, does not bind;")
    w("next to it, the segments the sender retransmitted in a headroom run")
    w("and the segments per skb it handed to IP (a TSO skb counts once;")
    tso = any(k.get("meta", {}).get("fixed_tso") for k in doc["kernels"])
    w("medians over the repetitions). CPU per byte: in the same")
    w("repetitions, the pair through a token bucket at a fixed rate")
    w("(%s), every algorithm with its own output in force (ours with the"
      % ("with TSO" if tso else
         "one segment per skb, as the testbed's hosts send"))
    w("testbed's parameters); the guest's busy time, one instruction a ns under")
    w("-icount, per KB the receiver took in, median [min, max] (lower is")
    w("better).")
    w("How it is measured, and the per-ACK work it led to:")
    w("%s." % doc_link("PERF.md", "the-per-ack-cost"))
    w("")
    r = doc.get("run", {})
    if r:
        cmd = r.get("command", "?")
        w("Made by `%s` on %s, from commit %s%s." % (
            " ".join(cmd) if isinstance(cmd, list) else cmd,
            r.get("date", "an unrecorded date"),
            (r.get("commit") or "?")[:12],
            " with local changes" if r.get("modified") or
            r.get("uncommitted_changes") else ""))
        w("")
    fixed = sorted({a.get("cpu_instr_per_kb", {}).get("fixed_mbps")
                    for k in doc["kernels"]
                    for a in k["algorithms"].values()} - {None})
    cpu_col = fixed and (" instructions per KB at %s Mbit/s |"
                         % "/".join(map(str, fixed)))
    w("| kernel | algorithm | hooks summed per ACK | ACKs | p10 | median |"
      " p90 | headroom Mbit/s | retransmitted | segments per skb |%s"
      % (cpu_col or ""))
    w("|---|---|---|---|---|---|---|---|---|---|%s" % ("---|" if fixed else ""))
    for k in doc["kernels"]:
        for alg, a in k["algorithms"].items():
            n, h = a["net"], a["headroom_mbps"]
            head = ("%.0f [%.0f, %.0f] (%d reps)" % (
                h["median"], h["min"], h["max"], len(h["reps"]))
                if h["median"] is not None else "not measured")
            rx = a.get("headroom_retrans_segs", {}).get("median")
            rx = "%d" % rx if rx is not None else "-"
            sps = a.get("headroom_segs_per_skb", {}).get("median")
            sps = "%.1f" % sps if sps is not None else "-"
            # The functions named in parentheses must all have run (a
            # DCTCP without ECN runs Reno's cong_avoid only).
            seen = a.get("hooks_seen")
            named = re.findall(r"\w+", "".join(
                re.findall(r"\(([^)]*)\)", a["hooks"])))
            hooks = a["hooks"]
            if seen is not None and not set(named) <= set(seen):
                hooks += ", but only %s ran" % ", ".join(seen)
            c = a.get("cpu_instr_per_kb", {})
            cpu = ("" if not fixed else " %s |" % (
                "%.0f [%.0f, %.0f]" % (c["median"], c["min"], c["max"])
                if c.get("median") is not None else "not measured"))
            w("| %s | %s | %s | %d | %d | **%d** | %d | %s | %s | %s |%s" % (
                k["kernel"], alg, hooks, a["acks"], n["p10"],
                n["median"], n["p90"], head, rx, sps, cpu))
    w("")
    w("Tracer overhead subtracted: " + ", ".join(
        "%s %d instructions (median of %d calls of %s)" % (
            k["kernel"], k["tracer_overhead"]["median"],
            k["tracer_overhead"]["n"], k["tracer_overhead"]["function"])
        for k in doc["kernels"]) + ".")
    w("")
    w("![instructions per ACK](img/bench-ack.png)")
    w("")


# Each experiment's section title, for --keep.
TITLES = {"incast": "## 10:1 incast",
          "incast-sweep": "## Incast at scale: the fan-in sweep",
          "fairness": "## Fairness",
          "websearch": "## Web search", "coexist": "## Next to other algorithms",
          "coexist-compete": "## Next to other algorithms: PowerTCP-evo's"
          " competitive mode",
          "incast-host-stack": "## 10:1 incast on a default host stack",
          "fairness-host-stack": "## Fairness on a default host stack",
          "incast-quantized": "## 10:1 incast with whole-µs RTT samples",
          "fairness-quantized": "## Fairness with whole-µs RTT samples",
          "bench-ack": "## Per-ACK cost"}


def existing_sections():
    """The sections of the existing RESULTS.md, by experiment: its lines
    from the title to the next title."""
    try:
        with open(os.path.join(outdir, "RESULTS.md")) as f:
            lines = f.read().rstrip("\n").split("\n")
    except FileNotFoundError:
        return {}
    by_title = {v: k for k, v in TITLES.items()}
    sections, cur = {}, None
    for line in lines:
        if line.startswith("## "):
            cur = by_title.get(line)
            if cur:
                sections[cur] = []
        if cur:
            sections[cur].append(line)
    return sections


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--keep", action="store_true",
                    help="keep the sections of the existing OUT_DIR/"
                    "RESULTS.md whose experiment has no results here")
    ap.add_argument("results_pos", nargs="?", metavar="RESULTS_ROOT",
                    help="the results to report (default: results)")
    ap.add_argument("out_pos", nargs="?", metavar="OUT_DIR",
                    help="where RESULTS.md and img/ go (default: results)")
    ap.add_argument("--results", metavar="DIR", help="RESULTS_ROOT")
    ap.add_argument("--out", metavar="DIR", help="OUT_DIR")
    a = ap.parse_args()
    for opt, pos, name in ((a.results, a.results_pos, "RESULTS_ROOT"),
                           (a.out, a.out_pos, "OUT_DIR")):
        if opt is not None and pos is not None:
            ap.error("%s given twice (positional and option)" % name)
    return (a.keep, a.results or a.results_pos or "results",
            a.out or a.out_pos or "results")


def main():
    global KEEP, root, outdir
    KEEP, root, outdir = parse_args()
    w("# Results")
    w("")
    w("Written by testbed/report.py from the results of `make reproduce` (or")
    w("`make incast`, `make fairness`, `make websearch` for one experiment);")
    w("every figure below comes from those results. What the figures mean,")
    w("the scaling and where the testbed departs from the paper:")
    w("%s." % doc_link("TESTBED.md"))
    w("")
    done = 0
    kept = existing_sections() if KEEP else {}
    for exp, fn in (("incast", incast), ("incast-sweep", incast_sweep),
                    ("fairness", fairness),
                    ("websearch", websearch), ("coexist", coexist),
                    ("coexist-compete",
                     lambda doc: coexist(doc, "coexist-compete")),
                    ("incast-host-stack",
                     lambda doc: incast(doc, "incast-host-stack")),
                    ("fairness-host-stack",
                     lambda doc: fairness(doc, "fairness-host-stack")),
                    ("incast-quantized",
                     lambda doc: incast(doc, "incast-quantized")),
                    ("fairness-quantized",
                     lambda doc: fairness(doc, "fairness-quantized")),
                    ("bench-ack", bench_ack)):
        doc = load(exp)
        if doc:
            fn(doc)
            done += 1
        elif exp in kept:
            out.extend(kept[exp] + ([""] if kept[exp][-1] else []))
            print("report: %s kept from the existing RESULTS.md" % exp)
    if not done:
        sys.exit("report: no results under %s (run make incast first)" % root)
    with open(os.path.join(outdir, "RESULTS.md"), "w") as f:
        f.write("\n".join(out).rstrip("\n") + "\n")
    print("wrote %s" % os.path.join(outdir, "RESULTS.md"))


if __name__ == "__main__":
    main()
