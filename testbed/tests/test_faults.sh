#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The fault matrix's smoke run, inside a booted kernel (make check, one
# kernel): its bad arguments, then testbed/faults/run.sh --cases smoke (1%
# loss, cubic -> ours -> cubic on live connections, parameter writes
# every millisecond, rmmod attempts under load, a reload after every
# case; not linkdown1s, see docs/RELIABILITY.md) for theta_powertcp, 1 s of traffic per
# case, every byte verified; then the summary and the doc's table from it.
#
#   testbed/tests/test_faults.sh KMOD_DIR
#
# ALGS (default theta_powertcp; e.g. theta_powertcp,cubic), CASES
# (default smoke).
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KMOD_DIR=${1:?usage: test_faults.sh KMOD_DIR}
# A kernel's own: make check runs two kernels' guests at once.
OUT=$ROOT/build/test-faults/$(uname -r)
ALGS=${ALGS:-theta_powertcp}
CASES=${CASES:-smoke}

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

rm -rf "$OUT"
export FAULTS_SUMMARIZE=$ROOT/testbed/faults/summarize.py
mkdir -p "$OUT"
F=(bash "$ROOT/testbed/faults/run.sh" --kmod-dir "$KMOD_DIR")

check "bad case: one line, exit 2" bad_arg "${F[@]}" --cc cubic --out "$OUT/x" --cases nope
check "bad duration: one line, exit 2" bad_arg "${F[@]}" --cc cubic --out "$OUT/x" --duration-us 10
check "no --out: one line, exit 2" bad_arg "${F[@]}" --cc cubic

IFS=, read -r -a algs <<< "$ALGS"
for a in "${algs[@]}"; do
	# The matrix's own KTAP, as a subtest: one result per case.
	tap_suite --log "$OUT/$a.log" "fault matrix ($CASES) for $a" \
		"${F[@]}" --cc "$a" --out "$OUT/$a" --cases "$CASES" \
		--duration-us 1000000
done
echo "{\"kernel\": \"$(uname -r)\", \"command\": [\"testbed/tests/test_faults.sh\"]}" \
	> "$OUT/run.json"
check "summary: every case of every algorithm, totals" /usr/bin/python3 - "$OUT" "$ALGS" <<'PY'
import json, os, subprocess, sys
out, algs = sys.argv[1], sys.argv[2].split(",")
subprocess.run([sys.executable, os.environ["FAULTS_SUMMARIZE"], out], check=True,
               stdout=subprocess.DEVNULL)
s = json.load(open(out + "/summary.json"))
k = s["kernels"][0]
t = s["totals"][k]
missing = [a for a in algs if a not in t]
if missing:
    sys.exit("no results for %s" % missing)
print(", ".join("%s %d/%d ok, %d B verified" % (a, t[a]["cases_ok"], t[a]["cases"],
                                               t[a]["bytes_verified"]) for a in algs))
PY
check "the table of the doc from the summary" /usr/bin/python3 - "$OUT" <<'PY'
import os, subprocess, sys
out = sys.argv[1]
doc = out + "/doc.md"
open(doc, "w").write("# x\n<!-- faults:begin -->\nold\n<!-- faults:end -->\nhand\n")
subprocess.run([sys.executable, os.environ["FAULTS_SUMMARIZE"], out, "--doc", doc],
               check=True, stdout=subprocess.DEVNULL)
t = open(doc).read()
if "old" in t or "hand" not in t or "| loss1 |" not in t:
    sys.exit("table not in place:\n" + t[:400])
print("%d lines between the markers" % t.count("\n"))
PY
tap_done
