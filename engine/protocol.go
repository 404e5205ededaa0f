package engine

import (
	"context"
	"net"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// This file says which commands each protocol serves and how its
// connections open: through the driver.Connector the caller put in Config.
// The engine imports no driver; everything drives a driver.Driver.

// protocol is one protocol a program speaks. A client has one connection
// per protocol, at the protocol's index in run.protos.
type protocol struct {
	kind script.CmdKind // the commands it serves
	// open connects with sockets from dial and returns the connection with
	// its driver.
	open func(ctx context.Context, dial DialFunc) (net.Conn, driver.Driver, error)
	// cluster, when not nil, routes the protocol's commands over several
	// servers (a Redis Cluster): every client gets a router and opens its
	// connections through it (engine/cluster.go).
	cluster driver.Cluster
}

// protocols lists the protocols the program speaks, with their connectors
// (Validate made sure there is one for each).
func (r *run) protocols() ([]protocol, error) {
	cfg, p := r.cfg, r.cfg.Program
	var protos []protocol
	if p.HasSQL {
		protos = append(protos, protocol{kind: script.CmdSQL, open: r.opener(cfg.SQL)})
	}
	if p.HasRESP {
		p := protocol{kind: script.CmdRESP, open: r.opener(cfg.RESP)}
		p.cluster, _ = cfg.RESP.(driver.Cluster) // Validate ran its Check
		protos = append(protos, p)
	}
	return protos, nil
}

// opener returns how the run opens connections with c.
func (r *run) opener(c driver.Connector) func(ctx context.Context, dial DialFunc) (net.Conn, driver.Driver, error) {
	return func(ctx context.Context, dial DialFunc) (net.Conn, driver.Driver, error) {
		return c.Connect(ctx, dial, r.cfg.Program, r.notice)
	}
}

func (r *run) notice(severity, message string) {
	r.printf("%s:  %s\n", severity, message)
}
