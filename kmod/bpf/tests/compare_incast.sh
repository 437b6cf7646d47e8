#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module and the BPF build, side by side in the 10:1 incast: for each
# algorithm and seed, testbed/incast/run.sh with the kernel module and with the
# BPF build, in the same booted kernel, then their throughput and queue.
# Under -icount the two should agree closely: one control law, two ways of
# running it. Runs as root inside a guest that can load modules:
#
#   scripts/vm-run.sh --kernel 6.12 --icount -- \
#       bash kmod/bpf/tests/compare_incast.sh OUT KMOD_DIR [incast.sh options]
#
# OUT (in the repository, which the guest shares) gets one directory per
# run, NAME-sSEED-module and NAME-sSEED-bpf, and compare.txt: the means
# over the seeds (SEEDS, default "1 2 3"; ALGS, default both algorithms),
# and each build's spread over them, the yardstick of the difference: runs
# of one build differ too, from boot to boot and seed to seed. KMOD_DIR
# holds the modules built for the running kernel; userspace-tools must be
# built (make tools bpf). The module runs load our module (testbed/incast/run.sh
# does, with tau and the line rate as insmod parameters), the BPF runs use
# incast.sh --bpf, which sets the same parameters with powertcp-bpf.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${1:?usage: compare_incast.sh OUT KMOD_DIR [incast.sh options]}
KMOD=${2:?usage: compare_incast.sh OUT KMOD_DIR [incast.sh options]}
shift 2
SEEDS=${SEEDS:-1 2 3}	# each with both builds
ALGS=${ALGS:-theta_powertcp powertcp_evo}
BIN=$ROOT/userspace-tools/bin/powertcp-bpf
TOOLS=$ROOT/userspace-tools/bin

if [ ! -x "$BIN" ] || [ ! -x "$TOOLS/tcpflows" ] ||
   [ ! -x "$TOOLS/incast-analyze" ]; then
	echo "compare_incast: make tools bpf first" >&2
	exit 2
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# incast-analyze on one run; its JSON in RUN/summary.json.
analyze() { # run
	local args
	mapfile -t args <<< "$(/usr/bin/python3 - "$1/params.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
for a in ("--algorithm", p["algorithm"], "--link-mbps", p["rate_mbps"],
          "--incast-us", p["pre_us"], "--end-us", p["end_us"],
          "--bdp-bytes", p["bdp_bytes"]):
    print(a)
EOF
	)"
	"$TOOLS/incast-analyze" --qdisc "$1/qdisc.csv" \
		--goodput "$1/goodput.csv" --flows "$1/flows.csv" \
		"${args[@]}" --json "$1/summary.json" >/dev/null
}

# shellcheck disable=SC2086 # lists of words
for cc in $ALGS; do
	for seed in $SEEDS; do
		run=$OUT/$cc-s$seed
		echo "# $cc, seed $seed: kernel module"
		bash "$ROOT/testbed/incast/run.sh" --cc "$cc" --out "$run-module" \
			--kmod-dir "$KMOD" --no-headroom --seed "$seed" "$@"
		rmmod "tcp_$cc"
		analyze "$run-module"

		echo "# $cc, seed $seed: BPF build"
		bash "$ROOT/testbed/incast/run.sh" --cc "$cc" --out "$run-bpf" \
			--bpf --no-headroom --seed "$seed" "$@"
		"$BIN" unload "$cc"
		analyze "$run-bpf"
	done
done

/usr/bin/python3 - "$OUT" "$SEEDS" "$ALGS" <<'EOF' | tee "$OUT/compare.txt"
import json, os, statistics, sys
out, seeds, algs = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
keys = [("avg_throughput_mbps", "throughput Mbit/s"),
        ("avg_queue_bytes", "avg queue B"),
        ("p99_queue_bytes", "p99 queue B"),
        ("peak_queue_bytes", "peak queue B")]
print("means over seeds %s; spread: max - min over the seeds, in %% of"
      " the module's mean" % " ".join(seeds))
print("%-15s %-18s %11s %11s %8s %9s %9s" % (
    "algorithm", "metric", "module", "BPF", "diff", "spread-m", "spread-b"))
worst = 0.0
for cc in algs:
    v = {"module": {}, "bpf": {}}
    for kind in v:
        for seed in seeds:
            with open(os.path.join(out, "%s-s%s-%s" % (cc, seed, kind),
                                   "summary.json")) as f:
                s = json.load(f)
            for k, _ in keys:
                v[kind].setdefault(k, []).append(float(s[k]))
    for k, label in keys:
        m, b = statistics.mean(v["module"][k]), statistics.mean(v["bpf"][k])
        d = (b - m) / m * 100 if m else 0.0
        sm = (max(v["module"][k]) - min(v["module"][k])) / m * 100 if m else 0
        sb = (max(v["bpf"][k]) - min(v["bpf"][k])) / m * 100 if m else 0
        if k in ("avg_throughput_mbps", "avg_queue_bytes"):
            worst = max(worst, abs(d))
        print("%-15s %-18s %11.1f %11.1f %+7.2f%% %8.2f%% %8.2f%%" % (
            cc, label, m, b, d, sm, sb))
print("largest difference of the means, throughput and average queue:"
      " %.2f%%" % worst)
EOF
