package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
)

// ErrForeign is wrapped by the error of Inspect, Load and Drop when a
// server holds, where the dataset goes, something gbench did not create:
// a schema gbench without gbench's comment, an object in it without one,
// or Redis keys under the dataset's prefixes without the marker hash.
// Nothing was changed on either server.
var ErrForeign = errors.New("holds objects gbench did not create")

// Existing is what Inspect found of an earlier load on one server: what a
// new load replaces.
type Existing struct {
	// Server is "PostgreSQL" or "Redis".
	Server string
	// Found is false when the server holds nothing of the dataset.
	Found bool
	// Loaded is what the server says was loaded last, such as "4096 items
	// of 128 bytes, 100000 kv keys, loaded 2025-01-02 03:04:05 +00:00", or
	// why it cannot say ("a load that did not finish").
	Loaded string
	// Replaced lists what a load replaces (or Drop removes), one object or
	// key pattern a line, such as "table gbench.items (4098 rows)",
	// "function gbench.mget(bigint[])" or "4096 keys gbench:item:*".
	Replaced []string
}

// Inspect looks at what the servers hold of the dataset, changing nothing:
// in PostgreSQL (when pg is not nil) the schema Schema, in Redis (when redis
// is not nil) MarkerKey and the keys under the dataset's prefixes. It
// returns one Existing per server, PostgreSQL first, or an error wrapping
// ErrForeign that names what gbench did not create. The caller keeps
// ownership of the connections (see Load).
func Inspect(ctx context.Context, pg *pgsql.Client, redis net.Conn) ([]Existing, error) {
	return inspectAll(ctx, pg, redisOf(redis))
}

// InspectCluster is Inspect of a Redis Cluster's masters instead of one
// Redis.
func InspectCluster(ctx context.Context, pg *pgsql.Client, redis *RedisCluster) ([]Existing, error) {
	var r redisStore
	if redis != nil {
		r = redis
	}
	return inspectAll(ctx, pg, r)
}

func inspectAll(ctx context.Context, pg *pgsql.Client, redis redisStore) ([]Existing, error) {
	var out []Existing
	if pg != nil {
		e, err := inspectPostgres(ctx, pg)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	if redis != nil {
		e, err := redis.inspect(ctx)
		if err != nil {
			return nil, ctxErr(ctx, err)
		}
		out = append(out, e)
	}
	return out, nil
}

// schemaObjectsQuery lists the objects of the schema gbench and their
// comments: those that depend on the schema, and the indexes of its tables.
// dataset.sql checks the same.
const schemaObjectsQuery = `SELECT o.name, coalesce(o.comment, '')
FROM (SELECT pg_catalog.pg_describe_object(d.classid, d.objid, 0) AS name,
             pg_catalog.obj_description(d.objid, d.classid::regclass::name) AS comment
      FROM pg_catalog.pg_depend AS d JOIN pg_catalog.pg_namespace AS n ON n.oid = d.refobjid
      WHERE d.refclassid = 'pg_catalog.pg_namespace'::regclass AND n.nspname = 'gbench'
      UNION ALL
      SELECT pg_catalog.pg_describe_object('pg_catalog.pg_class'::regclass, c.oid, 0),
             pg_catalog.obj_description(c.oid, 'pg_class')
      FROM pg_catalog.pg_class AS c JOIN pg_catalog.pg_namespace AS n ON n.oid = c.relnamespace
      WHERE n.nspname = 'gbench' AND c.relkind IN ('i', 'I')) AS o
ORDER BY 1`

// datasetTables are the tables Load fills, in Schema.
var datasetTables = []string{"items", "items_cache", "kv", "kv_logged", "sessions", "sessions_logged", "usertable"}

// inspectPostgres checks that the schema gbench, if it exists, is gbench's
// and holds only gbench's objects, and lists them.
func inspectPostgres(ctx context.Context, pg *pgsql.Client) (Existing, error) {
	e := Existing{Server: "PostgreSQL"}
	rows, err := query(ctx, pg, "SELECT coalesce(pg_catalog.obj_description(oid, 'pg_namespace'), '') FROM pg_catalog.pg_namespace WHERE nspname = '"+Schema+"'")
	if err != nil || len(rows) == 0 {
		return e, err
	}
	comment := string(rows[0][0])
	if !strings.HasPrefix(comment, Marker) {
		return e, fmt.Errorf("workloads: PostgreSQL: schema %q exists and gbench did not create it (its comment does not start with %q): %w; nothing was changed: rename the schema or load into another database",
			Schema, Marker, ErrForeign)
	}
	e.Found, e.Loaded = true, strings.TrimPrefix(strings.TrimPrefix(comment, Marker), ": ")
	if rows, err = query(ctx, pg, schemaObjectsQuery); err != nil {
		return e, err
	}
	var foreign, tables []string
	for _, r := range rows {
		name, comment := string(r[0]), string(r[1])
		switch {
		case !strings.HasPrefix(comment, Marker):
			foreign = append(foreign, name)
		case strings.HasPrefix(name, "table "):
			tables = append(tables, strings.TrimPrefix(name, "table "))
		case !strings.HasPrefix(name, "index "): // an index goes with its table
			e.Replaced = append(e.Replaced, name)
		}
	}
	if len(foreign) > 0 {
		return e, fmt.Errorf("workloads: PostgreSQL: schema %q %w: %s; nothing was changed: move them to another schema or drop them",
			Schema, ErrForeign, strings.Join(foreign, ", "))
	}
	counted, err := countRows(ctx, pg, tables)
	e.Replaced = append(counted, e.Replaced...)
	return e, err
}

// countRows returns "table NAME (N rows)" for each table.
func countRows(ctx context.Context, pg *pgsql.Client, tables []string) ([]string, error) {
	if len(tables) == 0 {
		return nil, nil
	}
	counts := make([]string, len(tables))
	for i, t := range tables {
		counts[i] = "(SELECT count(*) FROM " + t + ")"
	}
	rows, err := query(ctx, pg, "SELECT "+strings.Join(counts, ", "))
	if err != nil {
		return nil, err
	}
	out := make([]string, len(tables))
	for i, t := range tables {
		out[i] = fmt.Sprintf("table %s (%s rows)", t, rows[0][i])
	}
	return out, nil
}

// query runs one statement and returns its rows.
func query(ctx context.Context, pg *pgsql.Client, sql string) ([][][]byte, error) {
	rows, err := pg.SimpleQuery(ctx, sql)
	if err != nil {
		return nil, fmt.Errorf("workloads: PostgreSQL: %w", ctxErr(ctx, err))
	}
	return rows, nil
}

// Fields of MarkerKey.
const (
	markerOwner  = "created-by" // always "gbench"
	markerItems  = "items"
	markerSize   = "value-size"
	markerKeys   = "keys"
	markerSess   = "sessions"
	markerYCSB   = "ycsb-records"
	markerField  = "ycsb-field-length"
	markerLoaded = "loaded" // set when a load completes
)

// inspectRedis checks that the keys under the dataset's prefixes, if any,
// come with gbench's marker, and counts them.
func inspectRedis(rc *resp.Client) (Existing, error) {
	return inspectNodes(rc, []*resp.Client{rc})
}

// inspectNodes is inspectRedis over the masters of a cluster: the marker
// on its node, the keys on all.
func inspectNodes(markerNode *resp.Client, nodes []*resp.Client) (Existing, error) {
	e := Existing{Server: "Redis"}
	marker, err := readMarker(markerNode)
	if err != nil {
		return e, err
	}
	counts := map[string]int{}
	var example string
	for _, rc := range nodes {
		err = scanKeys(rc, KeyPrefix+"*", func(key string) {
			for _, p := range dataPrefixes {
				if strings.HasPrefix(key, p) {
					counts[p]++
					example = key
				}
			}
		})
		if err != nil {
			return e, err
		}
	}
	n := 0
	for _, c := range counts {
		n += c
	}
	if marker == nil {
		if n > 0 {
			return e, fmt.Errorf("workloads: Redis: the database %w: %d keys under %s (such as %q) but no hash %s; nothing was changed: remove them or load into another database (redis://HOST:PORT/DB)",
				ErrForeign, n, strings.Join(dataPrefixes, ", "), example, MarkerKey)
		}
		return e, nil
	}
	e.Found, e.Loaded = true, marker.describe()
	for _, p := range dataPrefixes {
		e.Replaced = append(e.Replaced, fmt.Sprintf("%d %s %s*", counts[p], plural(counts[p], "key", "keys"), p))
	}
	e.Replaced = append(e.Replaced, "the hash "+MarkerKey)
	return e, nil
}

// plural picks the word for n things.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// marker is the content of MarkerKey.
type marker map[string]string

// readMarker returns MarkerKey's fields, nil when there is no such key,
// or an error wrapping ErrForeign when the key is not gbench's.
func readMarker(rc *resp.Client) (marker, error) {
	typ, err := rc.Text("TYPE", MarkerKey)
	if err != nil || typ == "none" {
		return nil, err
	}
	text := ""
	if typ == "hash" {
		if text, err = rc.Text("HGETALL", MarkerKey); err != nil {
			return nil, err
		}
	}
	m := marker{}
	fields := strings.Split(text, "\n")
	for i := 0; i+1 < len(fields); i += 2 {
		m[fields[i]] = fields[i+1]
	}
	if m[markerOwner] != "gbench" {
		return nil, fmt.Errorf("workloads: Redis: the database %w: the key %s (a %s) has no field %s = gbench; nothing was changed: remove it or load into another database",
			ErrForeign, MarkerKey, typ, markerOwner)
	}
	return m, nil
}

// describe says what the marker says was loaded.
func (m marker) describe() string {
	s := fmt.Sprintf("%s items of %s bytes, %s kv keys", m[markerItems], m[markerSize], m[markerKeys])
	if m[markerSess] != "" {
		s += fmt.Sprintf(", %s sessions", m[markerSess])
	}
	if m[markerYCSB] != "" {
		s += fmt.Sprintf(", %s YCSB records of 10 fields of %s bytes", m[markerYCSB], m[markerField])
	}
	if m[markerLoaded] == "" {
		return s + ", a load that did not finish"
	}
	return s + ", loaded " + m[markerLoaded]
}

// setMarker writes MarkerKey for a load of o, not yet finished.
func setMarker(rc *resp.Client, o Options) error {
	_, _, err := rc.Call("HSET", MarkerKey, markerOwner, "gbench",
		markerItems, strconv.Itoa(o.Items), markerSize, strconv.Itoa(o.ValueSize), markerKeys, strconv.Itoa(o.Keys), markerSess, strconv.Itoa(o.Sessions),
		markerYCSB, strconv.Itoa(o.YCSBRecords), markerField, strconv.Itoa(o.YCSBFieldLength))
	if err == nil {
		_, _, err = rc.Call("HDEL", MarkerKey, markerLoaded)
	}
	return err
}
