package report

import (
	"fmt"
	"io"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/gbench/gbench/engine/stats"
)

// HdrLog writes latency histograms as an HdrHistogram interval log (log
// format 1.3, the text format HdrHistogram's HistogramLogProcessor and
// hdrhistogram-go's HistogramLogReader read). Values are microseconds.
//
// The header holds the format version, a comment naming the unit,
// #[StartTime] and #[BaseTime] (the run's start, in whole seconds) and the
// legend. Each interval line is
//
//	start,length,max,histogram
//
// with start in seconds since the base time (so the first interval starts
// at the fraction of a second the run started at), length in seconds, max the
// largest value divided by the library's fixed ratio of 1,000,000 (so in
// seconds for microsecond values), and the histogram in the base64 V2
// compressed encoding. HdrHistogram's tools report the values in the
// histogram's own unit; give them an output value ratio of 1000 for
// milliseconds.
//
// HdrLog is not safe for concurrent use. After a write error every call
// returns it.
type HdrLog struct {
	lw     *hdr.HistogramLogWriter
	last   time.Time   // end of the last interval written
	logged *stats.Hist // the intervals written, merged
	err    error
}

// NewHdrLog writes the log's header to w, with start as the start and base
// time, and returns the log.
func NewHdrLog(w io.Writer, start time.Time) (*HdrLog, error) {
	lw := hdr.NewHistogramLogWriter(w)
	// The library writes the base time in whole seconds: make the interval
	// stamps relative to that same whole second.
	base := start.Unix() * 1000
	lw.SetBaseTime(base)
	l := &HdrLog{lw: lw, last: start, logged: stats.NewHist()}
	steps := []func() error{
		lw.OutputLogFormatVersion,
		func() error { return lw.OutputComment("[gbench latency log: values in microseconds]") },
		func() error { return lw.OutputStartTime(start.UnixMilli()) },
		func() error { return lw.OutputBaseTime(base) },
		lw.OutputLegend,
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, fmt.Errorf("writing the HdrHistogram log: %w", err)
		}
	}
	return l, nil
}

// Interval writes h as the histogram of the interval [from, to). It stamps
// h with those times (milliseconds since the epoch) and does not keep it.
func (l *HdrLog) Interval(from, to time.Time, h *stats.Hist) error {
	if l.err != nil {
		return l.err
	}
	l.logged.Merge(h)
	l.last = to
	raw := h.Raw()
	raw.SetStartTimeMs(from.UnixMilli())
	raw.SetEndTimeMs(to.UnixMilli())
	if err := l.lw.OutputIntervalHistogram(raw); err != nil {
		l.err = fmt.Errorf("writing the HdrHistogram log: %w", err)
	}
	return l.err
}

// Rest writes, as a last interval from the end of the last one to end (or
// of no length, when that is later than end), what total holds beyond the
// intervals written so far: the end of the run after the last -P report,
// or the whole run when there was none. Then the intervals add up
// to total. It writes nothing when intervals were written and cover total.
// total must have been recorded with the same histogram settings as the
// intervals (stats.NewHist), and hold every value they hold.
func (l *HdrLog) Rest(end time.Time, total *stats.Hist) error {
	if l.err != nil {
		return l.err
	}
	rest := subtract(total, l.logged)
	if rest.Count() == 0 && l.logged.Count() > 0 {
		return nil
	}
	// The last report may come after the end of the run: it then still
	// misses what threads recorded after their last report before they
	// stopped. Readers skip intervals that end before they start.
	if end.Before(l.last) {
		end = l.last
	}
	return l.Interval(l.last, end, rest)
}

// subtract returns a minus b, bucket by bucket; buckets b has more of than
// a are left empty.
func subtract(a, b *stats.Hist) *stats.Hist {
	sa, sb := a.Raw().Export(), b.Raw().Export()
	for i, n := range sb.Counts {
		if i < len(sa.Counts) {
			sa.Counts[i] = max(sa.Counts[i]-n, 0)
		}
	}
	return stats.FromRaw(hdr.Import(sa))
}
