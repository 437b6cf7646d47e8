#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The whole test suite (make check). Installs what it needs, then:
#   builds the modules against every kernel (warnings and sparse are errors),
#   configures make check-debug's kernel without building it, make quick
#   (scripts/quick.sh: the lints, checkpatch --strict among them, the unit
#   tests, a fuzz of the control law for FUZZ_SECONDS, default 20, the
#   tools' and analyzers' root-free tests), builds the powertcp-dkms package (make deb,
#   lintian), and boots each kernel under QEMU to run the kernel tests and
#   line_rate_auto's (two NICs), the tools' namespace test and every
#   testbed/tests/test_*.sh (the short experiment pipelines) inside it; the
#   fault matrix's smoke cases (testbed/tests/test_faults.sh) on the last
#   kernel only; the runners' own suites on the host (scripts/tests/:
#   shares, oopses, run.sh keeping OUT, search.py's shared study). The
#   kernels' guests run side by side, one guest a kernel at a time (--lane
#   I, internal: kernel I's guest suites alone). The package installed
#   in a guest, DKMS building under TCG (about 1000 s a kernel), is not
#   part of it: make check-dkms.
#
#   scripts/check.sh                      Debian's 6.1 and 6.12
#   scripts/check.sh --kernel 6.12        one of them
#   scripts/check.sh --kernel path/to/bzImage --kdir path/to/build \
#                    [--modules DIR]      your own kernel (see vm-run.sh)
#
# Prints KTAP (scripts/tap.sh): one result per step, a test suite's own
# KTAP indented above its line, and closes with the totals over every
# check, "# Totals: pass:X fail:Y xfail:0 xpass:0 skip:Z error:0". A step
# that is not a suite (a build, checkpatch) is one check; a suite that
# exits non-zero without a failed check, or prints no totals, counts as
# one failure. Each step's full output is in build/check/.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT" || exit 1
KERNELS=() KDIR='' MODULES='' LANE='' FUZZ_SECONDS=${FUZZ_SECONDS:-20}
LOGDIR=$ROOT/build/check
TAP_LOGDIR=$LOGDIR	# tap_step's and tap_logfile's
START=$(date +%s)
ARGS=("$@")

while [ $# -gt 0 ]; do
	case $1 in
	--kernel) KERNELS+=("${2:?--kernel needs a value}"); shift ;;
	--kdir) KDIR=${2:?--kdir needs a value}; shift ;;
	--modules) MODULES=${2:?--modules needs a value}; shift ;;
	--lane) LANE=${2:?--lane needs a value}; shift ;;	# ours, below
	-h|--help) sed -n '4,31p' "$0"; exit 0 ;;
	*) echo "check: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ ${#KERNELS[@]} -gt 0 ] || KERNELS=(6.1 6.12)
mkdir -p "$LOGDIR"

# shellcheck source=scripts/tap.sh
. scripts/tap.sh

# suite NAME COMMAND...: a test suite printing KTAP, as a subtest; its
# totals are added to ours.
suite() {
	local name=$1
	shift
	tap_diag "$name ..."
	tap_suite --log "$(tap_logfile "$name")" "$name" "$@"
}

# guest_suite NAME COMMAND...: suite, for a command that boots a guest: a
# guest whose kernel panicked (vm-run's "guest kernel panic") is booted
# once more, and the first boot's console log stays in build/vm/ (the
# panic's trace is shown in this suite's output; docs/RELIABILITY.md has
# the one seen under TCG).
guest_suite() {
	local name=$1
	shift
	suite "$name" once_more_on_panic "$@"
}

once_more_on_panic() {
	local out rc
	out=$(mktemp) || return 1
	"$@" > "$out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q '^not ok vm-run .*: guest kernel panic' "$out"; then
		sed -n '/traps: \|BUG: \|Oops: \|RIP: \|Kernel panic/s/^/# first boot: /p' "$out" |
			head -n 12
		echo "# the guest's kernel panicked; booting it once more"
		"$@"
		rc=$?
	else
		cat "$out"
	fi
	rm -f "$out"
	return "$rc"
}

# Kernel release of a KDIR build tree, as its modules' vermagic says.
kdir_release() {
	sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' \
		"$1/include/generated/utsrelease.h" 2>/dev/null
}

[ -n "$LANE" ] ||
	tap_step "setup: packages, kernels, headers" bash scripts/setup.sh ||
	tap_bail "setup failed"
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

# kernel_suites I: every guest suite of kernel I, one guest after another.
kernel_suites() {
	local i=$1 k=${VM_KERNELS[$1]} rel=${RELEASES[$1]} vm t exp
	# -icount: guest time follows instructions, so the timing checks
	# hold however loaded the host is.
	vm=(scripts/vm-run.sh --kernel "$k" --icount)
	[ -n "$MODULES" ] && [[ $k == */* ]] && vm+=(--modules "$MODULES")
	# Two NICs on a QEMU hub, one reporting a speed, for line_rate_auto.
	guest_suite "kernel tests and line_rate_auto in a booted $rel" \
		"${vm[@]}" --nic 2500 --nic 0 -- bash -c \
		'bash kmod/tests/test_kmod.sh "$1"; rc=$?
		 bash kmod/tests/test_linkspeed.sh "$1" || rc=1; exit $rc' \
		_ "build/kmod-$rel/kmod"
	[ -z "${HAVE_BPF:-}" ] ||
		guest_suite "BPF build and the module side by side in a booted $rel" \
			"${vm[@]}" -- bash kmod/bpf/tests/test_bpf.sh \
			userspace-tools/bin/powertcp-bpf "build/kmod-$rel/kmod"
	guest_suite "testbed tools in a booted $rel" \
		"${vm[@]}" -- bash userspace-tools/tests/test_tools.sh
	# The fault matrix's smoke cases, on the last kernel only, which
	# has fewer suites than the first (the whole matrix on both: make
	# faults, docs/RELIABILITY.md).
	[ "$i" != $((${#RELEASES[@]} - 1)) ] ||
		guest_suite "fault matrix smoke in a booted $rel" "${vm[@]}" -- \
			bash testbed/tests/test_faults.sh "build/kmod-$rel/kmod"
	# run.sh on the host keeps OUT intact through refused, failed and
	# interrupted runs, every experiment (its own 6.1 guests); beside the
	# last kernel's suites, as the matrix's smoke.
	[ "$i" != $((${#RELEASES[@]} - 1)) ] || [[ $k == */* ]] ||
		suite "run.sh: refused, failed and interrupted runs leave OUT as it was" \
			bash scripts/tests/test_run_kept.sh
	# Every pipeline test; each takes the modules' directory.
	for t in testbed/tests/test_*.sh; do
		exp=$(basename "$t" .sh)
		[ "$exp" != test_faults ] || continue	# above
		# The per-ACK benchmark measures what it says, in the
		# first kernel, and guards our modules' instructions per
		# ACK against BBR's in every kernel (make bench-ack has
		# the figures, both kernels).
		if [ "$exp" = test_bench_ack ]; then
			if [ "$i" = 0 ]; then
				guest_suite "per-ACK benchmark smoke and guard in a booted $rel" \
					"${vm[@]}" -- bash "$t" "build/kmod-$rel/kmod"
			else
				guest_suite "per-ACK guard in a booted $rel" \
					"${vm[@]}" -- bash "$t" "build/kmod-$rel/kmod" --per-ack
			fi
			continue
		fi
		# The Mininet backend is userspace over the kernel features
		# the netns one uses, and rarely broken: its test, longer
		# than a check wants, is make mininet's.
		[ "$exp" != test_mininet ] || continue
		guest_suite "${exp#test_} pipeline in a booted $rel" \
			"${vm[@]}" -- bash "$t" "build/kmod-$rel/kmod"
	done
}

if [ -n "$LANE" ]; then
	kernel_suites "$LANE"
	tap_done
	exit
fi

for i in "${!RELEASES[@]}"; do
	tap_step "build against ${RELEASES[$i]}: no warnings, sparse clean" \
		scripts/build-kmod.sh "${KDIRS[$i]}" "build/kmod-${RELEASES[$i]}" C=1
done
# make check-debug's kernel, configured only (its build: 25 minutes).
tap_step "debug kernel config: every line of scripts/debug-kernel.config holds" \
	scripts/build-debug-kernel.sh --config-only
suite "make quick: lints, unit tests, ${FUZZ_SECONDS} s fuzz, tools and analyzers" \
	env FUZZ_SECONDS="$FUZZ_SECONDS" bash scripts/quick.sh
# Host paths given to guest runs (vm-run --share, run.sh --out); one guest.
suite "vm-run --share and run.sh paths (host)" bash scripts/tests/test_vm_share.sh
# The search's workers sharing one study in a private PostgreSQL server,
# one of them killed mid-trial; no guest.
suite "search.py: two workers share a PostgreSQL study, one killed (host)" \
	bash scripts/tests/test_evolve_shared.sh
# A guest that oopses or panics ends at once, exit 91; two short guests.
suite "vm-run: an oops or a panic ends the guest" bash scripts/tests/test_vm_oops.sh
# The BPF struct_ops build, natively: this host's kernel may have BPF but
# no modules (CI's has), and the tests unload all they load.
if tap_step "BPF build (make bpf): CO-RE objects and the loader" make bpf; then
	suite "BPF build natively on $(uname -r)" \
		bash kmod/bpf/tests/test_bpf.sh userspace-tools/bin/powertcp-bpf
	export HAVE_BPF=1	# and the --lane runs'
fi

# The Debian package (installed in a guest by make check-dkms).
tap_step "make deb: powertcp-dkms package built by dh-dkms, lintian clean" \
	bash scripts/build-deb.sh

# The kernels' guests run side by side, a lane each: an -icount guest is
# one host thread, and the machine has two cores. The first kernel's
# suites run here, shown as they end; every other kernel's in the
# background (check.sh --lane I), shown as one subtest when it ends.
lanes=()
for i in "${!RELEASES[@]}"; do
	[ "$i" != 0 ] || continue
	lanes+=("$(tap_logfile "kernel lane ${RELEASES[$i]}")")
	tap_diag "the ${RELEASES[$i]} guests run alongside: ${lanes[-1]#"$ROOT"/}"
	tap_suite_bg "${lanes[-1]}" \
		bash "$0" "${ARGS[@]}" --lane "$i"
done
kernel_suites 0
for i in "${!lanes[@]}"; do
	tap_suite_wait "${lanes[$i]}" \
		"every guest suite of ${RELEASES[$((i + 1))]} (alongside)"
done

tap_diag "check took $(($(date +%s) - START)) s"
tap_done
