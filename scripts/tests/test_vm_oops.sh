#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# A guest whose kernel oopses or panics ends at once, with vm-run's exit
# status 91 and "guest kernel panic", instead of idling to --timeout: an
# oops in process context only kills the task (a web-search guest did so
# in SLUB's allocator under TCG, docs/RELIABILITY.md). Two short boots.
#
#   scripts/tests/test_vm_oops.sh [KERNEL]    (6.1 by default; as root,
#                                             after scripts/setup.sh)
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd -P)
KERNEL=${1:-6.1}
T=$(mktemp -d /tmp/vmoops.XXXXXX)
trap 'rm -rf "$T"' EXIT

# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"

# The guest's kernel turns an oops into a panic.
panic_on_oops() {
	local v
	v=$("$ROOT/scripts/vm-run.sh" --kernel "$KERNEL" --timeout 300 -- \
		cat /proc/sys/kernel/panic_on_oops 2> "$T/err") ||
		{ tail -n 5 "$T/err"; return 1; }
	[ "$v" = 1 ] || { echo "panic_on_oops is '$v'"; return 1; }
	echo "panic_on_oops = 1"
}

# A panicking guest: exit 91 and the reason, not the timeout's.
panic_ends_guest() {
	local rc=0
	"$ROOT/scripts/vm-run.sh" --kernel "$KERNEL" --timeout 300 -- \
		sh -c 'echo c > /proc/sysrq-trigger; sleep 600' \
		> /dev/null 2> "$T/err" || rc=$?
	if [ "$rc" -ne 91 ] ||
	   ! grep -q '^not ok vm-run .*: guest kernel panic$' "$T/err"; then
		echo "exit $rc: $(grep '^not ok' "$T/err" || tail -n 3 "$T/err")"
		return 1
	fi
	echo "exit 91, guest kernel panic"
}

check "vm-run: the guest kernel panics on an oops" panic_on_oops
check "vm-run: a guest kernel panic ends the run with exit 91 and its reason" \
	panic_ends_guest

tap_done
