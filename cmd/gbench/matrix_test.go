package main

// Tests of "gbench matrix" and "gbench report": a smoke matrix through a
// sandbox, the contract check and Ctrl-C on the test servers, the options,
// and the report's refusals.

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/workloads"
)

// readMatrixFile reads a matrix result or fails the test.
func readMatrixFile(t *testing.T, path string) *schema.Result {
	t.Helper()
	r, err := readFile(path, schema.Read)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestMatrixSandboxSmoke runs a small matrix through a sandbox, end to
// end, then its report.
func TestMatrixSandboxSmoke(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "x.json")
	o := runGbench("matrix", "--connections", "4", "--repeats", "1", "--duration", "1", "--keys-per-request", "1,16", "--out", out)
	if o.code != exitOK {
		if strings.Contains(o.stderr, "not found (looked in") {
			testsrv.Need(t, "no PostgreSQL or Redis to start a sandbox with:\n%s", o.stderr)
		}
		t.Fatalf("gbench matrix: exit status %d\n%s", o.code, o.stderr)
	}
	r := readMatrixFile(t, out)
	checkSmokeResult(t, r)
	if n := strings.Count(o.stderr, "gbench matrix: ["); n != 6 {
		t.Errorf("%d progress lines, want one per sample (6):\n%s", n, o.stderr)
	}

	rep := runGbench("report", out, "-o", filepath.Join(dir, "report"))
	if rep.code != exitOK {
		t.Fatalf("gbench report: exit status %d\n%s", rep.code, rep.stderr)
	}
	md, err := os.ReadFile(filepath.Join(dir, "report", "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"### 1 key per request", "### 16 keys per request", "## Ratios", "## Latency at 4 connections",
		"## Cost per request at 4 connections", "(throwaway sandbox, durability on)", "Contract check: passed", "## Server resources and wait events",
		"## Server CPU over time", " | RESP hits/req | RESP miss ratio | ", "RESP counters — for sql-any, sql-mget: "} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report.md has no %q", want)
		}
	}
	for _, k := range []int{1, 16} {
		for _, name := range []string{fmt.Sprintf("reqs-keys%d.svg", k), fmt.Sprintf("latency-keys%d.svg", k)} {
			checkSVGFile(t, filepath.Join(dir, "report", name), r.Plan.Paths)
			if !strings.Contains(string(md), "]("+name+")") {
				t.Errorf("report.md does not link %s", name)
			}
		}
	}
	// The servers' CPU over time, a chart per row of keys × connections.
	for _, name := range []string{"server-cpu-1.svg", "server-cpu-2.svg"} {
		b, err := os.ReadFile(filepath.Join(dir, "report", name))
		if err == nil {
			err = wellFormedSVG(b)
		}
		if err != nil || !strings.Contains(string(md), "]("+name+")") {
			t.Errorf("%s: %v, or report.md does not link it", name, err)
		}
	}
}

// checkSmokeResult checks the JSON of the smoke matrix: every sample
// there with plausible figures, the contract, the environment.
func checkSmokeResult(t *testing.T, r *schema.Result) {
	t.Helper()
	if r.Partial || r.Interrupted || r.FailedSamples != 0 || !r.Contract.Passed {
		t.Errorf("partial %v, interrupted %v, failed %d, contract %+v", r.Partial, r.Interrupted, r.FailedSamples, r.Contract)
	}
	e := &r.Environment
	if e.Gbench != version || e.Go == "" || e.OS.Sysname == "" || e.CPU.Count < 1 || len(e.LoadStart) != 3 ||
		!e.Postgres.Sandbox || e.Postgres.Durability != "on" || !strings.HasPrefix(e.Postgres.Version, "1") || e.Redis.Version == "" || len(e.Postgres.Settings) == 0 ||
		!slices.Contains(e.Command, "--keys-per-request") || r.End.Before(r.Start) {
		t.Errorf("environment: %+v", e)
	}
	if len(r.Warmup) != 3 || r.Plan.Items != workloads.DefaultItems || r.Plan.ValueSize != workloads.DefaultValueSize {
		t.Errorf("warm-up %+v, plan %+v", r.Warmup, r.Plan)
	}
	seen := map[string]bool{}
	for _, s := range r.Samples {
		id := fmt.Sprintf("%s/%d/%d", s.Path, s.Keys, s.Connections)
		seen[id] = true
		// A sample of --duration 1 measures at least its second (one that
		// ignored it would never end: the test's timeout says so) and
		// completes requests; how many is the machine's speed, not a
		// behaviour.
		if !s.Valid() || s.Requests < 1 || s.ReqS <= 0 || s.BenchS < 1 || s.Connections != 4 || s.Repeat != 1 {
			t.Errorf("%s: %+v", id, s)
		}
		l := &s.Latency
		if !(0 < l.P50Us && l.P50Us <= l.P90Us && l.P90Us <= l.P99Us && l.P99Us <= l.P999Us && l.P999Us <= l.MaxUs) || l.HDR == "" {
			t.Errorf("%s: latency %+v", id, l)
		}
		if s.Client.CPUUsPerReq <= 0 {
			t.Errorf("%s: client %+v", id, s.Client)
		}
		checkServerCost(t, id, &s)
	}
	if len(seen) != 6 || len(r.Samples) != 6 {
		t.Errorf("%d samples of %d cells, want 6 of 6: %v", len(r.Samples), len(seen), seen)
	}
}

// checkServerCost checks a sandbox sample's server figures.
func checkServerCost(t *testing.T, id string, s *schema.Sample) {
	t.Helper()
	srv := s.Server
	if srv == nil || srv.Memory == nil || srv.Memory.Bytes <= 0 {
		t.Errorf("%s: server %+v", id, srv)
		return
	}
	// The resource record is there, or absent with the reason (a machine
	// without cgroups); a PostgreSQL's wait profile is always there.
	if (srv.Resources == nil) == (srv.ResourcesNote == "") {
		t.Errorf("%s: resources %+v, note %q", id, srv.Resources, srv.ResourcesNote)
	}
	if r := srv.Resources; r != nil && (r.Memory == nil) == (r.MemoryNote == "") {
		t.Errorf("%s: cgroup memory %+v, note %q", id, r.Memory, r.MemoryNote)
	}
	if strings.HasPrefix(srv.Name, "postgres") && (srv.WaitEvents == nil || srv.WaitEvents.Reads == 0) {
		t.Errorf("%s: wait events %+v (%q)", id, srv.WaitEvents, srv.WaitEventsNote)
	}
	// A CPU figure is there and sound, or absent with the reason: a loaded
	// machine's late progress ticks can leave a 1 s sample's steady window
	// too short to measure, and gbench then refuses rather than guess
	// (TestServerCPUTruth checks the figures themselves).
	switch {
	case srv.CPU == nil && srv.CPUNote == "":
		t.Errorf("%s: no server CPU and no reason", id)
	case srv.CPU == nil:
		t.Logf("%s: server CPU refused: %s", id, srv.CPUNote)
	case srv.CPU.Window != "steady" || srv.CPU.Requests <= 0 || srv.CPU.UsPerReq <= 0 || srv.CPUNote != "":
		t.Errorf("%s: cpu %+v, note %q", id, srv.CPU, srv.CPUNote)
	}
	// A sandbox's servers are all measured: every one has a CPU series
	// from the figure's source (TestCPUSeries checks the series itself).
	if c := srv.CPUSeries; c == nil || len(c.Reads) < 2 || c.Reads[len(c.Reads)-1].AtS < s.BenchS || srv.CPU != nil && c.Source != srv.CPU.Source {
		t.Errorf("%s: cpu series %+v, note %q", id, c, srv.CPUSeriesNote)
	}
	total := s.Requests + s.Failures
	switch srv.Name {
	case "postgres":
		if s.RESP != nil {
			t.Errorf("%s: an SQL path has resp counters %+v", id, *s.RESP)
		}
		// One transaction per request, and a few of the probe's own.
		if c := srv.Counters["xact_commit"]; c < total || c > total+50 || srv.Memory.Kind != "pss" {
			t.Errorf("%s: xact_commit %d for %d requests; memory %+v", id, c, total, srv.Memory)
		}
	case "redis":
		if c := srv.Counters["keyspace_hits"]; c != total*int64(s.Keys) {
			t.Errorf("%s: keyspace_hits %d for %d requests of %d keys", id, c, total, s.Keys)
		}
		// The client's count of the same hits, and no more bytes than the
		// server saw.
		if rc := s.RESP; rc == nil || rc.Hits != srv.Counters["keyspace_hits"] || rc.BytesSent > srv.Counters["total_net_input_bytes"] ||
			rc.BytesReceived > srv.Counters["total_net_output_bytes"] {
			t.Errorf("%s: resp counters %+v, server counters %v", id, rc, srv.Counters)
		}
	default:
		t.Errorf("%s: server %q", id, srv.Name)
	}
}

// checkSVGFile checks that a chart parses as SVG and names every path.
func checkSVGFile(t *testing.T, path string, paths []schema.PlanPath) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := wellFormedSVG(b); err != nil {
		t.Errorf("%s: %v", path, err)
	}
	for _, p := range paths {
		if !strings.Contains(string(b), ">"+p.Name+"<") {
			t.Errorf("%s does not name %s", path, p.Name)
		}
	}
}

// wellFormedSVG parses doc as XML with an svg root element.
func wellFormedSVG(doc []byte) error {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	root := ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		return fmt.Errorf("root element %q, want svg", root)
	}
	return nil
}

// matrixFixture is a scratch database and Redis database of the test
// servers, with the dataset loaded.
type matrixFixture struct {
	pg    string // conninfo of the scratch database
	redis string // URL of the scratch Redis database
}

// newMatrixFixture loads the dataset into a scratch database and a
// scratch Redis database.
func newMatrixFixture(t *testing.T) *matrixFixture {
	t.Helper()
	cfg := needServer(t)
	f := &matrixFixture{pg: scratchDB(t, cfg, "matrix")}
	url, redis := claimRedis(t, matrixClaimKey, 1, 8)
	f.redis = url
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pg, err := pgsql.Open(ctx, f.pg)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	if err := workloads.Load(ctx, pg, redis, workloads.Options{Keys: 1000}); err != nil {
		t.Fatal(err)
	}
	return f
}

// matrixClaimKey marks a Redis database (1..8) as used by a run of the
// matrix tests; the workload tests use 9..15.
const matrixClaimKey = "gbench:matrix-test-claim"

// TestMatrixRefusesABrokenContract replaces mget with one that drops
// duplicate keys: the matrix must refuse to measure, exit with status 1
// and name the case and the path.
func TestMatrixRefusesABrokenContract(t *testing.T) {
	f := newMatrixFixture(t)
	admin(t, dbConfig(t, f.pg), `CREATE OR REPLACE FUNCTION gbench.mget(keys bigint[]) RETURNS json LANGUAGE sql STABLE AS $$
  SELECT coalesce(json_agg(i.v ORDER BY k.ord), '[]')
  FROM (SELECT id, min(ord) AS ord FROM unnest(keys) WITH ORDINALITY AS u(id, ord) GROUP BY id) AS k
  LEFT JOIN gbench.items AS i ON i.id = k.id
$$`)
	out := filepath.Join(t.TempDir(), "bad.json")
	o := runGbench("matrix", "--pg", f.pg, "--resp", f.redis, "-c", "2", "--keys-per-request", "1", "--repeats", "1", "-T", "0.5", "-o", out)
	if o.code != exitUsage {
		t.Fatalf("exit status %d, want 1\n%s", o.code, o.stderr)
	}
	for _, want := range []string{"gbench: error: contract check failed", `case "duplicates"`, "sql-mget", "nothing was measured"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr has no %q:\n%s", want, o.stderr)
		}
	}
	if strings.Contains(o.stderr, "gbench matrix: [") {
		t.Errorf("samples ran after the contract failed:\n%s", o.stderr)
	}
	r := readMatrixFile(t, out)
	if r.Contract.Passed || !strings.Contains(r.Contract.Error, "duplicates") || len(r.Samples) != 0 || !r.Partial {
		t.Errorf("result: contract %+v, %d samples, partial %v", r.Contract, len(r.Samples), r.Partial)
	}
	rep := runGbench("report", out, "--partial", "-o", t.TempDir())
	if rep.code != exitUsage || !strings.Contains(rep.stderr, "the contract check failed") {
		t.Errorf("report of a failed contract: exit %d\n%s", rep.code, rep.stderr)
	}
}

// TestMatrixInterrupted runs a matrix on the test servers and interrupts
// it after the first sample: the run stops after the current sample, the
// JSON is marked partial and holds the samples that completed, the exit
// status is 2, and the report refuses it unless --partial.
func TestMatrixInterrupted(t *testing.T) {
	f := newMatrixFixture(t)
	out := filepath.Join(t.TempDir(), "partial.json")
	var stdout, stderr lockedBuffer
	sigs := make(chan chan<- os.Signal, 1)
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }, Now: time.Now,
		Signals: func(c chan<- os.Signal) { sigs <- c }}
	done := make(chan int)
	go func() {
		done <- Run(env, []string{"matrix", "--pg", f.pg, "--resp", f.redis, "--paths", "sql-mget,resp-mget", "-c", "2",
			"--keys-per-request", "4", "--repeats", "5", "-T", "0.5", "--warmup", "0.2", "-o", out})
	}()
	sig := <-sigs
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(stderr.String(), "gbench matrix: [1/") && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	sig <- os.Interrupt
	code := <-done
	if code != exitRun || !strings.Contains(stderr.String(), "interrupted after") {
		t.Fatalf("exit status %d, want 2\n%s", code, stderr.String())
	}
	r := readMatrixFile(t, out)
	if !r.Partial || !r.Interrupted || len(r.Samples) == 0 || len(r.Samples) >= 10 {
		t.Fatalf("partial %v, interrupted %v, %d samples", r.Partial, r.Interrupted, len(r.Samples))
	}
	for _, s := range r.Samples {
		if !s.Valid() || s.Requests == 0 || s.Server == nil || len(s.Server.Counters) == 0 {
			t.Errorf("sample %+v", s)
		}
	}
	if e := r.Environment.Postgres; e.Sandbox || e.Database == "" || !strings.HasPrefix(e.Address, "127.0.0.1:") {
		t.Errorf("postgres endpoint %+v", e)
	}
	rep := runGbench("report", out)
	if rep.code != exitUsage || !strings.Contains(rep.stderr, "is a partial result") || !strings.Contains(rep.stderr, "--partial") {
		t.Errorf("report of a partial result: exit %d\n%s", rep.code, rep.stderr)
	}
	dir := t.TempDir()
	rep = runGbench("report", out, "--partial", "-o", dir)
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if rep.code != exitOK || !strings.Contains(string(md), "**Partial result.**") {
		t.Errorf("report --partial: exit %d\n%s\n%s", rep.code, rep.stderr, md)
	}
}

// TestMatrixOptions checks the environment variables, their precedence
// under flags, and the errors.
func TestMatrixOptions(t *testing.T) {
	envOf := func(vars map[string]string) *Env {
		return &Env{Stdout: &lockedBuffer{}, Stderr: &lockedBuffer{}, Getenv: func(k string) string { return vars[k] },
			Now: func() time.Time { return time.Unix(0, 1234) }}
	}
	vars := map[string]string{"CONNECTIONS": "8 16", "BATCHES": "2,3", "REPEATS": "4", "DURATION_SECONDS": "0.5"}
	o, _, err := parseMatrixArgs(envOf(vars), nil)
	if err != nil || !slices.Equal(o.connections, []int{8, 16}) || !slices.Equal(o.keys, []int{2, 3}) || o.repeats != 4 || o.duration != 0.5 || o.seed != 1234 {
		t.Errorf("from the environment: %+v, %v", o, err)
	}
	o, _, err = parseMatrixArgs(envOf(vars), []string{"-c", "64,4", "--keys-per-request", "1", "--repeats", "1", "-T", "2", "--seed", "9", "--paths", "resp-mget,sql-any"})
	if err != nil || !slices.Equal(o.connections, []int{4, 64}) || !slices.Equal(o.keys, []int{1}) || o.repeats != 1 || o.duration != 2 ||
		o.seed != 9 || o.paths != "resp-mget,sql-any" {
		t.Errorf("flags over the environment: %+v, %v", o, err)
	}
	o, _, err = parseMatrixArgs(envOf(nil), []string{"--durability=off"})
	if cfg, cerr := o.config(envOf(nil), nil); err != nil || cerr != nil || !cfg.DurabilityOff {
		t.Errorf("--durability=off: %v, %v", err, cerr)
	}
	o, _, err = parseMatrixArgs(envOf(vars), []string{"-c", "64,4", "--keys-per-request", "1", "--repeats", "1", "-T", "2", "--seed", "9", "--paths", "resp-mget,sql-any"})
	if err != nil {
		t.Fatal(err)
	}
	o.pg, o.resp = "host=h password=secret", "redis://h"
	cfg, err := o.config(envOf(vars), []string{"--pg", "host=h password=secret"})
	if err != nil || cfg.Variables["CONNECTIONS"] != "8 16" || strings.Contains(strings.Join(cfg.Command, " "), "secret") ||
		len(cfg.Paths) != 2 || cfg.Paths[0].Name != "sql-any" || cfg.Paths[1].Name != "resp-mget" || cfg.Name != "read" ||
		!slices.Equal(cfg.Connections, []int{4, 64}) || cfg.Repeats != 1 || cfg.Duration != 2*time.Second || cfg.Seed != 9 {
		t.Errorf("config: %+v, %v", cfg, err)
	}
	for _, c := range []struct {
		vars map[string]string
		args []string
		want string
	}{
		{nil, []string{"--keys-per-request", "1,x"}, `invalid value "1,x" for option --keys-per-request`},
		{nil, []string{"--repeats", "0"}, "--repeats must be in range 1..10000"},
		{nil, []string{"-T", "0.01"}, `invalid value "0.01" for option --duration`},
		{nil, []string{"--load"}, "--load needs --pg or --resp"},
		{nil, []string{"--durability", "maybe"}, `--durability: invalid durability "maybe"`},
		{nil, []string{"--durability=off", "--pg", "host=h"}, "--durability sets the sandbox's PostgreSQL"},
		{nil, []string{"-T", "1", "--requests", "100"}, "--duration and --requests go one at a time"},
		{nil, []string{"--pg", "host=x", "--resp", "redis://x", "--items", "500"}, "add --load"},
		{nil, []string{"extra"}, `unexpected argument "extra"`},
		{map[string]string{"REPEATS": "many"}, nil, `invalid value "many" for environment variable REPEATS`},
		{map[string]string{"CONNECTIONS": ","}, nil, `invalid value "," for environment variable CONNECTIONS`},
	} {
		_, _, err := parseMatrixArgs(envOf(c.vars), c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v %q: error %v, want %q", c.vars, c.args, err, c.want)
		}
	}
	// Errors found once the plan is read.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--paths", "sql-any,redis"}, `invalid path "redis" for option --paths: expected some of sql-any, sql-mget, resp-mget`},
		{[]string{"--pg", "host=x"}, "the plan's paths talk to a RESP server: give --resp URL too"},
		{[]string{"--pg", "host=x", "--paths", "sql-any"}, ""},
		{[]string{"--resp", "redis://x", "--paths", "resp-mget"}, ""},
		{[]string{"--plan", "nosuch"}, `no plan file "nosuch" and no bundled plan of that name (bundled: read, coldfill, mixed, sessions, unlogged, writes`},
		{[]string{"--plan", "unlogged", "--keys-per-request", "1"}, "--keys-per-request (or BATCHES): the plan's scripts read no list of keys"},
		{[]string{"--plan", "mixed", "--keys-per-request", "256"}, "256 keys per request cannot be distinct among 128 hot rows"},
		{[]string{"--plan", "mixed", "-c", "64", "--requests", "10"}, "10 requests per sample cannot be shared by 64 connections"},
	} {
		o, _, err := parseMatrixArgs(envOf(nil), c.args)
		if err == nil {
			_, err = o.config(envOf(nil), c.args)
		}
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%q: error %v, want %q", c.args, err, c.want)
		}
	}
}

// TestReportRefuses checks that gbench report refuses what it cannot
// report honestly.
func TestReportRefuses(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, edit func(*schema.Result)) string {
		r := &schema.Result{Schema: schema.Version, Contract: schema.Contract{Passed: true},
			Plan:    schema.Plan{Paths: []schema.PlanPath{{Name: "sql-any"}}, Keys: []int{1}, Connections: []int{4}, Repeats: 2, DurationS: 5},
			Samples: []schema.Sample{{Path: "sql-any", Keys: 1, Connections: 4, Repeat: 1, ReqS: 100}, {Path: "sql-any", Keys: 1, Connections: 4, Repeat: 2, ReqS: 110}}}
		edit(r)
		path := filepath.Join(dir, name)
		if err := writeMatrix(path, r); err != nil {
			t.Fatal(err)
		}
		return path
	}
	whole := write("whole.json", func(*schema.Result) {})
	partial := write("partial.json", func(r *schema.Result) { r.Partial, r.Samples = true, r.Samples[:1] })
	failed := write("failed.json", func(r *schema.Result) { r.FailedSamples, r.Samples[1].Error = 1, "2 clients aborted" })
	noContract := write("contract.json", func(r *schema.Result) { r.Contract, r.Samples = schema.Contract{Error: "case x"}, nil })
	notMatrix := filepath.Join(dir, "run.json")
	if err := os.WriteFile(notMatrix, []byte(`{"schema": "gbench-result/1"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{whole, "-o", filepath.Join(dir, "out")}, exitOK, "gbench report: wrote"},
		{[]string{partial}, exitUsage, "is a partial result (1 of 2 samples"},
		{[]string{partial, "--partial", "-o", filepath.Join(dir, "p")}, exitOK, "gbench report: wrote"},
		{[]string{failed}, exitUsage, "has 1 failed samples"},
		{[]string{failed, "--partial", "-o", filepath.Join(dir, "f")}, exitOK, "gbench report: wrote"},
		{[]string{noContract, "--partial"}, exitUsage, "the contract check failed"},
		{[]string{notMatrix}, exitUsage, `not a gbench matrix result: schema is "gbench-result/1"`},
		{[]string{filepath.Join(dir, "nope.json")}, exitUsage, `could not open file`},
		{nil, exitUsage, "expected one result file"},
	} {
		o := runGbench(append([]string{"report"}, c.args...)...)
		if o.code != c.code || !strings.Contains(o.stderr, c.want) {
			t.Errorf("report %q: exit %d, stderr %q; want %d and %q", c.args, o.code, o.stderr, c.code, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "out", "reqs-keys1.svg")); err != nil {
		t.Error(err)
	}
}

// TestMatrixResultIsJSON makes sure a result survives the round trip
// through the file the command writes.
func TestMatrixResultIsJSON(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.json")
	if err := writeMatrix(path, &schema.Result{Schema: schema.Version, Plan: schema.Plan{Seed: math.MaxUint64, Repeats: 1, DurationS: 1, Connections: []int{1}}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil || string(raw["schema"]) != `"gbench-matrix/2"` {
		t.Fatalf("%s: %v", b, err)
	}
	if r := readMatrixFile(t, path); r.Plan.Seed != math.MaxUint64 {
		t.Errorf("seed %d after the round trip", r.Plan.Seed)
	}
}
