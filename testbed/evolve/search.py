#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Evolve powertcp_evo on the real-kernel testbed (make evolve).

    testbed/evolve/search.py [--trials N | --study-trials N] [--jobs 2]
        [--study NAME] [--storage URL] [--out results/evolve] [--kernel 6.1]

An Optuna study over powertcp_evo's module parameters, its initial rate
and its law variant (the `variant` parameter: the named variants of
kmod/powertcp_core.h). Each trial is one testbed/evolve/evaluate.py run:
the training suite in one -icount guest. Once per study, beside the first
trials, θ-PowerTCP itself runs the same suite (OUT/reference/): the
reference of the web-search tail, and the marks on the plots; a trial's
objectives are final when both are done.

--objective pareto (the default; study "powertcp_evo_pareto") is a
multi-objective search, Optuna's MOTPE (--sampler motpe) or NSGA-II
(--sampler nsga2), over three objectives of the suite:
  waiting       the in-rack incast's average bytes waiting at the
                bottleneck (the case study's queue, without the packet in
                service), mean over the seeds: less is better
  tail          the short-flow tail of the web search (suite.json's
                percentile of the slowdown of flows below its size, the
                seeds pooled) over θ-PowerTCP's: less is better
  starved_rtts  the fairness phases' longest time a flow stays below 0.7x
                its share, in base RTTs: less is better
under four constraints: the in-rack incast and the largest-RTT one each
move at least θ-PowerTCP's share of the link on the same suite less one
percentage point (OUT/reference's; 99% and 98% where a trial has no
reference, --stand-in), no fairness flow stays below 0.7x its share for
more than 50 base RTTs, and every multi-flow phase keeps Jain >= 0.98.
OUT/pareto.csv holds the feasible trials no other feasible trial beats
in all three, OUT/pareto.png plots them, and OUT/best.json is the pick,
by a rule fixed before the search ran: of the front's trials whose
waiting queue is at most half θ's and whose tail is at most θ's (ratio
<= 1), the one starved the shortest, then the least waiting queue; none
if no trial qualifies (best.json then says so). The goals of the queue
and the tail are thresholds; past them, what the pick buys is the
margin of the fairness goal, the one held-out check whose figure moves
most between seeds (docs/EVOLUTION.md, "The sixth search").

OUT belongs to one suite: θ's reference there (OUT/reference/score.json)
records the suite it ran, and a search whose suite.json differs is
refused (another --out, or the old OUT moved away).

--objective score is the earlier searches' single objective (TPE, study
"powertcp_evo"): the incast's mean combined score less the arrivals'
penalties (evaluate.py).

The study lives in --storage (default: SQLite at OUT/study.db), so a search
resumes where it stopped, in this session or a later one, and workers on
several machines can share one study through a PostgreSQL URL
(make evolve-shared). --trials N runs N more trials in this worker;
--study-trials N runs trials until the study holds N, whichever worker
runs them. A worker asks for its trials under a lock of the study's
database (a PostgreSQL or MySQL advisory lock): the start points are
enqueued once, the budget is counted right, no waiting trial is handed
to two workers. A running trial's worker records a
heartbeat every --heartbeat seconds; a trial whose heartbeat is older
than --grace seconds (its worker died) is failed by the next worker that
asks for a trial, and run once more with the same parameters.

Writes OUT/history.csv (every complete trial: parameters, the three
objectives and feasibility, the score and its components), OUT/best.json
(the pick, or the best score), OUT/best.png (the score against trial),
with --objective pareto OUT/pareto.csv and OUT/pareto.png, and each
trial's raw data under OUT/trials/NNNN/.

--stand-in SECONDS is a test instrument (scripts/tests/test_evolve_shared.sh):
each trial sleeps SECONDS and scores fixed functions of its parameters
(the score, and the three objectives and the constraints' figures), with no
guest, no module snapshot and no θ reference run; the study, the workers
and the outputs are the real search's.
"""
import argparse
import contextlib
import csv
import fcntl
import json
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import warnings
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
from evaluate import case_mean, ensure_modules, finish, kernels  # noqa: E402

# The search space: module parameter -> (low, high, log scale).
SPACE = {
    "gamma": (512, 1024, False),
    "beta_ppm": (500, 30000, True),
    # From 1000: one flow on an idle path with an automatic τ (make
    # idle-probe: the kernel test's path at 50 and 5 Mbit/s) moves 94-100%
    # of the rate at every target from 1000 since the modules bound their
    # TSO skbs (tso_permille) and keep windows in Q16 (docs/EVOLUTION.md,
    # "The target's floor").
    "target_permille": (1000, 1200, False),
    "grad_floor_permille": (0, 1000, False),
    "smooth_pct": (10, 100, False),
    # A start below line rate: the ten first windows of the incast are a
    # quarter of θ's average queue (docs/EVOLUTION.md, "What holds the
    # queue at the operating point"); what it costs short flows is the
    # web-search tail's objective (the suite's arrivals).
    "init_rate_ppm": (50000, 1000000, True),
}
# Held at θ-PowerTCP's values.
FIXED = {"min_rate_ppm": 4000, "power_floor_permille": 10}
# Masks of powertcp_core.h's PT_VAR_*: bits 1-16 and 128 (the first
# sample's power), not the host-specific 32 (competitive mode) and 64
# (the lesser of two samples).
VARIANTS = [v | f for f in (0, 128) for v in range(32)]
# θ-PowerTCP's own parameters.
THETA = {"variant": 0, "gamma": 717, "beta_ppm": 6000, "target_permille": 1050,
         "grad_floor_permille": 500, "smooth_pct": 100,
         "init_rate_ppm": 1000000}
# Enqueued first in a new study, from the hand probes of docs/EVOLUTION.md
# at the target's floor: that target alone (it beat θ in every case of the
# suite); with the first sample's power (bit 128, 0.73x θ's waiting queue
# in the in-rack incast); that with half θ's β (0.56-0.60x, but a flow
# starved in the fairness phases: a point beyond the feasible front);
# bit 128 starting at a quarter of the line rate, the start the case
# study's variant took; and the fifth search's least queue with starved
# flows in bounds (its trial 21) from the line rate: its start at 22% of
# it cost short flows 1.45x θ's p95 slowdown in the held-out web search.
# The drain reference (bit 8) alone lost 0.6-1% of the link in-rack and
# is left to the sampler.
FLOOR = SPACE["target_permille"][0]
START = [dict(THETA, variant=0, target_permille=FLOOR),
         dict(THETA, variant=128, target_permille=FLOOR),
         dict(THETA, variant=128, target_permille=FLOOR, beta_ppm=3000),
         dict(THETA, variant=128, target_permille=FLOOR,
              init_rate_ppm=250000),
         dict(THETA, variant=158, gamma=565, beta_ppm=4408,
              target_permille=1092, grad_floor_permille=967, smooth_pct=75)]
COMPONENTS = ["combined_score", "link_fraction", "avg_queue_bytes",
              "p99_queue_bytes", "drain_time_us", "jain_index"]
ARRIVALS = [("fairness", "min_jain"), ("fairness", "starved_rtts"),
            ("websearch", "tail_slowdown")]
# --objective pareto: (user attribute, direction), and the constraints'
# bounds (Optuna's: feasible where every value is <= 0).
OBJECTIVES = [("waiting", "minimize"), ("tail", "minimize"),
              ("starved_rtts", "minimize")]
# The link constraints: θ's figure on the same suite less LINK_MARGIN.
# Absolute bounds read on one bottleneck do not carry to another: on the
# token bucket θ moved 99.85% in-rack, on a link 96.47-98.01% of the
# suite's short window (docs/EVOLUTION.md, "The bottleneck's bucket and
# the link constraint"). MIN_LINK: a trial without θ's figures.
LINK_MARGIN = 0.01
MIN_LINK = {"inrack": 0.99, "maxrtt": 0.98}
MAX_STARVED_RTTS = 50
MIN_JAIN = 0.98
# The pick from the front (see the docstring): the waiting queue at most
# this much of θ's, the tail at most θ's.
PICK_WAITING = 0.5


# This worker, in the trials it runs (their user attribute "worker").
WORKER = "%s:%d" % (socket.gethostname(), os.getpid())
# The search's advisory lock in a shared database: PostgreSQL's key,
# MySQL's name; (take, release) by the database's backend name.
LOCK_KEY = 0x507754
LOCK_SQL = {"postgresql": ("SELECT pg_advisory_lock(:k)",
                           "SELECT pg_advisory_unlock(:k)", LOCK_KEY),
            "mysql": ("SELECT GET_LOCK(:k, -1)", "SELECT RELEASE_LOCK(:k)",
                      "powertcp_evolve")}
DRIVERS = {"postgresql": "python3-psycopg2", "mysql": "python3-mysqldb"}


def die(msg):
    sys.exit("search: " + msg)


def need_optuna():
    """The optuna module, or die saying how to get it."""
    try:
        import optuna
    except ImportError:
        die("optuna missing: apt-get install python3-optuna, and run this with\n"
            "Debian's /usr/bin/python3")
    return optuna


@contextlib.contextmanager
def file_lock(path):
    """PATH's exclusive flock: the workers of one machine sharing one OUT."""
    with open(path, "a") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        yield


def replace_file(path, write, binary=False):
    """PATH written by write(file) whole, then put in place: a reader, or
    another worker writing the same OUT, never sees half a file."""
    tmp = "%s.%d.tmp" % (path, os.getpid())
    with open(tmp, "wb" if binary else "w",
              **({} if binary else {"newline": ""})) as f:
        write(f)
    os.replace(tmp, path)


def snapshot_module(out, kernel):
    """The study's own copy of powertcp_evo's build: every trial of a study
    runs the same code, whatever is rebuilt meanwhile. Made at the study's
    first start; a resumed study keeps it."""
    ko = os.path.join(out, "module", "tcp_powertcp_evo.ko")
    with file_lock(os.path.join(out, ".module.lock")):
        if not os.path.exists(ko):
            src = os.path.join(ensure_modules(kernels()[kernel]),
                               "tcp_powertcp_evo.ko")
            os.makedirs(os.path.dirname(ko), exist_ok=True)
            shutil.copy(src, ko)
            rev = subprocess.run(["git", "-C", ROOT, "describe", "--always",
                                  "--dirty"], capture_output=True,
                                 text=True).stdout.strip()
            with open(ko + ".source", "w") as f:
                f.write("built from %s for %s\n" % (rev, kernels()[kernel]))
    return ko


def check_suite(out):
    """Die unless OUT's reference, if it has one, ran this suite.json: the
    tail's reference and the objectives of OUT's trials are the suite's."""
    path = os.path.join(out, "reference", "score.json")
    if not os.path.exists(path):
        return
    with open(os.path.join(HERE, "suite.json")) as f:
        suite = json.load(f)
    with open(path) as f:
        if json.load(f).get("suite") != suite:
            die("%s holds a search on another training suite than "
                "testbed/evolve/suite.json: give another --out, or move it "
                "away" % out)


class Reference(threading.Thread):
    """θ-PowerTCP on the suite, once per study (OUT/reference/score.json),
    in the background; wait() gives its score.json, or None if it failed.
    θ is its own reference: its tail penalty is 0 by definition. Workers
    sharing OUT run it once: the others wait for its score."""

    def __init__(self, out, kernel):
        super().__init__(daemon=True)
        self.path = os.path.join(out, "reference", "score.json")
        self.lock = os.path.join(out, ".reference.lock")
        self.kernel = kernel
        self.res = None

    def run(self):
        with file_lock(self.lock):
            if not os.path.exists(self.path):
                print("reference: θ-PowerTCP on the training suite",
                      flush=True)
                subprocess.run([sys.executable,
                                os.path.join(HERE, "evaluate.py"), "--out",
                                os.path.dirname(self.path), "--kernel",
                                self.kernel, "--algorithm", "theta_powertcp"])
        if os.path.exists(self.path):
            with open(self.path) as f:
                self.res = json.load(f)

    def wait(self):
        self.join()
        return self.res


def pareto_attrs(res, ref):
    """The objectives and the constraints' figures of a score.json's
    content @res (evaluate.py's) against θ's, @ref: the tail over θ's,
    and the link bounds (min_link_CASE) from θ's link."""
    arr = res["arrivals"]
    attrs = {"waiting": case_mean(res, "inrack", "avg_waiting_bytes"),
             "tail": (arr["websearch"]["tail_slowdown"] /
                      ref["arrivals"]["websearch"]["tail_slowdown"]),
             "jain": arr["fairness"]["min_jain"],
             "starved_rtts": arr["fairness"]["starved_rtts"]}
    for case in MIN_LINK:
        attrs["link_" + case] = case_mean(res, case, "link_fraction")
        attrs["min_link_" + case] = (case_mean(ref, case, "link_fraction") -
                                     LINK_MARGIN)
    return attrs


def constraints(attrs):
    """Optuna's constraint values of a trial's attributes @attrs: feasible
    where each is <= 0. The link bounds are the trial's own (θ's on its
    suite, pareto_attrs()), MIN_LINK where it has none."""
    return [attrs.get("min_link_" + case, bound) - attrs["link_" + case]
            for case, bound in MIN_LINK.items()] + [
                attrs["starved_rtts"] - MAX_STARVED_RTTS,
                MIN_JAIN - attrs["jain"]]


def evaluate(trial, out, kernel, ref, lock):
    """A trial on the testbed: its score, its user attributes (the pareto
    objectives and constraints' figures among them) and the progress
    line's middle."""
    need = dict(trial.params, **FIXED)
    tdir = os.path.join(out, "trials", "%04d" % trial.number)
    cmd = [sys.executable, os.path.join(HERE, "evaluate.py"), "--out", tdir,
           "--kernel", kernel, "--module",
           os.path.join(out, "module", "tcp_powertcp_evo.ko")]
    for k, v in sorted(need.items()):
        cmd += ["--param", "%s=%d" % (k, v)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        with lock:
            print("trial %d failed: %s" % (trial.number,
                                            r.stderr.strip()[-300:]))
        raise RuntimeError("evaluation failed")
    ref_res = ref.wait()
    if ref_res is None:
        raise RuntimeError("the reference run failed")
    # The trial's objective against the reference (evaluate.py --reference
    # would have given the same, had the reference been done).
    with open(os.path.join(HERE, "suite.json")) as f:
        weights = json.load(f).get("penalty", {})
    with open(os.path.join(tdir, "score.json")) as f:
        res = finish(json.load(f), weights,
                     ref_res["arrivals"]["websearch"]["tail_slowdown"])
    with open(os.path.join(tdir, "score.json"), "w") as f:
        json.dump(res, f, indent=1)
    agg = res["aggregate"]
    attrs = {}
    for k in COMPONENTS:
        attrs[k] = agg[k]["mean"]
        attrs[k + "_min"] = agg[k]["min"]
    attrs["cases"] = {c: v["combined_score"] for c, v in res["cases"].items()}
    attrs["incast_score"] = res["incast_score"]
    attrs["penalty"] = sum(res["penalties"].values())
    for case, k in ARRIVALS:
        if case in res["arrivals"]:
            attrs[k] = res["arrivals"][case][k]
    attrs.update(pareto_attrs(res, ref_res))
    return res["score"], attrs, "(incast %8.2f)  link %5.1f%%  queue %6.0f B" % (
        res["incast_score"], 100 * agg["link_fraction"]["mean"],
        agg["avg_queue_bytes"]["mean"])


def stand_in_attrs(p):
    """--stand-in's figures of the parameters @p, fixed functions in place
    of the testbed's: the score 0 at θ's parameters, less the further from
    them, one point less for each variant bit; the pareto objectives pull
    apart as the testbed's do: a lower target, β or initial rate holds
    less queue (the target 1000 half θ's); a lower initial rate lengthens
    the tail, a lower β starves flows longer (below 1000 ppm the Jain
    index too, infeasible); a gamma below 550 loses the link
    (infeasible)."""
    score = -100 * sum(((p[k] - THETA[k]) / (hi - lo)) ** 2
                       for k, (lo, hi, _) in SPACE.items())
    score -= bin(p["variant"]).count("1")
    rate = p["init_rate_ppm"] / 1e6
    waiting = (2400 * (p["target_permille"] - 950) / 100 *
               (p["beta_ppm"] / 6000) ** 0.3 * (0.5 + 0.5 * rate))
    agg = {"combined_score": score, "link_fraction": 1.0,
           "avg_queue_bytes": waiting + 1500,
           "p99_queue_bytes": waiting + 1500, "drain_time_us": 0,
           "jain_index": 1.0}
    attrs = dict(agg, incast_score=score, penalty=0.0)
    attrs.update({k + "_min": v for k, v in agg.items()})
    link = 0.97 if p["gamma"] < 550 else 1.0
    # In whole intervals of the fairness analysis (4 base RTTs).
    starved = 4 * round(12 * max(0.0, 1 - p["beta_ppm"] / 9000))
    attrs.update(waiting=waiting, tail=1 + 0.6 * (1 - rate),
                 jain=min(1.0, 0.97 + 0.01 * p["beta_ppm"] / 1000),
                 starved_rtts=starved, link_inrack=link, link_maxrtt=link)
    return score, attrs


def stand_in(trial, out, seconds):
    """--stand-in's trial: SECONDS of sleep, then stand_in_attrs() in place
    of the testbed's figures, and the same attributes and
    OUT/trials/NNNN/score.json as a real trial's."""
    time.sleep(seconds)
    p = trial.params
    score, attrs = stand_in_attrs(p)
    tdir = os.path.join(out, "trials", "%04d" % trial.number)
    os.makedirs(tdir, exist_ok=True)
    with open(os.path.join(tdir, "score.json"), "w") as f:
        json.dump({"stand_in": seconds, "score": score, "params": p}, f,
                  indent=1)
    return score, attrs, "(stand-in)"


def objective_factory(run, lock, progress, pareto):
    """The objective: the trial's parameters suggested (a waiting trial's
    are set already), run(trial) scores them; with @pareto the values
    are the OBJECTIVES."""
    def objective(trial):
        trial.suggest_categorical("variant", VARIANTS)
        for name, (lo, hi, log) in SPACE.items():
            trial.suggest_int(name, lo, hi, log=log)
        t0 = time.time()
        score, attrs, detail = run(trial)
        for k, v in attrs.items():
            trial.set_user_attr(k, v)
        trial.set_user_attr("score", score)
        need = dict(trial.params, **FIXED)
        if pareto:
            detail = "waiting %6.0f B  tail %.3f  starved %g  Jain %.3f%s" % (
                attrs["waiting"], attrs["tail"], attrs["starved_rtts"],
                attrs["jain"],
                "" if max(constraints(attrs)) <= 0 else "  (infeasible)")
        with lock:
            progress["done"] += 1
            print("[%s] trial %d: score %8.2f %s  (%.0f s)  %s" % (
                "/".join(map(str, [progress["done"]] + progress["total"])),
                trial.number, score,
                detail, time.time() - t0,
                " ".join("%s=%d" % kv for kv in sorted(need.items()))),
                flush=True)
        if pareto:
            return [attrs[k] for k, _ in OBJECTIVES]
        return score
    return objective


class StudyLock:
    """The lock under which a worker sets up the study and asks for its next
    trial: this process's threads' (a threading.Lock) and, in a shared
    database, every worker's on every machine (PostgreSQL's or MySQL's
    advisory lock, held by a connection of our own: a worker that dies
    releases it). SQLite has none; its study is one machine's."""

    def __init__(self, url):
        import sqlalchemy
        self.text = sqlalchemy.text
        self.thread = threading.Lock()
        self.conn = None
        backend = sqlalchemy.engine.make_url(url).get_backend_name()
        self.sql = LOCK_SQL.get(backend)
        self.engine = None
        if self.sql:
            try:
                self.engine = sqlalchemy.create_engine(url)
            except ImportError:
                die("no driver for %s: apt-get install %s" % (
                    backend, DRIVERS[backend]))

    def __enter__(self):
        self.thread.acquire()
        try:
            if self.sql:
                self.conn = self.engine.connect()
                self.conn.execute(self.text(self.sql[0]), {"k": self.sql[2]})
        except BaseException:
            self.thread.release()
            raise

    def __exit__(self, *exc):
        try:
            if self.conn is not None:
                self.conn.execute(self.text(self.sql[1]), {"k": self.sql[2]})
                self.conn.close()
        finally:
            self.conn = None
            self.thread.release()


class Heartbeat(threading.Thread):
    """A running trial's heartbeat in the study's database: one at start(),
    then every INTERVAL seconds until stop(). study.optimize() has its own;
    the ask-and-tell loop below needs this one."""

    def __init__(self, storage, trial_id, interval):
        super().__init__(daemon=True)
        self.storage, self.trial_id, self.interval = storage, trial_id, interval
        self.halt = threading.Event()

    def start(self):
        self.storage.record_heartbeat(self.trial_id)
        super().start()

    def run(self):
        while not self.halt.wait(self.interval):
            try:
                self.storage.record_heartbeat(self.trial_id)
            except Exception as e:	# the next beat may reach it
                # Optuna's own message is generic; what failed is the
                # cause, whose text may be empty (then its repr).
                why = e.__cause__ or e
                print("heartbeat of trial id %d: %s" % (
                    self.trial_id, (str(why).splitlines() or [repr(why)])[0]),
                    file=sys.stderr, flush=True)

    def stop(self):
        self.halt.set()
        self.join()


def budget_used(trials):
    """The trials that count against --study-trials: all but those that
    the heartbeat failed and a retry replaced (the retry counts)."""
    replaced = {t.system_attrs["retry_history"][-1] for t in trials
                if t.system_attrs.get("retry_history")}
    return sum(t.number not in replaced for t in trials)


def score_of(t):
    """A complete trial's score (a pareto trial keeps it as an attribute)."""
    return t.user_attrs.get("score", t.value if len(t.values) == 1 else None)


def feasible(t):
    return max(constraints(t.user_attrs)) <= 0


def front(trials):
    """The feasible @trials that no other feasible trial beats: at least
    as good in every objective and better in one."""
    ok = [t for t in trials if feasible(t)]
    sign = {"minimize": 1, "maximize": -1}

    def key(t):
        return [sign[d] * t.user_attrs[k] for k, d in OBJECTIVES]

    def beats(a, b):
        return all(x <= y for x, y in zip(a, b)) and a != b
    return [t for t in ok if not any(beats(key(u), key(t)) for u in ok)]


def pick(pareto, theta):
    """The rule of the docstring: of the front's trials with the waiting
    queue at most PICK_WAITING of θ's (@theta: θ's objectives; without
    them, no pick) and the tail at most θ's, the shortest starvation, then
    the least waiting queue."""
    if theta is None:
        return None
    good = [t for t in pareto if t.user_attrs["tail"] <= 1.0 and
            t.user_attrs["waiting"] <= PICK_WAITING * theta["waiting"]]
    return min(good, key=lambda t: (t.user_attrs["starved_rtts"],
                                    t.user_attrs["waiting"])) if good else None


PICK_RULE = ("of the front's trials with waiting <= %g x theta's and tail "
             "<= 1 (theta's), the shortest starvation, then the least "
             "waiting queue" % PICK_WAITING)


def theta_attrs(ref, stand_in_run):
    """θ-PowerTCP's objectives: those of its score.json's content @ref
    (None without one), or with @stand_in_run the stand-in's at θ's
    parameters."""
    if stand_in_run:
        return stand_in_attrs(THETA)[1]
    return ref and pareto_attrs(ref, ref)


def write_outputs(trials, out, ref, pareto, theta):
    """OUT's history, best and plots from the study's @trials; @ref is
    θ's score.json content (None without one), @theta its objectives
    (theta_attrs())."""
    import optuna
    trials = [t for t in trials
              if t.state == optuna.trial.TrialState.COMPLETE]
    trials.sort(key=lambda t: t.number)
    keys = ["variant"] + list(SPACE)
    objectives = [k for k, _ in OBJECTIVES] + ["jain", "link_inrack",
                                               "link_maxrtt"]
    extra = ["incast_score", "penalty"] + [k for _, k in ARRIVALS
                                           if k not in objectives]

    def history(f):
        w = csv.writer(f)
        w.writerow(["trial", "score"] + keys + objectives + ["feasible"] +
                   extra + COMPONENTS + [c + "_min" for c in COMPONENTS])
        for t in trials:
            has = all(k in t.user_attrs for k in objectives)
            w.writerow([t.number, "%.3f" % score_of(t)] +
                       [t.params.get(k, "") for k in keys] +
                       [t.user_attrs.get(c, "") for c in objectives] +
                       [int(feasible(t)) if has else ""] +
                       [t.user_attrs.get(c, "") for c in extra] +
                       [t.user_attrs.get(c, "") for c in COMPONENTS] +
                       [t.user_attrs.get(c + "_min", "") for c in COMPONENTS])
    replace_file(os.path.join(out, "history.csv"), history)
    if not trials:
        return
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    if pareto:
        write_pareto(trials, out, theta, plt)
    else:
        best = max(trials, key=score_of)
        replace_file(os.path.join(out, "best.json"), lambda f: json.dump(
            {"trial": best.number, "score": score_of(best),
             "params": best.params, "components": best.user_attrs,
             "raw": os.path.join("trials", "%04d" % best.number)}, f,
            indent=1))
    xs = [t.number for t in trials]
    ys = [score_of(t) for t in trials]
    run, bests = float("-inf"), []
    for y in ys:
        run = max(run, y)
        bests.append(run)
    fig, ax = plt.subplots(figsize=(8, 4.5))
    ax.scatter(xs, [max(y, -300) for y in ys], s=14, color="#999999",
               label="trial (clipped at -300)")
    ax.step(xs, bests, where="post", color="#d62728", label="best so far")
    if ref is not None:
        ax.axhline(ref["score"], color="#1f77b4", ls="--", label="θ-PowerTCP")
    ax.set_xlabel("trial")
    ax.set_ylabel("incast score less the arrivals' penalties")
    ax.set_title("powertcp_evo search on the real-kernel testbed")
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    replace_file(os.path.join(out, "best.png"),
                 lambda f: fig.savefig(f, format="png", dpi=110), binary=True)
    plt.close(fig)


def write_pareto(trials, out, theta, plt):
    """OUT/pareto.csv, OUT/pareto.png and OUT/best.json (the pick) of a
    pareto study's complete @trials; @theta: θ's objectives, or None."""
    pts = front(trials)
    pts.sort(key=lambda t: t.user_attrs["waiting"])
    chosen = pick(pts, theta)
    keys = ["variant"] + list(SPACE)

    def table(f):
        w = csv.writer(f)
        w.writerow(["trial"] + [k for k, _ in OBJECTIVES] +
                   ["jain", "link_inrack", "link_maxrtt", "picked"] + keys)
        for t in pts:
            a = t.user_attrs
            w.writerow([t.number, "%.1f" % a["waiting"], "%.4f" % a["tail"],
                        "%g" % a["starved_rtts"], "%.4f" % a["jain"],
                        "%.4f" % a["link_inrack"], "%.4f" % a["link_maxrtt"],
                        int(t is chosen)] + [t.params[k] for k in keys])
    replace_file(os.path.join(out, "pareto.csv"), table)
    best = {"rule": PICK_RULE, "front": [t.number for t in pts],
            "theta": theta, "trial": None}
    if chosen is not None:
        best.update(trial=chosen.number, params=chosen.params,
                    objectives={k: chosen.user_attrs[k]
                                for k, _ in OBJECTIVES},
                    components=chosen.user_attrs,
                    raw=os.path.join("trials", "%04d" % chosen.number))
    replace_file(os.path.join(out, "best.json"),
                 lambda f: json.dump(best, f, indent=1))
    fig, ax = plt.subplots(figsize=(8, 5))
    bad = [t for t in trials if not feasible(t)]
    ok = [t for t in trials if feasible(t)]
    ax.scatter([t.user_attrs["waiting"] for t in bad],
               [t.user_attrs["tail"] for t in bad], marker="x", s=18,
               color="#bbbbbb", label="infeasible (link or fairness)")
    sc = ax.scatter([t.user_attrs["waiting"] for t in ok],
                    [t.user_attrs["tail"] for t in ok],
                    c=[t.user_attrs["starved_rtts"] for t in ok],
                    cmap="viridis_r", vmin=0, vmax=MAX_STARVED_RTTS, s=22,
                    label="feasible trial")
    fig.colorbar(sc, ax=ax, label="fairness phases: longest starvation "
                 "(base RTTs)")
    ax.scatter([t.user_attrs["waiting"] for t in pts],
               [t.user_attrs["tail"] for t in pts], s=90, facecolors="none",
               edgecolors="#d62728", label="Pareto front")
    if chosen is not None:
        ax.scatter([chosen.user_attrs["waiting"]], [chosen.user_attrs["tail"]],
                   marker="*", s=220, color="#d62728",
                   label="picked: trial %d" % chosen.number)
    if theta is not None:
        ax.scatter([theta["waiting"]], [1.0], marker="D", s=60,
                   color="#1f77b4", label="θ-PowerTCP")
        ax.axvline(PICK_WAITING * theta["waiting"], color="#1f77b4", ls=":",
                   lw=0.8)
    ax.axhline(1.0, color="#1f77b4", ls=":", lw=0.8)
    ax.set_xlabel("in-rack incast: average bytes waiting (B)")
    ax.set_ylabel("web-search short-flow tail over θ-PowerTCP's")
    ax.set_title("powertcp_evo: the Pareto front of the search")
    ax.legend(loc="upper right", fontsize=8)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    replace_file(os.path.join(out, "pareto.png"),
                 lambda f: fig.savefig(f, format="png", dpi=110), binary=True)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    budget = ap.add_mutually_exclusive_group()
    budget.add_argument("--trials", type=int, metavar="N",
                        help="run N more trials in this worker (default 40)")
    budget.add_argument("--study-trials", type=int, metavar="N",
                        help="run trials until the study holds N (failed "
                        "ones included), whichever worker runs them; wait "
                        "for the other workers' running trials, to run a "
                        "dead one's again")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--objective", choices=["pareto", "score"],
                    default="pareto",
                    help="three objectives and a Pareto front (default), "
                    "or the single score of the earlier searches")
    ap.add_argument("--sampler", choices=["motpe", "nsga2"], default="motpe",
                    help="--objective pareto's sampler: MOTPE (default; "
                    "few trials) or NSGA-II")
    ap.add_argument("--population", type=int, default=8,
                    help="NSGA-II's population (default 8)")
    ap.add_argument("--study",
                    help="the study's name (default powertcp_evo_pareto, "
                    "or powertcp_evo with --objective score)")
    ap.add_argument("--storage", metavar="URL",
                    help="the study's database (default: sqlite:///OUT/study.db)")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "evolve"))
    ap.add_argument("--kernel", default="6.1", choices=["6.1", "6.12"])
    ap.add_argument("--seed", type=int, default=1,
                    help="a new study's sampler seed; a worker joining a "
                    "study with trials mixes in its host, its pid and the "
                    "study's size, so that no two draw the same points")
    ap.add_argument("--startup", type=int, default=10,
                    help="trials sampled at random before TPE models "
                    "(the enqueued starting points count)")
    ap.add_argument("--heartbeat", type=int, default=60, metavar="SECONDS",
                    help="a running trial's heartbeat interval (default 60)")
    ap.add_argument("--grace", type=int, default=300, metavar="SECONDS",
                    help="a running trial whose heartbeat is older is "
                    "failed and run once more (default 300)")
    ap.add_argument("--stand-in", type=float, metavar="SECONDS",
                    help="test instrument: each trial sleeps SECONDS and "
                    "scores a fixed function of its parameters; no guest, "
                    "no module snapshot, no reference run")
    args = ap.parse_args()
    if not 1 <= args.jobs <= 8:
        die("--jobs: 1 to 8")
    if args.trials is None and args.study_trials is None:
        args.trials = 40
    if (args.trials or 0) < 0 or (args.study_trials or 0) < 0:
        die("--trials, --study-trials: not negative")
    if not 1 <= args.heartbeat < args.grace:
        die("--heartbeat: at least 1 s, and less than --grace")
    if args.stand_in is not None and args.stand_in < 0:
        die("--stand-in: not negative")
    if args.population < 2:
        die("--population: at least 2")
    pareto = args.objective == "pareto"
    if args.study is None:
        args.study = "powertcp_evo" + ("_pareto" if pareto else "")
    optuna = need_optuna()
    import sqlalchemy
    # Heartbeats with ask and tell, the retry callback and the stale
    # trials' failing are what this loop is for.
    warnings.filterwarnings("ignore",
                            category=optuna.exceptions.ExperimentalWarning)
    warnings.filterwarnings("ignore", message="Heartbeat of storage is "
                            "supposed to be used with Study.optimize")
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    if args.stand_in is None:
        check_suite(out)
    storage = args.storage or "sqlite:///" + os.path.join(out, "study.db")
    shown = sqlalchemy.engine.make_url(storage).render_as_string(
        hide_password=True)
    study_lock = StudyLock(storage)
    waiting = optuna.trial.TrialState.WAITING
    running = optuna.trial.TrialState.RUNNING
    # The schema, the study and its starting points, made once whoever
    # comes first.
    try:
        with study_lock:
            # SQLite's writers wait up to 5 s for a lock by default; the
            # heartbeat thread beside two workers' reads lost beats to
            # "database is locked". A minute is well inside the grace.
            sqlite = storage.startswith("sqlite")
            rdb = optuna.storages.RDBStorage(
                storage, engine_kwargs={"connect_args": {"timeout": 60}}
                if sqlite else None, heartbeat_interval=args.heartbeat,
                grace_period=args.grace,
                failed_trial_callback=optuna.storages.RetryFailedTrialCallback(
                    max_retry=1))
            try:
                trials = rdb.get_all_trials(
                    rdb.get_study_id_from_name(args.study), deepcopy=False)
            except KeyError:
                trials = []
            seed = args.seed if not trials else zlib.crc32(
                ("%d %s %d" % (args.seed, WORKER, len(trials))).encode())
            if not pareto:
                sampler = optuna.samplers.TPESampler(
                    seed=seed, n_startup_trials=args.startup)
            elif args.sampler == "motpe":
                sampler = optuna.samplers.TPESampler(
                    seed=seed, n_startup_trials=args.startup,
                    constraints_func=lambda t: constraints(t.user_attrs))
            else:
                sampler = optuna.samplers.NSGAIISampler(
                    seed=seed, population_size=args.population,
                    constraints_func=lambda t: constraints(t.user_attrs))
            directions = ([d for _, d in OBJECTIVES] if pareto
                          else ["maximize"])
            study = optuna.create_study(study_name=args.study, storage=rdb,
                                        directions=directions,
                                        sampler=sampler, load_if_exists=True)
            have = [d.name.lower() for d in study.directions]
            if have != directions:
                die("study %s has the objectives' directions %s, "
                    "--objective %s %s: another --study name" % (
                        args.study, have, args.objective, directions))
            if not trials:
                for params in START:
                    study.enqueue_trial(params)
            study_id = rdb.get_study_id_from_name(args.study)
    except ImportError as e:
        die("%s (%s)" % (e, ", ".join("apt-get install %s for %s" % (p, b)
                                      for b, p in DRIVERS.items())))
    except sqlalchemy.exc.SQLAlchemyError as e:
        die("the study's database %s: %s" % (shown, str(e).splitlines()[0]))
    lock = threading.Lock()
    if args.stand_in is None:
        snapshot_module(out, args.kernel)
        ref = Reference(out, args.kernel)
        ref.start()

        def run(trial):
            return evaluate(trial, out, args.kernel, ref, lock)
    else:
        ref = None

        def run(trial):
            return stand_in(trial, out, args.stand_in)

    def ref_res():
        return ref.wait() if ref is not None else None

    def theta():
        return theta_attrs(ref_res(), args.stand_in is not None)

    done = sum(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
    if args.study_trials is None:
        plan = "running %d more" % args.trials
    else:
        plan = "running until it holds %d" % args.study_trials
    print("study %s in %s: %d trials done, %s, %d at a time (worker %s)"
          % (args.study, shown, done, plan, args.jobs, WORKER), flush=True)
    # The progress line's [done/total]: this worker's, [done] if the
    # study's budget is shared.
    progress = {"done": 0, "total": [args.trials] if args.study_trials is None
                else []}
    objective = objective_factory(run, lock, progress, pareto)
    left = [args.trials]
    mine = set()	# the trial ids this process runs

    def checkpoint():
        trials = rdb.get_all_trials(study_id, deepcopy=False)
        r, th = ref_res(), theta()
        with lock:
            write_outputs(trials, out, r, pareto, th)

    def next_trial():
        """This worker's next trial and its heartbeat, or (None, None).
        Under the study's lock: the trials of dead workers failed and
        queued again (RetryFailedTrialCallback), then a waiting trial
        popped or a new one sampled (study.ask) while the budget lasts.
        The lock keeps the count and the ask together across workers, and
        two workers from failing one stale trial at once (Optuna 3.1's
        fail_stale_trials raises in the second); in one process,
        study.optimize(n_jobs=2) with Optuna 3.1 and SQLite handed one
        enqueued trial to both threads."""
        while True:
            with study_lock:
                optuna.storages.fail_stale_trials(study)
                trials = rdb.get_all_trials(study_id, deepcopy=False)
                if args.study_trials is None:
                    go = left[0] > 0
                    left[0] -= 1
                else:
                    go = (any(t.state == waiting for t in trials) or
                          budget_used(trials) < args.study_trials)
                if go:
                    trial = study.ask()
                    beat = Heartbeat(rdb, trial._trial_id, args.heartbeat)
                    beat.start()
                    mine.add(trial._trial_id)
                    trial.set_user_attr("worker", WORKER)
                    return trial, beat
                # Another worker's trial still running may yet come back.
                if args.study_trials is None or not any(
                        t.state == running and t._trial_id not in mine
                        for t in trials):
                    return None, None
            # Polled every 5 s at most: their end is seen soon.
            time.sleep(min(args.heartbeat, 5))

    def worker():
        while True:
            trial, beat = next_trial()
            if trial is None:
                return
            try:
                try:
                    value = objective(trial)
                except RuntimeError:
                    study.tell(trial, state=optuna.trial.TrialState.FAIL)
                else:
                    study.tell(trial, value)
            except (RuntimeError, ValueError) as e:
                # Its heartbeat was late: another worker failed it, and
                # the retry is the trial now.
                with lock:
                    print("trial %d: %s; its result is dropped" % (
                        trial.number, str(e).splitlines()[0]), flush=True)
            finally:
                beat.stop()
                mine.discard(trial._trial_id)
            checkpoint()

    workers = [threading.Thread(target=worker) for _ in range(args.jobs)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    if ref is not None and ref.wait() is None:
        die("the reference run failed")
    trials = rdb.get_all_trials(study_id, deepcopy=False)
    with lock:
        write_outputs(trials, out, ref_res(), pareto, theta())
    complete = [t for t in trials
                if t.state == optuna.trial.TrialState.COMPLETE]
    if complete and pareto:
        pts = front(complete)
        b = pick(pts, theta())
        print("Pareto front: %d of %d complete trials (%s/pareto.csv, "
              "pareto.png); picked: %s" % (
                  len(pts), len(complete), out,
                  "none (%s: no front trial qualifies)" % PICK_RULE
                  if b is None else
                  "trial %d, waiting %.0f B, tail %.3f, starved %g RTTs, "
                  "Jain %.3f, %s" % (
                      b.number, b.user_attrs["waiting"], b.user_attrs["tail"],
                      b.user_attrs["starved_rtts"], b.user_attrs["jain"],
                      " ".join(
                          "%s=%d" % kv for kv in sorted(b.params.items())))))
    elif complete:
        b = max(complete, key=score_of)
        print("best: trial %d, score %.2f, %s" % (
            b.number, score_of(b), " ".join(
                "%s=%d" % kv for kv in sorted(b.params.items()))))
    print("history: %s/history.csv, plot: %s/best.png" % (out, out))


if __name__ == "__main__":
    main()
