#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The fault matrix's summary: every case.json of testbed/faults/run.sh under
DIR, laid out as DIR/ALG/CASE/ (one kernel, as testbed/run.sh faults
writes it) or DIR/KERNEL/ALG/CASE/ (make faults: one directory per
kernel, each with its run.json), into DIR/summary.json (every case, and
totals per kernel and algorithm) and DIR/summary.csv (one row per kernel,
algorithm and case, with the goodput of cubic in the same case). With
--doc FILE, the generated table replaces what is between the markers
<!-- faults:begin --> and <!-- faults:end --> of FILE.

    testbed/faults/summarize.py DIR [--doc docs/RELIABILITY.md]
"""
import argparse
import csv
import glob
import json
import os
import sys

BEGIN, END = "<!-- faults:begin -->", "<!-- faults:end -->"
# testbed/faults/run.sh's order.
CASE_ORDER = """base loss0.1 loss1 loss5 reorder duplicate corrupt linkdown1s
    blackhole10s buffer3pkt ecn mtu1280 mtu9000 pmtu ipv6 flows1000
    conns10000 applimited rwndlimited rtt260us rtt50ms rtt500ms tau_low
    tau_high rate_high rate_low ccswitch paramwrites rmmod""".split()


def load(root):
    """[(kernel, run.json or {}, case dict)], the runs' order kept."""
    out = []
    for cj in sorted(glob.glob(os.path.join(root, "**", "case.json"),
                               recursive=True)):
        alg_dir = os.path.dirname(os.path.dirname(cj))
        run_dir = os.path.dirname(alg_dir)
        run = {}
        if os.path.exists(os.path.join(run_dir, "run.json")):
            run = json.load(open(os.path.join(run_dir, "run.json")))
        c = json.load(open(cj))
        kernel = run.get("kernel") or os.path.basename(run_dir)
        out.append((kernel, run, c))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR",
                    help="the case.json of testbed/faults/run.sh under it")
    ap.add_argument("--doc", metavar="FILE", help="replace the table "
                    "between FILE's faults:begin and faults:end markers")
    a = ap.parse_args()
    rows = load(a.dir)
    if not rows:
        sys.exit("faults/summarize.py: no case.json under %s" % a.dir)
    cubic = {(k, c["case"]): c["goodput_mbps"] for k, _, c in rows
             if c["cc"] == "cubic"}
    kernels = sorted({k for k, _, _ in rows})
    algs = []
    for _, _, c in rows:
        if c["cc"] not in algs:
            algs.append(c["cc"])
    order = ["theta_powertcp", "powertcp_evo", "cubic"]
    algs.sort(key=lambda n: order.index(n) if n in order else len(order))
    cases = []
    for _, _, c in rows:
        if c["case"] not in cases:
            cases.append(c["case"])
    cases.sort(key=lambda c: CASE_ORDER.index(c) if c in CASE_ORDER else len(CASE_ORDER))
    totals = {}
    for k, _, c in rows:
        t = totals.setdefault(k, {}).setdefault(c["cc"], {
            "cases": 0, "cases_ok": 0, "flows": 0, "flows_finished": 0,
            "bytes_verified": 0, "bytes_received": 0, "stalls": 0,
            "flows_with_wrong_bytes": 0, "kernel_log_lines": 0,
            "bad_log_lines": 0, "failed": []})
        t["cases"] += 1
        t["cases_ok"] += c["ok"]
        for f in ("flows", "flows_finished", "bytes_verified",
                  "bytes_received", "stalls", "flows_with_wrong_bytes",
                  "kernel_log_lines", "bad_log_lines"):
            t[f] += c[f]
        if not c["ok"]:
            t["failed"].append(c["case"])
    runs = {k: r for k, r, _ in rows}
    summary = {"kernels": kernels, "algorithms": algs, "cases": cases,
               "runs": runs, "totals": totals,
               "results": [dict(c, kernel=k) for k, _, c in rows]}
    json.dump(summary, open(os.path.join(a.dir, "summary.json"), "w"), indent=1)
    cols = ["kernel", "algorithm", "case", "ok", "flows", "flows_finished",
            "bytes_verified", "flows_with_wrong_bytes", "max_gap_us",
            "stall_bound_us", "stalls", "goodput_mbps", "cubic_goodput_mbps",
            "kernel_log_lines", "bad_log_lines", "why"]
    with open(os.path.join(a.dir, "summary.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for k, _, c in rows:
            w.writerow([k, c["cc"], c["case"], int(c["ok"]), c["flows"],
                        c["flows_finished"], c["bytes_verified"],
                        c["flows_with_wrong_bytes"], c["max_gap_us"],
                        c["stall_bound_us"], c["stalls"], c["goodput_mbps"],
                        cubic.get((k, c["case"]), ""), c["kernel_log_lines"],
                        c["bad_log_lines"], "; ".join(c["why"])])
    for k in kernels:
        for n in algs:
            t = totals[k].get(n)
            if t:
                print("%s %-15s %d/%d cases ok, %d flows (%d finished), %d B "
                      "verified, %d stalls, %d wrong, %d log lines (%d bad)%s" % (
                          k, n, t["cases_ok"], t["cases"], t["flows"],
                          t["flows_finished"], t["bytes_verified"], t["stalls"],
                          t["flows_with_wrong_bytes"], t["kernel_log_lines"],
                          t["bad_log_lines"],
                          "; failed: " + ",".join(t["failed"]) if t["failed"] else ""))
    if a.doc:
        # Every run's command and commit, where several runs of one
        # kernel were summarized together.
        all_runs = []
        for _, r, _ in rows:
            if r not in all_runs:
                all_runs.append(r)
        write_doc(a.doc, a.dir, summary, cubic, all_runs)


def write_doc(path, root, s, cubic, runs):
    by = {(r["kernel"], r["cc"], r["case"]): r for r in s["results"]}
    L = []
    cmd = sorted({" ".join(r.get("command", [])) for r in runs})
    L.append("Generated by `testbed/faults/summarize.py %s --doc %s` from the "
             "run(s) `%s`; commit(s) %s. Every figure below is from those runs." % (
                 os.path.relpath(root), os.path.relpath(path), "`, `".join(cmd),
                 ", ".join(sorted({str(r.get("commit", "?"))[:12] for r in runs}))))
    L.append("")
    L.append("| kernel | algorithm | cases ok | flows (finished) | bytes verified "
             "| flows with wrong bytes | stalls | kernel log lines (bad) |")
    L.append("|---|---|---|---|---|---|---|---|")
    for k in s["kernels"]:
        for n in s["algorithms"]:
            t = s["totals"][k].get(n)
            if t:
                L.append("| %s | %s | %d/%d%s | %d (%d) | %d | %d | %d | %d (%d) |" % (
                    k, n, t["cases_ok"], t["cases"],
                    " (failed: %s)" % ", ".join(t["failed"]) if t["failed"] else "",
                    t["flows"], t["flows_finished"], t["bytes_verified"],
                    t["flows_with_wrong_bytes"], t["stalls"],
                    t["kernel_log_lines"], t["bad_log_lines"]))
    L.append("")
    L.append("Per case: goodput in Mbit/s (cubic's in the same case and kernel "
             "for comparison), the longest time any flow went without progress "
             "in ms against the case's bound, and ✗ where the case failed "
             "(the reasons below).")
    L.append("")
    for k in s["kernels"]:
        L.append("**%s**" % k)
        L.append("")
        head = "| case | flows |" + "".join(
            " %s Mbit/s | %s gap ms |" % (n, n) for n in s["algorithms"]) + " bound ms |"
        L.append(head)
        L.append("|---|---|" + "---|---|" * len(s["algorithms"]) + "---|")
        for c in s["cases"]:
            row = None
            cells = []
            for n in s["algorithms"]:
                r = by.get((k, n, c))
                if r is None:
                    cells.append(" – | – |")
                    continue
                row = r
                ratio = ""
                cg = cubic.get((k, c))
                if n != "cubic" and cg:
                    ratio = " (%.2fx)" % (r["goodput_mbps"] / cg)
                cells.append(" %.1f%s%s | %.0f |" % (
                    r["goodput_mbps"], ratio, "" if r["ok"] else " ✗",
                    r["max_gap_us"] / 1000))
            if row is None:
                continue
            L.append("| %s | %d |%s %.0f |" % (c, row["flows"], "".join(cells),
                                              row["stall_bound_us"] / 1000))
        L.append("")
    fails = [r for r in s["results"] if not r["ok"]]
    if fails:
        L.append("Failed cases:")
        L.append("")
        for r in fails:
            L.append("- %s, %s, %s: %s" % (r["kernel"], r["cc"], r["case"],
                                            "; ".join(r["why"])))
        L.append("")
    acts = [r for r in s["results"] if r["case"] in ("paramwrites", "rmmod")]
    if acts:
        L.append("Actions under load:")
        L.append("")
        for r in acts:
            L.append("- %s, %s, %s: %s" % (r["kernel"], r["cc"], r["case"],
                                            ", ".join("%s %s" % kv for kv in r["action"].items())))
        L.append("")
    text = open(path).read() if os.path.exists(path) else BEGIN + "\n" + END + "\n"
    if BEGIN not in text or END not in text:
        sys.exit("faults/summarize.py: %s has no %s ... %s markers" % (path, BEGIN, END))
    pre, rest = text.split(BEGIN, 1)
    _, post = rest.split(END, 1)
    open(path, "w").write(pre + BEGIN + "\n" + "\n".join(L) + END + post)
    print("wrote the table into %s" % path)


if __name__ == "__main__":
    main()
