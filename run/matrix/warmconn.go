package matrix

import (
	"context"
	"errors"
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

// warmSQL opens connections like pg, then runs each SQL statement of the
// program once on each, as unnamed statements so that the engine's own
// prepared statements are untouched: the list :keys bound as the keys
// 1..n (an int8[]), any other variable as NULL. A statement that reads
// only :keys (the read matrix's) runs as it is; one that reads other
// variables runs inside BEGIN and ROLLBACK, so that a write with NULLs
// leaves nothing behind, and the error it may get (a NULL where a value
// is needed) is no failure: the statement was parsed and planned, which
// is the cost to take out of the sample.
type warmSQL struct {
	pg    *pgsql.Config
	stmts []warmStmt
}

type warmStmt struct {
	query  string
	oids   []uint32
	params [][]byte
	tx     bool // run inside BEGIN ... ROLLBACK
}

// newWarmSQL returns the warming connector for prog, whose list of keys
// per request is n (0 for none); nil when prog has no SQL.
func newWarmSQL(pg *pgsql.Config, prog *script.Program, n int) *warmSQL {
	ks := make([]string, n)
	for i := range ks {
		ks[i] = strconv.Itoa(i + 1)
	}
	keys := []byte("{" + strings.Join(ks, ",") + "}")
	slot := prog.Syms.Slot("keys")
	w := &warmSQL{pg: pg}
	for _, sc := range prog.Scripts {
		for _, c := range sc.Commands {
			if c.SQL == nil {
				continue
			}
			st := warmStmt{query: c.SQL.Query, oids: make([]uint32, len(c.SQL.Params)), params: make([][]byte, len(c.SQL.Params))}
			for i, p := range c.SQL.Params {
				if p == slot && n > 0 {
					st.oids[i], st.params[i] = pgsql.Int8ArrayOID, keys
				} else {
					st.tx = true
				}
			}
			w.stmts = append(w.stmts, st)
		}
	}
	if len(w.stmts) == 0 {
		return nil
	}
	return w
}

func (w *warmSQL) Connect(ctx context.Context, dial engine.DialFunc) (*pgsql.Conn, error) {
	c, err := w.pg.Connect(ctx, dial)
	if err != nil {
		return nil, err
	}
	deadline := time.Now().Add(warmTimeout)
	for _, st := range w.stmts {
		if err := st.run(c, deadline); err != nil {
			c.Net.Close()
			return nil, fmt.Errorf("warming up the connection: %w", err)
		}
	}
	return c, nil
}

// run runs the statement once; a server error inside the transaction is
// no failure.
func (st *warmStmt) run(c *pgsql.Conn, deadline time.Time) error {
	if !st.tx {
		return c.ExecOnce(st.query, st.oids, st.params, deadline)
	}
	if err := c.ExecOnce("BEGIN", nil, nil, deadline); err != nil {
		return err
	}
	err := c.ExecOnce(st.query, st.oids, st.params, deadline)
	var se *pgsql.ServerError
	if err != nil && !errors.As(err, &se) {
		return err
	}
	return c.ExecOnce("ROLLBACK", nil, nil, deadline)
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
