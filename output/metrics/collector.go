package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// The metrics' descriptions. Labels beyond run_id and worker (added by
// the registry): script is the script's name; command, line and kind
// name a command of it (kind: sql, resp, or the meta-command).
var (
	descTxn = prometheus.NewDesc("gbench_transactions_total",
		"Transactions by outcome: processed (successful), failed, skipped (--rate with --latency-limit).",
		[]string{"script", "outcome"}, nil)
	descFailures = prometheus.NewDesc("gbench_failures_total",
		"Failed transactions by kind: serialization, deadlock, other (\\resp error replies, SQL errors under --continue-on-error), connection (--reconnect).",
		[]string{"script", "kind"}, nil)
	descRetries = prometheus.NewDesc("gbench_retries_total",
		"Retries (--max-tries) in all transactions.", []string{"script"}, nil)
	descRetried = prometheus.NewDesc("gbench_retried_transactions_total",
		"Transactions retried at least once.", []string{"script"}, nil)
	descLate = prometheus.NewDesc("gbench_late_transactions_total",
		"Successful transactions over --latency-limit.", nil, nil)
	descLatency = prometheus.NewDesc("gbench_latency_seconds",
		"Latency of successful transactions, from their scheduled start under --rate.",
		[]string{"script"}, nil)
	descLag = prometheus.NewDesc("gbench_lag_seconds",
		"Schedule lag of successful transactions under --rate: actual minus scheduled start.",
		[]string{"script"}, nil)
	descLagMax = prometheus.NewDesc("gbench_lag_max_seconds",
		"Largest schedule lag so far under --rate.", []string{"script"}, nil)
	descCmdLatency = prometheus.NewDesc("gbench_command_latency_seconds",
		"Latency of each execution of a command (-r).",
		[]string{"script", "command", "line", "kind"}, nil)
	descCmdFailures = prometheus.NewDesc("gbench_command_failures_total",
		"Transactions that failed at a command (-r); class is the SQLSTATE or RESP error prefix, \"\" when unknown.",
		[]string{"script", "command", "line", "kind", "class"}, nil)
	descCmdRetries = prometheus.NewDesc("gbench_command_retries_total",
		"Retries caused by a command (-r).", []string{"script", "command", "line", "kind"}, nil)
	descClients = prometheus.NewDesc("gbench_clients", "Clients this process runs.", nil, nil)
	descThreads = prometheus.NewDesc("gbench_threads", "Threads this process runs.", nil, nil)
	descRate    = prometheus.NewDesc("gbench_rate_target_tps",
		"This process's share of --rate, in transactions per second; 0 without.", nil, nil)
	descWorkers = prometheus.NewDesc("gbench_workers", "Workers of the run.", nil, nil)
	descStart   = prometheus.NewDesc("gbench_start_time_seconds",
		"Start of the benchmark, Unix seconds on the run's timeline; 0 before it.", nil, nil)
	descEnd = prometheus.NewDesc("gbench_end_time_seconds",
		"End of the benchmark, Unix seconds on the run's timeline; 0 before it.", nil, nil)
	descInfo       = prometheus.NewDesc("gbench_info", "gbench's version, always 1.", []string{"version"}, nil)
	descReconnects = prometheus.NewDesc("gbench_reconnects_total",
		"Reconnection attempts after a lost connection (--reconnect), by result: ok or failed.", []string{"result"}, nil)
	descDown = prometheus.NewDesc("gbench_clients_down",
		"Clients without a connection at the last progress tick, waiting to reconnect (--reconnect).", nil, nil)
)

// collector is an Exporter seen as a prometheus.Collector.
type collector Exporter

func (c *collector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descTxn, descFailures, descRetries, descRetried, descLate, descLatency,
		descLag, descLagMax, descCmdLatency, descCmdFailures, descCmdRetries, descClients, descThreads,
		descRate, descWorkers, descStart, descEnd, descInfo, descReconnects, descDown} {
		ch <- d
	}
	for _, d := range cacheDescs {
		ch <- d
	}
}

// Collect reads the exporter's figures under its lock.
func (c *collector) Collect(ch chan<- prometheus.Metric) {
	e := (*Exporter)(c)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.scrapes++
	e.everScraped = true
	run := e.run
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	gauge(descClients, float64(run.Clients))
	gauge(descThreads, float64(run.Threads))
	gauge(descRate, run.Rate)
	gauge(descWorkers, float64(run.Workers))
	gauge(descInfo, 1, run.Version)
	gauge(descStart, unix(e.started))
	gauge(descEnd, unix(e.ended))
	counter(ch, descLate, float64(e.total.Total.Late))
	counter(ch, descReconnects, float64(e.total.Reconnects), "ok")
	counter(ch, descReconnects, float64(e.total.ReconnectFailures), "failed")
	gauge(descDown, float64(e.down))
	for i, s := range e.scripts {
		t := e.total.Scripts[i]
		if len(e.scripts) == 1 {
			t = e.total.Total
		}
		collectTxn(ch, s.Name, t, run.Rate > 0)
		if e.total.Commands != nil {
			collectCommands(ch, s, e.total.Commands[i])
		}
	}
	e.collectCache(ch)
}

func unix(t interface{ UnixNano() int64 }) float64 {
	if n := t.UnixNano(); n > 0 {
		return float64(n) / 1e9
	}
	return 0
}

func counter(ch chan<- prometheus.Metric, d *prometheus.Desc, v float64, labels ...string) {
	ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
}

// collectTxn emits one script's transaction metrics.
func collectTxn(ch chan<- prometheus.Metric, name string, t *stats.Txn, lag bool) {
	counter(ch, descTxn, float64(t.Cnt), name, "processed")
	counter(ch, descTxn, float64(t.Failures()), name, "failed")
	counter(ch, descTxn, float64(t.Skipped), name, "skipped")
	counter(ch, descFailures, float64(t.SerializationFailures), name, "serialization")
	counter(ch, descFailures, float64(t.DeadlockFailures), name, "deadlock")
	counter(ch, descFailures, float64(t.OtherFailures), name, "other")
	counter(ch, descFailures, float64(t.ConnectionFailures), name, "connection")
	counter(ch, descRetries, float64(t.Retries), name)
	counter(ch, descRetried, float64(t.Retried), name)
	ch <- histogram(descLatency, t.Hist, &t.Latency, name)
	if lag {
		ch <- prometheus.MustNewConstSummary(descLag, uint64(t.Lag.Count), t.Lag.Sum/1e6, nil, name)
		ch <- prometheus.MustNewConstMetric(descLagMax, prometheus.GaugeValue, t.Lag.Max/1e6, name)
	}
}

// collectCommands emits a script's per-command metrics.
func collectCommands(ch chan<- prometheus.Metric, s *script.Script, cmds []stats.Cmd) {
	for j, cmd := range s.Commands {
		cs := &cmds[j]
		labels := []string{s.Name, strconv.Itoa(j + 1), strconv.Itoa(cmd.Line), kind(cmd)}
		ch <- histogram(descCmdLatency, cs.Hist, &cs.Latency, labels...)
		counter(ch, descCmdRetries, float64(cs.Retries), labels...)
		known := int64(0)
		for class, n := range cs.Classes {
			counter(ch, descCmdFailures, float64(n), append(labels, class)...)
			known += n
		}
		if rest := cs.Failures - known; rest > 0 || len(cs.Classes) == 0 {
			counter(ch, descCmdFailures, float64(max(rest, 0)), append(labels, "")...)
		}
	}
}

// kind is a command's kind label: sql, resp, or the meta-command's name.
func kind(c *script.Command) string {
	switch c.Kind {
	case script.CmdSQL:
		return "sql"
	case script.CmdRESP:
		return "resp"
	}
	return c.Name
}

// histogram turns an HDR histogram of microseconds into a Prometheus
// histogram in seconds: each HDR bucket counts in the first Prometheus
// bucket that holds its highest equivalent value, so a bucket's count is
// exact for the bounds to HDR's precision (3 significant digits).
func histogram(d *prometheus.Desc, h *stats.Hist, s *stats.Simple, labels ...string) prometheus.Metric {
	counts := make(map[float64]uint64, len(Buckets))
	cum := make([]uint64, len(Buckets))
	if h.Count() > 0 {
		for _, bar := range h.Raw().Distribution() {
			if bar.Count == 0 {
				continue
			}
			sec := float64(bar.To) / 1e6
			for i, b := range Buckets {
				if sec <= b {
					cum[i] += uint64(bar.Count)
					break
				}
			}
		}
	}
	var run uint64
	for i, b := range Buckets {
		run += cum[i]
		counts[b] = run
	}
	return prometheus.MustNewConstHistogram(d, uint64(s.Count), s.Sum/1e6, counts, labels...)
}
