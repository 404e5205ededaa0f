package runenv

import (
	"context"
	"time"

	"github.com/gbench/gbench/engine/resp"
	"github.com/jackc/pgx/v5/pgconn"
)

// Probe reads the servers' counters at the start and the end of measured
// windows, on connections its caller opened and closes. A reading that
// fails becomes a note of the window's Activity, never an error: the
// measurement matters more than its context. A Probe is used by one
// goroutine at a time.
type Probe struct {
	// PG, when set, is a connection to the run's database; VersionNum is
	// its server_version_num.
	PG         *pgconn.PgConn
	VersionNum int
	// Redis, when set, is a client of the run's Redis.
	Redis *resp.Client

	start       time.Time
	pgBefore    *PostgresCounters
	redisBefore *RedisCounters
	notes       []string
}

// Begin reads the counters at the start of a window.
func (p *Probe) Begin(ctx context.Context) {
	p.start, p.notes = time.Now(), nil
	p.pgBefore, p.redisBefore = nil, nil
	var err error
	if p.PG != nil {
		if p.pgBefore, err = ReadPostgres(ctx, p.PG, p.VersionNum); err != nil {
			p.notes = append(p.notes, "PostgreSQL's counters were not read at the start: "+err.Error())
		}
	}
	if p.Redis != nil {
		if p.redisBefore, err = ReadRedis(p.Redis); err != nil {
			p.notes = append(p.notes, "Redis's counters were not read at the start: "+err.Error())
		}
	}
}

// End reads the counters at the end of the window Begin opened and
// returns what happened inside it.
func (p *Probe) End(ctx context.Context) *Activity {
	a := &Activity{Start: p.start, End: time.Now(), Notes: p.notes}
	if p.pgBefore != nil {
		after, err := ReadPostgres(ctx, p.PG, p.VersionNum)
		if err != nil {
			a.Notes = append(a.Notes, "PostgreSQL's counters were not read at the end: "+err.Error())
		} else {
			a.Postgres = after.Since(p.pgBefore)
		}
	}
	if p.redisBefore != nil {
		after, err := ReadRedis(p.Redis)
		if err != nil {
			a.Notes = append(a.Notes, "Redis's counters were not read at the end: "+err.Error())
		} else {
			a.Redis = after.Since(p.redisBefore)
		}
	}
	return a
}
