package pgsql

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestRedactConninfo shows a connection string with its passwords hidden
// and the rest as written, in both forms.
func TestRedactConninfo(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"host=h password=s3cret dbname=d", "host=h password=xxxxx dbname=d"},
		{"host=h password = s3cret", "host=h password = xxxxx"},
		{`host=h password='s3 \'cr\\et'user=u`, `host=h password='xxxxx'user=u`},
		{"host=h sslpassword=k3y passfile=/p", "host=h sslpassword=xxxxx passfile=/p"},
		{"host=h password=''", "host=h password=''"},
		{"host=h password='s3cret", "host=h xxxxx"}, // unterminated: the rest goes
		{"postgres://u:s3cret@h:5432/d?sslmode=disable", "postgres://u:xxxxx@h:5432/d?sslmode=disable"},
		{"postgresql://u:s3@cret@h/d", "postgresql://u:xxxxx@h/d"},
		{"postgres://u@h/d?password=s3cret&sslpassword=k3y", "postgres://u@h/d?password=xxxxx&sslpassword=xxxxx"},
		{"postgres://u@h/d", "postgres://u@h/d"},
	} {
		if got := RedactConninfo(c.in); got != c.want {
			t.Errorf("RedactConninfo(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRedactText hides the passwords that a message spells itself.
func TestRedactText(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"cannot parse `host=h password=s3cret`: bad", "cannot parse `host=h password=xxxxx`: bad"},
		{"cannot parse `host=h password = 's3 cret'`: bad", "cannot parse `host=h password = xxxxx`: bad"},
		{"setting password='s3 cr", "setting password=xxxxx"},
		{"failed to connect to `postgres://u:s3cret@h/d`: refused", "failed to connect to `postgres://u:xxxxx@h/d`: refused"},
		{"dial redis://:s3cret@h:6379/0 failed", "dial redis://:xxxxx@h:6379/0 failed"},
		{"at postgres://u@h/d?sslmode=require&password=s3cret now", "at postgres://u@h/d?sslmode=require&password=xxxxx now"},
		{"bypass@h sslmode=require", "bypass@h sslmode=require"},
		{"no password given, password authentication failed", "no password given, password authentication failed"},
		{"a=b user=u", "a=b user=u"},
	} {
		if got := Redact(c.in); got != c.want {
			t.Errorf("Redact(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestRedactKnownConninfo hides a connection string's passwords wherever
// a message quotes them, the way the server and pgx quote them.
func TestRedactKnownConninfo(t *testing.T) {
	conninfo := `host=h dbname=d password='s3 \'cret'`
	for _, msg := range []string{
		`FATAL:  database "s3 'cret" does not exist`,
		`syntax error near 's3 \'cret'`,
	} {
		got := Redact(msg, conninfo)
		if strings.Contains(got, "s3") || strings.Contains(got, "cret") {
			t.Errorf("Redact(%q, %q) = %q, which holds the password", msg, conninfo, got)
		}
	}
	if got := Redact(`x postgres%3A s3%40x`, "postgres://u:s3%40x@h/d"); got != "x postgres%3A xxxxx" {
		t.Errorf("a percent-encoded password: %q", got)
	}
}

// TestConfigRedact hides the password a Config connects with in server
// error text and in pgx's errors, wherever it came from.
func TestConfigRedact(t *testing.T) {
	t.Setenv("PGPASSFILE", "/nonexistent")
	t.Setenv("PGPASSWORD", "")
	c, err := ParseConfig("host=127.0.0.1 port=1 user=u dbname=d password=s3cret connect_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	server := fmt.Errorf("query: %w", &pgconn.PgError{Severity: "ERROR", Message: `role "s3cret" does not exist`})
	if got, want := c.ErrorText(server), `ERROR:  role "xxxxx" does not exist`; got != want {
		t.Errorf("ErrorText(server error) = %q, want %q", got, want)
	}
	if got := c.WithDatabase("other").ErrorText(server); strings.Contains(got, "s3cret") {
		t.Errorf("WithDatabase's ErrorText = %q", got)
	}
	if got := (*Config)(nil).ErrorText(fmt.Errorf("at password=s3cret")); got != "at password=xxxxx" {
		t.Errorf("nil Config's ErrorText = %q", got)
	}

	t.Setenv("PGPASSWORD", "env-s3cret")
	env, err := ParseConfig("host=127.0.0.1 user=u dbname=d")
	if err != nil {
		t.Fatal(err)
	}
	if got := env.Redact("bad user env-s3cret"); got != "bad user xxxxx" {
		t.Errorf("the PGPASSWORD password: %q", got)
	}

	// A pgx connection error: a listener that closes at once.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	uri := fmt.Sprintf("postgres://u:s3cret@127.0.0.1:%d/d?sslmode=disable&connect_timeout=5", port)
	cu, err := ParseConfig(uri)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = cu.Open(ctx)
	if err == nil {
		t.Fatal("connected to a listener that closes")
	}
	if got := cu.ErrorText(err); strings.Contains(got, "s3cret") || got == "" {
		t.Errorf("ErrorText(%v) = %q", err, got)
	}
}

// TestParseConfigErrorHides spells pgx's refusals without the password.
func TestParseConfigErrorHides(t *testing.T) {
	for _, conninfo := range []string{
		"host=h password='s3cret",
		"host=h password = s3cret port=notaport",
		"postgres://u:s3cret@h:notaport/d",
		"postgres://u:s3cret@h/d?sslmode=nope",
	} {
		_, err := ParseConfig(conninfo)
		if err == nil {
			t.Fatalf("ParseConfig(%q) took it", conninfo)
		}
		for _, got := range []string{ParseConfigError(conninfo, err), Redact(err.Error(), conninfo)} {
			if strings.Contains(got, "s3cret") {
				t.Errorf("%q: %q holds the password", conninfo, got)
			}
		}
	}
}
