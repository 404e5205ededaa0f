#!/bin/sh
# What reaches the server per transaction under each tool, as counts rather
# than times, so that a machine whose speed drifts cannot move them: TCP
# segments and delayed ACKs (nstat), and for the server (the postmaster's
# process tree, `perf stat -p` inherited by the backends it forks during the
# run) and for the client: context switches, system calls, the wake-ups it
# makes (sched_wakeup fired in its context), page
# faults, and task-clock (CPU time, the one figure here that load moves).
#
# Each round runs pgbench and gbench in turn (forwards, then backwards) on a
# throwaway PostgreSQL 15 set up as bench/pgbench-vs-gbench.sh sets it up.
# By default every run does the same transactions per connection (-t TOTAL/c),
# so the server's costs per connection (starting a backend, its first touches
# of the shared buffers) weigh the same for both tools; LENGTH=T runs -T
# DURATION instead, where the tool with more transactions spreads those costs
# over more of them. As root the runs happen in a network namespace of their
# own, so the TCP counters are theirs alone.
#
#   bench/server-counts.sh                              # -S and one-key, 16 and 64 clients, 3 rounds
#   CLIENTS="16 64 256" ROUNDS=5 TOTAL=96000 bench/server-counts.sh
#   LENGTH=T DURATION=4 bench/server-counts.sh
#
# Needs initdb/pg_ctl/postgres, pgbench, perf (Debian's linux-perf; software
# events and tracepoints suffice) and Go. Prints one line per run, then the
# medians per tool.
set -eu
cd "$(dirname "$0")/.."

CLIENTS=${CLIENTS:-"16 64"}
ROUNDS=${ROUNDS:-3}
TOTAL=${TOTAL:-48000}
LENGTH=${LENGTH:-t}
DURATION=${DURATION:-4}
WORKLOADS=${WORKLOADS:-"select-only onekey"}
SCALE=${SCALE:-10}

if [ "$(id -u)" = 0 ] && [ -z "${GBENCH_COUNTS_NETNS:-}" ] && command -v ip >/dev/null; then
	ns=gbench-counts-$$
	if ip netns add "$ns" 2>/dev/null; then
		trap 'ip netns del "$ns" 2>/dev/null || true' EXIT INT TERM
		ip netns exec "$ns" ip link set lo up
		GBENCH_COUNTS_NETNS=$ns ip netns exec "$ns" sh "$0" "$@"
		exit $?
	fi
	echo "note: no network namespace; the TCP counters include the machine's other traffic" >&2
fi

command -v perf >/dev/null || { echo "perf not found: apt-get install linux-perf" >&2; exit 1; }
command -v pgbench >/dev/null || { echo "pgbench not found" >&2; exit 1; }
bindir=$(pg_config --bindir 2>/dev/null || true)
for d in "$bindir" /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then PGBIN=$d; break; fi
done
[ -n "${PGBIN:-}" ] || { echo "initdb not found: install the PostgreSQL server" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gbench-counts.XXXXXX")
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
GBENCH=${GBENCH:-$work/gbench}
$runas "$PGBIN/initdb" -D "$work/data" -A trust -U postgres >/dev/null
$runas "$PGBIN/pg_ctl" -D "$work/data" -l "$work/server.log" -w \
	-o "-p $port -k $work -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=128MB -c fsync=off -c synchronous_commit=off" start >/dev/null
conn="-h 127.0.0.1 -p $port -U postgres"
pgbench $conn -i -q -s "$SCALE" postgres >/dev/null 2>&1
cat >"$work/onekey.sql" <<'EOF'
\set aid random(1, 100000 * :scale)
SELECT aid, abalance FROM pgbench_accounts WHERE aid = :aid;
EOF
pm=$(head -n1 "$work/data/postmaster.pid")
events=context-switches,cpu-migrations,task-clock,page-faults,raw_syscalls:sys_enter,sched:sched_wakeup

# field FILE EVENT: a count from perf stat -x, output.
field() { awk -F, -v e="$2" '$3 == e { print $1 + 0; found = 1 } END { if (!found) print 0 }' "$1"; }
# counter NAME: a counter from nstat's output in $ns_out (0 when absent).
counter() { echo "$ns_out" | awk -v k="$1" '$1 == k { v = $2 } END { print v + 0 }'; }

run() {
	tool=$1 w=$2 c=$3 round=$4
	case $w in select-only) what="-S" ;; *) what="-f $work/$w.sql" ;; esac
	case $tool in pgbench) bin=pgbench ;; *) bin="$GBENCH --percentiles=" ;; esac
	if [ "$LENGTH" = T ]; then len="-T $DURATION"; else len="-t $((TOTAL / c))"; fi
	nstat -n >/dev/null 2>&1
	perf stat -x, -e "$events" -p "$pm" -o "$work/srv.txt" &
	pp=$!
	sleep 0.3
	out=$(perf stat -x, -e "$events" -o "$work/cli.txt" -- $bin $conn -n -M prepared -c "$c" -j 2 $len $what postgres 2>&1) || {
		echo "note: $tool $w -c $c failed:" >&2; echo "$out" | tail -3 >&2; }
	sleep 0.3 # the postmaster reaps the run's backends
	kill -INT "$pp"; wait "$pp" || true
	ns_out=$(nstat 2>/dev/null)
	n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
	[ -n "$n" ] && [ "$n" != 0 ] || return 0
	echo "$tool $w $c $round $n $(counter TcpInSegs) $(counter TcpExtDelayedACKs)" \
		"$(field "$work/srv.txt" context-switches) $(field "$work/srv.txt" raw_syscalls:sys_enter)" \
		"$(field "$work/srv.txt" sched:sched_wakeup) $(field "$work/srv.txt" page-faults) $(field "$work/srv.txt" task-clock)" \
		"$(field "$work/cli.txt" context-switches) $(field "$work/cli.txt" raw_syscalls:sys_enter)" \
		"$(field "$work/cli.txt" sched:sched_wakeup) $(field "$work/cli.txt" page-faults) $(field "$work/cli.txt" task-clock)" |
		awk '{ n = $5; printf "%s %s %d %d %d %.3f %.4f %.3f %.3f %.3f %.3f %.2f %.3f %.3f %.3f %.4f %.2f\n", $1, $2, $3, $4, n,
			$6 / n, $7 / n, $8 / n, $9 / n, $10 / n, $11 / n, $12 * 1000 / n, $13 / n, $14 / n, $15 / n, $16 / n, $17 * 1000 / n }'
}

if [ "$LENGTH" = T ]; then echo "runs of -T $DURATION"; else echo "runs of $TOTAL transactions (-t $TOTAL/clients)"; fi
echo "per transaction: TCP segments, delayed ACKs; server and client: context switches, system calls, wake-ups, page faults, CPU us (task-clock)"
hdr="%-12s %4s %-8s %5s %8s %6s %7s | %6s %6s %6s %6s %7s | %6s %6s %6s %7s %7s\n"
printf "$hdr" workload c tool round tx segs delack cs sysc wake flt us cs sysc wake flt us
: >"$work/all"
for w in $WORKLOADS; do
	for c in $CLIENTS; do
		r=1
		while [ "$r" -le "$ROUNDS" ]; do
			order="pgbench gbench"; [ $((r % 2)) = 0 ] && order="gbench pgbench"
			for tool in $order; do
				line=$(run "$tool" "$w" "$c" "$r")
				[ -n "$line" ] || continue
				echo "$line" >>"$work/all"
				echo "$line" | awk -v f="$hdr" '{ printf f, $2, $3, $1, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17 }'
			done
			r=$((r + 1))
		done
	done
done
echo "medians:"
printf "$hdr" workload c tool rounds tx segs delack cs sysc wake flt us cs sysc wake flt us
awk '{ k = $2 " " $3 " " $1; if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }; cnt[k]++; for (i = 5; i <= 17; i++) v[k, i, cnt[k]] = $i }
	function med(k, i,  n, a, j, l, x) { n = cnt[k]; for (j = 1; j <= n; j++) a[j] = v[k, i, j]
		for (j = 2; j <= n; j++) { x = a[j]; for (l = j - 1; l > 0 && a[l] > x; l--) a[l + 1] = a[l]; a[l + 1] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	END { for (q = 1; q <= nk; q++) { k = keys[q]; split(k, p, " ")
		printf "%-12s %4s %-8s %5d %8d %6.3f %7.4f | %6.3f %6.3f %6.3f %6.3f %7.2f | %6.3f %6.3f %6.3f %7.4f %7.2f\n", p[1], p[2], p[3], cnt[k],
			med(k, 5), med(k, 6), med(k, 7), med(k, 8), med(k, 9), med(k, 10), med(k, 11), med(k, 12), med(k, 13), med(k, 14), med(k, 15), med(k, 16), med(k, 17) } }' "$work/all"
