#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# testbed/evolve/heldout.py's verdicts on fixed inputs (make quick: no
# root, no guest): summaries written here in the testbed's formats, each
# goal of issue "PowerTCP-evo must earn its place" met, not met or not run
# as its figures say, and bad arguments refused in one line (exit 2)
# before anything runs.
#
#   scripts/tests/test_heldout_report.sh
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HO=$ROOT/testbed/evolve/heldout.py
PY=/usr/bin/python3

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"

T=$(mktemp -d /tmp/heldout-report.XXXXXX) || tap_bail "mktemp failed"
trap 'rm -rf "$T"' EXIT

# fixture DIR: the checks' summaries of a candidate "powertcp_evo=:gamma=600"
# that meets every goal but fairness's starvation and the 50% web search's
# p99.9; the 80% web search over 5 seeds a settled win, the 50% one a
# settled loss in p99.9; the BPF build at 98.9% of the link.
fixture() {
	$PY - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
EVO, TH = "powertcp_evo=:gamma=600", "theta_powertcp"

def put(check, summary, algs):
    os.makedirs(os.path.join(d, check), exist_ok=True)
    json.dump(summary, open(os.path.join(d, check, "summary.json"), "w"))
    json.dump({"command": ["testbed/run.sh", "incast", "--algorithms", algs]},
              open(os.path.join(d, check, "run.json"), "w"))

def run(alg, seed, waiting, mbps, score=0.0, q99=0):
    return {"algorithm": alg, "seed": seed, "avg_waiting_bytes": waiting,
            "avg_throughput_mbps": mbps, "link_rate_mbps": 100.0,
            "combined_score": score, "query_fct_p99_us": q99}

def incast(check, rows):
    put(check, {"runs": rows}, TH + "," + EVO)

incast("incast", [run(TH, 1, 2700, 99.8), run(TH, 2, 2760, 99.8),
                  run("powertcp_evo", 1, 1000, 99.5),
                  run("powertcp_evo", 2, 1100, 99.4)])
incast("maxrtt", [run(TH, 1, 14000, 99.9), run("powertcp_evo", 1, 8000, 99.0)])
incast("fanin20", [run(TH, 1, 0, 98, 0.5), run("powertcp_evo", 1, 0, 97, 40),
                   run(TH, 2, 0, 98, 1.0), run("powertcp_evo", 2, 0, 97, 30)])
incast("burst", [run(TH, 1, 0, 99, -25, 78000),
                 run("powertcp_evo", 1, 0, 99, 11, 67000)])
put("bpf", {"runs": [run("powertcp_evo", 1, 1000, 98.9),
                     run("powertcp_evo", 2, 1000, 99.5)]}, EVO)
put("fairness", {"algorithms": [{"algorithm": "powertcp_evo", "seeds": [1, 2, 3],
    "jain_goal": {"holds": True, "min": 0.9917, "seed": 3, "phase": 3},
    "starvation_goal": {"holds": False, "max_rtts": 52.0, "seed": 1,
                        "phase": 3}}]}, TH + "," + EVO)

def ws(load, seed, evo99, evo999, th99, th999):
    rows = [{"algorithm": a, "load_pct": load, "bucket": b,
             "p99_slowdown": x, "p999_slowdown": y}
            for a, x, y in (("powertcp_evo", evo99, evo999), (TH, th99, th999))
            for b in ("short", "all")]
    put("websearch-%d-s%d" % (load, seed), rows, TH + "," + EVO)

for s in range(1, 6):
    ws(80, s, 4.0 - 0.01 * s, 7.0, 4.3, 7.6 + 0.01 * s)
    ws(50, s, 2.8, 3.9 + 0.02 * s, 2.8 + 0.001 * s, 3.5)
PY
}

# verdict DIR GOAL_PREFIX: the verdict of the goal whose name starts so.
verdict() {
	$PY - "$1/heldout.json" "$2" <<'PY'
import json, sys
g = [x for x in json.load(open(sys.argv[1]))["goals"]
     if x["goal"].startswith(sys.argv[2])]
print(g[0]["verdict"] if g else "no such goal")
PY
}

# want DIR GOAL_PREFIX VERDICT
want() {
	local got
	got=$(verdict "$1" "$2")
	if [ "$got" = "$3" ]; then
		ok "$2: $got"
	else
		not_ok "$2: '$got', want '$3'"
	fi
}

D=$T/all
fixture "$D"
$PY "$HO" report --out "$D" > "$T/report.txt"
rc=$?
check "report: exit 1 (a goal not met), heldout.md and heldout.json written" \
	test $rc -eq 1 -a -s "$D/heldout.md" -a -s "$D/heldout.json"
check "report: names the candidate" \
	grep -q '^# Held-out checks of powertcp_evo=:gamma=600$' "$T/report.txt"
want "$D" "in-rack incast" "met"
want "$D" "largest RTT" "met"
want "$D" "20:1 incast" "met"
want "$D" "the paper's burst" "met"
want "$D" "fairness" "not met"
want "$D" "BPF build" "not met"
want "$D" "web search 80%" "met"
want "$D" "web search 50%" "not met"
want "$D" "receivers that delay" "not run"

# Fewer seeds: a win, but not over 5 seeds, is not yet a verdict.
rm -rf "$D"/websearch-80-s[345]
$PY "$HO" report --out "$D" > /dev/null
want "$D" "web search 80%" "unsettled (2 seeds)"
# The queue goal fails with the link: seed 2 at 98.9%.
$PY - "$D/incast/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["runs"][3]["avg_throughput_mbps"] = 98.9
json.dump(s, open(sys.argv[1], "w"))
PY
$PY "$HO" report --out "$D" > /dev/null
want "$D" "in-rack incast" "not met"

# An empty directory: every goal not run, exit 1.
mkdir -p "$T/empty"
$PY "$HO" report --out "$T/empty" > /dev/null
rc=$?
check "an empty directory: exit 1, nothing judged" test $rc -eq 1
want "$T/empty" "in-rack incast" "not run"

# Bad arguments: exit 2, one line, nothing run or written.
bad() { # desc pattern args...
	local desc=$1 pat=$2 rc
	shift 2
	$PY "$HO" "$@" > "$T/out.txt" 2> "$T/err.txt"
	rc=$?
	if [ $rc -eq 2 ] && [ "$(wc -l < "$T/err.txt")" -eq 1 ] &&
	   [ ! -s "$T/out.txt" ] && grep -q -e "$pat" "$T/err.txt"; then
		ok "$desc: $(cat "$T/err.txt")"
	else
		not_ok "$desc: rc=$rc '$(cat "$T/err.txt")'"
	fi
}
bad "--params not P=V" "^heldout: --params" run --out "$T/x" --params gamma
bad "--checks unknown" "^heldout: --checks" run --out "$T/x" --checks incast,nope
bad "--ws-seeds 0" "^heldout: --ws-seeds" run --out "$T/x" --ws-seeds 0
bad "--ws-loads 100" "^heldout: --ws-loads" run --out "$T/x" --ws-loads 100
bad "report of no directory" "no such directory" report --out "$T/none"
check "refused runs made no directory" test ! -e "$T/x"

tap_done
