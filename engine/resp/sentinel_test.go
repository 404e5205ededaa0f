package resp

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
)

// portOf asks the server on conn for its TCP port.
func portOf(t *testing.T, conn net.Conn) int {
	t.Helper()
	c := NewClient(conn)
	c.SetTimeout(5 * time.Second)
	info, err := c.Info("server")
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(info["tcp_port"])
	return port
}

// TestSentinelFailover: Dial asks the Sentinels on every call, so a client
// that connects again after a failover reaches the new master. The first
// Sentinel listed is down and is passed over.
func TestSentinelFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three Redis servers")
	}
	master := testsrv.StartRedis(t, "--requirepass", defaultPassword, "--masterauth", defaultPassword)
	replica := master.Replica(t, "--requirepass", defaultPassword, "--masterauth", defaultPassword)
	sentinel := testsrv.StartSentinel(t, master, "sentinel auth-pass "+testsrv.SentinelMaster+" "+defaultPassword,
		"requirepass sentinel-s3cret")
	down := freePort(t)
	o, err := ParseURL(fmt.Sprintf("redis-sentinel://:%s@127.0.0.1:%d,127.0.0.1:%d/%s?sentinel_password=sentinel-s3cret",
		defaultPassword, down, sentinel.Port, testsrv.SentinelMaster))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, err := Dial(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	if got := portOf(t, conn); got != master.Port {
		t.Errorf("before the failover: connected to port %d, want the master %d", got, master.Port)
	}
	conn.Close()

	sentinel.WaitReplicas(1)
	if now := sentinel.Failover(); now != replica.Addr() {
		t.Fatalf("the sentinel made %s the master, not the replica %s", now, replica.Addr())
	}
	conn, err = Dial(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if got := portOf(t, conn); got != replica.Port {
		t.Errorf("after the failover: connected to port %d, want the new master %d", got, replica.Port)
	}
}

// TestSentinelErrors: what each Sentinel said, in order, with the master
// name, and no password.
func TestSentinelErrors(t *testing.T) {
	master := testsrv.StartRedis(t)
	sentinel := testsrv.StartSentinel(t, master)
	down := freePort(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	o, _ := ParseURL(fmt.Sprintf("redis-sentinel://127.0.0.1:%d,127.0.0.1:%d/nosuch", down, sentinel.Port))
	_, err := Dial(ctx, o)
	want := fmt.Sprintf(`redis sentinel: no master "nosuch" found: sentinel 127.0.0.1:%d: dial tcp 127.0.0.1:%d: connect: connection refused; sentinel 127.0.0.1:%d: does not know a master named "nosuch"`,
		down, down, sentinel.Port)
	if err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}

	o, _ = ParseURL(fmt.Sprintf("redis-sentinel://127.0.0.1:%d/%s?sentinel_password=wrong-s3cret", sentinel.Port, testsrv.SentinelMaster))
	_, err = Dial(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "AUTH failed") || strings.Contains(err.Error(), "wrong-s3cret") {
		t.Errorf("a sentinel without a password, given one: %v", err)
	}

	// A Sentinel that names a server that is not a master: ask it about
	// a replica registered as a master of another name.
	replica := master.Replica(t)
	other := testsrv.StartSentinel(t, replica)
	o, _ = ParseURL(fmt.Sprintf("redis-sentinel://127.0.0.1:%d/%s", other.Port, testsrv.SentinelMaster))
	_, err = Dial(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "the server is not a master") {
		t.Errorf("a sentinel naming a replica: %v", err)
	}
}

// TestSentinelHonoursContext: a Sentinel that accepts but never answers
// holds Dial no longer than the ctx.
func TestSentinelHonoursContext(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	o, _ := ParseURL("redis-sentinel://" + ln.Addr().String() + "/m?read_timeout=0")
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err = Dial(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "context deadline exceeded") {
		t.Errorf("error %v, want the ctx's deadline", err)
	}
}
