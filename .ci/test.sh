#!/bin/sh
# Runs gbench's whole test suite against real PostgreSQL and Redis servers,
# starting the machine's services first when they are down.
set -eu
cd "$(dirname "$0")/.."
start=$(date +%s)
step() { echo "== $(( $(date +%s) - start ))s: $*"; }

# The unit tests that need no server, for linux/arm64 under user-mode
# emulation (Debian's qemu-user): the servers are pointed nowhere, so the
# tests that need one skip. Then every fuzz target briefly, on top of its
# seed corpus (go test already runs each seed once): a regression of a
# known input fails here too. A count, not a duration: Go 1.26's
# coordinator can fail a run at the end of a -fuzztime duration by a race
# of its own (go.dev/issue/75804).
side() {
	if ! command -v qemu-aarch64 >/dev/null 2>&1; then
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null
	fi
	GOARCH=arm64 CGO_ENABLED=0 GBENCH_REQUIRE_SERVICES= GBENCH_TEST_PG="host=127.0.0.1 port=1 connect_timeout=1" \
		GBENCH_TEST_REDIS="redis://127.0.0.1:1/0" \
		go test -exec qemu-aarch64 -short -count=1 -timeout 10m ./script/... ./engine/... ./result/... ./internal/cnum
	step "arm64 under qemu (beside the tests)"
	FUZZTIME=${FUZZ_CI_TIME:-3000x} PARALLEL=${FUZZ_PARALLEL:-1} bench/fuzz.sh
	step "fuzz (beside the tests)"
}
if [ "${1:-}" = side ]; then
	start=${GBENCH_CI_START:-$start}
	side
	exit
fi

pg_up() { pg_isready -q -h 127.0.0.1 -p 5432 2>/dev/null; }
redis_up() { redis-cli -h 127.0.0.1 -p 6379 ping >/dev/null 2>&1; }

if ! pg_up && command -v pg_ctlcluster >/dev/null 2>&1; then
	pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n1)" main start || true
fi
if ! redis_up && command -v redis-server >/dev/null 2>&1; then
	redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
		--dir /var/lib/redis --logfile /var/log/redis/ci.log || true
fi
for i in $(seq 1 30); do pg_up && redis_up && break; sleep 1; done
pg_up || { echo "PostgreSQL is not reachable at 127.0.0.1:5432" >&2; exit 1; }
redis_up || { echo "Redis is not reachable at 127.0.0.1:6379" >&2; exit 1; }

step services up
# The series reports are checked in a real headless browser (Debian's chromium).
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi

step chromium
# TestFleetNamespaces makes network namespaces with ip(8) (iproute2); the
# metrics test checks what --metrics-addr serves with promtool (Debian's
# prometheus).
if ! command -v ip >/dev/null 2>&1 || ! command -v promtool >/dev/null 2>&1; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq iproute2 prometheus >/dev/null
fi

step iproute2 prometheus
# The references the side-by-side tests compare with: pgbench 15 (Debian
# puts it in postgresql-15; /usr/bin/pgbench is the client's wrapper) and
# redis-benchmark and redis-cli (redis-tools). Installed when missing; still
# missing, CI stops here rather than let those tests fail one by one.
pgbench15() {
	p=${GBENCH_PGBENCH:-pgbench}
	command -v "$p" >/dev/null 2>&1 && "$p" --version 2>/dev/null | grep -q '(PostgreSQL) 15\.'
}
if ! pgbench15 || ! command -v redis-benchmark >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1 || ! command -v pg_isready >/dev/null 2>&1; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql-15 postgresql-client-15 redis-tools >/dev/null || true
fi
pgbench15 || { echo "pgbench 15 is missing (${GBENCH_PGBENCH:-pgbench on PATH}): apt-get install postgresql-15 postgresql-client-15" >&2; exit 1; }
for tool in redis-benchmark redis-cli pg_isready; do
	command -v "$tool" >/dev/null 2>&1 || { echo "$tool is missing: apt-get install redis-tools postgresql-client-15" >&2; exit 1; }
done

step pgbench 15 redis-benchmark redis-cli
# Formatting and static checks. staticcheck comes from the Go module proxy,
# at a fixed version.
unformatted=$(gofmt -l .)
[ -z "$unformatted" ] || { echo "gofmt would change:" >&2; echo "$unformatted" >&2; exit 1; }
go vet ./...
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

step gofmt vet staticcheck
# Every platform gbench promises vets, tests included (vet compiles every
# dependency for its export data, so a separate go build adds about 3 s of
# 65 per target and catches nothing more). One target per operating system
# and word size: linux/386 stands for 32-bit linux/arm too (the same
# alignment rules for 64-bit atomics), darwin/arm64 for darwin/amd64 (the
# same build tags); each extra target costs about a minute on a cold cache.
for target in linux/arm64 linux/386 darwin/arm64 freebsd/amd64 windows/amd64; do
	GOOS=${target%/*} GOARCH=${target#*/} go vet ./...
done

step cross-builds
# The arm64 tests under qemu and the fuzzing need no server and are CPU
# work only: they run beside the tests, in a process group of their own
# under SCHED_IDLE (chrt --idle), which takes only the CPU the tests leave
# idle (the tests mostly wait on their servers and -T runs), so the tests'
# timing is not theirs to disturb. Their output comes after the tests'.
# Run one after the other, the suite took 1,836 s here; CI allows 20 min.
side_log=$(mktemp "${TMPDIR:-/tmp}/gbench-ci-side.XXXXXX")
GBENCH_CI_START=$start setsid -w chrt --idle 0 sh "$0" side >"$side_log" 2>&1 &
side_pid=$!
trap 'kill -- -"$side_pid" 2>/dev/null || true' EXIT

# Every server and tool above is required: a test that misses one fails
# instead of skipping (internal/testsrv's Need).
export GBENCH_REQUIRE_SERVICES=1
[ "$GBENCH_REQUIRE_SERVICES" = 1 ] || { echo "GBENCH_REQUIRE_SERVICES must be 1 for the tests" >&2; exit 1; }
# The whole suite runs under the race detector (the engine's tests over
# both transports); the allocation tests, which the detector's own
# allocations would spoil, run again without it.
go test -race -count=1 -timeout 14m ./...
step tests under -race
go test -count=1 -run 'AllocatesNothing' ./engine

step allocs
# The Kubernetes manifests, rendered with kustomize and decoded strictly into
# the API types, in a module of their own (deploy/kubernetes/validate).
(cd deploy/kubernetes/validate && go vet ./... && go test -count=1 ./...)

step manifests
side_status=0
wait "$side_pid" || side_status=$?
trap - EXIT
echo "== the arm64 tests and the fuzzing, run beside the tests:"
cat "$side_log"
rm -f "$side_log"
[ "$side_status" = 0 ] || { echo "the arm64 tests or the fuzzing failed (exit $side_status)" >&2; exit 1; }
step done
