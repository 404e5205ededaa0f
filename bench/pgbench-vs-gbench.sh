#!/bin/sh
# pgbench and gbench, interleaved, on the same workloads against the same
# throwaway PostgreSQL server (max_connections 300): for each connection
# count, PAIRS rounds run every tool once (in turn forwards and backwards),
# and the script prints each tool's median throughput, client CPU time
# (user+sys) per transaction and the server's CPU time per transaction (the
# postmaster's process tree, reaped backends included), with their ratios
# to pgbench's (a server ratio above 1.03 is marked "!"), the machine's
# other CPU (busy time that was neither the tool's nor the server's, in %
# of all cores: a round with much of it was disturbed), and its median
# initial connection time and wall time (pgbench's -T includes its
# connection setup; gbench's starts after it). Below each gbench line, the
# per-round ratios: each round's figure over pgbench's in the same round
# (adjacent runs, so a drift in the machine's speed cancels), as median
# (min-max), and each round's other CPU.
#
#   bench/pgbench-vs-gbench.sh                      # defaults below
#   PAIRS=3 DURATION=5 CLIENTS="4 16 64 256" bench/pgbench-vs-gbench.sh
#   TOTAL=64000 bench/pgbench-vs-gbench.sh          # every run -t TOTAL/clients, not -T
#
# Under -T the server's costs per connection (a backend's start and exit,
# its first touch of each shared buffer page: 1 to 4 page faults per
# transaction at 16 to 64 connections in a 4 s run) are spread over the
# run's transactions, so the tool with fewer transactions shows more server
# CPU per transaction. With TOTAL every tool does the same transactions per
# connection (bench/server-counts.sh counts what reaches the server).
#
# More gbench variants join the same rounds, under the same conditions:
#   GBENCH_BASE=/tmp/gbench-old   a gbench binary built before a change ("gbench-base")
#   BINARIES="head=/tmp/gb-head"  more gbench binaries, each joining as its name
#   TRANSPORTS="epoll portable"   this checkout's gbench once per GBENCH_TRANSPORT
#                                 ("gbench-epoll", ...); default: the platform's ("gbench")
#
# Needs initdb/pg_ctl/postgres, pgbench and Go. As root, the server runs as
# the postgres user.
set -eu
cd "$(dirname "$0")/.."

PAIRS=${PAIRS:-3}
DURATION=${DURATION:-5}
CLIENTS=${CLIENTS:-"4 16 64 256"}
JOBS=${JOBS:-2}
SCALE=${SCALE:-10}
WORKLOADS=${WORKLOADS:-"select-only onekey"}
TRANSPORTS=${TRANSPORTS:-auto}

tools=pgbench
[ -n "${GBENCH_BASE:-}" ] && tools="$tools gbench-base"
BINARIES=${BINARIES:-}
for b in $BINARIES; do tools="$tools ${b%%=*}"; done
for t in $TRANSPORTS; do
	if [ "$t" = auto ]; then tools="$tools gbench"; else tools="$tools gbench-$t"; fi
done

bindir=$(pg_config --bindir 2>/dev/null || true)
for d in "$bindir" /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then PGBIN=$d; break; fi
done
[ -n "${PGBIN:-}" ] || { echo "initdb not found: install the PostgreSQL server" >&2; exit 1; }
command -v pgbench >/dev/null || { echo "pgbench not found" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gbench-bench.XXXXXX")
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
# Durability: fsync and synchronous_commit off, full_page_writes on. The workloads only read, so no
# commit waits for a WAL flush either way; the tables in docs/design.md say so. This is not the
# sandbox's setting (durability on by default since issue 25).
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
hz=$(getconf CLK_TCK)
# srvticks: the server's CPU so far, in clock ticks: the postmaster and its
# live children (backends, and the rest), plus what its reaped children
# used (cutime, cstime).
srvticks() {
	for p in $pm $(pgrep -P "$pm"); do cat "/proc/$p/stat" 2>/dev/null; done |
		awk -v pm="$pm" '{ t += $14 + $15; if ($1 == pm) t += $16 + $17 } END { print t + 0 }'
}
# busyticks: the machine's busy CPU so far, in clock ticks.
busyticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# run TOOL WORKLOAD CLIENTS: prints "tps cpu_us_per_txn conn_ms wall_s
# server_us_per_txn other_pct", other being the machine's busy CPU that was
# neither the tool's nor the server's, in % of all cores over the run.
run() {
	tool=$1 workload=$2 c=$3
	case $workload in
	select-only) what="-S" ;;
	*) what="-f $work/$workload.sql" ;;
	esac
	bin=""
	for b in $BINARIES; do [ "${b%%=*}" = "$tool" ] && bin="${b#*=} --percentiles="; done
	[ -z "$bin" ] && case $tool in
	pgbench) bin=pgbench ;;
	gbench-base) bin="$GBENCH_BASE --percentiles=" ;;
	gbench) bin="$work/gbench --percentiles=" ;;
	gbench-*) bin="env GBENCH_TRANSPORT=${tool#gbench-} $work/gbench --percentiles=" ;;
	esac
	s0=$(srvticks) b0=$(busyticks)
	if [ -n "${TOTAL:-}" ]; then len="-t $((TOTAL / c))"; else len="-T $DURATION"; fi
	out=$(/usr/bin/time -f "cpu %U %S %e" $bin $conn -n -M prepared -c "$c" -j "$JOBS" $len $what postgres 2>&1)
	sleep 0.3 # the postmaster reaps the run's backends
	s1=$(srvticks) b1=$(busyticks)
	tps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
	n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
	cpu=$(echo "$out" | sed -n 's/^cpu \([0-9.]*\) \([0-9.]*\) \([0-9.]*\)$/\1 \2 \3/p')
	cms=$(echo "$out" | sed -n 's/^initial connection time = \([0-9.]*\) ms/\1/p')
	if [ -z "$tps" ] || [ -z "$n" ] || [ "$n" = 0 ]; then
		# pgbench counts connection setup in -T: with many connections on a
		# loaded machine a run can end before any transaction. Such a run
		# is reported and left out of the medians.
		echo "note: $tool $workload -c $c completed no transaction:" >&2
		echo "$out" | tail -3 >&2
		return 0
	fi
	echo "$tps $n $cpu ${cms:-0} $s0 $s1 $b0 $b1 $hz $(nproc)" | awk '{
		# $1 tps, $2 transactions, $3 $4 $5 user, sys and wall seconds,
		# $6 connection ms, $7..$10 server and machine ticks, $11 Hz, $12 cores
		client = ($3 + $4) * $11; server = $8 - $7; busy = $10 - $9
		other = busy - server - client; if (other < 0) other = 0
		printf "%.1f %.2f %.1f %.2f %.2f %.1f\n", $1, ($3 + $4) * 1e6 / $2, $6, $5, server * 1e6 / $11 / $2, 100 * other / ($11 * ($5 + 0.3) * $12) }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR == 0) print "nan"; else if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# paired PGBENCH_FILE TOOL_FILE: per-round ratios (tps, client CPU and
# server CPU per transaction) of rounds both tools completed: median (min-max).
paired() {
	awk 'NR == FNR { tps[$1] = $2; cpu[$1] = $3; srv[$1] = $6; next }
		($1 in tps) && tps[$1] > 0 && cpu[$1] > 0 && srv[$1] > 0 {
			n++; t[n] = $2 / tps[$1]; u[n] = $3 / cpu[$1]; s[n] = $6 / srv[$1]; o = (o == "" ? "" : o " ") $7 }
		function med(a, n,  i, j, x) {
			for (i = 2; i <= n; i++) { x = a[i]; for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		END {
			if (n == 0) { print "    per round: no round in which both completed"; exit }
			mt = med(t, n); mu = med(u, n); ms = med(s, n)
			printf "    per round (%d), over pgbench: tps %.2f (%.2f-%.2f)  client %.2f (%.2f-%.2f)  server %.2f (%.2f-%.2f)%s  other%% %s\n",
				n, mt, t[1], t[n], mu, u[1], u[n], ms, s[1], s[n], (ms > 1.03 && s[1] > 1.0 ? " !" : ""), o }' "$1" "$2"
}

reversed() { for x in "$@"; do echo "$x"; done | awk '{ a[NR] = $0 } END { for (i = NR; i > 0; i--) print a[i] }'; }

runs="-T $DURATION"; [ -n "${TOTAL:-}" ] && runs="$TOTAL transactions (-t TOTAL/clients)"
echo "server: PostgreSQL with fsync=off synchronous_commit=off full_page_writes=on (read-only workloads); runs of $runs"
printf "%-12s %7s  %-16s %12s %6s  %12s %6s  %12s %6s  %7s  %9s %7s\n" workload clients tool tps ratio "cpu us/tx" ratio "srv us/tx" ratio "other%" "conn ms" "wall s"
for w in $WORKLOADS; do
	for c in $CLIENTS; do
		for tool in $tools; do : >"$work/r.$tool"; : >"$work/p.$tool"; done
		i=0
		while [ $i -lt "$PAIRS" ]; do
			order=$tools
			[ $((i % 2)) = 1 ] && order=$(reversed $tools)
			for tool in $order; do
				line=$(run "$tool" "$w" "$c")
				[ -n "$line" ] && echo "$line" >>"$work/r.$tool" && echo "$i $line" >>"$work/p.$tool"
			done
			i=$((i + 1))
		done
		pt=$(cut -d' ' -f1 "$work/r.pgbench" | median); pc=$(cut -d' ' -f2 "$work/r.pgbench" | median)
		ps=$(cut -d' ' -f5 "$work/r.pgbench" | median)
		for tool in $tools; do
			t=$(cut -d' ' -f1 "$work/r.$tool" | median); u=$(cut -d' ' -f2 "$work/r.$tool" | median)
			cm=$(cut -d' ' -f3 "$work/r.$tool" | median); wl=$(cut -d' ' -f4 "$work/r.$tool" | median)
			sv=$(cut -d' ' -f5 "$work/r.$tool" | median); ot=$(cut -d' ' -f6 "$work/r.$tool" | median)
			# A server ratio above 1.03 is marked: gbench makes the server work more.
			echo "$w $c $tool $t $pt $u $pc $cm $wl $sv $ps $ot" | awk '{ sr = ($11 + 0 > 0 ? $10 / $11 : 0)
				printf "%-12s %7d  %-16s %12.1f %6.2f  %12.2f %6.2f  %12.2f %5.2f%s  %7.1f  %9.1f %7.2f\n", $1, $2, $3, $4, ($5 + 0 > 0 ? $4 / $5 : 0), $6, ($7 + 0 > 0 ? $6 / $7 : 0), $10, sr, (sr > 1.03 ? "!" : " "), $12, $8, $9 }'
			# Per round: each round's figure over pgbench's in the same round (the
			# two ran next to each other, so a drift in the machine's speed
			# cancels), their median and range. A server median above 1.03
			# whose range stays above 1.0 is marked.
			[ "$tool" != pgbench ] && paired "$work/p.pgbench" "$work/p.$tool"
			if [ -n "${VERBOSE:-}" ]; then
				echo "  runs (tps us/tx conn_ms wall_s srv_us/tx other%): $(tr '\n' ';' <"$work/r.$tool")"
			fi
		done
	done
done
