# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by testbed/tests/test_*.sh, for use with scripts/tap.sh's
# check: each prints one line and succeeds or fails.

# headroom_ok HEADROOM_JSON: the CPU headroom was measured and sufficient.
headroom_ok() {
	/usr/bin/python3 - "$1" <<'PY'
import json, sys
h = json.load(open(sys.argv[1]))
need = h.get("required_mbps", 2 * h.get("rate_mbps", 0))
print("%d Mbit/s unlimited, %d needed" % (h["unlimited_mbps"], need))
sys.exit(not (h["checked"] is True and h["ok"] is True))
PY
}

# one_line_error WANT COMMAND...: COMMAND exits with status WANT (any
# non-zero one for "any") and exactly one line on stderr (printed).
one_line_error() {
	local want=$1 err rc=0
	shift
	err=$(mktemp)
	"$@" 2> "$err" > /dev/null || rc=$?
	if [ "$rc" -ne 0 ] && { [ "$want" = any ] || [ "$rc" -eq "$want" ]; } &&
	   [ "$(wc -l < "$err")" -eq 1 ]; then
		cat "$err"
		rm -f "$err"
		return 0
	fi
	echo "exit $rc, stderr: $(head -c 400 "$err")"
	rm -f "$err"
	return 1
}

# bad_arg COMMAND...: a usage error, exit 2 with one line on stderr.
bad_arg() {
	one_line_error 2 "$@"
}

# refused COMMAND...: any failure with one line on stderr.
refused() {
	one_line_error any "$@"
}

# summary_fields [--rows KEY] SUMMARY_JSON ROWS FIELD...: every row of a
# summary.json (a list of rows, or with --rows the list KEY of its object:
# runs, algorithms, phases) has every FIELD, and there are ROWS rows (any
# number if ROWS is '').
summary_fields() {
	local key=''
	if [ "$1" = --rows ]; then
		key=$2
		shift 2
	fi
	/usr/bin/python3 - "$key" "$@" <<'PY'
import json, sys
key, path, want, need = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
rows = json.load(open(path))
if key:
    rows = rows[key]
miss = [(r.get("algorithm"), r.get("seed"), r.get("bucket", r.get("phase")), k)
        for r in rows for k in need if k not in r]
print("%d rows%s" % (len(rows), " of " + key if key else ""))
if miss:
    sys.exit("missing %s" % miss[:5])
if want and len(rows) != int(want):
    sys.exit("%d rows, want %s" % (len(rows), want))
PY
}

# params_common PARAMS_JSON EXPERIMENT ALGORITHM: params.json has the
# common schema of testbed/lib/common.sh.
params_common() {
	/usr/bin/python3 - "$@" <<'PY'
import json, sys
path, exp, alg = sys.argv[1:]
p = json.load(open(path))
need = ["experiment", "algorithm", "algorithm_spec", "kernel", "module",
        "rate_mbps", "rtt_us", "tau_us", "buffer_bytes", "bdp_bytes", "mtu",
        "seed", "ecn_k_bytes", "qdisc", "time_scale", "headroom_check",
        "trace", "delayed_acks"]
errs = ["no %s" % k for k in need if k not in p]
if p.get("experiment") != exp or p.get("algorithm") != alg:
    errs.append("experiment %s, algorithm %s" % (p.get("experiment"),
                                                  p.get("algorithm")))
for k in ("headroom_check", "trace", "sample", "lone", "delayed_acks"):
    if k in p and not isinstance(p[k], bool):
        errs.append("%s is not a boolean" % k)
m = p.get("module")
if m is not None and not isinstance(m.get("params"), dict):
    errs.append("module without params")
print("%s on %s, module %s" % (alg, p.get("kernel"),
                               m["name"] if m else "none"))
sys.exit("; ".join(errs) if errs else 0)
PY
}
