// Package engine runs a benchmark: Run(ctx, cfg) drives cfg.Clients
// clients over cfg.Threads event loops and returns a Result with pgbench's
// figures.
//
// A reader's map of the package:
//
//   - config.go, validate.go: Config, the immutable description of a run
//     that a caller (cmd, the matrix) builds and Config.Validate checks.
//     The engine never sees flags or raw strings.
//   - protocol.go: how connections open, through the driver.Connector of
//     each protocol the program speaks (pgsql.Connector, resp.Connector).
//     The engine imports no driver; it drives a driver.Driver.
//   - thread.go, conn.go, sconn.go: one event loop per thread, locked to
//     an OS thread where the transport wants it, waiting on a
//     netpoll.Poller; each client's connections as buffers over a
//     netpoll.Stream. The network stack itself (epoll, io_uring, portable)
//     is engine/internal/netpoll.
//   - client.go, exec.go, pipeline.go, receive.go, failure.go: the client
//     state machine: choose a script, encode its commands, decode replies,
//     retry serialization and deadlock failures (--max-tries), roll back,
//     run \startpipeline blocks, meta-commands.
//   - timers.go: the -T end, --rate's Poisson schedule from one origin per
//     thread (latency from the scheduled start, lag, --latency-limit skips)
//     and \sleep, on the thread's monotonic clock.
//   - reconnect.go, outage.go, watchdog.go: lost connections, reconnects
//     with backoff, the outages they make up, a server that goes silent.
//   - record.go, progress.go: per-thread stats.Block histograms, swapped
//     and merged off the hot path at each -P tick; -l logs.
//   - shard.go: a fleet worker's share of the threads and clients.
//
// The Config must not change while a run uses it; its callbacks (Log,
// Progress and the others) are called from the engine's goroutines as
// their docs say. The hot path allocates nothing in steady state
// (alloc_test.go).
package engine
