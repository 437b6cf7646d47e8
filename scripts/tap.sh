# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Test output in the kernel selftests' style, sourced by the test scripts:
# "ok N - description" / "not ok N - description" lines, then tap_done
# prints "N passed, N failed" and returns non-zero if anything failed.

tap_passed=0
tap_failed=0

ok() {
	tap_passed=$((tap_passed + 1))
	echo "ok $((tap_passed + tap_failed)) - $*"
}

not_ok() {
	tap_failed=$((tap_failed + 1))
	echo "not ok $((tap_passed + tap_failed)) - $*"
}

# check DESCRIPTION COMMAND...: ok if the command succeeds, with its output
# (if one line) on the ok line; otherwise not ok and its last lines.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		if [ "$(printf '%s' "$out" | grep -c '')" -le 1 ]; then
			ok "$desc${out:+: $out}"
		else
			ok "$desc"
		fi
	else
		not_ok "$desc"
		echo "$out" | sed 's/^/#   /' | tail -n 20
	fi
}

tap_done() {
	echo "$tap_passed passed, $tap_failed failed"
	[ "$tap_failed" -eq 0 ]
}
