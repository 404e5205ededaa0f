package main

import (
	"path/filepath"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/output/report"
)

// TestJSONRecordsContext runs one SQL and RESP run with --json and checks
// the context and activity it records: the servers' versions, the
// non-default settings, the WAL written by the run's inserts.
func TestJSONRecordsContext(t *testing.T) {
	needServer(t)
	redisURL := testsrv.NeedRedis(t)
	dir := t.TempDir()
	script := writeScript(t, "CREATE TEMP TABLE IF NOT EXISTS ctx_t (v text);\nINSERT INTO ctx_t SELECT repeat('x', 1000) FROM generate_series(1, 100);\n\\resp PING\n")
	out := filepath.Join(dir, "run.json")
	o := runGbench("-n", "-f", script, "-t", "20", "--resp", redisURL, "--json", out, testConninfo())
	if o.code != exitOK {
		t.Fatalf("status %d\n%s", o.code, o.stderr)
	}
	r, err := readFile(out, report.ReadResult)
	if err != nil {
		t.Fatal(err)
	}
	c := r.Context
	if c == nil || c.Postgres == nil || c.Redis == nil || len(c.Notes) > 0 {
		t.Fatalf("context %+v", c)
	}
	if c.Postgres.Version == "" || c.Postgres.VersionNum < 100000 || c.Redis.Version == "" || len(c.Redis.Settings) == 0 {
		t.Errorf("servers: %+v %+v", c.Postgres, c.Redis)
	}
	app := false
	for _, s := range c.Postgres.Settings {
		app = app || (s.Name == "application_name" && s.Value == "gbench" && s.Source == "client")
	}
	if !app {
		t.Errorf("the client's application_name is not among the non-default settings: %+v", c.Postgres.Settings)
	}
	if c.Gbench.Version != version || len(c.Gbench.Command) < 5 || c.Gbench.Command[0] != "gbench" || c.Client.Cores < 1 {
		t.Errorf("gbench and client: %+v %+v", c.Gbench, c.Client)
	}
	a := r.Activity
	// The temporary table's rows skip the WAL, but creating it does not.
	if a == nil || a.Postgres == nil || a.Postgres.WALBytes == nil || *a.Postgres.WALBytes <= 0 || a.Redis == nil {
		t.Fatalf("activity %+v", a)
	}
	if !a.End.After(a.Start) || a.Start.After(r.Start) {
		t.Errorf("activity window %v–%v, run start %v", a.Start, a.End, r.Start)
	}
}
