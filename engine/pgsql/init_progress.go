package pgsql

import (
	"fmt"
	"io"
	"math"
	"time"
)

const (
	// initProgressRows is how often pgbench reports without -q.
	initProgressRows = 100000
	// initQuietCheckRows is how often pgbench looks at the clock with -q.
	initQuietCheckRows = 100
	// initQuietStep is the -q reporting interval.
	initQuietStep = 5 * time.Second
)

// initProgress writes pgbench 15's "N of M tuples (P%) done (elapsed E s,
// remaining R s)" lines while pgbench_accounts is generated.
type initProgress struct {
	w        io.Writer
	total    int64
	quiet    bool
	eol      byte             // '\r' on a terminal, so that lines overwrite each other
	now      func() time.Time // injected for tests
	start    time.Time
	interval int    // -q: report once elapsed reaches interval*initQuietStep
	buf      []byte // reused line buffer
}

// newInitProgress returns a progress for total rows whose clock starts now.
func newInitProgress(w io.Writer, total int64, quiet, tty bool, now func() time.Time) *initProgress {
	eol := byte('\n')
	if tty {
		eol = '\r'
	}
	return &initProgress{w: w, total: total, quiet: quiet, eol: eol, now: now, start: now(), interval: 1}
}

// every is the number of rows between calls to report.
func (p *initProgress) every() int64 {
	if p.quiet {
		return initQuietCheckRows
	}
	return initProgressRows
}

// report is called after row count j; with -q it prints only when the next
// 5 s interval is reached, or at the last row.
func (p *initProgress) report(j int64) error {
	elapsed := p.now().Sub(p.start).Seconds()
	if p.quiet && j != p.total && elapsed < float64(p.interval)*initQuietStep.Seconds() {
		return nil
	}
	remaining := float64(p.total-j) * elapsed / float64(j)
	p.buf = fmt.Appendf(p.buf[:0], "%d of %d tuples (%d%%) done (elapsed %.2f s, remaining %.2f s)%c",
		j, p.total, j*100/p.total, elapsed, remaining, p.eol)
	if p.quiet {
		// Like pgbench: the next report is due at the first interval
		// boundary at or after now.
		p.interval = int(math.Ceil(elapsed / initQuietStep.Seconds()))
	}
	_, err := p.w.Write(p.buf)
	return err
}

// finish moves a terminal to the next line after the last '\r' line.
func (p *initProgress) finish() error {
	if p.eol == '\n' {
		return nil
	}
	_, err := io.WriteString(p.w, "\n")
	return err
}
