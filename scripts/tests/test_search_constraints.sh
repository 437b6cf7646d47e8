#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# testbed/evolve/search.py's constraints on fixed inputs (make quick: no
# root, no guest, no study): the link bounds are θ-PowerTCP's figures on
# the same suite less LINK_MARGIN, a trial just above them feasible and
# one just below not, θ feasible against itself, and a trial without θ's
# figures (--stand-in) held to the absolute MIN_LINK.
#
#   scripts/tests/test_search_constraints.sh
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"

T=$(mktemp /tmp/search-constraints.XXXXXX) || tap_bail "mktemp failed"
trap 'rm -f "$T"' EXIT

tap_plan 5
cd "$ROOT/testbed/evolve" || tap_bail "no testbed/evolve"
/usr/bin/python3 - > "$T" <<'PY' || tap_bail "search.py's constraints failed"
import search

M = search.LINK_MARGIN


def res(inrack, maxrtt):
    """A score.json's content: two in-rack seeds, one largest-RTT seed."""
    cases = {"inrack-s%d" % (i + 1): {"link_fraction": x,
                                      "avg_waiting_bytes": 3000}
             for i, x in enumerate(inrack)}
    cases["maxrtt-s1"] = {"link_fraction": maxrtt}
    return {"cases": cases,
            "arrivals": {"websearch": {"tail_slowdown": 10.0},
                         "fairness": {"min_jain": 0.99,
                                      "starved_rtts": 10}}}


def say(good, desc):
    print("ok" if good else "not_ok", desc)


theta = res((0.9647, 0.9801), 0.9926)
bound = (0.9647 + 0.9801) / 2 - M             # θ's in-rack mean less M
near = search.constraints(search.pareto_attrs(
    res((bound + 0.001,) * 2, 0.99), theta))
say(near[0] < 0 and near[1] < 0,
    "a trial 0.1 point above theta's links less the margin: "
    "feasible on the link, %.4f / %.4f" % tuple(near[:2]))
below = search.constraints(search.pareto_attrs(
    res((bound - 0.001,) * 2, 0.99), theta))
say(below[0] > 0, "0.1 point below in-rack: infeasible, %.4f" % below[0])
slow = search.constraints(search.pareto_attrs(
    res((0.98, 0.98), 0.9926 - M - 0.001), theta))
say(slow[1] > 0 and slow[0] < 0,
    "0.1 point below at the largest RTT: infeasible there alone")
th = search.theta_attrs(theta, False)
say(all(abs(c + M) < 1e-9 for c in search.constraints(th)[:2]),
    "theta against itself: feasible by the margin")
stand = search.stand_in_attrs(search.THETA)[1]
stand["link_inrack"] = search.MIN_LINK["inrack"] - 0.001
say("min_link_inrack" not in stand and search.constraints(stand)[0] > 0,
    "no reference (--stand-in): the absolute %.2f in-rack" %
    search.MIN_LINK["inrack"])
PY
while read -r verdict desc; do
	if [ "$verdict" = ok ]; then ok "$desc"; else not_ok "$desc"; fi
done < "$T"
tap_done
