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
# A kernel's own: make check runs two kernels' guests at once.
OUT=$ROOT/build/test-interface/$(uname -r)
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
	bash "$ROOT/testbed/incast/run.sh" --cc "$spec" --out "$out" "${SHORT[@]}" "$@"
}

# trace_filtered DIR FILTER some|none: DIR's trace.txt holds events (every
# one with rtt_us > 0) or none, and params.json records FILTER.
trace_filtered() {
	/usr/bin/python3 - "$@" <<'PY'
import json, re, sys
d, filt, want = sys.argv[1:]
ev = [l for l in open(d + "/trace.txt") if not l.startswith("#")]
rtts = [int(m.group(1)) for m in
        (re.search(r" rtt_us=(-?[0-9]+)", l) for l in ev) if m]
p = json.load(open(d + "/params.json"))
print("%d events, rtt_us from %s; trace_filter %r"
      % (len(ev), min(rtts, default=None), p.get("trace_filter")))
ok = p.get("trace_filter") == filt and p.get("trace") is True
ok = ok and (not ev if want == "none" else
             ev and len(rtts) == len(ev) and min(rtts) > 0)
sys.exit(0 if ok else 1)
PY
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
	/usr/bin/python3 - "$1" "$KO" <<'PY'
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
	a=$(/usr/bin/python3 "$ROOT/testbed/lib/params.py" build-id tcp_byo_reno)
	b=$(/usr/bin/python3 "$ROOT/testbed/lib/params.py" build-id "$KO")
	echo "$a"
	[ -n "$a" ] && [ "$a" = "$b" ]
}

# Our own module with a parameter overridden, tau and rate from the run.
own_recorded() { # dir
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/params.json"))
m = p["module"]
par = m["params"]
errs = []
if par.get("gamma") != 800 or m["params_set"] != {"gamma": 800}:
    errs.append("gamma %r, set %r" % (par.get("gamma"), m["params_set"]))
if par.get("base_rtt_us") != p["tau_us"] or par.get("line_rate_mbps") != p["rate_mbps"]:
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

# rcv_route DELAYED_ACKS WANT: the receiver's route of a star built with
# DELAYED_ACKS (--delayed-acks) has quickack (WANT 1) or not (WANT 0).
rcv_route() {
	bash -c '. "$1/testbed/lib/topology.sh"; DELAYED_ACKS=$2
		TB_RATE_MBPS=100 TB_RTT_US=1160 TB_BUFFER_BYTES=100000 tb_star 1
		ip -n "$TB_RCV" route show default; rc=$?; tb_destroy; exit $rc' \
		_ "$ROOT" "$1" > "$OUT/route-$1.txt" || return 1
	cat "$OUT/route-$1.txt"
	[ "$(grep -c 'quickack 1' "$OUT/route-$1.txt")" = "$2" ]
}

# ours: this guest's testbed namespaces (lib/common.sh's tb_ns: tb-SUFFIX_ROLE).
ours() {
	ip netns list | awk '/^tb-/ { print $1 }' | sort
}

# kill_midway SIGNAL: start an incast of cubic, send SIGNAL to it once its
# traffic runs, and check it exits at once and leaves nothing behind: no
# namespace of the testbed's, no tcpflows.
kill_midway() {
	local sig=$1 pid rc=0 n=0
	# A background job of a script ignores SIGINT; let it have the default.
	/usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' bash "$ROOT/testbed/incast/run.sh" \
		--cc cubic --out "$OUT/killed-$sig" --senders 2 --pre-us 5000000 \
		--post-us 5000000 --no-headroom --kmod-dir "$KMOD_DIR" \
		> "$OUT/killed-$sig.log" 2>&1 &
	pid=$!
	while ! pgrep -x tcpflows > /dev/null && [ $((n += 1)) -le 600 ]; do
		sleep 0.1
	done
	pgrep -x tcpflows > /dev/null || { echo "no traffic started"; return 1; }
	sleep 0.5
	[ -n "$(ours)" ] || { echo "no namespaces"; return 1; }
	kill -s "$sig" "$pid"
	wait "$pid" || rc=$?
	if [ -n "$(ours)" ] || pgrep -x tcpflows > /dev/null; then
		echo "left: $(ours | wc -l) namespaces," \
			"$(pgrep -xc tcpflows) tcpflows"
		return 1
	fi
	echo "exit $rc, no namespace or tcpflows left"
	[ "$rc" -ge 128 ]
}

# ns_isolation: run A, an incast, beside a namespace that is not the
# testbed's (tb_x, as a user's host may have) and beside run B, a second
# incast started and finished while A runs: B leaves A's namespaces and
# tb_x alone, A finishes, and each run deletes exactly its own.
ns_isolation() {
	local pid n=0 a rc=0
	ip netns add tb_x || return 1
	bash "$ROOT/testbed/incast/run.sh" --cc cubic --out "$OUT/ns-a" \
		--senders 2 --pre-us 3000000 --post-us 1000000 --no-headroom \
		--kmod-dir "$KMOD_DIR" > "$OUT/ns-a.log" 2>&1 &
	pid=$!
	while ! pgrep -x tcpflows > /dev/null && [ $((n += 1)) -le 600 ]; do
		sleep 0.1
	done
	a=$(ours)
	[ -n "$a" ] || { echo "run A made no namespaces"; rc=1; }
	bash "$ROOT/testbed/incast/run.sh" --cc cubic --out "$OUT/ns-b" \
		--senders 2 --pre-us 20000 --post-us 50000 --no-headroom \
		--kmod-dir "$KMOD_DIR" > "$OUT/ns-b.log" 2>&1 ||
		{ echo "run B failed: $(tail -n 1 "$OUT/ns-b.log")"; rc=1; }
	[ "$(ours)" = "$a" ] ||
		{ echo "run B changed run A's namespaces"; rc=1; }
	ip netns list | awk '{ print $1 }' | grep -qx tb_x ||
		{ echo "run B deleted tb_x"; rc=1; }
	wait "$pid" || { echo "run A failed: $(tail -n 1 "$OUT/ns-a.log")"; rc=1; }
	ip netns list | awk '{ print $1 }' | grep -qx tb_x ||
		{ echo "run A deleted tb_x"; rc=1; }
	[ -z "$(ours)" ] || { echo "left: $(ours | tr '\n' ' ')"; rc=1; }
	ip netns del tb_x
	[ "$rc" = 0 ] && echo "A: $(echo "$a" | wc -l) namespaces of its own; B beside it; tb_x kept"
	return "$rc"
}

# The BPF build through the same interface (--bpf), and run.sh --native
# with it, as on a host that cannot load modules.
BPF_BIN=$ROOT/userspace-tools/bin/powertcp-bpf

# bpf_params DIR: params.json records the BPF build, not a module, with
# the experiment's tau and rate and the spec's gamma in force.
bpf_params() {
	/usr/bin/python3 - "$1/params.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
b, errs = p.get("bpf") or {}, []
par = b.get("params", {})
if p["module"] is not None:
    errs.append("module %r" % p["module"])
if not b.get("loader", "").endswith("/powertcp-bpf") or len(b.get("sha256", "")) != 64:
    errs.append("loader %r" % b.get("loader"))
if par.get("base_rtt_us") != p["tau_us"] or par.get("line_rate_mbps") != p["rate_mbps"]:
    errs.append("tau/rate %r %r" % (par.get("base_rtt_us"), par.get("line_rate_mbps")))
if par.get("gamma") != 800 or b.get("params_set") != {"gamma": 800}:
    errs.append("gamma %r, set %r" % (par.get("gamma"), b.get("params_set")))
print("BPF: gamma %s, base_rtt_us %s, %d parameters recorded" % (
    par.get("gamma"), par.get("base_rtt_us"), len(par)))
sys.exit("; ".join(errs) if errs else 0)
PY
}

bpf_gamma_is() { # value
	local v
	v=$("$BPF_BIN" get theta_powertcp gamma)
	echo "gamma=$v"
	[ "$v" = "$1" ]
}

# native_bpf: testbed/run.sh --native --bpf, one short incast; its
# summary and run.json.
native_bpf() {
	bash "$ROOT/testbed/run.sh" incast --native --bpf \
		--algorithms powertcp_evo --out "$OUT/native" -- "${SHORT[@]}" \
		> "$OUT/native.log" 2>&1 || { tail -n 3 "$OUT/native.log"; return 1; }
	/usr/bin/python3 - "$OUT/native" <<'PY'
import json, sys
d = sys.argv[1]
r = json.load(open(d + "/run.json"))
s = json.load(open(d + "/summary.json"))
p = json.load(open(d + "/powertcp_evo/seed-1/params.json"))
algs = [a["algorithm"] for a in s["algorithms"]]
ok = r["native"] and r["bpf"] and not r["icount"] and algs == ["powertcp_evo"] \
    and p["bpf"] is not None and p["module"] is None
print("run.json native %s bpf %s, summary of %s" % (r["native"], r["bpf"], algs))
sys.exit(not ok)
PY
}

# bpf_unload: both BPF algorithms unregistered, nothing of ours left.
bpf_unload() {
	local a
	for a in theta_powertcp powertcp_evo; do
		"$BPF_BIN" unload "$a" > /dev/null 2>&1 || true
	done
	! grep -qwE 'theta_powertcp|powertcp_evo' \
		/proc/sys/net/ipv4/tcp_available_congestion_control
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
check "--trace-filter 'rtt_us > 0': kept only events with a sample" \
	incast theta_powertcp "$OUT/filtered" --trace-filter 'rtt_us > 0'
check "the filtered trace: events, every one with rtt_us > 0; the filter recorded" \
	trace_filtered "$OUT/filtered" 'rtt_us > 0' some
check "--trace-filter 'mode != 0': theta never leaves the law's state" \
	incast theta_powertcp "$OUT/filtered0" --trace-filter 'mode != 0'
check "that trace holds no event" \
	trace_filtered "$OUT/filtered0" 'mode != 0' none
check "a --trace-filter the kernel refuses: refused in one line" \
	refused incast theta_powertcp "$OUT/refused" --trace-filter 'no_such_field > 1'
check "our module: an out-of-range gamma is refused in one line" \
	refused incast theta_powertcp=:gamma=5000 "$OUT/refused"
check "a congestion control the kernel lacks: refused in one line" \
	refused incast no_such_cc "$OUT/refused"
# --oracle: cubic, every sender capped to half the link's payload rate
# after a 5 ms trickle; without the caps cubic takes the whole link. Over
# the 50 ms after the incast: the senders' first windows (30 KB, unpaced)
# and 45 ms at half the link, about half of it all.
check "--oracle 5000,500: cubic held near half the link, recorded" \
	incast cubic "$OUT/oracle" --oracle 5000,500
check "the oracle's run: throughput 35-65% of the link, oracle in params" \
	/usr/bin/python3 - "$ROOT" "$OUT/oracle" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(sys.argv[1], "testbed", "incast"))
import summarize  # noqa: E402
d = sys.argv[2]
s = summarize.analyze(d)
p = json.load(open(d + "/params.json"))
share = s["avg_throughput_mbps"] / s["link_rate_mbps"]
print("%.1f%% of the link, oracle %s" % (100 * share, p["oracle"]))
sys.exit(not (0.35 <= share <= 0.65 and p["oracle"] == "5000,500"))
PY
check "--oracle 0: exit 2, one line" bad_arg incast cubic "$OUT/refused" \
	--oracle 0
check "--oracle with --queries: exit 2, one line" bad_arg \
	incast cubic "$OUT/refused" --oracle 8000 --queries 5
if [ -x "$BPF_BIN" ]; then
	check "--bpf while our module is loaded: refused in one line" \
		refused incast theta_powertcp "$OUT/refused" --bpf
	check "rmmod our module, for its BPF build" rmmod tcp_theta_powertcp
	check "--bpf: theta_powertcp=:gamma=800 from the BPF build" \
		incast theta_powertcp=:gamma=800 "$OUT/bpf" --bpf
	check "--bpf: params.json records the BPF build" bpf_params "$OUT/bpf"
	check "--bpf: an out-of-range gamma is refused in one line" \
		refused incast theta_powertcp=:gamma=5000 "$OUT/refused" --bpf
	check "the refused value did not take" bpf_gamma_is 800
	check "run.sh --native --bpf: a short incast, summarized" native_bpf
	check "the BPF builds unload, nothing of ours registered" bpf_unload
else
	skip "the BPF build through --bpf" "no $BPF_BIN (make bpf)"
fi
check "the receiver ACKs every segment: its route has quickack" \
	rcv_route 0 1
check "--delayed-acks: the receiver's route has no quickack" rcv_route 1 0
check "--delayed-acks: a short incast, recorded in params.json" sh -c \
	"bash '$ROOT/testbed/incast/run.sh' --cc cubic --out '$OUT/delack' \
		--senders 2 --pre-us 20000 --post-us 50000 --no-headroom \
		--delayed-acks > '$OUT/delack.log' 2>&1 &&
	 grep -q '\"delayed_acks\": true' '$OUT/delack/params.json'"
check "SIGTERM midway: no namespace, no traffic left" kill_midway TERM
check "SIGINT midway: no namespace, no traffic left" kill_midway INT
check "two runs side by side and a foreign tb_x: each deletes only its own" \
	ns_isolation

rm -rf "$BYO"
tap_done
