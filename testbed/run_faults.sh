#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make faults: the fault matrix (testbed/faults/run.sh) for several algorithms
# in one QEMU guest (-icount) per kernel, one kernel after the other, then
# the summary, the plot and the table of docs/RELIABILITY.md. One guest
# per kernel rather than per algorithm (testbed/run.sh faults does that):
# a TCG boot costs about as much as three cases.
#
#   testbed/run_faults.sh [--kernels "6.1 6.12 debug"] [--algorithms A,B,..]
#                         [--out DIR] [--doc FILE] [--no-build] [--parallel]
#                         [-- faults.sh options]
#
# Defaults: the registry's faults algorithms (theta_powertcp, powertcp_evo,
# cubic), both kernels, results/faults, docs/RELIABILITY.md. "debug" is
# the debug kernel of make check-debug (scripts/build-debug-kernel.sh,
# built first if it is not yet). Results:
# OUT/KERNEL/ALG/CASE/ (flows.csv, verify.csv, case.json, dmesg.txt),
# OUT/KERNEL/run.json, OUT/summary.json, OUT/summary.csv, OUT/faults.png.
# Exits non-zero if a case failed or a guest did (the results are still
# summarized). --no-build: the modules in build/kmod-REL as they are.
# --parallel: one guest per algorithm, all at once (a host with a core for
# each: the debug kernel's matrix takes hours in one guest).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
CALLER=$PWD
TB_PROG=run_faults
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"

NOBUILD=0 PARALLEL=0 KERNELS="6.1 6.12" ALGS=$(tb_reg_names faults | paste -sd, -) OUT='' DOC=''
ARGS=("$@")
while [ $# -gt 0 ]; do
	case $1 in
	--kernels) tb_val "$1" "${2:-}"; KERNELS=$2; shift ;;
	--algorithms) tb_val "$1" "${2:-}"; ALGS=$2; shift ;;
	--out) tb_val "$1" "${2:-}"; OUT=$2; shift ;;
	--doc) tb_val "$1" "${2:-}"; DOC=$2; shift ;;
	--no-build) NOBUILD=1 ;;
	--parallel) PARALLEL=1 ;;
	-h|--help) sed -n '4,23p' "$0"; exit 0 ;;
	--) shift; break ;;
	*) tb_die "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
EXTRA=("$@")
for k in $KERNELS; do
	[[ $k =~ ^(6\.1|6\.12|debug)$ ]] || tb_die "--kernels: 6.1, 6.12 and/or debug, not '$k'"
done
IFS=, read -r -a algs <<< "$ALGS"
for a in "${algs[@]}"; do
	[[ $a =~ ^[a-z0-9_]{1,15}$ ]] ||
		tb_die "--algorithms: '$a' is not a congestion control name"
done
[ "$(id -u)" = 0 ] || tb_die "must run as root (QEMU, packages)"
OUT=${OUT:-$ROOT/results/faults}
[[ $OUT == /* ]] || OUT=$CALLER/$OUT
DOC=${DOC:-$ROOT/docs/RELIABILITY.md}
[[ $DOC == /* ]] || DOC=$CALLER/$DOC
mkdir -p "$OUT" || tb_die "--out: cannot create $OUT"
OUT=$(cd "$OUT" && pwd -P)
SHARE=()
[[ $OUT/ == "$ROOT"/* ]] || SHARE=(--share "$OUT")

cd "$ROOT"
[ -f build/kernels.env ] || bash scripts/setup.sh
# shellcheck disable=SC1091
. build/kernels.env
make -s -C userspace-tools

# guest KERNEL ALGS LOG [TAG]: ALGS (comma-separated) one after the other
# in one guest of KERNEL (vm, timeout, rel: set per kernel below), its
# kernel log kept in OUT/KERNEL/LOG; with TAG, its output lines name ALGS.
guest() {
	# shellcheck disable=SC2016
	scripts/vm-run.sh "${vm[@]}" --icount --timeout "$timeout" "${SHARE[@]}" \
		--keep-log "$OUT/$1/$3" -- bash -c '
		out=$1 kmod=$2; shift 2
		IFS=, read -r -a algs <<< "$1"; shift
		rc=0
		for a in "${algs[@]}"; do
			bash testbed/faults/run.sh --cc "$a" --out "$out/$a" \
				--kmod-dir "$kmod" "$@" || rc=1
		done
		exit $rc' faults "$OUT/$1" "build/kmod-$rel/kmod" "$2" \
		"${EXTRA[@]}" 2>&1 | sed -u "s|^|[$1${4:+ $2}] |"
}

failed=0
for k in $KERNELS; do
	vm=(--kernel "$k") timeout=7200
	case $k in
	6.1) rel=$KVER_61 kdir=/usr/src/linux-headers-$KVER_61 ;;
	6.12) rel=$KVER_612 kdir=/usr/src/linux-headers-$KVER_612 ;;
	debug)	scripts/build-debug-kernel.sh > /dev/null
		# shellcheck disable=SC1091
		. build/debug-kernel/kernel.env
		rel=$DEBUG_KVER kdir=$DEBUG_KDIR
		# under -icount it runs about 7x slower (docs/RELIABILITY.md)
		vm=(--kernel "$DEBUG_KIMG" --modules "$DEBUG_MODULES") timeout=21600 ;;
	esac
	echo "== $k ($rel): build, then ${algs[*]} in $([ "$PARALLEL" = 1 ] &&
		echo "a guest each, side by side" || echo "one guest")"
	if [ "$NOBUILD" = 0 ] || ! [ -f "build/kmod-$rel/kmod/tcp_theta_powertcp.ko" ]; then
		scripts/build-kmod.sh "$kdir" "build/kmod-$rel" > /dev/null
	fi
	rm -rf "${OUT:?}/$k"
	mkdir -p "$OUT/$k"
	python3 - "$OUT/$k/run.json" "$rel" "$(git rev-parse HEAD 2>/dev/null || true)" \
		"$(git diff --quiet HEAD 2>/dev/null && echo 0 || echo 1)" "${ARGS[@]}" <<'PY'
import json, sys, time
out, rel, commit, dirty, *args = sys.argv[1:]
json.dump({"command": ["testbed/run_faults.sh"] + args, "kernel": rel,
           "icount": True, "commit": commit or None,
           "modified": dirty == "1", "date": time.strftime("%Y-%m-%d")},
          open(out, "w"), indent=1)
PY
	if [ "$PARALLEL" = 0 ]; then
		guest "$k" "$ALGS" guest-dmesg.txt || failed=1
	else
		pids=()
		for a in "${algs[@]}"; do
			guest "$k" "$a" "guest-dmesg-$a.txt" tag & pids+=($!)
		done
		for p in "${pids[@]}"; do wait "$p" || failed=1; done
	fi
done
python3 testbed/faults/summarize.py "$OUT" --doc "$DOC"
/usr/bin/python3 testbed/faults/plot.py --results "$OUT" --out "$OUT/faults.png"
[ "$failed" = 0 ] || { echo "run_faults: a case or a guest failed (see above)" >&2; exit 1; }
