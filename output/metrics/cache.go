package metrics

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// The \resp cache counters (docs/resp.md, "Cache counters").
var (
	descKeyspace = prometheus.NewDesc("gbench_resp_keyspace_total",
		"Keyspace reads of GET, GETEX, GETDEL and MGET elements by result: hit, or miss (a nil reply or element).",
		[]string{"result"}, nil)
	descFields = prometheus.NewDesc("gbench_resp_fields_total",
		"Hash fields HGET and HMGET read, by result: hit, or miss (a nil reply or element: a missing field or hash).",
		[]string{"result"}, nil)
	descBytes = prometheus.NewDesc("gbench_resp_bytes_total",
		"Bytes of \\resp requests (sent) and replies (received) on the wire.", []string{"direction"}, nil)
	descRedirects = prometheus.NewDesc("gbench_resp_redirects_total",
		"A Redis Cluster's redirections, by kind: moved (MOVED) or ask (ASK); each request is sent again to the node named.",
		[]string{"kind"}, nil)
	descCmdKeyspace = prometheus.NewDesc("gbench_command_resp_keyspace_total",
		"A \\resp command's keyspace reads by result (-r).", []string{"script", "command", "line", "kind", "result"}, nil)
	descCmdFields = prometheus.NewDesc("gbench_command_resp_fields_total",
		"A \\resp command's hash fields read by result (-r).", []string{"script", "command", "line", "kind", "result"}, nil)
	descCmdBytes = prometheus.NewDesc("gbench_command_resp_bytes_total",
		"A \\resp command's bytes by direction (-r).", []string{"script", "command", "line", "kind", "direction"}, nil)
)

var cacheDescs = []*prometheus.Desc{descKeyspace, descFields, descBytes, descRedirects, descCmdKeyspace, descCmdFields, descCmdBytes}

// collectCache emits the cache counters of a run with \resp commands.
func (e *Exporter) collectCache(ch chan<- prometheus.Metric) {
	if !e.run.Config.Program.HasRESP {
		return
	}
	emitCache(ch, &e.total.Cache, descKeyspace, descFields, descBytes)
	counter(ch, descRedirects, float64(e.total.Cache.Moved), "moved")
	counter(ch, descRedirects, float64(e.total.Cache.Asked), "ask")
	if e.total.Commands == nil {
		return
	}
	for i, s := range e.scripts {
		collectCommandCache(ch, s, e.total.Commands[i])
	}
}

func collectCommandCache(ch chan<- prometheus.Metric, s *script.Script, cmds []stats.Cmd) {
	for j, cmd := range s.Commands {
		if cmd.RESP == nil {
			continue
		}
		labels := []string{s.Name, strconv.Itoa(j + 1), strconv.Itoa(cmd.Line), kind(cmd)}
		emitCache(ch, &cmds[j].Cache, descCmdKeyspace, descCmdFields, descCmdBytes, labels...)
	}
}

func emitCache(ch chan<- prometheus.Metric, c *stats.Cache, keyspace, fields, bytes *prometheus.Desc, labels ...string) {
	with := func(l string) []string { return append(labels[:len(labels):len(labels)], l) }
	counter(ch, keyspace, float64(c.Hits), with("hit")...)
	counter(ch, keyspace, float64(c.Misses), with("miss")...)
	counter(ch, fields, float64(c.FieldHits), with("hit")...)
	counter(ch, fields, float64(c.FieldMisses), with("miss")...)
	counter(ch, bytes, float64(c.BytesSent), with("sent")...)
	counter(ch, bytes, float64(c.BytesRecv), with("received")...)
}
