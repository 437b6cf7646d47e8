#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check-debug: the modules under a debug kernel. Builds (once, then
# cached) Debian's 6.1 source with lockdep, DEBUG_ATOMIC_SLEEP, KASAN,
# UBSAN and DEBUG_OBJECTS (scripts/build-debug-kernel.sh), builds the
# modules against it (no warnings, sparse clean), boots it under QEMU
# (-icount) to run the kernel tests (kmod/tests/test_debug_kernel.sh:
# test_kmod.sh and test_linkspeed.sh between checks that the checkers are
# on and found nothing), then runs the fault matrix in it for
# theta_powertcp and powertcp_evo, one guest each, side by side
# (testbed/run.sh faults --kernel debug): results in results/faults-debug/
# (make update-docs puts its table in docs/faults/DEBUG.md).
#
# Under -icount this kernel runs about 7 times slower than Debian's: a
# guest moves about 7 Mbit/s through a netns path where Debian's moves 50.
# The kernel tests scale their path down for it (PT_TEST_SLOW_KERNEL); the
# matrix keeps its own, so its cases are the same, CPU-bound: its goodputs
# and stall times say nothing about the algorithms. It is judged here by
# the receivers and the checkers (every byte verified, no report in any
# case's or guest's kernel log); its cases' own verdicts, timing bounds
# included, are printed and in docs/faults/DEBUG.md.
#
#   scripts/check-debug.sh [--no-faults] [--cases A,B,..] [--rate-mbps R]
#
#   --no-faults   the kernel tests only (about 10 minutes once built)
#   --cases       the matrix's cases (testbed/faults/run.sh --cases; default
#                 all of them, flows1000 and conns10000 last: in this
#                 slow kernel their thousands of sockets outlive the case
#                 and hold the module, so every later case's reload
#                 would fail)
#   --rate-mbps   the matrix's bottleneck rate (default: faults.sh's, 100)
#
# Not part of make check: the first kernel build alone takes about 25
# minutes of both cores of a 2-core host. Prints KTAP (scripts/tap.sh);
# each step's output is in build/check-debug/.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$ROOT" || exit 1
FAULTS=1 CASES='' RATE=''
LOGDIR=$ROOT/build/check-debug
TAP_LOGDIR=$LOGDIR	# tap_step's and tap_logfile's

while [ $# -gt 0 ]; do
	case $1 in
	--no-faults) FAULTS=0 ;;
	--cases) CASES=${2:?--cases needs a value}; shift ;;
	--rate-mbps) RATE=${2:?--rate-mbps needs a value}; shift ;;
	-h|--help) sed -n '4,36p' "$0"; exit 0 ;;
	*) echo "check-debug: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "check-debug: must run as root (packages, QEMU)" >&2; exit 1; }
[[ -z $RATE || $RATE =~ ^[1-9][0-9]*$ ]] || { echo "check-debug: --rate-mbps: a positive number, not '$RATE'" >&2; exit 2; }
mkdir -p "$LOGDIR"

# shellcheck source=scripts/tap.sh
. scripts/tap.sh

tap_step "setup: packages, kernels, headers" bash scripts/setup.sh ||
	tap_bail "setup failed"
tap_step "debug kernel built (or cached)" scripts/build-debug-kernel.sh ||
	tap_bail "no debug kernel"
# shellcheck disable=SC1091
. build/debug-kernel/kernel.env
KMOD=build/kmod-$DEBUG_KVER
tap_step "modules against $DEBUG_KVER: no warnings, sparse clean" \
	scripts/build-kmod.sh "$DEBUG_KDIR" "$KMOD" C=1 ||
	tap_bail "the modules do not build against the debug kernel"

tap_suite --log "$LOGDIR/kernel-tests.log" \
	"kernel tests in a booted $DEBUG_KVER" \
	scripts/vm-run.sh --kernel "$DEBUG_KIMG" --modules "$DEBUG_MODULES" \
	--icount --timeout 10800 --nic 2500 --nic 0 -- \
	env PT_TEST_SLOW_KERNEL=1 bash kmod/tests/test_debug_kernel.sh "$KMOD/kmod"

if [ "$FAULTS" = 1 ] && [ -z "$CASES" ]; then
	CASES=$(bash testbed/faults/run.sh --list-cases | tail -n1 | tr , '\n' |
		grep -vxE 'flows1000|conns10000' | paste -sd, -),flows1000,conns10000
fi
# The matrix in this kernel is judged by its checkers and the receivers:
# every byte verified, no checker report in any case's log or guest's log.
# Its timing bounds (stalls, the reload between cases) are reported, not
# judged: the guest is CPU-bound here, and flows1000 and conns10000 fail
# them for cubic too (docs/RELIABILITY.md, "The debug kernel").
matrix_bytes() { # summary.json
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
bad = []
for k, algs in json.load(open(sys.argv[1]))["totals"].items():
    for a, t in algs.items():
        print("%s: %d B verified of %d received, %d flows with wrong bytes"
              % (a, t["bytes_verified"], t["bytes_received"],
                 t["flows_with_wrong_bytes"]))
        if t["flows_with_wrong_bytes"] or t["bytes_verified"] != t["bytes_received"]:
            bad.append(a)
sys.exit(1 if bad else 0)
PY
}
matrix_case_logs() { # summary.json
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
n = sum(t["bad_log_lines"] for algs in json.load(open(sys.argv[1]))["totals"].values()
        for t in algs.values())
print("%d bad log lines" % n)
sys.exit(1 if n else 0)
PY
}
# vm-run.sh's own verdict on each guest (its kernel log and taint), in
# run.sh's output, whose lines name the guest; and KASAN on in it.
matrix_guests() { # run.sh-log guest-log-dir algorithms...
	local log=$1 d=$2 a
	shift 2
	for a in "$@"; do
		grep -q "^\[debug/$a\] # vm-run: ok: .*kernel log clean" "$log" ||
			{ echo "$a: no clean kernel log from vm-run.sh"; return 1; }
		grep -q "KernelAddressSanitizer initialized" "$d/guest-dmesg-$a.txt" ||
			{ echo "$a: KASAN not on in its guest"; return 1; }
	done
}

if [ "$FAULTS" = 1 ]; then
	M=results/faults-debug
	rm -f "$M/summary.json"
	MSTEP="fault matrix in a booted $DEBUG_KVER (theta_powertcp, powertcp_evo)"
	# shellcheck disable=SC2016
	tap_step "$MSTEP" \
		bash -c 'bash testbed/run.sh faults "$@"; [ -f "$0/summary.json" ]' "$M" \
		--kernel debug --no-build \
		--algorithms theta_powertcp,powertcp_evo \
		--out "$M" \
		-- ${RATE:+--rate-mbps "$RATE"} ${CASES:+--cases "$CASES"}
	grep -E '^6\.1.*cases ok' "$(tap_logfile "$MSTEP")" | sed 's/^/# /'
	check "matrix: every byte verified, none wrong" matrix_bytes "$M/summary.json"
	check "matrix: no checker report in any case's log" \
		matrix_case_logs "$M/summary.json"
	check "matrix: every guest's kernel log clean (vm-run.sh), KASAN on" \
		matrix_guests "$(tap_logfile "$MSTEP")" "$M/debug" \
		theta_powertcp powertcp_evo
else
	skip "fault matrix in a booted $DEBUG_KVER" "--no-faults"
fi
tap_done
