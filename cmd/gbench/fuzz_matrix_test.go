package main

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/matrix"
)

// FuzzMatrixArgs feeds command lines (NUL-separated) and the environment
// variables CONNECTIONS, BATCHES, REPEATS and DURATION_SECONDS to "gbench
// matrix" option parsing and to the configuration it builds, without
// running anything: every refusal is a usage error, and what is accepted
// is a sound plan (distinct counts from 1, durations in range, at most
// schema.MaxPlanCells cells) that "gbench report" will read back. Seeds
// are in testdata/fuzz/FuzzMatrixArgs.
func FuzzMatrixArgs(f *testing.F) {
	for _, c := range [][5]string{
		{"--keys-per-request=1,16,64\x00-c\x004,64\x00--repeats=3\x00-T\x002.5\x00--seed=7", "", "", "", ""},
		{"--paths=sql-any,resp-mget\x00--warmup=0\x00--random-keys", "8 16", "1", "2", "0.5"},
		{"--pg=host=h password=QZJ\x00--resp=redis://:QZJ@h\x00--load\x00--items=5000", "", "", "", ""},
		{"-T\x00nan", "", "", "", ""}, {"--warmup=nan", "", "", "", ""}, {"", "x", "", "", ""},
		{"--keys-per-request=" + strings.Repeat("1,", 50) + "2", "", "", "", ""},
		{"--plan=mixed\x00--requests=100\x00-c\x0064", "", "", "", ""},
		{"--plan=unlogged\x00--rates=0,500", "", "", "", ""},
		{"--plan=coldfill\x00--pg=host=h\x00--resp=redis://h", "", "", "", ""},
	} {
		f.Add(c[0], c[1], c[2], c[3], c[4])
	}
	f.Fuzz(func(t *testing.T, line, conns, batches, repeats, secs string) {
		args := strings.Split(line, "\x00")
		if line == "" {
			args = nil
		}
		vars := map[string]string{"CONNECTIONS": conns, "BATCHES": batches, "REPEATS": repeats, "DURATION_SECONDS": secs}
		env := fuzzEnv()
		env.Getenv = func(k string) string { return vars[k] }
		o, _, err := parseMatrixArgs(env, args)
		if err != nil {
			mustUsage(args, err)
			return
		}
		if o.help {
			return
		}
		cfg, err := o.config(env, args)
		if err != nil {
			mustUsage(args, err)
			return
		}
		checkMatrixConfig(t, args, cfg)
	})
}

// checkMatrixConfig checks a configuration the command line accepted.
func checkMatrixConfig(t *testing.T, args []string, cfg *matrix.Config) {
	t.Helper()
	distinct := func(xs []int) bool {
		return len(xs) > 0 && slices.IsSorted(xs) && xs[0] >= 1 && len(slices.Compact(slices.Clone(xs))) == len(xs)
	}
	switch {
	case !distinct(cfg.Keys) && !(cfg.NoKeys && len(cfg.Keys) == 0) || !distinct(cfg.Connections):
		t.Fatalf("%q: keys %v, connections %v", args, cfg.Keys, cfg.Connections)
	case cfg.Repeats < 1 || cfg.Threads < 1 || len(cfg.Paths) == 0:
		t.Fatalf("%q: repeats %d, threads %d, %d paths", args, cfg.Repeats, cfg.Threads, len(cfg.Paths))
	case cfg.Requests == 0 && (cfg.Duration < 100*time.Millisecond || cfg.Duration > 24*time.Hour) ||
		cfg.Requests != 0 && (cfg.Duration != 0 || cfg.Requests < int64(slices.Max(cfg.Connections))):
		t.Fatalf("%q: duration %v, requests %d", args, cfg.Duration, cfg.Requests)
	case cfg.Warmup != -1 && (cfg.Warmup < 0 || cfg.Warmup > 24*time.Hour):
		t.Fatalf("%q: warm-up %v", args, cfg.Warmup)
	case len(cfg.Paths)*len(cfg.Keys)*len(cfg.Connections) > schema.MaxPlanCells:
		t.Fatalf("%q: %d cells", args, len(cfg.Paths)*len(cfg.Keys)*len(cfg.Connections))
	}
	// The passwords the servers would be given (seeds mark them QZJ) are
	// hidden in the recorded command line: each is there at most as often
	// as the command line has it where it is no password ("pasvword=QZJ"
	// is a setting of that name, shown as given).
	cmd := strings.Join(cfg.Command, " ")
	line := strings.Join(args, " ")
	pws := matrixPasswords(cfg)
	for _, pw := range pws {
		if !strings.Contains(pw, "QZJ") {
			continue
		}
		given := 0 // the servers given pw as their password
		for _, p := range pws {
			if p == pw {
				given++
			}
		}
		if strings.Count(cmd, pw) > strings.Count(line, pw)-given {
			t.Fatalf("%q: the recorded command line shows the password %q: %s", args, pw, cmd)
		}
	}
	p := schema.Plan{Keys: cfg.Keys, Connections: cfg.Connections, Repeats: cfg.Repeats, Requests: cfg.Requests,
		DurationS: cfg.Duration.Seconds(), WarmupS: math.Max(cfg.Warmup.Seconds(), 0), Threads: cfg.Threads}
	for _, path := range cfg.Paths {
		p.Paths = append(p.Paths, schema.PlanPath{Name: path.Name})
	}
	var b bytes.Buffer
	if err := (&schema.Result{Schema: schema.Version, Plan: p}).Write(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.Read(&b); err != nil {
		t.Fatalf("%q: gbench report would refuse the result: %v", args, err)
	}
}

// matrixPasswords returns the passwords a configuration connects with.
func matrixPasswords(cfg *matrix.Config) []string {
	var pws []string
	if cfg.PG != nil {
		pws = append(pws, cfg.PG.Password())
	}
	if cfg.RESP != nil && cfg.RESP.Password != "" {
		pws = append(pws, cfg.RESP.Password)
	}
	return pws
}
