package gbench_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// depth is every gbench package's allowed layer, as docs/design.md's
// "Layers" table says. A package may depend, directly or through any
// chain of imports, only on gbench packages of a lower depth, so the
// imports flow one way: cmd -> output, run -> engine -> drivers ->
// script, with the result schemas a leaf beside them. A package missing
// from this table fails the test: a new package gets a place on purpose.
var depth = map[string]int{
	// Leaves: no other gbench package.
	"script/internal/pgbenchref":    0, // pgbench's own behaviour, for script's tests
	"internal/cnum":                 0, // C's strtol, strtod, atof, atoi
	"internal/testsrv":              0, // test environment: servers, pgbench 15
	"cmd/gbench/internal/libc":      0, // C's strtod, for cnum's tests
	"engine/stats":                  0, // histograms and counters
	"engine/internal/netpoll/uring": 0, // the io_uring binding (Linux)
	"result/jsonfile":               0, // JSON decoding with positions
	"result/gate":                   0, // thresholds and verdicts
	"output/chart":                  0, // SVG charts
	"run/fleet":                     0, // fleet plans and merges (pure)

	"script":                  1, // the script language
	"result/schema":           1, // the JSON result schema: no engine, no pgx
	"engine/internal/netpoll": 1, // the network stack: epoll, io_uring, portable

	"engine/driver": 2, // the driver interface
	"engine/pgsql":  3, // PostgreSQL driver (the only pgx user)
	"engine/resp":   3, // RESP driver

	"engine":      4, // clients, threads, --rate, the state machine
	"workloads":   4, // bundled scripts and their setup
	"run/runenv":  4, // what a run ran on
	"run/sandbox": 4, // throwaway servers

	"run/series":     5, // repeated runs, curves, A/B
	"output/metrics": 5, // Prometheus exporter

	"run/matrix":    6, // the matrix runner
	"output/report": 6, // text, JSON, markdown, HTML reports

	"cmd/gbench": 7, // the command: flags, exit codes, nothing else
}

// TestLayers keeps gbench's packages layered as docs/design.md says, from
// what `go list -deps` reports of the non-test code, so an indirect
// import counts as much as a direct one:
//   - every package has an allowed depth (the depth table) and depends
//     only on gbench packages of a lower depth;
//   - a package nested under another package is a part of it or below
//     it, never a client of it: its depth is lower;
//   - the engine depends on no driver (engine/pgsql, engine/resp): it
//     knows them through engine/driver, and callers give it connectors;
//   - pgx is imported only by engine/pgsql, and nothing that reads or
//     renders a result without running one (result/..., output/chart,
//     script, engine/driver, engine/stats) depends on pgx or the engine.
func TestLayers(t *testing.T) {
	pkgs := listDeps(t)
	if len(pkgs) < 10 {
		t.Fatalf("go list reported %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		d, ok := depth[p.rel]
		if !ok {
			t.Errorf("%s has no depth in layers_test.go: give it its layer", p.rel)
			continue
		}
		for _, dep := range p.deps {
			if dd, ok := depth[dep]; ok && dd >= d {
				t.Errorf("%s (depth %d) depends on %s (depth %d)%s: imports flow to lower depths only", p.rel, d, dep, dd, via(p, dep))
			}
		}
		if parent := nestedUnder(p.rel); parent != "" && depth[parent] <= d {
			t.Errorf("%s (depth %d) is nested under %s (depth %d): a nested package is below its parent", p.rel, d, parent, depth[parent])
		}
		if p.rel == "engine" {
			for _, drv := range []string{"engine/pgsql", "engine/resp"} {
				if slices.Contains(p.deps, drv) {
					t.Errorf("engine depends on %s%s: it knows drivers only through engine/driver; callers give it connectors", drv, via(p, drv))
				}
			}
		}
		for _, imp := range p.imports {
			if strings.HasPrefix(imp, "github.com/jackc/pgx/") && p.rel != "engine/pgsql" {
				t.Errorf("%s imports %s: only engine/pgsql speaks pgx", p.rel, imp)
			}
		}
		if leaf(p.rel) {
			for _, bad := range []string{"github.com/jackc/pgx/v5/pgconn", mod + "/engine"} {
				if slices.Contains(p.all, bad) {
					t.Errorf("%s depends on %s%s: it reads results and needs neither the engine nor pgx", p.rel, rel(bad), via(p, rel(bad)))
				}
			}
		}
	}
	for rel := range depth {
		if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.rel == rel }) {
			t.Errorf("layers_test.go names %s, which go list does not report", rel)
		}
	}
}

const mod = "github.com/gbench/gbench"

// pkg is one package as go list reports it, paths relative to the module.
type pkg struct {
	rel     string
	imports []string // direct imports, full paths
	deps    []string // gbench packages it depends on, transitively, relative
	all     []string // every package it depends on, full paths
	direct  map[string][]string
}

// listDeps runs `go list -deps` over the module's packages.
func listDeps(t *testing.T) []pkg {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type listed struct {
		ImportPath string
		Imports    []string
		Deps       []string
		Module     *struct{ Path string }
		GoFiles    []string
	}
	var all []listed
	d := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p listed
		if err := d.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		all = append(all, p)
	}
	imports := map[string][]string{}
	for _, p := range all {
		imports[p.ImportPath] = p.Imports
	}
	var pkgs []pkg
	for _, p := range all {
		if p.Module == nil || p.Module.Path != mod || len(p.GoFiles) == 0 {
			continue // the standard library, other modules, the test-only root
		}
		q := pkg{rel: rel(p.ImportPath), imports: p.Imports, all: p.Deps, direct: imports}
		for _, dep := range p.Deps {
			if strings.HasPrefix(dep, mod+"/") {
				q.deps = append(q.deps, rel(dep))
			}
		}
		pkgs = append(pkgs, q)
	}
	return pkgs
}

func rel(path string) string { return strings.TrimPrefix(path, mod+"/") }

// via names the chain of imports through which p reaches dep, when it
// does not import dep itself, so an indirect violation says where it is.
func via(p pkg, dep string) string {
	full := dep
	if !strings.Contains(dep, ".") {
		full = mod + "/" + dep
	}
	if slices.Contains(p.imports, full) {
		return ""
	}
	// Breadth-first from p's imports to full.
	from := map[string]string{}
	queue := []string{}
	for _, imp := range p.imports {
		from[imp] = ""
		queue = append(queue, imp)
	}
	for len(queue) > 0 {
		cur := queue[0]
		queue = queue[1:]
		if cur == full {
			chain := []string{}
			for c := cur; c != ""; c = from[c] {
				chain = append([]string{rel(c)}, chain...)
			}
			return " (through " + strings.Join(chain[:len(chain)-1], " -> ") + ")"
		}
		for _, next := range p.direct[cur] {
			if _, seen := from[next]; !seen {
				from[next] = cur
				queue = append(queue, next)
			}
		}
	}
	return " (indirectly)"
}

// nestedUnder returns the nearest package that rel's folder is nested in,
// or "" for none.
func nestedUnder(rel string) string {
	for i := strings.LastIndex(rel, "/"); i > 0; i = strings.LastIndex(rel[:i], "/") {
		if _, ok := depth[rel[:i]]; ok {
			return rel[:i]
		}
	}
	return ""
}

// leaf says whether rel reads or renders results without running one.
func leaf(rel string) bool {
	return strings.HasPrefix(rel, "result/") || strings.HasPrefix(rel, "script") ||
		slices.Contains([]string{"output/chart", "engine/driver", "engine/stats"}, rel)
}
