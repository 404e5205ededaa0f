package report

import (
	"strconv"
	"strings"

	"github.com/gbench/gbench/engine/stats"
)

// writeScripts prints the per-script sections (several scripts) and the
// per-command latencies (-r), as pgbench 15 does.
func writeScripts(w *writer, s *Summary) {
	cfg, res := s.Config, s.Result
	perScript := len(cfg.Program.Scripts) > 1
	if !perScript && !cfg.PerCommand {
		return
	}
	total := res.Stats.Total
	for i, sc := range cfg.Program.Scripts {
		st := res.Stats.Scripts[i]
		if perScript {
			// As pgbench: the count and its share are of transactions that
			// completed; the failure figures are of all the script's.
			scriptTotal := st.Total()
			w.printf("SQL script %d: %s\n", i+1, sc.Name)
			w.printf(" - weight: %d (targets %s%% of total)\n", sc.Weight, cfloat(100.0*float64(sc.Weight)/float64(cfg.Program.TotalWeight), 1))
			w.printf(" - %d transactions (%s%% of total, tps = %s)\n", st.Cnt, cfloat(pct(st.Cnt, total.Cnt), 1), cfloat(float64(st.Cnt)/res.Bench.Seconds(), 6))
			w.printf(" - number of failed transactions: %d (%s%%)\n", st.Failures(), fmtPct(pct(st.Failures(), scriptTotal)))
			writeFailures(w, " - ", st, s, scriptTotal)
			if scriptTotal > 0 {
				writeSkipped(w, " - ", st, s, scriptTotal)
			}
			writeSimple(w, " - latency", &st.Latency)
			if len(s.Percentiles) > 0 && st.Hist.Count() > 0 {
				w.printf(" - latency percentiles (ms): %s\n", percentileText(st.Hist, s.Percentiles))
			}
		}
		if cfg.PerCommand {
			writeCommands(w, s, i, perScript)
		}
	}
}

// writeCommands prints pgbench's per-command lines, then gbench's
// per-command percentiles in a block of their own.
func writeCommands(w *writer, s *Summary, script int, perScript bool) {
	writeCommandsSep(w, s, script, perScript, "  ")
}

// writeCommandsSep is writeCommands with sep between the figures and the
// command (and between failures and retries): two blanks in pgbench 15,
// one in 18.
func writeCommandsSep(w *writer, s *Summary, script int, perScript bool, sep string) {
	cfg := s.Config
	prefix := ""
	if perScript {
		prefix = " - "
	}
	what := " and failures"
	if cfg.MaxTries != 1 {
		what = ", failures and retries"
	}
	w.printf("%sstatement latencies in milliseconds%s:\n", prefix, what)
	cmds := cfg.Program.Scripts[script].Commands
	st := s.Result.Stats.Commands[script]
	for j, c := range cmds {
		avg := 0.0
		if st[j].Latency.Count > 0 {
			avg = st[j].Latency.Mean() / 1000.0
		}
		if cfg.MaxTries == 1 {
			w.printf("   %11.3f  %10d%s%s\n", avg, st[j].Failures, sep, c.FirstLine)
		} else {
			w.printf("   %11.3f  %10d%s%10d%s%s\n", avg, st[j].Failures, sep, st[j].Retries, sep, c.FirstLine)
		}
	}
	if len(s.Percentiles) == 0 {
		return
	}
	w.printf("%sstatement latency percentiles in milliseconds (%s):\n", prefix, percentileNames(s.Percentiles))
	for j, c := range cmds {
		var b strings.Builder
		for _, q := range s.Percentiles {
			b.WriteString(" ")
			b.WriteString(padLeft(strconv.FormatFloat(float64(st[j].Hist.Quantile(q))/1000.0, 'f', 3, 64), 11))
		}
		w.printf(" %s  %s\n", b.String(), c.FirstLine)
	}
}

// percentileText is "p50 = 0.512, p99 = 1.723, max = 12.502" in ms.
func percentileText(h *stats.Hist, qs []float64) string {
	var b strings.Builder
	for i, q := range qs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(percentileName(q))
		b.WriteString(" = ")
		b.WriteString(strconv.FormatFloat(float64(h.Quantile(q))/1000.0, 'f', 3, 64))
	}
	return b.String()
}

func percentileNames(qs []float64) string {
	names := make([]string, len(qs))
	for i, q := range qs {
		names[i] = percentileName(q)
	}
	return strings.Join(names, " ")
}

// percentileName spells a percentile: "p99.9", or "max" for 100.
func percentileName(q float64) string {
	if q >= 100 {
		return "max"
	}
	return "p" + strconv.FormatFloat(q, 'f', -1, 64)
}

func padLeft(s string, n int) string {
	if len(s) >= n {
		return s
	}
	return strings.Repeat(" ", n-len(s)) + s
}

// writePercentiles prints gbench's overall latency percentiles line.
func writePercentiles(w *writer, s *Summary) {
	h := s.Result.Stats.Total.Hist
	if len(s.Percentiles) == 0 || h.Count() == 0 {
		return
	}
	w.printf("latency percentiles (ms): %s\n", percentileText(h, s.Percentiles))
}
