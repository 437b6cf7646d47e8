#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The Mininet backend, inside a booted kernel: the short incast of
# test_incast.sh through Mininet (testbed/incast/run.sh --backend mininet) for
# theta_powertcp and cubic must give the summary.json of the netns backend,
# figures within the stated tolerance of the netns run with the same seed
# (testbed/mininet/compare.py; docs/TESTBED.md, "The Mininet backend", says why), and the
# custom-topology file must work from mn (pingall; routers, no switch, no
# controller, no Open vSwitch).
#
# The netns runs are test_incast.sh's (build/test-incast/KERNEL/, which
# make check runs just before this in the same kernel) when they are of
# this kernel, these windows, seed 1 and this module build; else they are
# run here.
#
#   testbed/tests/test_mininet.sh KMOD_DIR          (make mininet)
#   testbed/tests/test_mininet.sh --smoke KMOD_DIR  (make check)
#
# The whole test costs about two short incasts' worth of Mininet start-ups
# under TCG beyond the netns runs, more than make check's budget; make
# check runs --smoke: the bad arguments, one Mininet incast (CUBIC, 60 ms,
# no headroom run) that must give a summary.json, and no Open vSwitch.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SMOKE=0
[ "${1:-}" != --smoke ] || { SMOKE=1; shift; }
KMOD_DIR=${1:?usage: test_mininet.sh [--smoke] KMOD_DIR}
# A kernel's own: make check runs two kernels' guests at once.
OUT=$ROOT/build/test-mininet/$(uname -r)
PRE=100000
POST=200000

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=testbed/tests/lib.sh
. "$ROOT/testbed/tests/lib.sh"

# reusable DIR CC: DIR is a netns run of CC by test_incast.sh on this
# kernel, with these windows, seed 1 and (for a module) this build.
reusable() {
	local ko=''
	ko=$KMOD_DIR/tcp_$2.ko
	[ -f "$ko" ] || ko=''
	/usr/bin/python3 - "$1" "$(uname -r)" $PRE $POST "$ko" <<'PY'
import hashlib, json, os, sys
d, kernel, pre, post, ko = sys.argv[1:]
try:
    p = json.load(open(os.path.join(d, "params.json")))
    json.load(open(os.path.join(d, "headroom.json")))
except (OSError, ValueError):
    sys.exit(1)
ok = (p.get("kernel") == kernel and p.get("pre_us") == int(pre) and
      p.get("post_us") == int(post) and p.get("seed") == 1 and
      p.get("backend", "netns") == "netns" and
      os.path.isfile(os.path.join(d, "qdisc.csv")))
m = p.get("module") or {}
if ko:
    ok = ok and m.get("sha256") == hashlib.sha256(open(ko, "rb").read()).hexdigest()
sys.exit(not ok)
PY
}

# backend_is PARAMS_JSON BACKEND
backend_is() {
	/usr/bin/python3 -c 'import json,sys; b = json.load(open(sys.argv[1])).get("backend")
print("backend", b); sys.exit(b != sys.argv[2])' "$1" "$2"
}

# same_fields A B: the runs of two summary.json files have the same fields.
same_fields() {
	/usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
ka = set().union(*(r.keys() for r in a["runs"]))
kb = set().union(*(r.keys() for r in b["runs"]))
print("%d fields per run" % len(ka))
if ka != kb or set(a) != set(b):
    sys.exit("differ: %s" % sorted(ka ^ kb | set(a) ^ set(b)))
PY
}

# pingall TOPO: mn with the custom topologies (routers, no switch) and no
# controller; every node reaches every other.
pingall() {
	local out
	command -v ping > /dev/null || { echo "ping missing (apt-get install iputils-ping)"; return 1; }
	out=$(mn --custom "$ROOT/testbed/mininet/topos.py" --topo "$1" \
		--controller none --test pingall 2>&1)
	echo "$out" | grep -m1 'Results:' | sed 's/^[*]* //'
	echo "$out" | grep -q 'Results: 0% dropped'
}

rm -rf "$OUT"
if [ "$SMOKE" = 1 ]; then
	d=$OUT/mininet/cubic/seed-1
	check "cubic: a short Mininet incast runs (smoke)" bash \
		"$ROOT/testbed/incast/run.sh" --backend mininet --cc cubic --out "$d" \
		--pre-us 20000 --post-us 40000 --no-headroom --kmod-dir "$KMOD_DIR"
	check "cubic: Mininet: params.json says backend mininet" \
		backend_is "$d/params.json" mininet
	check "mininet: incast/summarize.py writes summary.json" sh -c \
		"/usr/bin/python3 '$ROOT/testbed/incast/summarize.py' '$OUT/mininet' > '$OUT/mininet/table.txt'"
	check "a bad --backend exits 2 with a one-line reason" bad_arg \
		bash "$ROOT/testbed/incast/run.sh" --cc cubic --out /tmp/x --backend ovs
	check "mnnet.py: a bad topology exits 2 with a one-line reason" bad_arg \
		/usr/bin/python3 "$ROOT/testbed/mininet/mnnet.py" incast,0
	check "no Open vSwitch ran" sh -c '! pgrep -x "ovs-vswitchd|ovsdb-server"'
	tap_done
	exit
fi
for cc in theta_powertcp cubic; do
	d=$OUT/netns/$cc/seed-1
	mkdir -p "$(dirname "$d")"
	if reusable "$ROOT/build/test-incast/$(uname -r)/$cc/seed-1" "$cc"; then
		cp -r "$ROOT/build/test-incast/$(uname -r)/$cc/seed-1" "$d"
		rm -f "$d/summary.json"
		ok "$cc: the netns run is test_incast.sh's (same kernel, windows, seed, module)"
	else
		check "$cc: netns incast runs" bash "$ROOT/testbed/incast/run.sh" \
			--cc "$cc" --out "$d" --pre-us $PRE --post-us $POST \
			--kmod-dir "$KMOD_DIR"
	fi
	d=$OUT/mininet/$cc/seed-1
	check "$cc: Mininet incast runs" bash "$ROOT/testbed/incast/run.sh" \
		--backend mininet --cc "$cc" --out "$d" --pre-us $PRE \
		--post-us $POST --kmod-dir "$KMOD_DIR"
	check "$cc: Mininet: CPU headroom measured and sufficient" \
		headroom_ok "$d/headroom.json"
	check "$cc: Mininet: params.json has the common schema" \
		params_common "$d/params.json" incast "$cc"
	check "$cc: Mininet: params.json says backend mininet" \
		backend_is "$d/params.json" mininet
done
for b in netns mininet; do
	check "$b: incast/summarize.py writes summary.json" sh -c \
		"/usr/bin/python3 '$ROOT/testbed/incast/summarize.py' '$OUT/$b' > '$OUT/$b/table.txt'"
done
check "summary.json: the same fields for both backends" same_fields \
	"$OUT/netns/summary.json" "$OUT/mininet/summary.json"
for cc in theta_powertcp cubic; do
	check "$cc: Mininet agrees with netns (throughput, average queue)" \
		/usr/bin/python3 "$ROOT/testbed/mininet/compare.py" --algorithm "$cc" \
		"$OUT/netns" "$OUT/mininet"
done
check "a bad --backend exits 2 with a one-line reason" bad_arg \
	bash "$ROOT/testbed/incast/run.sh" --cc cubic --out /tmp/x --backend ovs
check "mnnet.py: a bad topology exits 2 with a one-line reason" bad_arg \
	/usr/bin/python3 "$ROOT/testbed/mininet/mnnet.py" incast,0
# Last: mn raises the namespace defaults (fixLimits), the incasts above
# must run on the kernel's.
for t in incast,10 dumbbell,4 leafspine; do
	check "mn --custom topos.py --topo $t (routers, no controller): pingall" \
		pingall "$t"
done
check "no Open vSwitch ran" sh -c '! pgrep -x "ovs-vswitchd|ovsdb-server"'

tap_done
