package runenv

import (
	"context"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
)

// Probe reads the servers' counters at the start and the end of measured
// windows. It opens a connection for each reading and closes it at once,
// so that none of its own is open while clients run (a run may use every
// connection the server allows). A reading that fails becomes a note of
// the window's Activity, never an error: the measurement matters more than
// its context. A Probe is used by one goroutine at a time.
type Probe struct {
	// PG, when set, opens a connection to the run's database;
	// VersionNum is the server's server_version_num.
	PG         func(ctx context.Context) (*pgsql.Client, error)
	VersionNum int
	// Redis, when set, opens a client of the run's Redis and returns the
	// function that closes it.
	Redis func(ctx context.Context) (*resp.Client, func(), error)
	// WaitInterval, when set with PG, samples PostgreSQL's wait states
	// over each window at that interval, on a connection of its own
	// (Activity.WaitEvents).
	WaitInterval time.Duration

	start       time.Time
	waits       *WaitSampler
	waitConn    *pgsql.Client
	waitsNote   string
	pgBefore    *PostgresCounters
	redisBefore *RedisCounters
	notes       []string
}

// Begin reads the counters at the start of a window.
func (p *Probe) Begin(ctx context.Context) {
	p.start, p.notes = time.Now(), nil
	var err error
	if p.pgBefore, err = p.readPG(ctx); err != nil {
		p.notes = append(p.notes, "PostgreSQL's counters were not read at the start: "+err.Error())
	}
	if p.redisBefore, err = p.readRedis(ctx); err != nil {
		p.notes = append(p.notes, "Redis's counters were not read at the start: "+err.Error())
	}
	p.waits, p.waitConn, p.waitsNote = nil, nil, ""
	if p.WaitInterval > 0 && p.PG != nil {
		conn, err := p.PG(ctx)
		if err == nil {
			if err = conn.Exec(ctx, "SET application_name = 'gbench-waits'"); err == nil {
				p.waits, err = StartWaits(ctx, conn, p.WaitInterval)
			}
			if err != nil {
				conn.Close()
			} else {
				p.waitConn = conn
			}
		}
		if err != nil {
			p.waitsNote = "the wait-state sampler could not start: " + err.Error()
		}
	}
}

// End reads the counters at the end of the window Begin opened and
// returns what happened inside it.
func (p *Probe) End(ctx context.Context) *Activity {
	a := &Activity{Start: p.start, End: time.Now(), Notes: p.notes, WaitEventsNote: p.waitsNote}
	if p.waits != nil {
		a.WaitEvents = p.waits.Stop()
		p.waitConn.Close()
		p.waits, p.waitConn = nil, nil
	}
	if p.pgBefore != nil {
		if after, err := p.readPG(ctx); err != nil {
			a.Notes = append(a.Notes, "PostgreSQL's counters were not read at the end: "+err.Error())
		} else {
			a.Postgres = after.Since(p.pgBefore)
		}
	}
	if p.redisBefore != nil {
		if after, err := p.readRedis(ctx); err != nil {
			a.Notes = append(a.Notes, "Redis's counters were not read at the end: "+err.Error())
		} else {
			a.Redis = after.Since(p.redisBefore)
		}
	}
	return a
}

// readPG reads PostgreSQL's counters on a connection of its own; nil
// without PG.
func (p *Probe) readPG(ctx context.Context) (*PostgresCounters, error) {
	if p.PG == nil {
		return nil, nil
	}
	conn, err := p.PG(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return ReadPostgres(ctx, conn, p.VersionNum)
}

// readRedis reads Redis's counters on a client of its own; nil without
// Redis.
func (p *Probe) readRedis(ctx context.Context) (*RedisCounters, error) {
	if p.Redis == nil {
		return nil, nil
	}
	rc, closeFn, err := p.Redis(ctx)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return ReadRedis(rc)
}
