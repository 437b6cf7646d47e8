#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The kernel tests under the debug kernel (make check-debug). Runs as root
# in a guest booted on scripts/build-debug-kernel.sh's kernel: checks that
# its checkers are really on, runs test_kmod.sh and test_linkspeed.sh (the
# guest needs vm-run's --nic 2500 --nic 0 for the latter), then checks
# that no checker fired. vm-run also fails the run on any WARNING, BUG,
# KASAN or UBSAN line in the kernel log.
#
#   kmod/tests/test_debug_kernel.sh MODDIR
set -u

MODDIR=${1:?usage: test_debug_kernel.sh MODDIR}
HERE=$(cd "$(dirname "$0")" && pwd)

# shellcheck source=scripts/tap.sh
. "$HERE/../../scripts/tap.sh"

# What each checker prints, or leaves, when it finds something.
REPORTS='BUG: KASAN|UBSAN:|possible (recursive|circular) locking|inconsistent lock state|sleeping function called from invalid context|suspicious RCU usage|ODEBUG:|list_(add|del) corruption'

debug_locks() { [ "$(awk '/debug_locks:/ { print $2 }' /proc/lockdep_stats)" = 1 ]; }
kasan_on() { dmesg | grep -q "KernelAddressSanitizer initialized"; }
# A field of DEBUG_OBJECTS' statistics ("pool_used     :1281").
odebug() { awk -F: -v k="$1" '$1 ~ "^" k " *$" { print $2 + 0 }' /sys/kernel/debug/debug_objects/stats; }
odebug_on() { [ "$(odebug pool_used)" -gt 0 ]; }	# it tracks objects
odebug_quiet() { [ "$(odebug warnings)" = 0 ] || { echo "$(odebug warnings) warnings"; return 1; }; }
ubsan_and_might_sleep_in() {
	grep -q ' __ubsan_handle_shift_out_of_bounds$' /proc/kallsyms &&
	grep -q ' __might_resched$' /proc/kallsyms
}
# Our modules, built against this kernel, carry its instrumentation too.
instrumented() {
	local m
	for m in "$MODDIR"/tcp_theta_powertcp.ko "$MODDIR"/tcp_powertcp_evo.ko; do
		if ! nm "$m" | grep -q ' U __asan_report_load8_noabort$' ||
		   ! nm "$m" | grep -q ' U __ubsan_handle_out_of_bounds$' ||
		   ! nm "$m" | grep -q ' U lock_acquire$'; then
			echo "$m: no KASAN, UBSAN or lockdep calls"
			return 1
		fi
	done
}
no_reports() { ! dmesg | grep -E "$REPORTS"; }

echo "# kernel $(uname -r)"
check "KASAN is on" kasan_on
check "lockdep is on and found nothing at boot (debug_locks 1)" debug_locks
check "DEBUG_OBJECTS tracks objects" odebug_on
check "UBSAN and DEBUG_ATOMIC_SLEEP are built in" ubsan_and_might_sleep_in
check "both modules call KASAN, UBSAN and lockdep" instrumented

tap_suite "kernel tests (test_kmod.sh)" bash "$HERE/test_kmod.sh" "$MODDIR"
tap_suite "line_rate_auto (test_linkspeed.sh)" bash "$HERE/test_linkspeed.sh" "$MODDIR"

check "lockdep still on after the tests (debug_locks 1)" debug_locks
check "no KASAN, UBSAN, lockdep, might_sleep or ODEBUG report in the log" no_reports
check "DEBUG_OBJECTS counted no warning" odebug_quiet
echo "# lockdep: $(grep -E 'lock-classes|direct dependencies' /proc/lockdep_stats | tr -s ' ' | paste -sd';')"
tap_done
