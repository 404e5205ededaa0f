package sandbox

import (
	"strings"
	"testing"

	"github.com/gbench/gbench/result/schema"
)

func TestOptionsErrors(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want string
	}{
		// Neither server asked for.
		{"nothing", Options{}, "sandbox: nothing to start; set Options.Postgres or Options.Redis"},
		// A negative connection limit.
		{"max_connections", Options{Postgres: true, MaxConnections: -1}, "sandbox: invalid max_connections -1; must be positive"},
		// A setting the sandbox owns, in any case.
		{"port", Options{Postgres: true, Settings: map[string]string{"Port": "1"}}, `sandbox: PostgreSQL setting "Port" cannot be set: the sandbox picks a free port`},
		// A setting with its own field.
		{"shared_buffers", Options{Postgres: true, Settings: map[string]string{"shared_buffers": "1GB"}}, `sandbox: PostgreSQL setting "shared_buffers" cannot be set: use Options.SharedBuffers`},
		// A name that could smuggle a second option.
		{"bad name", Options{Postgres: true, Settings: map[string]string{"a=b": "1"}}, `sandbox: invalid PostgreSQL setting name "a=b"`},
		// A Redis-style name for PostgreSQL.
		{"pg hyphen", Options{Postgres: true, Settings: map[string]string{"work-mem": "1"}}, `sandbox: invalid PostgreSQL setting name "work-mem"`},
		// A Redis directive the sandbox owns.
		{"redis dir", Options{Redis: true, RedisSettings: map[string]string{"dir": "/"}}, `sandbox: Redis setting "dir" cannot be set: the sandbox owns the directory`},
		// A value with a newline.
		{"newline", Options{Redis: true, RedisSettings: map[string]string{"maxmemory": "1\n2"}}, `sandbox: invalid value "1\n2" for Redis setting "maxmemory"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.o.withDefaults()
			if err == nil || err.Error() != tt.want {
				t.Errorf("error\n got: %v\nwant: %s", err, tt.want)
			}
		})
	}
}

func TestOptionsDefaults(t *testing.T) {
	env := map[string]string{"GBENCH_SANDBOX_USER": "bench"}
	o, err := Options{Postgres: true, Settings: map[string]string{"Work_Mem": "8MB"},
		RedisSettings: map[string]string{"maxmemory-policy": "allkeys-lru"},
		Getenv:        func(k string) string { return env[k] }}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if o.MaxConnections != 300 || o.SharedBuffers != "128MB" || o.Database != "gbench" ||
		o.User != "bench" || o.Settings["work_mem"] != "8MB" || o.Log == nil {
		t.Errorf("defaults: %+v", o)
	}
}

func TestDefaultBaseDir(t *testing.T) {
	if d := defaultBaseDir(); d != "/dev/shm" && !strings.HasPrefix(d, "/") {
		t.Errorf("defaultBaseDir() = %q", d)
	}
}

// TestDurability checks the command line each durability gives the
// postmaster, and how a server's settings are named.
func TestDurability(t *testing.T) {
	for _, off := range []bool{false, true} {
		o, err := Options{Postgres: true, DurabilityOff: off}.withDefaults()
		if err != nil {
			t.Fatal(err)
		}
		s := &Sandbox{opts: o, dir: "/nonexistent"}
		cfg := s.pgConfig()
		want := map[bool]string{false: "on", true: "off"}[off]
		for _, n := range []string{"fsync", "synchronous_commit", "full_page_writes"} {
			if cfg[n] != want {
				t.Errorf("DurabilityOff=%v: %s=%q, want %q", off, n, cfg[n], want)
			}
		}
		if got := schema.DurabilityOf(cfg); got != want {
			t.Errorf("DurabilityOf(DurabilityOff=%v) = %q, want %q", off, got, want)
		}
	}
	mixed := map[string]string{"fsync": "on", "synchronous_commit": "off", "full_page_writes": "on"}
	if got := schema.DurabilityOf(mixed); got != "fsync=on synchronous_commit=off full_page_writes=on" {
		t.Errorf("DurabilityOf(mixed) = %q", got)
	}
	if got := schema.DurabilityOf(map[string]string{"fsync": "on"}); got != "" {
		t.Errorf("DurabilityOf(partial) = %q, want \"\"", got)
	}
	for in, want := range map[string]bool{"on": false, "OFF": true} {
		if off, err := ParseDurability(in); err != nil || off != want {
			t.Errorf("ParseDurability(%q) = %v, %v", in, off, err)
		}
	}
	if _, err := ParseDurability("maybe"); err == nil || !strings.Contains(err.Error(), `invalid durability "maybe"`) {
		t.Errorf("ParseDurability(maybe): %v", err)
	}
}
