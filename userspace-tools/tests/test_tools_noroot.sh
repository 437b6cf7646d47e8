#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The tools' tests that need no root (tests/test_tools.sh has those that
# need namespaces and qdiscs):
#   - tcpflows' bad arguments: exit 2 with one line on stderr;
#   - tcpflows on loopback in the current namespace ("."): a sized, a
#     stopped, a never started and a refused flow give their known
#     statuses, sizes and exit status, consistent flows.csv, goodput.csv,
#     summary and epoch file; 50 short flows from a --flow-file all done;
#   - websearch-gen's known answers: arrival rate and bottleneck from the
#     formula, sizes and pairs within their ranges, the same files for the
#     same seed;
#   - param-writer: a write every millisecond for 300 ms to regular files
#     (taken) and a symlink to /dev/full (refused, ENOSPC, as a module
#     refuses a bad value), the status line's counts; a valid write
#     refused counts as bad; bad arguments.
# Prints KTAP (scripts/tap.sh); exits 1 if any check fails.
#
# Environment: BIN (default: ../bin, built with make), KEEP=1 keeps the
# output directory.
set -u

HERE=$(cd "$(dirname "$0")/.." && pwd)
ROOT=$(cd "$HERE/.." && pwd)
# shellcheck source=scripts/tap.sh
. "$ROOT/scripts/tap.sh"
# shellcheck source=userspace-tools/tests/lib.sh
. "$HERE/tests/lib.sh"
if [ -z "${BIN:-}" ]; then
	BIN=$HERE/bin
	make -s -C "$HERE" bin/tcpflows bin/websearch-gen bin/param-writer >&2 ||
		tap_bail "make"
fi
TF=$BIN/tcpflows
WG=$BIN/websearch-gen
PW=$BIN/param-writer
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test_tools_noroot.XXXXXX")
# Ports per run, so that parallel runs do not meet, below the ephemeral
# range.
PORT=$((20000 + $$ % 12000))

cleanup() {
	if [ "${KEEP:-0}" = 1 ]; then echo "# output kept in $OUT"; else rm -rf "$OUT"; fi
}
trap cleanup EXIT

# expect_err DESC PATTERN CMD...: CMD exits 2 with one line on stderr,
# "PROG: " and matching PATTERN, and nothing on stdout.
expect_err() {
	local desc=$1 pat=$2 rc msg
	shift 2
	"$@" >"$OUT/err.out" 2>"$OUT/err.txt"
	rc=$?
	msg=$(cat "$OUT/err.txt")
	if [ $rc -eq 2 ] && [ "$(wc -l <"$OUT/err.txt")" -eq 1 ] &&
	   [ ! -s "$OUT/err.out" ] && [[ $msg == "$(basename "$1"): "* ]] &&
	   grep -q -e "$pat" "$OUT/err.txt"; then
		ok "$desc: $msg"
	else
		not_ok "$desc: rc=$rc '$msg'"
	fi
}

# --- tcpflows: bad arguments ---------------------------------------------
A=127.0.0.1
L=(--listen ".,$A,$PORT")
expect_err "tcpflows: START_US not a number" "--flow 3: START_US not a number" \
	"$TF" --out-dir "$OUT" --duration-us 1000 "${L[@]}" \
	--flow "3,.,$A,$PORT,abc,0,0"
expect_err "tcpflows: unknown netns" \
	"--flow 1: unknown network namespace 'nosuchns'" \
	"$TF" --out-dir "$OUT" --duration-us 1000 "${L[@]}" \
	--flow "1,nosuchns,$A,$PORT,0,0,0"
expect_err "tcpflows: unknown congestion control" \
	"--flow 1: congestion control 'nosuchcc' is not available" \
	"$TF" --out-dir "$OUT" --duration-us 1000 "${L[@]}" --cc nosuchcc \
	--flow "1,.,$A,$PORT,0,0,0"
expect_err "tcpflows: bad address" "--flow 2: '10.0.0' is not an IPv4" \
	"$TF" --out-dir "$OUT" --duration-us 1000 \
	--flow "2,.,10.0.0,$PORT,0,0,0"
expect_err "tcpflows: bad port" "--flow 2: PORT '65536' is not a port" \
	"$TF" --out-dir "$OUT" --duration-us 1000 --flow "2,.,$A,65536,0,0,0"
expect_err "tcpflows: wrong field count" "--flow 4: expected 7 or 8" \
	"$TF" --out-dir "$OUT" --duration-us 1000 --flow "4,.,$A,$PORT"
expect_err "tcpflows: STOP_US before START_US" \
	"--flow 4: STOP_US must be 0 or after START_US" \
	"$TF" --out-dir "$OUT" --duration-us 1000 --flow "4,.,$A,$PORT,5,0,5"
expect_err "tcpflows: duplicate id" "--flow 5: duplicate flow id" \
	"$TF" --out-dir "$OUT" --duration-us 1000 \
	--flow "5,.,$A,$PORT,0,0,0" --flow "5,.,$A,$PORT,0,0,0"
expect_err "tcpflows: bad --listen" "--listen .,$A: expected NETNS,ADDR,PORT" \
	"$TF" --out-dir "$OUT" --duration-us 1000 --listen ".,$A"
expect_err "tcpflows: bad --sample" "--sample '.,lo,0': INTERVAL_US not" \
	"$TF" --out-dir "$OUT" --duration-us 1000 "${L[@]}" \
	--sample ".,lo,0"
expect_err "tcpflows: missing --out-dir" "--out-dir is required" \
	"$TF" --duration-us 1000 "${L[@]}"
expect_err "tcpflows: nothing to do" "nothing to do" \
	"$TF" --out-dir "$OUT" --duration-us 1000
expect_err "tcpflows: unknown option" "unknown option '--bogus'" \
	"$TF" --bogus
expect_err "tcpflows: missing --flow-file" "--flow-file $OUT/none: No such" \
	"$TF" --out-dir "$OUT" --duration-us 1000 --flow-file "$OUT/none"

# --- tcpflows on loopback ------------------------------------------------
# Flow 1: 200000 B with reno from 0; flow 2: unlimited from 20 ms, stopped
# at 120 ms; flow 3: starts after the end; flow 4: to a port nobody
# listens on. Goodput rows every 10 ms. Small socket buffers and
# TCP_NOTSENT_LOWAT bound what flow 2 leaves to drain after its stop, so
# that its EOF comes in time on a busy machine too.
D=$OUT/run1
mkdir -p "$D"
NSCC=$(cat /proc/sys/net/ipv4/tcp_congestion_control)
t0=$(python3 -c 'import time; print(time.monotonic_ns())')
"$TF" --out-dir "$D" --duration-us 600000 --interval-us 10000 \
	--epoch-file "$D/epoch" --listen ".,$A,$PORT" \
	--sndbuf 131072 --rcvbuf 131072 --notsent-lowat 32768 \
	--flow "1,.,$A,$PORT,0,200000,0,reno" \
	--flow "2,.,$A,$PORT,20000,0,120000" \
	--flow "3,.,$A,$PORT,900000,1000,0" \
	--flow "4,.,$A,$((PORT + 1)),0,1000,0" \
	>"$D/summary.txt" 2>"$D/stderr.txt"
rc=$?
t1=$(python3 -c 'import time; print(time.monotonic_ns())')
sed 's/^/# /' "$D/summary.txt" "$D/stderr.txt"
check "exit 1: a flow failed" [ $rc -eq 1 ]
check "stderr: only the refused connect" \
	test "$(cat "$D/stderr.txt")" = "tcpflows: flow 4: connect: Connection refused"
check "flows.csv header" test "$(head -n 1 "$D/flows.csv")" = \
	"id,src_netns,cc,start_us,bytes,first_byte_us,completion_us,bytes_received,connect_us,started_us,bytes_sent,status"
awk_check "flows.csv: ids, statuses, congestion controls" "$D/flows.csv" \
	-v cc="$NSCC" '
	NR > 1 { s = s $1 ":" $12 ":" $3 " "; n++; if (NF != 12) bad = 1 }
	END { print s; exit bad || s != "1:done:reno 2:closed:" cc \
	      " 3:unstarted:" cc " 4:error:" cc " " }'
awk_check "flow 1: all 200000 B, times in order" "$D/flows.csv" '
	$1 == 1 { print $5, $8, $11, "B; started", $10, "connect", $9,
		  "first", $6, "done", $7;
		  exit !($2 == "." && $4 == 0 && $5 == 200000 && $8 == $5 &&
			 $11 == $5 && $10 >= $4 && $9 >= $10 && $6 >= $9 &&
			 $7 >= $6 && $7 < 600000) }'
awk_check "flow 2: stopped at 120 ms, then EOF" "$D/flows.csv" '
	$1 == 2 { print "started", $10, "completion", $7, "rx", $8, "tx", $11;
		  exit !($4 == 20000 && $5 == 0 && $10 >= 20000 &&
			 $7 >= 120000 && $7 < 600000 && $8 > 0 && $8 == $11) }'
awk_check "flow 3: never started, every time -1" "$D/flows.csv" '
	$1 == 3 { print; exit $0 != "3,.," $3 ",900000,1000,-1,-1,0,-1,-1,0,unstarted" }'
awk_check "flow 4: refused, nothing sent" "$D/flows.csv" '
	$1 == 4 { print; exit !($10 >= 0 && $9 == -1 && $6 == -1 &&
				$8 == 0 && $11 == 0) }'
check "goodput.csv header" test "$(head -n 1 "$D/goodput.csv")" = \
	"time_us,flow_id,bytes_total"
awk_check "goodput.csv: flow 1 ends at 200000 B, flow 2 at its total" \
	"$D/goodput.csv" -v f="$D/flows.csv" '
	BEGIN { while ((getline l < f) > 0) { split(l, x, ","); rx[x[1]] = x[8] } }
	NR > 1 { last[$2] = $3; if ($3 < prev[$2]) bad = 1;
		 prev[$2] = $3; n[$2]++ }
	END { print n[1] " and " n[2] " rows, last " last[1] ", " last[2];
	      exit bad || last[1] != 200000 || last[2] != rx[2] ||
		   (3 in n) || (4 in n) }'
# Rows are taken at ticks every 10 ms from the epoch, or later if the loop
# is busy (ticks it is too late for are skipped, so how many there are
# depends on the machine's load): at most one a tick.
awk_check "goodput.csv: at most one row per flow and 10 ms tick" \
	"$D/goodput.csv" '
	NR > 1 { k = int($1 / 10000); if ($1 < 0 || (($2, k) in seen)) bad++
		 seen[$2, k] = 1; if ($2 == 2) n++ }
	END { printf "%d rows of flow 2, %d in a tick already taken", n, bad
	      exit bad || !n }'
awk_check "summary: a line per flow, totals as in flows.csv" \
	"$D/flows.csv" -v s="$D/summary.txt" '
	NR > 1 { rx += $8; st[$1] = $12 }
	END { while ((getline l < s) > 0) {
		if (l ~ /^flow [0-9]+ \. [^ ]+ [a-z]+: rx [0-9]+ B/) {
			split(l, x, " "); sub(":", "", x[5])
			fl += st[x[2]] == x[5] }
		if (l ~ /^total: /) tot = l }
	      print tot
	      exit !(fl == 4 && tot == "total: 4 flows, 3 started, rx " rx \
		     " B, 1 errors") }'
check "epoch file: CLOCK_MONOTONIC ns within the run" python3 -c '
import sys
e = open(sys.argv[1]).read()
t0, t1 = int(sys.argv[2]), int(sys.argv[3])
print("epoch %s ns after the start" % (int(e) - t0))
sys.exit(not (e.endswith("\n") and e.strip().isdigit() and t0 < int(e) < t1))' \
	"$D/epoch" "$t0" "$t1"
check "epoch file: written by rename, no .tmp left" test ! -e "$D/epoch.tmp"

# 50 short flows, every 2 ms, through one listener, from a flow file
# with comments and blank lines; IPv6 if loopback has it.
D=$OUT/run2
mkdir -p "$D"
A6=$A
ip -6 addr show dev lo 2>/dev/null | grep -q 'inet6 ::1/' && A6=::1
{
	echo "# 50 flows of 20000 B"
	for i in $(seq 0 49); do
		echo "  $((100 + i)),.,$A6,$((PORT + 2)),$((i * 2000)),20000,0"
		[ $((i % 10)) -eq 0 ] && echo ""
	done
} >"$D/flows.txt"
"$TF" --out-dir "$D" --duration-us 600000 --interval-us 0 --quiet \
	--listen ".,$A6,$((PORT + 2))" --flow-file "$D/flows.txt" \
	>"$D/stdout.txt" 2>"$D/stderr.txt"
rc=$?
check "50 short flows ($A6): exit 0, quiet" \
	test $rc -eq 0 -a ! -s "$D/stdout.txt" -a ! -s "$D/stderr.txt"
awk_check "50 short flows all done" "$D/flows.csv" '
	NR > 1 { n++; if ($12 == "done" && $8 == 20000 && $11 == 20000) d++
		 else if (!ex) ex = "; not: " $0 }
	END { print d "/" n ex; exit !(n == 50 && d == n) }'
check "--interval-us 0: no goodput.csv" test ! -e "$D/goodput.csv"

# --preconnect-us: flows 1 and 2 start at 100 ms, connected 80 ms before
# (at 20 ms); each is connected before its start and gets no byte before
# it. Flow 3 starts at 10 ms, so it connects at 0.
D=$OUT/pre
mkdir -p "$D"
"$TF" --out-dir "$D" --duration-us 300000 --interval-us 10000 \
	--listen ".,$A,$PORT" --preconnect-us 80000 \
	--flow "1,.,$A,$PORT,100000,100000,0" \
	--flow "2,.,$A,$PORT,100000,100000,0" \
	--flow "3,.,$A,$PORT,10000,100000,0" \
	>"$D/summary.txt" 2>"$D/stderr.txt"
check "--preconnect-us: exit 0" [ $? -eq 0 ]
awk_check "--preconnect-us: connected before START_US, first byte after" \
	"$D/flows.csv" '
	NR > 1 { printf "%s connect %d started %d first %d; ", $1, $9, $10, $6
		 n++
		 if (!($9 >= 0 && $9 < $4 && $10 >= $4 && $6 >= $4 &&
		       $12 == "done" && $8 == $5)) bad = 1
		 if ($1 < 3 && $9 < 20000) bad = 1 }
	END { exit bad || n != 3 }'

# --max-pacing: one unlimited reno flow capped at 10 Mbit/s (1250000 B/s)
# from before its connect, uncapped at 300 ms. The kernel leaves a flow's
# first ten segments unpaced (loopback's are up to 64 KB each), so the cap
# is checked from 100 ms to 300 ms: 250000 B at the cap, at most twice
# that. A sender's next skb keeps the send time the cap gave it (one or two
# 64 KB skbs, up to 100 ms each), so the lift is checked from 600 ms:
# loopback moves many times more.
D=$OUT/cap
mkdir -p "$D"
"$TF" --out-dir "$D" --duration-us 800000 --interval-us 10000 \
	--listen ".,$A,$PORT" --flow "1,.,$A,$PORT,0,0,0,reno" \
	--max-pacing 300000,0 --max-pacing 0,1250000 \
	>"$D/summary.txt" 2>"$D/stderr.txt"
check "--max-pacing: exit 0" [ $? -eq 0 ]
check "--max-pacing: both caps reported, each taken by the sender" \
	test "$(grep -c '^max-pacing .* 1 senders, 0 refused$' "$D/summary.txt")" = 2
awk_check "--max-pacing: 10 Mbit/s held, then lifted" "$D/goodput.csv" '
	NR > 1 && $1 <= 100000 { a = $3 }
	NR > 1 && $1 <= 300000 { b = $3 }
	NR > 1 && $1 <= 600000 { c = $3 }
	NR > 1 && $1 <= 800000 { d = $3 }
	END { printf "100-300 ms: %d B; 600-800 ms: %d B", b - a, d - c
	      exit !(b - a >= 125000 && b - a <= 500000 && d - c > 4 * (b - a)) }'
expect_err "tcpflows: bad --max-pacing" "--max-pacing '10': not AT_US,BPS" \
	"$TF" --out-dir "$OUT" --duration-us 1000 "${L[@]}" --max-pacing 10
expect_err "tcpflows: --max-pacing rate not a number" \
	"--max-pacing: BPS: 'fast' is not a number" \
	"$TF" --out-dir "$OUT" --duration-us 1000 "${L[@]}" --max-pacing 0,fast

# --- websearch-gen ------------------------------------------------------
# Sizes uniform in [1000, 3000] B (mean 2000), 8 hosts on 2 leaves, 100
# Mbit/s links, 50% load. A pair crosses leaves with probability 4/7; per
# flow/s a host link carries 2000 * 8 / 8 bit/s of its 100 Mbit/s (2e-5)
# and an uplink 2000 * 8 * 4/7 / 2 (4.571e-5): the uplinks are the
# bottleneck, and 50% of them is 0.5 / 4.571e-5 = 10937.5 flows/s,
# 175 Mbit/s offered. 20000 flows: the sample means are within a few
# percent of 2000 B, 1 / 10937.5 s = 91.43 us and 4/7.
D=$OUT/ws
mkdir -p "$D"
printf '# bytes probability\n1000 0\n3000 1\n' >"$D/cdf.txt"
WARGS=(--cdf "$D/cdf.txt" --load 50 --hosts 8 --link-mbps 100 --flows 20000)
"$WG" "${WARGS[@]}" --seed 7 --flow-file "$D/flows.txt" \
	--manifest "$D/manifest.csv" >"$D/params.json" 2>"$D/err.txt"
rc=$?
check "websearch-gen runs" test $rc -eq 0 -a ! -s "$D/err.txt"
check "websearch-gen: parameters from the formula" python3 -c '
import json, sys
p = json.load(open(sys.argv[1]))
want = {"mean_size_bytes": 2000, "cross_fraction": 4 / 7,
        "arrival_rate_per_s": 10937.5, "offered_mbps": 175,
        "first_start_us": 100000, "flows": 20000, "leaves": 2}
bad = [k for k, v in want.items() if abs(p[k] - v) > 1e-4 * max(1, v)]
print("%s flows/s, %s Mbit/s offered, bottleneck %s" % (
    p["arrival_rate_per_s"], p["offered_mbps"], p["bottleneck"]))
sys.exit(bad or p["bottleneck"] != "uplinks")' "$D/params.json"
awk_check "websearch-gen: sample means near the formula's" \
	"$D/manifest.csv" '
	NR > 1 { n++; b += $7; x += $4 != $5; if (n > 1) g += $6 - t; t = $6
		 if ($7 < 1000 || $7 > 3000 || $2 == $3 || $2 < 1 || $2 > 8 ||
		     $3 < 1 || $3 > 8 || $4 != int(($2 - 1) / 4) + 1 ||
		     $5 != int(($3 - 1) / 4) + 1 || $1 != n - 1) bad++ }
	END { printf "%d flows, mean %.1f B, gap %.2f us, cross %.4f, %d bad",
		n, b / n, g / (n - 1), x / n, bad
	      exit bad || n != 20000 || (b / n - 2000)^2 > 20^2 ||
		   (g / (n - 1) - 91.43)^2 > 2.7^2 || (x / n - 4 / 7)^2 > 0.015^2 }'
awk_check "websearch-gen: the flow file matches the manifest" \
	"$D/flows.txt" -v m="$D/manifest.csv" '
	BEGIN { getline l < m; while ((getline l < m) > 0) {
		split(l, x, ","); want[x[1]] = x[1] ",tb_h" x[2] ",10." x[5] \
			"." ((x[3] - 1) % 4 + 1) ".2,5001," x[6] "," x[7] ",0" } }
	/^#/ { next }
	{ n++; if ($0 != want[$1]) { bad++; if (!ex) ex = $0 } }
	END { printf "%d lines, %d differ %s", n, bad, ex
	      exit bad || n != 20000 }'
"$WG" "${WARGS[@]}" --seed 7 --flow-file "$D/flows2.txt" \
	--manifest "$D/manifest2.csv" >/dev/null
"$WG" "${WARGS[@]}" --seed 8 --flow-file "$D/flows3.txt" \
	--manifest "$D/manifest3.csv" >/dev/null
check "websearch-gen: the same seed, the same files" \
	cmp "$D/flows.txt" "$D/flows2.txt"
check "websearch-gen: another seed, other flows" \
	bash -c '! cmp -s "$1" "$2"' - "$D/manifest.csv" "$D/manifest3.csv"
expect_err "websearch-gen: load above 100" "--load: '150' is above 100" \
	"$WG" "${WARGS[@]}" --seed 1 --flow-file "$D/x" --manifest "$D/y" \
	--load 150
expect_err "websearch-gen: hosts not a multiple of leaves" \
	"--hosts must be a multiple of --leaves" \
	"$WG" "${WARGS[@]}" --seed 1 --flow-file "$D/x" --manifest "$D/y" \
	--leaves 3
printf '1000 0.5\n3000 0.4\n' >"$D/bad_cdf.txt"
expect_err "websearch-gen: a CDF that decreases" "not increasing" \
	"$WG" --cdf "$D/bad_cdf.txt" --load 50 --hosts 8 --link-mbps 100 \
	--flows 1 --seed 1 --flow-file "$D/x" --manifest "$D/y"


# --- param-writer --------------------------------------------------------
# gamma and beta: regular files, every write taken; full: /dev/full, every
# write refused (ENOSPC). 300 ms at 1 ms: 300 ticks, fewer if the machine
# is busy (a tick missed whole is skipped): the counts are checked, not
# the rate (at least one cycle of four; the rate is the fault case's).
D=$OUT/pw
mkdir -p "$D"
: >"$D/gamma"
: >"$D/beta"
ln -s /dev/full "$D/full"
PWA=(--dir "$D" --period-us 1000 --duration-us 300000 --status "$D/status")
"$PW" "${PWA[@]}" --valid gamma=700,beta=3000 --invalid full=0,full=x \
	>"$D/out.txt" 2>&1
rc=$?
check "param-writer: exit 0, nothing printed" \
	test "$rc $(cat "$D/out.txt")" = "0 "
# pw_check DESC AWK-CONDITION: the status line "writes ok refused bad
# mean_interval_us max_late_us" meets the condition.
pw_check() {
	check "$1" awk '
	{ n++; w = $1; o = $2; r = $3; b = $4; m = $5; l = $6; nf = NF }
	END { printf "%d writes, %d taken, %d refused, %d bad, mean %d us, " \
		"max late %d us", w, o, r, b, m, l
	      exit !(n == 1 && nf == 6 && ('"$2"')) }' "$D/status"
}
# The writes span at most the 300 ms, and at least the ticks between the
# first and the last write less the first one's lateness (m is rounded).
pw_check "param-writer: taken + refused = writes, none bad" \
	'w >= 4 && w <= 300 && o + r == w && b == 0 && o >= r && \
	 o - r <= 2 && l >= 0 && m * (w - 1) <= 300000 + w && \
	 m * (w - 1) >= 1000 * (w - 1) - l - w'
check "param-writer: the last valid value written" \
	test "$(cat "$D/gamma") $(cat "$D/beta")" = "700 3000"
check "param-writer: no temporary file left" test ! -e "$D/status.tmp"
# gamma=700 taken, full=1 (valid) refused, beta=x (invalid) taken: every
# refusal and half of the taken writes are bad (the counts, not the rate:
# a cycle of 3 is enough).
"$PW" "${PWA[@]}" --valid gamma=700,full=1 --invalid beta=x >/dev/null 2>&1
rc=$?
pw_check "param-writer: a valid value refused, an invalid taken: bad" \
	"$rc"' == 0 && w >= 3 && o + r == w && b > r && r > 0 && \
	 (b - r - o / 2)^2 <= 1'
expect_err "param-writer: NAME=VAL without =" "--invalid: 'x' is not NAME=VAL" \
	"$PW" "${PWA[@]}" --valid gamma=1 --invalid x
expect_err "param-writer: a name that does not open" \
	"--valid: $D/nosuch: No such file" "$PW" "${PWA[@]}" --valid nosuch=1
expect_err "param-writer: period not a number" \
	"--period-us: '1ms' is not a positive integer" \
	"$PW" "${PWA[@]}" --valid gamma=1 --period-us 1ms
expect_err "param-writer: missing --status" "are required" \
	"$PW" --dir "$D" --period-us 1000 --duration-us 1000 --valid gamma=1

# pt-params: the modules' table, and the values it refuses as the modules do.
PT=$BIN/pt-params
check "pt-params: both algorithms' values in range" \
	"$PT" check powertcp_evo gamma=1 gamma=1024 variant=31 variant=32 tso_permille=0 \
	line_rate_auto=1 base_rtt_us=10000000
check "pt-params: evo's defaults, theta's variant range" sh -c \
	'"$1" list powertcp_evo | grep -qx "target_permille 1030 1000 4000" &&
	 "$1" list theta_powertcp | grep -qx "variant 0 0 0"' _ "$PT"
expect_err "pt-params: out of range" "gamma=0 is out of range (1..1024)" \
	"$PT" check theta_powertcp gamma=0
expect_err "pt-params: theta takes variant 0 only" "variant=1 is out of range (0..0)" \
	"$PT" check theta_powertcp variant=1
expect_err "pt-params: compete and the gradient baseline not together" \
	"variant=33: PT_VAR_COMPETE (32) and PT_VAR_GRAD_BASELINE (1) do not go together" \
	"$PT" check powertcp_evo variant=33
expect_err "pt-params: no such parameter" "no parameter nope" \
	"$PT" check powertcp_evo nope=1
expect_err "pt-params: not an integer" "'1x' is not an integer" \
	"$PT" check powertcp_evo gamma=1x
expect_err "pt-params: not ours" "cubic: not one of ours" "$PT" check cubic

tap_done
