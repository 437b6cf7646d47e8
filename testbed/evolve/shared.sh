#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make evolve-shared: the search (testbed/evolve/search.py) as WORKERS
# processes on this machine, one guest each (--jobs 1), sharing one study
# in a private PostgreSQL server (scripts/pg-private.sh, its cluster in
# PG_DIR), until the study holds TRIALS trials (--study-trials: however
# many each worker runs; a worker that dies has its trial run again by
# another). The workers share OUT: one module snapshot, one θ reference
# run. With --listen the server takes TCP connections too, and the URL for
# workers on other machines is printed. The server stops when the workers
# are done, or interrupted; the study stays in PG_DIR and resumes.
#
#   testbed/evolve/shared.sh [--workers 2] [--trials 40] [--out DIR]
#       [--pg-dir DIR] [--port N] [--listen ADDRESSES] [-- search.py options]
#
# Defaults: OUT results/evolve-shared, PG_DIR OUT/pg, port 55432.
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WORKERS=2 TRIALS=40 OUT=$ROOT/results/evolve-shared PGDIR='' PORT=55432 LISTEN=''
die() { echo "evolve-shared: $*" >&2; exit 1; }

while [ $# -gt 0 ]; do
	case $1 in
	--workers) WORKERS=${2:?--workers needs a value}; shift ;;
	--trials) TRIALS=${2:?--trials needs a value}; shift ;;
	--out) OUT=${2:?--out needs a value}; shift ;;
	--pg-dir) PGDIR=${2:?--pg-dir needs a value}; shift ;;
	--port) PORT=${2:?--port needs a value}; shift ;;
	--listen) LISTEN=${2:?--listen needs a value}; shift ;;
	--) shift; break ;;
	-h|--help) sed -n '4,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1'" ;;
	esac
	shift
done
[[ $WORKERS =~ ^[1-9][0-9]*$ ]] || die "--workers: a positive number"
[[ $TRIALS =~ ^[0-9]+$ ]] || die "--trials: a number"
mkdir -p "$OUT" || die "cannot create $OUT"
OUT=$(cd "$OUT" && pwd -P)
PGDIR=${PGDIR:-$OUT/pg}
/usr/bin/python3 -c 'import psycopg2' 2> /dev/null ||
	die "psycopg2 missing (apt-get install python3-psycopg2)"

PIDS=()
finish() {
	local p
	trap - EXIT INT TERM
	for p in "${PIDS[@]}"; do
		kill "$p" 2> /dev/null
	done
	wait
	bash "$ROOT/scripts/pg-private.sh" stop "$PGDIR"
}
trap finish EXIT
trap 'exit 130' INT TERM

URL=$(bash "$ROOT/scripts/pg-private.sh" start "$PGDIR" --port "$PORT" \
	${LISTEN:+--listen "$LISTEN"}) || exit 1
echo "evolve-shared: the study's database: $URL"
if [ -n "$LISTEN" ]; then
	echo "evolve-shared: workers on other machines join with"
	echo "  /usr/bin/python3 testbed/evolve/search.py --study-trials $TRIALS --jobs 1 \\"
	echo "      --storage '$(bash "$ROOT/scripts/pg-private.sh" url "$PGDIR" --remote)' $*"
fi

for ((i = 1; i <= WORKERS; i++)); do
	/usr/bin/python3 "$ROOT/testbed/evolve/search.py" --storage "$URL" \
		--study-trials "$TRIALS" --jobs 1 --out "$OUT" "$@" \
		> >(tee "$OUT/worker-$i.log" | sed -u "s/^/worker $i: /") 2>&1 &
	PIDS+=("$!")
done
rc=0
for p in "${PIDS[@]}"; do
	wait "$p" || rc=1
done
PIDS=()
[ "$rc" = 0 ] || die "a worker failed (its log: $OUT/worker-N.log)"
echo "evolve-shared: history: $OUT/history.csv, plot: $OUT/best.png"
