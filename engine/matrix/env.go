package matrix

import (
	"bufio"
	"context"
	"net"
	"os"
	"runtime"
	"strconv"
	"strings"
	"syscall"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/jackc/pgx/v5/pgconn"
)

// machine describes this machine and gbench for the result.
func machine(c *Config) Environment {
	return Environment{
		Gbench: c.Gbench, Go: runtime.Version(), Command: c.Command, Variables: c.Variables,
		OS: uname(), CPU: MachineCPU{Model: cpuModel(), Count: runtime.NumCPU()},
		LoadStart: loadAverage(),
	}
}

// uname returns the kernel's name, release, version and machine.
func uname() OS {
	var u syscall.Utsname
	if err := syscall.Uname(&u); err != nil {
		return OS{Sysname: runtime.GOOS, Machine: runtime.GOARCH}
	}
	return OS{Sysname: utsString(u.Sysname[:]), Release: utsString(u.Release[:]),
		Version: utsString(u.Version[:]), Machine: utsString(u.Machine[:])}
}

// utsString converts a NUL-terminated utsname field.
func utsString[T int8 | uint8](f []T) string {
	b := make([]byte, 0, len(f))
	for _, c := range f {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

// cpuModel is the first "model name" of /proc/cpuinfo, or "" elsewhere.
func cpuModel() string {
	f, err := os.Open(procRoot + "/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// loadAverage returns the 1, 5 and 15 minute load averages; zeros when
// /proc/loadavg is unreadable.
func loadAverage() []float64 {
	out := []float64{0, 0, 0}
	b, err := os.ReadFile(procRoot + "/loadavg")
	if err != nil {
		return out
	}
	for i, f := range strings.Fields(string(b)) {
		if i < 3 {
			out[i], _ = strconv.ParseFloat(f, 64)
		}
	}
	return out
}

// pgSettings are the PostgreSQL settings a result records.
var pgSettings = []string{
	"max_connections", "shared_buffers", "work_mem", "effective_cache_size", "huge_pages",
	"fsync", "synchronous_commit", "full_page_writes", "wal_level", "jit",
	"plan_cache_mode", "max_worker_processes", "max_parallel_workers_per_gather",
}

// describePostgres reads the server's version and key settings.
func describePostgres(ctx context.Context, conn *pgconn.PgConn, c *Config) (Endpoint, error) {
	e := Endpoint{Sandbox: c.Sandbox, Address: net.JoinHostPort(c.PG.Host(), strconv.Itoa(int(c.PG.Port()))),
		Database: c.PG.Database(), Settings: []Setting{}}
	rows, err := pgsql.QueryText(ctx, conn, "SELECT current_setting('server_version')")
	if err != nil {
		return e, err
	}
	e.Version = rows[0][0]
	rows, err = pgsql.QueryText(ctx, conn, "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name",
		"{"+strings.Join(pgSettings, ",")+"}")
	if err != nil {
		return e, err
	}
	for _, r := range rows {
		e.Settings = append(e.Settings, Setting{Name: r[0], Value: r[1]})
	}
	return e, nil
}

// redisSettings are the Redis directives a result records.
var redisSettings = []string{"appendonly", "io-threads", "maxmemory", "maxmemory-policy", "save"}

// describeRedis reads the server's version and key settings. CONFIG may be
// disabled (managed services rename it); the settings are then left out.
func describeRedis(rc *resp.Client, c *Config) (Endpoint, error) {
	e := Endpoint{Sandbox: c.Sandbox, Address: c.RESP.Addr, Settings: []Setting{}}
	if c.RESP.DB != 0 {
		e.Database = strconv.Itoa(c.RESP.DB)
	}
	info, err := rc.Info("server")
	if err != nil {
		return e, err
	}
	e.Version = info["redis_version"]
	for _, name := range redisSettings {
		text, err := rc.Text("CONFIG", "GET", name)
		k, v, ok := strings.Cut(text, "\n")
		if err != nil || !ok || k != name {
			continue
		}
		e.Settings = append(e.Settings, Setting{Name: name, Value: v})
	}
	return e, nil
}
