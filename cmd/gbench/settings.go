package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
)

// settingsWait bounds the wait for a reload to reach new connections.
const settingsWait = 5 * time.Second

// settingsApplier applies the settings of the A/B sides that use one
// PostgreSQL server, with ALTER SYSTEM and a reload, and restores the
// server's own values at the end.
type settingsApplier struct {
	open func(ctx context.Context) (*pgsql.Client, error)
	// sides holds each side's settings on this server.
	sides map[string][]serverSetting
	// names are every setting either side changes, in order.
	names []string
	// prior are the ALTER SYSTEM values the server had before the series
	// (postgresql.auto.conf); a name without one is reset at the end.
	prior map[string]string
	// expect is the value current_setting shows for a side's setting,
	// when a session can compute it (user and superuser settings).
	expect  map[string]map[string]string
	applied string // the side whose settings are in place
}

// checkSettings groups the sides' settings by server, checks every name
// and value, and returns the function that restores the servers.
func checkSettings(ctx context.Context, sides []*abSide) (func(*Env), error) {
	var appliers []*settingsApplier
	restore := func(env *Env) {
		for _, s := range appliers {
			if err := s.restore(context.Background()); err != nil {
				fmt.Fprintf(env.Stderr, "gbench: error: restoring the server settings: %v\n", err)
			}
		}
	}
	byServer := map[string]*settingsApplier{}
	for _, sd := range sides {
		if len(sd.settings) == 0 {
			continue
		}
		pg := sd.bench.b.pg
		key := fmt.Sprintf("%s:%d/%s", pg.Host(), pg.Port(), pg.Database())
		s := byServer[key]
		if s == nil {
			s = &settingsApplier{open: pg.Open, sides: map[string][]serverSetting{}, prior: map[string]string{},
				expect: map[string]map[string]string{}}
			byServer[key] = s
			appliers = append(appliers, s)
		}
		s.sides[sd.name] = sd.settings
		for _, x := range sd.settings {
			if !slices.Contains(s.names, x.name) {
				s.names = append(s.names, x.name)
			}
		}
		sd.server = s
	}
	for _, sd := range sides {
		if sd.server != nil && sd.server.sides[sd.name] == nil {
			sd.server.sides[sd.name] = []serverSetting{} // runs with the server's own values
		}
	}
	for _, s := range appliers {
		if err := s.check(ctx); err != nil {
			return restore, err
		}
	}
	return restore, nil
}

// check refuses unknown settings and those that need a restart, reads the
// server's own ALTER SYSTEM values, and works out what each value reads
// back as.
func (s *settingsApplier) check(ctx context.Context) error {
	conn, err := s.open(ctx)
	if err != nil {
		return fmt.Errorf("connecting to check the settings: %s", pgsql.RedactMessage(err.Error()))
	}
	defer conn.Close()
	for _, name := range s.names {
		rows, err := conn.QueryText(ctx, "SELECT context FROM pg_settings WHERE name = $1", name)
		switch {
		case err != nil:
			return fmt.Errorf("checking setting %q: %w", name, err)
		case len(rows) == 0 && strings.Contains(name, "."):
			// a custom setting (an extension's, or a script's own): the
			// server knows it once it is set
		case len(rows) == 0:
			return usagef("unknown PostgreSQL setting %q", name)
		case rows[0][0] == "postmaster" || rows[0][0] == "internal":
			return usagef("setting %q can only change with a server restart (context %s): compare two servers with two command lines (--vs) instead", name, rows[0][0])
		}
	}
	rows, err := conn.QueryText(ctx, "SELECT name, setting FROM pg_file_settings WHERE sourcefile LIKE '%postgresql.auto.conf' AND error IS NULL")
	if err != nil {
		return fmt.Errorf("reading the server's ALTER SYSTEM settings (this needs a superuser): %w", err)
	}
	for _, r := range rows {
		if slices.Contains(s.names, r[0]) {
			s.prior[r[0]] = r[1]
		}
	}
	// What a side runs with, as current_setting shows it: its own value,
	// or the server's current one for the names only the other side sets.
	// Only settings a session can set have a value a session can compute;
	// the others (sighup) are not checked after the reload.
	own := map[string]string{}
	for _, name := range s.names {
		rows, err := conn.QueryText(ctx, "SELECT current_setting($1, true)", name)
		if err != nil {
			return fmt.Errorf("reading setting %q: %w", name, err)
		}
		own[name] = rows[0][0]
	}
	for side, set := range s.sides {
		s.expect[side] = map[string]string{}
		for _, name := range s.names {
			v := s.value(side, name)
			if v == nil || (s.prior[name] == *v && !sets(set, name)) {
				if own[name] != "" {
					s.expect[side][name] = own[name]
				}
				continue
			}
			rows, err := conn.QueryText(ctx, "SELECT set_config($1, $2, true)", name, *v)
			pe, server := pgsql.AsServerError(err)
			switch {
			case err == nil:
				s.expect[side][name] = rows[0][0]
			case server && (pe.Code == "55P02" || pe.Code == "42501"): // a sighup or superuser-backend setting
				delete(s.expect[side], name)
			default:
				return usagef("invalid --set-%s %s=%s: %s", lower(side), name, *v, pgErrorText(err))
			}
		}
	}
	return nil
}

// sets reports whether set has a value for name.
func sets(set []serverSetting, name string) bool {
	return slices.ContainsFunc(set, func(x serverSetting) bool { return x.name == name })
}

// apply puts side's settings in place, the server's own values for the
// names only the other side sets, reloads, and waits until new
// connections see them. Nothing happens when side's are already in place.
func (s *settingsApplier) apply(ctx context.Context, side string) error {
	if s.applied == side {
		return nil
	}
	conn, err := s.open(ctx)
	if err != nil {
		return fmt.Errorf("connecting to apply the settings: %s", pgsql.RedactMessage(err.Error()))
	}
	defer conn.Close()
	for _, name := range s.names {
		if err := s.set(ctx, conn, name, s.value(side, name)); err != nil {
			return err
		}
	}
	if _, err := conn.QueryText(ctx, "SELECT pg_reload_conf()"); err != nil {
		return fmt.Errorf("reloading the configuration: %w", err)
	}
	s.applied = side
	return s.wait(ctx, side)
}

// value is what side runs name with: its own value, or the server's
// ALTER SYSTEM value, or nil for the configuration file's.
func (s *settingsApplier) value(side, name string) *string {
	for _, x := range s.sides[side] {
		if x.name == name {
			return &x.value
		}
	}
	if v, ok := s.prior[name]; ok {
		return &v
	}
	return nil
}

// set runs ALTER SYSTEM SET name = value, or RESET for nil.
func (s *settingsApplier) set(ctx context.Context, conn *pgsql.Client, name string, value *string) error {
	q := "ALTER SYSTEM RESET " + quoteIdent(name)
	if value != nil {
		q = "ALTER SYSTEM SET " + quoteIdent(name) + " = " + quoteLiteral(*value)
	}
	if err := conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("%s: %s", q, pgErrorText(err))
	}
	return nil
}

// wait polls new connections until they show side's expected values.
func (s *settingsApplier) wait(ctx context.Context, side string) error {
	deadline := time.Now().Add(settingsWait)
	for {
		ok, err := s.visible(ctx, side)
		if err != nil || ok {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the settings of %s did not reach new connections within %v of pg_reload_conf()", side, settingsWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// visible reports whether a new connection shows side's expected values.
func (s *settingsApplier) visible(ctx context.Context, side string) (bool, error) {
	conn, err := s.open(ctx)
	if err != nil {
		return false, err
	}
	defer conn.Close()
	for name, want := range s.expect[side] {
		rows, err := conn.QueryText(ctx, "SELECT current_setting($1)", name)
		if err != nil {
			return false, err
		}
		if rows[0][0] != want {
			return false, nil
		}
	}
	return true, nil
}

// restore puts back the server's own values and reloads.
func (s *settingsApplier) restore(ctx context.Context) error {
	if s.applied == "" {
		return nil
	}
	conn, err := s.open(ctx)
	if err != nil {
		return fmt.Errorf("connecting: %s", pgsql.RedactMessage(err.Error()))
	}
	defer conn.Close()
	for _, name := range s.names {
		var v *string
		if p, ok := s.prior[name]; ok {
			v = &p
		}
		if err := s.set(ctx, conn, name, v); err != nil {
			return err
		}
	}
	s.applied = ""
	_, err = conn.QueryText(ctx, "SELECT pg_reload_conf()")
	return err
}

// quoteIdent quotes a setting name for ALTER SYSTEM.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// quoteLiteral quotes a value as an SQL string literal.
func quoteLiteral(s string) string {
	out := []byte{'\''}
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			out = append(out, '\'')
		}
		out = append(out, s[i])
	}
	return string(append(out, '\''))
}

func lower(s string) string {
	if s == "A" {
		return "a"
	}
	return "b"
}
