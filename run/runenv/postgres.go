package runenv

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/result/schema"
)

// Postgres describes a PostgreSQL server.
type Postgres struct {
	// Version is server_version, VersionNum server_version_num.
	Version    string `json:"version"`
	VersionNum int    `json:"version_num"`
	// Settings are those whose source is not "default" in pg_settings
	// (configuration file, command line, ALTER SYSTEM, the database, the
	// role, the client), as current_setting shows them, by name.
	Settings []Setting `json:"settings"`
	// Durability names fsync, synchronous_commit and full_page_writes
	// together (schema.DurabilityOf): "on", "off", or the three when they
	// differ; absent when they could not be read.
	Durability string `json:"durability,omitempty"`
}

// Setting is one server setting.
type Setting struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	// Source is pg_settings.source ("configuration file", "command
	// line", "client", ...); empty for Redis.
	Source string `json:"source,omitempty"`
}

// DescribePostgres reads the server's version and the settings that
// differ from their defaults.
func DescribePostgres(ctx context.Context, conn *pgsql.Client) (*Postgres, error) {
	rows, err := conn.QueryText(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')")
	if err != nil {
		return nil, fmt.Errorf("reading the server version: %w", err)
	}
	p := &Postgres{Version: rows[0][0], Settings: []Setting{}}
	p.VersionNum, _ = strconv.Atoi(rows[0][1])
	rows, err = conn.QueryText(ctx, "SELECT name, current_setting(name), source FROM pg_settings WHERE source <> 'default' ORDER BY name")
	if err != nil {
		return nil, fmt.Errorf("reading pg_settings: %w", err)
	}
	for _, r := range rows {
		p.Settings = append(p.Settings, Setting{Name: r[0], Value: r[1], Source: r[2]})
	}
	rows, err = conn.QueryText(ctx, "SELECT current_setting('fsync'), current_setting('synchronous_commit'), current_setting('full_page_writes')")
	if err != nil {
		return nil, fmt.Errorf("reading the durability settings: %w", err)
	}
	p.Durability = schema.DurabilityOf(map[string]string{"fsync": rows[0][0], "synchronous_commit": rows[0][1], "full_page_writes": rows[0][2]})
	return p, nil
}

// PostgresCounters are the server's cumulative counters at one moment;
// Since turns two of them into what happened in between.
type PostgresCounters struct {
	At time.Time
	// WAL is the current WAL insert position in bytes; WALNote says why it
	// is unknown (a standby has none).
	WAL     int64
	WALNote string
	// CheckpointsTimed and CheckpointsRequested count checkpoints since
	// the statistics were reset (pg_stat_bgwriter, pg_stat_checkpointer
	// from PostgreSQL 17).
	CheckpointsTimed, CheckpointsRequested int64
	// Vacuums counts autovacuum and autoanalyze runs per table of the
	// connection's database (pg_stat_all_tables).
	Vacuums map[string]TableVacuums
	// Workers are the autovacuum workers running at that moment, by the
	// query they run.
	Workers []string
}

// TableVacuums are one table's autovacuum and autoanalyze counts.
type TableVacuums struct{ Vacuum, Analyze int64 }

// ReadPostgres reads the counters. versionNum is the server's
// server_version_num (Postgres.VersionNum), which says where the
// checkpoint counts are.
func ReadPostgres(ctx context.Context, conn *pgsql.Client, versionNum int) (*PostgresCounters, error) {
	c := &PostgresCounters{At: time.Now(), Vacuums: map[string]TableVacuums{}}
	rows, err := conn.QueryText(ctx, "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")
	if err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		c.WALNote = "the WAL position is unknown: " + err.Error()
	} else {
		c.WAL, _ = strconv.ParseInt(rows[0][0], 10, 64)
	}
	q := "SELECT checkpoints_timed, checkpoints_req FROM pg_stat_bgwriter"
	if versionNum >= 170000 {
		q = "SELECT num_timed, num_requested FROM pg_stat_checkpointer"
	}
	if rows, err = conn.QueryText(ctx, q); err != nil {
		return nil, fmt.Errorf("reading the checkpoint counts: %w", err)
	}
	c.CheckpointsTimed, _ = strconv.ParseInt(rows[0][0], 10, 64)
	c.CheckpointsRequested, _ = strconv.ParseInt(rows[0][1], 10, 64)
	rows, err = conn.QueryText(ctx, `SELECT schemaname || '.' || relname, autovacuum_count, autoanalyze_count
		FROM pg_stat_all_tables WHERE autovacuum_count + autoanalyze_count > 0`)
	if err != nil {
		return nil, fmt.Errorf("reading the autovacuum counts: %w", err)
	}
	for _, r := range rows {
		v, _ := strconv.ParseInt(r[1], 10, 64)
		a, _ := strconv.ParseInt(r[2], 10, 64)
		c.Vacuums[r[0]] = TableVacuums{v, a}
	}
	rows, err = conn.QueryText(ctx, "SELECT coalesce(query, '') FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'")
	if err != nil {
		return nil, fmt.Errorf("reading the autovacuum workers: %w", err)
	}
	for _, r := range rows {
		c.Workers = append(c.Workers, r[0])
	}
	return c, nil
}

// PostgresActivity is what PostgreSQL did between two readings.
type PostgresActivity struct {
	// WALBytes is the WAL written; absent when unknown (WALNote says why).
	WALBytes *int64 `json:"wal_bytes,omitempty"`
	WALNote  string `json:"wal_note,omitempty"`
	// Checkpoints started or completed between the readings (timed and
	// requested).
	Checkpoints          int64 `json:"checkpoints"`
	CheckpointsTimed     int64 `json:"checkpoints_timed"`
	CheckpointsRequested int64 `json:"checkpoints_requested"`
	// Autovacuums and Autoanalyzes count the runs that finished between
	// the readings, in the connection's database; Tables names the tables
	// they processed.
	Autovacuums  int64    `json:"autovacuums"`
	Autoanalyzes int64    `json:"autoanalyzes"`
	Tables       []string `json:"tables,omitempty"`
	// Workers are the autovacuum workers running at either reading, by
	// their query ("autovacuum: VACUUM public.pgbench_accounts"): they
	// overlapped the window even when they finished after it.
	Workers []string `json:"autovacuum_workers,omitempty"`
}

// Since returns what happened between before and c.
func (c *PostgresCounters) Since(before *PostgresCounters) *PostgresActivity {
	a := &PostgresActivity{
		CheckpointsTimed:     c.CheckpointsTimed - before.CheckpointsTimed,
		CheckpointsRequested: c.CheckpointsRequested - before.CheckpointsRequested,
	}
	a.Checkpoints = a.CheckpointsTimed + a.CheckpointsRequested
	switch {
	case before.WALNote != "":
		a.WALNote = before.WALNote
	case c.WALNote != "":
		a.WALNote = c.WALNote
	default:
		n := c.WAL - before.WAL
		a.WALBytes = &n
	}
	for name, v := range c.Vacuums {
		b := before.Vacuums[name]
		dv, da := v.Vacuum-b.Vacuum, v.Analyze-b.Analyze
		a.Autovacuums += max(dv, 0)
		a.Autoanalyzes += max(da, 0)
		if dv > 0 || da > 0 {
			a.Tables = append(a.Tables, name)
		}
	}
	sortStrings(a.Tables)
	for _, w := range append(append([]string{}, before.Workers...), c.Workers...) {
		if !contains(a.Workers, w) {
			a.Workers = append(a.Workers, w)
		}
	}
	return a
}

// Warnings say what in a could have disturbed the measurement.
func (a *PostgresActivity) Warnings() []string {
	var out []string
	if a.Checkpoints > 0 {
		out = append(out, plural(a.Checkpoints, "checkpoint")+" ran inside the measured window")
	}
	if n := a.Autovacuums + a.Autoanalyzes; n > 0 {
		out = append(out, fmt.Sprintf("autovacuum ran inside the measured window (%s, %s on %s)",
			plural(a.Autovacuums, "vacuum"), plural(a.Autoanalyzes, "analyze"), strings.Join(a.Tables, ", ")))
	} else if len(a.Workers) > 0 {
		out = append(out, "autovacuum was running during the measured window ("+strings.Join(a.Workers, "; ")+")")
	}
	return out
}

// plural writes n and the noun, with an s unless n is 1.
func plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}
