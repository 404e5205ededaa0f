#!/bin/sh
# Runs gbench's whole test suite against real PostgreSQL and Redis servers,
# starting the machine's services first when they are down.
set -eu
cd "$(dirname "$0")/.."

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

# The series reports are checked in a real headless browser (Debian's chromium).
if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq chromium >/dev/null
fi

export GBENCH_REQUIRE_SERVICES=1
go vet ./...
go test -count=1 -timeout 14m ./...

# Every fuzz target briefly, on top of its seed corpus (go test above already
# ran each seed once): a regression of a known input fails here too.
FUZZTIME=${FUZZ_CI_TIME:-2s} PARALLEL=${FUZZ_PARALLEL:-1} bench/fuzz.sh
