#!/bin/sh
# Reproducer of the matrix warm-up hang (issue 9): opens and warms CONNS
# connections RUNS times in a sandbox the way every matrix sample does,
# with the client process starved of CPU by a cgroup CPU quota (QUOTA
# percent of one core) while the servers run free — the condition under
# which pgconn could hand over a connection whose background reader was
# still reading. A lost warm-up reply fails with "i/o timeout" after 60 s.
#
#   bench/warmup-soak.sh                       # RUNS=30 CONNS=256 QUOTA=20
#   RUNS=100 QUOTA=10 bench/warmup-soak.sh
#
# Needs root for the cgroup (without it the client runs unthrottled).
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-30}
CONNS=${CONNS:-256}
QUOTA=${QUOTA:-20}

bin=$(mktemp "${TMPDIR:-/tmp}/gbench-soak.XXXXXX")
go test -c -o "$bin" ./run/matrix
cg=""
if [ -d /sys/fs/cgroup/cpu ] && [ -w /sys/fs/cgroup/cpu ]; then # cgroup v1 cpu controller
	cg=/sys/fs/cgroup/cpu/gbench-soak-$$
	mkdir "$cg"
	echo 100000 >"$cg/cpu.cfs_period_us"
	echo $((QUOTA * 1000)) >"$cg/cpu.cfs_quota_us"
elif [ -f /sys/fs/cgroup/cgroup.subtree_control ] && grep -qw cpu /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
	cg=/sys/fs/cgroup/gbench-soak-$$
	mkdir "$cg"
	echo "$((QUOTA * 1000)) 100000" >"$cg/cpu.max"
else
	echo "warmup-soak: no writable cgroup CPU controller: the client runs unthrottled" >&2
fi
cleanup() {
	rm -f "$bin"
	if [ -n "$cg" ]; then
		cat "$cg/cgroup.procs" 2>/dev/null | while read -r p; do echo "$p" >"$(dirname "$cg")/cgroup.procs"; done
		rmdir "$cg" 2>/dev/null || true
	fi
}
trap cleanup EXIT INT TERM
start=$(date +%s)
cd run/matrix
if GBENCH_WARM_SOAK=$RUNS GBENCH_WARM_SOAK_CONNS=$CONNS GBENCH_WARM_SOAK_CGROUP=$cg \
	"$bin" -test.run '^TestWarmupSoak$' -test.v -test.timeout 0 >"${TMPDIR:-/tmp}/gbench-soak.log" 2>&1; then
	result=PASS
else
	result=FAIL
fi
grep -E 'run [0-9]+|FAIL|timeout|---' "${TMPDIR:-/tmp}/gbench-soak.log" | tail -n 5
echo "warmup-soak: $result: $RUNS runs of $CONNS connections, client quota ${QUOTA}% of a core, $(( $(date +%s) - start )) s"
[ "$result" = PASS ]
