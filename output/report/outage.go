package report

import (
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
)

// maxListedOutages is how many windows the summary lists one by one; the
// JSON has them all.
const maxListedOutages = 10

// writeOutages prints, under --reconnect, the connection failures, the
// reconnections and the windows of unavailability (docs/faults.md):
//
//	number of connection failures: 812 (3.170%)
//	number of reconnections: 64 (failed attempts: 192)
//	unavailability windows: 1, total 3.215 s, longest 3.215 s
//	window 1: 2.104 s to 5.319 s (3.215 s), 64 clients down, all back at 5.402 s
//
// A window some clients never came back from adds why their last
// reconnection attempt failed:
//
//	window 1: 84 failed reconnection attempts, the last: failed to connect to ...: connection refused
func writeOutages(w *writer, s *Summary, t *stats.Txn, of int64) {
	if s.Config.Reconnect == nil {
		return
	}
	st := s.Result.Stats
	w.printf("number of connection failures: %d (%s%%)\n", t.ConnectionFailures, fmtPct(pct(t.ConnectionFailures, of)))
	w.printf("number of reconnections: %d (failed attempts: %d)\n", st.Reconnects, st.ReconnectFailures)
	ws := s.Result.Outages
	sum, longest := s.Result.Unavailable()
	w.printf("unavailability windows: %d, total %s, longest %s\n", len(ws), secs(sum), secs(longest))
	for i := range ws {
		if i == maxListedOutages {
			w.printf("(%d more windows in the JSON result)\n", len(ws)-i)
			break
		}
		writeOutage(w, i+1, &ws[i])
	}
}

// writeOutage prints one window's line.
func writeOutage(w *writer, n int, o *engine.Outage) {
	end := "to " + secs(o.End)
	if o.Open {
		end = "to the end at " + secs(o.End) + ", never recovered"
	}
	back := "not all back by the end"
	if o.Recovered > 0 {
		back = "all back at " + secs(o.Recovered)
	}
	w.printf("window %d: %s %s (%s), %d clients down, %s\n", n, secs(o.Start), end, secs(o.Duration()), o.Clients, back)
	if o.LastReconnectError != "" && o.Recovered == 0 {
		// The clients that never came back: why their last attempt failed.
		w.printf("window %d: %d failed reconnection attempts, the last: %s\n", n, o.ReconnectFailures, o.LastReconnectError)
	}
}

// secs prints a duration in seconds with milliseconds.
func secs(d time.Duration) string { return cfloat(d.Seconds(), 3) + " s" }
