package report

import (
	"path"
	"strings"
)

// NewOrderScript is the file name of the TPC-C-like new-order script:
// a run with it among several scripts gets a NOPM line.
const NewOrderScript = "tpcc-new-order.sql"

// NOPM returns the new-order transactions per minute of s (those of the
// script named NewOrderScript, completed, the rolled-back 1% included) and
// all completed transactions per minute, and whether s ran that script
// beside others.
func NOPM(s *Summary) (nopm, tpm float64, ok bool) {
	scripts := s.Config.Program.Scripts
	minutes := s.Result.Bench.Minutes()
	if len(scripts) < 2 || minutes <= 0 {
		return 0, 0, false
	}
	for i, sc := range scripts {
		if path.Base(strings.ReplaceAll(sc.Name, "\\", "/")) == NewOrderScript {
			return float64(s.Result.Stats.Scripts[i].Cnt) / minutes, float64(s.Result.Stats.Total.Cnt) / minutes, true
		}
	}
	return 0, 0, false
}

// writeNOPM prints gbench's TPC-C-like throughput line after pgbench's
// summary, when NOPM applies.
func writeNOPM(w *writer, s *Summary) {
	if nopm, tpm, ok := NOPM(s); ok {
		w.printf("TPC-C-like: NOPM = %s (new-order transactions per minute), TPM = %s (all transactions per minute); not a TPC-C result\n",
			cfloat(nopm, 0), cfloat(tpm, 0))
	}
}
