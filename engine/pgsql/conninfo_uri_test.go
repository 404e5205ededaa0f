package pgsql

import (
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestURIWithDefaults checks where -h, -p and -U go in a URI, and that
// the result still parses: a query that ends with '&' (which pgx, as
// libpq, ignores) gets no second one, which would be an empty parameter
// that pgx refuses (found by FuzzConninfo).
func TestURIWithDefaults(t *testing.T) {
	defaults := map[string]string{"port": "5433"}
	for _, tc := range []struct{ uri, want string }{
		{"postgres://h/d", "postgres://h/d?port=5433"},
		{"postgres://h/d?", "postgres://h/d?port=5433"},
		{"postgres://h/d?connect_timeout=3", "postgres://h/d?connect_timeout=3&port=5433"},
		{"postgres://h/d?connect_timeout=3&", "postgres://h/d?connect_timeout=3&port=5433"},
		{"postgres://u:pw@h/d?tcp_user_timeout=x&", "postgres://u:pw@h/d?tcp_user_timeout=x&port=5433"},
		{"postgres://h:5432/d?connect_timeout=3&", "postgres://h:5432/d?connect_timeout=3&"},
	} {
		got := URIWithDefaults(tc.uri, defaults)
		if got != tc.want {
			t.Errorf("URIWithDefaults(%q) = %q, want %q", tc.uri, got, tc.want)
		}
		if _, err := pgconn.ParseConfig(got); err != nil {
			t.Errorf("URIWithDefaults(%q) = %q does not parse: %v", tc.uri, got, err)
		}
	}
}
