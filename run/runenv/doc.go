// Package runenv records what could explain a run's figures besides the
// workload: the client machine and gbench, the servers' versions and the
// settings that differ from their defaults, and what the servers did
// while a run was measured (WAL written, checkpoints, autovacuum, Redis
// forks). Every JSON result of gbench carries it.
//
// # Use
//
//	ctx := runenv.New(version, command)            // client machine and gbench
//	ctx.Postgres, _ = runenv.DescribePostgres(c, conn) // version, non-default settings
//	before, _ := runenv.ReadPostgres(c, conn)          // counters before the window
//	... measure ...
//	after, _ := runenv.ReadPostgres(c, conn)
//	act := after.Since(before)                       // what happened inside it
//	for _, w := range act.Warnings() { ... }
//
// The probes are a few catalogue queries (or INFO and CONFIG GET on
// Redis) on a connection of the caller's, run outside measured windows.
// A figure that cannot be read (a standby has no current WAL position,
// a managed Redis renames CONFIG) is absent and a note says why.
package runenv
