package gbench_test

import (
	"encoding/json"
	"io"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestLayers keeps gbench's packages layered as docs/design.md says, from
// what `go list` reports of the non-test code:
//   - dependencies flow one way, cmd -> engine/* and workloads -> script;
//     script imports no other gbench package, and nothing imports cmd;
//   - pgx is spoken only by engine/pgsql: no other package imports it, so
//     workloads, the matrix and cmd ask engine/pgsql, never pgconn or
//     pgproto3;
//   - the matrix's JSON schema is a leaf: engine/report reads results
//     without importing the runner.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	const mod = "github.com/gbench/gbench"
	d := json.NewDecoder(strings.NewReader(string(out)))
	seen := 0
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := d.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		seen++
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		for _, imp := range p.Imports {
			in := strings.HasPrefix(imp, mod+"/")
			to := strings.TrimPrefix(imp, mod+"/")
			switch {
			case strings.HasPrefix(imp, "github.com/jackc/pgx/") && rel != "engine/pgsql":
				t.Errorf("%s imports %s: only engine/pgsql speaks pgx", rel, imp)
			case in && strings.HasPrefix(to, "cmd/") && !strings.HasPrefix(rel, "cmd/"):
				t.Errorf("%s imports %s: nothing below cmd imports it", rel, to)
			case in && strings.HasPrefix(rel, "script") && !strings.HasPrefix(to, "script"):
				t.Errorf("%s imports %s: script imports no other gbench package", rel, to)
			case in && rel == "engine/report" && to == "engine/matrix":
				t.Errorf("engine/report imports the matrix runner; it reads results through engine/matrix/schema")
			case in && strings.HasPrefix(rel, "engine/matrix/schema") && slices.Contains([]string{"engine", "engine/matrix", "engine/pgsql", "engine/resp"}, to):
				t.Errorf("engine/matrix/schema imports %s: the schema is a leaf", to)
			}
		}
	}
	if seen < 10 {
		t.Fatalf("go list reported %d packages", seen)
	}
}
