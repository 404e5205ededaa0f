package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// fakeBin writes an executable file (mode 0755) or a plain one (0644).
func fakeBin(t *testing.T, path string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"), mode); err != nil {
		t.Fatal(err)
	}
}

func TestFindMissing(t *testing.T) {
	root := t.TempDir()
	f := newFinder(func(string) string { return root })
	f.pg.places = []string{root + "/pg/*/bin", "/nonexistent/bin"}
	f.redis.places = []string{"/nonexistent/redis"}
	tests := []struct {
		name string
		o    Options
		want string
	}{
		// PostgreSQL: PATH, pg_config, then the places.
		{"postgres", Options{Postgres: true}, "initdb not found (looked in: PATH, pg_config --bindir, " + root +
			"/pg/*/bin, /nonexistent/bin); install PostgreSQL server binaries: apt install postgresql (Debian/Ubuntu), brew install postgresql@16 (macOS)"},
		// Redis: no pg_config step.
		{"redis", Options{Redis: true}, "redis-server not found (looked in: PATH, /nonexistent/redis); install Redis: apt install redis-server (Debian/Ubuntu), brew install redis (macOS)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.find(tt.o)
			if err == nil || err.Error() != tt.want {
				t.Errorf("find error\n got: %v\nwant: %s", err, tt.want)
			}
		})
	}
}

func TestFindOrder(t *testing.T) {
	root := t.TempDir()
	for _, v := range []string{"9.6", "10", "15"} {
		fakeBin(t, filepath.Join(root, "pg", v, "bin", "initdb"), 0o755)
		fakeBin(t, filepath.Join(root, "pg", v, "bin", "postgres"), 0o755)
	}
	fakeBin(t, filepath.Join(root, "path1", "initdb"), 0o644) // not executable: skipped
	fakeBin(t, filepath.Join(root, "path2", "redis-server"), 0o755)
	fakeBin(t, filepath.Join(root, "real", "initdb"), 0o755)
	fakeBin(t, filepath.Join(root, "real", "postgres"), 0o755)
	if err := os.MkdirAll(filepath.Join(root, "link"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "real", "initdb"), filepath.Join(root, "link", "initdb")); err != nil {
		t.Fatal(err)
	}
	places := []string{root + "/pg/*/bin"}
	tests := []struct {
		name string
		path string
		want binaries
	}{
		// Nothing usable on PATH: the highest version among the places wins.
		{"places", root + "/path1:relative/dir:" + root + "/path2", binaries{initdb: root + "/pg/15/bin/initdb", postgres: root + "/pg/15/bin/postgres", redis: root + "/path2/redis-server"}},
		// initdb found through a symlink: postgres comes from the link target's directory.
		{"symlink", root + "/link:" + root + "/path2", binaries{initdb: root + "/link/initdb", postgres: root + "/real/postgres", redis: root + "/path2/redis-server"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFinder(func(string) string { return tt.path })
			f.pg.places, f.redis.places = places, nil
			got, err := f.find(Options{Postgres: true, Redis: true})
			if err != nil || got != tt.want {
				t.Errorf("find = %+v, %v; want %+v", got, err, tt.want)
			}
		})
	}
}
