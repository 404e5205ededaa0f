package report

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

var testPercentiles = []float64{50, 90, 99, 99.9, 100}

// fakeSummary is a run of two scripts with per-command statistics whose
// figures come from a seeded random source: seed picks the run.
func fakeSummary(t testing.TB, seed uint64, scriptTexts ...string) *Summary {
	t.Helper()
	if len(scriptTexts) == 0 {
		scriptTexts = []string{"\\set a random(1, 10)\nSELECT :a;\n", "BEGIN;\nSELECT 2;\nEND;\n"}
	}
	var scripts []*script.Script
	for i, text := range scriptTexts {
		s, err := script.Parse("s"+string(rune('1'+i))+".sql", text, i+1)
		if err != nil {
			t.Fatal(err)
		}
		scripts = append(scripts, s)
	}
	prog, err := script.Compile(scripts, script.Extended, nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg := &engine.Config{
		Program: prog, Clients: 4, Threads: 2, Duration: 10 * time.Second, Rate: 500,
		LatencyLimit: 50 * time.Millisecond, MaxTries: 3, PerCommand: true, Seed: 42,
		Defines: []engine.Define{{Name: "x", Value: "1"}},
	}
	var counts []int
	for _, s := range prog.Scripts {
		counts = append(counts, len(s.Commands))
	}
	block := stats.NewBlock(counts, true)
	rng := rand.New(rand.NewPCG(seed, 7))
	for range 5000 {
		sc := rng.IntN(len(scripts))
		st := stats.OK
		switch r := rng.IntN(100); {
		case r < 3:
			st = stats.Skipped
		case r < 5:
			st = stats.SerializationFailure
		case r < 6:
			st = stats.DeadlockFailure
		}
		lat := float64(100 + rng.IntN(20000) + rng.IntN(2)*rng.IntN(500000))
		lag := float64(rng.IntN(300))
		tries := 1 + rng.IntN(3)
		block.Total.Record(st, lat, lag, tries)
		block.Scripts[sc].Record(st, lat, lag, tries)
		for j := range block.Commands[sc] {
			c := &block.Commands[sc][j]
			c.Latency.Add(lat / 3)
			c.Hist.Record(int64(lat / 3))
		}
		if st == stats.OK && lat > 50000 {
			block.Total.Late++
		}
	}
	last := block.Commands[len(block.Commands)-1]
	last[len(last)-1].Failures = 3
	last[len(last)-1].Classes = map[string]int64{"40001": 2, "40P01": 1}
	block.ConnTime = 1234
	res := &engine.Result{
		Stats: block, Threads: 2, Start: time.Unix(1_700_000_000+int64(seed), 5000).UTC(),
		Bench: 10*time.Second + time.Duration(seed)*time.Millisecond, ConnElapsed: 30 * time.Millisecond,
		UserCPU: 2 * time.Second, SysCPU: time.Second, Unstarted: 3 * int64(seed),
	}
	return &Summary{Config: RunConfigOf(cfg), Result: RunResultOf(res), Scale: 10, Percentiles: testPercentiles, FailuresDetailed: true}
}

// fakeIntervals are -P intervals, with histograms.
func fakeIntervals(t testing.TB, n int, seed uint64) []Interval {
	t.Helper()
	iv := &Intervals{Percentiles: testPercentiles, Lag: true}
	rng := rand.New(rand.NewPCG(seed, 9))
	origin := time.Unix(1_700_000_000, 0).UTC()
	for k := 1; k <= n; k++ {
		txn := stats.NewTxn()
		for range 100 + rng.IntN(100) {
			txn.Record(stats.OK, float64(50+rng.IntN(5000)), float64(rng.IntN(20)), 1)
		}
		p := engine.Progress{Elapsed: time.Duration(k) * time.Second, Interval: time.Second, Wall: origin.Add(time.Duration(k) * time.Second), Txn: txn}
		if err := iv.Add(p); err != nil {
			t.Fatal(err)
		}
	}
	return iv.List()
}

func TestNewResult(t *testing.T) {
	s := fakeSummary(t, 1)
	r, err := NewResult(s, Versions{Gbench: "0.1.0", Server: "15.20"}, fakeIntervals(t, 3, 1))
	if err != nil {
		t.Fatal(err)
	}
	total := s.Result.Stats.Total
	c := r.Counters
	if c.Processed != total.Cnt || c.Skipped != total.Skipped || c.Failed != total.Failures() ||
		c.Retries != total.Retries || c.Retried != total.Retried || c.Late != total.Late || c.Total != total.Total() {
		t.Errorf("counters %+v do not match the run's", c)
	}
	if c.Processed+c.Failed+c.Skipped != c.Total {
		t.Errorf("counters do not add up: %+v", c)
	}
	if r.Unstarted != 3 {
		t.Errorf("unstarted %d, want the run's 3", r.Unstarted)
	}
	for i, p := range r.Latency.Percentiles {
		if want := total.Hist.Quantile(testPercentiles[i]); p.Us != want || p.P != testPercentiles[i] {
			t.Errorf("percentile %v = %d, want %d", p.P, p.Us, want)
		}
	}
	if r.Latency.MeanUs != total.Latency.Mean() || r.Latency.Count != total.Cnt {
		t.Errorf("latency %+v", r.Latency.Simple)
	}
	if len(r.Scripts) != 2 || r.Scripts[1].Commands[1].Text != "SELECT 2;" || r.Scripts[0].Commands[0].Kind != "set" ||
		r.Scripts[0].Commands[0].Text != "\\set a random(1, 10)" || r.Scripts[1].Weight != 2 {
		t.Errorf("scripts %+v", r.Scripts)
	}
	cs := r.Scripts[1].Commands[2].Stats
	if cs == nil || cs.Failures != 3 || cs.FailureClasses["40001"] != 2 || cs.Latency.Count == 0 {
		t.Errorf("command stats %+v", cs)
	}
	if r.Config.Mode != "duration" || r.Config.DurationS != 10 || r.Config.QueryMode != "extended" ||
		r.Config.LatencyLimitMs != 50 || r.Config.Defines[0] != "x=1" || r.Lag == nil {
		t.Errorf("config %+v", r.Config)
	}
	if want := 2e6 / float64(c.Processed+c.Failed); r.CPU.UserUsPerTxn != want {
		t.Errorf("user CPU per transaction %v, want %v", r.CPU.UserUsPerTxn, want)
	}
	if len(r.Intervals) != 3 || r.Intervals[2].ElapsedS != 3 || r.Intervals[0].Lag == nil {
		t.Errorf("intervals %+v", r.Intervals)
	}
}

// TestJSONRoundTrip writes a result and reads it back: same value, same
// histograms.
func TestJSONRoundTrip(t *testing.T) {
	s := fakeSummary(t, 2)
	r, err := NewResult(s, Versions{Gbench: "0.1.0"}, fakeIntervals(t, 2, 2))
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := r.Write(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := ReadResult(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, back) {
		t.Errorf("round trip changed the result:\n%+v\n%+v", r, back)
	}
	h, err := back.Latency.Hist()
	if err != nil {
		t.Fatal(err)
	}
	if !h.Raw().Equals(s.Result.Stats.Total.Hist.Raw()) {
		t.Error("decoded histogram differs from the run's")
	}
}

func TestJSONFieldNames(t *testing.T) {
	r, err := NewResult(fakeSummary(t, 3), Versions{Gbench: "x"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"schema", "versions", "config", "start", "durations", "runs", "tps", "counters", "latency", "lag", "cpu", "scripts", "aborted_clients", "interrupted"} {
		if _, ok := m[k]; !ok {
			t.Errorf("no top-level %q", k)
		}
	}
	lat := m["latency"].(map[string]any)
	for _, k := range []string{"count", "sum_us", "sum2_us2", "min_us", "max_us", "mean_us", "stddev_us", "percentiles", "hdr"} {
		if _, ok := lat[k]; !ok {
			t.Errorf("no latency.%s", k)
		}
	}
	if !strings.HasPrefix(lat["hdr"].(string), "HISTF") {
		t.Errorf("hdr %q is not a V2 compressed histogram", lat["hdr"])
	}
}

func TestReadResultRejects(t *testing.T) {
	for _, in := range []string{`{"schema":"other/1"}`, `[1,2]`, `{`} {
		if _, err := ReadResult(strings.NewReader(in)); err == nil || !strings.HasPrefix(err.Error(), "not a gbench result") {
			t.Errorf("%s: error %v", in, err)
		}
	}
}
