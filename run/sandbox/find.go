package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

const (
	installPostgres = "install PostgreSQL server binaries: apt install postgresql (Debian/Ubuntu), brew install postgresql@16 (macOS)"
	installRedis    = "install Redis: apt install redis-server (Debian/Ubuntu), brew install redis (macOS)"
)

// ErrNotFound is in the error Start returns when a server binary the
// options need is not installed (errors.Is): a missing program, where any
// other error is a failure.
var ErrNotFound = errors.New("not found")

// pgPlaces are the directories searched for PostgreSQL after PATH and
// pg_config, in order; a pattern expands to its matches, highest version
// first.
var pgPlaces = []string{
	"/usr/lib/postgresql/*/bin",
	"/usr/local/pgsql/bin",
	"/opt/homebrew/opt/postgresql@*/bin",
	"/usr/local/opt/postgresql@*/bin",
	"/opt/homebrew/bin",
	"/usr/local/bin",
}

// redisPlaces are the directories searched for redis-server after PATH.
var redisPlaces = []string{
	"/usr/local/bin",
	"/usr/bin",
	"/opt/homebrew/bin",
	"/opt/homebrew/opt/redis/bin",
	"/usr/local/opt/redis/bin",
}

// finder locates server binaries. Its fields are injectable for tests.
type finder struct {
	getenv    func(string) string
	pg, redis search
}

// search says where to look for one product's binaries and what to tell a
// user who has none.
type search struct {
	places   []string
	pgConfig bool // ask pg_config --bindir after PATH
	install  string
}

// newFinder searches PATH as getenv reports it and the usual places.
func newFinder(getenv func(string) string) finder {
	return finder{
		getenv: getenv,
		pg:     search{places: pgPlaces, pgConfig: true, install: installPostgres},
		redis:  search{places: redisPlaces, install: installRedis},
	}
}

// binaries are the absolute paths of the programs a sandbox runs.
type binaries struct {
	initdb, postgres, redis string
}

// find returns the binaries the options need, or an error naming what to
// install. postgres is taken from initdb's directory when it is there, so
// that the two always come from the same installation.
func (f finder) find(o Options) (binaries, error) {
	var b binaries
	var err error
	if o.Postgres {
		if b.initdb, err = f.look("initdb", f.pg); err != nil {
			return b, err
		}
		if b.postgres, err = f.sibling(b.initdb, "postgres"); err != nil {
			return b, err
		}
	}
	if o.Redis {
		b.redis, err = f.look("redis-server", f.redis)
	}
	return b, err
}

// look searches PATH, then pg_config --bindir if in.pgConfig, then
// in.places.
func (f finder) look(name string, in search) (string, error) {
	looked := []string{"PATH"}
	if p, ok := f.inPath(name); ok {
		return p, nil
	}
	if in.pgConfig {
		looked = append(looked, "pg_config --bindir")
		if dir := f.pgConfigBindir(); dir != "" {
			if p, ok := executable(filepath.Join(dir, name)); ok {
				return p, nil
			}
		}
	}
	for _, pattern := range in.places {
		looked = append(looked, pattern)
		for _, dir := range expand(pattern) {
			if p, ok := executable(filepath.Join(dir, name)); ok {
				return p, nil
			}
		}
	}
	return "", fmt.Errorf("%s %w (looked in: %s); %s", name, ErrNotFound, strings.Join(looked, ", "), in.install)
}

// sibling finds name next to the file at path, or next to the file path's
// symlinks resolve to, before searching like look.
func (f finder) sibling(path, name string) (string, error) {
	dirs := []string{filepath.Dir(path)}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, dir := range dirs {
		if p, ok := executable(filepath.Join(dir, name)); ok {
			return p, nil
		}
	}
	return f.look(name, f.pg)
}

// inPath is exec.LookPath over the PATH that f.getenv reports.
func (f finder) inPath(name string) (string, bool) {
	for _, dir := range filepath.SplitList(f.getenv("PATH")) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry would depend on the working directory
		}
		if p, ok := executable(filepath.Join(dir, name)); ok {
			return p, true
		}
	}
	return "", false
}

// pgConfigBindir runs pg_config --bindir when pg_config is on PATH.
func (f finder) pgConfigBindir() string {
	pgConfig, ok := f.inPath("pg_config")
	if !ok {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, pgConfig, "--bindir").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// executable reports whether path is a regular file with an execute bit.
func executable(path string) (string, bool) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
		return "", false
	}
	return path, true
}

// expand returns the directories matching pattern, highest version first.
// The version is read from the path element holding the wildcard
// ("15" in /usr/lib/postgresql/15/bin, "16" in postgresql@16).
func expand(pattern string) []string {
	if !strings.ContainsAny(pattern, "*?[") {
		return []string{pattern}
	}
	dirs, _ := filepath.Glob(pattern) // the only error is a bad pattern, and ours are fixed
	elem := slices.IndexFunc(strings.Split(pattern, "/"), func(e string) bool { return strings.ContainsAny(e, "*?[") })
	version := func(dir string) []int { return numbers(strings.Split(dir, "/")[elem]) }
	slices.SortStableFunc(dirs, func(a, b string) int { return slices.Compare(version(b), version(a)) })
	return dirs
}

// numbers returns the runs of digits in s as integers: "9.6" is [9 6].
func numbers(s string) []int {
	var out []int
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }) {
		n, _ := strconv.Atoi(f) // all digits; only overflow can fail, and then 0 is fine
		out = append(out, n)
	}
	return out
}
