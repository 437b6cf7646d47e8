#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Summarize a per-ACK cost benchmark (testbed/run.sh bench-ack).

    testbed/bench-ack/summarize.py DIR

DIR holds one directory per kernel release, written by
testbed/bench-ack/run.sh: ALG.calls, empty.calls, headroom.csv,
meta.json. Writes DIR/summary.json, DIR/summary.csv and DIR/bench-ack.png.

Per algorithm and kernel, over the ACKs that ran its hooks: the
instructions per ACK (the hooks' durations in x86-tsc ticks, one tick per
instruction under -icount shift=0), raw and net of the tracer: the median
duration of the empty function (__rcu_read_lock) times the number of hooks
timed is subtracted. That median also holds the empty function's own body
(a few instructions), the same for every algorithm: the net figures are low
by that much each, and their differences exact. DCTCP's ACKs are those
that ran its cong_avoid: a receiver's tcp_ack also runs in_ack_event (both
ends run DCTCP), and the sender's ACKs are what is measured. Headroom:
median, min and max of the interleaved repetitions, in Mbit/s. CPU per
byte at a fixed rate (cpu.csv, absent from older runs): the guest's busy
ns (one instruction each under -icount) per KB the receiver took in,
median, min and max of the same repetitions.
"""
import argparse
import csv
import json
import os
import sys

ORDER = ["theta_powertcp", "powertcp_evo", "bbr", "dctcp", "cubic"]
HOOKS = {
    "theta_powertcp": "cong_control (powertcp_cong_control_hook)",
    "powertcp_evo": "cong_control (powertcp_cong_control_hook)",
    "bbr": "cong_control (bbr_main)",
    "dctcp": "in_ack_event + cong_avoid (dctcp_update_alpha + "
             "tcp_reno_cong_avoid)",
    "cubic": "pkts_acked + cong_avoid (cubictcp_acked + "
             "cubictcp_cong_avoid)",
}
# The hook that marks a sender's ACK, where both ends call the others.
SENDER_HOOK = {"dctcp": "tcp_reno_cong_avoid"}


def pct(xs, q):
    """The q-quantile of sorted xs (nearest rank)."""
    if not xs:
        return None
    i = min(len(xs) - 1, max(0, int(round(q * (len(xs) - 1)))))
    return xs[i]


def dist(xs):
    xs = sorted(xs)
    return {"n": len(xs), "p10": pct(xs, 0.1), "median": pct(xs, 0.5),
            "p90": pct(xs, 0.9), "min": xs[0] if xs else None,
            "max": xs[-1] if xs else None}


def read_calls(path):
    acks, hooks = [], {}
    with open(path) as f:
        for line in f:
            w = line.split()
            if w[0] == "A":
                acks.append((int(w[1]), int(w[2]),
                             w[3].split(",") if len(w) > 3 else []))
            elif w[0] == "H":
                hooks.setdefault(w[1], []).append(int(w[2]))
    return acks, hooks


def kernel(d):
    meta = json.load(open(os.path.join(d, "meta.json")))
    empty = sorted(int(line.split()[2]) for line in
                   open(os.path.join(d, "empty.calls"))
                   if line.startswith("L "))
    over = pct(empty, 0.5)
    head, retx, skb = {}, {}, {}
    with open(os.path.join(d, "headroom.csv")) as f:
        for r in csv.DictReader(f):
            head.setdefault(r["algorithm"], []).append(float(r["mbps"]))
            if r.get("retrans_segs") not in (None, ""):
                retx.setdefault(r["algorithm"], []).append(
                    int(r["retrans_segs"]))
            if r.get("out_skbs") not in (None, "", "0"):
                skb.setdefault(r["algorithm"], []).append(
                    int(r["out_segs"]) / int(r["out_skbs"]))
    cpu, cpu_mbps, fixed = {}, {}, None
    path = os.path.join(d, "cpu.csv")
    if os.path.exists(path):
        for r in csv.DictReader(open(path)):
            cpu.setdefault(r["algorithm"], []).append(
                int(r["busy_ns"]) * 1024 / int(r["rx_bytes"]))
            cpu_mbps.setdefault(r["algorithm"], []).append(float(r["mbps"]))
            fixed = int(r["rate_mbps"])
    algs = {}
    for alg in ORDER + sorted(set(x[:-6] for x in os.listdir(d)
                                  if x.endswith(".calls")) - set(ORDER)):
        path = os.path.join(d, alg + ".calls")
        if alg == "empty" or not os.path.exists(path):
            continue
        acks, hooks = read_calls(path)
        mark = SENDER_HOOK.get(alg)
        kept = [a for a in acks if not mark or mark in a[2]]
        hr = sorted(head.get(alg, []))
        algs[alg] = {
            "hooks": HOOKS.get(alg, "?"),
            # which ran: DCTCP without ECN falls back to Reno's cong_avoid
            "hooks_seen": sorted(hooks),
            "acks_traced": len(acks), "acks": len(kept),
            "raw": dist([a[0] for a in kept]),
            "net": dist([a[0] - a[1] * over for a in kept]),
            "per_hook": {h: dist([v - over for v in vs])
                         for h, vs in sorted(hooks.items())},
            "headroom_mbps": {"median": pct(hr, 0.5),
                              "min": hr[0] if hr else None,
                              "max": hr[-1] if hr else None,
                              "reps": head.get(alg, [])},
            # the sender's retransmitted segments in each headroom run
            # (absent from runs made before they were counted)
            "headroom_retrans_segs": {
                "median": pct(sorted(retx[alg]), 0.5) if alg in retx
                else None, "reps": retx.get(alg, [])},
            # segments per skb the sender handed to IP (absent likewise)
            "headroom_segs_per_skb": {
                "median": pct(sorted(skb[alg]), 0.5) if alg in skb
                else None, "reps": skb.get(alg, [])},
            # busy guest instructions per KB delivered at fixed_mbps
            "cpu_instr_per_kb": {"fixed_mbps": fixed,
                                 **dist(cpu.get(alg, [])),
                                 "reps": cpu.get(alg, []),
                                 "mbps": cpu_mbps.get(alg, [])},
        }
    return {"kernel": meta["kernel"], "meta": meta,
            "tracer_overhead": {"function": meta["empty_function"],
                                **dist(empty)},
            "algorithms": algs}


def plot(summary, raw, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ks = summary["kernels"]
    fig, axes = plt.subplots(1, len(ks), figsize=(6 * len(ks), 4),
                             squeeze=False)
    for ax, k in zip(axes[0], ks):
        algs = [a for a in ORDER if a in k["algorithms"]]
        data = [raw[k["kernel"]][a] for a in algs]
        ax.boxplot(data, labels=algs, whis=(10, 90), showfliers=False)
        for i, a in enumerate(algs):
            m = k["algorithms"][a]["net"]["median"]
            ax.annotate("%d" % m, (i + 1, m), textcoords="offset points",
                        xytext=(14, 0), fontsize=8, va="center")
        ax.set_title("%s: instructions per ACK, net of the tracer"
                     % k["kernel"], fontsize=9)
        ax.set_ylabel("instructions (box: p25-p75, whiskers: p10-p90)")
        ax.tick_params(axis="x", labelsize=8)
        ax.set_ylim(bottom=0)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", help="one directory per kernel "
                    "release, of testbed/bench-ack/run.sh")
    d = ap.parse_args().dir
    rels = sorted(x for x in os.listdir(d)
                  if os.path.exists(os.path.join(d, x, "meta.json")))
    if not rels:
        sys.exit("bench-ack/summarize.py: no results in %s" % d)
    run = {}
    if os.path.exists(os.path.join(d, "run.json")):
        run = json.load(open(os.path.join(d, "run.json")))
    summary = {"run": run, "unit": "guest instructions (x86-tsc ticks "
               "under -icount shift=0)", "kernels": []}
    raw = {}
    for rel in rels:
        k = kernel(os.path.join(d, rel))
        summary["kernels"].append(k)
        over = k["tracer_overhead"]["median"]
        raw[k["kernel"]] = {}
        for alg in k["algorithms"]:
            acks, _ = read_calls(os.path.join(d, rel, alg + ".calls"))
            mark = SENDER_HOOK.get(alg)
            raw[k["kernel"]][alg] = [a[0] - a[1] * over for a in acks
                                     if not mark or mark in a[2]]
    with open(os.path.join(d, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    with open(os.path.join(d, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["kernel", "algorithm", "hooks", "acks", "net_p10",
                    "net_median", "net_p90", "raw_median",
                    "tracer_overhead", "headroom_median_mbps",
                    "headroom_min_mbps", "headroom_max_mbps",
                    "headroom_reps", "headroom_retrans_median",
                    "headroom_segs_per_skb_median",
                    "cpu_fixed_mbps", "cpu_instr_per_kb_median",
                    "cpu_instr_per_kb_min", "cpu_instr_per_kb_max"])
        for k in summary["kernels"]:
            for alg, a in k["algorithms"].items():
                h, c = a["headroom_mbps"], a["cpu_instr_per_kb"]
                w.writerow([k["kernel"], alg, a["hooks"], a["acks"],
                            a["net"]["p10"], a["net"]["median"],
                            a["net"]["p90"], a["raw"]["median"],
                            k["tracer_overhead"]["median"], h["median"],
                            h["min"], h["max"], len(h["reps"]),
                            a["headroom_retrans_segs"]["median"],
                            a["headroom_segs_per_skb"]["median"],
                            c["fixed_mbps"], c["median"], c["min"],
                            c["max"]])
    plot(summary, raw, os.path.join(d, "bench-ack.png"))
    for k in summary["kernels"]:
        print("# %s: tracer overhead %d instructions (median of %d calls"
              " of %s)" % (k["kernel"], k["tracer_overhead"]["median"],
                           k["tracer_overhead"]["n"],
                           k["tracer_overhead"]["function"]))
        for alg, a in k["algorithms"].items():
            h, c = a["headroom_mbps"], a["cpu_instr_per_kb"]
            sps = a["headroom_segs_per_skb"]["median"]
            print("%-15s net p10/median/p90 %5s %5s %5s  (%d ACKs)"
                  "  headroom %s Mbit/s [%s, %s], %s retransmitted,"
                  " %s segments per skb%s"
                  % (alg, a["net"]["p10"], a["net"]["median"],
                     a["net"]["p90"], a["acks"], h["median"], h["min"],
                     h["max"], a["headroom_retrans_segs"]["median"],
                     "%.1f" % sps if sps is not None else "-",
                     "" if c["median"] is None else
                     "; at %d Mbit/s %.0f instructions per KB [%.0f, %.0f]"
                     % (c["fixed_mbps"], c["median"], c["min"], c["max"])))


if __name__ == "__main__":
    main()
