package report

// pgbench 18's summary layout (--pgbench-output=18), from printResults in
// src/bin/pgbench/pgbench.c of PostgreSQL 18 (postgres commit cae0f3c40
// changed it): it stops before the failure lines only when no
// transaction was even scheduled, and goes on when all failed; a
// script's section counts all its transactions (processed, failed and
// skipped), then its processed ones with their tps, then always its
// failures; a per-command line has one blank before the command, not
// two. gbench's own lines (other failures under \resp or
// --continue-on-error, outages, percentiles) are where they are in the
// pgbench 15 layout.

// text18 writes the summary in pgbench 18's layout.
func text18(w *writer, s *Summary) {
	writeHeader(w, s)
	cfg, total := s.Config, s.Result.Stats.Total
	failures, totalCnt := total.Failures(), total.Total()
	if totalCnt <= 0 {
		return
	}
	w.printf("number of failed transactions: %d (%s%%)\n", failures, fmtPct(pct(failures, totalCnt)))
	writeFailures(w, "", total, s, totalCnt)
	writeOutages(w, s, total, totalCnt)
	writeSkipped(w, "", total, s, totalCnt)
	writeLate(w, cfg, total)
	writeLatency(w, s, total, totalCnt)
	writeTPS(w, s, total)
	writeScripts18(w, s)
	writePercentiles(w, s)
	writeNOPM(w, s)
	writeCache(w, s)
}

// writeScripts18 prints pgbench 18's per-script sections and -r lines.
func writeScripts18(w *writer, s *Summary) {
	cfg, res := s.Config, s.Result
	perScript := len(cfg.Program.Scripts) > 1
	if !perScript && !cfg.PerCommand {
		return
	}
	totalCnt := res.Stats.Total.Total()
	for i, sc := range cfg.Program.Scripts {
		st := res.Stats.Scripts[i]
		if perScript {
			n := st.Total()
			w.printf("SQL script %d: %s\n", i+1, sc.Name)
			w.printf(" - weight: %d (targets %s%% of total)\n", sc.Weight, cfloat(100.0*float64(sc.Weight)/float64(cfg.Program.TotalWeight), 1))
			w.printf(" - %d transactions (%s%% of total)\n", n, cfloat(pct(n, totalCnt), 1))
			if n > 0 {
				w.printf(" - number of transactions actually processed: %d (tps = %s)\n", st.Cnt, cfloat(float64(st.Cnt)/res.Bench.Seconds(), 6))
				w.printf(" - number of failed transactions: %d (%s%%)\n", st.Failures(), fmtPct(pct(st.Failures(), n)))
				writeFailures(w, " - ", st, s, n)
				writeSkipped(w, " - ", st, s, n)
			}
			writeSimple(w, " - latency", &st.Latency)
			if len(s.Percentiles) > 0 && st.Hist.Count() > 0 {
				w.printf(" - latency percentiles (ms): %s\n", percentileText(st.Hist, s.Percentiles))
			}
		}
		if cfg.PerCommand {
			writeCommandsSep(w, s, i, perScript, " ")
		}
	}
}
