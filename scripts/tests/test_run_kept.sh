#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# testbed/run.sh changes nothing it was not asked to: for every experiment
# (incast, fairness, websearch, faults, coexist, incast-sweep), after a good
# run of a module of our own (testbed/tests/byo, byo_reno) into OUT, each of
#   a bad option of the experiment        refused on the host, no guest
#   a parameter the module does not have  refused on the host, no guest
#   one of ours out of its range          refused on the host, no guest
#   a module that does not load           the guest's insmod refuses it
#   an interrupted run                    SIGINT while its guest runs
# exits non-zero with a one-line reason and leaves every file of OUT (raw
# data, summary, plots) byte-identical, and no staging directory or guest
# behind. Root; boots 6.1 guests (-icount) through run.sh, two
# experiments at a time.
#
#   scripts/tests/test_run_kept.sh [EXPERIMENT...]   (default: all six)
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$ROOT/build/test-run-kept
# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
[ "$(id -u)" = 0 ] || tap_bail "needs root (QEMU)"
[ -f "$ROOT/build/kernels.env" ] || tap_bail "no build/kernels.env (scripts/setup.sh)"
# shellcheck disable=SC1091
. "$ROOT/build/kernels.env"

rm -rf "$T"
mkdir -p "$T/byo"
KO=$T/byo/tcp_byo_reno.ko
BYO=byo_reno=$KO

# The short run of each experiment (what follows -- on run.sh's line).
declare -A SHORT=(
	[incast]="--senders 2 --pre-us 100000 --post-us 200000 --no-headroom"
	[fairness]="--phase-rtts 20 --no-headroom"
	[websearch]="--loads 50 --flows 10 --no-headroom"
	[faults]="--cases base --duration-us 500000"
	[coexist]="--peers reno --mixes 1:1 --queues shared --buffers 4bdp --duration-us 300000 --no-headroom"
	[incast-sweep]="--pre-us 100000 --post-us 200000 --no-headroom"
)
EXPS=(incast fairness websearch faults coexist incast-sweep)
[ $# = 0 ] || EXPS=("$@")

# run_args EXP SPEC [SHORT-OPTIONS...]: RUN_ARGS, run.sh's command line for
# EXP of SPEC into $T/EXP (faults: in 6.1 only).
run_args() {
	local exp=$1 spec=$2 k=()
	shift 2
	[ "$exp" != faults ] || k=(--kernel 6.1)
	[ "$exp" != incast-sweep ] || k=(--fanins "2,3")
	RUN_ARGS=(bash "$ROOT/testbed/run.sh" "$exp" "${k[@]}" --algorithms "$spec"
		  --out "$T/$exp" -- "$@")
}

run() { # exp log spec short...
	local log=$2
	run_args "$1" "${@:3}"
	"${RUN_ARGS[@]}" > "$log" 2>&1
}

# The files of OUT and their contents.
snapshot() { # dir
	(cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

# The run's one-line reason, its exit status NOT 0, OUT as it was and no
# staging directory left.
kept() { # exp log rc
	local exp=$1 log=$2 rc=$3 why
	why=$(grep -E '^(run|incast|fairness|websearch|faults|coexist): ' "$log" | tail -n 1)
	[ "$rc" != 0 ] || { echo "exit 0"; return 1; }
	[ -n "$why" ] || { echo "no reason printed"; return 1; }
	snapshot "$T/$exp" > "$log.after"
	cmp -s "$T/$exp.before" "$log.after" ||
		{ echo "OUT changed: $(diff "$T/$exp.before" "$log.after" | head -n 2 | tr '\n' ' ')"; return 1; }
	! compgen -G "$T/$exp/.run-*" > /dev/null || { echo "staging left"; return 1; }
	echo "exit $rc: $why"
}

# refused EXP LOG SPEC SHORT...: refused on the host: exit 2, one line on
# stderr, no guest booted.
refused() {
	local exp=$1 log=$2 rc
	shift 2
	run "$exp" "$log" "$@"
	rc=$?
	[ "$rc" = 2 ] || { echo "exit $rc, not 2: $(tail -n 1 "$log")"; return 1; }
	[ "$(wc -l < "$log")" = 1 ] || { echo "not one line: $(head -n 3 "$log" | tr '\n' ' ')"; return 1; }
	kept "$exp" "$log" "$rc"
}

# guest_refused EXP LOG SPEC SHORT...: a refusal only the guest can make.
guest_refused() {
	local exp=$1 log=$2 rc
	shift 2
	run "$exp" "$log" "$@"
	rc=$?
	grep -q 'vm-run: kernel' "$log" || { echo "no guest booted"; return 1; }
	kept "$exp" "$log" "$rc"
}

# interrupted EXP LOG SPEC SHORT...: SIGINT to run.sh once its guest runs
# the experiment. A background job ignores SIGINT; python restores it.
interrupted() {
	local exp=$1 log=$2 pid n=0 rc
	run_args "$exp" "${@:3}"
	/usr/bin/python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' "${RUN_ARGS[@]}" > "$log" 2>&1 &
	pid=$!
	# (The sweep's guests run the incast.)
	until grep -q "# ${exp%-sweep}: " "$log" 2>/dev/null; do
		sleep 1
		n=$((n + 1))
		[ "$n" -le 600 ] && kill -0 "$pid" 2>/dev/null ||
			{ echo "the guest never ran $exp"; kill "$pid"; return 1; }
	done
	kill -INT "$pid"
	wait "$pid"
	rc=$?
	sleep 2
	# Its guest's vm-run.sh names the staging directory in its command.
	if pgrep -f -- "$T/$exp/.run-" > /dev/null; then
		echo "a guest of the run is still running"
		return 1
	fi
	kept "$exp" "$log" "$rc"
}

# One experiment, all its checks (output to $T/EXP.tap, shown when done).
experiment() { # exp
	local e=$1 s
	read -r -a s <<< "${SHORT[$e]}"
	{
		tap_n=0 tap_passed=0 tap_failed=0 tap_skipped=0 tap_times=()
		check "$e: a good run of byo_reno" run "$e" "$T/$e.good.log" "$BYO" "${s[@]}"
		snapshot "$T/$e" > "$T/$e.before"
		check "$e: the good run has a summary" test -s "$T/$e/summary.json"
		check "$e: a bad option is refused on the host, OUT unchanged" \
			refused "$e" "$T/$e.opt.log" "$BYO" "${s[@]}" --no-such-option
		check "$e: a parameter byo_reno lacks is refused on the host, OUT unchanged" \
			refused "$e" "$T/$e.param.log" "$BYO:nope=1" "${s[@]}"
		check "$e: gamma out of range of ours is refused on the host, OUT unchanged" \
			refused "$e" "$T/$e.range.log" "$BYO,theta_powertcp=:gamma=0" "${s[@]}"
		check "$e: a module that does not load (beta_pct=0), OUT unchanged" \
			guest_refused "$e" "$T/$e.load.log" "$BYO:beta_pct=0" "${s[@]}"
		check "$e: interrupted (SIGINT) while its guest runs, OUT unchanged" \
			interrupted "$e" "$T/$e.int.log" "$BYO" "${s[@]}"
	} > "$T/$e.tap" 2>&1
}

check "byo_reno builds against $KVER_61" sh -c \
	'cp "$1"/testbed/tests/byo/Kbuild "$1"/testbed/tests/byo/tcp_byo_reno.c "$2/" &&
	 make -s -C "/usr/src/linux-headers-$3" M="$2" modules > "$2/build.log" 2>&1 ||
	 { tail -n 5 "$2/build.log"; exit 1; }' _ "$ROOT" "$T/byo" "$KVER_61"
make -s -C "$ROOT/userspace-tools" > /dev/null 2>&1
# Two experiments at a time: a guest each.
for ((i = 0; i < ${#EXPS[@]}; i += 2)); do
	pair=("${EXPS[@]:$i:2}")
	for e in "${pair[@]}"; do
		experiment "$e" &
	done
	wait
	for e in "${pair[@]}"; do
		while read -r line; do
			case $line in
			ok*) ok "${line#ok * - }" ;;
			"not ok"*) not_ok "${line#not ok * - }" ;;
			*) echo "$line" ;;
			esac
		done < <(grep -E '^(not )?ok |^#   ' "$T/$e.tap")
	done
done
tap_done
