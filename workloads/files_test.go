package workloads

import (
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/gbench/gbench/script"
)

// header returns the leading comment lines of a file and the rest.
func header(text string) ([]string, string) {
	var head []string
	for text != "" {
		line, rest, _ := strings.Cut(text, "\n")
		if !strings.HasPrefix(line, "--") {
			break
		}
		head, text = append(head, line), rest
	}
	return head, text
}

// runLine is the header's "-- Run:" line.
func runLine(head []string) string {
	for _, l := range head {
		if cmd, ok := strings.CutPrefix(l, "-- Run:"); ok {
			return strings.TrimSpace(cmd)
		}
	}
	return ""
}

// needsLines is the text of the header's "-- Needs:" line and its
// continuation lines, up to the end of the first sentence.
func needsLines(head []string) string {
	var b strings.Builder
	for i, l := range head {
		if !strings.HasPrefix(l, "-- Needs:") {
			continue
		}
		for _, c := range head[i:] {
			if c != l && !strings.HasPrefix(c, "--   ") {
				break
			}
			b.WriteString(strings.TrimPrefix(c, "--") + " ")
		}
	}
	text, _, _ := strings.Cut(b.String(), "). ")
	return text
}

// TestEveryFileIsListed keeps Workloads and the directory in step.
func TestEveryFileIsListed(t *testing.T) {
	var listed []string
	for _, w := range Workloads() {
		if slices.Contains(listed, w.Name) {
			t.Errorf("%s is listed twice", w.Name)
		}
		listed = append(listed, w.Name)
	}
	names, err := fs.Glob(Files(), "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range names {
		if n != DatasetFile && n != TPCCFile && !slices.Contains(listed, n) {
			t.Errorf("%s is bundled but not in Workloads()", n)
		}
	}
	for _, n := range listed {
		if !slices.Contains(names, n) {
			t.Errorf("%s is in Workloads() but not bundled", n)
		}
	}
}

// TestWorkloadsCompile parses and compiles every workload in its own mode
// and, for SQL, in the other two (the headers say they work), and checks
// that Workloads says which servers it needs.
func TestWorkloadsCompile(t *testing.T) {
	for _, w := range Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			text, err := Text(w.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, mode := range []script.Mode{script.Simple, script.Extended, script.Prepared} {
				s, err := script.Parse(w.Name, text, 1)
				if err != nil {
					t.Fatal(err)
				}
				p, err := script.Compile([]*script.Script{s}, mode, w.Defines)
				if err != nil {
					t.Fatalf("%s mode: %v", mode, err)
				}
				if p.HasSQL != w.SQL || p.HasRESP != w.RESP {
					t.Errorf("script talks SQL %v, RESP %v; Workloads says %v, %v", p.HasSQL, p.HasRESP, w.SQL, w.RESP)
				}
			}
		})
	}
}

// TestHeaders checks that every workload's header says what it measures,
// how to run it and what it needs, and that its run line passes what
// Workloads says the workload needs.
func TestHeaders(t *testing.T) {
	for _, w := range Workloads() {
		text, _ := Text(w.Name)
		head, _ := header(text)
		if len(head) == 0 || !strings.HasPrefix(head[0], "-- "+w.Name+": ") {
			t.Errorf("%s: the first line must be \"-- %s: what it is\"", w.Name, w.Name)
			continue
		}
		if first := head[0]; !strings.HasSuffix(first, ".") || len(first) > 100 {
			t.Errorf("%s: the first line must be one sentence of at most 100 characters (gbench workloads list shows it): %q", w.Name, first)
		}
		all := strings.Join(head, "\n")
		for _, field := range []string{"\n-- Measures: ", "\n-- Run:   ", "\n-- Needs: "} {
			if !strings.Contains(all, field) {
				t.Errorf("%s: no %q line in the header", w.Name, strings.TrimSpace(field))
			}
		}
		run := " " + runLine(head) + " "
		file := " -f workloads/" + w.Name + " "
		if w.Group == "tpcc" { // the five weighted in one command line
			file = strings.TrimSuffix(file, " ") + "@"
		}
		want := map[string]bool{
			file:            true,
			" -M prepared ": w.Mode == script.Prepared,
			" --resp ":      w.RESP,
			" DBNAME ":      w.SQL,
			" -n ":          w.SQL, // skip pgbench's vacuum of pgbench_* tables
		}
		for _, d := range []string{"items", "keys"} {
			want[" -D "+d+"="] = slices.Contains(w.Defines, d)
		}
		// The Needs line says how to load the dataset from an installed
		// binary, into the servers the workload talks to.
		load := " " + strings.Join(strings.Fields(needsLines(head)), " ") + " "
		for frag, needed := range map[string]bool{
			" gbench workloads load ": true,
			" --resp ":                w.RESP,
			" DBNAME ":                w.SQL,
		} {
			if strings.Contains(load, frag) != needed {
				t.Errorf("%s: Needs %q: contains %q is %v, want %v", w.Name, strings.TrimSpace(load), strings.TrimSpace(frag), !needed, needed)
			}
		}
		for frag, needed := range want {
			if strings.Contains(run, frag) != needed {
				t.Errorf("%s: run line %q: contains %q is %v, want %v", w.Name, strings.TrimSpace(run), strings.TrimSpace(frag), !needed, needed)
			}
		}
	}
}

// TestPathScriptsMatchFiles checks that the bundled read files hold
// exactly what Path.Script writes, so a matrix runner and a user running
// the files measure the same thing.
func TestPathScriptsMatchFiles(t *testing.T) {
	for _, p := range Paths() {
		for _, n := range KeyCounts() {
			for _, random := range []bool{false, true} {
				name := p.File(n, random)
				text, err := Text(name)
				if err != nil {
					t.Fatalf("%s %d %v: %v", p.Name, n, random, err)
				}
				if _, body := header(text); body != p.Script(n, random) {
					t.Errorf("%s: body\n%s\nwant Path.Script's\n%s", name, body, p.Script(n, random))
				}
			}
		}
		if f := p.File(7, false); f != "" {
			t.Errorf("%s.File(7) = %q, want \"\" (no such file)", p.Name, f)
		}
	}
}

// TestDatasetFileIsNotAWorkload: Text serves it, Workloads does not list it.
func TestDatasetFileIsNotAWorkload(t *testing.T) {
	text, err := Text(DatasetFile)
	if err != nil || !strings.Contains(text, "CREATE OR REPLACE FUNCTION gbench.mget(keys bigint[]) RETURNS json") {
		t.Fatalf("Text(%q): %v", DatasetFile, err)
	}
	if _, err := Text("nope.sql"); err == nil || !strings.Contains(err.Error(), `"nope.sql"`) {
		t.Errorf("Text(nope.sql): %v, want an error naming the file", err)
	}
	for _, w := range Workloads() {
		if path.Base(w.Name) == DatasetFile {
			t.Errorf("Workloads lists %s", DatasetFile)
		}
	}
}

func TestValue(t *testing.T) {
	for _, c := range []struct {
		id   int64
		size int
		want string
	}{
		{1, 10, "1-c4ca4238"}, // md5("1") = c4ca4238a0b923820dcc509a6f75849b
		{12345, 3, "123"},     // rpad cuts to size
		{-1, 4, "-1-6"},       // md5("-1") = 6bb61e3b7bce0931da574d19d1d82c88
		{7, 0, ""},            // nothing
		{2, 40, "2-c81e728d9d4c2f636f067f89cc14862cc81e72"}, // the fill repeats
	} {
		if got := Value(c.id, c.size); got != c.want {
			t.Errorf("Value(%d, %d) = %q, want %q", c.id, c.size, got, c.want)
		}
	}
}

func TestOptions(t *testing.T) {
	o, err := Options{}.withDefaults()
	if err != nil || o != (Options{Items: DefaultItems, ValueSize: DefaultValueSize, Keys: DefaultKeys, Sessions: DefaultSessions, YCSBRecords: DefaultYCSBRecords, YCSBFieldLength: DefaultYCSBFieldLength}) {
		t.Errorf("zero Options: %+v, %v", o, err)
	}
	for _, bad := range []Options{{Items: 100}, {ValueSize: -1}, {ValueSize: MaxValueSize + 1}, {Keys: -5}, {Sessions: -1}, {YCSBRecords: -1}, {YCSBFieldLength: MaxValueSize + 1}} {
		if _, err := bad.withDefaults(); err == nil {
			t.Errorf("%+v: no error", bad)
		}
	}
	if d := (Options{Items: 500}).Defines(); !slices.Equal(d, []string{"items=500", "keys=100000", "sessions=100000", "recordcount=1000"}) {
		t.Errorf("Defines = %q", d)
	}
}
