package report

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gbench/gbench/result/schema"
)

// readMatrixInput reads the hand-made result the golden files come from:
// three paths, 1 and 64 keys, 4 and 256 connections, 2 repeats.
func readMatrixInput(t *testing.T) *schema.Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "matrix", "input.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := schema.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMatrixMarkdownGolden(t *testing.T) {
	var b bytes.Buffer
	if err := Matrix(&b, readMatrixInput(t)); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "matrix/report.md", b.Bytes())
}

func TestMatrixChartsGolden(t *testing.T) {
	r := readMatrixInput(t)
	charts := MatrixCharts(r)
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
		var b bytes.Buffer
		if err := c.WriteSVG(&b); err != nil {
			t.Fatal(err)
		}
		checkWellFormed(t, c.Name, b.Bytes())
		for _, p := range r.Plan.Paths {
			if !bytes.Contains(b.Bytes(), []byte(">"+p.Name+"<")) {
				t.Errorf("%s does not name path %s", c.Name, p.Name)
			}
		}
		checkGolden(t, "matrix/"+c.Name, b.Bytes())
	}
	want := "reqs-keys1.svg reqs-keys64.svg latency-keys1.svg latency-keys64.svg"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("charts %s, want %s", got, want)
	}
	var md bytes.Buffer
	if err := Matrix(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if !strings.Contains(md.String(), "]("+n+")") {
			t.Errorf("the report does not link %s", n)
		}
	}
}

// TestMatrixPartialGolden reports a result with a failed and an
// interrupted sample: their cells say how many samples they hold, and the
// report lists them.
func TestMatrixPartialGolden(t *testing.T) {
	r := readMatrixInput(t)
	r.Samples[0].Error = "3 clients aborted: client 1 aborted in command 1 (SQL) of script 0"
	r.FailedSamples = 1
	r.Samples[len(r.Samples)-1].Interrupted = true
	r.Partial, r.Interrupted = true, true
	var b bytes.Buffer
	if err := Matrix(&b, r); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "matrix/partial.md", b.Bytes())
	for _, want := range []string{"**Partial result.** 2 of the 24 planned samples", " n=1", "Failed sample: ", "Interrupted sample"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in the partial report", want)
		}
	}
}

// TestMatrixEmptyCells draws a result without a single valid sample: no
// line, no bar, no division by zero.
func TestMatrixEmptyCells(t *testing.T) {
	r := readMatrixInput(t)
	r.Samples = nil
	var b bytes.Buffer
	if err := Matrix(&b, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "NaN") || strings.Contains(b.String(), "Inf") {
		t.Errorf("NaN or Inf in the report:\n%s", b.String())
	}
	for _, c := range MatrixCharts(r) {
		var svg bytes.Buffer
		if err := c.WriteSVG(&svg); err != nil {
			t.Fatal(err)
		}
		checkWellFormed(t, c.Name, svg.Bytes())
		if s := svg.String(); strings.Contains(s, "NaN") || strings.Contains(s, "<polyline") || strings.Contains(s, "<circle") {
			t.Errorf("%s draws data it does not have", c.Name)
		}
	}
}

// checkWellFormed parses doc as XML and checks its root is an svg element.
func checkWellFormed(t *testing.T, name string, doc []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(doc))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("%s is not well-formed XML: %v", name, err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Space + " " + se.Name.Local
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("%s: root element %q, want svg in the SVG namespace", name, root)
	}
}

// brokenWriter fails every write.
type brokenWriter struct{}

func (brokenWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestMatrixWriteErrors(t *testing.T) {
	r := readMatrixInput(t)
	if err := Matrix(brokenWriter{}, r); err == nil || err.Error() != "disk full" {
		t.Errorf("Matrix: %v", err)
	}
	for _, c := range MatrixCharts(r) {
		if err := c.WriteSVG(brokenWriter{}); err == nil {
			t.Errorf("%s: no error", c.Name)
		}
	}
}

func TestNumberFormats(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{
		{thousands(253790), "253,790"},
		{thousands(999.6), "1,000"},
		{thousands(12), "12"},
		{thousands(-1234567), "-1,234,567"},
		{sig3(0.01234), "0.0123"},
		{sig3(0.5), "0.500"},
		{sig3(1.234), "1.23"},
		{sig3(12.34), "12.3"},
		{sig3(1234.5), "1234"},
		{sig3(0), "0"},
		{shellJoin([]string{"gbench", "--pg", "host=x dbname=y", "it's"}), `gbench --pg 'host=x dbname=y' 'it'\''s'`},
		{count(1, "repeat"), "1 repeat"},
		{count(3, "repeat"), "3 repeats"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// readInput reads a result of testdata/matrix.
func readInput(t *testing.T, name string) *schema.Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "matrix", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := schema.Read(f)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMatrixPlanGoldens reports results of the mixed and coldfill plans
// (shortened runs, two repeats): the grid of mix × keys rows and path
// columns, and the cold fill's series, with their charts.
func TestMatrixPlanGoldens(t *testing.T) {
	for _, c := range []struct {
		input, golden string
		charts        string
		has           []string
	}{
		{"mixed-input.json", "mixed.md", "reqs.svg latency-p99.svg",
			[]string{"| mix | keys | sql-any | sql-mget | resp-mget |", "|---|---:|---:|---:|---:|", "| 5% updates | 16 | "}},
		{"coldfill-input.json", "coldfill.md", "reqs.svg latency-p99.svg reqs-over-time.svg hits-over-time.svg",
			[]string{"## Over time", "| end s | sql-unlogged req/s | hit rate | cached |"}},
	} {
		r := readInput(t, c.input)
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
		var names []string
		for _, ch := range MatrixCharts(r) {
			names = append(names, ch.Name)
			var svg bytes.Buffer
			if err := ch.WriteSVG(&svg); err != nil {
				t.Fatal(err)
			}
			checkWellFormed(t, ch.Name, svg.Bytes())
			checkGolden(t, "matrix/"+strings.TrimSuffix(c.golden, ".md")+"-"+ch.Name, svg.Bytes())
			if !strings.Contains(b.String(), "]("+ch.Name+")") {
				t.Errorf("%s does not link %s", c.golden, ch.Name)
			}
		}
		if got := strings.Join(names, " "); got != c.charts {
			t.Errorf("%s: charts %s, want %s", c.input, got, c.charts)
		}
	}
}

// TestMatrixCompareGolden compares two results of the mixed plan, the
// second with sql-mget 30% faster and a larger shared_buffers.
func TestMatrixCompareGolden(t *testing.T) {
	before, after := readInput(t, "mixed-input.json"), readInput(t, "mixed-after.json")
	if err := schema.SamePlan(&before.Plan, &after.Plan); err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := MatrixCompare(&b, before, after, "before.json", "after.json"); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "matrix/compare.md", b.Bytes())
	for _, want := range []string{"| warm reads | 1 | sql-mget | ", "1.30× | apart |", "1.00× | overlap |", "- PostgreSQL shared_buffers: 128MB → 1GB"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("no %q in the comparison:\n%s", want, b.String())
		}
	}
}

// TestSamePlanNamesTheField checks that results of different plans or
// data are refused with the field that differs.
func TestSamePlanNamesTheField(t *testing.T) {
	base := readInput(t, "mixed-input.json")
	for _, c := range []struct {
		edit func(p *schema.Plan)
		want string
	}{
		{func(p *schema.Plan) { p.Keys = []int{1} }, "plan.keys: [1 16] against [1]"},
		{func(p *schema.Plan) { p.Items = 8192 }, "plan.items: 4096 against 8192"},
		{func(p *schema.Plan) { p.Requests = 50000 }, "plan.requests: 3000 against 50000"},
		{func(p *schema.Plan) { p.Paths[1].Scripts[0].Text = "SELECT 1;" }, `plan.paths[1].scripts[0].text: the script "read" differs`},
		{func(p *schema.Plan) { p.Mixes[1].Weights[1].Weight = 10 }, "plan.mixes[1]: "},
		{func(p *schema.Plan) { p.Seed, p.Retries, p.Loaded, p.Title = 1, 5, false, "x" }, ""}, // what may differ
	} {
		other := readInput(t, "mixed-input.json")
		c.edit(&other.Plan)
		err := schema.SamePlan(&base.Plan, &other.Plan)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("error %v, want %q", err, c.want)
		}
	}
}

// TestMatrixReadsVersion1 reads a result of gbench-matrix/1, as earlier
// versions wrote it, and refuses a version it does not know, naming it.
func TestMatrixReadsVersion1(t *testing.T) {
	r := readMatrixInput(t)
	if r.Schema != schema.VersionV1 || r.Plan.Planned() != 24 {
		t.Fatalf("schema %q, %d planned", r.Schema, r.Plan.Planned())
	}
	_, err := schema.Read(strings.NewReader(`{"schema": "gbench-matrix/3"}`))
	if err == nil || !strings.Contains(err.Error(), `schema is "gbench-matrix/3", expected "gbench-matrix/2" (or "gbench-matrix/1", of earlier versions)`) {
		t.Errorf("version 3: %v", err)
	}
}

// TestMatrixResources gives the samples of one cell a resource record and
// a wait profile, and the others nothing: the report has the section, the
// median of the sample peaks, the events merged over the repeats, and —
// with the reason where nothing was read.
func TestMatrixResources(t *testing.T) {
	r := readMatrixInput(t)
	var first *schema.Sample
	peaks := []int64{30 << 20, 10 << 20}
	n := 0
	for i := range r.Samples {
		s := &r.Samples[i]
		if s.Server == nil {
			continue
		}
		if first == nil {
			first = s
		}
		if s.ID() != first.ID() || n == len(peaks) {
			s.Server.ResourcesNote = "the server has no cgroup of gbench's"
			continue
		}
		s.Server.Resources = &schema.Resources{Cgroup: "memory v1, io v1, cpu v1",
			Memory:       &schema.CgroupMemory{IntervalS: 0.5, PeakBytes: peaks[n], Source: "memory.usage_in_bytes"},
			IO:           &schema.BlockIO{WriteBytes: 2048},
			Throttling:   &schema.Throttling{},
			MemoryEvents: map[string]int64{"failcnt": 1}}
		s.Server.WaitEvents = &schema.WaitEvents{Reads: 10, BackendReads: 40, Events: []schema.WaitEvent{
			{State: "active", Type: "LWLock", Event: "WALWrite", Count: 30}, {State: "idle", Type: "Client", Event: "ClientRead", Count: 10}}}
		n++
	}
	if n != len(peaks) {
		t.Fatalf("the input has %d samples in its first cell, want %d", n, len(peaks))
	}
	var b bytes.Buffer
	if err := Matrix(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"## Server resources and wait events", "| 20.0 MiB | 0 B / 2.0 KiB | 0 | LWLock:WALWrite 75%, Client:ClientRead (idle) 25% |",
		"- not read: the server has no cgroup of gbench's", "- memory events over all samples: failcnt 2", "| — | — | — | — |"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report has no %q", want)
		}
	}
}
