package pgsql

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// settingsWait bounds the wait for a reload to reach new connections.
const settingsWait = 5 * time.Second

// Setting is one server setting, NAME=VALUE as postgres -c takes it.
type Setting struct{ Name, Value string }

// SettingError is a setting the server refuses before anything changed:
// an unknown name, one that needs a restart, or (with Side and Value set)
// a value it does not accept. It is the user's input, not a failure.
type SettingError struct {
	Side, Name, Value string
	Reason            string
}

func (e *SettingError) Error() string {
	if e.Side != "" {
		return fmt.Sprintf("invalid setting %s=%s of side %s: %s", e.Name, e.Value, e.Side, e.Reason)
	}
	return e.Reason
}

// Settings applies the settings of the sides ("A", "B") of an A/B series
// that use one PostgreSQL server, with ALTER SYSTEM and a reload, and
// restores the server's own values at the end. It is used by one
// goroutine.
type Settings struct {
	pg *Config
	// sides holds each side's settings on this server.
	sides map[string][]Setting
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

// NewSettings returns the Settings of the server pg connects to, with no
// side yet.
func NewSettings(pg *Config) *Settings {
	return &Settings{pg: pg, sides: map[string][]Setting{}, prior: map[string]string{}, expect: map[string]map[string]string{}}
}

// Add gives side its settings (none: it runs with the server's own
// values). Add every side before Check.
func (s *Settings) Add(side string, set []Setting) {
	s.sides[side] = set
	for _, x := range set {
		if !slices.Contains(s.names, x.Name) {
			s.names = append(s.names, x.Name)
		}
	}
}

// Has reports whether side was added.
func (s *Settings) Has(side string) bool { return s.sides[side] != nil }

// Check refuses unknown settings and those that need a restart, reads the
// server's own ALTER SYSTEM values, and works out what each value reads
// back as.
func (s *Settings) Check(ctx context.Context) error {
	conn, err := s.pg.Open(ctx)
	if err != nil {
		return fmt.Errorf("connecting to check the settings: %s", s.pg.Redact(err.Error()))
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
			return &SettingError{Name: name, Reason: fmt.Sprintf("unknown PostgreSQL setting %q", name)}
		case rows[0][0] == "postmaster" || rows[0][0] == "internal":
			return &SettingError{Name: name, Reason: fmt.Sprintf("setting %q can only change with a server restart (context %s): compare two servers with two command lines (--vs) instead", name, rows[0][0])}
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
			pe, server := AsServerError(err)
			switch {
			case err == nil:
				s.expect[side][name] = rows[0][0]
			case server && (pe.Code == "55P02" || pe.Code == "42501"): // a sighup or superuser-backend setting
				delete(s.expect[side], name)
			default:
				return &SettingError{Side: side, Name: name, Value: *v, Reason: s.pg.ErrorText(err)}
			}
		}
	}
	return nil
}

// sets reports whether set has a value for name.
func sets(set []Setting, name string) bool {
	return slices.ContainsFunc(set, func(x Setting) bool { return x.Name == name })
}

// Apply puts side's settings in place, the server's own values for the
// names only the other side sets, reloads, and waits until new
// connections see them. Nothing happens when side's are already in place.
func (s *Settings) Apply(ctx context.Context, side string) error {
	if s.applied == side {
		return nil
	}
	conn, err := s.pg.Open(ctx)
	if err != nil {
		return fmt.Errorf("connecting to apply the settings: %s", s.pg.Redact(err.Error()))
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
func (s *Settings) value(side, name string) *string {
	for _, x := range s.sides[side] {
		if x.Name == name {
			return &x.Value
		}
	}
	if v, ok := s.prior[name]; ok {
		return &v
	}
	return nil
}

// set runs ALTER SYSTEM SET name = value, or RESET for nil.
func (s *Settings) set(ctx context.Context, conn *Client, name string, value *string) error {
	q := "ALTER SYSTEM RESET " + quoteIdent(name)
	if value != nil {
		q = "ALTER SYSTEM SET " + quoteIdent(name) + " = " + quoteLiteral(*value)
	}
	if err := conn.Exec(ctx, q); err != nil {
		return fmt.Errorf("%s: %s", q, s.pg.ErrorText(err))
	}
	return nil
}

// wait polls new connections until they show side's expected values.
func (s *Settings) wait(ctx context.Context, side string) error {
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
func (s *Settings) visible(ctx context.Context, side string) (bool, error) {
	conn, err := s.pg.Open(ctx)
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

// Restore puts back the server's own values and reloads.
func (s *Settings) Restore(ctx context.Context) error {
	if s.applied == "" {
		return nil
	}
	conn, err := s.pg.Open(ctx)
	if err != nil {
		return fmt.Errorf("connecting: %s", s.pg.Redact(err.Error()))
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
