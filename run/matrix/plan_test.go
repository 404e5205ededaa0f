package matrix

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// bundledConfig reads and validates a bundled plan.
func bundledConfig(t *testing.T, name string) *Config {
	t.Helper()
	data, err := workloads.PlanText(name)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePlan(name+".toml", data)
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Config(PlanOptions{Name: name, File: name + ".toml", Data: data})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBundledPlans validates every bundled plan and checks that each
// says what the reference measured.
func TestBundledPlans(t *testing.T) {
	if got := workloads.Plans(); !slices.Equal(got, []string{"read", "coldfill", "mixed", "sessions", "unlogged", "writes", "ycsb"}) {
		t.Errorf("bundled plans %v", got)
	}
	for _, name := range workloads.Plans() {
		c := bundledConfig(t, name)
		if c.Name != name || c.Title == "" || len(c.Paths) < 2 {
			t.Errorf("%s: name %q, title %q, %d paths", name, c.Name, c.Title, len(c.Paths))
		}
		r := &runner{cfg: *c, programs: map[progKey]*script.Program{}}
		for i := range c.Paths {
			p := &c.Paths[i]
			for _, mix := range c.mixList() {
				for _, k := range c.keyList() {
					if _, err := r.program(p, mix, k); err != nil {
						t.Errorf("%s: %s, mix %q, %d keys: %v", name, p.Name, mixName(mix), k, err)
					}
				}
			}
			if p.Contract != workloads.ReadNone {
				if _, err := contractCommand(p); err != nil {
					t.Errorf("%s: %s: %v", name, p.Name, err)
				}
			}
		}
	}
	// The read plan is the default matrix of earlier versions.
	read := bundledConfig(t, "read")
	def, err := Config{}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(read.Keys, def.Keys) || !slices.Equal(read.Connections, def.Connections) || read.Repeats != def.Repeats ||
		read.Duration != def.Duration || read.Threads != def.Threads || read.Warmup != def.Warmup || read.Retries != def.Retries {
		t.Errorf("read plan %+v, defaults %+v", read, def)
	}
	for i, p := range read.Paths {
		d := def.Paths[i]
		if p.Name != d.Name || p.Mode != d.Mode || p.Contract != d.Contract || strings.TrimSpace(p.Scripts[0].Text) != strings.TrimSpace(d.Scripts[0].Text) ||
			describePath(&p).Mode != describePath(&d).Mode || describePath(&p).Server != describePath(&d).Server {
			t.Errorf("read plan path %d: %+v, built-in %+v", i, p, d)
		}
	}
	// The mixed plan is the reference's table.
	mixed := bundledConfig(t, "mixed")
	if mixed.Requests != 50000 || mixed.Duration != 0 || !slices.Equal(mixed.Connections, []int{64}) || mixed.Repeats != 3 ||
		mixed.HotRows != 128 || !mixed.RandomKeys || len(mixed.Mixes) != 2 || !slices.Equal(mixed.Keys, []int{1, 16, 64}) {
		t.Errorf("mixed plan %+v", mixed)
	}
	if w := mixed.Mixes[1].Weights; len(w) != 2 || w[0] != (Weight{"read", 95}) || w[1] != (Weight{"write", 5}) {
		t.Errorf("mixed plan's update mix %+v", mixed.Mixes[1])
	}
	cold := bundledConfig(t, "coldfill")
	for _, p := range cold.Paths {
		if p.Reset == nil || p.Cached == nil || cold.Interval != 500*time.Millisecond {
			t.Errorf("coldfill path %s: reset %v, cached %v, interval %v", p.Name, p.Reset, p.Cached, cold.Interval)
		}
	}
	if kv := bundledConfig(t, "unlogged"); !kv.NoKeys || len(kv.Mixes) != 3 || len(kv.Paths) != 3 || kv.Paths[1].Name != "sql-logged" {
		t.Errorf("unlogged plan: no keys %v, %d mixes, %d paths", kv.NoKeys, len(kv.Mixes), len(kv.Paths))
	}
	// The article's plan: UNLOGGED, logged and Redis; its sessions sized.
	if s := bundledConfig(t, "sessions"); !s.NoKeys || len(s.Mixes) != 3 || len(s.Paths) != 3 || s.Data.Sessions != workloads.DefaultSessions {
		t.Errorf("sessions plan: no keys %v, %d mixes, %d paths, %d sessions", s.NoKeys, len(s.Mixes), len(s.Paths), s.Data.Sessions)
	}
}

// TestPlanErrors checks that a bad plan file is refused with its place:
// the file, line and column of what the TOML decoder refuses, the field
// of what validation refuses, and the plan file's own line of an error in
// a script written inside it.
func TestPlanErrors(t *testing.T) {
	const path = "\n[[paths]]\nname = \"p\"\nscript = 'SELECT 1;'\ncontract = \"none\"\n"
	for _, c := range []struct {
		name, doc, want string
	}{
		// A key the format does not have.
		{"unknown key", "repeat = 3\nconnections = [4]\n" + path,
			`plan.toml:1:1: unknown key "repeat": expected one of title, repeats,`},
		{"unknown path key", "connections = [4]\n" + path + "contrat = \"rows\"\n",
			`plan.toml:7:1: unknown key "paths.contrat": expected one of name, mode, script,`},
		// A value of the wrong type.
		{"type", "connections = 4\n" + path, "plan.toml:1:15: connections: expected a list of integers, like [1, 16, 64], not an integer"},
		{"syntax", "connections = [4\n", "plan.toml:1:17: array is incomplete"},
		// Validation.
		{"no connections", path, "plan.toml: connections: missing: give a list"},
		{"repeated count", "connections = [4, 4]\n" + path, "plan.toml: connections[1]: 4: the counts must be from 1 to 1000000, each once"},
		{"both", "connections = [4]\nduration_s = 1\nrequests = 10\n" + path, "plan.toml: duration_s: give duration_s or requests, not both"},
		{"no contract", "connections = [4]\n[[paths]]\nname = \"p\"\nscript = 'SELECT 1;'\n", "plan.toml: paths[0] (p).contract: missing: say how the contract check reads the values back (rows, json, column, array), or none"},
		{"bad contract", "connections = [4]\n[[paths]]\nname = \"p\"\nscript = 'SELECT 1;'\ncontract = \"yes\"\n", `plan.toml: paths[0] (p).contract: "yes": expected rows, json, column, array, none`},
		{"contract without keys", "connections = [4]\nkeys = [1]\n[[paths]]\nname = \"p\"\nscript = 'SELECT 1;'\ncontract = \"json\"\n",
			`plan.toml: paths[0] (p).contract: "json" reads values back from an SQL statement that reads :keys, and plan.toml has none: add contract_script`},
		{"two scripts", "connections = [4]\n" + path + "[paths.scripts.write]\nscript = 'SELECT 2;'\n",
			"plan.toml: paths[0] (p).scripts: a plan without mixes runs one script per path; this one has 2 (add [[mixes]])"},
		{"missing script of a mix", "connections = [4]\n[[mixes]]\nname = \"m\"\nweights = { read = 1, write = 1 }\n" + path,
			`plan.toml: paths[0] (p): no script "write", which mix "m" runs (add [paths.scripts.write])`},
		{"no source", "connections = [4]\n[[paths]]\nname = \"p\"\ncontract = \"none\"\n", "plan.toml: paths[0] (p): no script: give script"},
		{"two sources", "connections = [4]\n[[paths]]\nname = \"p\"\nscript = 'SELECT 1;'\nworkload = \"mget1.sql\"\ncontract = \"none\"\n",
			"plan.toml: paths[0] (p): give one of script, file and workload"},
		{"no such workload", "connections = [4]\n[[paths]]\nname = \"p\"\nworkload = \"mget2.sql\"\ncontract = \"none\"\n",
			`plan.toml: paths[0] (p).workload: "mget2.sql" is not a bundled workload`},
		{"file in a bundled plan", "connections = [4]\n[[paths]]\nname = \"p\"\nfile = \"x.sql\"\ncontract = \"none\"\n",
			`plan.toml: paths[0] (p).file: "x.sql": a bundled plan reads bundled workloads only`},
		{"bad mode", "connections = [4]\n" + path + "mode = \"fast\"\n", `plan.toml: paths[0] (p).mode: "fast": expected simple, extended or prepared`},
		{"bad server", "connections = [4]\n" + path + "resp = \"http://x\"\n", "plan.toml: paths[0] (p).resp: "},
		{"hot rows", "connections = [4]\nkeys = [256]\nhot_rows = 128\n" + path, "plan.toml: 256 keys per request cannot be distinct among 128 hot rows"},
		{"cached of two commands", "connections = [4]\n" + path + "cached = 'SELECT 1; SELECT 2;'\n", "plan.toml: paths[0] (p).cached: must be one SQL statement or one \\resp command"},
		{"bad durability", "connections = [4]\n[servers]\ndurability = \"maybe\"\n" + path, `plan.toml: servers.durability: invalid durability "maybe"`},
		{"durability of a named server", "connections = [4]\n[servers]\npostgres = \"host=/tmp\"\ndurability = \"off\"\n" + path,
			"plan.toml: servers.durability: applies to a sandbox"},
		// A script error is placed in the plan file: line 6 is the script's
		// second line.
		{"script", "connections = [4]\n[[paths]]\nname = \"p\"\ncontract = \"none\"\nscript = '''\nSELECT 1;\n\\set x 1 +\n'''\n",
			"plan.toml:7:"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, err := ParsePlan("plan.toml", []byte(c.doc))
			if err == nil {
				_, err = p.Config(PlanOptions{Name: "plan", File: "plan.toml", Data: []byte(c.doc)})
			}
			if err == nil || !strings.HasPrefix(err.Error(), c.want) && !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v\nwant %q", err, c.want)
			}
		})
	}
}

// TestPlanDurability checks that a plan's servers.durability reaches the
// configuration of its sandbox.
func TestPlanDurability(t *testing.T) {
	const path = "\n[[paths]]\nname = \"p\"\nscript = 'SELECT 1;'\ncontract = \"none\"\n"
	for doc, want := range map[string]bool{
		"connections = [4]\n" + path:                                  false,
		"connections = [4]\n[servers]\ndurability = \"off\"\n" + path: true,
		"connections = [4]\n[servers]\ndurability = \"on\"\n" + path:  false,
	} {
		p, err := ParsePlan("plan.toml", []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		c, err := p.Config(PlanOptions{Name: "plan", File: "plan.toml", Data: []byte(doc)})
		if err != nil {
			t.Fatal(err)
		}
		if c.DurabilityOff != want {
			t.Errorf("%q: DurabilityOff %v, want %v", doc, c.DurabilityOff, want)
		}
	}
}

// TestPlanScriptErrorPlace checks the caret of an error in a one-line
// script inside the plan: under its column in the plan file's line.
func TestPlanScriptErrorPlace(t *testing.T) {
	doc := "connections = [4]\n[[paths]]\nname = \"p\"\ncontract = \"none\"\nscript = '\\set x 1 +'\n"
	p, err := ParsePlan("plan.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Config(PlanOptions{Name: "plan", File: "plan.toml", Data: []byte(doc)})
	if err == nil || !strings.HasPrefix(err.Error(), "plan.toml:5:") {
		t.Fatalf("error %v, want it at plan.toml:5", err)
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) < 3 || !strings.HasSuffix(lines[1], `\set x 1 +`) || !strings.HasSuffix(lines[2], "^ error found here") {
		t.Errorf("error %q", err)
	}
}

// TestPlanFiles reads a path's script from a file next to the plan, and
// the plan's servers.
func TestPlanFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "my-mget.sql"), []byte("SELECT array_to_json(my_ext.mget('public.items'::regclass, :keys));\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	doc := `title = "mine"
keys = [16, 1]
connections = [8]
requests = 1000
[servers]
postgres = "host=db1 dbname=app password=QZJ"
resp = "redis://:QZJ@cache1:6380/2"
[[paths]]
name = "my-mget"
file = "my-mget.sql"
contract = "json"
resp = "redis://:QZJ@127.0.0.1:7000"
`
	p, err := ParsePlan("plan.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	read := func(name string) ([]byte, error) { return os.ReadFile(filepath.Join(dir, name)) }
	c, err := p.Config(PlanOptions{Name: "plan.toml", File: "plan.toml", Data: []byte(doc), ReadFile: read})
	if err != nil {
		t.Fatal(err)
	}
	path := c.Paths[0]
	if !slices.Equal(c.Keys, []int{1, 16}) || c.Requests != 1000 || c.Duration != 0 || c.PG.Host() != "db1" || c.RESP.Addr != "cache1:6380" || c.RESP.DB != 2 ||
		path.Scripts[0].Source != "my-mget.sql" || path.Mode != script.Prepared || path.RESP == nil {
		t.Errorf("config %+v, path %+v", c, path)
	}
	// What the result says of a path's server hides its password, and so
	// do the run's messages of the plan's PostgreSQL.
	if path.RESPText != "redis://:xxxxx@127.0.0.1:7000" {
		t.Errorf("path's server shown as %q", path.RESPText)
	}
	if got := c.Redact("auth failed for QZJ"); got != "auth failed for xxxxx" {
		t.Errorf("Config.Redact = %q", got)
	}
	if pg, resp := c.NeedsServers(); !pg || resp {
		t.Errorf("NeedsServers = %v, %v; want PostgreSQL only", pg, resp)
	}
}
