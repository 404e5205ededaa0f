package report

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/gbench/gbench/run/series"
)

// FuzzSeriesReport feeds arbitrary files to series.Read and, when one is
// accepted, to every report of it, as "gbench report" does with the result
// of gbench curve, slo or ab: a file is refused with an error saying it is
// not a series result or naming what is wrong, never a panic; an accepted
// one gives its text, markdown, HTML page and charts without a panic, and
// reads back the same after being written. Seeds are a curve, an SLO
// search and an A/B series, written compactly, and in
// testdata/fuzz/FuzzSeriesReport.
func FuzzSeriesReport(f *testing.F) {
	for _, r := range []*series.Result{fakeCurve(), fakeSLO(), fakeAB()} {
		b, err := json.Marshal(r)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{`{"schema":"gbench-series/1","kind":"curve","curve":{}}`, `{"schema":"gbench-series/1","kind":"ab","ab":{"a":{},"b":{}}}`,
		`{"schema":"gbench-series/1","kind":"slo","slo":{"probes":[{}]}}`, `{"schema":1}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := series.Read(bytes.NewReader(data))
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "not a gbench series result: ") && !strings.HasPrefix(msg, "invalid gbench series result: ") {
				t.Fatalf("error %q", msg)
			}
			return
		}
		for _, write := range []func(io.Writer, *series.Result) error{SeriesText, SeriesMarkdown, SeriesHTML} {
			if err := write(io.Discard, r); err != nil {
				t.Fatalf("writing a report of an accepted result: %v", err)
			}
		}
		for _, c := range SeriesCharts(r) {
			if err := c.WriteSVG(io.Discard); err != nil {
				t.Fatalf("chart %s: %v", c.Name, err)
			}
		}
		var b bytes.Buffer
		if err := r.Write(&b); err != nil {
			t.Fatal(err)
		}
		back, err := series.Read(&b)
		if err != nil {
			t.Fatalf("an accepted result, written, reads as %v", err)
		}
		x, _ := json.Marshal(r)
		y, _ := json.Marshal(back)
		if !bytes.Equal(x, y) {
			t.Fatalf("written and read back, the result changes:\n%s\n%s", x, y)
		}
	})
}
