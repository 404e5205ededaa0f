package resp

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
)

// TestDialSharedRedis drives the shared server through Dial and the codec,
// covering the reply types Redis sends in RESP2.
func TestDialSharedRedis(t *testing.T) {
	o, err := ParseURL(testsrv.NeedRedis(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := Dial(ctx, o)
	if err != nil {
		t.Fatalf("Redis at %s answers a PING but Dial fails: %v", o.Redacted(), err)
	}
	c := &client{conn: conn, rr: replyReader{conn: conn}}
	defer conn.Close()
	p := fmt.Sprintf("gbench:resp:test:%d:", os.Getpid())
	t.Cleanup(func() { c.try("DEL", p+"s", p+"n", p+"h", p+"l") })

	c.do(t, `simple "PONG"`, "PING")
	c.do(t, `simple "OK"`, "SET", p+"s", "a\r\nb")
	c.do(t, `bulk "a\r\nb"`, "GET", p+"s")
	c.do(t, "null", "GET", p+"missing")
	c.do(t, "int 5", "INCRBY", p+"n", "5")
	c.do(t, `[bulk "a\r\nb" null bulk "5"]`, "MGET", p+"s", p+"missing", p+"n")
	c.do(t, "int 2", "HSET", p+"h", "f1", "v1", "f2", "v2")
	c.do(t, `[bulk "v1" bulk "v2"]`, "HMGET", p+"h", "f1", "f2")
	c.do(t, "int 3", "RPUSH", p+"l", "x", "y", "z")
	c.do(t, `[bulk "x" bulk "y" bulk "z"]`, "LRANGE", p+"l", "0", "-1")
	c.do(t, `error "WRONGTYPE Operation against a key holding the wrong kind of value"`, "LPUSH", p+"s", "x")
	c.do(t, `[]`, "LRANGE", p+"missing", "0", "-1")
	got, err := c.try("NOSUCHCOMMAND")
	if err != nil || !strings.HasPrefix(got, `error "ERR unknown command`) {
		t.Errorf("unknown command: %s, %v", got, err)
	}
	if cl := ErrorClass(c.rr.r.Values()[0].Bytes); cl != "ERR" {
		t.Errorf("ErrorClass = %q", cl)
	}
}

// TestDialMGET64 reads a 64-element MGET reply the way the benchmark does.
func TestDialMGET64(t *testing.T) {
	c := sharedClient(t)
	p := fmt.Sprintf("gbench:resp:test:%d:m:", os.Getpid())
	args, keys := []string{"MSET"}, []string{"MGET"}
	for i := range 64 {
		args = append(args, p+strconv.Itoa(i), strings.Repeat(strconv.Itoa(i%10), 128))
		keys = append(keys, p+strconv.Itoa(i))
	}
	t.Cleanup(func() { c.try(append([]string{"DEL"}, keys[1:]...)...) })
	c.do(t, `simple "OK"`, args...)
	if _, err := c.try(keys...); err != nil {
		t.Fatal(err)
	}
	r := &c.rr.r
	n := 0
	for i := r.First(r.Top()); i >= 0; i = r.Next(i) {
		if v := r.Values()[i]; v.Kind != KindBulk || string(v.Bytes) != args[2+2*n] {
			t.Fatalf("element %d: %s %.20q", n, v.Kind, v.Bytes)
		}
		n++
	}
	if n != 64 {
		t.Errorf("%d elements, want 64", n)
	}
}

func sharedClient(t *testing.T) *client {
	t.Helper()
	o, err := ParseURL(testsrv.NeedRedis(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := Dial(ctx, o)
	if err != nil {
		t.Fatalf("Redis at %s answers a PING but Dial fails: %v", o.Redacted(), err)
	}
	t.Cleanup(func() { conn.Close() })
	return &client{conn: conn, rr: replyReader{conn: conn}}
}

func TestDialAuth(t *testing.T) {
	s := startRedis(t)
	tcp := "127.0.0.1:" + strconv.Itoa(s.port)

	t.Run("password of the default user", func(t *testing.T) {
		c := dialClient(t, "redis://:"+defaultPassword+"@"+tcp)
		c.do(t, `bulk "default"`, "ACL", "WHOAMI")
	})
	t.Run("user and password", func(t *testing.T) {
		c := dialClient(t, "redis://alice:"+alicePassword+"@"+tcp)
		c.do(t, `bulk "alice"`, "ACL", "WHOAMI")
	})
	t.Run("user without a password", func(t *testing.T) {
		c := dialClient(t, "redis://nopw:@"+tcp)
		c.do(t, `bulk "nopw"`, "ACL", "WHOAMI")
	})
	t.Run("unix socket with parameters", func(t *testing.T) {
		c := dialClient(t, s.sock+"?user=alice&password="+alicePassword)
		c.do(t, `bulk "alice"`, "ACL", "WHOAMI")
	})
	t.Run("no password", func(t *testing.T) {
		c := dialClient(t, "redis://"+tcp)
		got, err := c.try("PING")
		if err != nil || ErrorClass(c.rr.r.Values()[0].Bytes) != "NOAUTH" {
			t.Errorf("PING without AUTH: %s, %v", got, err)
		}
	})
	for _, url := range []string{
		"redis://:wrong-s3cret@" + tcp,
		"redis://alice:wrong-s3cret@" + tcp,
		"redis://nobody:wrong-s3cret@" + tcp,
		"redis://alice:wrong-s3cret@" + tcp + "/3?protocol=3",
	} {
		t.Run("refused "+redact(url), func(t *testing.T) {
			err := dialErr(t, url)
			want := "redis AUTH failed: WRONGPASS invalid username-password pair"
			if strings.Contains(url, "protocol=3") {
				want = "redis HELLO failed: WRONGPASS invalid username-password pair"
			}
			if !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "wrong-s3cret") {
				t.Errorf("error %q, want it to start with %q and hide the password", err, want)
			}
		})
	}
}

func dialErr(t *testing.T, url string) error {
	t.Helper()
	o, err := ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := Dial(context.Background(), o)
	if err == nil {
		conn.Close()
		t.Fatalf("Dial(%s) succeeded", o.Redacted())
	}
	return err
}

func TestDialSelect(t *testing.T) {
	s := startRedis(t)
	tcp := "127.0.0.1:" + strconv.Itoa(s.port)
	db3 := dialClient(t, "redis://:"+defaultPassword+"@"+tcp+"/3")
	db3.do(t, `simple "OK"`, "SET", "k", "in db 3")
	db3.do(t, `bulk "in db 3"`, "GET", "k")
	db0 := dialClient(t, "redis://:"+defaultPassword+"@"+tcp)
	db0.do(t, "null", "GET", "k")
	unix3 := dialClient(t, "unix://"+s.sock+"?db=3&password="+defaultPassword)
	unix3.do(t, `bulk "in db 3"`, "GET", "k")

	err := dialErr(t, "redis://:"+defaultPassword+"@"+tcp+"/99")
	if want := "redis SELECT failed: ERR DB index is out of range"; err.Error() != want {
		t.Errorf("SELECT 99: %q, want %q", err, want)
	}
}

func TestDialRESP3(t *testing.T) {
	s := startRedis(t)
	c := dialClient(t, "redis://alice:"+alicePassword+"@127.0.0.1:"+strconv.Itoa(s.port)+"/2?protocol=3")
	c.do(t, "int 1", "ZADD", "z", "1.5", "m")
	c.do(t, "double 1.5", "ZSCORE", "z", "m")
	c.do(t, "int 1", "HSET", "h", "f", "v")
	c.do(t, `{bulk "f"=bulk "v"}`, "HGETALL", "h")
	c.do(t, "int 1", "SADD", "s", "m")
	c.do(t, `set[bulk "m"]`, "SMEMBERS", "s")
	c.do(t, "null", "GET", "missing")
	c.do(t, "bool true", "EVAL", "redis.setresp(3) return true", "0")
	c.do(t, "double 0.25", "EVAL", "redis.setresp(3) return {double=0.25}", "0")
	got, err := c.try("CLIENT", "INFO")
	if err != nil || !strings.HasPrefix(got, "verbatim txt") || !strings.Contains(got, " db=2 ") {
		t.Errorf("CLIENT INFO: %s, %v; want a verbatim string with db=2", got, err)
	}
}

func TestHandshakeCommands(t *testing.T) {
	tests := []struct {
		o    Options
		want string
	}{
		// what Dial sends for each combination of options
		{Options{}, ""},
		{Options{Password: "pw"}, "AUTH pw"},
		{Options{Username: "u", Password: "pw"}, "AUTH u pw"},
		{Options{Username: "u"}, "AUTH u "},
		{Options{DB: 3}, "SELECT 3"},
		{Options{Password: "pw", DB: 3}, "AUTH pw|SELECT 3"},
		{Options{Protocol: 2, Password: "pw"}, "AUTH pw"},
		{Options{Protocol: 3}, "HELLO 3"},
		{Options{Protocol: 3, Password: "pw", DB: 1}, "HELLO 3 AUTH default pw|SELECT 1"},
		{Options{Protocol: 3, Username: "u", Password: "pw"}, "HELLO 3 AUTH u pw"},
	}
	for _, tt := range tests {
		b, names := handshakeCommands(tt.o)
		var cmds []string
		var r Reader
		for len(b) > 0 {
			n, err := r.Parse(b)
			if n == 0 || err != nil {
				t.Fatalf("%+v: Parse(%q) = %d, %v", tt.o, b, n, err)
			}
			var args []string
			for i := r.First(0); i >= 0; i = r.Next(i) {
				args = append(args, string(r.Values()[i].Bytes))
			}
			cmds = append(cmds, strings.Join(args, " "))
			b = b[n:]
		}
		if got := strings.Join(cmds, "|"); got != tt.want || len(names) != len(cmds) {
			t.Errorf("%+v: sends %q (%d names), want %q", tt.o, got, len(names), tt.want)
		}
	}
}
