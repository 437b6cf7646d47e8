#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The module and the BPF build, side by side in the 10:1 incast: for each
# algorithm, testbed/incast.sh once with the kernel module and once with the
# BPF build, in the same booted kernel, then their throughput and average
# queue. Under -icount the two should agree closely: one control law, two
# ways of running it. Runs as root inside a guest that can load modules:
#
#   scripts/vm-run.sh --kernel 6.12 --icount -- \
#       bash kmod/bpf/tests/compare_incast.sh OUT KMOD_DIR [incast.sh options]
#
# OUT (in the repository, which the guest shares) gets one directory per
# run, NAME-module and NAME-bpf, and compare.txt. KMOD_DIR holds the
# modules built for the running kernel; userspace-tools must be built
# (make tools bpf). testbed/incast.sh loads our modules itself, with τ and
# the line rate as insmod parameters, unless they are registered already;
# for the BPF build an insmod on PATH takes those parameters to
# 'powertcp-bpf set' instead, so that testbed/ runs unchanged.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
OUT=${1:?usage: compare_incast.sh OUT KMOD_DIR [incast.sh options]}
KMOD=${2:?usage: compare_incast.sh OUT KMOD_DIR [incast.sh options]}
shift 2
BIN=$ROOT/userspace-tools/bin/powertcp-bpf
TOOLS=$ROOT/userspace-tools/bin
INSMOD=$(command -v insmod)
SHIM=$(mktemp -d /tmp/compare_incast.XXXXXX)
trap 'rm -rf "$SHIM"' EXIT

if [ ! -x "$BIN" ] || [ ! -x "$TOOLS/tcpflows" ] ||
   [ ! -x "$TOOLS/incast-analyze" ]; then
	echo "compare_incast: make tools bpf first" >&2
	exit 2
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

cat > "$SHIM/insmod" <<EOF
#!/bin/bash
# insmod DIR/tcp_NAME.ko PARAM=VALUE...: the BPF build of NAME is loaded;
# set its parameters instead.
case \${1##*/} in
tcp_theta_powertcp.ko|tcp_powertcp_evo.ko)
	name=\${1##*/tcp_}
	shift
	exec "$BIN" set "\${name%.ko}" "\$@" ;;
esac
exec "$INSMOD" "\$@"
EOF
chmod +x "$SHIM/insmod"

# incast-analyze on one run; its JSON in RUN/summary.json.
analyze() { # run
	local args
	mapfile -t args < <(python3 - "$1/params.json" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
for a in ("--algorithm", p["algorithm"], "--link-mbps", p["rate_mbit"],
          "--incast-us", p["pre_us"], "--end-us", p["end_us"],
          "--bdp-bytes", p["bdp_bytes"]):
    print(a)
EOF
	)
	"$TOOLS/incast-analyze" --qdisc "$1/qdisc.csv" \
		--goodput "$1/goodput.csv" --flows "$1/flows.csv" \
		"${args[@]}" --json "$1/summary.json" >/dev/null
}

for cc in theta_powertcp powertcp_evo; do
	echo "# $cc: kernel module"
	bash "$ROOT/testbed/incast.sh" --cc "$cc" --out "$OUT/$cc-module" \
		--kmod-dir "$KMOD" --no-headroom "$@"
	rmmod "tcp_$cc"
	analyze "$OUT/$cc-module"

	echo "# $cc: BPF build"
	"$BIN" load "$cc"
	PATH=$SHIM:$PATH bash "$ROOT/testbed/incast.sh" --cc "$cc" \
		--out "$OUT/$cc-bpf" --kmod-dir "$KMOD" --no-headroom "$@"
	"$BIN" get "$cc" > "$OUT/$cc-bpf/params_in_force.txt"
	"$BIN" unload "$cc"
	analyze "$OUT/$cc-bpf"
done

python3 - "$OUT" <<'EOF' | tee "$OUT/compare.txt"
import json, os, sys
out = sys.argv[1]
keys = [("avg_throughput_mbps", "throughput Mbit/s"),
        ("avg_queue_bytes", "avg queue B"),
        ("p99_queue_bytes", "p99 queue B"),
        ("peak_queue_bytes", "peak queue B")]
print("%-15s %-20s %12s %12s %8s" % ("algorithm", "metric", "module",
                                      "BPF", "diff"))
worst = 0.0
for cc in ("theta_powertcp", "powertcp_evo"):
    s = {}
    for kind in ("module", "bpf"):
        with open(os.path.join(out, "%s-%s" % (cc, kind), "summary.json")) as f:
            s[kind] = json.load(f)
    for k, label in keys:
        m, b = float(s["module"][k]), float(s["bpf"][k])
        d = (b - m) / m * 100 if m else 0.0
        if k in ("avg_throughput_mbps", "avg_queue_bytes"):
            worst = max(worst, abs(d))
        print("%-15s %-20s %12.1f %12.1f %+7.2f%%" % (cc, label, m, b, d))
print("largest difference in throughput and average queue: %.2f%%" % worst)
EOF
