package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/gbench/gbench/result/schema"
)

// resultSeeds are valid results, written compactly so that the fuzzer
// works on small inputs: two runs of one script with -r and a -P interval,
// and one of two scripts without intervals.
func resultSeeds(t testing.TB) [][]byte {
	var out [][]byte
	for _, c := range []struct {
		seed      uint64
		intervals int
		scripts   []string
	}{{1, 1, []string{"SELECT 1;\n"}}, {2, 2, []string{"SELECT 1;\n"}}, {3, 0, nil}} {
		r, err := NewResult(fakeSummary(t, c.seed, c.scripts...), Versions{Gbench: "0.1.0", Server: "15"}, fakeIntervals(t, c.intervals, c.seed))
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// FuzzReadResult feeds arbitrary files to ReadResult, as "gbench merge"
// reads them: a file is refused with an error that says it is not a
// result or names what is wrong, never a panic; a file that is accepted
// writes back to a file that reads the same (and writes the same bytes),
// and merges with itself into counts twice its own. Seeds are in
// testdata/fuzz/FuzzReadResult.
func FuzzReadResult(f *testing.F) {
	for _, b := range resultSeeds(f) {
		f.Add(b)
	}
	for _, s := range []string{`{"schema":"gbench-result/1"}`, `{"schema":"gbench-result/1","runs":1,"latency":{"hdr":""}}`, "{\n\"schema\": 1", `[]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ReadResult(bytes.NewReader(data))
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "not a gbench result: ") && !strings.HasPrefix(msg, "invalid gbench result: ") {
				t.Fatalf("error %q", msg)
			}
			return
		}
		written := writeResult(t, r)
		back, err := ReadResult(bytes.NewReader(written))
		if err != nil {
			t.Fatalf("a result read back after writing fails: %v", err)
		}
		if !reflect.DeepEqual(back, r) && !bytes.Equal(writeResult(t, back), written) {
			t.Fatalf("a result reads back differently:\n%s", written)
		}
		m, err := Merge([]*Result{r, back})
		if err != nil {
			if !strings.HasPrefix(err.Error(), "the merged result would be invalid: ") {
				t.Fatalf("a result does not merge with itself: %v", err)
			}
			return // counts too large to double
		}
		checkMergeSums(t, m, r, back)
		if !bytes.Equal(writeResult(t, r), written) {
			t.Fatal("Merge modified its input")
		}
	})
}

// FuzzMerge merges two results that ReadResult accepted: either Merge
// refuses them with an error naming the difference, or every count of the
// merge is the sum of the inputs' (transactions, failures by kind,
// retries, latency counts, histogram counts, per-script, per-command and
// per-interval), the minimum and maximum are the inputs', the merge is
// itself a valid result and the inputs are left alone. Seeds are in
// testdata/fuzz/FuzzMerge.
func FuzzMerge(f *testing.F) {
	seeds := resultSeeds(f)
	f.Add(seeds[0], seeds[1])
	f.Add(seeds[1], seeds[0])
	f.Add(seeds[0], seeds[2])
	f.Add(seeds[2], seeds[2])
	f.Fuzz(func(t *testing.T, da, db []byte) {
		a, err := ReadResult(bytes.NewReader(da))
		if err != nil {
			return
		}
		b, err := ReadResult(bytes.NewReader(db))
		if err != nil {
			return
		}
		wa, wb := writeResult(t, a), writeResult(t, b)
		m, err := Merge([]*Result{a, b})
		if err != nil {
			var me *MergeError
			if !errors.As(err, &me) && !strings.HasPrefix(err.Error(), "the merged result would be invalid: ") {
				t.Fatalf("Merge error of type %T: %v", err, err)
			}
			return
		}
		checkMergeSums(t, m, a, b)
		if !bytes.Equal(writeResult(t, a), wa) || !bytes.Equal(writeResult(t, b), wb) {
			t.Fatal("Merge modified its inputs")
		}
		if _, err := ReadResult(bytes.NewReader(writeResult(t, m))); err != nil {
			t.Fatalf("the merge does not read back: %v", err)
		}
	})
}

func writeResult(t *testing.T, r *Result) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatalf("Write: %v", err)
	}
	return b.Bytes()
}

// checkMergeSums checks that the counts of m are those of a and b added.
func checkMergeSums(t *testing.T, m, a, b *Result) {
	t.Helper()
	sum := func(x, y Counters) Counters { x.add(&y); return x }
	if m.Runs != a.Runs+b.Runs || len(m.Parts) != len(partsOf(a))+len(partsOf(b)) || m.Config.Clients != a.Config.Clients+b.Config.Clients {
		t.Fatalf("runs %d, parts %d, clients %d from %d+%d runs", m.Runs, len(m.Parts), m.Config.Clients, a.Runs, b.Runs)
	}
	if m.Counters != sum(a.Counters, b.Counters) {
		t.Fatalf("counters %+v, want the sum of %+v and %+v", m.Counters, a.Counters, b.Counters)
	}
	checkLatencySum(t, "latency", &m.Latency, &a.Latency, &b.Latency)
	for i := range m.Scripts {
		ms, as, bs := &m.Scripts[i], &a.Scripts[i], &b.Scripts[i]
		if ms.Counters != sum(as.Counters, bs.Counters) {
			t.Fatalf("script %d counters %+v", i, ms.Counters)
		}
		checkLatencySum(t, "script", &ms.Latency, &as.Latency, &bs.Latency)
		for j := range ms.Commands {
			mc, ac, bc := ms.Commands[j].Stats, as.Commands[j].Stats, bs.Commands[j].Stats
			if mc == nil {
				continue
			}
			if mc.Failures != ac.Failures+bc.Failures || mc.Retries != ac.Retries+bc.Retries {
				t.Fatalf("command %d/%d: failures %d, retries %d", i, j, mc.Failures, mc.Retries)
			}
			for k, n := range mc.FailureClasses {
				if n != ac.FailureClasses[k]+bc.FailureClasses[k] {
					t.Fatalf("command %d/%d: class %s %d", i, j, k, n)
				}
			}
			checkLatencySum(t, "command", &mc.Latency, &ac.Latency, &bc.Latency)
		}
	}
	if len(m.Intervals) != max(len(a.Intervals), len(b.Intervals)) {
		t.Fatalf("%d intervals from %d and %d", len(m.Intervals), len(a.Intervals), len(b.Intervals))
	}
	for k := range m.Intervals {
		var want Counters
		for _, r := range []*Result{a, b} {
			if k < len(r.Intervals) {
				want.add(&r.Intervals[k].Counters)
			}
		}
		if m.Intervals[k].Counters != want {
			t.Fatalf("interval %d counters %+v, want %+v", k, m.Intervals[k].Counters, want)
		}
	}
}

// checkLatencySum checks a merged distribution against its two parts.
func checkLatencySum(t *testing.T, what string, m, a, b *Latency) {
	t.Helper()
	hm, err := m.Hist()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if m.Count != a.Count+b.Count || hm.Count() != m.Count {
		t.Fatalf("%s: count %d, histogram %d, from %d + %d", what, m.Count, hm.Count(), a.Count, b.Count)
	}
	lo, hi := a.MinUs, a.MaxUs
	switch {
	case a.Count == 0:
		lo, hi = b.MinUs, b.MaxUs
	case b.Count > 0:
		lo, hi = min(lo, b.MinUs), max(hi, b.MaxUs)
	}
	if m.Count > 0 && (m.MinUs != lo || m.MaxUs != hi) {
		t.Fatalf("%s: min %v, max %v, want %v, %v", what, m.MinUs, m.MaxUs, lo, hi)
	}
}

// FuzzMatrixReport feeds arbitrary files to "gbench report": schema.Read
// refuses a file with an error that says it is not a matrix result or
// names what is wrong; a file it accepts writes back the same, and gives
// a markdown report and SVG charts, the same each time, without a panic
// or an endless loop (a chart axis used to loop forever on the tiniest
// positive throughput). Seeds are in testdata/fuzz/FuzzMatrixReport.
func FuzzMatrixReport(f *testing.F) {
	for _, name := range []string{"testdata/matrix/input.json", "testdata/matrix/mixed-input.json", "testdata/matrix/coldfill-input.json"} {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	for _, s := range []string{
		`{"schema":"gbench-matrix/1","plan":{"paths":[{"name":"a"}],"keys":[1],"connections":[1],"repeats":1},"samples":[{"path":"a","keys":1,"connections":1,"repeat":1,"req_s":5e-324}]}`,
		`{"schema":"gbench-matrix/1","plan":{"paths":[{"name":"a"},{"name":"b"}],"keys":[1],"connections":[1,2],"repeats":1},"samples":[{"path":"a","keys":1,"connections":2,"repeat":1,"req_s":1.7e308,"latency":{"p99_us":9223372036854775807}}]}`,
		`{"schema":"gbench-matrix/1"`,
		`{"schema":"gbench-matrix/2","plan":{"paths":[{"name":"a"}],"mixes":[{"name":"m","weights":[{"script":"read","weight":1}]}],"keys":[],"connections":[1],"rates":[0,10],"repeats":1,"interval_s":0.5,"items":1},"samples":[{"path":"a","mix":"m","connections":1,"rate":10,"repeat":1,"req_s":5,"cached_start":0,"intervals":[{"end_s":0.5,"requests":3,"req_s":6,"cached":9},{"end_s":1,"requests":0,"req_s":0,"cached":-4}]}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := schema.Read(bytes.NewReader(data))
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, "not a gbench matrix result: ") && !strings.HasPrefix(msg, "invalid gbench matrix result: ") {
				t.Fatalf("error %q", msg)
			}
			return
		}
		var w bytes.Buffer
		if err := r.Write(&w); err != nil {
			t.Fatalf("Write: %v", err)
		}
		back, err := schema.Read(bytes.NewReader(w.Bytes()))
		if err != nil {
			t.Fatalf("a result read back after writing fails: %v", err)
		}
		if a, b := renderMatrix(t, r), renderMatrix(t, back); a != b {
			t.Fatalf("the report changes after a round trip:\n%s\n---\n%s", a, b)
		}
	})
}

// renderMatrix writes the report and every chart of r.
func renderMatrix(t *testing.T, r *schema.Result) string {
	t.Helper()
	var b bytes.Buffer
	if err := Matrix(&b, r); err != nil {
		t.Fatalf("Matrix: %v", err)
	}
	for _, c := range MatrixCharts(r) {
		b.WriteString("\n--- " + c.Name + "\n")
		if err := c.WriteSVG(&b); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
	}
	return b.String()
}
