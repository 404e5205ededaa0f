// Package matrix runs benchmark plans: every path × mix × keys per
// request × connection count × rate of a plan, each cell measured several
// times in a shuffled order, and records what each sample cost the client
// and the servers. The default plan is the "PostgreSQL as a cache vs
// Redis" read matrix: the read paths of ReadPaths × 1, 16, 64 keys × 4,
// 64, 256 connections.
//
// # Plans
//
// A plan file is TOML (docs/matrix.md describes every field). ParsePlan
// decodes it strictly, refusing unknown keys with their line and column;
// Plan.Config validates it, once, into the Config a run reads, naming the
// field of every problem:
//
//	p, err := matrix.ParsePlan("my-plan.toml", data)
//	cfg, err := p.Config(matrix.PlanOptions{Name: "my-plan.toml", File: "my-plan.toml", Data: data, ReadFile: read})
//
// A path is gbench scripts (Path.Scripts): before each, the run sets the
// list :keys to the cell's keys; a mix (Config.Mixes) picks among a path's
// scripts by weight, as pgbench's -f file@weight. How the contract check
// reads a path's values back is its Contract (workloads.ReadBack), or
// none. A path may talk to PostgreSQL, to a RESP server or to both, the
// plan's (Config.PG, Config.RESP; either may be nil) or its own.
//
// # Use
//
//	res, err := matrix.Run(ctx, cfg) // cfg from Plan.Config, or a Config literal:
//	res, err := matrix.Run(ctx, &matrix.Config{
//		PG: pgConfig, RESP: &redisOptions, Load: true, // or leave Load out for loaded servers
//		Seed: seed, Progress: os.Stderr,
//		Save: func(r *schema.Result) error { return write(r) }, // after every sample
//	})
//	if err != nil && len(res.Samples) == 0 {
//		return err // could not start: no server, a failed load, contract or warm-up
//	}
//	// res.FailedSamples, res.Partial and res.Interrupted say how it ended
//
// Zero fields of Config take the reference matrix: the three paths, 1, 16
// and 64 keys, 4, 64 and 256 connections, 3 repeats of 5 s, 2 threads.
//
// # What a run does
//
//  1. Load (when asked) puts the dataset into the plan's servers
//     (workloads.LoadLog: it refuses to load over objects gbench did not
//     create and logs what it replaces).
//  2. The contract check (workloads.Check) makes sure that every path that
//     reads values back returns the dataset's values in request order; when
//     it fails nothing is measured and Run returns an error wrapping
//     ErrContract.
//  3. The servers' versions and key settings are recorded, and the
//     postmaster found in /proc when the server is local.
//  4. Warm-up: one read of every page of gbench.items, then each path for
//     Config.Warmup (1 s) at the largest connection count with the most keys,
//     which warms the server's buffers and gbench itself. Every sample opens
//     its own connections; each runs its path's statements once while it is
//     opened (see warmconn.go), so that no backend's first, expensive
//     statement falls inside a sample's clock.
//  5. The samples, in an order shuffled with Config.Seed (the same plan and
//     seed give the same order), each the path's reset (when it has one)
//     then an in-process engine.Run of the path's scripts with -c
//     connections, -j threads, -T duration or a request count shared by
//     the connections, and --rate.
//
// # What a sample records
//
// Throughput, latency percentiles from the engine's HDR histogram, and
// gbench's CPU time per request (less the probes' own time, measured on
// their own OS thread). On each server the path talks to, it records the
// CPU time per request over the sample's steady part (between its first
// and its last progress tick, every connection open), its CPU time over
// the whole sample every 500 ms from the same source (a series), the
// memory in the middle of the sample, and counters over the whole sample:
//
//   - PostgreSQL: utime+stime of the postmaster and all its children from
//     /proc (live children, and reaped ones through the postmaster's cutime
//     and cstime), the sum of their PSS (RSS when smaps_rollup is not
//     readable), pg_stat_database's deltas for the run's database. Only
//     when the server runs on this machine; on a shared server the figures
//     include the other clients' work.
//   - Redis: INFO cpu (used_cpu_user + used_cpu_sys), INFO memory
//     (used_memory), INFO stats (keyspace hits and misses, commands).
//
// A failed sample (clients aborted, requests failed, nothing completed) is
// recorded with its Error and the run goes on; its figures are not used by
// Cells. Result.Write and Read give the JSON form, documented in
// docs/matrix.md.
package matrix
