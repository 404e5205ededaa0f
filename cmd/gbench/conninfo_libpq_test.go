package main

import (
	"strings"
	"testing"
)

// TestConninfoLibpqOptions: the libpq options gbench applies itself
// (socket options, load_balance_hosts) pass through -d with -h/-p/-U, in
// both forms, and a bad value is refused in libpq's words with the
// password hidden.
func TestConninfoLibpqOptions(t *testing.T) {
	for _, tc := range []struct {
		o    options
		want string // "" when accepted
	}{
		// keyword/value -d after -h and -p
		{options{host: "h1,h2", port: "5432,5433", dbname: "dbname=d password=s3cret tcp_user_timeout=500 keepalives=1 keepalives_idle=5 keepalives_interval=2 keepalives_count=3 load_balance_hosts=random"}, ""},
		// URI -d, -h given as a default
		{options{host: "h", username: "u", dbname: "postgres:///d?password=s3cret&keepalives=0&load_balance_hosts=disable"}, ""},
		{options{host: "h", dbname: "dbname=d password=s3cret keepalives_idle=soon"},
			"cannot parse `host=h dbname=d password=xxxxx keepalives_idle=soon`: invalid integer value \"soon\" for connection option \"keepalives_idle\""},
		{options{dbname: "postgres://u:s3cret@h/d?load_balance_hosts=always"},
			"cannot parse `postgres://u:xxxxx@h/d?load_balance_hosts=always`: invalid load_balance_hosts value: \"always\""},
	} {
		_, err := pgConfig(&tc.o)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("-d %q: %v", tc.o.dbname, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want):
			t.Errorf("-d %q: error\n got %v\nwant %s", tc.o.dbname, err, tc.want)
		case err != nil && strings.Contains(err.Error(), "s3cret"):
			t.Errorf("-d %q: the error shows the password: %v", tc.o.dbname, err)
		}
	}
}
