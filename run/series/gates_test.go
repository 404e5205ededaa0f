package series

import (
	"strings"
	"testing"

	"github.com/gbench/gbench/result/gate"
)

// TestCheckPointsMeanAndCount: a point's mean latency and failure count
// are the medians over its valid runs; an invalid run is left out.
func TestCheckPointsMeanAndCount(t *testing.T) {
	l := Load{Clients: 4}
	runs := []Run{
		{Load: l, TPS: 100, Processed: 90, Failed: 2, Skipped: 1, Latency: Latency{MeanUs: 1000}},
		{Load: l, TPS: 100, Processed: 90, Failed: 4, Latency: Latency{MeanUs: 3000}},
		{Load: l, TPS: 100, Processed: 90, Failed: 9, Latency: Latency{MeanUs: 9000}},
		{Load: l, TPS: 1, Failed: 1000, Latency: Latency{MeanUs: 1e9}, Error: "aborted"},
	}
	ts, err := gate.Parse("avg<=3ms,mean<3ms,failures<=4,failures<4")
	if err != nil {
		t.Fatal(err)
	}
	ps := CheckPoints(runs, []Load{l, {Clients: 8}}, ts)
	var got []string
	for _, p := range ps {
		for _, v := range p.Verdicts {
			got = append(got, v.Threshold+"="+v.Display+map[bool]string{true: " met", false: " breached"}[v.Met])
		}
	}
	want := "avg<=3ms=3.000 ms met|mean<3ms=3.000 ms breached|failures<=4=4 transactions met|failures<4=4 transactions breached|" +
		// No run at 8 clients: nothing to measure, every term breached.
		"avg<=3ms=— breached|mean<3ms=— breached|failures<=4=— breached|failures<4=— breached"
	if strings.Join(got, "|") != want {
		t.Errorf("%s\nwant %s", strings.Join(got, "|"), want)
	}
}
