package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// TestNOPM checks the TPC-C-like line: new orders and all transactions per
// minute of a 10 s run, only when tpcc-new-order.sql runs beside others.
func TestNOPM(t *testing.T) {
	parse := func(name string) *script.Script {
		s, err := script.Parse(name, "SELECT 1;\n", 1)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		names []string
		want  string // the line, "" for none
	}{
		// 45 new orders and 55 others in 10 s: 270 and 600 a minute.
		{[]string{"workloads/tpcc-new-order.sql", "workloads/tpcc-payment.sql"},
			"TPC-C-like: NOPM = 270 (new-order transactions per minute), TPM = 600 (all transactions per minute); not a TPC-C result\n"},
		// a run without the new-order script
		{[]string{"a.sql", "b.sql"}, ""},
		// the new-order script alone is no mix
		{[]string{"tpcc-new-order.sql"}, ""},
	} {
		var parsed []*script.Script
		for _, n := range c.names {
			parsed = append(parsed, parse(n))
		}
		p, err := script.Compile(parsed, script.Prepared, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &engine.Config{Program: p, Clients: 1, Threads: 1, Transactions: 100, MaxTries: 1}
		r := newTextRun(t, cfg).add(0, 45, stats.OK, 500, 1)
		if len(c.names) > 1 {
			r.add(1, 55, stats.OK, 500, 1)
		}
		var b bytes.Buffer
		if err := Text(&b, r.summary(1)); err != nil {
			t.Fatal(err)
		}
		_, line, _ := strings.Cut(b.String(), "TPC-C-like:")
		if line != "" {
			line = "TPC-C-like:" + line
		}
		if line != c.want {
			t.Errorf("%q: got %q, want %q", c.names, line, c.want)
		}
		// The JSON result carries the same figures, and a merge of two
		// such runs adds them up.
		res, err := NewResult(r.summary(1), Versions{}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if (res.TPCC != nil) != (c.want != "") || res.TPCC != nil && (res.TPCC.NOPM != 270 || res.TPCC.TPM != 600) {
			t.Errorf("%q: JSON tpcc %+v", c.names, res.TPCC)
		}
		if res.TPCC != nil {
			m, err := Merge([]*Result{res, res})
			if err != nil {
				t.Fatal(err)
			}
			if m.TPCC.NOPM != 540 || m.TPCC.TPM != 1200 || res.TPCC.NOPM != 270 {
				t.Errorf("merged tpcc %+v (input %+v)", m.TPCC, res.TPCC)
			}
		}
	}
}
