package script

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite golden files")

// TestErrorMessagesGolden pins the full text of every error gbench reports
// before running for the bad scripts pgbench also rejects: the
// file:line:col line, the offending line and the caret.
func TestErrorMessagesGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/pgbench/bad/*.sql")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("# gbench's messages for the scripts of testdata/pgbench/bad it rejects before running.\n")
	b.WriteString("# Regenerate with: go test ./script -run ErrorMessagesGolden -update\n")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Parse("script.sql", string(data), 1)
		if err == nil {
			_, err = Compile([]*Script{s}, modeOf(scriptArgsOf(string(data))), nil)
		}
		if err == nil {
			continue
		}
		b.WriteString("== " + filepath.Base(f) + "\n" + err.Error() + "\n")
	}
	golden := "testdata/errors.golden"
	if *updateGolden {
		if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if got := b.String(); got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("error messages differ from %s at line %d:\n got: %q\nwant: %q", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("error messages differ from %s in length (%d vs %d lines)", golden, len(gl), len(wl))
	}
}

// scriptArgsOf reads a corpus script's "-- args:" line.
func scriptArgsOf(text string) []string {
	first, _, _ := strings.Cut(text, "\n")
	rest, ok := strings.CutPrefix(first, "-- args:")
	if !ok {
		return nil
	}
	return strings.Fields(rest)
}
