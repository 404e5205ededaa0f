package report

import (
	"slices"
	"strings"

	"github.com/gbench/gbench/result/schema"
)

// The cost tables show, for RESP paths, what their \resp commands counted
// (schema.RESPCounters): keyspace hits per request, the miss ratio and the
// bytes per request each way. They do so only when some sample recorded
// the counters; a cell without them has "—", and the note below the table
// says why.

// respCols are the cost table's columns of \resp counters.
var respCols = []string{"RESP hits/req", "RESP miss ratio", "RESP bytes/req sent", "RESP bytes/req received"}

// respIntro says what the columns are, under the table's introduction.
const respIntro = "The RESP columns are what a path's `\\resp` commands counted, per request (failed ones included): " +
	"keyspace hits (GET-like replies and MGET elements that were not nil), the misses' share of hits and misses, " +
	"and the bytes of the requests and of the replies on the wire."

// hasRESP reports whether some sample recorded \resp counters.
func (m *matrixDoc) hasRESP() bool {
	return slices.ContainsFunc(m.r.Samples, func(s schema.Sample) bool { return s.RESP != nil })
}

// respTexts are a cell's \resp counter columns.
func respTexts(c schema.Cell) []string {
	if c.RESPSamples == 0 {
		return []string{"—", "—", "—", "—"}
	}
	miss := "—"
	if c.MissSamples > 0 {
		miss = sig3(100*c.MissRatio) + "%"
	}
	return []string{sig3(c.HitsPerReq), miss, sig3(c.BytesSentPerReq), sig3(c.BytesRecvPerReq)}
}

// respNotes says why cells of the cost table have no \resp counters:
// their path has no \resp command (no valid sample of it recorded any),
// or its samples came from a gbench that did not record them; and why a
// miss ratio is missing: the path read no key.
func (m *matrixDoc) respNotes(cells []schema.Cell) {
	var none, noReads []string
	for _, c := range cells {
		switch {
		case c.Samples == 0:
		case c.RESPSamples == 0 && !slices.Contains(none, c.Path):
			none = append(none, c.Path)
		case c.RESPSamples > 0 && c.MissSamples == 0 && !slices.Contains(noReads, c.Path):
			noReads = append(noReads, c.Path)
		}
	}
	if len(none) > 0 {
		m.printf("RESP counters — for %s: no sample recorded any (a path without `\\resp` commands, or a result of a gbench before them).\n\n", strings.Join(none, ", "))
	}
	if len(noReads) > 0 {
		m.printf("RESP miss ratio — for %s: no GET-like read of a key.\n\n", strings.Join(noReads, ", "))
	}
}
