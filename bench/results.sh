#!/bin/sh
# The published results (issue 25 item 6): every bundled plan with
# durability on (the sandbox's default, as the reference benchmark), the
# unlogged and the article's sessions plans again with durability off, a
# curve and an SLO search on pgbench's select-only script, each timed, then
# the side-by-side with the reference's published figures
# (bench/refcompare). It writes OUT (default docs/results/<UTC date>/): one
# directory per step with its JSON, the command's output (.txt), its
# progress lines (.log) and gbench report's report.md and charts; a README.md
# with the commands, the machine, the time each step took and its
# durability; comparison.md.
#
#   bench/results.sh                          # the full run: about 45 min on 2 cores (it prints an estimate)
#   SMOKE=1 OUT=/tmp/x bench/results.sh       # a tiny run (a second per sample) that checks the script
#   STEPS="read unlogged-off compare" bench/results.sh
#   ESTIMATE=1 bench/results.sh               # print the estimate of the run's duration, then exit
#
# Steps: the bundled plans (`gbench plans list`: read coldfill mixed
# sessions unlogged writes ycsb), unlogged-off, sessions-off, curve, slo,
# compare (needs read). Default: all of them. README.md is written at the
# end whatever the steps.
#
# Quiet machine. Before each step the script measures the machine's busy
# CPU over QUIET_WINDOW seconds (default 10) while it runs nothing, which is
# other processes' CPU, and the 1-minute load average. Above QUIET_OTHER
# percent of all cores (default 10) or, before the first step, a load
# average above QUIET_LOAD (default: a quarter of the cores) it waits, up
# to QUIET_WAIT seconds (default 900), then refuses (exit 4), or with
# FORCE=1 runs and marks the step "not quiet". During
# each step it measures the machine's busy CPU minus the step's own (gbench
# and the servers it started, from /usr/bin/time, and for the curve and
# the SLO search the sandbox's process tree, from /proc), and marks the step
# "noisy" when that exceeds QUIET_OTHER. Both figures are in README.md.
set -eu
case "${1:-}" in
-h | --help) sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
"") ;;
*) echo "results: no arguments (settings are environment variables: see --help)" >&2; exit 1 ;;
esac
cd "$(dirname "$0")/.."

SMOKE=${SMOKE:-0}
OUT=${OUT:-docs/results/$(date -u +%F)}
ncpu=$(nproc)
QUIET_WINDOW=${QUIET_WINDOW:-10}
QUIET_OTHER=${QUIET_OTHER:-10}
QUIET_LOAD=${QUIET_LOAD:-$(awk -v n="$ncpu" 'BEGIN { print n / 4 }')}
QUIET_WAIT=${QUIET_WAIT:-900}
FORCE=${FORCE:-0}
if [ "$SMOKE" = 1 ]; then
	QUIET_WINDOW=${QUIET_WINDOW_SMOKE:-1}
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/gbench-results.XXXXXX")
sbpid=""
cleanup() {
	if [ -n "$sbpid" ]; then
		kill -INT "$sbpid" 2>/dev/null || true
		wait "$sbpid" 2>/dev/null || true
	fi
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

go build -o "$work/gbench" ./cmd/gbench
go build -o "$work/refcompare" ./bench/refcompare
gb="$work/gbench"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain 2>/dev/null | grep -v '^??' | head -1 || true)
[ -n "$dirty" ] && commit="$commit (with uncommitted changes)"

# plans: "NAME SAMPLES SECONDS-OR-rN" for each bundled plan, from gbench plans list.
"$gb" plans list | awk 'NR > 1 && $1 ~ /^[a-z0-9-]+$/ && $2 ~ /^[0-9]+$/ {
	if ($4 == "s") print $1, $2, $3; else print $1, $2, "r" $3 }' >"$work/plans"
plans=$(cut -d' ' -f1 "$work/plans" | tr '\n' ' ')
STEPS=${STEPS:-"$plans unlogged-off sessions-off curve slo compare"}

# Fixed by the script, recorded in README.md.
if [ "$SMOKE" = 1 ]; then
	matrixsmoke="--repeats 1 --warmup 0 -c 4 --keyspace 2000 --sessions 2000"
	curveargs="--clients 1,2 --repeats 1 --warmup 0"
	sloargs="--repeats 1 --warmup 0 --max-runs 4"
	runlen=1 scale=1 sboptions="--keyspace 1000 --sessions 1000"
else
	matrixsmoke=""
	curveargs="--clients 1,2,4,8,16,32 --repeats 3 --warmup 3"
	sloargs="--repeats 3 --warmup 3"
	runlen=5 scale=10 sboptions="--keyspace 1000 --sessions 1000"
fi

busyticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8 + $9 }' /proc/stat; }
# treeticks PID: the CPU ticks of PID's process tree (0 without a PID):
# each live process's utime+stime and its reaped children's
# cutime+cstime, so that each tick counts once. The curve's and the SLO
# search's servers are the sandbox's, not the step's children: their CPU
# is the step's own too.
treeticks() {
	[ -n "$1" ] || { echo 0; return; }
	pids=$1 all=""
	while [ -n "$pids" ]; do
		all="$all $pids"
		next=""
		for p in $pids; do next="$next $(cat /proc/"$p"/task/*/children 2>/dev/null)"; done
		pids=$(echo $next)
	done
	for p in $all; do cat /proc/"$p"/stat 2>/dev/null; done |
		awk '{ sub(/^.*\) /, ""); t += $12 + $13 + $14 + $15 } END { print t + 0 }'
}
load1() { cut -d' ' -f1 /proc/loadavg; }
hz=$(getconf CLK_TCK)

# otherpct SECONDS: the machine's busy CPU over SECONDS, in % of all cores,
# while this script runs nothing.
otherpct() {
	b0=$(busyticks)
	sleep "$1"
	b1=$(busyticks)
	awk -v b="$((b1 - b0))" -v hz="$hz" -v s="$1" -v n="$ncpu" 'BEGIN { printf "%.1f", 100 * b / (hz * s * n) }'
}

# waitquiet: sets quiet ("quiet" or "not quiet"), qother and qload; exits 4
# when the machine stays busy for QUIET_WAIT seconds, unless FORCE=1.
waitquiet() {
	waited=0
	while :; do
		qother=$(otherpct "$QUIET_WINDOW")
		qload=$(load1)
		# After a step the load average is mostly that step's own (256
		# connections are 256 runnable tasks) and decays over minutes: only
		# the first step waits for it.
		ml=$QUIET_LOAD
		[ -s "$OUT/steps.tsv" ] && ml=1000000
		if awk -v o="$qother" -v l="$qload" -v mo="$QUIET_OTHER" -v ml="$ml" 'BEGIN { exit !(o <= mo && l <= ml) }'; then
			quiet=quiet
			return
		fi
		if [ "$waited" -ge "$QUIET_WAIT" ]; then
			if [ "$FORCE" = 1 ]; then
				echo "results: the machine is not quiet (other CPU ${qother}%, load $qload); FORCE=1: running and marking the step" >&2
				quiet="not quiet"
				return
			fi
			echo "results: the machine is not quiet after ${QUIET_WAIT}s (other CPU ${qother}% > ${QUIET_OTHER}% or load $qload > $QUIET_LOAD): refusing; FORCE=1 runs anyway and marks the results" >&2
			exit 4
		fi
		echo "results: waiting for a quiet machine (other CPU ${qother}%, load $qload)" >&2
		sleep 30
		waited=$((waited + 30 + QUIET_WINDOW))
	done
}

# timed NAME DIR CMD...: runs CMD with stdout to DIR/NAME.txt and stderr to
# DIR/NAME.log after waiting for a quiet machine; appends the step's line to
# OUT/steps.tsv: name, exit status, wall seconds, start, quiet, other CPU
# before, load before, other CPU during, the command.
timed() {
	name=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	waitquiet
	start=$(date -u +%FT%TZ)
	b0=$(busyticks)
	s0=$(treeticks "$sbpid")
	t0=$(date +%s)
	echo "results: $name: $*" >&2
	rc=0
	/usr/bin/time -o "$work/time" -f "%U %S %e" "$@" >"$dir/$name.txt" 2>"$dir/$name.log" || rc=$?
	t1=$(date +%s)
	b1=$(busyticks)
	s1=$(treeticks "$sbpid")
	during=$(awk -v b="$((b1 - b0))" -v sb="$((s1 - s0))" -v hz="$hz" -v n="$ncpu" '{ own = ($1 + $2) * hz + sb; o = b - own; if (o < 0) o = 0; printf "%.1f", 100 * o / (hz * ($3 > 0 ? $3 : 1) * n) }' "$work/time")
	if awk -v d="$during" -v mo="$QUIET_OTHER" 'BEGIN { exit !(d > mo) }' && [ "$quiet" = quiet ]; then
		quiet=noisy
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$rc" "$((t1 - t0))" "$start" "$quiet" "$qother" "$qload" "$during" "$*" >>"$OUT/steps.tsv"
	echo "results: $name: exit $rc after $((t1 - t0))s (other CPU during: ${during}%)" >&2
	return 0
}

# report NAME DIR: gbench report of DIR/NAME.json into DIR.
report() {
	[ -f "$2/$1.json" ] || return 0
	"$gb" report "$2/$1.json" -o "$2" >"$work/report.out" 2>&1 || echo "results: gbench report $1 failed: $(tail -1 "$work/report.out")" >&2
}

# plan NAME [DURABILITY]: one bundled plan through a sandbox.
plan() {
	name=$1 durability=${2:-on}
	set -- $(grep "^$name " "$work/plans")
	[ $# -eq 3 ] || { echo "results: no bundled plan $name" >&2; return 0; }
	step=$name
	[ "$durability" = off ] && step=$name-off
	len=""
	if [ "$SMOKE" = 1 ]; then
		case $3 in r*) len="-t 200" ;; *) len="-T $runlen" ;; esac
	fi
	dir="$OUT/$step"
	timed "$step" "$dir" "$gb" matrix --plan "$name" --durability "$durability" $matrixsmoke $len -o "$dir/$step.json"
	report "$step" "$dir"
}

# sandbox: a throwaway PostgreSQL (durability on) with pgbench's tables at
# the scale, for the curve and the SLO search; sets conn.
sandbox() {
	[ -n "$sbpid" ] && return 0
	"$gb" sandbox --durability on $sboptions >"$work/sandbox.out" 2>"$work/sandbox.log" &
	sbpid=$!
	i=0
	until grep -q '^PostgreSQL: ' "$work/sandbox.out" 2>/dev/null; do
		i=$((i + 1))
		if [ "$i" -gt 600 ] || ! kill -0 "$sbpid" 2>/dev/null; then
			echo "results: the sandbox did not start:" >&2
			tail -5 "$work/sandbox.log" >&2
			exit 1
		fi
		sleep 0.5
	done
	conn=$(sed -n 's/^PostgreSQL: //p' "$work/sandbox.out")
	"$gb" -i -q -s "$scale" "$conn" >"$work/init.log" 2>&1 || { tail -5 "$work/init.log" >&2; exit 1; }
	sed -n 's/^gbench sandbox: //p' "$work/sandbox.log" >"$work/sandbox.desc"
}

curve() {
	sandbox
	dir="$OUT/curve"
	timed curve "$dir" "$gb" curve $curveargs -o "$dir/curve.json" -- -S -j 2 -T "$runlen" "$conn"
	report curve "$dir"
}

slo() {
	sandbox
	dir="$OUT/slo-5ms"
	timed slo "$dir" "$gb" slo --slo 'p99<=5ms' $sloargs -o "$dir/slo.json" -- -S -c 8 -j 2 -T "$runlen" "$conn"
	report slo "$dir"
}

compare() {
	if [ ! -f "$OUT/read/read.json" ]; then
		echo "results: compare: no $OUT/read/read.json (step read)" >&2
		return 0
	fi
	"$work/refcompare" -ref bench/refcompare/reference.json "$OUT/read/read.json" >"$OUT/comparison.md"
	# The comparison names the JSON by its path here; the README links it.
	sed -i "s|\`$OUT/read/read.json\`|[read/read.json](read/read.json)|" "$OUT/comparison.md"
}

# estimate SMOKE: the run's duration in seconds, from the plans' samples and
# lengths, plus a minute per sandbox (start, load, contract, warm-up) and
# the quiet checks; requests-sized samples count 6 s (mixed: 54 in 5.5 min).
estimate() {
	total=0
	for s in $STEPS; do
		p=${s%-off}
		line=$(grep "^$p " "$work/plans" || true)
		if [ -n "$line" ]; then
			t=$(echo "$line" | awk -v smoke="$1" '{ each = ($3 ~ /^r/) ? 6 : $3; if (smoke == 1) print int($2 / 3 * 0.3 + 8); else print $2 * (each + 0.5) + 60 }')
		else
			case $s in
			curve) t=$([ "$1" = 1 ] && echo 10 || echo $((6 * 3 * 5 + 3 + 30))) ;;
			slo) t=$([ "$1" = 1 ] && echo 10 || echo $((15 * 5 + 3 + 15))) ;;
			*) t=0 ;;
			esac
		fi
		total=$((total + ${t%.*} + $([ "$1" = 1 ] && echo 1 || echo 10)))
	done
	echo "$total"
}

est=$(estimate 0)
echo "results: steps: $STEPS" >&2
echo "results: the full run of these steps takes about $((est / 60)) min $((est % 60)) s, without waits for a quiet machine" >&2
if [ "$SMOKE" = 1 ]; then
	est=$(estimate 1)
	echo "results: SMOKE=1: this run about $((est / 60)) min $((est % 60)) s" >&2
fi
[ "${ESTIMATE:-0}" = 1 ] && exit 0
mkdir -p "$OUT"
: >"$OUT/steps.tsv"
echo "results: writing $OUT" >&2
began=$(date -u +%FT%TZ)
t00=$(date +%s)
for s in $STEPS; do
	case $s in
	*-off) plan "${s%-off}" off ;;
	curve) curve ;;
	slo) slo ;;
	compare) compare ;;
	readme) ;;
	*) plan "$s" on ;;
	esac
done
if [ -n "$sbpid" ]; then
	kill -INT "$sbpid" 2>/dev/null || true
	wait "$sbpid" 2>/dev/null || true
	sbpid=""
fi
ended=$(date -u +%FT%TZ)
elapsed=$(($(date +%s) - t00))

# jsonfield FILE FILTER: a field of a result, or "".
jsonfield() { [ -f "$1" ] && command -v jq >/dev/null && jq -r "$2 // empty" "$1" 2>/dev/null || true; }
anyjson=$(ls "$OUT"/*/*.json 2>/dev/null | head -1)
pgv=$(jsonfield "$anyjson" '.environment.postgres.version')
redisv=$(jsonfield "$anyjson" '.environment.redis.version')
[ -n "$pgv" ] || pgv=$(sed -n 's/^PostgreSQL \([^ ]*\) .*/\1/p' "$work/sandbox.desc" 2>/dev/null | head -1)
[ -n "$redisv" ] || redisv=$(sed -n 's/^Redis \([^ ]*\) .*/\1/p' "$work/sandbox.desc" 2>/dev/null | head -1)
gov=$(go env GOVERSION)
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
mem=$(awk '/^MemTotal/ { printf "%.0f GB", $2 / 1048576 }' /proc/meminfo)

# loggedratio FILE: "mix ratio" lines, the median req/s of sql-logged over
# sql-unlogged's in each mix of a matrix result.
loggedratio() {
	jq -r 'def median: sort | if length == 0 then null elif length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
		[.samples[] | select((.error // "") == "" and ((.interrupted // false) | not))] | group_by(.mix)[]
		| ([.[] | select(.path == "sql-logged") | .req_s] | median) as $l
		| ([.[] | select(.path == "sql-unlogged") | .req_s] | median) as $u
		| "\(.[0].mix) \(if $l and $u then $l / $u else "-" end)"' "$1" 2>/dev/null
}

# loggedtable: the logged/UNLOGGED table of the unlogged and sessions plans,
# durability on and off, when their results and jq are there.
loggedtable() {
	command -v jq >/dev/null || return 0
	rows=""
	for p in unlogged sessions; do
		for d in on off; do
			f="$OUT/$p/$p.json"
			[ "$d" = off ] && f="$OUT/$p-off/$p-off.json"
			[ -f "$f" ] || continue
			rows="$rows$(loggedratio "$f" | awk -v p="$p" -v d="$d" '{ r = ($2 == "-") ? "-" : sprintf("%.2f×", $2); print p, d, $1, r }')
"
		done
	done
	[ -n "$(echo "$rows" | tr -d '\n')" ] || return 0
	echo "**Logged / UNLOGGED** (median req/s of \`sql-logged\` over \`sql-unlogged\`'s, each plan's mixes; below 1 the logged table is slower):"
	echo
	echo "| plan | durability | get | set | mixed |"
	echo "|---|---|---:|---:|---:|"
	echo "$rows" | awk 'NF == 4 { k = $1 " " $2; if (!(k in seen)) { seen[k] = 1; order[++n] = k } v[k, $3] = $4 }
		END { for (i = 1; i <= n; i++) { split(order[i], a, " "); g = v[order[i], "get"]; s = v[order[i], "set"]; m = v[order[i], "mixed"]
			printf "| %s | %s | %s | %s | %s |\n", a[1], a[2], g == "" ? "-" : g, s == "" ? "-" : s, m == "" ? "-" : m } }'
	echo
}

{
	echo "# Results of bench/results.sh, $(date -u +%F)"
	echo
	[ "$SMOKE" = 1 ] && echo "> **SMOKE=1**: one tiny sample per cell, 4 connections, to check the script. Not results." && echo
	echo "Generated by \`bench/results.sh\` at gbench $commit, from $began to $ended ($((elapsed / 60)) min $((elapsed % 60)) s)."
	echo
	echo "- Machine: $cpu, $ncpu cores, $mem RAM; $(uname -sr) $(uname -m); $gov. Client and servers share the cores."
	echo "- PostgreSQL ${pgv:-(see the JSONs)}, Redis ${redisv:-(see the JSONs)}: throwaway sandboxes (\`gbench sandbox\`, \`gbench matrix\`), over TCP on 127.0.0.1."
	echo "- Durability: each step's column. \`on\` is the sandbox's default (fsync, synchronous_commit and full_page_writes on, as the reference); \`off\` is \`--durability off\`."
	echo "- Quiet machine: before each step the machine's busy CPU over ${QUIET_WINDOW} s (other processes', as the script ran nothing) had to be at most ${QUIET_OTHER}% of all cores, and before the first step the load average at most $QUIET_LOAD; \"other CPU during\" is the machine's busy CPU minus the step's own (gbench and its servers). A step above ${QUIET_OTHER}% during it is marked noisy."
	echo "- Side by side with the reference: [comparison.md](comparison.md) (\`bench/refcompare\`)."
	echo
	echo "| step | durability | command | exit | time | quiet | other CPU before / during | load before | report |"
	echo "|---|---|---|---:|---:|---|---:|---:|---|"
	while IFS="$(printf '\t')" read -r name rc secs start q qo ql qd cmd; do
		d=on
		case $name in *-off) d=off ;; esac
		dir=$name
		[ "$name" = slo ] && dir=slo-5ms
		shown=$(echo "$cmd" | sed "s|$gb|gbench|g; s|$OUT/||g; s|host=[^ ]* port=[0-9]*.*$|SANDBOX|; s|p99<=5ms|'p99<=5ms'|")
		rep="[$dir/](${dir}/report.md)"
		[ -f "$OUT/$dir/report.md" ] || rep="[$dir/]($dir/)"
		printf '| %s | %s | `%s` | %s | %d min %02d s | %s | %s%% / %s%% | %s | %s |\n' "$name" "$d" "$shown" "$rc" $((secs / 60)) $((secs % 60)) "$q" "$qo" "$qd" "$ql" "$rep"
	done <"$OUT/steps.tsv"
	echo
	loggedtable
	if [ -s "$work/sandbox.desc" ]; then
		echo "The curve and the SLO search ran on one sandbox, pgbench's tables at scale $scale (\`gbench -i -s $scale\`):"
		echo
		sed 's/^/    /; s/at "[^"]*"/at SANDBOX/' "$work/sandbox.desc"
		echo
	fi
	echo "Each directory holds the JSON result, the command's output (\`.txt\`), its progress lines (\`.log\`) and what \`gbench report\` wrote (report.md, its charts, and report.html for the curve and the SLO search). \`steps.tsv\` is the table above as the script recorded it."
} >"$OUT/README.md"
echo "results: wrote $OUT/README.md in $((elapsed / 60)) min $((elapsed % 60)) s" >&2
