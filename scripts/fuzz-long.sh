#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The long fuzz of the control law (docs/RELIABILITY.md), and the branch
# coverage it reaches, in two phases on the harness of `make fuzz`
# (kmod/tests/fuzz_core.c), both with UBSan and the integer sanitizer, so
# that an overflow or a broken invariant is a crash:
#   1. libFuzzer, coverage-guided, for FUZZ_SECONDS (default 600), growing
#      build/fuzz-long/corpus;
#   2. scripts/fuzz_driver.c: RUNS executions (default 10^8) of the same
#      harness on mutations of that corpus, without libFuzzer's per-edge
#      instrumentation (about 6x faster on this harness);
# then the harness built for source-based coverage replays the corpus, and
# llvm-cov reports every branch of pt_on_rtt and the helpers it calls.
# ASan is left out (it stays in the short fuzz of make quick): the core
# touches no memory but its two structs.
#
#   scripts/fuzz-long.sh [RUNS]        (FUZZ_SECONDS=N in the environment)
#   scripts/fuzz-long.sh --cover-only  only replay an existing corpus
#
# Writes build/fuzz-long/: fuzz.log, driver.log, corpus/, coverage.txt
# (llvm-cov report of the core's functions), branches.txt (every branch
# of pt_on_rtt and its callees with its counts) and summary.json. Needs
# clang, libclang-rt-14-dev, llvm-profdata and llvm-cov. Exits non-zero if
# either phase finds a crash (build/fuzz-long/crash-* or driver-crash).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
OUT=build/fuzz-long
RUNS=100000000 COVER_ONLY=0
case ${1:-} in
'') ;;
--cover-only) COVER_ONLY=1 ;;
*) [[ $1 =~ ^[0-9]+$ ]] && [ "$1" -gt 0 ] ||
	{ echo "fuzz-long: '$1' is not a positive number of runs" >&2; exit 2; }
   RUNS=$1 ;;
esac
for t in clang llvm-profdata llvm-cov; do
	command -v "$t" > /dev/null ||
		{ echo "fuzz-long: needs $t (apt-get install clang llvm libclang-rt-14-dev)" >&2; exit 2; }
done
mkdir -p "$OUT/corpus"
SAN='-fsanitize=undefined,integer -fno-sanitize-recover=all -fno-sanitize=unsigned-shift-base'
SRC=kmod/tests/fuzz_core.c

FUZZ_SECONDS=${FUZZ_SECONDS:-600}
if [ "$COVER_ONLY" = 0 ]; then
	# shellcheck disable=SC2086
	clang -O2 -g -std=gnu11 -Wall -Wextra -Werror $SAN \
		-fsanitize=fuzzer "$SRC" -o "$OUT/fuzz_core"
	# shellcheck disable=SC2086
	clang -O2 -g -std=gnu11 -Wall -Wextra -Werror $SAN \
		scripts/fuzz_driver.c -o "$OUT/fuzz_driver"
	t0=$(date +%s)
	rc=0
	"$OUT/fuzz_core" -max_total_time="$FUZZ_SECONDS" -max_len=512 \
		-print_final_stats=1 -artifact_prefix="$OUT/" "$OUT/corpus" \
		> "$OUT/fuzz.log" 2>&1 || rc=$?
	t1=$(date +%s)
	tail -n 6 "$OUT/fuzz.log"
	[ "$rc" = 0 ] || { echo "fuzz-long: libFuzzer failed (exit $rc)" >&2; exit "$rc"; }
	(cd "$OUT" && UBSAN_OPTIONS=abort_on_error=1:print_stacktrace=1 \
		./fuzz_driver "$RUNS" 1 corpus/*) > "$OUT/driver.log" 2>&1 || rc=$?
	t2=$(date +%s)
	cat "$OUT/driver.log"
	[ "$rc" = 0 ] || { echo "fuzz-long: the driver failed (exit $rc; input in $OUT/driver-crash)" >&2; exit "$rc"; }
	echo "$((t1 - t0)) $((t2 - t1))" > "$OUT/fuzz.seconds"
fi

# Coverage: the same harness, instrumented for source-based coverage (no
# sanitizers, so their checks add no branches), replays the corpus.
clang -O0 -g -std=gnu11 -fprofile-instr-generate -fcoverage-mapping \
	-fsanitize=fuzzer "$SRC" -o "$OUT/fuzz_cov"
rm -f "$OUT"/cov.profraw
LLVM_PROFILE_FILE="$OUT/cov.profraw" "$OUT/fuzz_cov" -runs=0 "$OUT/corpus" \
	> "$OUT/replay.log" 2>&1
llvm-profdata merge -sparse "$OUT/cov.profraw" -o "$OUT/cov.profdata"
llvm-cov report "$OUT/fuzz_cov" -instr-profile="$OUT/cov.profdata" \
	-show-functions kmod/powertcp_core.h > "$OUT/coverage.txt"
# pt_on_rtt and the helpers it calls, each branch with its counts.
FUNCS=(pt_on_rtt pt_tau_ns pt_grad_ref pt_qdelay_rtt pt_norm_power
       pt_rate_to_wnd pt_wnd_lo pt_wnd_hi pt_clamp pt_min pt_max)
args=()
for f in "${FUNCS[@]}"; do args+=(-name-regex="(.*:)?$f"); done
llvm-cov show "$OUT/fuzz_cov" -instr-profile="$OUT/cov.profdata" \
	-show-branches=count "${args[@]}" > "$OUT/branches.txt"
llvm-cov export "$OUT/fuzz_cov" -instr-profile="$OUT/cov.profdata" \
	> "$OUT/coverage.json"
/usr/bin/python3 - "$OUT" "${FUNCS[@]}" <<'PY'
import json, re, sys
out, funcs = sys.argv[1], sys.argv[2:]
cov = json.load(open(out + "/coverage.json"))["data"][0]
res = {}
for fn in cov["functions"]:
    name = fn["name"].split(":")[-1]	# static: FILE:NAME
    if name not in funcs:
        continue
    br = fn.get("branches", [])
    # A branch is [line, col, end_line, end_col, true_count, false_count, ...]:
    # two outcomes each.
    outcomes = 2 * len(br)
    hit = sum((b[4] > 0) + (b[5] > 0) for b in br)
    missed = [{"line": b[0], "col": b[1], "true": b[4], "false": b[5]}
              for b in br if b[4] == 0 or b[5] == 0]
    res[name] = {"executions": fn["count"], "branch_outcomes": outcomes,
                       "covered": hit, "missed": missed}
import os
log = open(out + "/fuzz.log", errors="replace").read()
m = re.findall(r"stat::number_of_executed_units:\s*(\d+)", log)
d = re.findall(r"driver: (\d+) executions", open(out + "/driver.log").read()) \
    if os.path.exists(out + "/driver.log") else []
secs = open(out + "/fuzz.seconds").read().split() \
    if os.path.exists(out + "/fuzz.seconds") else [None, None]
corpus = len(os.listdir(out + "/corpus"))
s = {"libfuzzer_executions": int(m[-1]) if m else None,
     "driver_executions": int(d[-1]) if d else None,
     "libfuzzer_seconds": int(secs[0]) if secs[0] else None,
     "driver_seconds": int(secs[1]) if secs[1] else None,
     "corpus_files": corpus, "functions": res}
s["executions"] = (s["libfuzzer_executions"] or 0) + (s["driver_executions"] or 0)
json.dump(s, open(out + "/summary.json", "w"), indent=1)
for k, v in res.items():
    print("%-16s calls %-12d branch outcomes covered %d/%d%s" % (
        k, v["executions"], v["covered"], v["branch_outcomes"],
        "" if not v["missed"] else "  missed: " + ", ".join(
            "line %d (%s)" % (b["line"], "true" if not b["true"] else "false")
            for b in v["missed"])))
print("executions %d: libFuzzer %s in %s s, driver %s in %s s; corpus %d files" % (
    s["executions"], s["libfuzzer_executions"], s["libfuzzer_seconds"],
    s["driver_executions"], s["driver_seconds"], corpus))
PY
