#!/bin/sh
# gbench's cluster mode and redis-benchmark --cluster, interleaved, on GET
# and MGET 16 of 128-byte values, against the same throwaway Redis Cluster
# of three masters (no replicas): for each connection count, PAIRS rounds
# run every tool once (in turn forwards and backwards), and the script
# prints each tool's median throughput and client CPU time (user+sys) per
# request, with their ratios to redis-benchmark's. redis-benchmark runs
# with -P 1 in its default mode; gbench with -j 2.
#
# redis-benchmark --cluster binds each connection to one master and puts
# a tag of that master's into its keys (key:{tag}:__rand_int__): its GET
# and MGET spread over the masters by connection, each MGET's keys in one
# slot. gbench spreads GET's random keys over every slot, and each MGET
# takes 16 keys under one of 64 hash tags ({g:0}item:N ... {g:63}item:N),
# drawn per request, which the CRC16 spreads over the three masters.
#
# CASES=mget16split (not run by default) has gbench read 16 random keys
# item:N, untagged, with split=slot: one MGET part per slot (16 parts over
# the three masters, sent together), the command's latency until the last
# part's reply. redis-benchmark cannot split: its row is its tagged MGET
# 16, the one-slot reference the split's cost is read against.
#
#   bench/resp-cluster-vs-redis-benchmark.sh
#   PAIRS=5 DURATION=3 CLIENTS="64 256" bench/resp-cluster-vs-redis-benchmark.sh
#   CASES="mget16 mget16split" bench/resp-cluster-vs-redis-benchmark.sh
#
#   GBENCH_BASE=/tmp/gbench-old   a gbench binary built before a change joins
#                                 the rounds ("gbench-base")
set -eu
cd "$(dirname "$0")/.."

PAIRS=${PAIRS:-3}
DURATION=${DURATION:-5}
CLIENTS=${CLIENTS:-"64 256"}
CASES=${CASES:-"get mget16"}
KEYS=4096
MGET_KEYS=256 # per hash tag

tools="redis-bench gbench"
[ -n "${GBENCH_BASE:-}" ] && tools="$tools gbench-base"

for b in redis-server redis-cli redis-benchmark; do
	command -v $b >/dev/null || { echo "$b not found: install redis" >&2; exit 1; }
done

work=$(mktemp -d "${TMPDIR:-/tmp}/gbench-cluster.XXXXXX")
# Ports and their cluster bus ports (+10000) below the ephemeral range.
base=$((12000 + ($$ % 1300) * 3))
ports="$base $((base + 1)) $((base + 2))"
cleanup() {
	for p in $ports; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

go build -o "$work/gbench" ./cmd/gbench
addrs=""
for p in $ports; do
	mkdir -p "$work/$p"
	redis-server --port "$p" --bind 127.0.0.1 --save "" --appendonly no --dir "$work/$p" --daemonize yes \
		--cluster-enabled yes --cluster-config-file nodes.conf --logfile "$work/$p/redis.log" \
		--pidfile "$work/$p/redis.pid" >/dev/null
	for i in $(seq 1 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
	addrs="$addrs 127.0.0.1:$p"
done
redis-cli --cluster create $addrs --cluster-yes >"$work/create.log" 2>&1 ||
	{ cat "$work/create.log" >&2; exit 1; }
for i in $(seq 1 100); do
	ok=0
	for p in $ports; do redis-cli -p "$p" cluster info | grep -q cluster_state:ok && ok=$((ok + 1)); done
	[ $ok = 3 ] && break
	sleep 0.2
done
[ $ok = 3 ] || { echo "the cluster did not become ok" >&2; exit 1; }

# 128-byte values under gbench's keys (item:N for GET, {g:G}item:N for
# MGET), written through redis-cli -c, which follows the MOVEDs, and under
# redis-benchmark's, which its own SET writes (4096 random keys per tag,
# 10 times over: all but a few in 10^4 are written).
value=$(printf 'v%.0s' $(seq 1 128))
awk -v n=$KEYS -v m=$MGET_KEYS -v v="$value" 'BEGIN {
	for (i = 0; i < n; i++) printf "SET item:%d %s\n", i, v
	for (g = 0; g < 64; g++) for (i = 0; i < m; i++) printf "SET {g:%d}item:%d %s\n", g, i, v }' |
	redis-cli -c -p "$base" >/dev/null
redis-benchmark --cluster -h 127.0.0.1 -p "$base" -t set -d 128 -r $KEYS -n $((KEYS * 30)) -q >/dev/null 2>&1

nkeys() { case $1 in get) echo 1 ;; mget16 | mget16split) echo 16 ;; esac; }

script() {
	n=$(nkeys "$1")
	if [ "$1" = mget16split ]; then
		printf '\\set keys random_keys(0, %d, %d)\n\\resp MGET item::keys\n' $((KEYS - 1)) "$n"
	elif [ "$n" = 1 ]; then
		printf '\\set k random(0, %d)\n\\resp GET item::k\n' $((KEYS - 1))
	else
		printf '\\set g random(0, 63)\n\\set keys random_keys(0, %d, %d)\n\\resp MGET {g::g}item::keys\n' $((MGET_KEYS - 1)) "$n"
	fi
}

rbargs() {
	n=$(nkeys "$1")
	if [ "$n" = 1 ]; then
		echo "GET key:{tag}:__rand_int__"
	else
		printf 'MGET'; i=0; while [ $i -lt "$n" ]; do printf ' key:{tag}:__rand_int__'; i=$((i + 1)); done; echo
	fi
}

# run TOOL CASE CLIENTS: prints "requests_per_second cpu_us_per_request".
run() {
	tool=$1 case=$2 c=$3
	case $tool in
	gbench*)
		bin="$work/gbench"
		[ "$tool" = gbench-base ] && bin=$GBENCH_BASE
		script "$case" >"$work/$case.sql"
		split=""
		[ "$case" = mget16split ] && split="?split=slot"
		out=$(/usr/bin/time -f "cpu %U %S %e" $bin --percentiles= --resp "redis+cluster://127.0.0.1:$base$split" \
			-c "$c" -j 2 -T "$DURATION" -f "$work/$case.sql" 2>&1)
		rps=$(echo "$out" | sed -n 's/^tps = \([0-9.]*\) .*/\1/p')
		n=$(echo "$out" | sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p')
		failed=$(echo "$out" | sed -n 's/^number of failed transactions: \([0-9]*\).*/\1/p')
		if [ -n "$failed" ] && [ "$failed" != 0 ]; then
			echo "$tool $case -c $c: $failed failed transactions" >&2
			echo "$out" | tail -5 >&2
			return 1
		fi
		;;
	redis-bench)
		# a request count that lasts about DURATION at the last measured rate
		n=${RB_N:-$(cat "$work/rate.$case.$c" 2>/dev/null || echo 100000)}
		out=$(/usr/bin/time -f "cpu %U %S %e" redis-benchmark --cluster -h 127.0.0.1 -p "$base" -c "$c" -n "$n" \
			-r $KEYS -P 1 -q $(rbargs "$case") 2>&1 | tr '\r' '\n')
		rps=$(echo "$out" | grep -E 'requests per second' | tail -1 | sed -n 's/.*: \([0-9.]*\) requests per second.*/\1/p')
		;;
	esac
	cpu=$(echo "$out" | sed -n 's/^cpu \([0-9.]*\) \([0-9.]*\) \([0-9.]*\)$/\1 \2 \3/p')
	if [ -z "$rps" ] || [ -z "$cpu" ]; then
		echo "$tool $case -c $c failed:" >&2
		echo "$out" | tail -5 >&2
		return 1
	fi
	case $tool in gbench) echo "$rps $DURATION" | awk '{ printf "%d\n", $1 * $2 }' >"$work/rate.$case.$c" ;; esac
	echo "$rps $n $cpu" | awk '{ printf "%.1f %.2f\n", $1, ($3 + $4) * 1e6 / $2 }'
}

median() { sort -n | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

reversed() { for x in "$@"; do echo "$x"; done | awk '{ a[NR] = $0 } END { for (i = NR; i > 0; i--) print a[i] }'; }

printf "%-7s %5s  %-12s %12s %6s  %12s %6s\n" case conns tool "req/s" ratio "cpu us/req" ratio
for cs in $CASES; do
	for c in $CLIENTS; do
		for tool in $tools; do : >"$work/r.$tool"; done
		i=0
		while [ $i -lt "$PAIRS" ]; do
			order=$tools
			[ $((i % 2)) = 1 ] && order=$(reversed $tools)
			for tool in $order; do run "$tool" "$cs" "$c" >>"$work/r.$tool"; done
			i=$((i + 1))
		done
		bt=$(cut -d' ' -f1 "$work/r.redis-bench" | median); bc=$(cut -d' ' -f2 "$work/r.redis-bench" | median)
		for tool in $tools; do
			t=$(cut -d' ' -f1 "$work/r.$tool" | median); u=$(cut -d' ' -f2 "$work/r.$tool" | median)
			echo "$cs $c $tool $t $bt $u $bc" | awk '{
				printf "%-7s %5d  %-12s %12.1f %6.2f  %12.2f %6.2f\n", $1, $2, $3, $4, ($5 + 0 > 0 ? $4 / $5 : 0), $6, ($7 + 0 > 0 ? $6 / $7 : 0) }'
			if [ -n "${VERBOSE:-}" ]; then
				echo "  runs (req/s us/req): $(tr '\n' ';' <"$work/r.$tool")"
			fi
		done
	done
done
