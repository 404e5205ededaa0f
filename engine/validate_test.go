package engine_test

import (
	"strings"
	"testing"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
)

// TestValidateChecksTheCluster: Validate, not Run, refuses a command a
// Redis Cluster cannot run whatever the variables, so that a caller hears
// of it before it opens anything. The seed address is never dialed: no
// server is needed.
func TestValidateChecksTheCluster(t *testing.T) {
	cluster := resp.Connector(resp.Options{Cluster: true, Seeds: []string{"127.0.0.1:1"}})
	for _, c := range []struct{ src, want string }{
		{"\\resp MGET a b\n", `c.sql:1: \resp MGET a b: MGET: keys in different hash slots`},
		{"\\resp MGET {t}a {t}b\n", ""},
	} {
		s, err := script.Parse("c.sql", c.src, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
		if err != nil {
			t.Fatal(err)
		}
		cfg := &engine.Config{Program: p, Clients: 1, Transactions: 1, MaxTries: 1, RESP: cluster}
		err = cfg.Validate()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: Validate said %v, want %s", c.src, err, c.want)
		}
	}
}
