#!/bin/sh
# System calls per transaction of pgbench and gbench (and redis-benchmark
# and gbench over RESP), counted by strace -c -f. Each tool runs twice on
# the same workload, with N1 and then N2 transactions per client, and the
# script prints the difference of the counts over the difference of the
# transactions: what one more transaction costs, without the connection
# setup and the shutdown. io_uring_enter carries gbench's sends and
# receives when it runs over io_uring: they are not system calls of their
# own.
#
#   bench/syscalls.sh                        # -S and one-key select at 16, 64, 256; GET and MGET 16
#   CLIENTS="16" CASES="select-only" bench/syscalls.sh
#   TRANSPORTS="io_uring epoll" bench/syscalls.sh   # gbench once per GBENCH_TRANSPORT
#
# Needs strace, initdb/pg_ctl/postgres, pgbench, redis-server,
# redis-benchmark and Go. As root, the server runs as the postgres user.
set -eu
cd "$(dirname "$0")/.."

CLIENTS=${CLIENTS:-"16 64 256"}
CASES=${CASES:-"select-only onekey get mget16"}
N1=${N1:-50}
N2=${N2:-250}
TRANSPORTS=${TRANSPORTS:-auto}
SCALE=${SCALE:-10}
KEYS=4096

command -v strace >/dev/null || { echo "strace not found" >&2; exit 1; }
bindir=$(pg_config --bindir 2>/dev/null || true)
for d in "$bindir" /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then PGBIN=$d; break; fi
done
[ -n "${PGBIN:-}" ] || { echo "initdb not found: install the PostgreSQL server" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gbench-sys.XXXXXX")
chmod 755 "$work"
runas=""
if [ "$(id -u)" = 0 ]; then runas="runuser -u postgres --"; chown postgres "$work"; fi
port=$((20000 + $$ % 20000))
rport=$((port + 1))
cleanup() {
	$runas "$PGBIN/pg_ctl" -D "$work/data" -m immediate stop >/dev/null 2>&1 || true
	redis-cli -p "$rport" shutdown nosave >/dev/null 2>&1 || true
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
printf '\\set aid random(1, 100000 * :scale)\nSELECT aid, abalance FROM pgbench_accounts WHERE aid = :aid;\n' >"$work/onekey.sql"

redis-server --port "$rport" --bind 127.0.0.1 --save "" --appendonly no --dir "$work" --daemonize yes \
	--logfile "$work/redis.log" >/dev/null
for i in $(seq 1 50); do redis-cli -p "$rport" ping >/dev/null 2>&1 && break; sleep 0.1; done
value=$(printf 'v%.0s' $(seq 1 128))
awk -v n=$KEYS -v v="$value" 'BEGIN { for (i = 0; i < n; i++) {
	printf "*3\r\n$3\r\nSET\r\n$%d\r\nitem:%d\r\n$128\r\n%s\r\n", length("item:" i), i, v
	printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$128\r\n%s\r\n", i, v } }' |
	redis-cli -p "$rport" --pipe >/dev/null
printf '\\set k random(0, %d)\n\\resp GET item::k\n' $((KEYS - 1)) >"$work/get.sql"
printf '\\set keys random_keys(0, %d, 16)\n\\resp MGET item::keys\n' $((KEYS - 1)) >"$work/mget16.sql"
rbmget="MGET"; i=0; while [ $i -lt 16 ]; do rbmget="$rbmget key:__rand_int__"; i=$((i + 1)); done

gbenches=""
for t in $TRANSPORTS; do
	if [ "$t" = auto ]; then gbenches="$gbenches gbench"; else gbenches="$gbenches gbench-$t"; fi
done

# count TOOL CASE CLIENTS N: runs it under strace, leaves the summary in
# $work/strace.out.
count() {
	tool=$1 cs=$2 c=$3 n=$4
	env=""
	case $tool in gbench-*) env="GBENCH_TRANSPORT=${tool#gbench-}" ;; esac
	case $tool:$cs in
	pgbench:select-only) cmd="pgbench $conn -n -M prepared -c $c -j 2 -t $n -S postgres" ;;
	pgbench:onekey) cmd="pgbench $conn -n -M prepared -c $c -j 2 -t $n -f $work/onekey.sql postgres" ;;
	gbench*:select-only) cmd="$work/gbench $conn -n -M prepared -c $c -j 2 -t $n -S postgres" ;;
	gbench*:onekey) cmd="$work/gbench $conn -n -M prepared -c $c -j 2 -t $n -f $work/onekey.sql postgres" ;;
	gbench*:get | gbench*:mget16) cmd="$work/gbench --resp redis://127.0.0.1:$rport/0 -c $c -j 2 -t $n -f $work/$cs.sql" ;;
	redis-benchmark:get) cmd="redis-benchmark -p $rport -c $c -n $((c * n)) -r $KEYS -P 1 -q GET key:__rand_int__" ;;
	redis-benchmark:mget16) cmd="redis-benchmark -p $rport -c $c -n $((c * n)) -r $KEYS -P 1 -q $rbmget" ;;
	esac
	env $env strace -f -c -o "$work/strace.out" $cmd >/dev/null 2>&1
}

# calls FILE: "syscall calls" lines of an strace -c summary.
calls() { awk '$NF != "total" && $NF != "syscall" && $1 !~ /^-/ { print $NF, $4 }' "$1"; }

printf "%-12s %5s  %-16s %10s  %s\n" case conns tool "calls/tx" "per transaction, the largest"
for cs in $CASES; do
	case $cs in get | mget16) tools="redis-benchmark$gbenches" ;; *) tools="pgbench$gbenches" ;; esac
	for c in $CLIENTS; do
		[ "$cs" = get ] || [ "$cs" = mget16 ] || [ "$c" -le 290 ] || continue
		for tool in $tools; do
			count "$tool" "$cs" "$c" "$N1"; calls "$work/strace.out" >"$work/a"
			count "$tool" "$cs" "$c" "$N2"; calls "$work/strace.out" >"$work/b"
			awk -v tx=$((c * (N2 - N1))) -v cs="$cs" -v c="$c" -v tool="$tool" '
				FNR == NR { a[$1] = $2; next }
				{ d = ($2 - a[$1]) / tx; if (d > 0.005) { per[$1] = d; total += d } }
				END {
					n = 0; for (s in per) list[n++] = s
					for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (per[list[j]] > per[list[i]]) { t = list[i]; list[i] = list[j]; list[j] = t }
					top = ""; for (i = 0; i < n && i < 5; i++) top = top sprintf("%s %.2f  ", list[i], per[list[i]])
					printf "%-12s %5d  %-16s %10.2f  %s\n", cs, c, tool, total, top
				}' "$work/a" "$work/b"
		done
	done
done
