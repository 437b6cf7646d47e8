# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# KTAP output for every test suite of the tree, sourced by the (bash) test
# scripts. Sourcing it prints the header; the rest is in the format of the
# kernel selftests:
#
#   KTAP version 1
#   1..N                        up front (tap_plan), or last (tap_done)
#   ok 1 - description
#   not ok 2 - description
#   ok 3 - description # SKIP reason
#   # Totals: pass:1 fail:1 xfail:0 xpass:0 skip:1 error:0
#
# Functions:
#   ok DESC, not_ok DESC        one result
#   skip DESC REASON            a result that was not tested, and why
#   check DESC COMMAND...       ok if COMMAND succeeds, with its output on
#                               the line if it is one line; else not ok and
#                               its last lines as diagnostics
#   tap_suite [--log FILE] DESC COMMAND...
#                               run a suite that prints KTAP itself as a
#                               subtest: its lines indented by 4, its totals
#                               added to ours, then ok/not ok DESC here
#   tap_step NAME COMMAND...    a step that prints no KTAP (a build, a
#                               setup) as one check: its output in
#                               tap_logfile NAME, its last lines shown if
#                               it fails; returns COMMAND's status
#   tap_logfile NAME            $TAP_LOGDIR/NAME.log, NAME made a file name
#   tap_suite_bg FILE COMMAND...
#   tap_suite_wait FILE DESC    the same for a suite run in the background
#                               (output to FILE), reported when waited for:
#                               independent suites can run side by side
#   tap_plan N                  the plan, before the first result
#   tap_diag MSG...             a "# MSG" diagnostic line
#   tap_bail REASON             "Bail out! REASON", the totals, exit 1
#   tap_done                    the plan (unless given), the wall time of
#                               each step and suite (longest first), and
#                               the totals; returns non-zero if anything
#                               failed
#
# The totals count checks, not suites: a subtest adds its own totals (all
# of its top-level totals lines, if one command ran several programs). A
# suite that exits non-zero without a failed check, or prints no totals,
# counts as one failure. error counts plans that did not match the results.

if [ -z "${tap_loaded:-}" ]; then
	tap_loaded=1
	tap_n=0			# results at this level
	tap_planned=''		# the plan, if printed up front
	tap_passed=0		# checks, here and in subtests
	tap_failed=0
	tap_skipped=0
	tap_errors=0
	declare -gA tap_bg_pid=()
	tap_times=()		# "SECONDS<tab>NAME" of every step and suite
	echo "KTAP version 1"
fi

ok() {
	tap_n=$((tap_n + 1))
	tap_passed=$((tap_passed + 1))
	echo "ok $tap_n - $*"
}

not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	echo "not ok $tap_n - $*"
}

skip() { # desc reason
	tap_n=$((tap_n + 1))
	tap_skipped=$((tap_skipped + 1))
	echo "ok $tap_n - $1 # SKIP ${2:-}"
}

tap_diag() {
	echo "# $*"
}

tap_plan() {
	tap_planned=$1
	echo "1..$1"
}

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
		echo "$out" | tail -n 20 | sed 's/^/#   /'
	fi
}

# The KTAP lines of a suite's log (results, plans, headers, diagnostics,
# at any depth), or with -v the other lines.
tap_lines() { # [-v] log
	local v=''
	if [ "$1" = -v ]; then
		v=-v
		shift
	fi
	tr -d '\r' < "$1" | grep -E $v '^ *(KTAP version [0-9]|TAP version [0-9]|[0-9]+\.\.[0-9]+$|(not )?ok [0-9]+|#|Bail out!)'
}

tap_logfile() {
	echo "${TAP_LOGDIR:?}/$(printf '%s' "$1" | tr -c 'A-Za-z0-9._-' '_').log"
}

tap_step() {
	local name=$1 log t0=$SECONDS rc
	shift
	log=$(tap_logfile "$name")
	tap_diag "$name ..."
	"$@" > "$log" 2>&1 < /dev/null
	rc=$?
	tap_times+=("$((SECONDS - t0))"$'\t'"$name")
	if [ "$rc" -eq 0 ]; then
		ok "$name ($((SECONDS - t0)) s)"
	else
		not_ok "$name ($((SECONDS - t0)) s, exit $rc)"
		echo "#   last lines of $log:"
		tail -n 40 "$log" | sed 's/^/#   /'
	fi
	return "$rc"
}

tap_suite() {
	local log='' own='' desc rc t0=$SECONDS
	if [ "$1" = --log ]; then
		log=$2
		shift 2
	fi
	desc=$1
	shift
	if [ -z "$log" ]; then
		log=$(mktemp "${TMPDIR:-/tmp}/tap_suite.XXXXXX") || return 1
		own=1
	fi
	"$@" > "$log" 2>&1 < /dev/null
	rc=$?
	tap_report "$log" "$rc" "$desc" $((SECONDS - t0)) "$own"
}

# The background suite's run time goes to LOG.secs.
tap_suite_bg() {
	local log=$1
	shift
	(
		t0=$SECONDS
		"$@" > "$log" 2>&1 < /dev/null
		rc=$?
		echo $((SECONDS - t0)) > "$log.secs"
		exit $rc
	) &
	tap_bg_pid[$log]=$!
}

tap_suite_wait() {
	local log=$1 desc=$2 rc secs
	wait "${tap_bg_pid[$log]}"
	rc=$?
	secs=$(cat "$log.secs" 2>/dev/null)
	rm -f "$log.secs"
	tap_report "$log" "$rc" "$desc" "${secs:-?}" ''
}

# tap_report LOG STATUS DESC SECONDS OWN: a suite's KTAP lines, indented,
# its totals added to ours, and our result line for it; OWN: remove LOG.
tap_report() {
	local log=$1 rc=$2 desc=$3 secs=$4 own=$5 totals p f s e why=''
	tap_lines "$log" | sed 's/^/    /'
	# The sum of its top-level totals lines: one command may run several
	# KTAP programs (make test).
	totals=$(tr -d '\r' < "$log" | sed -nE \
		's/^# Totals: pass:([0-9]+) fail:([0-9]+) xfail:[0-9]+ xpass:[0-9]+ skip:([0-9]+) error:([0-9]+) *$/\1 \2 \3 \4/p' |
		awk '{ p += $1; f += $2; s += $3; e += $4 }
		     END { if (NR) print p, f, s, e }')
	if [ -n "$totals" ]; then
		read -r p f s e <<< "$totals"
		tap_passed=$((tap_passed + p))
		tap_failed=$((tap_failed + f))
		tap_skipped=$((tap_skipped + s))
		tap_errors=$((tap_errors + e))
		if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && [ "$e" -eq 0 ]; then
			tap_failed=$((tap_failed + 1))
			why="exit $rc without a failed check"
		elif [ "$rc" -ne 0 ] || [ "$f" -gt 0 ] || [ "$e" -gt 0 ]; then
			why="exit $rc, $f failed, $e errors"
		fi
	else
		tap_failed=$((tap_failed + 1))
		why="exit $rc, no KTAP totals"
	fi
	tap_n=$((tap_n + 1))
	tap_times+=("$secs"$'\t'"$desc")
	if [ -z "$why" ]; then
		echo "ok $tap_n - $desc ($secs s)"
	else
		echo "not ok $tap_n - $desc ($secs s, $why)"
		# What the KTAP lines above do not show.
		if tap_lines -v "$log" | grep -q .; then
			if [ -n "$own" ]; then
				echo "#   its last other lines:"
			else
				echo "#   its last other lines ($log):"
			fi
			tap_lines -v "$log" | tail -n 30 | sed 's/^/#   /'
		fi
	fi
	[ -z "$own" ] || rm -f "$log"
	[ -z "$why" ]
}

tap_totals() {
	echo "# Totals: pass:$tap_passed fail:$tap_failed xfail:0 xpass:0 skip:$tap_skipped error:$tap_errors"
}

tap_bail() {
	echo "Bail out! $*"
	tap_failed=$((tap_failed + 1))
	tap_totals
	exit 1
}

tap_done() {
	if [ -z "$tap_planned" ]; then
		echo "1..$tap_n"
	elif [ "$tap_planned" -ne "$tap_n" ]; then
		tap_diag "planned $tap_planned tests, ran $tap_n"
		tap_errors=$((tap_errors + 1))
	fi
	if [ ${#tap_times[@]} -gt 0 ]; then
		echo "# wall time of each step and suite, longest first:"
		printf '%s\n' "${tap_times[@]}" | sort -t $'\t' -k1,1nr |
			awk -F'\t' '{ printf "#   %5s s  %s\n", $1, $2 }'
	fi
	tap_totals
	[ "$tap_failed" -eq 0 ] && [ "$tap_errors" -eq 0 ]
}
