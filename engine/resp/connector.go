package resp

import (
	"context"
	"net"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// Opener opens a Redis-protocol connection, authenticated and with its
// database selected, with sockets from dial. Options is one.
type Opener interface {
	Connect(ctx context.Context, dial driver.Dial) (net.Conn, error)
}

// Connect dials o with sockets from dial.
func (o Options) Connect(ctx context.Context, dial driver.Dial) (net.Conn, error) {
	o.DialFunc = dial
	return Dial(ctx, o)
}

// Connector returns the engine's connector for the Redis protocol:
// connections from o, each with a Session.
// Options with Cluster set give a driver.Cluster, whose clients route
// each command to the node that serves its key's slot.
func Connector(o Opener) driver.Connector {
	if co, ok := o.(Options); ok && co.Cluster {
		return clusterConnector{newClusterState(co)}
	}
	return connector{o}
}

type connector struct{ o Opener }

func (c connector) Connect(ctx context.Context, dial driver.Dial, _ *script.Program, _ func(string, string)) (net.Conn, driver.Driver, error) {
	conn, err := c.o.Connect(ctx, dial)
	if err != nil {
		return nil, nil, err
	}
	return conn, NewSession(), nil
}
