package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/output/report"
)

// TestWaitEvents runs a script whose every transaction sleeps in the
// server under --wait-events: the summary's lines after pgbench's and the
// JSON's wait_events must show the sleep, the clients' only wait while
// they run; and the option's bad values and a run without SQL are
// refused.
func TestWaitEvents(t *testing.T) {
	pg := testsrv.StartPostgres(t, testsrv.PGOptions{})
	script := writeScript(t, "SELECT pg_sleep(0.02);\n")
	out := filepath.Join(t.TempDir(), "r.json")
	o := runGbench("-n", "-f", script, "-c", "4", "-T", "2", "--wait-events=20ms", "--json", out, pg.ConnString())
	if o.code != 0 {
		t.Fatalf("exit %d\n%s", o.code, o.stderr)
	}
	if !strings.Contains(o.stdout, "wait events: ") || !strings.Contains(o.stdout, " - Timeout:PgSleep: ") {
		t.Errorf("summary:\n%s", o.stdout)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var r report.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	w := r.WaitEvents
	if w == nil || w.Reads == 0 || len(w.Events) == 0 || w.IntervalS != 0.02 {
		t.Fatalf("wait_events %+v (note %q)", w, r.WaitEventsNote)
	}
	// Each client spends 20 ms asleep per transaction and little else;
	// the sleep is the largest state, whatever the machine's speed.
	if e := w.Events[0]; e.Type != "Timeout" || e.Event != "PgSleep" {
		t.Errorf("first event %+v; profile %+v", e, w.Events)
	}
	if w.Cost.Queries < w.Reads {
		t.Errorf("cost %+v", w.Cost)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--wait-events=5", "-f", script}, `invalid value "5" for option --wait-events`},
		{[]string{"--wait-events=1ms", "-f", script}, "--wait-events must be in range 10ms..1m0s"},
		{[]string{"--wait-events", "-f", writeScript(t, "\\resp PING\n"), "--resp", "redis://127.0.0.1:1"}, "--wait-events samples PostgreSQL"},
	} {
		if o := runGbench(append(c.args, "-T", "1", pg.ConnString())...); o.code != 1 || !strings.Contains(o.stderr, c.want) {
			t.Errorf("%q: exit %d, stderr %q; want %q", c.args, o.code, o.stderr, c.want)
		}
	}
}
