package gbench_test

import (
	"encoding/json"
	"fmt"
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

	"engine/driver":    2, // the driver interface
	"bench/refcompare": 2, // the side-by-side with the reference's figures
	"engine/pgsql":     3, // PostgreSQL driver (the only pgx user)
	"engine/resp":      3, // RESP driver

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
	for _, e := range layerErrors(pkgs) {
		t.Error(e)
	}
	for rel := range depth {
		if !slices.ContainsFunc(pkgs, func(p pkg) bool { return p.rel == rel }) {
			t.Errorf("layers_test.go names %s, which go list does not report", rel)
		}
	}
}

// layerErrors returns what is wrong with pkgs by the rules TestLayers
// states, one message each.
func layerErrors(pkgs []pkg) []string {
	var errs []string
	for _, p := range pkgs {
		d, ok := depth[p.rel]
		if !ok {
			errs = append(errs, fmt.Sprintf("%s has no depth in layers_test.go: give it its layer", p.rel))
			continue
		}
		for _, dep := range p.deps {
			if dd, ok := depth[dep]; ok && dd >= d {
				errs = append(errs, fmt.Sprintf("%s (depth %d) depends on %s (depth %d)%s: imports flow to lower depths only", p.rel, d, dep, dd, via(p, dep)))
			}
		}
		if parent := nestedUnder(p.rel); parent != "" && depth[parent] <= d {
			errs = append(errs, fmt.Sprintf("%s (depth %d) is nested under %s (depth %d): a nested package is below its parent", p.rel, d, parent, depth[parent]))
		}
		if p.rel == "engine" {
			for _, drv := range []string{"engine/pgsql", "engine/resp"} {
				if slices.Contains(p.deps, drv) {
					errs = append(errs, fmt.Sprintf("engine depends on %s%s: it knows drivers only through engine/driver; callers give it connectors", drv, via(p, drv)))
				}
			}
		}
		for _, imp := range p.imports {
			if strings.HasPrefix(imp, "github.com/jackc/pgx/") && p.rel != "engine/pgsql" {
				errs = append(errs, fmt.Sprintf("%s imports %s: only engine/pgsql speaks pgx", p.rel, imp))
			}
		}
		if leaf(p.rel) {
			for _, bad := range []string{"github.com/jackc/pgx/v5/pgconn", mod + "/engine"} {
				if slices.Contains(p.all, bad) {
					errs = append(errs, fmt.Sprintf("%s depends on %s%s: it reads results and needs neither the engine nor pgx", p.rel, rel(bad), via(p, rel(bad))))
				}
			}
		}
	}
	return errs
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

// TestLayersCatchIndirect: the rules catch a wrong import where it is made
// and in every package that reaches it through others, and name the
// chain.
func TestLayersCatchIndirect(t *testing.T) {
	const pgconn = "github.com/jackc/pgx/v5/pgconn"
	for _, c := range []struct {
		name    string
		imports map[string][]string
		want    []string
	}{
		{"legal", map[string][]string{"result/schema": {"result/jsonfile"}, "result/jsonfile": nil, "engine": {"engine/driver"}, "engine/driver": {"script"}, "script": nil}, nil},
		{"depth through a leaf", map[string][]string{"result/schema": {"result/jsonfile"}, "result/jsonfile": {"script"}, "script": nil}, []string{
			"result/jsonfile (depth 0) depends on script (depth 1): imports flow",
			"result/schema (depth 1) depends on script (depth 1) (through result/jsonfile): imports flow",
		}},
		{"a driver through the driver interface", map[string][]string{"engine": {"engine/driver"}, "engine/driver": {"engine/pgsql"}, "engine/pgsql": nil}, []string{
			"engine/driver (depth 2) depends on engine/pgsql (depth 3)",
			"engine depends on engine/pgsql (through engine/driver): it knows drivers only through engine/driver",
		}},
		{"pgx under a leaf", map[string][]string{"script": {"result/gate"}, "result/gate": {pgconn}}, []string{
			"result/gate imports " + pgconn + ": only engine/pgsql speaks pgx",
			"result/gate depends on " + pgconn + ": it reads results",
			"script depends on " + pgconn + " (through result/gate): it reads results",
		}},
	} {
		errs := layerErrors(graph(c.imports))
		if len(errs) != len(c.want) {
			t.Errorf("%s: %d errors, want %d:\n%s", c.name, len(errs), len(c.want), strings.Join(errs, "\n"))
			continue
		}
		for _, w := range c.want {
			if !slices.ContainsFunc(errs, func(e string) bool { return strings.HasPrefix(e, w) }) {
				t.Errorf("%s: no error starting %q in:\n%s", c.name, w, strings.Join(errs, "\n"))
			}
		}
	}
}

// graph makes the packages of an import graph as listDeps would: each key
// a gbench package (relative), each value its imports (relative for
// gbench's, full for others).
func graph(imports map[string][]string) []pkg {
	full := func(p string) string {
		if strings.Contains(p, ".") {
			return p
		}
		return mod + "/" + p
	}
	direct := map[string][]string{}
	for p, imps := range imports {
		for _, i := range imps {
			direct[full(p)] = append(direct[full(p)], full(i))
		}
	}
	var pkgs []pkg
	for p := range imports {
		q := pkg{rel: p, imports: direct[full(p)], direct: direct}
		seen := map[string]bool{}
		var walk func(string)
		walk = func(f string) {
			for _, i := range direct[f] {
				if !seen[i] {
					seen[i] = true
					q.all = append(q.all, i)
					if strings.HasPrefix(i, mod+"/") {
						q.deps = append(q.deps, rel(i))
					}
					walk(i)
				}
			}
		}
		walk(full(p))
		pkgs = append(pkgs, q)
	}
	return pkgs
}
