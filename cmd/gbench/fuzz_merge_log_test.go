package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzMergeLog feeds gbench merge's reader files that may be JSON results
// or logs holding them (the output of --json -, pods' logs put together):
// it never panics, gives a result for every block from a line "{" to a
// line "}" that is one (none when the file is a result itself), and
// names the file in every error. Seeds are in testdata/fuzz/FuzzMergeLog.
func FuzzMergeLog(f *testing.F) {
	f.Add("gbench: setting random seed to 1\n{\n  \"schema\": \"gbench-result/1\"\n}\n")
	f.Add("progress: 1.0 s, 10.0 tps\n{\n\"schema\": 1}\n}\ntail\n{\n")
	f.Add("{\"schema\": \"gbench-result/1\"")
	f.Add("no result here\n")
	f.Fuzz(func(t *testing.T, data string) {
		if len(data) > 1<<16 {
			return
		}
		name := filepath.Join(t.TempDir(), "pod.log")
		if err := os.WriteFile(name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		rs, err := readResults(name)
		if err != nil {
			if !strings.Contains(err.Error(), name) {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		if len(rs) == 0 {
			t.Fatal("no results and no error")
		}
		if n := len(jsonBlocks([]byte(data))); len(rs) > max(n, 1) {
			t.Fatalf("%d results from %d blocks", len(rs), n)
		}
		for _, r := range rs {
			if err := r.Write(&strings.Builder{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}
