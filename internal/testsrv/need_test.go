package testsrv

import (
	"bufio"
	"net"
	"strings"
	"testing"
)

// TestPingRedis: a server that answers is found, with AUTH first when the
// URL has a password; a closed port and a wrong scheme are not.
func TestPingRedis(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	got := make(chan string, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r := bufio.NewReader(c)
		var lines []string
		for len(lines) < 10 { // *3 $4 AUTH $1 u $2 pw, then *1 $4 PING
			l, err := r.ReadString('\n')
			if err != nil {
				break
			}
			lines = append(lines, strings.TrimSpace(l))
		}
		got <- strings.Join(lines, " ")
		c.Write([]byte("+OK\r\n+PONG\r\n"))
	}()
	if err := pingRedis("redis://u:pw@" + ln.Addr().String() + "/0"); err != nil {
		t.Fatal(err)
	}
	if s := <-got; !strings.HasPrefix(s, "*3 $4 AUTH $1 u $2 pw *1 $4 PING") {
		t.Errorf("the server read %q", s)
	}
	closed := ln.Addr().String()
	ln.Close()
	if err := pingRedis("redis://" + closed + "/0"); err == nil {
		t.Error("a closed port answered")
	}
	if err := pingRedis("http://127.0.0.1:6379"); err == nil {
		t.Error("an http URL was taken")
	}
}

// TestPostgresConninfo: GBENCH_TEST_PG wins over the default.
func TestPostgresConninfo(t *testing.T) {
	t.Setenv("GBENCH_TEST_PG", "")
	if PostgresConninfo() != DefaultPostgres {
		t.Errorf("default: %q", PostgresConninfo())
	}
	t.Setenv("GBENCH_TEST_PG", "host=elsewhere")
	if PostgresConninfo() != "host=elsewhere" {
		t.Errorf("set: %q", PostgresConninfo())
	}
}
