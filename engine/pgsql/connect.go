package pgsql

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"strconv"
	"time"

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
	pg   *pgconn.Config
	opts libpqOpts
	// conninfo is the string c was parsed from, whose passwords Redact
	// hides wherever a message quotes them.
	conninfo string
}

// ParseConfig parses a conninfo string or URI; empty fields come from the
// PG* environment variables and the defaults, as with libpq.
//
// Beyond what pgx reads, it takes libpq's tcp_user_timeout (ms),
// keepalives, keepalives_idle, keepalives_interval, keepalives_count (s,
// count) and load_balance_hosts (disable or random; also
// PGLOADBALANCEHOSTS), which pgx would otherwise send to the server as
// run-time parameters. connect_timeout=1 is read as 2, libpq's minimum.
func ParseConfig(conninfo string) (*Config, error) {
	c, err := pgconn.ParseConfig(conninfo)
	if err != nil {
		return nil, err
	}
	opts, err := takeLibpqOpts(c.RuntimeParams)
	if err != nil {
		return nil, err
	}
	if c.ConnectTimeout > 0 && c.ConnectTimeout < minConnectTimeout {
		c.ConnectTimeout = minConnectTimeout
		d := net.Dialer{Timeout: minConnectTimeout}
		c.DialFunc = d.DialContext
	}
	c.AfterNetConnect = handshakeFirst(c.AfterNetConnect)
	return &Config{pg: c, opts: opts, conninfo: conninfo}, nil
}

// minConnectTimeout is libpq's floor for connect_timeout: "1" waits 2 s,
// since a timeout counted in whole seconds could expire at once.
const minConnectTimeout = 2 * time.Second

// connectConfig is the pgconn configuration of one connection: its
// sockets opened by dial (nil: pgx's dialer) and set up as the libpq
// options say, its hosts in a new random order for load_balance_hosts=random.
// Every call chooses afresh, so that a client that connects again after a
// failover tries the hosts again and finds the new primary.
func (c *Config) connectConfig(dial DialFunc) *pgconn.Config {
	cfg := c.pg.Copy()
	if dial == nil {
		dial = c.pg.DialFunc
	}
	if c.opts.sockSet {
		dial = withSockOpts(dial, c.opts.sock)
	}
	cfg.DialFunc = dial
	if c.opts.balance {
		shuffleHosts(cfg)
		cfg.LookupFunc = shuffledLookup(cfg.LookupFunc)
	}
	return cfg
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
// nil, and takes it over from pgconn. Each call tries the hosts again from
// the start of the list (shuffled anew with load_balance_hosts=random) and
// checks target_session_attrs on the one it reaches, so a reconnect finds a
// new primary; connect_timeout applies to each address tried, as in libpq.
// Connect is safe for concurrent use.
func (c *Config) Connect(ctx context.Context, dial DialFunc) (*Conn, error) {
	cfg := c.connectConfig(dial)
	d := &keepRefused{next: cfg.DialFunc}
	cfg.DialFunc = d.dial
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	d.closeParked()
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
	nc := h.Conn
	if k, ok := nc.(*keptConn); ok {
		nc = k.Conn
	}
	return &Conn{Net: nc, TxStatus: h.TxStatus, PID: h.PID, ServerVersion: v, Params: h.ParameterStatuses}, nil
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

// keepRefused makes sslmode=prefer (the default) cost one connection, as
// in libpq. pgconn asks for TLS and, when the server answers 'N', closes
// the socket and dials again for its plain fallback; libpq goes on without
// TLS on the same socket. Against a server without SSL that doubled every
// connection's setup (two TCP handshakes, two backends forked), which the
// initial connection time showed: 8.5–9.4 ms for one connection where
// pgbench took 4.1–4.6 ms. keepRefused keeps the refused socket instead of
// closing it and hands it to pgconn's next dial of the same address, which
// is that fallback; the startup then goes on where libpq's would.
type keepRefused struct {
	next   DialFunc
	parked *keptConn
}

func (d *keepRefused) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	if k := d.parked; k != nil {
		d.parked = nil
		if k.network == network && k.addr == addr {
			k.state = keptInUse
			return k, nil
		}
		k.Conn.Close()
	}
	next := d.next
	if next == nil {
		var nd net.Dialer
		next = nd.DialContext
	}
	c, err := next(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return &keptConn{Conn: c, owner: d, network: network, addr: addr}, nil
}

// closeParked closes a refused socket that no dial took.
func (d *keepRefused) closeParked() {
	if d.parked != nil {
		d.parked.Conn.Close()
		d.parked = nil
	}
}

// sslRequest is the SSLRequest message pgconn writes in one piece.
var sslRequest = []byte{0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f}

const (
	keptFresh   = iota // nothing exchanged yet
	keptAsked          // an SSLRequest was written
	keptRefused        // and the server answered 'N'
	keptInUse          // anything else: an ordinary connection
)

// keptConn watches the first exchange on a socket for a refused
// SSLRequest. Once it is in use (after the startup message at the
// latest, before pgconn has any goroutine of its own reading) state no
// longer changes.
type keptConn struct {
	net.Conn
	owner         *keepRefused
	network, addr string
	state         uint8
}

// NetConn returns the socket, as tls.Conn's NetConn does.
func (k *keptConn) NetConn() net.Conn { return k.Conn }

func (k *keptConn) Write(p []byte) (int, error) {
	if k.state != keptInUse {
		if k.state == keptFresh && string(p) == string(sslRequest) {
			k.state = keptAsked
		} else {
			k.state = keptInUse
		}
	}
	return k.Conn.Write(p)
}

func (k *keptConn) Read(p []byte) (int, error) {
	n, err := k.Conn.Read(p)
	if k.state != keptInUse {
		if k.state == keptAsked && n == 1 && p[0] == 'N' && err == nil {
			k.state = keptRefused
		} else {
			k.state = keptInUse
		}
	}
	return n, err
}

// Close keeps a socket whose SSLRequest was refused for the next dial.
func (k *keptConn) Close() error {
	if k.state == keptRefused && k.owner.parked == nil {
		k.owner.parked = k
		return nil
	}
	return k.Conn.Close()
}
