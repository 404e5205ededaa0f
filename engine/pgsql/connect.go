package pgsql

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// Conn is an established server connection, taken over from pgconn after
// the startup exchange (TLS, authentication, parameters) so that the engine
// can drive the protocol itself.
type Conn struct {
	Net      net.Conn
	TxStatus byte
	PID      uint32
	// ServerVersion is server_version_num, e.g. 150020.
	ServerVersion int
	// Params holds the parameters the server reported (server_version, ...).
	Params map[string]string
}

// Config is a parsed connection configuration; parse it once and connect
// many times.
type Config struct {
	pg *pgconn.Config
}

// ParseConfig parses a conninfo string or URI; empty fields come from the
// PG* environment variables and the defaults, as with libpq.
func ParseConfig(conninfo string) (*Config, error) {
	c, err := pgconn.ParseConfig(conninfo)
	if err != nil {
		return nil, err
	}
	c.AfterNetConnect = handshakeFirst(c.AfterNetConnect)
	return &Config{pg: c}, nil
}

// handshakeFirst completes a TLS handshake as soon as the connection is
// made, within the connect context. Left to crypto/tls, the handshake
// would start inside pgconn's first write, and when that write is slow
// (a loaded machine) pgconn starts a background reader whose read runs the
// handshake instead, concurrently with the write: runs were seen stuck
// there, the writer waiting for the handshake lock.
func handshakeFirst(next func(context.Context, *pgconn.Config, net.Conn) (net.Conn, error)) func(context.Context, *pgconn.Config, net.Conn) (net.Conn, error) {
	return func(ctx context.Context, cfg *pgconn.Config, c net.Conn) (net.Conn, error) {
		if tc, ok := c.(*tls.Conn); ok {
			if err := tc.HandshakeContext(ctx); err != nil {
				return nil, err
			}
		}
		if next != nil {
			return next(ctx, cfg, c)
		}
		return c, nil
	}
}

// Database returns the database name the configuration connects to.
func (c *Config) Database() string { return c.pg.Database }

// Host returns the first host the configuration connects to.
func (c *Config) Host() string { return c.pg.Host }

// Port returns the first port the configuration connects to.
func (c *Config) Port() uint16 { return c.pg.Port }

// DialFunc opens a network connection.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// Connect opens a connection, with sockets opened by dial when it is not
// nil, and takes it over from pgconn.
func (c *Config) Connect(ctx context.Context, dial DialFunc) (*Conn, error) {
	cfg := c.pg
	if dial != nil {
		cfg = c.pg.Copy()
		cfg.DialFunc = dial
	}
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	// pgconn starts a background reader when a write takes over 15 ms (to
	// avoid a write/read deadlock) and may return from ConnectConfig with
	// that goroutine still blocked in a read of the socket. Taken over as
	// it is, the connection's next reply would go to that goroutine and be
	// lost: the warm-up of gbench matrix waited for it until its deadline.
	// SyncConn waits for the reader to stop (with a ping when it must).
	if err := pc.SyncConn(ctx); err != nil {
		pc.Close(ctx)
		return nil, fmt.Errorf("taking over the connection: %w", err)
	}
	h, err := pc.Hijack()
	if err != nil {
		pc.Close(ctx)
		return nil, fmt.Errorf("taking over the connection: %w", err)
	}
	v, _ := strconv.Atoi(h.ParameterStatuses["server_version_num"])
	if v == 0 {
		v = parseServerVersion(h.ParameterStatuses["server_version"])
	}
	return &Conn{Net: h.Conn, TxStatus: h.TxStatus, PID: h.PID, ServerVersion: v, Params: h.ParameterStatuses}, nil
}

// parseServerVersion turns "15.20 (Debian ...)" into 150020.
func parseServerVersion(s string) int {
	var major, minor int
	fmt.Sscanf(s, "%d.%d", &major, &minor)
	if major >= 10 {
		return major*10000 + minor
	}
	return major*10000 + minor*100
}

// SetFallbackApplicationName sets application_name unless the connection
// settings give one, like libpq's fallback_application_name.
func (c *Config) SetFallbackApplicationName(name string) {
	if c.pg.RuntimeParams == nil {
		c.pg.RuntimeParams = map[string]string{}
	}
	if _, ok := c.pg.RuntimeParams["application_name"]; !ok {
		c.pg.RuntimeParams["application_name"] = name
	}
}

// User returns the user the configuration connects as.
func (c *Config) User() string { return c.pg.User }
