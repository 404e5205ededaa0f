package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestSentTextMatchesPgbench records, on the server, the text of each
// command as current_query() sees it, for pgbench 15 and for gbench on the
// same scripts. pgbench's --debug log cannot show it: pg_log strips one
// final newline of every message.
func TestSentTextMatchesPgbench(t *testing.T) {
	cfg := needServer(t)
	pg := needPgbench(t)
	db := scratchDB(t, cfg, "senttext")
	dbc := dbConfig(t, db)
	admin(t, dbc, "create table q (who text, n serial, q text)")
	ins := "insert into q (who, q) values (':who', current_query())"
	scripts := []struct{ name, text string }{
		// SQL ending at a meta-command, with blank lines before it.
		{"before-meta", ins + "\n\n\n\\set x 1\n"},
		// The last command without ";" and with several final newlines.
		{"end-of-file", "\\set x 1\n" + ins + "\n\n"},
		// A leading block comment, a command ending at end of file without a newline.
		{"comment-no-newline", "/* c */\n" + ins},
		// Blanks and a "--" comment after the SQL, then a meta-command.
		{"blanks-comment-meta", ins + "  \t\n-- c\n\t\n\\set x 1\n"},
		// Blank lines and a "--" comment after the last command at end of file.
		{"comment-end-of-file", "\\set x 1\n" + ins + " \n\n-- end\n"},
		// A command ending with ";" keeps nothing after it.
		{"semicolon", ins + ";\n\n\n"},
	}
	for _, s := range scripts {
		t.Run(s.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "s.sql")
			if err := os.WriteFile(f, []byte(s.text), 0o644); err != nil {
				t.Fatal(err)
			}
			admin(t, dbc, "truncate q")
			if o := execPgbench(t, pg, "-n", "-t", "1", "-D", "who=p", "-f", f, db); o.code != 0 {
				t.Fatalf("pgbench: %d\n%s", o.code, o.stderr)
			}
			if o := runGbench("-n", "-t", "1", "-D", "who=g", "-f", f, db); o.code != 0 {
				t.Fatalf("gbench: %d\n%s", o.code, o.stderr)
			}
			rows, err := query(dbc, "select who, replace(q, '''g''', '''p''') from q order by n")
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 2 || rows[0][0] != "p" || rows[1][0] != "g" {
				t.Fatalf("rows %q", rows)
			}
			if rows[0][1] != rows[1][1] {
				t.Errorf("gbench sent %q, pgbench sent %q", rows[1][1], rows[0][1])
			}
		})
	}
}
