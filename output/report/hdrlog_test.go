package report

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine/stats"
)

func TestHdrLogRoundTrip(t *testing.T) {
	start := time.UnixMilli(1_700_000_000_250)
	var buf bytes.Buffer
	l, err := NewHdrLog(&buf, start)
	if err != nil {
		t.Fatal(err)
	}
	var want []*stats.Hist
	for k := range 3 {
		h := stats.NewHist()
		for v := range int64(100 * (k + 1)) {
			h.Record(1000 + v*37)
		}
		from := start.Add(time.Duration(k) * time.Second)
		if err := l.Interval(from, from.Add(time.Second), h); err != nil {
			t.Fatal(err)
		}
		want = append(want, h)
	}
	text := buf.String()
	for _, header := range []string{
		"#[Histogram log format version 1.3]\n",
		"#[gbench latency log: values in microseconds]\n",
		"#[StartTime: 1700000000 (seconds since epoch), 2023-11-14T22:13:20Z]\n",
		"#[BaseTime: 1700000000 (seconds since epoch)]\n",
		"\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
	} {
		if !strings.Contains(text, header) {
			t.Errorf("log lacks %q:\n%s", header, text)
		}
	}
	if !strings.Contains(text, "\n0.250000,1.000000,") || !strings.Contains(text, "\n1.250000,1.000000,") {
		t.Errorf("intervals do not start 0.25 s and 1.25 s after the base time:\n%s", text)
	}
	r := hdr.NewHistogramLogReader(strings.NewReader(text))
	for k, w := range want {
		got, err := r.NextIntervalHistogram()
		if err != nil || got == nil {
			t.Fatalf("interval %d: %v, %v", k, got, err)
		}
		if !got.Equals(w.Raw()) {
			t.Errorf("interval %d: histogram differs after reading back", k)
		}
		if got.TotalCount() != int64(100*(k+1)) {
			t.Errorf("interval %d: %d values", k, got.TotalCount())
		}
	}
	if h, err := r.NextIntervalHistogram(); h != nil || err != nil {
		t.Errorf("extra interval %v, %v", h, err)
	}
}

// limitWriter fails after n bytes.
type limitWriter struct{ n int }

func (w *limitWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return 0, io.ErrShortWrite
	}
	w.n -= len(p)
	return len(p), nil
}

func TestHdrLogErrors(t *testing.T) {
	if _, err := NewHdrLog(&limitWriter{10}, time.Now()); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("header: error %v", err)
	}
	l, err := NewHdrLog(&limitWriter{300}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	h := stats.NewHist()
	h.Record(5)
	if err := l.Interval(time.Now(), time.Now(), h); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("interval: error %v", err)
	}
	if err := l.Interval(time.Now(), time.Now(), h); !errors.Is(err, io.ErrShortWrite) {
		t.Errorf("after failure: error %v", err)
	}
}

// TestHdrLogRest: Rest writes what the intervals missed, so that the log
// adds up to the total, even when the last interval ended after end.
func TestHdrLogRest(t *testing.T) {
	start := time.UnixMilli(1_700_000_000_000)
	tests := []struct {
		name      string
		intervals [][]int64 // values of each -P interval
		extra     []int64   // values only in the total
		end       time.Duration
		want      []int64 // value counts of the intervals read back
	}{
		// Two reports, then the tail of the run.
		{"tail", [][]int64{{10, 20}, {30}}, []int64{40, 50, 60}, 2500 * time.Millisecond, []int64{2, 1, 3}},
		// The tail reported after the run ended still gets read.
		{"late report", [][]int64{{10}, {20}}, []int64{30}, 1500 * time.Millisecond, []int64{1, 1, 1}},
		// Reports covered everything: nothing more.
		{"covered", [][]int64{{10}, {20}}, nil, 2500 * time.Millisecond, []int64{1, 1}},
		// No reports (no -P): one interval for the whole run.
		{"no reports", nil, []int64{5, 6, 7}, 3 * time.Second, []int64{3}},
		// Nothing at all: still one (empty) interval.
		{"empty", nil, nil, time.Second, []int64{0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			l, err := NewHdrLog(&buf, start)
			if err != nil {
				t.Fatal(err)
			}
			total := stats.NewHist()
			for k, vs := range tt.intervals {
				h := stats.NewHist()
				for _, v := range vs {
					h.Record(v)
					total.Record(v)
				}
				from := start.Add(time.Duration(k) * time.Second)
				if err := l.Interval(from, from.Add(time.Second), h); err != nil {
					t.Fatal(err)
				}
			}
			for _, v := range tt.extra {
				total.Record(v)
			}
			if err := l.Rest(start.Add(tt.end), total); err != nil {
				t.Fatal(err)
			}
			r := hdr.NewHistogramLogReader(&buf)
			var got []int64
			sum := stats.NewHist()
			for {
				h, err := r.NextIntervalHistogram()
				if err != nil {
					t.Fatal(err)
				}
				if h == nil {
					break
				}
				got = append(got, h.TotalCount())
				sum.Merge(stats.FromRaw(h))
			}
			if !slices.Equal(got, tt.want) || !sum.Raw().Equals(total.Raw()) {
				t.Errorf("intervals of %v values (adding up: %v), want %v", got, sum.Raw().Equals(total.Raw()), tt.want)
			}
		})
	}
}
