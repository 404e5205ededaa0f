package matrix

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/workloads"
)

// startSandbox starts throwaway servers, or skips the test when their
// binaries are missing (unless GBENCH_REQUIRE_SERVICES=1).
func startSandbox(t *testing.T, o sandbox.Options) *sandbox.Sandbox {
	t.Helper()
	o.MaxConnections = 40
	sb, err := sandbox.Start(context.Background(), o)
	if err != nil {
		if errors.Is(err, sandbox.ErrNotFound) {
			testsrv.Need(t, "no server binaries for the sandbox: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { sb.Close() })
	return sb
}

// loadedPostgres connects to sb's PostgreSQL and loads the dataset into it;
// the connection is closed when the test ends.
func loadedPostgres(t *testing.T, ctx context.Context, sb *sandbox.Sandbox) (*pgsql.Config, *pgsql.Client) {
	t.Helper()
	pg, setup := openPostgres(t, ctx, sb)
	if err := workloads.Load(ctx, setup, nil, workloads.Options{}); err != nil {
		t.Fatal(err)
	}
	return pg, setup
}

// openPostgres returns the sandbox's PostgreSQL config and a setup
// connection to it, closed when the test ends.
func openPostgres(t *testing.T, ctx context.Context, sb *sandbox.Sandbox) (*pgsql.Config, *pgsql.Client) {
	t.Helper()
	pg, err := pgsql.ParseConfig(sb.PostgresConnString())
	if err != nil {
		t.Fatal(err)
	}
	setup, err := pg.Open(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { setup.Close() })
	return pg, setup
}

// planConfig validates a plan written in a test.
func planConfig(t *testing.T, doc string) *Config {
	t.Helper()
	p, err := ParsePlan("test.toml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c, err := p.Config(PlanOptions{Name: "test.toml", File: "test.toml", Data: []byte(doc)})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// userMget is a cache extension's read function as a user would bring
// one, defined only in this test: keys in, the values in request order
// out (an array, NULL for a missing key), reading the table it is given.
const userMget = `CREATE SCHEMA test_ext;
CREATE FUNCTION test_ext.mget(rel regclass, keys bigint[]) RETURNS text[] LANGUAGE plpgsql STABLE AS $f$
DECLARE out text[];
BEGIN
    EXECUTE format('SELECT ARRAY(SELECT t.v FROM unnest($1) WITH ORDINALITY AS k(id, ord) LEFT JOIN %s AS t ON t.id = k.id ORDER BY k.ord)', rel)
        INTO out USING keys;
    RETURN out;
END
$f$;
-- A wrong one: the values in id order, not request order.
CREATE FUNCTION test_ext.mget_sorted(rel regclass, keys bigint[]) RETURNS text[] LANGUAGE plpgsql STABLE AS $f$
DECLARE out text[];
BEGIN
    EXECUTE format('SELECT ARRAY(SELECT t.v FROM unnest($1) AS k(id) LEFT JOIN %s AS t ON t.id = k.id ORDER BY k.id)', rel)
        INTO out USING keys;
    RETURN out;
END
$f$;`

// pgOnlyPlan measures gbench's sql-any beside the user's path, on
// PostgreSQL alone.
const pgOnlyPlan = `title = "a user's mget"
keys = [1, 16]
connections = [2]
duration_s = 0.3
repeats = 1
warmup_s = 0.2
threads = 1

[[paths]]
name = "sql-any"
script = 'SELECT id, v FROM gbench.items WHERE id = ANY(:keys);'
contract = "rows"

[[paths]]
name = "my-mget"
script = '''
SELECT array_to_json(test_ext.MGET_FN('gbench.items'::regclass, :keys));
'''
contract = "json"
`

// TestUserPathOnPostgresOnly runs a plan with a path gbench does not know
// (a function defined here) beside a built-in one, on a sandbox with
// PostgreSQL and no Redis: the contract check passes it, every sample
// runs, and the server's cost is measured. The same plan with a function
// that returns the values in the wrong order is refused by the contract
// check, naming the path and the case, before any sample.
func TestUserPathOnPostgresOnly(t *testing.T) {
	sb := startSandbox(t, sandbox.Options{Postgres: true})
	ctx := context.Background()
	pg, setup := openPostgres(t, ctx, sb)
	if err := setup.Exec(ctx, userMget); err != nil {
		t.Fatal(err)
	}

	c := planConfig(t, strings.Replace(pgOnlyPlan, "MGET_FN", "mget", 1))
	c.PG, c.Load, c.Sandbox, c.PostgresPID, c.PostgresCgroup = pg, true, true, sb.PostgresPID(), sb.PostgresCgroup()
	if needPG, needRESP := c.NeedsServers(); !needPG || needRESP {
		t.Fatalf("NeedsServers = %v, %v", needPG, needRESP)
	}
	res, err := Run(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Contract.Passed || strings.Join(res.Contract.Paths, ",") != "sql-any,my-mget" || res.Partial || res.FailedSamples != 0 || len(res.Samples) != 4 {
		t.Fatalf("contract %+v, partial %v, %d failed of %d samples", res.Contract, res.Partial, res.FailedSamples, len(res.Samples))
	}
	if res.Environment.Redis.Version != "" || res.Environment.Postgres.Version == "" || res.Plan.Paths[1].Scripts[0].Source != "inline" {
		t.Errorf("environment %+v, plan %+v", res.Environment, res.Plan.Paths)
	}
	for _, s := range res.Samples {
		checkSample(t, &s, "postgres")
	}

	c = planConfig(t, strings.Replace(pgOnlyPlan, "MGET_FN", "mget_sorted", 1))
	c.PG = pg
	res, err = Run(ctx, c)
	if !errors.Is(err, ErrContract) || len(res.Samples) != 0 || res.Contract.Passed {
		t.Fatalf("a wrong path: %v, %d samples, contract %+v", err, len(res.Samples), res.Contract)
	}
	for _, want := range []string{`case "reversed" (keys [8 7 6 5 4 3 2 1]): my-mget differs from the dataset (gbench.items) at position 1 (key 8)`,
		`case "duplicates"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the contract error does not say %q:\n%v", want, err)
		}
	}
	if strings.Contains(err.Error(), "sql-any differs") {
		t.Errorf("the contract blames sql-any:\n%v", err)
	}
}

// checkSample checks a sample of a test plan: valid, with requests,
// latency and the cost on its server.
func checkSample(t *testing.T, s *schema.Sample, server string) {
	t.Helper()
	if !s.Valid() || s.Requests <= 0 || s.ReqS <= 0 || s.Latency.P50Us <= 0 || s.Server == nil || s.Server.Name != server {
		t.Errorf("sample %s/%d: %+v", s.Path, s.Keys, s)
		return
	}
	if s.Server.CPU == nil && s.Server.CPUNote == "" {
		t.Errorf("sample %s/%d: no server CPU and no reason", s.Path, s.Keys)
	}
}

// respOnlyPlan measures gbench's resp-mget beside a path of the user's
// own (a Lua script reading each key), on Redis alone, with a fixed
// request count per sample.
const respOnlyPlan = `keys = [1, 16]
connections = [2]
requests = 400
repeats = 1
warmup_s = 0
threads = 1

[[paths]]
name = "resp-mget"
script = '\resp MGET gbench:item::keys'
contract = "array"

[[paths]]
name = "lua-get"
script = '''
\resp EVAL "local r = {} for i, k in ipairs(ARGV) do r[i] = redis.call('GET', k) end return r" 0 gbench:item::keys
'''
contract = "array"
resp = "OWN_URL"
`

// TestRESPOnlyPlan runs a plan on a sandbox with Redis and no
// PostgreSQL: the dataset is loaded into Redis alone, read back from its
// marker, every path checked against the keys gbench:item:*, and each
// sample serves its fixed number of requests. The user's path names its
// own server (the same Redis, by another URL): it is opened, described and
// measured apart.
func TestRESPOnlyPlan(t *testing.T) {
	sb := startSandbox(t, sandbox.Options{Redis: true})
	ro, err := resp.ParseURL(sb.RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	own := strings.Replace(sb.RedisURL(), "127.0.0.1", "localhost", 1)
	c := planConfig(t, strings.Replace(respOnlyPlan, "OWN_URL", own, 1))
	c.RESP, c.Load, c.Sandbox, c.RedisCgroup = &ro, true, true, sb.RedisCgroup()
	if needPG, needRESP := c.NeedsServers(); needPG || !needRESP {
		t.Fatalf("NeedsServers = %v, %v", needPG, needRESP)
	}
	res, err := Run(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Contract.Passed || len(res.Contract.Paths) != 2 || res.Plan.Items != workloads.DefaultItems || len(res.Samples) != 4 || res.FailedSamples != 0 {
		t.Fatalf("contract %+v, items %d, %d samples (%d failed)", res.Contract, res.Plan.Items, len(res.Samples), res.FailedSamples)
	}
	if res.Environment.Postgres.Version != "" || res.Environment.Redis.Version == "" || res.Plan.Requests != 400 || res.Plan.DurationS != 0 {
		t.Errorf("environment %+v, plan %+v", res.Environment, res.Plan)
	}
	if len(res.Environment.Servers) != 1 || res.Environment.Servers[0].Name != "redis lua-get" || res.Plan.Paths[1].RESP != own {
		t.Errorf("the path's own server: %+v, plan %+v", res.Environment.Servers, res.Plan.Paths[1])
	}
	for _, s := range res.Samples {
		server := "redis"
		if s.Path == "lua-get" {
			server = "redis lua-get"
		}
		checkSample(t, &s, server)
		if s.Requests != 400 {
			t.Errorf("%s/%d: %d requests, want the plan's 400", s.Path, s.Keys, s.Requests)
		}
		// Every request is one command reading its keys (GET in Lua counts
		// as a hit too).
		if hits := s.Server.Counters["keyspace_hits"]; hits != 400*int64(s.Keys) {
			t.Errorf("%s/%d: %d keyspace hits, want %d", s.Path, s.Keys, hits, 400*s.Keys)
		}
	}
}
