#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""One case of testbed/faults/run.sh: its figures from tcpflows' flows.csv and
verify.csv (--verify), the kernel log lines it produced and its action's
counters, into DIR/case.json, with the verdict and a one-line summary.

A case is ok if tcpflows exited 0, every flow started and finished (done
or closed), every byte sent arrived and was verified, no flow went longer
than --bound-us without progress, the kernel logged no line matching
--bad-log, the module reloaded after the case (if it is a module of ours)
and the action's own counters hold (parameter writes: valid ones taken,
invalid ones refused; rmmod: refused every time)."""
import argparse
import csv
import json
import os
import re


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", required=True)
    ap.add_argument("--case", required=True)
    ap.add_argument("--cc", required=True)
    ap.add_argument("--tcpflows-rc", type=int, required=True)
    ap.add_argument("--stop-us", type=int, required=True)
    ap.add_argument("--bound-us", type=int, required=True)
    ap.add_argument("--flows", type=int, required=True)
    ap.add_argument("--bytes", type=int, required=True)
    ap.add_argument("--reload", required=True)
    ap.add_argument("--bad-log", required=True)
    ap.add_argument("--note", default="")
    ap.add_argument("--setting", action="append", default=[])
    a = ap.parse_args()
    d = a.dir
    why = []
    flows = list(csv.DictReader(open(os.path.join(d, "flows.csv")))) \
        if os.path.exists(os.path.join(d, "flows.csv")) else []
    ver = {r["id"]: r for r in csv.DictReader(
        open(os.path.join(d, "verify.csv")))} \
        if os.path.exists(os.path.join(d, "verify.csv")) else {}
    if a.tcpflows_rc:
        why.append("tcpflows exit %d" % a.tcpflows_rc)
    if len(flows) != a.flows or len(ver) != a.flows:
        why.append("%d of %d flows reported" % (len(flows), a.flows))
    started = sum(int(r["started_us"]) >= 0 for r in flows)
    finished = sum(r["status"] in ("done", "closed") for r in flows)
    status = {}
    for r in flows:
        status[r["status"]] = status.get(r["status"], 0) + 1
    rx = sum(int(r["bytes_received"]) for r in flows)
    tx = sum(int(r["bytes_sent"]) for r in flows)
    verified = sum(int(v["bytes_verified"]) for v in ver.values())
    mism = sum(int(v["mismatch_at"]) >= 0 for v in ver.values())
    gaps = [int(v["max_gap_us"]) for v in ver.values()]
    max_gap = max(gaps) if gaps else -1
    stalls = sum(g > a.bound_us for g in gaps)
    if finished != a.flows:
        why.append("%d of %d flows finished (%s)" % (
            finished, a.flows, ", ".join("%s %d" % kv for kv in sorted(status.items()))))
    if rx != tx:
        why.append("%d bytes sent, %d received" % (tx, rx))
    if verified != rx or mism:
        why.append("%d of %d bytes verified, %d flows with wrong bytes" % (
            verified, rx, mism))
    if stalls:
        why.append("%d flows stalled > %d us (longest %d us)" % (
            stalls, a.bound_us, max_gap))
    # Goodput: the payload over the time from the first connect() to the
    # last flow's completion (its last byte, or EOF after its stop).
    ends = [int(r["completion_us"]) for r in flows if int(r["completion_us"]) >= 0]
    starts = [int(r["started_us"]) for r in flows if int(r["started_us"]) >= 0]
    span = (max(ends) - min(starts)) if ends and starts else 0
    goodput = rx * 8 / span if span > 0 else 0.0
    log = open(os.path.join(d, "dmesg.txt"), errors="replace").read().splitlines() \
        if os.path.exists(os.path.join(d, "dmesg.txt")) else []
    bad = [line for line in log if re.search(a.bad_log, line)]
    if bad:
        why.append("%d bad kernel log lines: %s" % (len(bad), bad[0][:120]))
    if a.reload not in ("ok", "na"):
        why.append("reload: " + a.reload)
    action = {}
    af = os.path.join(d, "action.txt")
    text = open(af).read().split() if os.path.exists(af) else []
    if a.case == "paramwrites":
        # param-writer's "writes taken refused bad mean_interval_us
        # max_late_us" (the first four alone from older runs).
        if len(text) in (4, 6):
            n, okw, refused, wrong = map(int, text[:4])
            action = {"writes": n, "taken": okw, "refused": refused,
                      "wrong_outcome": wrong}
            if len(text) == 6:
                action["mean_interval_us"] = int(text[4])
                action["max_late_us"] = int(text[5])
            if wrong or not n:
                why.append("parameter writes: %d of %d had the wrong outcome" % (wrong, n))
        else:
            why.append("parameter writes: no counts")
    elif a.case == "rmmod":
        if len(text) == 2:
            n, done = map(int, text)
            action = {"rmmod_attempts": n, "rmmod_succeeded_under_load": done}
            if done or not n:
                why.append("rmmod succeeded %d of %d times under load" % (done, n))
        else:
            why.append("rmmod: no counts")
    elif text:
        action = {"action": " ".join(text)}
    settings = {}
    for s in a.setting:
        k, _, v = s.partition("=")
        settings[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    ok = not why
    res = {"case": a.case, "cc": a.cc, "ok": ok, "why": why, "note": a.note,
           "flows": a.flows, "flows_started": started,
           "flows_finished": finished, "status": status,
           "bytes_sent": tx, "bytes_received": rx, "bytes_verified": verified,
           "flows_with_wrong_bytes": mism, "max_gap_us": max_gap,
           "stall_bound_us": a.bound_us, "stalls": stalls,
           "goodput_mbps": round(goodput, 2), "stop_us": a.stop_us,
           "kernel_log_lines": len(log), "bad_log_lines": len(bad),
           "reload": a.reload, "action": action, "settings": settings,
           "tcpflows_rc": a.tcpflows_rc}
    res["line"] = "%s: %d/%d flows finished, %d B verified, longest gap %.1f ms " \
        "(bound %.0f ms), %.1f Mbit/s, %d log lines%s" % (
            a.case, finished, a.flows, verified, max_gap / 1000,
            a.bound_us / 1000, goodput, len(log),
            "" if ok else " -- " + "; ".join(why))
    json.dump(res, open(os.path.join(d, "case.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
