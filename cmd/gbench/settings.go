package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/gbench/gbench/engine/pgsql"
)

// checkSettings groups the sides' settings by server, checks every name
// and value, and returns the function that restores the servers. A
// setting a server refuses is invalid input (exit status 1).
func checkSettings(ctx context.Context, sides []*abSide) (func(*Env), error) {
	var appliers []*pgsql.Settings
	restore := func(env *Env) {
		for _, s := range appliers {
			if err := s.Restore(context.Background()); err != nil {
				fmt.Fprintf(env.Stderr, "gbench: error: restoring the server settings: %v\n", err)
			}
		}
	}
	byServer := map[string]*pgsql.Settings{}
	for _, sd := range sides {
		if len(sd.settings) == 0 {
			continue
		}
		pg := sd.bench.b.pg
		key := fmt.Sprintf("%s:%d/%s", pg.Host(), pg.Port(), pg.Database())
		s := byServer[key]
		if s == nil {
			s = pgsql.NewSettings(pg)
			byServer[key] = s
			appliers = append(appliers, s)
		}
		s.Add(sd.name, sd.settings)
		sd.server = s
	}
	for _, sd := range sides {
		if sd.server != nil && !sd.server.Has(sd.name) {
			sd.server.Add(sd.name, []pgsql.Setting{}) // runs with the server's own values
		}
	}
	for _, s := range appliers {
		if err := s.Check(ctx); err != nil {
			var se *pgsql.SettingError
			switch {
			case errors.As(err, &se) && se.Side != "":
				return restore, usagef("invalid --set-%s %s=%s: %s", lower(se.Side), se.Name, se.Value, se.Reason)
			case errors.As(err, &se):
				return restore, usagef("%s", se.Reason)
			}
			return restore, err
		}
	}
	return restore, nil
}

func lower(s string) string {
	if s == "A" {
		return "a"
	}
	return "b"
}
