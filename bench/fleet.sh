#!/bin/sh
# One run over WORKERS local worker processes against one throwaway
# PostgreSQL (gbench sandbox), as the pods of an Indexed Job run it
# (GBENCH_WORKERS, JOB_COMPLETION_INDEX, GBENCH_RUN_ID), merged with gbench
# merge; then the same options in one process, for comparison. Prints both
# summaries and leaves the JSON results in OUT.
#
#   bench/fleet.sh                                   # 4 workers, -c 64 --rate 4000 -T 10
#   WORKERS=8 ARGS="-c 128 -j 8 -T 30 --rate 8000" bench/fleet.sh
#   SCRIPT=my.sql bench/fleet.sh
#
# ARGS must give -j of at least WORKERS. Run it under /work/bench.lock on a
# shared machine.
set -eu
cd "$(dirname "$0")/.."
WORKERS=${WORKERS:-4}
ARGS=${ARGS:-"-c 64 -j 4 -T 10 --rate 4000 -P 1 --random-seed 42"}
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/gbench-fleet.XXXXXX")}
mkdir -p "$OUT"
bin="$OUT/gbench"
go build -o "$bin" ./cmd/gbench
if [ -z "${SCRIPT:-}" ]; then
	SCRIPT="$OUT/select1.sql"
	echo 'SELECT 1;' >"$SCRIPT"
fi

# A throwaway server, up until we stop it.
"$bin" sandbox --items 128 --keyspace 16 >"$OUT/sandbox.out" 2>"$OUT/sandbox.err" &
sandbox=$!
trap 'kill -INT $sandbox 2>/dev/null; wait $sandbox 2>/dev/null || true' EXIT
for _ in $(seq 1 120); do
	grep -q '^PostgreSQL: ' "$OUT/sandbox.out" 2>/dev/null && break
	sleep 0.5
done
db=$(sed -n 's/^PostgreSQL: //p' "$OUT/sandbox.out")
[ -n "$db" ] || { cat "$OUT/sandbox.err" >&2; exit 1; }

echo "== $WORKERS workers: gbench -n -f $SCRIPT $ARGS"
run="fleet-$$-$(date +%s)"
pids=""
i=0
while [ "$i" -lt "$WORKERS" ]; do
	# shellcheck disable=SC2086 # ARGS is a list of options
	GBENCH_WORKERS=$WORKERS JOB_COMPLETION_INDEX=$i GBENCH_RUN_ID=$run \
		"$bin" -n -f "$SCRIPT" $ARGS --json "$OUT/worker-$i.json" "$db" >"$OUT/worker-$i.out" 2>"$OUT/worker-$i.err" &
	pids="$pids $!"
	i=$((i + 1))
done
status=0
for p in $pids; do wait "$p" || status=1; done
[ "$status" -eq 0 ] || { tail -n 5 "$OUT"/worker-*.err >&2; exit 1; }
grep -h '^gbench: worker ' "$OUT"/worker-*.err
"$bin" merge -o "$OUT/merged.json" "$OUT"/worker-*.json

echo
echo "== one process: gbench -n -f $SCRIPT $ARGS"
# shellcheck disable=SC2086
"$bin" -n -f "$SCRIPT" $ARGS --json "$OUT/single.json" "$db" 2>"$OUT/single.err"
echo
echo "results in $OUT"
