#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The search scales out on a real database (issue 31): a private PostgreSQL
# server (scripts/pg-private.sh: a cluster in a temporary directory, its
# Unix socket there, no TCP), and testbed/evolve/search.py workers sharing
# one study through its URL, with the --stand-in objective (a trial sleeps
# 2 s; no guest):
#   two workers starting at once on the empty database make one schema,
#   one study and its starting points (search.py's START);
#   worker A takes a trial, worker B joins while it runs (and must leave
#   it alone), A is killed with SIGKILL in its first trial past the start
#   points (its sampler's, drawn beside B's: a seed shared by the two
#   would give both the same points), and B carries the study to its 12
#   trials (--study-trials): the killed trial is
#   failed by its heartbeat (1 s, grace 3 s) and run once more with its
#   parameters, nothing else runs twice, nothing stays running, B's
#   history.csv lists every complete trial once;
#   the study is the default multi-objective one (three objectives), and
#   B's pareto.csv is the front recomputed here from history.csv (the
#   feasible trials no other beats in waiting, tail and starvation), its
#   best.json the pick of search.py's rule (of the front's trials with
#   waiting at most half θ's and tail <= 1, the shortest starvation, then
#   the least waiting), a trial, and pareto.png a PNG.
# The server is stopped and its directory removed at exit, on failure
# too. Root or not; about a minute.
#
#   scripts/tests/test_evolve_shared.sh
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PY=/usr/bin/python3
SEARCH=$ROOT/testbed/evolve/search.py
PG=$ROOT/scripts/pg-private.sh
TRIALS=12
STUDY=shared

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"

$PY -c 'import optuna' 2> /dev/null ||
	tap_bail "needs Optuna (apt-get install python3-optuna)"
$PY -c 'import psycopg2' 2> /dev/null ||
	tap_bail "needs psycopg2 (apt-get install python3-psycopg2)"
compgen -G '/usr/lib/postgresql/*/bin/initdb' > /dev/null ||
	tap_bail "needs the PostgreSQL server (apt-get install postgresql)"

T=$(mktemp -d /tmp/evolve-shared.XXXXXX) || tap_bail "mktemp failed"
chmod 711 "$T"	# the server's user reaches $T/pg
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill -9 "$p" 2> /dev/null
	done
	wait 2> /dev/null
	bash "$PG" stop "$T/pg" > /dev/null 2>&1
	rm -rf "$T"
}
trap cleanup EXIT

# The study seen from outside the workers: study.py URL STUDY WHAT ARGS.
cat > "$T/study.py" <<'EOF'
import collections, csv, sys, time, warnings
sys.path.insert(0, sys.argv[1])
import optuna
from optuna.trial import TrialState
from search import START
optuna.logging.set_verbosity(optuna.logging.WARNING)
warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
url, name, what, args = sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
retried = optuna.storages.RetryFailedTrialCallback.retried_trial_number

def trials():
    return optuna.load_study(study_name=name, storage=url).get_trials()

def key(params):
    return tuple(sorted(params.items()))

def done(ok, msg):
    print(msg)
    sys.exit(0 if ok else 1)

if what == "running":	# WORKER FROM: its running trial's number, FROM on
    for _ in range(300):
        for t in trials():
            if (t.state == TrialState.RUNNING and
                    t.user_attrs.get("worker") == args[0] and
                    t.number >= int(args[1])):
                done(True, t.number)
        time.sleep(0.1)
    done(False, "no running trial of %s from %s on in 30 s" % tuple(args))
ts = trials()
n = {t.number: t for t in ts}
states = collections.Counter(t.state.name for t in ts)
if what == "started":	# one study, its start points waiting, once each
    got = sorted(key(t.params or t.system_attrs.get("fixed_params", {}))
                 for t in ts)
    done(states == {"WAITING": len(START)} and
         got == sorted(key(p) for p in START),
         "%d trials: %s" % (len(ts), dict(states)))
elif what == "worker":	# TRIAL WORKER STATE
    t = n.get(int(args[0]))
    done(t is not None and t.user_attrs.get("worker") == args[1] and
         t.state.name == args[2],
         "trial %s: %s by %s" % (args[0], t and t.state.name,
                                 t and t.user_attrs.get("worker")))
elif what == "complete":	# N
    done(states["COMPLETE"] == int(args[0]), "%d trials: %s" % (len(ts), dict(states)))
elif what == "retried":	# KILLED
    k = n.get(int(args[0]))
    rs = [t for t in ts if retried(t) == int(args[0])]
    done(k is not None and k.state == TrialState.FAIL and len(rs) == 1 and
         rs[0].state == TrialState.COMPLETE and rs[0].params == k.params,
         "trial %s %s, its retries (number, state): %s" % (args[0], k and k.state.name,
                                          [(r.number, r.state.name) for r in rs]))
elif what == "once":	# KILLED: no parameters twice but the killed trial's
    count = collections.Counter(key(t.params) for t in ts)
    twice = [p for p, c in count.items() if c > 1]
    k = n.get(int(args[0]))
    starts = collections.Counter(key(t.params) for t in ts
                                 if t.state == TrialState.COMPLETE and
                                 key(t.params) in {key(p) for p in START})
    done(len(n) == len(ts) == max(n) + 1 and
         twice == [key(k.params)] and count[key(k.params)] == 2 and
         sorted(starts.values()) == [1] * len(START),
         "%d numbers, %d parameter sets, twice: %d; start points complete: %s"
         % (len(n), len(count), len(twice), sorted(starts.values())))
elif what == "settled":	# nothing running or waiting
    done(not states["RUNNING"] and not states["WAITING"], dict(states))
elif what == "history":	# FILE: every complete trial once
    with open(args[0]) as f:
        rows = [int(r["trial"]) for r in csv.DictReader(f)]
    want = sorted(t.number for t in ts if t.state == TrialState.COMPLETE)
    done(rows == want, "%d rows, %d complete trials" % (len(rows), len(want)))
elif what == "pareto":	# DIR: pareto.csv, best.json, pareto.png of history.csv
    import json, os
    d = args[0]
    with open(os.path.join(d, "history.csv")) as f:
        rows = [r for r in csv.DictReader(f) if r["feasible"] == "1"]
    def vec(r):
        return (float(r["waiting"]), float(r["tail"]),
                float(r["starved_rtts"]))
    def beats(a, b):
        return all(x <= y for x, y in zip(a, b)) and a != b
    want = sorted(int(r["trial"]) for r in rows
                  if not any(beats(vec(o), vec(r)) for o in rows))
    with open(os.path.join(d, "pareto.csv")) as f:
        got = sorted(int(r["trial"]) for r in csv.DictReader(f))
    with open(os.path.join(d, "best.json")) as f:
        best = json.load(f)
    good = [r for r in rows if int(r["trial"]) in want and
            float(r["tail"]) <= 1.0 and
            float(r["waiting"]) <= 0.5 * best["theta"]["waiting"]]
    pick = (int(min(good, key=lambda r: (float(r["starved_rtts"]),
                                          float(r["waiting"])))["trial"])
            if good else None)
    with open(os.path.join(d, "pareto.png"), "rb") as f:
        png = f.read(8) == b"\x89PNG\r\n\x1a\n"
    dirs = len(optuna.load_study(study_name=name, storage=url).directions)
    done(dirs == 3 and got == want and pick is not None and
         best["trial"] == pick and png and
         0 < len(want) < len(rows),
         "%d objectives; front %s of %d feasible, recomputed %s; picked %s, "
         "rule's %s; png %s" % (dirs, got, len(rows), want, best["trial"],
                                pick, png))
sys.exit("study.py: unknown %s" % what)
EOF
study() {
	$PY "$T/study.py" "$ROOT/testbed/evolve" "$URL" "$STUDY" "$@"
}

# worker NAME ARGS...: a search.py worker in the background, its output
# in $T/NAME.log; PID its pid.
worker() {
	local name=$1
	shift
	$PY "$SEARCH" --storage "$URL" --study "$STUDY" --out "$T/$name" \
		--jobs 1 --stand-in 2 --heartbeat 1 --grace 3 "$@" \
		> "$T/$name.log" 2>&1 &
	PID=$!
	PIDS+=("$PID")
}

# finished PID NAME SECONDS: PID, a child of this shell (not of a check's
# subshell), exits 0 within SECONDS; FINISHED says how it went.
finished() {
	local i rc
	for ((i = 0; i < $3 * 10; i++)); do
		if ! kill -0 "$1" 2> /dev/null; then
			wait "$1"
			rc=$?
			FINISHED="exit $rc in $((i / 10)) s"
			[ "$rc" = 0 ] && return 0
			FINISHED+=": $(tail -n 3 "$T/$2.log")"
			return 1
		fi
		sleep 0.1
	done
	FINISHED="still running after $3 s: $(tail -n 3 "$T/$2.log")"
	return 1
}

start_server() {
	URL=$(bash "$PG" start "$T/pg" --port 55439) || return 1
	[ -z "$(sed -n 6p "$T/pg/data/postmaster.pid")" ] ||
		{ echo "listens on TCP: $(sed -n 6p "$T/pg/data/postmaster.pid")"; return 1; }
	echo "$URL"
}
check "a private PostgreSQL server, its socket in a temporary directory, no TCP" \
	start_server
URL=$(bash "$PG" url "$T/pg" 2> /dev/null) || tap_bail "no server"

# Two workers at once on the empty database.
both_start() {
	local a b
	worker start-a --trials 0
	a=$PID
	worker start-b --trials 0
	b=$PID
	finished "$a" start-a 60 && finished "$b" start-b 60 ||
		{ echo "$FINISHED"; return 1; }
	study started
}
# search.py's start points: trials 0 to NSTART - 1 of a new study.
NSTART=$($PY -c 'import sys; sys.path.insert(0, sys.argv[1])
from search import START; print(len(START))' "$ROOT/testbed/evolve")
check "two workers starting at once: one study, its $NSTART start points enqueued once" \
	both_start

# A takes a trial, B joins while it runs, A dies in its first trial past
# the start points.
worker a --study-trials "$TRIALS"
A=$PID
FIRST=$(study running "$(hostname):$A" 0)
worker b --study-trials "$TRIALS"
B=$PID
KILLED=''
if [ -n "$FIRST" ] && KILLED=$(study running "$(hostname):$A" "$NSTART"); then
	sleep 0.5
	if kill -9 "$A" 2> /dev/null; then
		wait "$A" 2> /dev/null
		ok "worker A killed (SIGKILL) in trial $KILLED, after trial $FIRST"
	else
		not_ok "worker A killed in trial $KILLED: it had exited"
	fi
else
	not_ok "worker A killed in a trial past the start points: none ran (first: ${FIRST:-none})"
	tail -n 5 "$T/a.log" | sed 's/^/#   /'
fi
if finished "$B" b 90; then
	ok "worker B finishes the study: $FINISHED"
else
	not_ok "worker B finishes the study"
	echo "$FINISHED" | sed 's/^/#   /'
fi
check "the study holds $TRIALS complete trials" study complete "$TRIALS"
check "A's first trial, running when B joined, completed by A" \
	study worker "${FIRST:-x}" "$(hostname):$A" COMPLETE
check "the killed trial failed, and its one retry completed with its parameters" \
	study retried "${KILLED:--1}"
check "no trial number twice, no parameters twice but the retried ones, each start point once" \
	study once "${KILLED:--1}"
check "no trial left running or waiting" study settled
check "B's history.csv lists every complete trial once" study history "$T/b/history.csv"
check "three objectives; pareto.csv the front of history.csv, best.json the rule's pick" \
	study pareto "$T/b"

stop_server() {
	bash "$PG" stop "$T/pg" || return 1
	! bash "$PG" url "$T/pg" > /dev/null 2>&1 || { echo "still running"; return 1; }
}
check "the server stops" stop_server
tap_done
