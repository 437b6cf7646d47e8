#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run an experiment for several congestion controls, each on a fresh
# topology in its own QEMU guest under -icount (repeatable virtual time),
# then analyze, tabulate and plot. `make incast` / `make fairness` /
# `make websearch` run this. See usage() below (testbed/run.sh --help).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
CALLER=$PWD
TB_PROG=run
TB_CC_OPT=--algorithms
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"

usage() {
	cat <<USAGE
usage: testbed/run.sh incast|fairness|websearch [options]
                      [-- options for testbed/EXPERIMENT.sh]
  --algorithms A,B,.. the algorithms, comma-separated specs (below)
                      (default: those of testbed/algorithms.tsv for the
                      experiment; for incast:
                      $(tb_reg_names incast | paste -sd, -))
  --kernel 6.1|6.12   the guest's kernel (default 6.1)
  --jobs N            guests at a time (default 2)
  --out DIR           results (default results/EXPERIMENT in the repository;
                      a relative DIR is relative to the current directory)
  --native            run on this host's kernel instead, which must be able
                      to load modules (built against /lib/modules/\$(uname
                      -r)/build)
  --dry-run           check the arguments and paths, print each guest's
                      command, run nothing

An algorithm spec is
  NAME                      from testbed/algorithms.tsv, or any congestion
                            control the kernel has (built in or modprobe
                            tcp_NAME)
  NAME=/path/to/tcp_x.ko    a module of your own that registers NAME
  SPEC:P=V[:P=V...]         either of the above with module parameters
                            (integers); NAME=:P=V sets parameters of NAME's
                            own module, e.g. theta_powertcp=:gamma=800
Parameters are given to insmod/modprobe, or written to
/sys/module/MODULE/parameters if the module is loaded already; a refused
value stops the run. Modules that have base_rtt_us and line_rate_mbps get
the experiment's tau and rate unless the spec sets them. Results of NAME
go to OUT/NAME: each run's params.json records the module, its build id and
every parameter in force. Directories outside the repository that the
guests need (--out, a module's) are shared with them read-write.

Results: OUT/summary.json, OUT/summary.csv, OUT/EXPERIMENT*.png, OUT/run.json
(this command, kernel, commit) and one directory of raw data per algorithm.
USAGE
}

bad() {
	echo "run: $*" >&2
	exit 2
}

EXP=${1:-}
shift || true
case $EXP in
incast|fairness|websearch) ;;
-h|--help) usage; exit 0 ;;
*) bad "usage: testbed/run.sh incast|fairness|websearch [options] (see --help)" ;;
esac
ALGS=$(tb_reg_names "$EXP" | paste -sd, -)
KERNEL=6.1 JOBS=2 OUT='' NATIVE=0 DRY=0
ARGS=("$EXP" "$@")
while [ $# -gt 0 ]; do
	case $1 in
	--algorithms) [ -n "${2:-}" ] || bad "--algorithms needs a value"; ALGS=$2; shift ;;
	--kernel) [[ ${2:-} =~ ^(6\.1|6\.12)$ ]] || bad "--kernel: 6.1 or 6.12"
		KERNEL=$2; shift ;;
	--jobs) [[ ${2:-} =~ ^[1-8]$ ]] || bad "--jobs: 1 to 8"; JOBS=$2; shift ;;
	--out) [ -n "${2:-}" ] || bad "--out needs a value"; OUT=$2; shift ;;
	--native) NATIVE=1 ;;
	--dry-run) DRY=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bad "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
EXTRA=("$@")
[ "$(id -u)" = 0 ] || [ "$DRY" = 1 ] || bad "must run as root (packages, namespaces, QEMU)"

# Host paths the guests need: under the repository they are there already
# (vm-run mounts it at its own path); anywhere else they are shared.
SHARES=()
share() { # directory
	local d=$1
	[[ $d/ == "$ROOT"/* ]] && return 0
	[[ $d != *[[:space:]:,]* ]] ||
		bad "cannot share '$d' with the guests (a space, ':' or ','" \
			"in the path): use another directory"
	[[ " ${SHARES[*]} " == *" --share $d "* ]] || SHARES+=(--share "$d")
}

# The results directory, relative to the caller's directory, created and
# writable before anything starts.
if [ -z "$OUT" ]; then
	OUT=$ROOT/results/$EXP
else
	[[ $OUT == /* ]] || OUT=$CALLER/$OUT
fi
[ "$NATIVE" = 1 ] || [[ $OUT/ == "$ROOT"/* ]] || [[ $OUT != *[[:space:]:,]* ]] ||
	bad "--out: '$OUT' cannot be shared with the guests (a space, ':' or" \
		"',' in the path): use another directory"
err=$(mkdir -p "$OUT" 2>&1) ||
	bad "--out: cannot create $OUT (${err##*: }): give a directory you can write"
probe=$(mktemp "$OUT/.run.XXXXXX" 2>/dev/null) ||
	bad "--out: cannot write in $OUT: give a directory you can write"
rm -f "$probe"
OUT=$(cd "$OUT" && pwd -P)
[ "$NATIVE" = 1 ] || share "$OUT"

# The algorithms: parsed as the experiments will, module files made
# absolute (relative to the caller's directory) and shared if need be.
IFS=, read -r -a specs <<< "$ALGS"
[ ${#specs[@]} -gt 0 ] || bad "--algorithms: empty"
names=() SPECS=()
for s in "${specs[@]}"; do
	tb_cc_parse "$s"
	[[ " ${names[*]} " != *" $TB_CC "* ]] ||
		bad "--algorithms: $TB_CC twice (results go to OUT/$TB_CC)"
	if [ -n "$TB_CC_KO" ]; then
		ko=$TB_CC_KO
		[[ $ko == /* ]] || ko=$CALLER/$ko
		[[ -r $ko && ! -d $ko ]] ||
			bad "--algorithms: $TB_CC: no module file $ko"
		ko=$(cd "$(dirname "$ko")" && pwd -P)/$(basename "$ko")
		[ "$NATIVE" = 1 ] || share "$(dirname "$ko")"
		s=$TB_CC=$ko${s#*=*.ko}
	fi
	names+=("$TB_CC")
	SPECS+=("$s")
done

if [ "$DRY" = 1 ]; then
	REL=REL
else
	if [ "$NATIVE" = 1 ]; then
		REL=$(uname -r)
		KDIR=/lib/modules/$REL/build
	else
		echo "== setup (packages, kernels; idempotent)"
		bash scripts/setup.sh
		# shellcheck disable=SC1091
		. build/kernels.env
		case $KERNEL in
		6.1) REL=$KVER_61 ;;
		6.12) REL=$KVER_612 ;;
		esac
		KDIR=/usr/src/linux-headers-$REL
	fi
	echo "== build modules for $REL and the tools"
	scripts/build-kmod.sh "$KDIR" "build/kmod-$REL" >/dev/null
	make -s -C userspace-tools
fi

cd "$ROOT"
command_of() { # spec out -> CMD
	CMD=(bash "testbed/$EXP.sh" --cc "$1" --out "$2"
	     --kmod-dir "build/kmod-$REL/kmod" "${EXTRA[@]}")
	[ "$NATIVE" = 1 ] ||
		CMD=(scripts/vm-run.sh --kernel "$KERNEL" --icount "${SHARES[@]}" -- "${CMD[@]}")
}
run_one() { # name spec out
	command_of "$2" "$3"
	"${CMD[@]}" 2>&1 | sed -u "s/^/[$1] /"
	return "${PIPESTATUS[0]}"
}

# The sampler must not change the result: theta_powertcp once more without
# it.
NOSAMPLE=''
if [ "$EXP" = incast ]; then
	for i in "${!names[@]}"; do
		[ "${names[$i]}" = theta_powertcp ] && NOSAMPLE=${SPECS[$i]}
	done
fi

if [ "$DRY" = 1 ]; then
	for i in "${!names[@]}"; do
		command_of "${SPECS[$i]}" "$OUT/${names[$i]}"
		printf '%q ' "${CMD[@]}"
		echo
	done
	exit 0
fi

python3 - "$OUT/run.json" "$REL" "$NATIVE" "$(git rev-parse HEAD 2>/dev/null || true)" \
	"$(git diff --quiet HEAD 2>/dev/null && echo 0 || echo 1)" \
	"${ARGS[@]}" <<'PY'
import json, sys, time
out, rel, native, commit, dirty, *args = sys.argv[1:]
json.dump({"command": ["testbed/run.sh"] + args, "kernel": rel,
           "native": native == "1", "icount": native != "1",
           "commit": commit or None, "modified": dirty == "1",
           "date": time.strftime("%Y-%m-%d")}, open(out, "w"), indent=1)
PY

echo "== running ${#names[@]} algorithms, $JOBS at a time (progress below)"
pids=() failed=0
for i in "${!names[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	run_one "${names[$i]}" "${SPECS[$i]}" "$OUT/${names[$i]}" &
	pids+=($!)
done
if [ -n "$NOSAMPLE" ]; then
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	mkdir -p "$OUT/_nosample"
	EXTRA+=(--no-sample --no-headroom)
	run_one theta_powertcp "$NOSAMPLE" "$OUT/_nosample/theta_powertcp" &
	pids+=($!)
fi
for p in "${pids[@]}"; do wait "$p" || failed=1; done
[ "$failed" = 0 ] || { echo "run: an algorithm's run failed (see above)" >&2; exit 1; }

echo "== analysis"
python3 "testbed/summarize_$EXP.py" "$OUT"
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
echo "== plots"
/usr/bin/python3 "testbed/plot_$EXP.py" --results "$OUT" --out "$OUT/$EXP.png"
echo "results: $OUT/summary.json, $OUT/summary.csv, $(find "$OUT" -maxdepth 1 -name '*.png' | sort | tr '\n' ' ')"
