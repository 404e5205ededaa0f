package matrix

import (
	"context"
	"github.com/gbench/gbench/result/schema"
	"net"
	"runtime"
	"strconv"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/run/runenv"
)

// machine describes this machine and gbench for the result.
func machine(c *Config) schema.Environment {
	return schema.Environment{
		Gbench: c.Gbench, Go: runtime.Version(), Command: c.Command, Variables: c.Variables,
		OS: runenv.Uname(), CPU: schema.MachineCPU{Model: runenv.CPUModel(), Count: runtime.NumCPU()},
		LoadStart: runenv.LoadAverage(),
	}
}

// pgSettings are the PostgreSQL settings a result records.
var pgSettings = []string{
	"max_connections", "shared_buffers", "work_mem", "effective_cache_size", "huge_pages",
	"fsync", "synchronous_commit", "full_page_writes", "wal_level", "jit",
	"plan_cache_mode", "max_worker_processes", "max_parallel_workers_per_gather",
}

// describePostgres reads the server's version and key settings.
func describePostgres(ctx context.Context, conn *pgsql.Client, c *pgsql.Config, throwaway bool) (schema.Endpoint, error) {
	e := schema.Endpoint{Sandbox: throwaway, Address: net.JoinHostPort(c.Host(), strconv.Itoa(int(c.Port()))),
		Database: c.Database(), Settings: []schema.Setting{}}
	rows, err := conn.QueryText(ctx, "SELECT current_setting('server_version')")
	if err != nil {
		return e, err
	}
	e.Version = rows[0][0]
	rows, err = conn.QueryText(ctx, "SELECT name, current_setting(name) FROM pg_settings WHERE name = ANY($1::text[]) ORDER BY name",
		"{"+strings.Join(pgSettings, ",")+"}")
	if err != nil {
		return e, err
	}
	byName := map[string]string{}
	for _, r := range rows {
		e.Settings = append(e.Settings, schema.Setting{Name: r[0], Value: r[1]})
		byName[r[0]] = r[1]
	}
	e.Durability = schema.DurabilityOf(byName)
	return e, nil
}

// redisSettings are the Redis directives a result records.
var redisSettings = []string{"appendonly", "io-threads", "maxmemory", "maxmemory-policy", "save"}

// describeRedis reads the server's version and key settings. CONFIG may be
// disabled (managed services rename it); the settings are then left out.
func describeRedis(rc *resp.Client, o *resp.Options, sandbox bool) (schema.Endpoint, error) {
	e := schema.Endpoint{Sandbox: sandbox, Address: o.Addr, Settings: []schema.Setting{}}
	if o.DB != 0 {
		e.Database = strconv.Itoa(o.DB)
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
		e.Settings = append(e.Settings, schema.Setting{Name: name, Value: v})
	}
	return e, nil
}
