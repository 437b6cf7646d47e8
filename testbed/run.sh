#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run an experiment for several congestion controls, each on a fresh
# topology in its own QEMU guest under -icount (repeatable virtual time),
# then analyze, tabulate and plot. `make incast` / `make fairness` /
# `make websearch` run this.
#
#   testbed/run.sh incast|fairness|websearch
#                  [--algorithms a,b,...] [--kernel 6.1|6.12]
#                  [--jobs N] [--out DIR] [--native]
#                  [-- options for testbed/EXPERIMENT.sh]
#
# --native runs on this host's kernel instead (it must be able to load the
# modules, built against /lib/modules/$(uname -r)/build). Results land in
# results/EXPERIMENT/: summary.json, summary.csv, EXPERIMENT*.png and one
# directory of raw data per algorithm.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
EXP=${1:-}
shift || true
case $EXP in
incast) ALGS=theta_powertcp,powertcp_evo,dctcp,bbr,cubic,reno ;;
*) ALGS=theta_powertcp,powertcp_evo,dctcp,bbr,cubic ;;
esac
KERNEL=6.1 JOBS=2 OUT='' NATIVE=0

bad() {
	echo "run: $*" >&2
	exit 2
}

case $EXP in
incast|fairness|websearch) ;;
*) bad "usage: testbed/run.sh incast|fairness|websearch [options] (see the header of $0)" ;;
esac
while [ $# -gt 0 ]; do
	case $1 in
	--algorithms) ALGS=${2:?}; shift ;;
	--kernel) KERNEL=${2:?}; shift ;;
	--jobs) [[ ${2:-} =~ ^[1-8]$ ]] || bad "--jobs: 1 to 8"; JOBS=$2; shift ;;
	--out) OUT=${2:?}; shift ;;
	--native) NATIVE=1 ;;
	--) shift; break ;;
	*) bad "unknown argument '$1'" ;;
	esac
	shift
done
OUT=${OUT:-results/$EXP}
IFS=, read -r -a algs <<< "$ALGS"
for a in "${algs[@]}"; do
	[[ $a =~ ^[a-z0-9_]+$ ]] || bad "--algorithms: bad name '$a'"
done
[ "$(id -u)" = 0 ] || bad "must run as root (packages, namespaces, QEMU)"

step() { echo "== $*"; }

if [ "$NATIVE" = 1 ]; then
	REL=$(uname -r)
	KDIR=/lib/modules/$REL/build
else
	step "setup (packages, kernels; idempotent)"
	bash scripts/setup.sh
	# shellcheck disable=SC1091
	. build/kernels.env
	case $KERNEL in
	6.1) REL=$KVER_61 ;;
	6.12) REL=$KVER_612 ;;
	*) bad "--kernel: 6.1 or 6.12" ;;
	esac
	KDIR=/usr/src/linux-headers-$REL
fi
step "build modules for $REL and the tools"
scripts/build-kmod.sh "$KDIR" "build/kmod-$REL" >/dev/null
make -s -C userspace-tools

mkdir -p "$OUT"
run_one() { # algorithm
	local cmd=(bash "testbed/$EXP.sh" --cc "$1" --out "$OUT/$1"
		   --kmod-dir "build/kmod-$REL/kmod" "${EXTRA[@]}")
	if [ "$NATIVE" = 1 ]; then
		"${cmd[@]}"
	else
		scripts/vm-run.sh --kernel "$KERNEL" --icount -- "${cmd[@]}"
	fi 2>&1 | sed -u "s/^/[$1] /"
	return "${PIPESTATUS[0]}"
}
EXTRA=("$@")
step "running ${#algs[@]} algorithms, $JOBS at a time (progress below)"
pids=() failed=0
for a in "${algs[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	run_one "$a" &
	pids+=($!)
done
# The sampler must not change the result: θ-PowerTCP once more without it.
if [ "$EXP" = incast ] && [[ ,$ALGS, == *,theta_powertcp,* ]]; then
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	OUT_NS=$OUT/_nosample
	(OUT=$OUT_NS; EXTRA+=(--no-sample --no-headroom)
	 mkdir -p "$OUT"; run_one theta_powertcp) &
	pids+=($!)
fi
for p in "${pids[@]}"; do wait "$p" || failed=1; done
[ "$failed" = 0 ] || { echo "run: an algorithm's run failed (see above)" >&2; exit 1; }

step "analysis"
case $EXP in
incast) python3 testbed/summarize.py "$OUT" ;;
*) python3 "testbed/summarize_$EXP.py" "$OUT" ;;
esac
if [ -d "$OUT/_nosample/theta_powertcp" ]; then
	python3 - "$OUT" <<'PY'
import csv, json, sys
out = sys.argv[1]
def rx(d):
    return sum(int(r["bytes_received"]) for r in csv.DictReader(
        open(d + "/flows.csv")))
a, b = rx(out + "/theta_powertcp"), rx(out + "/_nosample/theta_powertcp")
d = {"with_sampling_bytes": a, "without_sampling_bytes": b,
     "difference_pct": round(100.0 * (a - b) / b, 3)}
json.dump(d, open(out + "/sampling.json", "w"))
print("sampling effect on theta_powertcp's goodput: %+.2f%% (%d vs %d bytes)"
      % (d["difference_pct"], a, b))
PY
fi
step "plots"
/usr/bin/python3 "testbed/plot_$EXP.py" --results "$OUT" --out "$OUT/$EXP.png"
echo "results: $OUT/summary.json, $OUT/summary.csv, $(ls "$OUT"/*.png | tr '\n' ' ')"
