package main

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/internal/cnum"
)

// FuzzConninfo feeds connection strings and URIs with -h, -p and -U to
// gbench's handling of -d: the options apply where a URI does not set the
// host, port or user itself, and the URI means what pgx makes of it; and
// redactConninfo hides passwords while keeping the rest, so that a string
// pgx accepts still parses, to the same settings but with the password
// "xxxxx". Errors start with the pgsql.Redacted string. Seeds are in
// testdata/fuzz/FuzzConninfo.
func FuzzConninfo(f *testing.F) {
	for _, s := range []string{
		"host=h port=5433 dbname=d user=u password=pw", "host=h password = 'a\\' b' sslmode=disable",
		"postgres://u:pw@h:5433/db?sslmode=disable&application_name=x", "postgresql://[::1]/d?password=pw",
		"postgres://h1,h2:5433/d", "postgres://u@h/my%20db?options=-c%20x%3D1", "dbname=d passfile=/nonexistent",
		"host='/tmp' dbname=''", "postgres://u:p@ss@h/db", "postgres://h?host=other&port=7", "password=",
	} {
		f.Add(s, "", "", "")
		f.Add(s, "127.0.0.1", "5432", "postgres")
	}
	f.Add("postgres:///db", "/tmp,h2", "1", "a b")
	f.Fuzz(func(t *testing.T, s, host, port, user string) {
		if os.Getenv("PGPASSWORD") != "" || os.Getenv("PGSERVICE") != "" {
			t.Skip("PGPASSWORD or PGSERVICE would mix into every configuration")
		}
		checkPgConfigError(t, s, host, port, user)
		checkRedactRoundTrip(t, s)
		if pgsql.IsURI(s) {
			checkURIDefaults(t, s, host, port, user)
		}
	})
}

// checkPgConfigError checks that a refused -d is quoted pgsql.Redacted.
func checkPgConfigError(t *testing.T, s, host, port, user string) {
	t.Helper()
	o := &options{dbname: s, host: host, port: port, username: user}
	_, err := pgConfig(o)
	if err == nil {
		return
	}
	mustUsage([]string{"-d", s}, err)
	if want := "cannot parse `" + pgsql.RedactConninfo(connString(o)) + "`: "; !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("-d %q: error %q does not start with %q", s, err, want)
	}
}

// checkRedactRoundTrip checks that the pgsql.Redacted form of a string pgx
// accepts means the same settings, without a password.
func checkRedactRoundTrip(t *testing.T, s string) {
	t.Helper()
	c, err := pgconn.ParseConfig(s)
	if err != nil || ambiguousUserinfo(s) {
		return
	}
	red := pgsql.RedactConninfo(s)
	back, err := pgconn.ParseConfig(red)
	if err != nil {
		t.Fatalf("pgsql.RedactConninfo(%q) = %q, which does not parse: %v", s, red, err)
	}
	if back.Password != "" && back.Password != pgsql.Redacted || (c.Password == "") != (back.Password == "") {
		t.Fatalf("pgsql.RedactConninfo(%q) = %q has password %q (was %q)", s, red, back.Password, c.Password)
	}
	if a, b := configText(c), configText(back); a != b {
		t.Fatalf("pgsql.RedactConninfo(%q) = %q\nparses as %s\n  instead %s", s, red, b, a)
	}
}

// ambiguousUserinfo reports a URI whose user information holds '@' or
// '?' unescaped: pgx ends it at the first '@', redactConninfo at the last
// and hides a '?' whole, so the pgsql.Redacted URI may name another host.
func ambiguousUserinfo(s string) bool {
	if !pgsql.IsURI(s) {
		return false
	}
	_, rest, _ := strings.Cut(s, "://")
	authority, _, _ := strings.Cut(rest, "/")
	at := strings.LastIndexByte(authority, '@')
	return at >= 0 && strings.ContainsAny(authority[:at], "@?#")
}

// checkURIDefaults checks that -h, -p and -U apply to a URI -d exactly
// where the URI does not set the host, port or user itself (which pgx
// says: it names the keys a string sets when they are not allowed).
func checkURIDefaults(t *testing.T, uri, host, port, user string) {
	t.Helper()
	c, err := pgconn.ParseConfig(uri)
	keys, ok := pgxKeys(uri)
	if err != nil || !ok {
		return
	}
	defaults := map[string]string{"host": host, "port": port, "user": user}
	merged := pgsql.URIWithDefaults(uri, defaults)
	m, err := pgconn.ParseConfig(merged)
	used := ""
	for _, k := range []string{"host", "port", "user"} {
		if defaults[k] != "" && !keys[k] && !(k == "port" && hostList(uri)) {
			used += " " + k + "=" + pgsql.QuoteConnValue(defaults[k])
		}
	}
	d, derr := pgconn.ParseConfig(used)
	switch {
	case err != nil && strings.Contains(used, " host=") && strings.Contains(err.Error(), "failed to configure TLS"):
		// pgx reads TLS settings (sslmode, sslrootcert...) only for a TCP
		// host: a URI that names none uses a socket and ignores them, and
		// -h may bring the host that makes them count.
		return
	case err != nil && derr == nil && !strings.Contains(used, ","):
		t.Fatalf("-d %q with%s: %q does not parse: %v", uri, used, merged, err)
	case err != nil:
		return
	case m.Database != c.Database || m.Password != c.Password || configParams(m) != configParams(c):
		t.Fatalf("-d %q with%s: %q changes the database, password or parameters", uri, used, merged)
	case derr != nil:
		t.Fatalf("-d %q with%s: %q parses, but not the defaults alone: %v", uri, used, merged, derr)
	}
	want := func(k string, uriV, defV, got any) {
		w := uriV
		if strings.Contains(used, " "+k+"=") {
			w = defV
		}
		if got != w {
			t.Fatalf("-d %q with%s: %q has %s %v, want %v", uri, used, merged, k, got, w)
		}
	}
	want("host", c.Host, d.Host, m.Host)
	want("user", c.User, d.User, m.User)
	if !strings.Contains(used, " host=") || strings.Contains(used, " port=") {
		want("port", c.Port, d.Port, m.Port)
	}
}

// hostList reports whether a URI lists several hosts, whose implied list
// of empty ports shadows any other port for pgx, as for libpq. (pgx ends
// the user information at the first '@' before a '/'.)
func hostList(uri string) bool {
	_, p, _ := strings.Cut(uri, "://")
	if i := strings.IndexAny(p, "@/"); i >= 0 && p[i] == '@' {
		p = p[i+1:]
	}
	if strings.HasPrefix(p, "[") {
		end := strings.IndexByte(p, ']')
		if end < 0 {
			return false
		}
		p = p[end+1:]
	} else if i := strings.IndexAny(p, ":/?,"); i >= 0 {
		p = p[i:]
	} else {
		return false
	}
	if strings.HasPrefix(p, ":") {
		i := strings.IndexAny(p, "/?,")
		if i < 0 {
			return false
		}
		p = p[i:]
	}
	return strings.HasPrefix(p, ",")
}

// reNotAllowed reads the key pgx names when ConnStringAllowedKeys
// refuses it.
var reNotAllowed = regexp.MustCompile(`connection string key ("(?:[^"\\]|\\.)*") is not in ConnStringAllowedKeys`)

// pgxKeys returns the keys pgx reads in a connection string, found by
// allowing none and adding each one pgx refuses.
func pgxKeys(s string) (map[string]bool, bool) {
	keys := map[string]bool{}
	allowed := []string{}
	for range 64 {
		_, err := pgconn.ParseConfigWithOptions(s, pgconn.ParseConfigOptions{ConnStringAllowedKeys: allowed})
		if err == nil {
			return keys, true
		}
		m := reNotAllowed.FindAllStringSubmatch(err.Error(), -1)
		if m == nil {
			return nil, false
		}
		k, uerr := strconv.Unquote(m[len(m)-1][1])
		if uerr != nil || keys[k] {
			return nil, false
		}
		keys[k] = true
		allowed = append(allowed, k)
	}
	return nil, false
}

func configParams(c *pgconn.Config) string {
	var params []string
	for k, v := range c.RuntimeParams {
		params = append(params, k+"="+v)
	}
	slices.Sort(params)
	return strings.Join(params, "\x00")
}

// configText lists the settings of a configuration but its passwords.
func configText(c *pgconn.Config) string {
	var params []string
	for k, v := range c.RuntimeParams {
		if pgsql.SecretKey(k) {
			v = "(secret)"
		}
		params = append(params, k+"="+v)
	}
	slices.Sort(params)
	hosts := []string{fmt.Sprintf("%s:%d tls=%v", c.Host, c.Port, c.TLSConfig != nil)}
	for _, fb := range c.Fallbacks {
		hosts = append(hosts, fmt.Sprintf("%s:%d tls=%v", fb.Host, fb.Port, fb.TLSConfig != nil))
	}
	return fmt.Sprintf("hosts %q database %q user %q params %q timeout %v", hosts, c.Database, c.User, params, c.ConnectTimeout)
}

// FuzzConninfoPassword builds connection strings with a password in a
// known place, spelled in one of several ways, between fuzzed text, and
// checks that no trace of it shows in what gbench prints of them: the
// error for -d, the pgsql.Redacted string, and the command line a matrix result
// records. The password is made of the letters Q, Z and J, which the
// fuzzed text may not hold. Seeds are in testdata/fuzz/FuzzConninfoPassword.
func FuzzConninfoPassword(f *testing.F) {
	f.Add(uint8(0), "host=h ", " sslmode=bogus")
	f.Add(uint8(1), "", "")
	f.Add(uint8(2), "dbname=d ", " port=x")
	f.Add(uint8(3), "sslmode=require ", "")
	f.Add(uint8(4), "user", "@h:bad/db")
	f.Add(uint8(5), "h/db", "&sslmode=bogus")
	f.Add(uint8(6), "", "h:5432/db?sslmode=bogus")
	f.Add(uint8(0), "host='x ", "")
	f.Fuzz(func(t *testing.T, form uint8, pre, post string) {
		s, ok := passwordForm(form, pre, post)
		if !ok {
			return
		}
		o := &options{dbname: s}
		var shown []string
		if _, err := pgConfig(o); err != nil {
			shown = append(shown, err.Error())
		}
		shown = append(shown, pgsql.RedactConninfo(s), redactArg("--pg="+s), strings.Join(redactArgs([]string{"--pg", s}), " "))
		for _, out := range shown {
			for _, trace := range []string{"QZ", "ZJ", "JQ"} {
				if strings.Contains(out, trace) {
					t.Fatalf("conninfo %q shows its password: %q", s, out)
				}
			}
		}
	})
}

// passwordForm builds a connection string with the password QZJ... in the
// place form says; ok is false when pre and post would make that place
// something else than a password.
func passwordForm(form uint8, pre, post string) (string, bool) {
	if strings.ContainsAny(pre+post, "QZJ\x00") {
		return "", false
	}
	kv := !strings.ContainsAny(pre, `'\`) && (pre == "" || strings.IndexByte(cnum.Space, pre[len(pre)-1]) >= 0) &&
		!strings.HasSuffix(strings.TrimRight(pre, cnum.Space), "=")
	switch form % 7 {
	case 0:
		return pre + "password=QZJQZJ" + post, kv
	case 1:
		return pre + "password = QZJQZJ" + post, kv
	case 2:
		return pre + `password='QZJ QZJ\'QZJ'` + post, kv
	case 3:
		return pre + "sslpassword=QZJQZJ" + post, kv
	case 4:
		return "postgres://" + pre + ":QZJQZJ@" + post, !strings.ContainsAny(pre, "@/?#:")
	case 5:
		return "postgres://" + pre + "?password=QZJQZJ" + post, !strings.ContainsAny(pre, "@?#")
	}
	return "postgres://u:QZJ%40QZ%4AJ@" + post, true
}
