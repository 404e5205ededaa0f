package pgsql

import (
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// TestPgxSendsLibpqOnlyKeys pins why ParseConfig takes these keys out:
// pgx files every key it does not know under RuntimeParams, which it sends
// to the server in the startup message.
func TestPgxSendsLibpqOnlyKeys(t *testing.T) {
	c, err := pgconn.ParseConfig("host=h tcp_user_timeout=5000 keepalives=0 keepalives_idle=1 keepalives_interval=2 keepalives_count=3 load_balance_hosts=random")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range libpqOnlyKeys {
		if _, ok := c.RuntimeParams[k]; !ok {
			t.Errorf("pgx no longer sends %s as a run-time parameter (RuntimeParams %v): ParseConfig may not need to take it", k, c.RuntimeParams)
		}
	}
}

var libpqOnlyKeys = []string{"tcp_user_timeout", "keepalives", "keepalives_idle", "keepalives_interval", "keepalives_count", "load_balance_hosts"}

func TestParseConfigTakesLibpqOptions(t *testing.T) {
	want := libpqOpts{
		sock: sockOpts{userTimeout: 5 * time.Second, noKeepalive: true, idle: time.Second,
			interval: 2 * time.Second, count: 3, keepSet: true},
		balance: true, sockSet: true,
	}
	for _, conninfo := range []string{
		// keyword/value form, values quoted and spaced as libpq allows
		"host=h tcp_user_timeout=5000 keepalives=0 keepalives_idle=' 1' keepalives_interval=2 keepalives_count='3 ' load_balance_hosts=random application_name=x",
		// URI form: the same keys as query parameters
		"postgres://h/db?tcp_user_timeout=5000&keepalives=0&keepalives_idle=1&keepalives_interval=2&keepalives_count=3&load_balance_hosts=random&application_name=x",
	} {
		c, err := ParseConfig(conninfo)
		if err != nil {
			t.Fatalf("%s: %v", conninfo, err)
		}
		if c.opts != want {
			t.Errorf("%s:\n got %+v\nwant %+v", conninfo, c.opts, want)
		}
		for _, k := range libpqOnlyKeys {
			if v, ok := c.pg.RuntimeParams[k]; ok {
				t.Errorf("%s: %s=%q is still a run-time parameter", conninfo, k, v)
			}
		}
		if c.pg.RuntimeParams["application_name"] != "x" {
			t.Errorf("%s: other run-time parameters lost: %v", conninfo, c.pg.RuntimeParams)
		}
	}
}

func TestParseConfigLibpqOptionValues(t *testing.T) {
	for _, tc := range []struct {
		conninfo string
		want     sockOpts
		balance  bool
	}{
		// nothing given: nothing to set
		{"host=h", sockOpts{}, false},
		// negative values become 0, as libpq's setters make them
		{"host=h tcp_user_timeout=-5 keepalives_idle=-1", sockOpts{keepSet: true}, false},
		// any non-zero keepalives enables them, as in libpq
		{"host=h keepalives=7", sockOpts{keepSet: true}, false},
		// disable is the default
		{"host=h load_balance_hosts=disable", sockOpts{}, false},
	} {
		c, err := ParseConfig(tc.conninfo)
		if err != nil {
			t.Fatalf("%s: %v", tc.conninfo, err)
		}
		if c.opts.sock != tc.want || c.opts.balance != tc.balance {
			t.Errorf("%s: got %+v balance %v, want %+v balance %v", tc.conninfo, c.opts.sock, c.opts.balance, tc.want, tc.balance)
		}
	}
}

func TestParseConfigLibpqOptionErrors(t *testing.T) {
	for _, tc := range []struct{ conninfo, want string }{
		// libpq's parse_int_param wording
		{"host=h tcp_user_timeout=x", `invalid integer value "x" for connection option "tcp_user_timeout"`},
		{"host=h keepalives=yes", `invalid integer value "yes" for connection option "keepalives"`},
		{"host=h keepalives_idle=1.5", `invalid integer value "1.5" for connection option "keepalives_idle"`},
		{"host=h keepalives_interval=''", `invalid integer value "" for connection option "keepalives_interval"`},
		// beyond an int, as strtol's range check in libpq
		{"host=h keepalives_count=99999999999", `invalid integer value "99999999999" for connection option "keepalives_count"`},
		// libpq's connectOptions2 wording
		{"host=h load_balance_hosts=round-robin", `invalid load_balance_hosts value: "round-robin"`},
		{"postgres://h/db?load_balance_hosts=Random", `invalid load_balance_hosts value: "Random"`},
	} {
		_, err := ParseConfig(tc.conninfo)
		if err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %s", tc.conninfo, err, tc.want)
		}
	}
}

func TestLoadBalanceEnvironment(t *testing.T) {
	t.Setenv("PGLOADBALANCEHOSTS", "random")
	c, err := ParseConfig("host=a,b")
	if err != nil || !c.opts.balance {
		t.Fatalf("PGLOADBALANCEHOSTS=random: balance %v, error %v", c != nil && c.opts.balance, err)
	}
	// the conninfo wins over the environment, as in libpq
	if c, err = ParseConfig("host=a,b load_balance_hosts=disable"); err != nil || c.opts.balance {
		t.Fatalf("load_balance_hosts=disable: balance %v, error %v", c != nil && c.opts.balance, err)
	}
	t.Setenv("PGLOADBALANCEHOSTS", "sometimes")
	if _, err := ParseConfig("host=a"); err == nil || err.Error() != `invalid load_balance_hosts value: "sometimes"` {
		t.Fatalf("PGLOADBALANCEHOSTS=sometimes: error %v", err)
	}
}

func TestConnectTimeoutMinimum(t *testing.T) {
	for _, tc := range []struct {
		conninfo string
		want     time.Duration
	}{
		{"host=h", 0},                                 // none: wait as long as ctx allows
		{"host=h connect_timeout=0", 0},               // 0 is none, as in libpq
		{"host=h connect_timeout=1", 2 * time.Second}, // libpq's minimum
		{"host=h connect_timeout=3", 3 * time.Second},
	} {
		c, err := ParseConfig(tc.conninfo)
		if err != nil {
			t.Fatal(err)
		}
		if c.pg.ConnectTimeout != tc.want {
			t.Errorf("%s: ConnectTimeout %v, want %v", tc.conninfo, c.pg.ConnectTimeout, tc.want)
		}
	}
}

// TestShuffleHosts checks load_balance_hosts=random: every host comes
// first now and then, and a host's TLS and plain attempts
// (sslmode=prefer) stay together and in order.
func TestShuffleHosts(t *testing.T) {
	c, err := ParseConfig("host=a,b,c port=1,2,3 sslmode=prefer load_balance_hosts=random")
	if err != nil {
		t.Fatal(err)
	}
	first := map[string]int{}
	for range 300 {
		cfg := c.connectConfig(nil)
		all := append([]*pgconn.FallbackConfig{{Host: cfg.Host, Port: cfg.Port, TLSConfig: cfg.TLSConfig}}, cfg.Fallbacks...)
		if len(all) != 6 {
			t.Fatalf("%d attempts, want 6", len(all))
		}
		for i := 0; i < 6; i += 2 {
			if all[i].Host != all[i+1].Host || all[i].TLSConfig == nil || all[i+1].TLSConfig != nil {
				t.Fatalf("attempts %s: a host's TLS and plain attempts split or reordered", describe(all))
			}
		}
		first[all[0].Host]++
	}
	for _, h := range []string{"a", "b", "c"} {
		if first[h] == 0 {
			t.Errorf("host %s never came first in 300 connections: %v", h, first)
		}
	}
	if c.pg.Host != "a" {
		t.Errorf("the parsed configuration was shuffled in place: first host %s", c.pg.Host)
	}
}

func describe(all []*pgconn.FallbackConfig) string {
	s := ""
	for _, f := range all {
		s += fmt.Sprintf(" %s:%d/tls=%v", f.Host, f.Port, f.TLSConfig != nil)
	}
	return s
}
