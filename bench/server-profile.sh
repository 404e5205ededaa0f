#!/bin/sh
# Where the server's CPU goes under each tool: a throwaway PostgreSQL 15 set
# up as bench/pgbench-vs-gbench.sh sets it up (fsync and synchronous_commit
# off, pgbench -i -s 10), then ROUNDS rounds of pgbench and gbench in turn on
# one workload, each under `perf record -a -g` (cpu-clock sampling, which
# works where hardware counters do not). For each run it prints the
# transactions, the clock ticks of the server's background processes
# (checkpointer, background writer, WAL writer, autovacuum: a server cost
# that is no tool's), the ticks of the reaped backends, and then the
# processes' shares of the samples and the top server symbols.
#
#   bench/server-profile.sh                          # one-key select, 256 clients
#   WORKLOAD=select-only CLIENTS=64 ROUNDS=3 bench/server-profile.sh
#
# Needs initdb/pg_ctl/postgres, pgbench, perf (Debian's linux-perf) and Go.
# As root, the server runs as the postgres user.
set -eu
cd "$(dirname "$0")/.."

WORKLOAD=${WORKLOAD:-onekey}
CLIENTS=${CLIENTS:-256}
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-2}
TOP=${TOP:-15}

command -v perf >/dev/null || { echo "perf not found: apt-get install linux-perf" >&2; exit 1; }
command -v pgbench >/dev/null || { echo "pgbench not found" >&2; exit 1; }
bindir=$(pg_config --bindir 2>/dev/null || true)
for d in "$bindir" /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then PGBIN=$d; break; fi
done
[ -n "${PGBIN:-}" ] || { echo "initdb not found: install the PostgreSQL server" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gbench-profile.XXXXXX")
chmod 755 "$work"
runas=""
if [ "$(id -u)" = 0 ]; then runas="runuser -u postgres --"; chown postgres "$work"; fi
port=$((20000 + $$ % 20000))
cleanup() {
	$runas "$PGBIN/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

go build -o "$work/gbench" ./cmd/gbench
$runas "$PGBIN/initdb" -D "$work/data" -A trust -U postgres >/dev/null
$runas "$PGBIN/pg_ctl" -D "$work/data" -l "$work/server.log" -w \
	-o "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB -c fsync=off -c synchronous_commit=off" start >/dev/null
conn="-h 127.0.0.1 -p $port -U postgres"
pgbench $conn -i -q -s 10 postgres >/dev/null 2>&1
printf '%s\n' '\set aid random(1, 100000 * :scale)' 'SELECT aid, abalance FROM pgbench_accounts WHERE aid = :aid;' >"$work/onekey.sql"
case $WORKLOAD in
select-only) what="-S" ;;
onekey) what="-f $work/onekey.sql" ;;
*) echo "WORKLOAD is select-only or onekey" >&2; exit 1 ;;
esac
pm=$(head -n1 "$work/data/postmaster.pid")

# background: the ticks of the postmaster's live children, which between
# runs are its background processes.
background() {
	for p in $(pgrep -P "$pm"); do
		awk '{ print $14 + $15 }' "/proc/$p/stat" 2>/dev/null || true
	done | awk '{ s += $1 } END { print s + 0 }'
}
reaped() { awk '{ print $16 + $17 }' "/proc/$pm/stat"; }

echo "server: PostgreSQL with fsync=off synchronous_commit=off; $WORKLOAD, -c $CLIENTS -j 2 -T $DURATION -M prepared"
i=0
while [ $i -lt "$ROUNDS" ]; do
	for tool in pgbench gbench; do
		bin=pgbench
		[ $tool = gbench ] && bin="$work/gbench --percentiles="
		b0=$(background) r0=$(reaped)
		perf record -q -a -g -F 1999 -o "$work/perf.data" -- \
			$bin $conn -n -M prepared -c "$CLIENTS" -j 2 -T "$DURATION" $what postgres >"$work/out" 2>&1
		sleep 0.3 # the postmaster reaps the run's backends
		b1=$(background) r1=$(reaped)
		n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$work/out")
		echo
		echo "== round $((i + 1)) $tool: $n transactions; background processes $((b1 - b0)) ticks, reaped backends $((r1 - r0)) ticks"
		perf report -i "$work/perf.data" --no-children --sort comm --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -4
		echo "-- top symbols (all processes, % of all samples):"
		perf report -i "$work/perf.data" --no-children -g none --sort comm,sym --stdio 2>/dev/null | grep -E '^ +[0-9]' | head -"$TOP"
	done
	i=$((i + 1))
done
