package resp

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseURL(t *testing.T) {
	type want struct {
		network, addr, user, password string
		db, protocol                  int
		tls, skipVerify               bool
		redacted                      string
	}
	tests := []struct {
		in   string
		want want
	}{
		// defaults
		{"redis://", want{network: "tcp", addr: "127.0.0.1:6379", redacted: "redis://127.0.0.1:6379"}},
		{"redis://localhost", want{network: "tcp", addr: "localhost:6379", redacted: "redis://localhost:6379"}},
		{"REDIS://h:1/", want{network: "tcp", addr: "h:1", redacted: "redis://h:1"}},
		// host, port, db
		{"redis://cache.example.com:6380/3", want{network: "tcp", addr: "cache.example.com:6380", db: 3,
			redacted: "redis://cache.example.com:6380/3"}},
		{"redis://[::1]:7000/1", want{network: "tcp", addr: "[::1]:7000", db: 1, redacted: "redis://[::1]:7000/1"}},
		{"redis://[::1]", want{network: "tcp", addr: "[::1]:6379", redacted: "redis://[::1]:6379"}},
		{"redis://h?db=5", want{network: "tcp", addr: "h:6379", db: 5, redacted: "redis://h:6379/5"}},
		// passwords and users
		{"redis://:s3cret@h", want{network: "tcp", addr: "h:6379", password: "s3cret", redacted: "redis://:xxxxx@h:6379"}},
		{"redis://s3cret@h", want{network: "tcp", addr: "h:6379", password: "s3cret", redacted: "redis://:xxxxx@h:6379"}},
		{"redis://alice:s3cret@h/2", want{network: "tcp", addr: "h:6379", user: "alice", password: "s3cret", db: 2,
			redacted: "redis://alice:xxxxx@h:6379/2"}},
		{"redis://al%40ice:p%40ss%3Aw%2Fd@h", want{network: "tcp", addr: "h:6379", user: "al@ice", password: "p@ss:w/d",
			redacted: "redis://al%40ice:xxxxx@h:6379"}},
		{"redis://:p@ss@h", want{network: "tcp", addr: "h:6379", password: "p@ss", redacted: "redis://:xxxxx@h:6379"}},
		{"redis://h?user=bob&password=s3cret", want{network: "tcp", addr: "h:6379", user: "bob", password: "s3cret",
			redacted: "redis://bob:xxxxx@h:6379"}},
		{"redis://alice:@h", want{network: "tcp", addr: "h:6379", user: "alice", redacted: "redis://alice:@h:6379"}},
		{"redis://h?password=a+b%2Bc", want{network: "tcp", addr: "h:6379", password: "a b+c", redacted: "redis://:xxxxx@h:6379"}},
		// TLS and protocol
		{"rediss://h", want{network: "tcp", addr: "h:6379", tls: true, redacted: "rediss://h:6379"}},
		{"rediss://h?insecure_skip_verify=true&protocol=3", want{network: "tcp", addr: "h:6379", tls: true, skipVerify: true,
			protocol: 3, redacted: "rediss://h:6379?protocol=3&insecure_skip_verify=true"}},
		{"redis://h?protocol=2", want{network: "tcp", addr: "h:6379", protocol: 2, redacted: "redis://h:6379?protocol=2"}},
		// unix sockets
		{"/run/redis.sock", want{network: "unix", addr: "/run/redis.sock", redacted: "unix:///run/redis.sock"}},
		{"/run/redis@1.sock?db=4", want{network: "unix", addr: "/run/redis@1.sock", db: 4,
			redacted: "unix:///run/redis%401.sock?db=4"}},
		{"unix:///run/redis.sock?db=2&password=s3cret", want{network: "unix", addr: "/run/redis.sock", db: 2,
			password: "s3cret", redacted: "unix://:xxxxx@/run/redis.sock?db=2"}},
		{"unix://alice:s3cret@/tmp/my%20redis.sock", want{network: "unix", addr: "/tmp/my redis.sock", user: "alice",
			password: "s3cret", redacted: "unix://alice:xxxxx@/tmp/my redis.sock"}},
	}
	for _, tt := range tests {
		o, err := ParseURL(tt.in)
		if err != nil {
			t.Errorf("ParseURL(%q): %v", tt.in, err)
			continue
		}
		got := want{o.Network, o.Addr, o.Username, o.Password, o.DB, o.Protocol, o.TLS != nil,
			o.TLS != nil && o.TLS.InsecureSkipVerify, o.Redacted()}
		if got != tt.want {
			t.Errorf("ParseURL(%q)\n got %+v\nwant %+v", tt.in, got, tt.want)
		}
		if o.DialTimeout != DefaultDialTimeout || o.ReadTimeout != DefaultReadTimeout {
			t.Errorf("ParseURL(%q): timeouts %v, %v", tt.in, o.DialTimeout, o.ReadTimeout)
		}
		checkRedactedRoundTrip(t, o)
	}
}

// checkRedactedRoundTrip checks that Redacted is a URL for the same server
// with the same settings, but for the password.
func checkRedactedRoundTrip(t *testing.T, o Options) {
	t.Helper()
	if diff := redactedRoundTrip(o); diff != "" {
		t.Error(diff)
	}
}

// redactedRoundTrip parses o.Redacted() back and says how it differs from
// o, or returns "".
func redactedRoundTrip(o Options) string {
	red := o.Redacted()
	back, err := ParseURL(red)
	if err != nil {
		return fmt.Sprintf("Redacted %q of %+v does not parse: %v", red, o, err)
	}
	if o.Password != "" && back.Password != redacted {
		return fmt.Sprintf("Redacted %q of %+v parses with password %q", red, o, back.Password)
	}
	back.Password = o.Password
	if o.SentinelPassword != "" && back.SentinelPassword != redacted {
		return fmt.Sprintf("Redacted %q of %+v parses with sentinel password %q", red, o, back.SentinelPassword)
	}
	back.SentinelPassword = o.SentinelPassword
	if !sameOptions(o, back) || back.Redacted() != red {
		return fmt.Sprintf("Redacted %q of %+v parses as %+v", red, o, back)
	}
	return ""
}

// sameOptions compares everything ParseURL sets.
func sameOptions(a, b Options) bool {
	skip := func(o Options) bool { return o.TLS != nil && o.TLS.InsecureSkipVerify }
	return a.Network == b.Network && a.Addr == b.Addr && a.Username == b.Username &&
		a.Password == b.Password && a.DB == b.DB && a.Protocol == b.Protocol &&
		a.DialTimeout == b.DialTimeout && a.ReadTimeout == b.ReadTimeout &&
		(a.TLS == nil) == (b.TLS == nil) && skip(a) == skip(b) &&
		a.MasterName == b.MasterName && slices.Equal(a.Sentinels, b.Sentinels) &&
		a.SentinelUsername == b.SentinelUsername && a.SentinelPassword == b.SentinelPassword &&
		a.Cluster == b.Cluster && slices.Equal(a.Seeds, b.Seeds) && a.ReadFrom == b.ReadFrom
}

func TestParseURLTimeouts(t *testing.T) {
	o, err := ParseURL("redis://h?dial_timeout=250ms&read_timeout=2")
	if err != nil {
		t.Fatal(err)
	}
	if o.DialTimeout != 250*time.Millisecond || o.ReadTimeout != 2*time.Second {
		t.Errorf("timeouts %v, %v", o.DialTimeout, o.ReadTimeout)
	}
	if o, err = ParseURL("redis://h?read_timeout=0"); err != nil || o.ReadTimeout != 0 {
		t.Errorf("read_timeout=0: %v, %v", o.ReadTimeout, err)
	}
	// connect_timeout is dial_timeout under libpq's name: seconds, or a
	// Go duration
	if o, err = ParseURL("redis://h?connect_timeout=7"); err != nil || o.DialTimeout != 7*time.Second {
		t.Errorf("connect_timeout=7: %v, %v", o.DialTimeout, err)
	}
	if o, err = ParseURL("redis-sentinel://s/m?connect_timeout=1.5s"); err != nil || o.DialTimeout != 1500*time.Millisecond {
		t.Errorf("connect_timeout=1.5s: %v, %v", o.DialTimeout, err)
	}
}

func TestParseSentinelURL(t *testing.T) {
	o, err := ParseURL("redis-sentinel://alice:s3cret@s1,s2:26380,[::1]:5000/my%20master/2?sentinel_user=sam&sentinel_password=pw&protocol=3")
	if err != nil {
		t.Fatal(err)
	}
	want := Options{Network: "tcp", Username: "alice", Password: "s3cret", DB: 2, Protocol: 3,
		DialTimeout: DefaultDialTimeout, ReadTimeout: DefaultReadTimeout, MasterName: "my master",
		Sentinels:        []string{"s1:26379", "s2:26380", "[::1]:5000"},
		SentinelUsername: "sam", SentinelPassword: "pw"}
	if !sameOptions(o, want) {
		t.Errorf("got %+v\nwant %+v", o, want)
	}
	if got, wantRed := o.Redacted(), "redis-sentinel://alice:xxxxx@s1:26379,s2:26380,[::1]:5000/my%20master/2?protocol=3&sentinel_user=sam&sentinel_password=xxxxx"; got != wantRed {
		t.Errorf("Redacted\n got %s\nwant %s", got, wantRed)
	}
	if diff := redactedRoundTrip(o); diff != "" {
		t.Error(diff)
	}
}

func TestParseURLErrors(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"localhost:6379", `invalid redis URL "localhost:6379": want redis://, rediss://, redis+cluster://, unix:// or an absolute socket path`},
		{"http://h", `invalid redis URL "http://h": unsupported scheme "http" (want redis, rediss, redis+cluster, rediss+cluster, redis-sentinel or unix)`},
		{"redis://h:0", `invalid redis URL "redis://h:0": invalid port "0"`},
		{"redis://:s3cret@h:abc", `invalid redis URL "redis://:xxxxx@h:abc": invalid port "abc"`},
		{"redis://alice:s3cret@h:70000", `invalid redis URL "redis://alice:xxxxx@h:70000": invalid port "70000"`},
		{"redis://::1", `invalid redis URL "redis://::1": IPv6 addresses must be in brackets, as in [::1]:6379`},
		{"redis://[::1", `invalid redis URL "redis://[::1": missing ']' after an IPv6 address`},
		{"redis://[::1]x", `invalid redis URL "redis://[::1]x": unexpected "x" after an IPv6 address`},
		{"redis://h/x", `invalid redis URL "redis://h/x": invalid database "x": want a number from 0`},
		{"redis://h/-1", `invalid redis URL "redis://h/-1": invalid database "-1": want a number from 0`},
		{"redis://h/1?db=2", `invalid redis URL "redis://h/1?db=2": database given twice`},
		{"redis://:s3cret@h?password=s3cret", `invalid redis URL "redis://:xxxxx@h?password=xxxxx": password given twice`},
		{"redis://:s3%zzcret@h", `invalid redis URL "redis://:xxxxx@h": invalid percent-encoding in the password`},
		{"redis://h?password=s3%zzcret", `invalid redis URL "redis://h?password=xxxxx": invalid percent-encoding in parameter "password"`},
		{"redis://h?passwd=s3cret", `invalid redis URL "redis://h?passwd=xxxxx": unknown parameter "passwd" (want db, user, password, protocol, dial_timeout, connect_timeout, read_timeout, insecure_skip_verify, tls_ca_cert, tls_ca_cert_dir, tls_cert, tls_key, tls_sni, tls_ciphers, tls_min_version, tls_max_version, cluster, rfr, split, sentinel_user or sentinel_password)`},
		{"redis://h?protocol=4", `invalid redis URL "redis://h?protocol=4": invalid protocol "4": want 2 or 3`},
		{"redis://h?insecure_skip_verify=true", `invalid redis URL "redis://h?insecure_skip_verify=true": insecure_skip_verify needs a rediss:// URL`},
		{"rediss://h?insecure_skip_verify=maybe", `invalid redis URL "rediss://h?insecure_skip_verify=maybe": invalid insecure_skip_verify "maybe": want true or false`},
		{"redis://h?read_timeout=soon", `invalid redis URL "redis://h?read_timeout=soon": invalid read_timeout "soon": want a duration such as 5s`},
		{"redis://h?dial_timeout=-1s", `invalid redis URL "redis://h?dial_timeout=-1s": invalid dial_timeout "-1s": must not be negative`},
		{"redis://h?dial_timeout=NaN", `invalid redis URL "redis://h?dial_timeout=NaN": invalid dial_timeout "NaN": want a duration such as 5s`},
		{"unix://run/redis.sock", `invalid redis URL "unix://run/redis.sock": a unix socket needs an absolute path, as in unix:///run/redis.sock`},
		{"unix:///a%zz", `invalid redis URL "unix:///a%zz": invalid percent-encoding in the socket path`},
		{"/run/redis.sock?db=x&password=s3cret", `invalid redis URL "/run/redis.sock?db=x&password=xxxxx": invalid database "x": want a number from 0`},
		// Sentinel URLs
		{"redis-sentinel://s1,s2", `invalid redis URL "redis-sentinel://s1,s2": a redis-sentinel URL needs the master name, as in redis-sentinel://host:26379/mymaster`},
		{"redis-sentinel://:s3cret@s1:x/m", `invalid redis URL "redis-sentinel://:xxxxx@s1:x/m": invalid port "x"`},
		{"redis-sentinel://s1/m/x", `invalid redis URL "redis-sentinel://s1/m/x": invalid database "x": want a number from 0`},
		{"redis://h?sentinel_password=s3cret", `invalid redis URL "redis://h?sentinel_password=xxxxx": sentinel_password needs a redis-sentinel:// URL`},
		{"redis-sentinel://s/m?sentinel_password=s3cret&read_timeout=x", `invalid redis URL "redis-sentinel://s/m?sentinel_password=xxxxx&read_timeout=x": invalid read_timeout "x": want a duration such as 5s`},
		// connect_timeout and dial_timeout are one setting
		{"redis://h?connect_timeout=1&dial_timeout=2s", `invalid redis URL "redis://h?connect_timeout=1&dial_timeout=2s": connect_timeout and dial_timeout are the same setting: give one of them`},
		{"redis://h?connect_timeout=1&connect_timeout=2", `invalid redis URL "redis://h?connect_timeout=1&connect_timeout=2": connect_timeout given twice`},
		{"redis://h?connect_timeout=soon", `invalid redis URL "redis://h?connect_timeout=soon": invalid connect_timeout "soon": want a duration such as 5s`},
		// Too broken to find the password: everything before the '@' is hidden.
		{"redis:/:s3cret@h", `invalid redis URL "xxxxx@h": want redis://, rediss://, redis+cluster://, unix:// or an absolute socket path`},
	}
	for _, tt := range tests {
		_, err := ParseURL(tt.in)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ParseURL(%q) error\n got %v\nwant %s", tt.in, err, tt.want)
		}
		if err != nil && strings.Contains(err.Error(), "s3cret") {
			t.Errorf("ParseURL(%q) error shows the password: %v", tt.in, err)
		}
	}
}

// FuzzParseURL checks that ParseURL never panics, that errors start with
// the redacted URL, and that Redacted gives a URL that parses back to the
// same options (but for the password, which reads "xxxxx"). Seeds are in
// testdata/fuzz/FuzzParseURL (protocol2_dropped: Redacted used to drop an
// explicit protocol=2).
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"redis://alice:s3cret@h:6380/2?protocol=3", "rediss://h?insecure_skip_verify=1",
		"unix://u:p@/run/r.sock?db=3", "/run/redis.sock?password=x", "redis://[::1]:7000/1",
		"redis://h?dial_timeout=1.5&read_timeout=250ms", "redis://al%40ice:p%2Fw@h",
		"redis-sentinel://u:p@s1,s2:26380/m/1?sentinel_password=x&connect_timeout=2",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := ParseURL(s)
		if err != nil {
			if want := fmt.Sprintf("invalid redis URL %q: ", redact(s)); !strings.HasPrefix(err.Error(), want) {
				t.Fatalf("ParseURL(%q) error %q does not start with %q", s, err, want)
			}
			return
		}
		if diff := redactedRoundTrip(o); diff != "" {
			t.Fatalf("ParseURL(%q): %s", s, diff)
		}
	})
}
