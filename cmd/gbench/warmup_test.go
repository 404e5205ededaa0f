package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestWarmupDiscardsItsFigures runs a script that inserts one row per
// transaction with --warmup: the server holds the warm-up's rows and the
// measured ones, the summary and JSON count only the measured ones, -T
// counts after the warm-up, and the summary's last line says so.
func TestWarmupDiscardsItsFigures(t *testing.T) {
	cfg := needServer(t)
	db := scratchDB(t, cfg, "warmup")
	dbc := dbConfig(t, db)
	admin(t, dbc, "create table w (n int)")
	f := filepath.Join(t.TempDir(), "ins.sql")
	os.WriteFile(f, []byte("insert into w values (1);\nselect pg_sleep(0.01);\n"), 0o644)
	js := filepath.Join(t.TempDir(), "r.json")
	out := runGbench("-n", "-f", f, "-T", "1", "--warmup", "3", "--json", js, db)
	if out.code != 0 {
		t.Fatalf("exit %d\n%s", out.code, out.stderr)
	}
	var r struct {
		Counters struct {
			Processed int64 `json:"processed"`
		} `json:"counters"`
		Durations struct {
			BenchS float64 `json:"bench_s"`
		} `json:"durations"`
		Warmup *struct {
			Seconds      float64 `json:"seconds"`
			Transactions int64   `json:"transactions"`
		} `json:"warmup"`
	}
	data, _ := os.ReadFile(js)
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatal(err)
	}
	rows, err := query(dbc, "select count(*) from w")
	if err != nil {
		t.Fatal(err)
	}
	total, _ := strconv.ParseInt(rows[0][0], 10, 64)
	if r.Warmup == nil || r.Warmup.Seconds != 3 || r.Warmup.Transactions == 0 || r.Warmup.Transactions+r.Counters.Processed != total {
		t.Errorf("rows %d, processed %d, warm-up %+v", total, r.Counters.Processed, r.Warmup)
	}
	// -T 1 after a 3 s warm-up: the benchmarking time leaves the warm-up
	// out (with it, it would be 4 s and more).
	if r.Durations.BenchS < 0.9 || r.Durations.BenchS > 3 {
		t.Errorf("measured %.2f s, want 1", r.Durations.BenchS)
	}
	if !strings.Contains(out.stdout, "number of transactions actually processed: "+strconv.FormatInt(r.Counters.Processed, 10)+"\n") {
		t.Errorf("summary\n%s", out.stdout)
	}
	if want := "warm-up: 3 s before the measurement, " + strconv.FormatInt(r.Warmup.Transactions, 10) + " transactions discarded"; !strings.Contains(lines(out.stdout)[len(lines(out.stdout))-1], want) {
		t.Errorf("last line %q, want %q", lines(out.stdout)[len(lines(out.stdout))-1], want)
	}
}
