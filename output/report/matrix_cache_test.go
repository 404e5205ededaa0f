package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gbench/gbench/result/schema"
)

// withRESP gives the samples of r's resp-mget path the \resp counters an
// MGET of their keys counts: every key a hit but one miss in the first
// sample, 15 bytes of request plus 21 per key, 4 of reply plus 136 per
// key. In a mix its writes (SQL) count none, so a request of the "5%
// updates" mix has 95% of the reads' figures.
func withRESP(r *schema.Result) {
	first := true
	for i := range r.Samples {
		s := &r.Samples[i]
		if s.Path != "resp-mget" {
			continue
		}
		n, reads := s.Requests+s.Failures, s.Requests
		if s.Mix == "5% updates" {
			reads = reads * 95 / 100
		}
		k := int64(max(s.Keys, 1))
		c := &schema.RESPCounters{Hits: k * reads, BytesSent: (15 + 21*k) * reads, BytesReceived: (4 + 136*k) * reads}
		if first {
			c.Hits, c.Misses, first = c.Hits-1, 1, false
		}
		c.HitsPerReq = float64(c.Hits) / float64(n)
		c.BytesSentPerReq, c.BytesReceivedPerReq = float64(c.BytesSent)/float64(n), float64(c.BytesReceived)/float64(n)
		s.RESP = c
	}
}

// TestMatrixRESPCountersGolden reports the read matrix and the mixed plan
// with \resp counters on the RESP path: the cost table has their columns,
// the SQL paths "—" with the reason below the table.
func TestMatrixRESPCountersGolden(t *testing.T) {
	for _, c := range []struct {
		input, golden string
		has           []string
	}{
		{"input.json", "resp-report.md", []string{
			"| keys | path | server CPU µs/req | client CPU µs/req | server memory | RESP hits/req | RESP miss ratio | RESP bytes/req sent | RESP bytes/req received |",
			"| 64 | resp-mget | ", " | 64.0 | 0% | 1359 | 8708 |",
			"| 1 | sql-any | 62.1 | 20.0 | 188.0 MiB (pss) | — | — | — | — |",
			"RESP counters — for sql-any, sql-mget: no sample recorded any"}},
		{"mixed-input.json", "resp-mixed.md", []string{
			"| 5% updates | 16 | resp-mget | redis | ",
			" | 15.2 | 0.00110% | 333 | 2071 |",
			"RESP counters — for sql-any, sql-mget: no sample recorded any"}},
	} {
		r := readInput(t, c.input)
		withRESP(r)
		var b bytes.Buffer
		if err := Matrix(&b, r); err != nil {
			t.Fatal(err)
		}
		checkGolden(t, "matrix/"+c.golden, b.Bytes())
		for _, want := range c.has {
			if !strings.Contains(b.String(), want) {
				t.Errorf("%s: no %q", c.golden, want)
			}
		}
	}
}

// TestMatrixRESPCountersNeeded: without counters in any sample (a result
// before them) the cost table has no RESP columns at all.
func TestMatrixRESPCountersNeeded(t *testing.T) {
	var b bytes.Buffer
	if err := Matrix(&b, readMatrixInput(t)); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "RESP hits/req") || strings.Contains(b.String(), "RESP counters") {
		t.Errorf("RESP columns without counters:\n%s", b.String())
	}
}

// TestMatrixRESPCountersValidated: a result whose counters are not counts
// is refused, naming the field.
func TestMatrixRESPCountersValidated(t *testing.T) {
	for _, c := range []struct {
		edit func(c *schema.RESPCounters)
		want string
	}{
		{func(c *schema.RESPCounters) { c.Hits = -1 }, ".resp.hits is -1, not a number from 0"},
		{func(c *schema.RESPCounters) { c.BytesReceived = -5 }, ".resp.bytes_received is -5, not a number from 0"},
		{func(c *schema.RESPCounters) { c.BytesSentPerReq = -0.5 }, ".resp.bytes_sent_per_req is -0.5, not a number from 0"},
		{func(c *schema.RESPCounters) {}, ""}, // sound counters pass
	} {
		r := readMatrixInput(t)
		withRESP(r)
		i := len(r.Samples) - 1
		for r.Samples[i].RESP == nil {
			i--
		}
		c.edit(r.Samples[i].RESP)
		doc, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		_, err = schema.Read(bytes.NewReader(doc))
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}
