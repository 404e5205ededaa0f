package workloads

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/gbench/gbench/script"
)

//go:embed *.sql
var files embed.FS

// DatasetFile is the psql file that creates the tables and functions every
// workload reads; Load runs it. It is not a workload.
const DatasetFile = "dataset.sql"

// Files returns the bundled files, workloads and DatasetFile, at the root
// of a read-only file system. It is safe for concurrent use.
func Files() fs.FS { return files }

// Text returns the content of a bundled file, e.g. Text("mget64.sql").
func Text(name string) (string, error) {
	b, err := files.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("workloads: no bundled file %q", name)
	}
	return string(b), nil
}

// Workload describes one bundled workload file: what a runner must pass to
// run it as its header says.
type Workload struct {
	// Name is the file name, e.g. "mget64.sql".
	Name string
	// Group is what the workload is about: "read", "update", "coldfill",
	// "write", "kv", "session" (the article's UUID get/set), "ycsb" or
	// "tpcc".
	Group string
	// Mode is the query mode (-M) its numbers are meant for.
	Mode script.Mode
	// SQL and RESP say which servers its script talks to: SQL needs a
	// database where the dataset is loaded, RESP needs --resp.
	SQL, RESP bool
	// Defines are the -D variables the script reads: "items" (the number of
	// rows loaded, Options.Items), "keys" (the kv keys loaded,
	// Options.Keys), "sessions" (the article's sessions loaded,
	// Options.Sessions) and "recordcount" (the YCSB records loaded,
	// Options.YCSBRecords) and "warehouses" (Options.Warehouses). Without them a client aborts with "undefined variable".
	Defines []string
}

// Workloads returns every bundled workload in a fixed order: the reads of
// Paths (fixed keys, then random keys, for each key count of KeyCounts),
// then the update mixes, the cold fills, the writes, the kv get/set
// comparison and its logged tables, the article's sessions, the
// hash-tagged MGETs, YCSB A-F (SQL, then RESP, for each letter) and the five
// TPC-C-like transactions. The slice is new on each call.
func Workloads() []Workload {
	var out []Workload
	for _, random := range []bool{false, true} {
		for _, p := range Paths() {
			for _, n := range KeyCounts() {
				out = append(out, p.workload(n, random))
			}
		}
	}
	items, keys, records, sessions := []string{"items"}, []string{"keys"}, []string{"recordcount"}, []string{"sessions"}
	sql := func(name, group string, resp bool, defines []string) Workload {
		return Workload{Name: name, Group: group, Mode: script.Prepared, SQL: true, RESP: resp, Defines: defines}
	}
	redis := func(name, group string) Workload {
		return Workload{Name: name, Group: group, Mode: script.Simple, RESP: true, Defines: keys}
	}
	out = append(out,
		sql("update5-any.sql", "update", false, nil),
		sql("update5-mget.sql", "update", false, nil),
		sql("update5-resp-mget.sql", "update", true, nil),
		sql("coldfill-sql.sql", "coldfill", false, items),
		sql("coldfill-resp.sql", "coldfill", true, items),
		sql("write-sql.sql", "write", false, items),
		sql("write-resp.sql", "write", true, items),
		sql("kv-get-sql.sql", "kv", false, keys),
		redis("kv-get-resp.sql", "kv"),
		sql("kv-set-sql.sql", "kv", false, keys),
		redis("kv-set-resp.sql", "kv"),
		sql("kv-mixed-sql.sql", "kv", false, keys),
		redis("kv-mixed-resp.sql", "kv"),
		sql("kv-get-sql-logged.sql", "kv", false, keys),
		sql("kv-set-sql-logged.sql", "kv", false, keys),
		sql("session-get-sql.sql", "session", false, sessions),
		sql("session-set-sql.sql", "session", false, sessions),
		sql("session-get-sql-logged.sql", "session", false, sessions),
		sql("session-set-sql-logged.sql", "session", false, sessions),
		Workload{Name: "session-get-resp.sql", Group: "session", Mode: script.Simple, RESP: true, Defines: sessions},
		Workload{Name: "session-set-resp.sql", Group: "session", Mode: script.Simple, RESP: true, Defines: sessions},
	)
	// The hash-tagged reads (Options.Tagged): an MGET a cluster runs
	// unsplit.
	for _, n := range []string{"16", "64"} {
		out = append(out,
			Workload{Name: "resp-mget" + n + "-tagged.sql", Group: "read", Mode: script.Simple, RESP: true},
			Workload{Name: "resp-mget" + n + "-random-tagged.sql", Group: "read", Mode: script.Simple, RESP: true, Defines: items})
	}
	for _, letter := range "abcdef" {
		out = append(out,
			Workload{Name: "ycsb-" + string(letter) + ".sql", Group: "ycsb", Mode: script.Prepared, SQL: true, Defines: records},
			Workload{Name: "resp-ycsb-" + string(letter) + ".sql", Group: "ycsb", Mode: script.Simple, RESP: true, Defines: records})
	}
	for _, w := range TPCC() {
		out = append(out, Workload{Name: w.Name, Group: "tpcc", Mode: script.Prepared, SQL: true, Defines: []string{"warehouses"}})
	}
	return out
}
