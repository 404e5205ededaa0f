#!/bin/bash
# The server's side of a transaction, per tool: the backends' voluntary and
# involuntary context switches and their CPU per transaction, read from
# /proc between 1.5 s and 4.5 s of a -T 6 -P 1 run (transactions from the
# progress lines, so rough to a few %), against an existing PostgreSQL whose
# data directory is PGDATA (its postmaster.pid names the postmaster). Used
# for issue 27: does a tool make the backends sleep and wake more often?
#
#   PGDATA=/path/to/data C=64 bench/server-switches.sh PORT pgbench "env GBENCH_TRANSPORT=epoll gbench"
#
# SQL is the script (default: a one-key select on kv(k int primary key, v text)).
set -eu
PORT=$1; shift
C=${C:-64}; T=${T:-6}
SQL=${SQL:-}
if [ -z "$SQL" ]; then
	SQL=$(mktemp); trap 'rm -f "$SQL"' EXIT
	printf '\\set k random(1, 4096)\nSELECT k, v FROM kv WHERE k = :k;\n' >"$SQL"
fi
PM=$(head -n1 "$PGDATA/postmaster.pid")
snap() {
	files=$(for p in $(pgrep -P "$PM"); do printf "/proc/%s/stat /proc/%s/status " "$p" "$p"; done)
	# shellcheck disable=SC2086
	awk 'FILENAME ~ /stat$/ { t += $14 + $15; nextfile } /^voluntary/ { v += $2 } /^nonvoluntary/ { n += $2 } END { print v + 0, n + 0, t + 0 }' $files 2>/dev/null
}
hz=$(getconf CLK_TCK)
out=$(mktemp)
for tool in "$@"; do
	$tool -n -M prepared -f "$SQL" -c "$C" -j 2 -T "$T" -P 1 "host=127.0.0.1 port=$PORT user=postgres dbname=postgres" >"$out" 2>&1 &
	tp=$!
	sleep 1.5; a=$(snap); sleep 3; b=$(snap); wait $tp
	n=$(grep -E '^progress: [2345]\.0 s' "$out" | awk '{ s += ($3 == "2.0" || $3 == "5.0") ? $4 / 2 : $4 } END { print s }')
	echo "$a $b $n $hz" | awk -v tool="$tool" '{ n = $7; printf "%-40s tx %8d  voluntary/tx %.3f  involuntary/tx %.3f  server us/tx %.2f\n", tool, n, ($4 - $1) / n, ($5 - $2) / n, ($6 - $3) * 1e6 / $8 / n }'
done
rm -f "$out"
