package resp

import (
	"slices"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
	"strings"
	"testing"
)

func TestParseClusterURL(t *testing.T) {
	for _, c := range []struct {
		url   string
		seeds []string
		tls   bool
		rfr   ReadFrom
	}{
		{"redis+cluster://a:7000,b:7001", []string{"a:7000", "b:7001"}, false, ReadMasters},
		{"rediss+cluster://a?rfr=yes", []string{"a:6379"}, true, ReadReplicas},
		{"redis://u:pw@h:7000?cluster=yes&rfr=all", []string{"h:7000"}, false, ReadAll},
		{"redis+cluster://h?cluster=yes", []string{"h:6379"}, false, ReadMasters},
	} {
		o, err := ParseURL(c.url)
		if err != nil {
			t.Errorf("%s: %v", c.url, err)
			continue
		}
		if !o.Cluster || !slices.Equal(o.Seeds, c.seeds) || o.Addr != c.seeds[0] || (o.TLS != nil) != c.tls || o.ReadFrom != c.rfr {
			t.Errorf("%s: cluster %v seeds %v addr %s tls %v rfr %v", c.url, o.Cluster, o.Seeds, o.Addr, o.TLS != nil, o.ReadFrom)
		}
		checkRedactedRoundTrip(t, o)
	}
	for _, u := range []string{"redis+cluster://a,b:7001?split=slot", "redis://h:7000?cluster=yes&split=slot&rfr=yes"} {
		o, err := ParseURL(u)
		if err != nil || !o.Split || !o.Cluster {
			t.Errorf("%s: split %v cluster %v, %v", u, o.Split, o.Cluster, err)
			continue
		}
		checkRedactedRoundTrip(t, o)
	}
	for _, c := range []struct{ url, want string }{
		{"redis+cluster://h/1", "only database 0"},
		{"redis://h/2?cluster=yes", "only database 0"},
		{"redis://h?rfr=yes", "rfr needs a cluster"},
		{"redis+cluster://h?rfr=maybe", `invalid rfr "maybe"`},
		{"redis://h?split=slot", "split needs a cluster"},
		{"redis+cluster://h?split=node", `invalid split "node"`},
		{"redis+cluster://h?split=slot&split=slot", "split given twice"},
		{"redis+cluster://h?cluster=no", "contradicts"},
		{"redis://h?cluster=yes&cluster=yes", "cluster given twice"},
		{"unix:///tmp/s?cluster=yes", "cluster=yes needs"},
		{"redis+cluster://h:0", "invalid port"},
	} {
		_, err := ParseURL(c.url)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.url, err, c.want)
		}
	}
}

// TestClusterCheckSplit: under split=slot the splittable commands
// whose keys are written out and span slots pass the check; MSETNX and
// the other multi-key commands are still refused.
func TestClusterCheckSplit(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"\\resp MGET a b\n", ""},
		{"\\resp exists a b\n", ""},
		{"\\resp MSET a 1 b 2\n", ""},
		{"\\resp DEL a b\n", ""},
		{"\\resp MSETNX a 1 b 2\n", `MSETNX: keys in different hash slots`},
		{"\\resp SUNION a b\n", `SUNION: keys in different hash slots`},
	} {
		s, err := script.Parse("c.sql", c.src, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = Connector(Options{Cluster: true, Split: true, Seeds: []string{"h:1"}}).(driver.Cluster).Check(p)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}

func TestClusterCheck(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"\\resp MGET a b\n", `c.sql:1: \resp MGET a b: MGET: keys in different hash slots: "a" (slot 15495), "b" (slot 3300)`},
		{"\\set k 1\n\\resp FOO :k\n", `c.sql:2: \resp FOO :k: key positions not known for command "FOO"`},
		{"\\resp MGET {t}a {t}b\n", ""},
		{"\\set k 1\n\\resp MGET a:k b\n", ""}, // a:k refers to k: decided at run time
		{"\\set c 1\n\\resp :c a b\n", ""},     // so is a command name from a variable
	} {
		s, err := script.Parse("c.sql", c.src, 1)
		if err != nil {
			t.Fatal(err)
		}
		p, err := script.Compile([]*script.Script{s}, script.Simple, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = Connector(Options{Cluster: true, Seeds: []string{"h:1"}}).(driver.Cluster).Check(p)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q: %v", c.src, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: %v, want %s", c.src, err, c.want)
		}
	}
}
