package main

import (
	"fmt"
	"net"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/output/metrics"
)

// metricsLinger bounds how long gbench waits after a run for a Prometheus
// that scrapes it to read the final figures.
const metricsLinger = 30 * time.Second

// newMetrics creates the exporter of --metrics-addr; clients is this
// process's number of clients.
func (b *benchSetup) newMetrics(o *options, clients int) error {
	if o.metricsAddr == "" {
		return nil
	}
	if _, _, err := net.SplitHostPort(o.metricsAddr); err != nil {
		return usagef("invalid value \"%s\" for option --metrics-addr: expected HOST:PORT, like :9090 or 127.0.0.1:9090", o.metricsAddr)
	}
	cfg := b.cfg
	threads := min(max(cfg.Threads, 1), cfg.Clients)
	from, to := cfg.Shard.Threads(threads)
	run := metrics.Run{
		Worker: cfg.Shard.Index, Workers: max(cfg.Shard.Count, 1), Version: version, Config: cfg,
		Clients: clients, Threads: to - from, Rate: cfg.Rate * float64(to-from) / float64(threads),
	}
	if b.fleet != nil {
		run.RunID = b.fleet.runID
	}
	b.metrics = metrics.New(run)
	return nil
}

// serveMetrics starts serving the exporter, before the connections open.
func (b *benchSetup) serveMetrics(env *Env, o *options) (*metrics.Server, error) {
	if b.metrics == nil {
		return nil, nil
	}
	srv, err := metrics.Serve(o.metricsAddr, b.metrics)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(env.Stderr, "gbench: serving metrics at http://%s/metrics\n", srv.Addr())
	return srv, nil
}

// closeMetrics gives the exporter the run's final figures and stops the
// server, after a last scrape when something scrapes it.
func (b *benchSetup) closeMetrics(env *Env, srv *metrics.Server, res *engine.Result) {
	if srv == nil {
		return
	}
	if res != nil {
		b.metrics.Finish(res)
	}
	if b.metrics.WaitsForScrape() {
		fmt.Fprintf(env.Stderr, "gbench: waiting up to %v for the metrics' last scrape\n", metricsLinger)
	}
	if err := srv.Close(metricsLinger); err != nil {
		fmt.Fprintf(env.Stderr, "gbench: warning: stopping the metrics server: %v\n", err)
	}
}
