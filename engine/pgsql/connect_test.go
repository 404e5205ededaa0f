package pgsql

import (
	"context"
	"errors"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// slowWriteConn takes 30 ms over its first write (the start-up message),
// like a client thread descheduled right after its write on a loaded
// machine: pgconn then starts its background reader (after 15 ms) in the
// middle of the write, and the server's answer arrives meanwhile.
type slowWriteConn struct {
	net.Conn
	writes int
}

func (c *slowWriteConn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	if c.writes++; c.writes == 1 {
		time.Sleep(30 * time.Millisecond)
	}
	return n, err
}

// fakeServer accepts one connection and answers like a PostgreSQL server
// with trust authentication: AuthenticationOk in one segment, the rest of
// the start-up a moment later (PostgreSQL flushes AuthenticationOk before
// it finishes starting the backend), then a ReadyForQuery for every Sync
// and an EmptyQueryResponse for every simple query.
func fakeServer(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		be := pgproto3.NewBackend(conn, conn)
		if _, err := be.ReceiveStartupMessage(); err != nil {
			return
		}
		be.Send(&pgproto3.AuthenticationOk{})
		if be.Flush() != nil {
			return
		}
		time.Sleep(2 * time.Millisecond)
		be.Send(&pgproto3.ParameterStatus{Name: "server_version", Value: "15.0"})
		be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
		be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
		if be.Flush() != nil {
			return
		}
		for {
			msg, err := be.Receive()
			if err != nil {
				return
			}
			switch msg.(type) {
			case *pgproto3.Query:
				be.Send(&pgproto3.EmptyQueryResponse{})
				be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			case *pgproto3.Sync:
				be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
			default:
				continue
			}
			if be.Flush() != nil {
				return
			}
		}
	}()
	return ln.Addr().String()
}

// TestConnectHandsOverAQuietSocket is the root cause of the matrix's
// warm-up hang: when pgconn's start-up write was slow, its background
// reader could still be blocked in a read of the socket when Connect
// handed the connection over, and took the reply to the connection's
// first request. The reply to a Sync sent right after Connect must come
// back to the new owner.
func TestConnectHandsOverAQuietSocket(t *testing.T) {
	host, port, _ := net.SplitHostPort(fakeServer(t))
	cfg, err := ParseConfig("host=" + host + " port=" + port + " user=u dbname=d sslmode=disable")
	if err != nil {
		t.Fatal(err)
	}
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		var d net.Dialer
		c, err := d.DialContext(ctx, network, addr)
		return &slowWriteConn{Conn: c}, err
	}
	c, err := cfg.Connect(context.Background(), dial)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Net.Close()
	if err := c.Net.SetDeadline(time.Now().Add(2 * time.Second)); err != nil {
		t.Fatal(err)
	}
	fe := pgproto3.NewFrontend(c.Net, c.Net)
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		t.Fatal(err)
	}
	msg, err := fe.Receive()
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Fatal("the reply to the first request never came: another reader took it")
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := msg.(*pgproto3.ReadyForQuery); !ok {
		t.Fatalf("got %T, want ReadyForQuery", msg)
	}
}

// refusingServer is a server without SSL: it answers 'N' to an
// SSLRequest and expects the start-up message on the same socket, as
// PostgreSQL does. It counts the connections it accepts.
func refusingServer(t *testing.T) (addr string, accepted func() int) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	var mu sync.Mutex
	n := 0
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			n++
			mu.Unlock()
			go func() {
				defer conn.Close()
				be := pgproto3.NewBackend(conn, conn)
				msg, err := be.ReceiveStartupMessage()
				if err != nil {
					return
				}
				if _, ok := msg.(*pgproto3.SSLRequest); ok {
					if _, err := conn.Write([]byte{'N'}); err != nil {
						return
					}
					if msg, err = be.ReceiveStartupMessage(); err != nil {
						return
					}
				}
				if _, ok := msg.(*pgproto3.StartupMessage); !ok {
					return
				}
				be.Send(&pgproto3.AuthenticationOk{})
				be.Send(&pgproto3.ParameterStatus{Name: "server_version", Value: "15.0"})
				be.Send(&pgproto3.BackendKeyData{ProcessID: 1, SecretKey: []byte{0, 0, 0, 1}})
				be.Send(&pgproto3.ReadyForQuery{TxStatus: 'I'})
				if be.Flush() != nil {
					return
				}
				_, _ = be.Receive() // until the client goes
			}()
		}
	}()
	return ln.Addr().String(), func() int {
		mu.Lock()
		defer mu.Unlock()
		return n
	}
}

// With sslmode=prefer (the default) against a server without SSL, a
// connection is one socket, as in libpq: pgconn alone would close the
// socket the server refused TLS on and dial again for its plain fallback,
// doubling the setup of every connection.
func TestPreferWithoutSSLConnectsOnce(t *testing.T) {
	for _, mode := range []string{"prefer", "disable"} {
		t.Run(mode, func(t *testing.T) {
			addr, accepted := refusingServer(t)
			host, port, _ := net.SplitHostPort(addr)
			cfg, err := ParseConfig("host=" + host + " port=" + port + " user=u dbname=d sslmode=" + mode)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 3; i++ {
				c, err := cfg.Connect(context.Background(), nil)
				if err != nil {
					t.Fatal(err)
				}
				if c.ServerVersion != 150000 {
					t.Errorf("server version %d", c.ServerVersion)
				}
				if _, ok := c.Net.(*keptConn); ok {
					t.Error("the connection handed over is gbench's wrapper, not the socket")
				}
				c.Net.Close()
				if got := accepted(); got != i {
					t.Fatalf("%d connections made %d sockets", i, got)
				}
			}
		})
	}
}
