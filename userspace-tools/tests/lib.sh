# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the tools' tests (test_tools.sh, test_tools_noroot.sh),
# sourced after scripts/tap.sh.

# awk_check DESC FILE [-v VAR=VALUE...] PROGRAM: PROGRAM reads the CSV
# FILE, prints a note and exits 0 (pass) or 1 (fail); the note goes on the
# KTAP line.
awk_check() {
	local desc=$1 file=$2 note
	shift 2
	if note=$(awk -F, "$@" "$file" 2>&1); then
		ok "$desc: $note"
	else
		not_ok "$desc: $note"
	fi
}
