#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole test suite (make check). Installs what it needs, then:
#   builds the modules against every kernel (warnings and sparse are errors),
#   runs checkpatch --strict, the userspace unit tests and a short fuzz of the
#   control law, the tools' tests, and boots each kernel under QEMU to run the
#   kernel tests and the short experiment pipelines inside it.
#
#   scripts/check.sh                      Debian's 6.1 and 6.12
#   scripts/check.sh --kernel 6.12        one of them
#   scripts/check.sh --kernel path/to/bzImage --kdir path/to/build \
#                    [--modules DIR]      your own kernel (see vm-run.sh)
#
# Prints "ok N - ..." / "not ok N - ..." per step (and the steps' own
# results), and closes with "N passed, N failed" over every check run.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
KERNELS=() KDIR='' MODULES='' FUZZ_SECONDS=${FUZZ_SECONDS:-20}
passed=0
failed=0
LOGDIR=$ROOT/build/check
START=$(date +%s)

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNELS+=("${2:?--kernel needs a value}"); shift ;;
	--kdir) KDIR=${2:?--kdir needs a value}; shift ;;
	--modules) MODULES=${2:?--modules needs a value}; shift ;;
	-h|--help) sed -n '3,16p' "$0"; exit 0 ;;
	*) echo "check: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
mkdir -p "$LOGDIR"

# step NAME COMMAND...: run a step, log to build/check/, count its result.
# A step that prints its own "N passed, N failed" counts those checks.
step() {
	local name=$1 log t0 rc counts p f
	shift
	log=$LOGDIR/$(echo "$name" | tr -c 'A-Za-z0-9._-' '_').log
	t0=$(date +%s)
	echo "# $name ..."
	"$@" > "$log" 2>&1
	rc=$?
	grep -E '^(not )?ok [0-9]+ ' "$log" | sed 's/^/#   /'
	counts=$(grep -E '^([A-Za-z]+: )?[0-9]+ passed, [0-9]+ failed' "$log" | tail -n1)
	if [ -n "$counts" ]; then
		p=$(echo "$counts" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
		f=$(echo "$counts" | grep -oE '[0-9]+ failed' | grep -oE '[0-9]+')
		passed=$((passed + p))
		failed=$((failed + f))
		# A step that failed without a failed check still fails.
		[ "$rc" -eq 0 ] || [ "$f" -gt 0 ] || failed=$((failed + 1))
	elif [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
	fi
	if [ "$rc" -eq 0 ]; then
		echo "ok - $name ($(($(date +%s) - t0)) s)"
	else
		echo "not ok - $name ($(($(date +%s) - t0)) s, exit $rc); last lines of $log:"
		tail -n 40 "$log" | sed 's/^/#   /'
	fi
	return "$rc"
}

checkpatch() {
	perl build/checkpatch/scripts/checkpatch.pl --strict --no-tree \
		--quiet -f kmod/*.c kmod/*.h
}

# Kernel release of a KDIR build tree, as its modules' vermagic says.
kdir_release() {
	sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		"$1/include/generated/utsrelease.h" 2>/dev/null
}

step "setup: packages, kernels, headers" bash scripts/setup.sh || {
	echo "0 passed, 1 failed"
	exit 1
}
# shellcheck disable=SC1091
. build/kernels.env

# Resolve each kernel to: name for vm-run, release, build tree.
VM_KERNELS=() RELEASES=() KDIRS=()
for k in "${KERNELS[@]}"; do
	case $k in
	6.1) rel=$KVER_61; kd=/usr/src/linux-headers-$rel ;;
	6.12) rel=$KVER_612; kd=/usr/src/linux-headers-$rel ;;
	*/*) [ -n "$KDIR" ] || { echo "check: --kernel $k needs --kdir" >&2; exit 2; }
	     kd=$KDIR; rel=$(kdir_release "$KDIR") ;;
	*) rel=$k; kd=/usr/src/linux-headers-$k ;;
	esac
	VM_KERNELS+=("$k") RELEASES+=("$rel") KDIRS+=("$kd")
done

for i in "${!RELEASES[@]}"; do
	step "build against ${RELEASES[$i]}: no warnings, sparse clean" \
		scripts/build-kmod.sh "${KDIRS[$i]}" "build/kmod-${RELEASES[$i]}" C=1
done
step "checkpatch --strict: kmod/" checkpatch
step "unit tests of the control law (UBSan, integer sanitizer)" \
	make -C kmod/tests test
step "fuzz the control law for ${FUZZ_SECONDS} s" \
	make -C kmod/tests fuzz FUZZ_SECONDS="$FUZZ_SECONDS"
step "userspace tools build" make -C userspace-tools
step "incast analyzer and plots" bash userspace-tools/tests/test_analyze.sh

for i in "${!RELEASES[@]}"; do
	k=${VM_KERNELS[$i]} rel=${RELEASES[$i]}
	# -icount: guest time follows instructions, so the timing checks
	# hold however loaded the host is.
	vm=(scripts/vm-run.sh --kernel "$k" --icount)
	[ -n "$MODULES" ] && [[ $k == */* ]] && vm+=(--modules "$MODULES")
	step "kernel tests in a booted $rel" \
		"${vm[@]}" -- bash kmod/tests/test_kmod.sh "build/kmod-$rel/kmod"
	step "testbed tools in a booted $rel" \
		"${vm[@]}" -- bash userspace-tools/tests/test_tools.sh
	for exp in incast fairness websearch; do
		step "$exp pipeline in a booted $rel" \
			"${vm[@]}" -- bash "testbed/tests/test_$exp.sh" \
			"build/kmod-$rel/kmod"
	done
done

echo "# check took $(($(date +%s) - START)) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
