package driver

import (
	"context"
	"net"

	"github.com/gbench/gbench/script"
)

// Dial opens a network connection. A Connector opens its sockets with the
// one the engine gives it, so that the engine can take them over after
// the protocol's setup (TLS, authentication).
type Dial = func(ctx context.Context, network, addr string) (net.Conn, error)

// Connector opens one protocol's connections for a run: the caller (cmd,
// the matrix) builds it from a connection string, the engine calls it for
// every client's connection and every reconnect, from any of its threads
// at once, so Connect must be safe for concurrent use.
type Connector interface {
	// Connect opens a connection with sockets from dial, sets it up
	// (authentication, TLS, the database) and returns it with the Driver
	// that speaks its protocol for program p. Server notices go to notice,
	// which may be called from the thread that owns the connection until
	// it is closed.
	Connect(ctx context.Context, dial Dial, p *script.Program, notice func(severity, message string)) (net.Conn, Driver, error)
}
