package main

import (
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/gbench/gbench/internal/testsrv"
)

// runCase is one benchmark run by both gbench and pgbench 15 on the same
// database with the same options.
type runCase struct {
	name string
	args []string
	code int // exit status of both
	// exact: the counts (processed, failed by kind, retried, per script)
	// are determined by the options (-t without contention, or a fixed
	// --random-seed), so they must be equal, not only alike.
	exact bool
	// progress: both print -P lines on stderr.
	progress bool
}

var runCases = []runCase{
	// -t with builtins, custom scripts, -c/-j/-M combinations.
	{name: "tpcb-like", args: []string{"-c", "2", "-j", "2", "-t", "10"}, exact: true},
	{name: "select-only prepared", args: []string{"-S", "-M", "prepared", "-c", "3", "-t", "20", "-n"}, exact: true},
	{name: "simple-update extended", args: []string{"-N", "-M", "extended", "-c", "2", "-j", "2", "-t", "10", "-n"}, exact: true},
	{name: "custom prepared", args: []string{"-f", "testdata/custom.sql", "-M", "prepared", "-c", "2", "-t", "15", "-n"}, exact: true},
	{name: "custom vacuum-all", args: []string{"-f", "testdata/custom.sql", "-v", "-t", "5"}, exact: true},
	// -T and -P.
	{name: "duration", args: []string{"-T", "2", "-S", "-c", "2", "-n"}},
	{name: "progress", args: []string{"-T", "2", "-P", "1", "-S", "-n"}, progress: true},
	{name: "progress rate retries", args: []string{"-T", "2", "-P", "1", "-S", "-R", "100", "-L", "50", "--max-tries", "2", "-n"}, progress: true},
	// Throttling with a latency limit: skipped and late transactions.
	{name: "rate limit", args: []string{"-R", "50", "-L", "5", "-t", "20", "-S", "-n"}},
	// Several scripts with weights; the seed makes both pick the same ones.
	{name: "weights", args: []string{"-b", "select-only@3", "-b", "simple-update@1", "-f", "testdata/select1.sql@1",
		"-f", "testdata/custom.sql@0", "-c", "2", "-t", "20", "--random-seed", "7", "-n"}, exact: true},
	// Per-command report, alone and with several scripts.
	{name: "per-command", args: []string{"-r", "-c", "2", "-t", "10", "-M", "extended", "-n"}, exact: true},
	{name: "per-command scripts", args: []string{"-r", "-S", "-f", "testdata/custom.sql", "-t", "10", "--random-seed", "3", "-n"}, exact: true},
	// Retries and failures, made deterministic by the seed.
	{name: "max-tries", args: []string{"--max-tries", "3", "-f", "testdata/sometimes_fails.sql", "-c", "2", "-t", "12",
		"--random-seed", "11", "-r", "-n"}, exact: true},
	{name: "failures-detailed", args: []string{"--failures-detailed", "-f", "testdata/sometimes_fails.sql@2", "-f", "testdata/select1.sql@1",
		"-t", "16", "--random-seed", "5", "-n"}, exact: true},
	{name: "all failed", args: []string{"--max-tries", "2", "--failures-detailed", "-f", "testdata/always_fails.sql", "-t", "3", "-r", "-n"}, exact: true},
	// A connection per transaction.
	{name: "connect", args: []string{"-C", "-S", "-c", "2", "-t", "5", "-n"}, exact: true},
	// Aborted clients: exit status 2, partial results.
	{name: "one client aborts", args: []string{"-f", "testdata/abort_client1.sql", "-c", "2", "-t", "3", "-n"}, code: 2, exact: true},
	{name: "all clients abort", args: []string{"-f", "testdata/abort.sql", "-t", "3", "--max-tries", "3", "--failures-detailed", "-n"}, code: 2, exact: true},
}

// TestRunsMatchPgbench runs runCases with gbench and pgbench side by side
// against a scale-2 database and compares the summaries line by line in
// form (numbers aside), the counts where they are determined, stderr, and
// the -P lines.
func TestRunsMatchPgbench(t *testing.T) {
	cfg := needServer(t)
	pg := needPgbench(t)
	db := scratchDB(t, cfg, "runs")
	initArgs := []string{"-i", "-s", "2", "-q", db}
	if out := execPgbench(t, pg, initArgs...); out.code != 0 {
		t.Fatalf("pgbench -i: %d\n%s", out.code, out.stderr)
	}
	for _, c := range runCases {
		t.Run(c.name, func(t *testing.T) {
			args := append(append([]string(nil), c.args...), db)
			var p, g outcome
			// Under -R with -L on a busy machine one side may skip every
			// transaction, and pgbench then leaves out the latency lines:
			// such a run is tried again, so that a loaded machine makes the
			// test longer, not one-sided (compareRun gives up after three).
			for try := 1; ; try++ {
				var wg sync.WaitGroup
				wg.Go(func() { p = execPgbench(t, pg, args...) })
				g = runGbench(args...)
				wg.Wait()
				if try == 3 || c.exact || !oneSided(p, g) {
					break
				}
				t.Logf("try %d: only one side completed transactions; again", try)
			}
			if g.code != c.code {
				t.Fatalf("gbench exit status %d, want %d\nstdout:\n%s\nstderr:\n%s", g.code, c.code, g.stdout, g.stderr)
			}
			if p.code != c.code {
				t.Fatalf("pgbench exit status %d, want %d (the case is wrong)\nstderr:\n%s", p.code, c.code, p.stderr)
			}
			compareRun(t, c, p, g)
		})
	}
}

// compareRun holds gbench's outcome against pgbench's.
func compareRun(t *testing.T, c runCase, p, g outcome) {
	t.Helper()
	ps, gs := pgbenchSummary(p.stdout), gbenchSummary(g.stdout)
	if !c.exact && oneSided(p, g) {
		testsrv.Need(t, "three tries, and each time only one side completed transactions: forms not comparable (is the machine overloaded?)\npgbench:\n%s\ngbench:\n%s", p.stdout, g.stdout)
	}
	compareForms(t, "stdout", ps, gs)
	if c.exact {
		if pc, gc := counts(ps), counts(gs); strings.Join(pc, "\n") != strings.Join(gc, "\n") {
			t.Errorf("counts differ\npgbench:\n%s\ngbench:\n%s", strings.Join(pc, "\n"), strings.Join(gc, "\n"))
		}
	}
	pp, pe := splitProgress(p.stderr)
	gp, ge := splitProgress(g.stderr)
	var pes []string
	for _, l := range pe {
		pes = append(pes, asGbench(l))
	}
	compareForms(t, "stderr", pes, ge)
	if c.progress {
		compareProgress(t, pp, gp)
	} else if len(pp)+len(gp) > 0 {
		t.Errorf("unexpected -P lines\npgbench: %q\ngbench: %q", pp, gp)
	}
}

// pgbenchSummary is pgbench's stdout without its banner.
func pgbenchSummary(stdout string) []string {
	var out []string
	for _, l := range lines(stdout) {
		if !strings.HasPrefix(l, "pgbench (") {
			out = append(out, l)
		}
	}
	return out
}

// gbenchSummary is gbench's stdout without what gbench adds to pgbench's:
// the banner, the latency percentile lines, and the per-command percentile
// blocks (a heading, then indented lines).
func gbenchSummary(stdout string) []string {
	var out []string
	inBlock := false
	for _, l := range lines(stdout) {
		switch {
		case strings.HasPrefix(l, "gbench ("),
			strings.HasPrefix(l, "latency percentiles "),
			strings.HasPrefix(l, " - latency percentiles "):
			continue
		case strings.HasPrefix(l, "statement latency percentiles "),
			strings.HasPrefix(l, " - statement latency percentiles "):
			inBlock = true
			continue
		case inBlock && strings.HasPrefix(l, "  "):
			continue
		}
		inBlock = false
		out = append(out, l)
	}
	return out
}

// compareForms checks that two outputs have the same lines in the same
// order once numbers are replaced by N.
func compareForms(t *testing.T, what string, p, g []string) {
	t.Helper()
	n := max(len(p), len(g))
	for i := range n {
		var pl, gl string
		if i < len(p) {
			pl = p[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if form(pl) != form(gl) {
			t.Errorf("%s line %d differs in form\npgbench: %q\ngbench:  %q\nall pgbench:\n%s\nall gbench:\n%s",
				what, i+1, pl, gl, strings.Join(p, "\n"), strings.Join(g, "\n"))
			return
		}
	}
}

var reProcessed = regexp.MustCompile(`^number of transactions actually processed: ([0-9]+)`)

// processed is the number of transactions a summary reports.
// oneSided reports whether one side completed no transaction and the other
// some, so that their summaries do not have the same lines.
func oneSided(p, g outcome) bool {
	return (processed(pgbenchSummary(p.stdout)) == "0") != (processed(gbenchSummary(g.stdout)) == "0")
}

func processed(summary []string) string {
	for _, l := range summary {
		if m := reProcessed.FindStringSubmatch(l); m != nil {
			return m[1]
		}
	}
	return ""
}

var (
	reCount = regexp.MustCompile(`^( - )?(number of transactions actually processed|number of failed transactions|` +
		`number of serialization failures|number of deadlock failures|number of transactions retried|` +
		`total number of retries|[0-9]+ transactions \()`)
	reTPS = regexp.MustCompile(`, tps = [0-9.]+\)$`)
)

// counts are a summary's lines that hold counts only, without rates.
func counts(summary []string) []string {
	var out []string
	for _, l := range summary {
		if reCount.MatchString(l) {
			out = append(out, reTPS.ReplaceAllString(l, ")"))
		}
	}
	return out
}

// splitProgress separates -P lines from the rest of stderr.
func splitProgress(stderr string) (progress, rest []string) {
	for _, l := range lines(stderr) {
		if strings.HasPrefix(l, "progress: ") {
			progress = append(progress, l)
		} else {
			rest = append(rest, l)
		}
	}
	return progress, rest
}

var (
	// rePgProgress is pgbench 15's -P line.
	rePgProgress = regexp.MustCompile(`^progress: [0-9]+\.[0-9] s, [0-9]+\.[0-9] tps, lat [0-9]+\.[0-9]{3} ms stddev ([0-9]+\.[0-9]{3}|NaN), [0-9]+ failed` +
		`(, lag [0-9]+\.[0-9]{3} ms(, [0-9]+ skipped)?)?(, [0-9]+ retried, [0-9]+ retries)?$`)
	// reGbenchExtra is what gbench may add at the end of a -P line.
	reGbenchExtra = regexp.MustCompile(`(, (p[0-9.]+|max) [0-9]+\.[0-9]{3} ms)+$`)
)

// compareProgress checks that both printed -P lines, that pgbench's match
// the known form, and that gbench's are pgbench's form plus fields at the
// end only.
func compareProgress(t *testing.T, p, g []string) {
	t.Helper()
	if len(p) == 0 || len(g) == 0 {
		t.Fatalf("-P lines missing\npgbench: %q\ngbench: %q", p, g)
	}
	for _, l := range p {
		if !rePgProgress.MatchString(l) {
			t.Errorf("pgbench's -P line has an unknown form (the test is wrong): %q", l)
		}
	}
	want := form(p[0])
	for _, l := range g {
		base := reGbenchExtra.ReplaceAllString(l, "")
		if !rePgProgress.MatchString(base) || form(base) != want {
			t.Errorf("gbench's -P line is not pgbench's form plus trailing fields\npgbench: %q\ngbench:  %q", p[0], l)
		}
	}
}
