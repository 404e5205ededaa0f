// Package metrics serves a run's figures to Prometheus while it runs
// (gbench --metrics-addr), with the official Go client.
//
// It adds nothing to the clients' path: the engine's progress ticks hand
// each interval's statistics (engine.Progress) to Exporter.Update, which
// merges them into the exporter's own copy under a lock; a scrape reads
// that copy through a custom prometheus.Collector and turns the HDR
// histograms into Prometheus buckets. The figures are therefore as fresh
// as the last tick (-P, or every second), and exact at it: counters are
// the engine's counts, histogram buckets its HDR counts (to HDR's 3
// significant digits), sums its exact sums.
//
// Every metric carries the labels run_id and worker, so that the workers
// of a run over several machines (gbench --worker) add up in PromQL:
//
//	histogram_quantile(0.99, sum by (le) (rate(gbench_latency_seconds_bucket{run_id="r1"}[1m])))
//
// is the p99 latency of the whole fleet over the last minute.
package metrics
