#!/bin/sh
# redis-benchmark and gbench, interleaved, on GET, MGET 16 and MGET 64 of
# 128-byte values (4096 keys), against the same throwaway redis-server: for
# each connection count, PAIRS rounds run every tool once (in turn forwards
# and backwards), and the script prints each tool's median throughput and
# client CPU time (user+sys) per request and the server's CPU time per
# request, with their ratios to redis-benchmark's (a server ratio above
# 1.03 is marked "!"), and the machine's other CPU (neither the tool's nor
# the server's, in % of all cores), and each tool's median maximum RSS. redis-benchmark
# runs with -P 1, in its default mode and with --threads 2 ("redis-bench-t2"); gbench
# with -j 2.
#
# Then GET runs again with many connections, MANY_CLIENTS (default 1000 4000
# 10000; empty to skip): for them the script raises the open-file limit
# (ulimit -n) to the hard limit, at most 65536, and starts redis-server with
# maxclients 20000; it says so, and stops when the limit is too low. The RSS
# column then tells the memory per connection.
#
#   bench/resp-vs-redis-benchmark.sh
#   PAIRS=3 DURATION=5 CLIENTS="4 64 256" bench/resp-vs-redis-benchmark.sh
#   CASES=mget64 CLIENTS=64 MANY_CLIENTS= bench/resp-vs-redis-benchmark.sh
#
# More gbench variants join the same rounds, under the same conditions:
#   GBENCH_BASE=/tmp/gbench-old   a gbench binary built before a change ("gbench-base")
#   BINARIES="gbench-head=/tmp/gb-head"  more gbench binaries, each joining as its
#                                 name (which must start with "gbench-")
#   TRANSPORTS="epoll portable"   this checkout's gbench once per GBENCH_TRANSPORT
#                                 ("gbench-epoll", ...); default: the platform's ("gbench")
set -eu
cd "$(dirname "$0")/.."

PAIRS=${PAIRS:-3}
DURATION=${DURATION:-5}
CLIENTS=${CLIENTS:-"4 64 256"}
CASES=${CASES:-"get mget16 mget64"}
MANY_CLIENTS=${MANY_CLIENTS-"1000 4000 10000"}
KEYS=4096
TRANSPORTS=${TRANSPORTS:-auto}

tools="redis-bench redis-bench-t2"
[ -n "${GBENCH_BASE:-}" ] && tools="$tools gbench-base"
BINARIES=${BINARIES:-}
for b in $BINARIES; do tools="$tools ${b%%=*}"; done
for t in $TRANSPORTS; do
	if [ "$t" = auto ]; then tools="$tools gbench"; else tools="$tools gbench-$t"; fi
done

# A descriptor per connection, in the tool and in redis-server.
most=0
for c in $CLIENTS $MANY_CLIENTS; do [ "$c" -gt "$most" ] && most=$c; done
limit=$(ulimit -Hn)
[ "$limit" = unlimited ] || [ "$limit" -gt 65536 ] && limit=65536
ulimit -n "$limit" 2>/dev/null || limit=$(ulimit -n)
if [ $((most + 64)) -gt "$limit" ]; then
	echo "$most connections need more open files than ulimit -n allows ($limit): raise the hard limit" >&2
	exit 1
fi
if [ "$most" -gt 1000 ]; then
	echo "# ulimit -n raised to $limit; redis-server runs with maxclients 20000"
fi

command -v redis-server >/dev/null || { echo "redis-server not found: install redis" >&2; exit 1; }
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not found" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/gbench-resp.XXXXXX")
port=$((20000 + $$ % 20000))
cleanup() {
	redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

go build -o "$work/gbench" ./cmd/gbench
redis-server --port "$port" --bind 127.0.0.1 --save "" --appendonly no --maxclients 20000 --dir "$work" --daemonize yes \
	--logfile "$work/redis.log" --pidfile "$work/redis.pid" >/dev/null
for i in $(seq 1 50); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
rpid=$(cat "$work/redis.pid")
hz=$(getconf CLK_TCK)
# srvticks: the server's CPU so far (all its threads), in clock ticks;
# busyticks: the machine's.
srvticks() { awk '{ print $14 + $15 }' "/proc/$rpid/stat"; }
busyticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }

# The same 128-byte values under gbench's keys (item:N) and under
# redis-benchmark's (key:%012d, what __rand_int__ becomes).
value=$(printf 'v%.0s' $(seq 1 128))
awk -v n=$KEYS -v v="$value" 'BEGIN { for (i = 0; i < n; i++) {
	printf "*3\r\n$3\r\nSET\r\n$%d\r\nitem:%d\r\n$128\r\n%s\r\n", length("item:" i), i, v
	printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$128\r\n%s\r\n", i, v } }' |
	redis-cli -p "$port" --pipe >/dev/null

nkeys() { case $1 in get) echo 1 ;; mget16) echo 16 ;; mget64) echo 64 ;; esac; }

# gbench script for a case.
script() {
	n=$(nkeys "$1")
	if [ "$n" = 1 ]; then
		printf '\\set k random(0, %d)\n\\resp GET item::k\n' $((KEYS - 1))
	else
		printf '\\set keys random_keys(0, %d, %d)\n\\resp MGET item::keys\n' $((KEYS - 1)) "$n"
	fi
}

# redis-benchmark arguments for a case.
rbargs() {
	n=$(nkeys "$1")
	if [ "$n" = 1 ]; then
		echo "GET key:__rand_int__"
	else
		printf 'MGET'; i=0; while [ $i -lt "$n" ]; do printf ' key:__rand_int__'; i=$((i + 1)); done; echo
	fi
}

# run TOOL CASE CLIENTS: prints "requests_per_second cpu_us_per_request
# server_us_per_request other_pct max_rss_mb", other being the machine's busy CPU that
# was neither the tool's nor the server's, in % of all cores over the run.
run() {
	tool=$1 case=$2 c=$3
	s0=$(srvticks) b0=$(busyticks)
	case $tool in
	gbench*)
		bin=""
		for b in $BINARIES; do [ "${b%%=*}" = "$tool" ] && bin=${b#*=}; done
		[ -z "$bin" ] && case $tool in
		gbench) bin="$work/gbench" ;;
		gbench-base) bin=$GBENCH_BASE ;;
		*) bin="env GBENCH_TRANSPORT=${tool#gbench-} $work/gbench" ;;
		esac
		script "$case" >"$work/$case.sql"
		out=$(/usr/bin/time -f "cpu %U %S %e %M" $bin --percentiles= --resp "redis://127.0.0.1:$port/0" \
			-c "$c" -j 2 -T "$DURATION" -f "$work/$case.sql" 2>&1)
		rps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
		n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
		;;
	redis-bench*)
		threads=""
		[ "$tool" = redis-bench-t2 ] && threads="--threads 2"
		# a request count that lasts about DURATION at the last measured rate
		n=${RB_N:-$(cat "$work/rate.$case.$c" 2>/dev/null || echo 100000)}
		out=$(/usr/bin/time -f "cpu %U %S %e %M" redis-benchmark -p "$port" -c "$c" -n "$n" -r $KEYS -P 1 $threads -q \
			$(rbargs "$case") 2>&1 | tr '\r' '\n')
		rps=$(echo "$out" | grep -E 'requests per second' | tail -1 | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p')
		;;
	esac
	s1=$(srvticks) b1=$(busyticks)
	cpu=$(echo "$out" | sed -n 's/^cpu \([0-9.]*\) \([0-9.]*\) \([0-9.]*\) \([0-9]*\)$/\1 \2 \3 \4/p')
	if [ -z "$rps" ] || [ -z "$cpu" ]; then
		echo "$tool $case -c $c failed:" >&2
		echo "$out" | tail -5 >&2
		return 1
	fi
	case $tool in gbench*) echo "$rps $DURATION" | awk '{ printf "%d\n", $1 * $2 }' >"$work/rate.$case.$c" ;; esac
	# $1 req/s, $2 requests, $3 $4 $5 user, sys and wall seconds, $6 max
	# RSS in KB, $7..$10 server and machine ticks, $11 Hz, $12 cores
	echo "$rps $n $cpu $s0 $s1 $b0 $b1 $hz $(nproc)" | awk '{
		client = ($3 + $4) * $11; server = $8 - $7; busy = $10 - $9
		other = busy - server - client; if (other < 0) other = 0
		printf "%.1f %.2f %.2f %.1f %.1f\n", $1, ($3 + $4) * 1e6 / $2, server * 1e6 / $11 / $2, 100 * other / ($11 * $5 * $12), $6 / 1024 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

reversed() { for x in "$@"; do echo "$x"; done | awk '{ a[NR] = $0 } END { for (i = NR; i > 0; i--) print a[i] }'; }

printf "%-7s %5s  %-16s %12s %6s  %12s %6s  %12s %6s  %7s %7s\n" case conns tool "req/s" ratio "cpu us/req" ratio "srv us/req" ratio "other%" "rss MB"
# table CASES CLIENTS: the rounds and the medians of every case at every
# connection count.
table() {
for cs in $1; do
	for c in $2; do
		for tool in $tools; do : >"$work/r.$tool"; done
		i=0
		while [ $i -lt "$PAIRS" ]; do
			order=$tools
			[ $((i % 2)) = 1 ] && order=$(reversed $tools)
			for tool in $order; do run "$tool" "$cs" "$c" >>"$work/r.$tool"; done
			i=$((i + 1))
		done
		bt=$(cut -d' ' -f1 "$work/r.redis-bench" | median); bc=$(cut -d' ' -f2 "$work/r.redis-bench" | median)
		bs=$(cut -d' ' -f3 "$work/r.redis-bench" | median)
		for tool in $tools; do
			t=$(cut -d' ' -f1 "$work/r.$tool" | median); u=$(cut -d' ' -f2 "$work/r.$tool" | median)
			sv=$(cut -d' ' -f3 "$work/r.$tool" | median); ot=$(cut -d' ' -f4 "$work/r.$tool" | median)
			rss=$(cut -d' ' -f5 "$work/r.$tool" | median)
			# A server ratio above 1.03 is marked "!": the server works more.
			echo "$cs $c $tool $t $bt $u $bc $sv $bs $ot $rss" | awk '{ sr = ($9 + 0 > 0 ? $8 / $9 : 0)
				printf "%-7s %5d  %-16s %12.1f %6.2f  %12.2f %6.2f  %12.2f %5.2f%s  %7.1f %7.1f\n", $1, $2, $3, $4, ($5 + 0 > 0 ? $4 / $5 : 0), $6, ($7 + 0 > 0 ? $6 / $7 : 0), $8, sr, (sr > 1.03 ? "!" : " "), $10, $11 }'
			if [ -n "${VERBOSE:-}" ]; then
				echo "  runs (req/s us/req srv_us/req other%): $(tr '\n' ';' <"$work/r.$tool")"
			fi
		done
	done
done
}
table "$CASES" "$CLIENTS"
[ -n "$MANY_CLIENTS" ] && table get "$MANY_CLIENTS"
exit 0
