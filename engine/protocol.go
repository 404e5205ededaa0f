package engine

import (
	"context"
	"fmt"
	"net"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
)

// This file is the engine's only contact with the protocols: which
// commands each one serves and how its connections open. Everything else
// drives a driver.Driver.

// protocol is one protocol a program speaks. A client has one connection
// per protocol, at the protocol's index in run.protos.
type protocol struct {
	kind script.CmdKind // the commands it serves
	// open connects with sockets from dial and returns the connection with
	// its driver.
	open func(ctx context.Context, dial DialFunc) (net.Conn, driver.Driver, error)
}

// protocols lists the protocols the program speaks, with their connectors.
func (r *run) protocols() ([]protocol, error) {
	cfg, p := r.cfg, r.cfg.Program
	var protos []protocol
	if p.HasSQL {
		if cfg.SQL == nil {
			return nil, fmt.Errorf("the script has SQL commands but no PostgreSQL connection is configured")
		}
		protos = append(protos, protocol{kind: script.CmdSQL, open: r.openSQL})
	}
	if p.HasRESP {
		if cfg.RESP == nil {
			return nil, fmt.Errorf("the script has \\resp commands but no Redis connection is configured")
		}
		protos = append(protos, protocol{kind: script.CmdRESP, open: r.openRESP})
	}
	return protos, nil
}

func (r *run) openSQL(ctx context.Context, dial DialFunc) (net.Conn, driver.Driver, error) {
	c, err := r.cfg.SQL.Connect(ctx, dial)
	if err != nil {
		return nil, nil, err
	}
	p := r.cfg.Program
	s := pgsql.NewSession(p.Mode, p.NumSQL, c.TxStatus)
	s.Notice = r.notice
	return c.Net, s, nil
}

func (r *run) openRESP(ctx context.Context, dial DialFunc) (net.Conn, driver.Driver, error) {
	c, err := r.cfg.RESP.Connect(ctx, dial)
	if err != nil {
		return nil, nil, err
	}
	return c, resp.NewSession(), nil
}

func (r *run) notice(severity, message string) {
	r.printf("%s:  %s\n", severity, message)
}
