#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-ACK cost benchmark (make bench-ack): instructions per call of
# each algorithm's ACK path, the CPU headroom and the CPU per byte at a
# fixed rate, on Debian's 6.1 and 6.12, one guest per kernel under -icount
# (scripts/vm-run.sh --icount). A
# benchmark, not a test: it asserts nothing about the figures.
#
#   scripts/bench-ack.sh [--out DIR] [--kernel 6.1|6.12]... [--seconds S]
#                        [--reps N] [--algorithms A,B,...] [--kmod-root P]
#                        [--write-kb N] [--fixed-mbit R] [--fixed-tso]
#
#   --out         results directory (default results/bench-ack)
#   --kernel      the kernels (default both)
#   --seconds     whole guest seconds of traffic per algorithm, for the
#                 per-call cost and for each headroom run (default 1)
#   --reps        interleaved headroom repetitions (default 3; 0: none)
#   --algorithms  default theta_powertcp,powertcp_evo,bbr,dctcp,cubic
#   --kmod-root   use the modules in P-RELEASE/ (e.g. built from another
#                 commit) instead of building this tree's into
#                 build/kmod-RELEASE/ (scripts/build-kmod.sh)
#   --write-kb    iperf3's write size in KB (default 128, iperf3's own)
#   --fixed-mbit  the rate of the CPU-per-byte runs (default 100 Mbit/s)
#   --fixed-tso   those runs with TSO/GSO on (default: one segment per
#                 skb, as the testbed's hosts send)
#
# In each guest testbed/bench-ack/run.sh times every call of the hooks
# with the function_graph tracer on the x86-tsc clock, which under -icount
# shift=0 ticks once per guest instruction; it also times an empty function
# for the tracer's own share. testbed/bench-ack/summarize.py then writes
# DIR/summary.json, DIR/summary.csv and DIR/bench-ack.png (the
# distributions), and DIR/run.json records this command and the commit.
# Raw data: DIR/RELEASE/.

# Read whole before it runs, and it exits inside the block: editing it
# cannot derail a run in flight.
{
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=results/bench-ack SECS=1 REPS=3 KROOT='' WRITE_KB=128 FIXED=100
GUEST_OPTS=()
ALGS=theta_powertcp,powertcp_evo,bbr,dctcp,cubic
KERNELS=()
ARGS=("$@")

while [ $# -gt 0 ]; do
	case $1 in
	--out) OUT=${2:?}; shift ;;
	--kernel) KERNELS+=("${2:?}"); shift ;;
	--seconds) SECS=${2:?}; shift ;;
	--reps) REPS=${2:?}; shift ;;
	--algorithms) ALGS=${2:?}; shift ;;
	--kmod-root) KROOT=${2:?}; shift ;;
	--write-kb) WRITE_KB=${2:?}; shift ;;
	--fixed-mbit) FIXED=${2:?}; shift ;;
	--fixed-tso) GUEST_OPTS+=(--fixed-tso) ;;
	-h|--help) sed -n '4,35p' "$0"; exit 0 ;;
	*) echo "bench-ack: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
case $WRITE_KB in
''|*[!0-9]*|0*) echo "bench-ack: --write-kb is a whole number of KB, 1 or more" >&2
	exit 2 ;;
esac
case $FIXED in
''|*[!0-9]*|0*) echo "bench-ack: --fixed-mbit is a whole number of Mbit/s, 1 or more" >&2
	exit 2 ;;
esac
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
IFS=, read -ra ALG_LIST <<< "$ALGS"
[ -f build/kernels.env ] || bash scripts/setup.sh
# shellcheck disable=SC1091
. build/kernels.env
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
case $OUT/ in
"$ROOT"/*) ;;
*) SHARE=(--share "$OUT") ;;
esac

for k in "${KERNELS[@]}"; do
	case $k in
	6.1) rel=$KVER_61 ;;
	6.12) rel=$KVER_612 ;;
	*) echo "bench-ack: --kernel is 6.1 or 6.12" >&2; exit 2 ;;
	esac
	if [ -n "$KROOT" ]; then
		mods=$KROOT-$rel
	else
		scripts/build-kmod.sh "/usr/src/linux-headers-$rel" \
			"build/kmod-$rel" > /dev/null
		mods=build/kmod-$rel/kmod
	fi
	[ -f "$mods/tcp_theta_powertcp.ko" ] ||
		{ echo "bench-ack: no modules in $mods" >&2; exit 1; }
	echo "# bench-ack: $rel, modules $mods"
	scripts/vm-run.sh --kernel "$k" --icount ${SHARE[@]+"${SHARE[@]}"} -- \
		bash testbed/bench-ack/run.sh --write-kb "$WRITE_KB" \
		--fixed-mbit "$FIXED" ${GUEST_OPTS[@]+"${GUEST_OPTS[@]}"} \
		"$mods" "$OUT/$rel" "$SECS" \
		"$REPS" "${ALG_LIST[@]}"
	sha256sum "$mods"/*.ko | sed "s|  .*/|  |" > "$OUT/$rel/modules.sha256"
done

# "uncommitted_changes": of the files the benchmark runs, not the tree's.
/usr/bin/python3 - "$OUT/run.json" "$(git rev-parse HEAD)" \
	"$([ -n "$KROOT" ] || git status --porcelain -- kmod scripts/bench-ack.sh \
		testbed/bench-ack/run.sh scripts/build-kmod.sh \
		testbed/bench-ack/summarize.py | wc -l)" "${ARGS[@]}" <<'EOF'
import json, sys, time
out, commit, dirty = sys.argv[1:4]
json.dump({"command": " ".join(["scripts/bench-ack.sh"] + sys.argv[4:]),
           "commit": commit, "uncommitted_changes": int(dirty or 0) > 0,
           "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())},
          open(out, "w"), indent=1)
EOF
/usr/bin/python3 testbed/bench-ack/summarize.py "$OUT"
# Never read on past the block: the file may have changed under the run.
exit
}
