package main

import (
	"context"
	"fmt"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/run/runenv"
)

// probeTimeout bounds each Redis call of the context probes.
const probeTimeout = 5 * time.Second

// runContext describes gbench, this machine and the servers b uses, and
// returns the probe that reads their counters around measured windows.
// What cannot be read becomes a note of the context; it never fails a run.
func runContext(ctx context.Context, b *benchSetup, command []string) (*runenv.Context, *runenv.Probe) {
	rc := runenv.New(version, redactArgs(command))
	p := &runenv.Probe{}
	if b.pg != nil {
		open := func(ctx context.Context) (*pgsql.Client, error) { return b.pg.Open(ctx) }
		desc, err := describePG(ctx, open)
		if err != nil {
			rc.Notes = append(rc.Notes, "PostgreSQL was not described: "+b.pg.Redact(err.Error()))
		} else {
			rc.Postgres, p.PG, p.VersionNum = desc, open, desc.VersionNum
		}
	}
	if b.cfg.RESP != nil {
		ro := b.respOptions
		open := func(ctx context.Context) (*resp.Client, func(), error) {
			c, err := resp.Dial(ctx, ro)
			if err != nil {
				return nil, nil, err
			}
			cl := resp.NewClient(c)
			cl.SetTimeout(probeTimeout)
			return cl, func() { c.Close() }, nil
		}
		desc, err := describeRedis(ctx, open)
		if err != nil {
			rc.Notes = append(rc.Notes, "the Redis server was not described: "+pgsql.Redact(err.Error()))
		} else {
			rc.Redis, p.Redis = desc, open
		}
	}
	return rc, p
}

func describePG(ctx context.Context, open func(context.Context) (*pgsql.Client, error)) (*runenv.Postgres, error) {
	conn, err := open(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return runenv.DescribePostgres(ctx, conn)
}

func describeRedis(ctx context.Context, open func(context.Context) (*resp.Client, func(), error)) (*runenv.Redis, error) {
	rc, closeFn, err := open(ctx)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	return runenv.DescribeRedis(rc)
}

// warnActivity prints what could have disturbed a measured window.
func warnActivity(env *Env, what string, a *runenv.Activity) {
	for _, w := range a.Warnings() {
		fmt.Fprintf(env.Stderr, "gbench: warning: %s: %s\n", what, w)
	}
}
