package report

import (
	"time"
)

// Availability is what a run under --reconnect saw of its servers'
// outages (docs/faults.md): the reconnections, and each window of
// unavailability, from the first connection failure while none was open
// to the end of the first transaction that succeeded after it began.
type Availability struct {
	Reconnects        int64 `json:"reconnects"`
	ReconnectFailures int64 `json:"reconnect_failures"`
	// TotalS and LongestS add up the windows' durations and take the
	// longest; in a merge, of every part's windows.
	TotalS   float64  `json:"total_s"`
	LongestS float64  `json:"longest_s"`
	Windows  []Window `json:"windows"`
}

// Window is one window of unavailability. StartS, EndS and RecoveredS
// count from the run's start; Start and End are on the run's timeline.
type Window struct {
	Start     time.Time `json:"start"`
	End       time.Time `json:"end"`
	StartS    float64   `json:"start_s"`
	EndS      float64   `json:"end_s"`
	DurationS float64   `json:"duration_s"`
	// Open is set when nothing succeeded again before the run ended: End
	// is then the run's end.
	Open bool `json:"open,omitempty"`
	// RecoveredS is when every client that lost its connection in the
	// window had completed a transaction again; absent when some never
	// did.
	RecoveredS *float64 `json:"recovered_s,omitempty"`
	Clients    int      `json:"clients"`
	Failures   int64    `json:"failures"`
	FirstError string   `json:"first_error"`
	// ReconnectFailures counts the failed reconnection attempts of the
	// window's clients, LastReconnectError the last one's error: why they
	// could not come back (a refused connection, a standby that is still
	// read-only, a full server...). Both absent when none failed.
	ReconnectFailures  int64  `json:"reconnect_failures,omitempty"`
	LastReconnectError string `json:"last_reconnect_error,omitempty"`
	// Part is, in a merge, the index in parts of the run that saw it:
	// each worker measures its own windows.
	Part *int `json:"part,omitempty"`
}

// newAvailability returns the run's availability; nil without
// --reconnect.
func newAvailability(s *Summary) *Availability {
	if s.Config.Reconnect == nil {
		return nil
	}
	res := s.Result
	a := &Availability{Reconnects: res.Stats.Reconnects, ReconnectFailures: res.Stats.ReconnectFailures, Windows: []Window{}}
	for i := range res.Outages {
		o := &res.Outages[i]
		w := Window{
			Start: res.Start.Add(o.Start), End: res.Start.Add(o.End),
			StartS: o.Start.Seconds(), EndS: o.End.Seconds(), DurationS: o.Duration().Seconds(),
			Open: o.Open, Clients: o.Clients, Failures: o.Failures, FirstError: o.First,
			ReconnectFailures: o.ReconnectFailures, LastReconnectError: o.LastReconnectError,
		}
		if o.Recovered > 0 {
			r := o.Recovered.Seconds()
			w.RecoveredS = &r
		}
		a.add(w)
	}
	return a
}

// add appends a window and accounts for it in the totals.
func (a *Availability) add(w Window) {
	a.Windows = append(a.Windows, w)
	a.TotalS += w.DurationS
	a.LongestS = max(a.LongestS, w.DurationS)
}

// mergeAvailability adds part's availability (the merge's part index
// given) into out; each window keeps the part that saw it.
func mergeAvailability(out, part *Availability, index int) *Availability {
	if part == nil {
		return out
	}
	if out == nil {
		out = &Availability{Windows: []Window{}}
	}
	out.Reconnects += part.Reconnects
	out.ReconnectFailures += part.ReconnectFailures
	for _, w := range part.Windows {
		if w.Part == nil {
			i := index
			w.Part = &i
		}
		out.add(w)
	}
	return out
}
