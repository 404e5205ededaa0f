package main

import (
	"bytes"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestOldSpellings: --keys keeps its meaning for one release in each
// command, the kv keyspace in sandbox and workloads load, keys per request
// in matrix, and says on stderr what replaces it; the new names give no
// warning.
func TestOldSpellings(t *testing.T) {
	lo, lfs, err := parseLoadArgs([]string{"--keys", "5", "db"}, true)
	if err != nil || lo.data.Keys != 5 {
		t.Fatalf("workloads load --keys 5: %+v, %v", lo, err)
	}
	so, sfs, _, err := parseSandboxArgs([]string{"--keys", "7"})
	if err != nil || so.data.Keys != 7 {
		t.Fatalf("sandbox --keys 7: %v", err)
	}
	env := &Env{Getenv: func(string) string { return "" }, Now: time.Now}
	mo, mfs, err := parseMatrixArgs(env, []string{"--keys", "1,16"})
	if err != nil || !slices.Equal(mo.keys, []int{1, 16}) || !mo.set["keys"] {
		t.Fatalf("matrix --keys 1,16: %v", err)
	}
	for _, c := range []struct {
		warn func(*bytes.Buffer)
		want string
	}{
		{func(b *bytes.Buffer) { warnOldSpellings(b, lfs) }, "gbench workloads load: warning: --keys is deprecated and will be removed in the next release: use --keyspace"},
		{func(b *bytes.Buffer) { warnOldSpellings(b, sfs) }, "gbench sandbox: warning: --keys is deprecated and will be removed in the next release: use --keyspace"},
		{func(b *bytes.Buffer) { warnOldSpellings(b, mfs) }, "gbench matrix: warning: --keys is deprecated and will be removed in the next release: use --keys-per-request"},
	} {
		var b bytes.Buffer
		c.warn(&b)
		if !strings.HasPrefix(b.String(), c.want) {
			t.Errorf("warning %q, want %q", b.String(), c.want)
		}
	}
	// The new names: the same values, no warning.
	lo, lfs, _ = parseLoadArgs([]string{"--keyspace", "5", "--sessions", "9", "db"}, true)
	so, sfs, _, _ = parseSandboxArgs([]string{"--keyspace", "7", "--sessions", "11"})
	mo, mfs, _ = parseMatrixArgs(env, []string{"--keys-per-request", "1,16", "--keyspace", "3", "--sessions", "4"})
	var b bytes.Buffer
	warnOldSpellings(&b, lfs)
	warnOldSpellings(&b, sfs)
	warnOldSpellings(&b, mfs)
	if b.Len() != 0 || lo.data.Keys != 5 || lo.data.Sessions != 9 || so.data.Keys != 7 || so.data.Sessions != 11 ||
		!slices.Equal(mo.keys, []int{1, 16}) || !mo.set["keys"] || mo.data.Keys != 3 || mo.data.Sessions != 4 {
		t.Errorf("new names: warnings %q, load %+v, sandbox %+v, matrix %v %+v", b.String(), lo.data, so.data, mo.keys, mo.data)
	}
}
