package matrix

import (
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// Path is one way of serving a plan's requests: gbench scripts, the query
// mode they run in, how the contract check reads its values back, and
// the servers it talks to. Paths are plain values, safe to copy; their
// slices must not be changed once a Config holds them.
type Path struct {
	// Name names the path in results and reports.
	Name string
	// Mode is the query mode (-M) of its SQL.
	Mode script.Mode
	// Scripts are the path's scripts. A plan without mixes runs
	// Scripts[0]; a mix runs the scripts it names, by weight.
	Scripts []Script
	// Contract is how the contract check decodes the path's answer to a
	// read of keys (workloads.ReadBack), or workloads.ReadNone.
	Contract workloads.ReadBack
	// ContractScript, when set, is the one command the contract check runs
	// (SQL or \resp, reading the list :keys); otherwise it runs the last
	// command of the "read" script (or of Scripts[0]) that reads :keys.
	ContractScript *Script
	// Reset, when set, runs once on one connection before each sample,
	// e.g. to empty a cache.
	Reset *Script
	// Cached, when set, is one SQL statement or \resp command whose integer
	// answer counts the entries of the path's cache; it is read at each
	// interval of the sample's series.
	Cached *Script
	// Cost is the server whose cost a sample records first: "postgres" or
	// "redis"; "" picks Redis when the path has a \resp command, else
	// PostgreSQL.
	Cost string
	// Threshold is what the path's cells must meet besides
	// Config.Threshold; "" for nothing more.
	Threshold string
	// PG and RESP, when set, are the path's own servers; nil for the
	// plan's. PGText and RESPText are what the plan said, for the result
	// (passwords hidden).
	PG               *pgsql.Config
	RESP             *resp.Options
	PGText, RESPText string
}

// Script is one script of a path.
type Script struct {
	// Name is the script's role, which mixes refer to ("read", "write").
	Name string
	// Source says where Text came from: a file name, "bundled:NAME" for a
	// bundled workload, "inline" for text in the plan, "builtin".
	Source string
	// Text is the script as written.
	Text string
	// File, Line and Col name the place of Text's first character in
	// messages: the file, and for text inside a plan file its line and
	// column there (0 when Text is a file of its own).
	File      string
	Line, Col int
}

// ReadScript is the name of the script a path's script, file or
// workload defines in a plan, and of the built-in paths' one script.
const ReadScript = "read"

// ReadPaths returns the three read paths of the reference matrix, the
// default plan's: sql-any (prepared SELECT ... WHERE id = ANY(:keys),
// rows back in any order), sql-mget (prepared SELECT gbench.mget(:keys),
// one JSON array in request order) and resp-mget (MGET). The slice is new
// on each call.
func ReadPaths() []Path {
	var out []Path
	for _, p := range workloads.Paths() {
		rb := map[string]workloads.ReadBack{"sql-any": workloads.ReadRows, "sql-mget": workloads.ReadJSON, "resp-mget": workloads.ReadArray}[p.Name]
		out = append(out, Path{Name: p.Name, Mode: p.Mode, Contract: rb,
			Scripts: []Script{{Name: ReadScript, Source: "builtin", Text: p.Read() + "\n", File: p.Name}}})
	}
	return out
}
