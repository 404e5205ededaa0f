package report

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/gbench/gbench/result/schema"
)

// cpuInput is the matrix input with CPU series: each sample of 1 key
// per request has one for its server, read every 0.5 s for 5 s and at
// the end, 5.25 s, at a steady load of `cores` (by path, connections and
// repeat), the first interval at half of it, the one ending at 5 s at
// one and a half; one of them lost its read at 2.5 s. The other samples' servers say why they have none, and one
// sql-mget sample of 256 connections also measured a Redis.
func cpuInput(t *testing.T) *schema.Result {
	r := readMatrixInput(t)
	base := map[string]float64{"sql-any": 0.5, "sql-mget": 1, "resp-mget": 0.25}
	for i := range r.Samples {
		s := &r.Samples[i]
		if s.Keys != 1 {
			s.Server.CPUSeriesNote = "CPU not measured: the server at db:5432 is not on this machine"
			continue
		}
		cores := base[s.Path] * float64(s.Connections) / 128 * (1 + float64(s.Repeat-1)/4)
		c := seriesAt(cores, s.Path == "sql-any" && s.Connections == 4 && s.Repeat == 2)
		s.Server.CPUSeries = c
		if s.Path == "sql-mget" && s.Connections == 256 && s.Repeat == 1 {
			s.OtherServers = append(s.OtherServers, schema.Server{Name: "redis", CPUSeries: seriesAt(0.125, false)})
		}
	}
	return r
}

// seriesAt is a series at cores, with a failed read at 2.5 s when lost.
func seriesAt(cores float64, lost bool) *schema.CPUSeries {
	c := &schema.CPUSeries{IntervalS: 0.5, Source: "cgroup", Reads: []schema.CPURead{{}}}
	cpu := 0.0
	for i, at := range []float64{0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.25} {
		if lost && at == 2.5 {
			c.Note = "a read failed at 2.500 s and is left out (later failures too): open cpu.stat: no such file or directory"
			continue
		}
		k := cores
		switch {
		case i == 0:
			k = cores / 2
		case at == 5:
			k = cores * 1.5 // a busier interval
		}
		cpu += k * (at - c.Reads[len(c.Reads)-1].AtS)
		c.Reads = append(c.Reads, schema.CPURead{AtS: at, CPUS: math.Round(cpu*1e6) / 1e6})
	}
	return c
}

// TestMatrixServerCPUGolden reports the CPU series: the table of median
// and peak cores per cell and server, a chart per row that has series,
// and the reasons of the servers that have none.
func TestMatrixServerCPUGolden(t *testing.T) {
	r := cpuInput(t)
	// The series pass the reader's checks.
	doc, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Read(bytes.NewReader(doc)); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Matrix(&b, r); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "matrix/cpu.md", b.Bytes())
	out := b.String()
	for _, want := range []string{
		"## Server CPU over time",
		"| keys | connections | path | server | median cores | peak cores | n |",
		// 1 core at 128 connections, 2 at 256, 2.5 in the second repeat:
		// the median of the two repeats.
		"| 1 | 256 | sql-mget | postgres | 2.25 | 3.38 | 2 |",
		"| 1 | 256 | sql-mget | redis | 0.125 | 0.188 | 1 |",
		// The lost read: the interval from 2 s to 3 s at the same load.
		"| 1 | 4 | sql-any | postgres | 0.0176 | 0.0264 | 2 |",
		"- not read: CPU not measured: the server at db:5432 is not on this machine",
		"- not read: a read failed at 2.500 s",
		"![Server CPU over time, 1 key, 4 conns](server-cpu-1.svg)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the report has no %q", want)
		}
	}
	var names []string
	for _, ch := range MatrixCharts(r) {
		if !strings.HasPrefix(ch.Name, "server-cpu-") {
			continue
		}
		names = append(names, ch.Name)
		var svg bytes.Buffer
		if err := ch.WriteSVG(&svg); err != nil {
			t.Fatal(err)
		}
		checkWellFormed(t, ch.Name, svg.Bytes())
		checkGolden(t, "matrix/cpu-"+ch.Name, svg.Bytes())
		if !strings.Contains(out, "]("+ch.Name+")") {
			t.Errorf("the report does not link %s", ch.Name)
		}
	}
	// Rows 3 and 4 (64 keys) have no series.
	if got := strings.Join(names, " "); got != "server-cpu-1.svg server-cpu-2.svg" {
		t.Errorf("CPU charts %s", got)
	}
}

// TestMatrixServerCPUAbsent checks that a result without CPU series (of
// an earlier version) has neither the section nor its charts.
func TestMatrixServerCPUAbsent(t *testing.T) {
	r := readMatrixInput(t)
	var b bytes.Buffer
	if err := Matrix(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Server CPU over time") {
		t.Error("a result without series has the section")
	}
	for _, ch := range MatrixCharts(r) {
		if strings.HasPrefix(ch.Name, "server-cpu-") {
			t.Errorf("chart %s", ch.Name)
		}
	}
}

// TestCPUSeriesRefused checks that the reader refuses a CPU series that
// cannot be right, naming the field.
func TestCPUSeriesRefused(t *testing.T) {
	for _, tc := range []struct {
		edit func(c *schema.CPUSeries)
		want string
	}{
		// A read before the one before it.
		{func(c *schema.CPUSeries) { c.Reads[2].AtS = 0.25 }, ".server.cpu_series.reads[2].at_s is 0.25, not after the read before"},
		// No period.
		{func(c *schema.CPUSeries) { c.IntervalS = 0 }, ".server.cpu_series.interval_s is 0, not positive"},
		// A negative time.
		{func(c *schema.CPUSeries) { c.Reads[1].AtS = -1 }, ".server.cpu_series.reads[1].at_s is -1, not a number from 0"},
	} {
		r := cpuInput(t)
		for i := range r.Samples {
			if c := r.Samples[i].Server.CPUSeries; c != nil {
				tc.edit(c)
				break
			}
		}
		doc, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := schema.Read(bytes.NewReader(doc)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}
