package main

// Faults that are not gbench's during a matrix run: the server ends the
// sample's connections (as a restart or a network cut does). A sample
// that fails is tried again, every failed try is recorded and reported,
// and one that fails every try keeps the contract of a failed sample.

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
)

// backendKiller ends the connections of a sample of a matrix run on the
// scratch database db: whenever more than the runner's own probe
// connection (the oldest of application_name gbench-matrix) is connected,
// it terminates the others, up to limit times (each a sample's try).
type backendKiller struct {
	kills atomic.Int32
	stop  chan struct{}
	done  chan struct{}
}

func killBackends(t *testing.T, conninfo string, conns, limit int) *backendKiller {
	t.Helper()
	ctx := context.Background()
	admin, err := pgsql.Open(ctx, conninfo)
	if err != nil {
		t.Fatal(err)
	}
	k := &backendKiller{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(k.done)
		defer admin.Close()
		for int(k.kills.Load()) < limit {
			select {
			case <-k.stop:
				return
			case <-time.After(20 * time.Millisecond):
			}
			// The sample's connections are open once conns of them are
			// there beside the probe's; they are busy then, mid-sample.
			rows, err := admin.QueryText(ctx, `SELECT pid FROM pg_stat_activity
				WHERE datname = current_database() AND application_name = 'gbench-matrix' ORDER BY backend_start OFFSET 1`)
			if err == nil && len(rows) >= conns {
				for _, r := range rows {
					if _, err = admin.QueryText(ctx, "SELECT pg_terminate_backend($1::int)", r[0]); err != nil {
						break
					}
				}
			}
			if err != nil {
				t.Errorf("killing backends: %v", err)
				return
			}
			if len(rows) >= conns {
				k.kills.Add(1)
			}
		}
	}()
	return k
}

func (k *backendKiller) end() int {
	close(k.stop)
	<-k.done
	return int(k.kills.Load())
}

// TestMatrixRetriesAFault ends a sample's connections once: the sample
// fails, is tried again after its pause, and succeeds; the JSON keeps the
// failed try with its error and the report names the retried cell.
func TestMatrixRetriesAFault(t *testing.T) {
	f := newMatrixFixture(t)
	out := filepath.Join(t.TempDir(), "retried.json")
	k := killBackends(t, f.pg, 2, 1)
	o := runGbench("matrix", "--pg", f.pg, "--resp", f.redis, "--paths", "sql-any", "-c", "2", "--keys-per-request", "4",
		"--repeats", "1", "-T", "2", "--warmup", "0", "--retries", "2", "-o", out)
	if kills := k.end(); kills != 1 {
		t.Fatalf("the sample's connections were ended %d times, want once\n%s", kills, o.stderr)
	}
	if o.code != exitOK || !strings.Contains(o.stderr, "try 1 failed") || !strings.Contains(o.stderr, "(try 2)") {
		t.Fatalf("exit status %d, want 0 after a retry\n%s", o.code, o.stderr)
	}
	r := readMatrixFile(t, out)
	if r.Partial || r.FailedSamples != 0 || len(r.Samples) != 1 {
		t.Fatalf("partial %v, failed %d, %d samples", r.Partial, r.FailedSamples, len(r.Samples))
	}
	s := r.Samples[0]
	if !s.Valid() || s.Requests == 0 || len(s.Retries) != 1 || s.Retries[0].Error == "" || s.Retries[0].Start.IsZero() ||
		!s.Retries[0].Start.Before(s.Start) {
		t.Fatalf("sample %+v, retries %+v", s, s.Retries)
	}
	dir := t.TempDir()
	rep := runGbench("report", out, "-o", dir)
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if rep.code != exitOK || !strings.Contains(string(md), "- Retried sample: sql-any, 4 keys, 2 connections, repeat 1: try 1 failed at") {
		t.Errorf("report: exit %d\n%s\n%s", rep.code, rep.stderr, md)
	}
}

// TestMatrixGivesUpAfterItsRetries ends the connections of every try: the
// sample fails with all its tries recorded, the run exits with status 2
// and keeps its JSON, and the report refuses it without --partial.
func TestMatrixGivesUpAfterItsRetries(t *testing.T) {
	f := newMatrixFixture(t)
	out := filepath.Join(t.TempDir(), "failed.json")
	k := killBackends(t, f.pg, 2, 2)
	o := runGbench("matrix", "--pg", f.pg, "--resp", f.redis, "--paths", "sql-any", "-c", "2", "--keys-per-request", "4",
		"--repeats", "1", "-T", "2", "--warmup", "0", "--retries", "1", "-o", out)
	if kills := k.end(); kills != 2 {
		t.Fatalf("the connections were ended %d times, want on both tries\n%s", kills, o.stderr)
	}
	if o.code != exitRun || !strings.Contains(o.stderr, "FAILED") {
		t.Fatalf("exit status %d, want 2\n%s", o.code, o.stderr)
	}
	r := readMatrixFile(t, out)
	if r.Partial || r.FailedSamples != 1 || len(r.Samples) != 1 { // every sample is there, one failed
		t.Fatalf("partial %v, failed %d, %d samples", r.Partial, r.FailedSamples, len(r.Samples))
	}
	if s := r.Samples[0]; !s.Failed() || len(s.Retries) != 1 || s.Retries[0].Error == "" {
		t.Fatalf("sample %+v", s)
	}
	rep := runGbench("report", out, "-o", t.TempDir())
	if rep.code != exitUsage || !strings.Contains(rep.stderr, "--partial") {
		t.Errorf("report of a result with a failed sample: exit %d\n%s", rep.code, rep.stderr)
	}
	dir := t.TempDir()
	rep = runGbench("report", out, "--partial", "-o", dir)
	md, _ := os.ReadFile(filepath.Join(dir, "report.md"))
	if rep.code != exitOK || !strings.Contains(string(md), "- Failed sample: sql-any, 4 keys, 2 connections, repeat 1:") ||
		!strings.Contains(string(md), "- Retried sample: sql-any") {
		t.Errorf("report --partial: exit %d\n%s\n%s", rep.code, rep.stderr, md)
	}
}
