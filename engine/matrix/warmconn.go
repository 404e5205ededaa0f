package matrix

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/script"
)

// Every sample opens its own connections, and a new PostgreSQL backend's
// first statement is expensive: it loads the catalog entries of gbench.items, its
// index and mget, compiles mget's PL/pgSQL and plans its query. With 256
// fresh backends on two cores that takes seconds, all of it inside the
// sample's clock, and the sample would measure a server warming up. So
// each connection runs its path's statement once while it is being opened,
// before the engine starts the clock: "every connection runs once before
// it is measured".

// warmTimeout bounds the warm-up exchange of one connection.
const warmTimeout = 60 * time.Second

// warmSQL opens connections like pg, then runs query (the path's
// statement, $1 a bigint[]) once on each with the keys 1..n, as an unnamed
// statement so that the engine's own prepared statements are untouched.
type warmSQL struct {
	pg    *pgsql.Config
	query string
	keys  []byte // "{1,2,...,n}"
}

// newWarmSQL returns the warming connector for prog, whose only SQL
// command reads the bigint[] list of keys as $1; nil when prog has no
// such command.
func newWarmSQL(pg *pgsql.Config, prog *script.Program, n int) *warmSQL {
	for _, c := range prog.Scripts[0].Commands {
		if c.SQL != nil && len(c.SQL.Params) == 1 {
			ks := make([]string, n)
			for i := range ks {
				ks[i] = strconv.Itoa(i + 1)
			}
			return &warmSQL{pg: pg, query: c.SQL.Query, keys: []byte("{" + strings.Join(ks, ",") + "}")}
		}
	}
	return nil
}

func (w *warmSQL) Connect(ctx context.Context, dial engine.DialFunc) (*pgsql.Conn, error) {
	c, err := w.pg.Connect(ctx, dial)
	if err != nil {
		return nil, err
	}
	if err := c.ExecOnce(w.query, []uint32{pgsql.Int8ArrayOID}, [][]byte{w.keys}, time.Now().Add(warmTimeout)); err != nil {
		c.Net.Close()
		return nil, fmt.Errorf("warming up the connection: %w", err)
	}
	return c, nil
}

// respConnector opens the engine's Redis connections, each checked with
// a PING before the clock starts (Redis keeps no per-connection cache to
// warm; the round trip makes sure the connection is served).
type respConnector struct{ o resp.Options }

func (c respConnector) Connect(ctx context.Context, dial engine.DialFunc) (net.Conn, error) {
	o := c.o
	o.DialFunc = dial
	conn, err := resp.Dial(ctx, o)
	if err != nil {
		return nil, err
	}
	rc := resp.NewClient(conn)
	rc.SetTimeout(redisTimeout)
	if _, _, err := rc.Call("PING"); err != nil {
		conn.Close()
		return nil, err
	}
	if err := conn.SetDeadline(time.Time{}); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
