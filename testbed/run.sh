#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run an experiment for several congestion controls and seeds, each
# (algorithm, seed) on a fresh topology in its own QEMU guest under -icount
# (repeatable virtual time), then analyze, tabulate and plot. `make incast` / `make fairness` /
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
usage: testbed/run.sh incast|fairness|websearch|faults [options]
                      [-- options for testbed/EXPERIMENT.sh]
  --algorithms A,B,.. the algorithms, comma-separated specs (below)
                      (default: those of testbed/algorithms.tsv for the
                      experiment; for incast:
                      $(tb_reg_names incast | paste -sd, -))
  --kernel 6.1|6.12   the guest's kernel (default 6.1)
  --seeds N|S,S,..    incast and fairness: run every algorithm once per
                      seed, seeds 1..N or those listed (one seed S alone:
                      S,), each in its own guest (default 1; make incast
                      and make fairness: SEEDS=3). The seed sets the
                      payload and each flow's start jitter (--start-jitter-us
                      of the experiment). The web search takes its seed as
                      -- --seed S, and so does the fault matrix (faults)
  --jobs N            guests at a time (default 2)
  --timeout SEC       stop a guest after SEC s of wall time (default 1200;
                      websearch 7200: a run costs ~0.7 s of wall time a
                      flow in an idle host's guest, several times that on a
                      busy one)
  --out DIR           results (default results/EXPERIMENT in the repository;
                      a relative DIR is relative to the current directory)
  --native            run on this host's kernel instead of a guest, one
                      run at a time (the runs share the host's namespaces),
                      without -icount: results depend on the host's load.
                      Our modules are built against /lib/modules/\$(uname
                      -r)/build; a kernel without module support gets the
                      BPF build (--bpf) by itself. The kernel needs netem,
                      tbf (and red for dctcp) and every algorithm asked for
  --bpf               our algorithms from the BPF struct_ops build (make
                      bpf) instead of the modules, in the guest or natively
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
with seed S go to OUT/NAME/seed-S (incast, fairness; the seed-* directories
of NAME from earlier runs are removed first) or OUT/NAME (web search): each
run's params.json records the seed, the module, its build id and every
parameter in force. Directories outside the repository that the guests
need (--out, a module's) are shared with them read-write.

Results: OUT/summary.json (every run, and per algorithm the mean, standard
deviation, min and max over the seeds), OUT/summary.csv (the latter),
OUT/EXPERIMENT*.png, OUT/run.json (this command, seeds, kernel, commit) and
the raw data of each run.
USAGE
}

bad() {
	echo "run: $*" >&2
	exit 2
}

EXP=${1:-}
shift || true
case $EXP in
incast|fairness|websearch|faults) ;;
-h|--help) usage; exit 0 ;;
*) bad "usage: testbed/run.sh incast|fairness|websearch|faults [options] (see --help)" ;;
esac
ALGS=$(tb_reg_names "$EXP" | paste -sd, -)
KERNEL=6.1 JOBS=2 OUT='' NATIVE=0 DRY=0 SEEDS_ARG='' BPF=0 TIMEOUT=''
ARGS=("$EXP" "$@")
while [ $# -gt 0 ]; do
	case $1 in
	--algorithms) [ -n "${2:-}" ] || bad "--algorithms needs a value"; ALGS=$2; shift ;;
	--kernel) [[ ${2:-} =~ ^(6\.1|6\.12)$ ]] || bad "--kernel: 6.1 or 6.12"
		KERNEL=$2; shift ;;
	--seeds) [ -n "${2:-}" ] || bad "--seeds needs a value"; SEEDS_ARG=$2; shift ;;
	--jobs) [[ ${2:-} =~ ^[1-8]$ ]] || bad "--jobs: 1 to 8"; JOBS=$2; shift ;;
	--timeout) [[ ${2:-} =~ ^[1-9][0-9]{0,5}$ ]] ||
		bad "--timeout: seconds, 1 to 999999"; TIMEOUT=$2; shift ;;
	--out) [ -n "${2:-}" ] || bad "--out needs a value"; OUT=$2; shift ;;
	--native) NATIVE=1 ;;
	--bpf) BPF=1 ;;
	--dry-run) DRY=1 ;;
	-h|--help) usage; exit 0 ;;
	--) shift; break ;;
	*) bad "unknown argument '$1' (see --help)" ;;
	esac
	shift
done
EXTRA=("$@")
[ -n "$TIMEOUT" ] || { [ "$EXP" = websearch ] && TIMEOUT=7200 || TIMEOUT=1200; }

# The seeds: N is 1..N, a list is those (each a positive integer, once).
SEEDS=()
if [ "$EXP" = websearch ] || [ "$EXP" = faults ]; then
	[ -z "$SEEDS_ARG" ] || bad "--seeds: $EXP takes its seed" \
		"as -- --seed S"
else
	for a in "${EXTRA[@]}"; do
		[ "$a" != --seed ] || bad "$EXP: give seeds as --seeds, not -- --seed"
	done
	SEEDS_ARG=${SEEDS_ARG:-1}
	if [[ $SEEDS_ARG =~ ^[0-9]+$ ]]; then
		if [ ${#SEEDS_ARG} -gt 9 ] || [ "$((10#$SEEDS_ARG))" -lt 1 ] ||
		   [ "$((10#$SEEDS_ARG))" -gt 100 ]; then
			bad "--seeds: N from 1 to 100, or a list S,S,.."
		fi
		mapfile -t SEEDS < <(seq 1 "$((10#$SEEDS_ARG))")
	else
		[[ $SEEDS_ARG =~ ^[0-9]+(,[0-9]+)*,?$ ]] ||
			bad "--seeds: '$SEEDS_ARG' is not N or a list S,S,.. of" \
				"positive integers"
		IFS=, read -r -a list <<< "$SEEDS_ARG"
		for a in "${list[@]}"; do
			[[ $a =~ ^0*[1-9][0-9]{0,8}$ ]] ||
				bad "--seeds: '$a' is not a positive integer"
			a=$((10#$a))
			[[ " ${SEEDS[*]} " != *" $a "* ]] ||
				bad "--seeds: seed $a given twice"
			SEEDS+=("$a")
		done
	fi
fi
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

# --native: the host kernel must have what the experiments use, each
# missing piece named in one line before anything runs.
native_check() {
	local ns=tb_probe$$ q need=(netem tbf) n
	for n in "${names[@]}"; do
		[ "$(tb_ecn_k "$n" 1)" = 0 ] || need+=(red)
	done
	ip netns add "$ns" 2>/dev/null || bad "--native: cannot create a" \
		"network namespace (CONFIG_NET_NS, ip from iproute2)"
	for q in "${need[@]}"; do
		modprobe -q "sch_$q" 2>/dev/null || true
		case $q in
		netem) tc -n "$ns" qdisc add dev lo root netem delay 1ms ;;
		tbf) tc -n "$ns" qdisc add dev lo root tbf rate 1mbit \
			burst 1540 limit 3000 ;;
		red) tc -n "$ns" qdisc add dev lo root red limit 400000 \
			min 30000 max 30001 avpkt 1500 burst 21 ecn \
			bandwidth 100mbit probability 1 ;;
		esac 2>/dev/null || { ip netns del "$ns"; bad "--native:" \
			"$(uname -r) has no sch_$q (CONFIG_NET_SCH_${q^^}), which" \
			"the testbed needs"; }
		tc -n "$ns" qdisc del dev lo root 2>/dev/null
	done
	ip netns del "$ns"
	for n in "${SPECS[@]}"; do
		[ -e /proc/modules ] || [[ $n != *=*.ko* ]] || bad "--native:" \
			"$(uname -r) cannot load modules: ${n%%=*} from a .ko cannot run"
	done
	for n in "${names[@]}"; do
		[ "$(tb_reg "$n" load)" = kmod ] && continue
		tb_cc_available "$n" || modinfo "tcp_$n" >/dev/null 2>&1 ||
			bad "--native: $(uname -r) has no congestion control" \
				"$n (neither built in nor a module tcp_$n)"
	done
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

if [ "$NATIVE" = 1 ]; then
	JOBS=1
	if [ "$BPF" = 0 ] && [ ! -e /proc/modules ]; then
		echo "== $(uname -r) cannot load modules: our algorithms from" \
			"the BPF build (--bpf)"
		BPF=1
	fi
	[ "$DRY" = 1 ] || native_check
fi
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
	if [ "$BPF" = 1 ]; then
		echo "== build the BPF programs, their loader and the tools"
		make -s bpf >/dev/null || bad "make bpf failed (see its output)"
	else
		echo "== build modules for $REL and the tools"
		scripts/build-kmod.sh "$KDIR" "build/kmod-$REL" >/dev/null
	fi
	make -s -C userspace-tools
fi

cd "$ROOT"
# The runs: every algorithm with every seed (the web search: once, its
# seed in EXTRA). RUN_NAME, RUN_SPEC, RUN_OUT, RUN_SEED are parallel.
RUN_NAME=() RUN_SPEC=() RUN_OUT=() RUN_SEED=()
for i in "${!names[@]}"; do
	if [ ${#SEEDS[@]} = 0 ]; then
		RUN_NAME+=("${names[$i]}") RUN_SPEC+=("${SPECS[$i]}")
		RUN_OUT+=("$OUT/${names[$i]}") RUN_SEED+=('')
		continue
	fi
	for s in "${SEEDS[@]}"; do
		RUN_NAME+=("${names[$i]}") RUN_SPEC+=("${SPECS[$i]}")
		RUN_OUT+=("$OUT/${names[$i]}/seed-$s") RUN_SEED+=("$s")
	done
done

command_of() { # spec out seed -> CMD
	CMD=(bash "testbed/$EXP/run.sh" --cc "$1" --out "$2"
	     --kmod-dir "build/kmod-$REL/kmod" ${3:+--seed "$3"} "${EXTRA[@]}")
	[ "$BPF" = 0 ] || CMD+=(--bpf)
	[ "$NATIVE" = 1 ] ||
		CMD=(scripts/vm-run.sh --kernel "$KERNEL" --icount \
		     --timeout "$TIMEOUT" "${SHARES[@]}" -- "${CMD[@]}")
}
run_one() { # label spec out seed
	command_of "$2" "$3" "$4"
	"${CMD[@]}" 2>&1 | sed -u "s|^|[$1] |"
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
	for i in "${!RUN_NAME[@]}"; do
		command_of "${RUN_SPEC[$i]}" "${RUN_OUT[$i]}" "${RUN_SEED[$i]}"
		printf '%q ' "${CMD[@]}"
		echo
	done
	exit 0
fi

python3 - "$OUT/run.json" "$REL" "$NATIVE" "$BPF" "$(git rev-parse HEAD 2>/dev/null || true)" \
	"$(git diff --quiet HEAD 2>/dev/null && echo 0 || echo 1)" \
	"${SEEDS[*]}" "${ARGS[@]}" <<'PY'
import json, sys, time
out, rel, native, bpf, commit, dirty, seeds, *args = sys.argv[1:]
r = {"command": ["testbed/run.sh"] + args, "kernel": rel,
     "native": native == "1", "icount": native != "1", "bpf": bpf == "1",
     "commit": commit or None, "modified": dirty == "1",
     "date": time.strftime("%Y-%m-%d")}
if seeds:
    r["seeds"] = [int(s) for s in seeds.split()]
json.dump(r, open(out, "w"), indent=1)
PY

# Earlier seeds of these algorithms would be summarized with these.
if [ ${#SEEDS[@]} -gt 0 ]; then
	for n in "${names[@]}"; do
		rm -rf "${OUT:?}/$n"/seed-*
	done
	rm -rf "$OUT/_nosample"
fi

echo "== running ${#names[@]} algorithms${SEEDS:+ x ${#SEEDS[@]} seeds}" \
	"(${#RUN_NAME[@]} guests), $JOBS at a time (progress below)"
pids=() failed=0
for i in "${!RUN_NAME[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	run_one "${RUN_NAME[$i]}${RUN_SEED[$i]:+/seed-${RUN_SEED[$i]}}" \
		"${RUN_SPEC[$i]}" "${RUN_OUT[$i]}" "${RUN_SEED[$i]}" &
	pids+=($!)
done
# The sampler's effect: the first seed only.
if [ -n "$NOSAMPLE" ]; then
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	EXTRA+=(--no-sample --no-headroom)
	run_one "theta_powertcp/seed-${SEEDS[0]}, no sampler" "$NOSAMPLE" \
		"$OUT/_nosample/theta_powertcp/seed-${SEEDS[0]}" "${SEEDS[0]}" &
	pids+=($!)
fi
for p in "${pids[@]}"; do wait "$p" || failed=1; done
[ "$failed" = 0 ] || { echo "run: an algorithm's run failed (see above)" >&2; exit 1; }

echo "== analysis"
python3 "testbed/$EXP/summarize.py" "$OUT"
if [ -n "$NOSAMPLE" ]; then
	python3 - "$OUT" "${SEEDS[0]}" <<'PY'
import csv, json, sys
out, seed = sys.argv[1], int(sys.argv[2])
def rx(d):
    return sum(int(r["bytes_received"]) for r in csv.DictReader(
        open(d + "/flows.csv")))
a = rx("%s/theta_powertcp/seed-%d" % (out, seed))
b = rx("%s/_nosample/theta_powertcp/seed-%d" % (out, seed))
d = {"seed": seed, "with_sampling_bytes": a, "without_sampling_bytes": b,
     "difference_pct": round(100.0 * (a - b) / b, 3)}
json.dump(d, open(out + "/sampling.json", "w"))
print("sampling effect on theta_powertcp's goodput (seed %d): %+.2f%% "
      "(%d vs %d bytes)" % (seed, d["difference_pct"], a, b))
PY
fi
echo "== plots"
/usr/bin/python3 "testbed/$EXP/plot.py" --results "$OUT" --out "$OUT/$EXP.png"
echo "results: $OUT/summary.json, $OUT/summary.csv, $(find "$OUT" -maxdepth 1 -name '*.png' | sort | tr '\n' ' ')"
