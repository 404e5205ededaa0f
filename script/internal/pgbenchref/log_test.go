package pgbenchref

import (
	"reflect"
	"testing"
)

func TestParseLog(t *testing.T) {
	stderr := `pgbench: pghost: 127.0.0.1 pgport: 5432 nclients: 1 nxacts: 1 dbName: test
pgbench: client 0 executing script "script.sql"
pgbench: client 0 executing \set x
debug(script=0,command=1): int 5
pgbench: client 0 sending SELECT 5,
  'multi line';
pgbench: client 0 receiving
pgbench: client 0 executing script "script.sql"
pgbench: client 0 sending SELECT 6;
pgbench: client 0 receiving
pgbench: error: client 0 script 0 aborted in command 1 query 0: ERROR:  boom
LINE 1: SELECT 6;
        ^
pgbench: detail: some detail
pgbench: error: Run was aborted; the above results are incomplete.
`
	got := parseLog(stderr)
	want := Outcome{
		Sent: []Sent{
			{Client: 0, Txn: 0, SQL: "SELECT 5,\n  'multi line';"},
			{Client: 0, Txn: 1, SQL: "SELECT 6;"},
		},
		Debug: []string{"debug(script=0,command=1): int 5"},
		Errors: []string{
			"client 0 script 0 aborted in command 1 query 0: ERROR:  boom\nLINE 1: SELECT 6;\n        ^\ndetail: some detail",
			"Run was aborted; the above results are incomplete.",
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseLog:\n got %#v\nwant %#v", got, want)
	}
}

func TestSplitLets(t *testing.T) {
	tests := []struct {
		line string
		lets []Let
		expr string
	}{
		// no prefix: the line is the expression, blanks kept
		{" 1 + 2", nil, " 1 + 2"},
		// \set and -D definitions, in order
		{"let x = 5; def s = abc; :x + :s", []Let{{"x", "5", false}, {"s", "abc", true}}, ":x + :s"},
		// an expression that merely starts with an identifier is not a let
		{"true = true", nil, "true = true"},
	}
	for _, tt := range tests {
		lets, expr := SplitLets(tt.line)
		if !reflect.DeepEqual(lets, tt.lets) || expr != tt.expr {
			t.Errorf("SplitLets(%q) = %v, %q; want %v, %q", tt.line, lets, expr, tt.lets, tt.expr)
		}
	}
}

func TestEscape(t *testing.T) {
	for _, s := range []string{"", `a\b`, "1 + \\\n2", "\t\r\n", `\n`} {
		if got := Unescape(Escape(s)); got != s {
			t.Errorf("Unescape(Escape(%q)) = %q", s, got)
		}
	}
}
