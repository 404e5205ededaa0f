// Package testsrv starts throwaway PostgreSQL and Redis servers for tests
// that need to break them: stop a primary, promote a replica, restart a
// server under its clients, fail a Redis master over through Sentinel.
// Tests that only need a server to talk to use the machine's own
// (GBENCH_TEST_PG, GBENCH_TEST_REDIS); run/sandbox starts the servers of
// a benchmark run.
//
//	pg := testsrv.StartPostgres(t, testsrv.PGOptions{})
//	standby := pg.Replica(t)
//	pg.Stop()
//	standby.Promote()
//
//	m := testsrv.StartRedis(t)
//	r := m.Replica(t)
//	s := testsrv.StartSentinel(t, m)
//
//	c := testsrv.StartCluster(t) // or StartClusterTLS: TLS only, client certificates
//
// Every server listens on 127.0.0.1, on a port that was free, with its
// files in a new directory under /tmp, and is stopped (PostgreSQL with an
// immediate shutdown, Redis killed) and its directory removed when the test
// ends. PostgreSQL runs through pg_ctl, as the postgres user when the test
// runs as root (PostgreSQL refuses root): a test binary killed outright
// leaves it running.
//
// The test environment is asked for through need.go: NeedPostgres and
// NeedRedis return the shared servers' connection strings, NeedPgbench15
// and NeedRedisBenchmark the reference tools, NeedCommand any other
// program. What is missing (a server, a tool, a binary for the
// throwaway servers) skips the test, or fails it when
// GBENCH_REQUIRE_SERVICES=1 (as .ci/test.sh sets): Need decides, for
// every test of the tree. Helpers fail the test (t.Fatal) on any other error, so
// call them from the test's goroutine.
package testsrv
