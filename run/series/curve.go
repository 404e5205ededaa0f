package series

import (
	"fmt"
	"slices"
)

// DefaultPlateau is the tolerance of the knee: a point within 5% of the
// highest throughput is on the plateau.
const DefaultPlateau = 0.05

// Working point: production should run at 60–70% of the knee's
// throughput, leaving room for bursts and for the latency that grows as
// the plateau nears.
const (
	WorkLow  = 0.60
	WorkHigh = 0.70
)

// Curve is the analysis of a curve: its points and, for a closed loop,
// its knee.
type Curve struct {
	// Loop is "closed" (client counts) or "open" (target rates).
	Loop   string  `json:"loop"`
	Points []Point `json:"points"`
	// Knee is the closed-loop curve's knee; absent when there is none
	// (KneeNote says why) and for an open loop.
	Knee     *Knee  `json:"knee,omitempty"`
	KneeNote string `json:"knee_note,omitempty"`
}

// Knee is where the closed-loop throughput stops growing with clients.
type Knee struct {
	Clients int `json:"clients"`
	// TPS is the median throughput at the knee, PlateauTPS the highest
	// median of the curve.
	TPS        float64 `json:"tps"`
	PlateauTPS float64 `json:"plateau_tps"`
	// Tolerance is how far below the plateau a point may be and still be
	// on it: the plateau setting, or the plateau point's own spread when
	// that is larger.
	Tolerance float64 `json:"tolerance"`
	// WorkLowTPS and WorkHighTPS are 60% and 70% of TPS: the working
	// point, as open-loop rates.
	WorkLowTPS  float64 `json:"work_low_tps"`
	WorkHighTPS float64 `json:"work_high_tps"`
	// Decline is set when throughput falls by more than the tolerance
	// past the knee (overload): the lowest median after the knee.
	DeclineTPS     float64 `json:"decline_tps,omitempty"`
	DeclineClients int     `json:"decline_clients,omitempty"`
}

// FindKnee finds the knee of a closed-loop curve (docs/methodology.md):
// points in increasing client order, the plateau is the highest median
// throughput, and the knee is the first point whose median is within the
// tolerance of it: plateau, or the plateau point's own spread when the
// runs there disagree more. There is no knee when that point is the last
// one (throughput still rising), when fewer than two points have valid
// runs, or when no run completed anything.
func FindKnee(points []Point, plateau float64) (*Knee, string) {
	var ps []Point
	for _, p := range points {
		if p.Runs > 0 {
			ps = append(ps, p)
		}
	}
	slices.SortFunc(ps, func(a, b Point) int { return a.Clients - b.Clients })
	if len(ps) < 2 {
		return nil, "fewer than two client counts have valid runs"
	}
	top := 0
	for i, p := range ps {
		if p.TPS.Median > ps[top].TPS.Median {
			top = i
		}
	}
	peak := ps[top].TPS.Median
	if peak <= 0 {
		return nil, "no run completed a transaction"
	}
	tol := max(plateau, ps[top].TPS.Spread())
	k := slices.IndexFunc(ps, func(p Point) bool { return p.TPS.Median >= (1-tol)*peak })
	if k == len(ps)-1 {
		return nil, fmt.Sprintf("throughput is still rising at %d clients (%.0f tps, %.0f%% above %d clients): add larger client counts",
			ps[k].Clients, ps[k].TPS.Median, 100*(ps[k].TPS.Median/ps[k-1].TPS.Median-1), ps[k-1].Clients)
	}
	kn := &Knee{Clients: ps[k].Clients, TPS: ps[k].TPS.Median, PlateauTPS: peak, Tolerance: tol}
	kn.WorkLowTPS, kn.WorkHighTPS = WorkLow*kn.TPS, WorkHigh*kn.TPS
	for _, p := range ps[k+1:] {
		if p.TPS.Median < (1-tol)*peak && (kn.DeclineTPS == 0 || p.TPS.Median < kn.DeclineTPS) {
			kn.DeclineTPS, kn.DeclineClients = p.TPS.Median, p.Clients
		}
	}
	return kn, ""
}

// NewCurve analyses the runs of a curve over loads.
func NewCurve(runs []Run, loads []Load, plateau float64) *Curve {
	c := &Curve{Loop: "closed", Points: Points(runs, loads)}
	if len(loads) > 0 && loads[0].Open() {
		c.Loop = "open"
		return c
	}
	c.Knee, c.KneeNote = FindKnee(c.Points, plateau)
	return c
}
