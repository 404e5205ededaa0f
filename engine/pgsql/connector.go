package pgsql

import (
	"context"
	"net"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// Opener opens a PostgreSQL connection taken over from pgconn, with
// sockets from dial. *Config is one; the matrix wraps it to warm caches.
type Opener interface {
	Connect(ctx context.Context, dial DialFunc) (*Conn, error)
}

// Connector returns the engine's connector for PostgreSQL: connections
// from o, each with a Session for the program's query mode.
func Connector(o Opener) driver.Connector { return connector{o: o} }

type connector struct {
	o         Opener
	countRows bool
}

// RowsConnector is Connector with Session.CountRows set: SELECT results
// with and without rows count as cache hits and misses.
func RowsConnector(o Opener) driver.Connector { return connector{o, true} }

func (c connector) Connect(ctx context.Context, dial driver.Dial, p *script.Program, notice func(severity, message string)) (net.Conn, driver.Driver, error) {
	conn, err := c.o.Connect(ctx, dial)
	if err != nil {
		return nil, nil, err
	}
	s := NewSession(p.Mode, p.NumSQL, conn.TxStatus)
	s.Notice = notice
	s.CountRows(c.countRows)
	return conn.Net, s, nil
}
