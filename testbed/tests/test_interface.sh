#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The experiments' common interface, inside a booted kernel: a congestion
# control of our own by module file with a parameter (testbed/tests/byo/,
# built here against the running kernel's headers), parameters of our own
# modules, refusals with a one-line reason, tracing, the params.json schema,
# and cleanup of namespaces and traffic when an experiment is killed.
#
#   testbed/tests/test_interface.sh KMOD_DIR
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
KMOD_DIR=${1:?usage: test_interface.sh KMOD_DIR}
OUT=$ROOT/build/test-interface
KDIR=/lib/modules/$(uname -r)/build
BYO=$(mktemp -d /tmp/byo.XXXXXX)
KO=$BYO/tcp_byo_reno.ko
# Very short incasts: 2 + 1 flows, 20 ms alone, 50 ms after the incast.
SHORT=(--senders 2 --pre-us 20000 --post-us 50000 --no-headroom
       --kmod-dir "$KMOD_DIR")

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

incast() { # spec out [options...]
	local spec=$1 out=$2
	shift 2
	bash "$ROOT/testbed/incast.sh" --cc "$spec" --out "$out" "${SHORT[@]}" "$@"
}

build_byo() {
	if cp "$ROOT"/testbed/tests/byo/{Kbuild,tcp_byo_reno.c} "$BYO/" &&
	   make -s -C "$KDIR" M="$BYO" modules > "$BYO/build.log" 2>&1 &&
	   [ -f "$KO" ]; then
		echo "built against $KDIR"
	else
		tail -n 5 "$BYO/build.log"
		return 1
	fi
}

# params.json of a run of byo_reno: the module, its file and build id, the
# parameter set and in force; the flows ran byo_reno.
byo_recorded() { # dir
	python3 - "$1" "$KO" <<'PY'
import csv, hashlib, json, sys
d, ko = sys.argv[1:]
p = json.load(open(d + "/params.json"))
m = p["module"] or {}
sha = hashlib.sha256(open(ko, "rb").read()).hexdigest()
errs = []
want = {"name": "tcp_byo_reno", "file": ko, "sha256": sha, "builtin": False}
for k, v in want.items():
    if m.get(k) != v:
        errs.append("module %s: %r, want %r" % (k, m.get(k), v))
if m.get("params", {}).get("beta_pct") != 70:
    errs.append("beta_pct in force: %r" % m.get("params"))
if m.get("params_set") != {"beta_pct": 70}:
    errs.append("params_set %r" % m.get("params_set"))
if not m.get("build_id"):
    errs.append("no build id")
if p["algorithm"] != "byo_reno" or p["algorithm_spec"] != "byo_reno=%s:beta_pct=70" % ko:
    errs.append("algorithm %s, spec %s" % (p["algorithm"], p["algorithm_spec"]))
if p["qdisc"] != "fifo" or p["ecn_k_bytes"] != 0:
    errs.append("queue %s, K %s" % (p["qdisc"], p["ecn_k_bytes"]))
ccs = {r["cc"] for r in csv.DictReader(open(d + "/flows.csv"))}
if ccs != {"byo_reno"}:
    errs.append("flows ran %s" % sorted(ccs))
print("module %s, build id %s, beta_pct %s" % (m.get("name"),
      (m.get("build_id") or "")[:12], m.get("params", {}).get("beta_pct")))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# The loaded module's build id is the file's.
same_build() {
	local a b
	a=$(python3 "$ROOT/testbed/lib/params.py" build-id tcp_byo_reno)
	b=$(python3 "$ROOT/testbed/lib/params.py" build-id "$KO")
	echo "$a"
	[ -n "$a" ] && [ "$a" = "$b" ]
}

# Our own module with a parameter overridden, tau and rate from the run.
own_recorded() { # dir
	python3 - "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/params.json"))
m = p["module"]
par = m["params"]
errs = []
if par.get("gamma") != 800 or m["params_set"] != {"gamma": 800}:
    errs.append("gamma %r, set %r" % (par.get("gamma"), m["params_set"]))
if par.get("base_rtt_us") != p["tau_us"] or par.get("line_rate_mbps") != p["rate_mbit"]:
    errs.append("base_rtt_us %r line_rate_mbps %r" % (par.get("base_rtt_us"),
                                                     par.get("line_rate_mbps")))
if m["name"] != "tcp_theta_powertcp" or not m["file"].endswith("/tcp_theta_powertcp.ko"):
    errs.append("module %s from %s" % (m["name"], m["file"]))
if p["trace"] is not True:
    errs.append("trace %r" % p["trace"])
print("gamma %d, base_rtt_us %d, %d parameters recorded" % (
    par["gamma"], par["base_rtt_us"], len(par)))
sys.exit("; ".join(errs) if errs else 0)
PY
}

# Unloaded, the module does not load with a bad parameter.
insmod_refused() {
	rmmod tcp_byo_reno || return 1
	refused incast "byo_reno=$KO:beta_pct=0" "$OUT/refused" || return 1
	! grep -q '^tcp_byo_reno ' /proc/modules
}

# The value in force is still VALUE after a refusal.
still() { # module param value
	local v
	v=$(cat "/sys/module/$1/parameters/$2")
	echo "$2=$v"
	[ "$v" = "$3" ]
}

# kill_midway SIGNAL: start an incast of cubic, send SIGNAL to it once its
# traffic runs, and check it exits at once and leaves nothing behind: no
# tb_* namespace, no tcpflows.
kill_midway() {
	local sig=$1 pid rc=0 n=0
	# A background job of a script ignores SIGINT; let it have the default.
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' bash "$ROOT/testbed/incast.sh" \
		--cc cubic --out "$OUT/killed-$sig" --senders 2 --pre-us 5000000 \
		--post-us 5000000 --no-headroom --kmod-dir "$KMOD_DIR" \
		> "$OUT/killed-$sig.log" 2>&1 &
	pid=$!
	while ! pgrep -x tcpflows > /dev/null && [ $((n += 1)) -le 600 ]; do
		sleep 0.1
	done
	pgrep -x tcpflows > /dev/null || { echo "no traffic started"; return 1; }
	sleep 0.5
	ip netns list | grep -q '^tb_' || { echo "no namespaces"; return 1; }
	kill -s "$sig" "$pid"
	wait "$pid" || rc=$?
	if ip netns list | grep -q '^tb_' || pgrep -x tcpflows > /dev/null; then
		echo "left: $(ip netns list | grep -c '^tb_') namespaces," \
			"$(pgrep -xc tcpflows) tcpflows"
		return 1
	fi
	echo "exit $rc, no namespace or tcpflows left"
	[ "$rc" -ge 128 ]
}

rm -rf "$OUT"
mkdir -p "$OUT"

check "a congestion control of our own builds against $(uname -r)" build_byo
check "byo_reno by module file with a parameter: short incast" \
	incast "byo_reno=$KO:beta_pct=70" "$OUT/byo_reno"
check "params.json has the common schema" \
	params_common "$OUT/byo_reno/params.json" incast byo_reno
check "params.json records the module, its parameter and build" \
	byo_recorded "$OUT/byo_reno"
check "the loaded module is the file's build" same_build
check "loaded already: an out-of-range parameter is refused in one line" \
	refused incast "byo_reno=$KO:beta_pct=150" "$OUT/refused"
check "the refused value did not take" still tcp_byo_reno beta_pct 70
check "a parameter that is not an integer: exit 2, one line" \
	bad_arg incast "byo_reno=$KO:beta_pct=7x" "$OUT/refused"
check "a parameter the module lacks: refused in one line" \
	refused incast "byo_reno=$KO:gamma=1" "$OUT/refused"
check "a name the module does not register: refused in one line" \
	refused incast "other_cc=$KO" "$OUT/refused"
check "a missing module file: refused in one line" \
	refused incast "byo_reno=$BYO/none.ko" "$OUT/refused"
check "not loaded: insmod refuses an out-of-range parameter in one line" \
	insmod_refused
check "theta_powertcp=:gamma=800 overrides our module, traced" \
	incast theta_powertcp=:gamma=800 "$OUT/theta_powertcp" --trace
check "our module: the override, tau and rate recorded" \
	own_recorded "$OUT/theta_powertcp"
check "the trace has powertcp_step events" sh -c \
	"grep -c 'powertcp_step:' '$OUT/theta_powertcp/trace.txt'"
check "our module: an out-of-range gamma is refused in one line" \
	refused incast theta_powertcp=:gamma=5000 "$OUT/refused"
check "a congestion control the kernel lacks: refused in one line" \
	refused incast no_such_cc "$OUT/refused"
check "SIGTERM midway: no namespace, no traffic left" kill_midway TERM
check "SIGINT midway: no namespace, no traffic left" kill_midway INT

rm -rf "$BYO"
tap_done
