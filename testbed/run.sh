#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The testbed's one host runner: runs an experiment (testbed/EXP/run.sh)
# for several congestion controls, seeds and kernels, each job in its own
# QEMU guest under -icount (repeatable virtual time) or natively, then
# analyzes (testbed/EXP/summarize.py) and plots (testbed/EXP/plot.py).
# The make targets of the experiments, the fault matrix and the per-ACK
# benchmark run this. See usage() below (testbed/run.sh --help).
# Read whole before it runs, and it exits inside the block: editing it
# cannot derail a run in flight.
{
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd -P)
CALLER=$PWD
TB_PROG=run
TB_CC_OPT=--algorithms
# shellcheck source=testbed/lib/common.sh
. "$ROOT/testbed/lib/common.sh"

usage() {
	cat <<USAGE
usage: testbed/run.sh EXPERIMENT [options] [-- options for testbed/EXPERIMENT/run.sh]
EXPERIMENT is incast, fairness or websearch (the paper's experiments),
incast-sweep (the incast at several fan-ins), coexist (next to other
algorithms), faults (the fault matrix) or bench-ack (the per-ACK cost
benchmark).
  --algorithms A,B,.. the algorithms, comma-separated specs (below)
                      (default: those of testbed/algorithms.tsv for the
                      experiment; for incast:
                      $(tb_reg_names incast | paste -sd, -))
  --kernel K          the guest's kernel: 6.1 or 6.12 (default 6.1).
                      faults and bench-ack take it more than once (default
                      both), results in OUT/KERNEL/; faults also takes
                      debug, the kernel of make check-debug (built first)
  --fanins N,N,..     incast-sweep: the fan-ins, incast senders besides the
                      long flow, 1 to 255 (default 10,20,50,100,200,255);
                      each algorithm, fan-in and seed in a guest of its own.
                      The sweep's senders start together (the incast's
                      --start together) unless -- --start connect: a guest
                      connects 255 senders one after another over ~170 ms
  --seeds N|S,S,..    incast, incast-sweep, fairness, coexist: every
                      algorithm once per seed, seeds 1..N or those listed
                      (one seed S alone: S,), each in its own guest
                      (default 1; make incast and make fairness: SEEDS=3).
                      The seed sets the payload and each flow's start
                      jitter (--start-jitter-us of the experiment). The
                      web search takes its seed as -- --seed S, and so
                      does the fault matrix
  --jobs N            guests at a time (default 2)
  --timeout SEC       stop a guest after SEC s of wall time (default 1200;
                      incast-sweep 2400; websearch, coexist and faults 7200,
                      faults on debug 21600,
                      bench-ack 3600: a web-search run costs ~0.7 s of wall
                      time a flow in an idle host's guest, several times
                      that on a busy one)
  --out DIR           results (default results/EXPERIMENT in the repository;
                      a relative DIR is relative to the current directory)
  --kmod-root P       our modules from P-RELEASE/ (e.g. built from another
                      commit with scripts/build-kmod.sh) instead of
                      building this tree's into build/kmod-RELEASE/
  --no-build          the modules in build/kmod-RELEASE/ as they are, if
                      they are there
  --native            run on this host's kernel instead of a guest, one
                      run at a time, without -icount: results depend on
                      the host's load (not bench-ack: it counts guest
                      instructions). Our modules are built against
                      /lib/modules/\$(uname -r)/build; a kernel without
                      module support gets the BPF build (--bpf) by itself.
                      The kernel needs netem, tbf (and red for dctcp) and
                      every algorithm asked for. The runs' namespaces are
                      their own (a suffix of their own): the host's and
                      other runs' are left alone
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
the experiment's tau and rate unless the spec sets them. bench-ack times
the per-ACK hooks of the registry's hooks column, so it takes only the
registry's algorithms. Results of NAME with seed S go to
OUT/NAME/seed-S (incast, fairness, coexist), OUT/NAME/n-N/seed-S
(incast-sweep), OUT/NAME (web search),
OUT/KERNEL/NAME/CASE (faults) or OUT/RELEASE (bench-ack): each run's
params.json records the seed, the module, its build id and every
parameter in force.

What the host can check is checked before any guest boots: these
options, the experiment's own (its parser, --check-args), a module
file's parameters (modinfo), ours against their ranges. The guests write
into OUT/.run-XXXXXX; their results replace the earlier ones of the same
algorithms (for incast and fairness all its seeds) only when every guest
succeeded, and the summary is then made anew. A refused, failed, timed-out
or interrupted run leaves OUT as it was. Directories outside the repository that the guests
need (--out, a module's) are shared with them read-write.

Results: OUT/summary.json (every run, and per algorithm the mean, standard
deviation, min and max over the seeds), OUT/summary.csv (the latter),
OUT/EXPERIMENT*.png, OUT/run.json (this command, seeds, kernels, commit)
and the raw data of each run. The report of all experiments under
results/ is testbed/report.py's (make incast etc.: results/RESULTS.md).
USAGE
}

bad() {
	echo "run: $*" >&2
	exit 2
}

EXP=${1:-}
shift || true
case $EXP in
incast|incast-sweep|fairness|websearch|coexist|faults|bench-ack) ;;
-h|--help) usage; exit 0 ;;
*) bad "usage: testbed/run.sh incast|incast-sweep|fairness|websearch|coexist|faults|bench-ack [options] (see --help)" ;;
esac
# The guest's script: the sweep runs the incast's.
EXP_RUN=testbed/$EXP/run.sh
[ "$EXP" != incast-sweep ] || EXP_RUN=testbed/incast/run.sh
ALGS=$(tb_reg_names "$EXP" | paste -sd, -)
KERNELS=() JOBS=2 OUT='' NATIVE=0 DRY=0 SEEDS_ARG='' BPF=0 TIMEOUT=''
KROOT='' NOBUILD=0 FANINS_ARG=''
ARGS=("$EXP" "$@")
while [ $# -gt 0 ]; do
	case $1 in
	--algorithms) [ -n "${2:-}" ] || bad "--algorithms needs a value"; ALGS=$2; shift ;;
	--kernel) [[ ${2:-} =~ ^(6\.1|6\.12|debug)$ ]] || bad "--kernel: 6.1, 6.12 or debug"
		[[ " ${KERNELS[*]} " != *" $2 "* ]] || bad "--kernel: $2 twice"
		KERNELS+=("$2"); shift ;;
	--seeds) [ -n "${2:-}" ] || bad "--seeds needs a value"; SEEDS_ARG=$2; shift ;;
	--fanins) [ -n "${2:-}" ] || bad "--fanins needs a value"; FANINS_ARG=$2; shift ;;
	--jobs) [[ ${2:-} =~ ^[1-8]$ ]] || bad "--jobs: 1 to 8"; JOBS=$2; shift ;;
	--timeout) [[ ${2:-} =~ ^[1-9][0-9]{0,5}$ ]] ||
		bad "--timeout: seconds, 1 to 999999"; TIMEOUT=$2; shift ;;
	--out) [ -n "${2:-}" ] || bad "--out needs a value"; OUT=$2; shift ;;
	--kmod-root) [ -n "${2:-}" ] || bad "--kmod-root needs a value"; KROOT=$2; shift ;;
	--no-build) NOBUILD=1 ;;
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

# The kernels: one for the experiments, any for faults and bench-ack.
PER_KERNEL=0
case $EXP in faults|bench-ack) PER_KERNEL=1 ;; esac
if [ ${#KERNELS[@]} = 0 ]; then
	if [ "$PER_KERNEL" = 1 ]; then KERNELS=(6.1 6.12); else KERNELS=(6.1); fi
fi
[ "$PER_KERNEL" = 1 ] || [ ${#KERNELS[@]} = 1 ] ||
	bad "--kernel: $EXP runs in one kernel (faults and bench-ack take several)"
[ "$EXP" = faults ] || [[ " ${KERNELS[*]} " != *" debug "* ]] ||
	bad "--kernel debug: for faults only"
if [ "$NATIVE" = 1 ]; then
	[ "$EXP" != bench-ack ] || bad "bench-ack: counts guest instructions" \
		"under -icount, it has no --native"
	KERNELS=(native)
fi
[ -z "$KROOT" ] || [ "$NOBUILD" = 0 ] || bad "--kmod-root or --no-build, not both"
[ -z "$KROOT" ] || [ "$BPF" = 0 ] || bad "--kmod-root: modules, not --bpf"
[ "$EXP" != bench-ack ] || [ "$BPF" = 0 ] || bad "bench-ack: times the modules, not --bpf"

# The fan-ins of the sweep: each from 1 to 255, once, ascending.
FANINS=()
if [ "$EXP" = incast-sweep ]; then
	for a in "${EXTRA[@]}"; do
		[ "$a" != --senders ] || bad "incast-sweep: give the fan-ins" \
			"as --fanins, not -- --senders"
	done
	[[ ${FANINS_ARG:=10,20,50,100,200,255} =~ ^[0-9]+(,[0-9]+)*$ ]] ||
		bad "--fanins: '$FANINS_ARG' is not a list N,N,.. of fan-ins"
	IFS=, read -r -a list <<< "$FANINS_ARG"
	for a in "${list[@]}"; do
		[[ $a =~ ^0*[1-9][0-9]{0,2}$ ]] && [ "$((10#$a))" -le 255 ] ||
			bad "--fanins: '$a' is not a fan-in from 1 to 255"
		a=$((10#$a))
		[[ " ${FANINS[*]} " != *" $a "* ]] ||
			bad "--fanins: $a given twice"
		FANINS+=("$a")
	done
	mapfile -t FANINS < <(printf '%s\n' "${FANINS[@]}" | sort -n)
	[[ " ${EXTRA[*]} " == *" --start "* ]] || EXTRA=(--start together "${EXTRA[@]}")
else
	[ -z "$FANINS_ARG" ] || bad "--fanins: for incast-sweep only"
fi

# The seeds: N is 1..N, a list is those (each a positive integer, once).
SEEDS=()
if [[ ! $EXP =~ ^(incast|incast-sweep|fairness|coexist)$ ]]; then
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
# The benchmark's own options, checked by its own parser before any guest.
if [ "$EXP" = bench-ack ]; then
	bash "$ROOT/testbed/bench-ack/run.sh" --check-args "${EXTRA[@]}" > /dev/null ||
		exit 2
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

# The results directory, relative to the caller's directory.
if [ -z "$OUT" ]; then
	OUT=$ROOT/results/$EXP
else
	[[ $OUT == /* ]] || OUT=$CALLER/$OUT
fi

# spec_abs SPEC OPTION: ABS, SPEC (parsed: tb_cc_parse) with its module
# file, if it names one, made absolute (relative to the caller's
# directory) and shared with the guests.
spec_abs() {
	local ko=$TB_CC_KO
	ABS=$1
	[ -n "$ko" ] || return 0
	[[ $ko == /* ]] || ko=$CALLER/$ko
	[[ -r $ko && ! -d $ko ]] || bad "$2: $TB_CC: no module file $ko"
	ko=$(cd "$(dirname "$ko")" && pwd -P)/$(basename "$ko")
	[ "$NATIVE" = 1 ] || share "$(dirname "$ko")"
	ABS=$TB_CC=$ko${1#*=*.ko}
}

# The algorithms: parsed as the experiments will, module files made
# absolute and shared if need be.
IFS=, read -r -a specs <<< "$ALGS"
[ ${#specs[@]} -gt 0 ] || bad "--algorithms: empty"
names=() SPECS=()
for s in "${specs[@]}"; do
	tb_cc_parse "$s"
	[[ " ${names[*]} " != *" $TB_CC "* ]] ||
		bad "--algorithms: $TB_CC twice (results go to OUT/$TB_CC)"
	if [ "$EXP" = bench-ack ]; then
		h=$(tb_reg "$TB_CC" hooks)
		[ -n "$h" ] && [ "$h" != - ] && [ -z "$TB_CC_KO" ] ||
			bad "--algorithms: bench-ack knows no per-ACK hooks of" \
				"$TB_CC (the hooks column of testbed/algorithms.tsv)"
	fi
	names+=("$TB_CC")
	spec_abs "$s" --algorithms
	SPECS+=("$ABS")
done
# coexist's peers (-- --peers SPECS) likewise.
if [ "$EXP" = coexist ]; then
	for i in "${!EXTRA[@]}"; do
		[ "${EXTRA[$i]}" = --peers ] && [ -n "${EXTRA[$((i + 1))]:-}" ] ||
			continue
		IFS=, read -r -a list <<< "${EXTRA[$((i + 1))]}"
		a=''
		for s in "${list[@]}"; do
			TB_CC_OPT=--peers tb_cc_parse "$s"
			spec_abs "$s" --peers
			a+=${a:+,}$ABS
		done
		EXTRA[i + 1]=$a
	done
fi

# Every run's arguments, checked by the experiment's own parser on this
# host (--check-args: its options, a module file's parameters) before
# anything is made or booted: a refused run is one line and exit 2.
if [ "$EXP" != bench-ack ]; then
	for s in "${SPECS[@]}"; do
		bash "$ROOT/$EXP_RUN" --check-args --cc "$s" \
			--out "$OUT" ${SEEDS:+--seed "${SEEDS[0]}"} \
			${FANINS:+--senders "${FANINS[-1]}"} "${EXTRA[@]}" \
			> /dev/null || exit 2
	done
fi

# tools_make [TARGET...]: the tools, one build at a time (runs side by side).
tools_make() {
	mkdir -p "$ROOT/build" &&
	flock "$ROOT/build/tools.lock" make -s -C "$ROOT/userspace-tools" "$@"
}

# Our modules' parameters against their ranges (kmod/powertcp_params.h),
# the module's own refusal, on this host (userspace-tools/bin/pt-params:
# here if a compiler is, else after the setup, still before any guest).
check_ranges() {
	local s err
	tools_make bin/pt-params > /dev/null 2>&1 || return 1
	for s in "${SPECS[@]}"; do
		tb_cc_parse "$s"
		[ -z "$TB_CC_KO" ] && [ "$(tb_reg "$TB_CC" load)" = kmod ] || continue
		err=$("$ROOT/userspace-tools/bin/pt-params" check "$TB_CC" \
			"${TB_CC_PARAMS[@]}" 2>&1) || bad "--algorithms: ${err#pt-params: }"
	done
	RANGES=1
}
RANGES=0
check_ranges || true

# The results directory, created and writable before anything starts.
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
if [ -n "$KROOT" ]; then
	[[ $KROOT == /* ]] || KROOT=$CALLER/$KROOT
	[ "$NATIVE" = 1 ] || share "$(dirname "$KROOT")"
fi
cd "$ROOT"

if [ "$NATIVE" = 1 ]; then
	JOBS=1
	if [ "$BPF" = 0 ] && [ ! -e /proc/modules ]; then
		echo "== $(uname -r) cannot load modules: our algorithms from" \
			"the BPF build (--bpf)"
		BPF=1
	fi
	[ "$DRY" = 1 ] || native_check
fi

# Per kernel K (index i): REL[i] its release, KDIRS[i] its build tree,
# VM[i] vm-run's arguments for it, MODS[i] our modules' directory.
REL=() KDIRS=() VM=() MODS=()
[ "$DRY" = 1 ] || [ "$NATIVE" = 1 ] || {
	echo "== setup (packages, kernels; idempotent)"
	bash scripts/setup.sh
	# shellcheck disable=SC1091
	. build/kernels.env
}
for k in "${KERNELS[@]}"; do
	vm="--kernel $k"
	case $k in
	native) r=$(uname -r) kd=/lib/modules/$r/build vm='' ;;
	6.1) r=${KVER_61:-REL} kd=/usr/src/linux-headers-$r ;;
	6.12) r=${KVER_612:-REL} kd=/usr/src/linux-headers-$r ;;
	debug)	if [ "$DRY" = 1 ]; then
			r=DEBUG kd=DEBUG_KDIR
		else
			echo "== the debug kernel (scripts/build-debug-kernel.sh; once)"
			scripts/build-debug-kernel.sh > /dev/null
			# shellcheck disable=SC1091
			. build/debug-kernel/kernel.env
			r=$DEBUG_KVER kd=$DEBUG_KDIR
			vm="--kernel $DEBUG_KIMG --modules $DEBUG_MODULES"
		fi ;;
	esac
	if [ "$DRY" = 1 ] && [ "$k" != native ]; then
		r=REL
		[ ${#KERNELS[@]} = 1 ] || r=REL-$k
	fi
	REL+=("$r") KDIRS+=("$kd") VM+=("$vm")
	if [ -n "$KROOT" ]; then MODS+=("$KROOT-$r"); else MODS+=("build/kmod-$r/kmod"); fi
done

if [ "$DRY" = 0 ]; then
	if [ "$BPF" = 1 ]; then
		echo "== build the BPF programs, their loader and the tools"
		make -s bpf >/dev/null || bad "make bpf failed (see its output)"
	else
		for i in "${!KERNELS[@]}"; do
			if [ -n "$KROOT" ]; then
				[ -f "${MODS[$i]}/tcp_theta_powertcp.ko" ] ||
					bad "--kmod-root: no modules in ${MODS[$i]}"
			elif [ "$NOBUILD" = 0 ] ||
			     ! [ -f "${MODS[$i]}/tcp_theta_powertcp.ko" ]; then
				echo "== build modules for ${REL[$i]}"
				scripts/build-kmod.sh "${KDIRS[$i]}" \
					"build/kmod-${REL[$i]}" >/dev/null
			fi
		done
	fi
	echo "== build the tools"
	tools_make
fi
# Our modules' parameters, checked once more where they could not be
# before the build (no compiler yet).
[ "$RANGES" = 1 ] || [ "$DRY" = 1 ] || check_ranges ||
	bad "cannot build userspace-tools/bin/pt-params"

# A run writes into a staging directory of its own in OUT; its results
# replace the earlier ones only once every guest succeeded (the fault
# matrix: every guest finished its cases, passed or not), and the summary
# is then made from the complete set. A failed, timed-out or interrupted
# run leaves OUT as it was.
if [ "$DRY" = 1 ]; then
	STAGE=$OUT/.run-STAGING
else
	STAGE=$(mktemp -d "$OUT/.run-XXXXXX") ||
		bad "--out: cannot write in $OUT: give a directory you can write"
fi
# The jobs, a guest each. RUN_K (the kernel's index), RUN_LABEL, RUN_SPEC
# (a spec, or bench-ack's algorithms space-separated), RUN_DIR (where
# under OUT, and under STAGE while it runs), RUN_SEED (RUN_FANIN: the sweep's
# --senders) are parallel: every algorithm with every seed (incast,
# fairness, coexist) and every fan-in (incast-sweep); every algorithm once
# (websearch; its seed in EXTRA); every algorithm in every kernel
# (faults); every kernel once, all algorithms in it (bench-ack).
RUN_K=() RUN_LABEL=() RUN_SPEC=() RUN_DIR=() RUN_SEED=() RUN_FANIN=()
job() { # kernel-index label spec dir seed [fan-in]
	RUN_K+=("$1") RUN_LABEL+=("$2") RUN_SPEC+=("$3") RUN_DIR+=("$4")
	RUN_SEED+=("$5") RUN_FANIN+=("${6:-}")
}
for ki in "${!KERNELS[@]}"; do
	k=${KERNELS[$ki]}
	if [ "$EXP" = bench-ack ]; then
		job "$ki" "$k" "${SPECS[*]}" "${REL[$ki]}" ''
		continue
	fi
	for i in "${!names[@]}"; do
		n=${names[$i]} sp=${SPECS[$i]}
		if [ "$EXP" = faults ]; then
			job "$ki" "$k/$n" "$sp" "$k/$n" ''
		elif [ ${#SEEDS[@]} = 0 ]; then
			job "$ki" "$n" "$sp" "$n" ''
		elif [ "$EXP" = incast-sweep ]; then
			for f in "${FANINS[@]}"; do
				for s in "${SEEDS[@]}"; do
					job "$ki" "$n/n-$f/seed-$s" "$sp" \
						"$n/n-$f/seed-$s" "$s" "$f"
				done
			done
		else
			for s in "${SEEDS[@]}"; do
				job "$ki" "$n/seed-$s" "$sp" "$n/seed-$s" "$s"
			done
		fi
	done
done

timeout_of() { # kernel
	if [ -n "$TIMEOUT" ]; then echo "$TIMEOUT"; return; fi
	case $EXP:$1 in
	faults:debug) echo 21600 ;;	# under -icount ~7x slower (docs/RELIABILITY.md)
	faults:*|websearch:*|coexist:*) echo 7200 ;;
	bench-ack:*) echo 3600 ;;
	incast-sweep:*) echo 2400 ;;
	*) echo 1200 ;;
	esac
}

command_of() { # job -> CMD
	local ki=${RUN_K[$1]} out=$STAGE/${RUN_DIR[$1]} vm
	if [ "$EXP" = bench-ack ]; then
		# shellcheck disable=SC2206 # the algorithms, one word each
		CMD=(bash testbed/bench-ack/run.sh --kmod-dir "${MODS[$ki]}"
		     --out "$out" "${EXTRA[@]}" ${RUN_SPEC[$1]})
	else
		CMD=(bash "$EXP_RUN" --cc "${RUN_SPEC[$1]}"
		     --out "$out" --kmod-dir "${MODS[$ki]}"
		     ${RUN_SEED[$1]:+--seed "${RUN_SEED[$1]}"}
		     ${RUN_FANIN[$1]:+--senders "${RUN_FANIN[$1]}"} "${EXTRA[@]}")
		[ "$BPF" = 0 ] || CMD+=(--bpf)
	fi
	[ "$NATIVE" = 0 ] || return 0
	read -r -a vm <<< "${VM[$ki]}"
	[ "$EXP" != faults ] || vm+=(--keep-log \
		"$STAGE/${KERNELS[$ki]}/guest-dmesg-${RUN_LABEL[$1]#*/}.txt")
	CMD=(scripts/vm-run.sh "${vm[@]}" --icount --timeout \
	     "$(timeout_of "${KERNELS[$ki]}")" "${SHARES[@]}" -- "${CMD[@]}")
}
run_one() { # job
	command_of "$1"
	mkdir -p "$(dirname "$STAGE/${RUN_DIR[$1]}")"
	"${CMD[@]}" 2>&1 | sed -u "s|^|[${RUN_LABEL[$1]}] |"
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
	for i in "${!RUN_LABEL[@]}"; do
		command_of "$i"
		printf '%q ' "${CMD[@]}"
		echo
	done
	exit 0
fi

# The staging directory goes whatever ends the run, the guests first.
pids=()
stop_run() {
	local p
	trap - EXIT INT TERM
	for p in ${pids[@]+"${pids[@]}"}; do
		pkill -TERM -P "$p" 2>/dev/null || true
		kill -TERM "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	rm -rf "$STAGE"
	[ -z "$STOPPED" ] ||
		echo "run: $STOPPED; the results in $OUT are as they were" >&2
}
STOPPED=''
trap 'rc=$?; stop_run; exit $rc' EXIT
trap 'STOPPED=interrupted; exit 130' INT
trap 'STOPPED=terminated; exit 143' TERM

# run_json FILE KERNEL-RELEASES: how the results were made.
run_json() {
	/usr/bin/python3 - "$1" "$2" "$NATIVE" "$BPF" \
		"$(git rev-parse HEAD 2>/dev/null || true)" \
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
}
run_json "$STAGE/run.json" "${REL[*]}"
if [ "$EXP" = faults ]; then
	for ki in "${!KERNELS[@]}"; do
		mkdir -p "$STAGE/${KERNELS[$ki]}"
		run_json "$STAGE/${KERNELS[$ki]}/run.json" "${REL[$ki]}"
	done
fi

echo "== running ${#names[@]} algorithms${SEEDS:+ x ${#SEEDS[@]} seeds}" \
	"in ${KERNELS[*]} (${#RUN_LABEL[@]} guests), $JOBS at a time" \
	"(progress below)"
failed=0
for i in "${!RUN_LABEL[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	run_one "$i" &
	pids+=($!)
done
# The sampler's effect: the first seed only.
if [ -n "$NOSAMPLE" ]; then
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || failed=1; done
	EXTRA+=(--no-sample --no-headroom)
	job 0 "theta_powertcp/seed-${SEEDS[0]}, no sampler" "$NOSAMPLE" \
		"_nosample/theta_powertcp/seed-${SEEDS[0]}" "${SEEDS[0]}"
	run_one $((${#RUN_LABEL[@]} - 1)) &
	pids+=($!)
fi
for p in "${pids[@]}"; do wait "$p" || failed=1; done
pids=()
# The fault matrix's guests fail with a failed case; they finished if they
# wrote their params.json.
if [ "$EXP" = faults ]; then
	for i in "${!RUN_DIR[@]}"; do
		[ -f "$STAGE/${RUN_DIR[$i]}/params.json" ] || {
			echo "run: ${RUN_LABEL[$i]} did not finish; the results in" \
				"$OUT are as they were" >&2
			exit 1
		}
	done
elif [ "$failed" = 1 ]; then
	echo "run: an algorithm's run failed (see above); the results in" \
		"$OUT are as they were" >&2
	exit 1
fi
# What the benchmark measured, in each kernel.
if [ "$EXP" = bench-ack ]; then
	for ki in "${!KERNELS[@]}"; do
		sha256sum "${MODS[$ki]}"/*.ko | sed "s|  .*/|  |" \
			> "$STAGE/${REL[$ki]}/modules.sha256"
	done
fi

# The run succeeded: its results replace the earlier ones of the same
# algorithms (for incast and fairness all their seeds: the summary is of
# this run's seeds; for the sweep all seeds of the fan-ins it ran), then
# the summary of the whole set.
for i in "${!RUN_DIR[@]}"; do
	d=${RUN_DIR[$i]}
	case $EXP in
	incast|fairness|coexist) [[ $d == _nosample/* ]] || rm -rf "${OUT:?}/${d%%/*}"/seed-* ;;
	incast-sweep) rm -rf "${OUT:?}/${d%/seed-*}"/seed-* ;;
	*) rm -rf "${OUT:?}/$d" ;;
	esac
done
rm -rf "$OUT/_nosample"
for i in "${!RUN_DIR[@]}"; do
	d=${RUN_DIR[$i]}
	mkdir -p "$(dirname "$OUT/$d")"
	mv "$STAGE/$d" "$OUT/$d"
done
if [ "$EXP" = faults ]; then
	for k in "${KERNELS[@]}"; do
		mv "$STAGE/$k"/run.json "$STAGE/$k"/guest-dmesg-*.txt "$OUT/$k/" 2>/dev/null || true
	done
fi
# Beside each algorithm's runs too: how they were made, when later runs
# of other algorithms (other options) joined them in OUT.
case $EXP in
incast|incast-sweep|fairness|coexist)
	for n in "${names[@]}"; do cp "$STAGE/run.json" "$OUT/$n/run.json"; done ;;
esac
mv "$STAGE/run.json" "$OUT/run.json"
rm -rf "$STAGE"

echo "== analysis"
/usr/bin/python3 "testbed/$EXP/summarize.py" "$OUT"
if [ -n "$NOSAMPLE" ]; then
	/usr/bin/python3 - "$OUT" "${SEEDS[0]}" <<'PY'
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
if [ -f "testbed/$EXP/plot.py" ]; then
	echo "== plots"
	/usr/bin/python3 "testbed/$EXP/plot.py" --results "$OUT" --out "$OUT/$EXP.png"
fi
echo "results: $OUT/summary.json, $OUT/summary.csv, $(find "$OUT" -maxdepth 1 -name '*.png' | sort | tr '\n' ' ')"
[ "$failed" = 0 ] || { echo "run: a case of the fault matrix failed (see above)" >&2; exit 1; }
# Never read on past the block: the file may have changed under the run.
exit
}
