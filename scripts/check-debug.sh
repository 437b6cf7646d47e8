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
# theta_powertcp and powertcp_evo (testbed/run_faults.sh --kernels debug):
# results in results/faults-debug/, the table in docs/faults/DEBUG.md.
#
#   scripts/check-debug.sh [--no-faults] [--cases A,B,..]
#
#   --no-faults   the kernel tests only (about 15 minutes once built)
#   --cases       the matrix's cases (testbed/faults.sh --cases; default
#                 all: about 3 hours of one core under this kernel)
#
# Not part of make check: the first kernel build alone takes about 40
# minutes of both cores of a 2-core host. Prints KTAP (scripts/tap.sh);
# each step's output is in build/check-debug/.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
cd "$ROOT" || exit 1
FAULTS=1 CASES=''
LOGDIR=$ROOT/build/check-debug

while [ $# -gt 0 ]; do
	case $1 in
	--no-faults) FAULTS=0 ;;
	--cases) CASES=${2:?--cases needs a value}; shift ;;
	-h|--help) sed -n '4,22p' "$0"; exit 0 ;;
	*) echo "check-debug: unknown argument '$1' (see --help)" >&2; exit 2 ;;
	esac
	shift
done
[ "$(id -u)" = 0 ] || { echo "check-debug: must run as root (packages, QEMU)" >&2; exit 1; }
mkdir -p "$LOGDIR"

# shellcheck source=scripts/tap.sh
. scripts/tap.sh

step() { # NAME COMMAND...: one check, its output in build/check-debug/
	local name=$1 log t0=$SECONDS
	shift
	log=$LOGDIR/$(printf '%s' "$name" | tr -c 'A-Za-z0-9._-' '_').log
	tap_diag "$name ..."
	if "$@" >"$log" 2>&1 </dev/null; then
		ok "$name ($((SECONDS - t0)) s)"
	else
		not_ok "$name ($((SECONDS - t0)) s)"
		tail -n 40 "$log" | sed 's/^/#   /'
		return 1
	fi
}

step "setup: packages, kernels, headers" bash scripts/setup.sh ||
	tap_bail "setup failed"
step "debug kernel built (or cached)" scripts/build-debug-kernel.sh ||
	tap_bail "no debug kernel"
# shellcheck disable=SC1091
. build/debug-kernel/kernel.env
KMOD=build/kmod-$DEBUG_KVER
step "modules against $DEBUG_KVER: no warnings, sparse clean" \
	scripts/build-kmod.sh "$DEBUG_KDIR" "$KMOD" C=1 ||
	tap_bail "the modules do not build against the debug kernel"

tap_suite --log "$LOGDIR/kernel-tests.log" \
	"kernel tests in a booted $DEBUG_KVER" \
	scripts/vm-run.sh --kernel "$DEBUG_KIMG" --modules "$DEBUG_MODULES" \
	--icount --timeout 10800 --nic 2500 --nic 0 -- \
	bash kmod/tests/test_debug_kernel.sh "$KMOD/kmod"

if [ "$FAULTS" = 1 ]; then
	step "fault matrix in a booted $DEBUG_KVER (theta_powertcp, powertcp_evo)" \
		bash testbed/run_faults.sh --kernels debug --no-build \
		--algorithms theta_powertcp,powertcp_evo \
		--out results/faults-debug --doc docs/faults/DEBUG.md \
		${CASES:+-- --cases "$CASES"}
else
	skip "fault matrix in a booted $DEBUG_KVER" "--no-faults"
fi
tap_done
