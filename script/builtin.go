package script

import (
	"fmt"
	"strings"
)

// Builtin is one of pgbench's built-in scripts.
type Builtin struct {
	Name string // for -b and --show-script
	Desc string // what the summary calls it: "<builtin: select only>"
	Text string
}

// Builtins are pgbench's built-in scripts, with pgbench 15's exact text.
var Builtins = []Builtin{
	{
		Name: "tpcb-like",
		Desc: "<builtin: TPC-B (sort of)>",
		Text: `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
UPDATE pgbench_tellers SET tbalance = tbalance + :delta WHERE tid = :tid;
UPDATE pgbench_branches SET bbalance = bbalance + :delta WHERE bid = :bid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	},
	{
		Name: "simple-update",
		Desc: "<builtin: simple update>",
		Text: `\set aid random(1, 100000 * :scale)
\set bid random(1, 1 * :scale)
\set tid random(1, 10 * :scale)
\set delta random(-5000, 5000)
BEGIN;
UPDATE pgbench_accounts SET abalance = abalance + :delta WHERE aid = :aid;
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
INSERT INTO pgbench_history (tid, bid, aid, delta, mtime) VALUES (:tid, :bid, :aid, :delta, CURRENT_TIMESTAMP);
END;
`,
	},
	{
		Name: "select-only",
		Desc: "<builtin: select only>",
		Text: `\set aid random(1, 100000 * :scale)
SELECT abalance FROM pgbench_accounts WHERE aid = :aid;
`,
	},
}

// FindBuiltin finds a builtin script by name or unambiguous prefix, with
// pgbench's error messages.
func FindBuiltin(name string) (*Builtin, error) {
	var found []*Builtin
	for i := range Builtins {
		if strings.HasPrefix(Builtins[i].Name, name) {
			found = append(found, &Builtins[i])
		}
	}
	switch len(found) {
	case 1:
		return found[0], nil
	case 0:
		return nil, fmt.Errorf("no builtin script found for name %q", name)
	}
	return nil, fmt.Errorf("ambiguous builtin name: %d builtin scripts found for prefix %q", len(found), name)
}

// ListBuiltins returns pgbench's "-b list" text.
func ListBuiltins() string {
	var b strings.Builder
	b.WriteString("Available builtin scripts:\n")
	for _, s := range Builtins {
		fmt.Fprintf(&b, "  %13s: %s\n", s.Name, s.Desc)
	}
	b.WriteString("\n")
	return b.String()
}

// ShowScript returns pgbench's --show-script text for a builtin.
func (b *Builtin) ShowScript() string {
	return fmt.Sprintf("-- %s: %s\n%s\n", b.Name, b.Desc, b.Text)
}
