package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/comparison.md")

// TestComparison prints the comparison of a small read matrix (one repeat
// of 1 and 64 keys at 4 and 256 connections, from the 2026-12-01 run)
// with reference.json, against a golden file.
func TestComparison(t *testing.T) {
	var out, errs bytes.Buffer
	if rc := run([]string{"-ref", "reference.json", filepath.Join("testdata", "read.json")}, &out, &errs); rc != 0 {
		t.Fatalf("exit %d: %s", rc, errs.String())
	}
	golden := filepath.Join("testdata", "comparison.md")
	if *update {
		if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != string(want) {
		t.Errorf("output differs from %s (go test -update to accept):\n%s", golden, out.String())
	}
	for _, line := range []string{
		"| mget/ANY, 64 keys, 256 connections | SQL mget / prepared = ANY = 43,647 / 27,615 | **1.58×** | sql-mget / sql-any = 9,241 / 14,816 | **0.62×** | reversed |",
		"| mget/ANY, 1 key, 256 connections | SQL mget / prepared = ANY = 186,296 / 253,790 | **0.73×** | sql-mget / sql-any = 19,807 / 21,708 | **0.91×** | agrees |",
		"not in this run |",
		"| **0.72×** | not measured by gbench |  | no counterpart |",
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("output lacks %q", line)
		}
	}
}

// TestVerdict checks the agreement rule on both sides of 1 and at the tolerance.
func TestVerdict(t *testing.T) {
	for _, c := range []struct {
		ref, g float64
		want   string
	}{
		{1.58, 0.62, "reversed"},
		{0.73, 0.91, "agrees"},
		{0.73, 0.95, "same direction, size differs"},
		{3.31, 6.38, "same direction, size differs"},
		{2.0, 2.5, "agrees"},
		{2.0, 2.51, "same direction, size differs"},
		{0.5, 1.5, "reversed"},
	} {
		if got := verdict(c.ref, c.g, 0.25); got != c.want {
			t.Errorf("verdict(%v, %v) = %q, want %q", c.ref, c.g, got, c.want)
		}
	}
}

// TestErrors: a bad reference or a file that is not a matrix result fails with status 1.
func TestErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "ref.json")
	os.WriteFile(bad, []byte(`{"sources":{},"comparisons":[{"name":"x","source":"nowhere","num":{"value":1},"den":{"value":1}}]}`), 0o644)
	notMatrix := filepath.Join(dir, "m.json")
	os.WriteFile(notMatrix, []byte(`{"schema":"other"}`), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-ref", bad, "testdata/read.json"}, `names source "nowhere"`},
		{[]string{"-ref", "reference.json", notMatrix}, "not a gbench matrix result"},
		{[]string{}, "usage: refcompare"},
	} {
		var out, errs bytes.Buffer
		if rc := run(c.args, &out, &errs); rc != 1 || !strings.Contains(errs.String(), c.want) {
			t.Errorf("run(%q) = %d, %q; want 1 and %q", c.args, rc, errs.String(), c.want)
		}
	}
}
