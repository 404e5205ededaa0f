package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gbench/gbench/result/schema"
)

// topWaits is how many wait events a cell of the report shows.
const topWaits = 3

// resources writes the servers' cgroup record and wait-state profile per
// cell, when the samples have them (results of earlier versions do not).
func (m *matrixDoc) resources() {
	has := false
	for _, c := range m.cells {
		has = has || c.CgroupPeak || c.IO != nil || len(c.WaitEvents) > 0
	}
	if !has {
		return
	}
	d := m.dims()
	m.printf("## Server resources and wait events\n\n")
	m.printf("Of the server a path's cost is counted on. Memory is the median over the repeats of each sample's peak of the server's cgroup memory (read every 500 ms and at both ends of the sample: everything charged to the cgroup, shared memory, tmpfs files and page cache included, not process RSS); block I/O is the median over the repeats, summed over devices; throttled is the median count of CPU periods throttled. ")
	m.printf("Wait events are pg_stat_activity read at a fixed interval during each sample, every client backend of the database but the sampler's counted once per read, the repeats together: the %d most frequent, with their share of the backend reads (`CPU`: active, waiting for nothing; `(idle)`: between requests). — marks what could not be read, with the reasons below the table.\n\n", topWaits)
	m.tableHead(d.head()+" | path", []string{"memory peak", "block I/O read / written", "throttled", "top wait events"}, "---:")
	for _, row := range m.rows() {
		for _, p := range pathNames(&m.r.Plan) {
			c := m.at(row, p)
			if c.Samples == 0 {
				continue
			}
			m.tableRow(append(d.cells(row), p, peakText(c), ioText(c), throttledText(c), waitsText(c)))
		}
	}
	m.printf("\n")
	notes := map[string]bool{}
	for _, s := range m.r.Samples {
		if s.Server == nil {
			continue
		}
		for _, n := range []string{s.Server.ResourcesNote, s.Server.WaitEventsNote} {
			if n != "" {
				notes[n] = true
			}
		}
		if r := s.Server.Resources; r != nil {
			for _, n := range []string{r.MemoryNote, r.IONote, r.ThrottlingNote, r.MemoryEventsNote} {
				if n != "" {
					notes[n] = true
				}
			}
		}
	}
	for _, n := range sortedNotes(notes) {
		m.printf("- not read: %s\n", n)
	}
	if events := memoryEvents(m); events != "" {
		m.printf("- memory events over all samples: %s\n", events)
	}
	if len(notes) > 0 {
		m.printf("\n")
	}
}

func sortedNotes(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// memoryEvents lists the memory events that happened in any cell.
func memoryEvents(m *matrixDoc) string {
	sum := map[string]int64{}
	for _, c := range m.cells {
		for k, v := range c.MemoryEvents {
			sum[k] += v
		}
	}
	var out []string
	for k, v := range sum {
		if v != 0 {
			out = append(out, fmt.Sprintf("%s %d", k, v))
		}
	}
	sort.Strings(out)
	return strings.Join(out, ", ")
}

func peakText(c schema.Cell) string {
	if !c.CgroupPeak {
		return "—"
	}
	return fmt.Sprintf("%.1f MiB", c.CgroupPeakBytes/(1<<20))
}

func ioText(c schema.Cell) string {
	if c.IO == nil {
		return "—"
	}
	return fmt.Sprintf("%s / %s", bytesText(c.IO.ReadBytes), bytesText(c.IO.WriteBytes))
}

func throttledText(c schema.Cell) string {
	if !c.Throttling {
		return "—"
	}
	return sig3(c.Throttled)
}

func waitsText(c schema.Cell) string {
	if len(c.WaitEvents) == 0 {
		return "—"
	}
	var out []string
	for i, e := range c.WaitEvents {
		if i == topWaits {
			break
		}
		out = append(out, fmt.Sprintf("%s %.0f%%", e.Name(), e.Share*100))
	}
	return strings.Join(out, ", ")
}
