#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make quick: the tests that need no root, no QEMU and no kernel headers,
# so that a broken core fails in seconds:
#   the lints (scripts/lint.sh: shellcheck, pyflakes, checkpatch), the
#   unit tests of the control law (UBSan, integer sanitizer), a fuzz of it
#   for FUZZ_SECONDS (default 3), the tools' build and unit tests, tcpflows
#   on loopback, websearch-gen's known answers and param-writer's counts,
#   the analyzers on fixed inputs.
#
#   scripts/quick.sh            (FUZZ_SECONDS=N in the environment)
#   scripts/quick.sh --fuzz     only the fuzz, as a suite of one check
#
# Prints KTAP (scripts/tap.sh): each suite's KTAP indented above its line,
# and the totals over every check. Each step's full output is in
# build/quick/. Needs make, a C compiler, clang with libFuzzer
# (clang, libclang-rt-14-dev), awk, python3, shellcheck, pyflakes3 and
# linux-source-6.1 (for checkpatch.pl); matplotlib for the plot test,
# which is skipped without it.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
FUZZ_SECONDS=${FUZZ_SECONDS:-3}
LOGDIR=$ROOT/build/quick
TAP_LOGDIR=$LOGDIR	# tap_logfile's
START=$(date +%s)

# shellcheck source=scripts/tap.sh
. scripts/tap.sh

for t in make cc clang awk /usr/bin/python3; do
	command -v "$t" > /dev/null ||
		tap_bail "needs $t (apt-get install build-essential clang libclang-rt-14-dev python3)"
done
mkdir -p "$LOGDIR" || tap_bail "cannot create $LOGDIR"

suite() { # name command...
	local name=$1
	shift
	tap_suite --log "$(tap_logfile "$name")" "$name" "$@"
}

# Independent suites run side by side, and are reported when waited for.
bg() { # name command...
	local name=$1
	shift
	tap_suite_bg "$(tap_logfile "$name")" "$@"
}

report() { # name
	tap_suite_wait "$(tap_logfile "$1")" "$1"
}

# The fuzzer's runs and corpus, on one line; fails if the fuzzer does.
fuzz() {
	local log
	log=$(tap_logfile fuzz)
	make -s -C kmod/tests fuzz FUZZ_SECONDS="$FUZZ_SECONDS" > "$log" 2>&1 || {
		tail -n 40 "$log"
		return 1
	}
	awk -F: '/number_of_executed_units/ { r = $NF + 0 }
		 /new_units_added/ { n = $NF + 0 }
		 END { printf "%d runs, %d new inputs\n", r, n; exit !r }' "$log"
}

if [ "${1:-}" = --fuzz ]; then
	check "fuzz the control law for $FUZZ_SECONDS s" fuzz
	tap_done
	exit
fi

# The fuzzer and the lints run beside the unit tests and the tools' build;
# the loopback test beside the analyzers'. Both use the tools built once.
L="lints: shellcheck, pyflakes, checkpatch"
U="core: unit tests of the control law"
F="core: fuzz"
T="tools: unit tests (ASan, UBSan)"
N="tools: tcpflows on loopback, websearch-gen, param-writer"
A="analyzers on fixed inputs"
export BIN=$ROOT/userspace-tools/bin
bg "$F" bash scripts/quick.sh --fuzz
bg "$L" bash scripts/lint.sh
suite "$U" make -s -C kmod/tests test
check "tools: build, -Wall -Wextra -Werror" make -s -C userspace-tools
suite "$T" make -s -C userspace-tools test
report "$F"
bg "$N" bash userspace-tools/tests/test_tools_noroot.sh
suite "$A" bash userspace-tools/tests/test_analyze.sh
suite "held-out verdicts on fixed inputs" bash scripts/tests/test_heldout_report.sh
suite "the search's constraints on fixed inputs" bash scripts/tests/test_search_constraints.sh
report "$N"
report "$L"

tap_diag "quick took $(($(date +%s) - START)) s"
tap_done
