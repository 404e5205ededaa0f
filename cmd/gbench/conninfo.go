package main

import (
	"net/url"
	"regexp"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
)

// connString builds the libpq-style connection string pgbench would use:
// -h, -p and -U first, then the database name, which may itself be a
// conninfo string or a URI whose settings take precedence (as with libpq's
// expand_dbname).
func connString(o *options) string {
	var b strings.Builder
	add := func(k, v string) {
		if v == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(quoteConnValue(v))
	}
	add("host", o.host)
	add("port", o.port)
	add("user", o.username)
	switch {
	case isURI(o.dbname):
		return mergeURI(b.String(), o.dbname)
	case strings.Contains(o.dbname, "="):
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(o.dbname)
	default:
		add("dbname", o.dbname)
	}
	return b.String()
}

func isURI(s string) bool {
	return strings.HasPrefix(s, "postgresql://") || strings.HasPrefix(s, "postgres://")
}

// mergeURI turns a URI into keyword=value settings after the options' ones,
// so that the URI wins, as libpq does.
func mergeURI(opts, uri string) string {
	u, err := url.Parse(uri)
	if err != nil || strings.Contains(u.Host, ",") {
		return uri // let the driver parse (and report on) it as given
	}
	var parts []string
	if opts != "" {
		parts = append(parts, opts)
	}
	add := func(k, v string) {
		if v != "" {
			parts = append(parts, k+"="+quoteConnValue(v))
		}
	}
	add("host", u.Hostname())
	add("port", u.Port())
	if u.User != nil {
		add("user", u.User.Username())
		if p, ok := u.User.Password(); ok {
			add("password", p)
		}
	}
	add("dbname", strings.TrimPrefix(u.Path, "/"))
	for k, vs := range u.Query() {
		for _, v := range vs {
			add(k, v)
		}
	}
	return strings.Join(parts, " ")
}

// quoteConnValue quotes a conninfo value when needed.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, " '\\\t\n") {
		return v
	}
	v = strings.ReplaceAll(v, `\`, `\\`)
	v = strings.ReplaceAll(v, `'`, `\'`)
	return "'" + v + "'"
}

// pgConfig parses the connection settings.
func pgConfig(o *options) (*pgsql.Config, error) {
	c, err := pgsql.ParseConfig(connString(o))
	if err != nil {
		return nil, usagef("%s", redact(err.Error()))
	}
	c.SetFallbackApplicationName("gbench")
	return c, nil
}

var (
	rePassword    = regexp.MustCompile(`password=('(?:[^'\\]|\\.)*'|[^\s]+)`)
	reURIPassword = regexp.MustCompile(`(://[^:/@\s]*):[^@/\s]*@`)
)

// redact hides passwords in a message that quotes connection settings.
func redact(msg string) string {
	msg = rePassword.ReplaceAllString(msg, "password=xxxxx")
	return reURIPassword.ReplaceAllString(msg, "$1:xxxxx@")
}
