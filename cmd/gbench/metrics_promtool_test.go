package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
)

// dashboard is deploy/grafana's dashboard, relative to this package.
var dashboard = filepath.Join("..", "..", "deploy", "grafana", "gbench.json")

// TestMetricsPromtool: what --metrics-addr serves during a run, and after
// it, passes promtool check metrics (Debian's prometheus package); and
// every metric the Grafana dashboard in deploy/grafana queries is one
// gbench serves. The run has failures, retries, a rate, a latency limit
// and per-command statistics, so that every family has series.
func TestMetricsPromtool(t *testing.T) {
	promtool := testsrv.NeedCommand(t, "promtool", "Debian's prometheus")
	needServer(t)
	var stdout, stderr lockedBuffer
	env := &Env{Stdin: strings.NewReader(""), Stdout: &stdout, Stderr: &stderr, Now: time.Now, Getenv: func(string) string { return "" }}
	done := make(chan int, 1)
	go func() {
		done <- Run(env, []string{"-n", "-f", "testdata/sometimes_fails.sql", "--max-tries", "2", "--failures-detailed", "-r",
			"-c", "2", "-j", "2", "-T", "2", "-P", "1", "--rate", "200", "--latency-limit", "20", "--run-id", "promtool-" + strconv.FormatInt(time.Now().UnixNano(), 36),
			"--metrics-addr", "127.0.0.1:0", testConninfo()})
	}()
	url := waitServing(t, &stderr)
	for !strings.Contains(stderr.String(), "progress: ") {
		select {
		case code := <-done:
			t.Fatalf("the run ended (status %d) before its first progress report\n%s", code, stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	during := scrape(t, url)
	checkMetrics(t, promtool, "during the run", during)
	var after []byte
	code := -1
	for code < 0 { // gbench waits for a scrape after the run
		select {
		case code = <-done:
		case <-time.After(200 * time.Millisecond):
			if b, ok := tryScrape(url); ok {
				after = b
			}
		}
	}
	if code != exitOK {
		t.Fatalf("status %d\n%s", code, stderr.String())
	}
	checkMetrics(t, promtool, "after the run", after)
	checkDashboard(t, after)
}

// waitServing returns the metrics URL gbench announces.
func waitServing(t *testing.T, stderr *lockedBuffer) string {
	t.Helper()
	re := regexp.MustCompile(`serving metrics at (http://\S+/metrics)`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			return m[1]
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("gbench did not say where it serves metrics\n%s", stderr.String())
	return ""
}

func tryScrape(url string) ([]byte, bool) {
	resp, err := http.Get(url)
	if err != nil {
		return nil, false
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, err == nil && resp.StatusCode == http.StatusOK
}

func scrape(t *testing.T, url string) []byte {
	t.Helper()
	b, ok := tryScrape(url)
	if !ok {
		t.Fatalf("scraping %s failed", url)
	}
	return b
}

// checkMetrics pipes a scrape to promtool check metrics, which checks the
// text format and lints names, types, units and help texts.
func checkMetrics(t *testing.T, promtool, when string, body []byte) {
	t.Helper()
	if !bytes.Contains(body, []byte("gbench_transactions_total{")) {
		t.Fatalf("%s: no gbench_transactions_total in\n%s", when, body)
	}
	cmd := exec.Command(promtool, "check", "metrics")
	cmd.Stdin = bytes.NewReader(body)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics, %s: %v\n%s", when, err, out)
	}
}

// checkDashboard: each metric a query of the dashboard names is a family
// of the scrape, or a histogram's or summary's series of one.
func checkDashboard(t *testing.T, body []byte) {
	t.Helper()
	served := map[string]string{}
	for _, m := range regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)$`).FindAllSubmatch(body, -1) {
		served[string(m[1])] = string(m[2])
	}
	data, err := os.ReadFile(dashboard)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct {
				Name       string
				Definition string
			}
		}
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", dashboard, err)
	}
	var exprs []string
	for _, p := range d.Panels {
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, q := range p.Targets {
			exprs = append(exprs, q.Expr)
		}
	}
	for _, v := range d.Templating.List {
		exprs = append(exprs, v.Definition)
	}
	names := regexp.MustCompile(`\bgbench_[a-z_]+`)
	var used []string
	for _, e := range exprs {
		for _, n := range names.FindAllString(e, -1) {
			if !servedName(served, n) {
				t.Errorf("%s queries %s, which gbench does not serve: %s", dashboard, n, e)
			}
			used = append(used, n)
		}
	}
	if len(used) == 0 {
		t.Errorf("%s names no gbench metric", dashboard)
	}
}

// servedName reports whether n is a served family, or the _bucket, _sum
// or _count series of a served histogram or summary.
func servedName(served map[string]string, n string) bool {
	if _, ok := served[n]; ok {
		return true
	}
	for _, suffix := range []string{"_bucket", "_sum", "_count"} {
		if base, ok := strings.CutSuffix(n, suffix); ok && slices.Contains([]string{"histogram", "summary"}, served[base]) {
			return suffix != "_bucket" || served[base] == "histogram"
		}
	}
	return false
}
