package pgsql

import (
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgproto3"
)

// Int8ArrayOID is the type oid of bigint[], for ExecOnce's parameters.
const Int8ArrayOID = 1016

// ExecOnce runs query once on c, before the engine drives it, as an
// unnamed statement of the extended protocol (the engine's own prepared
// statements are untouched), with params in text form of the types oids
// (0: the server infers it), and reads up to ReadyForQuery, so that nothing
// is left unread for the engine. The whole exchange must end by deadline.
// A server error is returned as a *ServerError; the connection is then
// still usable.
func (c *Conn) ExecOnce(query string, oids []uint32, params [][]byte, deadline time.Time) error {
	if err := c.Net.SetDeadline(deadline); err != nil {
		return err
	}
	fe := pgproto3.NewFrontend(c.Net, c.Net)
	fe.Send(&pgproto3.Parse{Query: query, ParameterOIDs: oids})
	fe.Send(&pgproto3.Bind{Parameters: params})
	fe.Send(&pgproto3.Execute{})
	fe.Send(&pgproto3.Sync{})
	if err := fe.Flush(); err != nil {
		return err
	}
	var failed error
	for {
		msg, err := fe.Receive()
		if err != nil {
			return err
		}
		switch m := msg.(type) {
		case *pgproto3.ErrorResponse:
			failed = &ServerError{Severity: m.Severity, Code: m.Code, Message: m.Message, Detail: m.Detail, Hint: m.Hint, Where: m.Where}
		case *pgproto3.ReadyForQuery:
			c.TxStatus = m.TxStatus
			return errors.Join(failed, c.Net.SetDeadline(time.Time{}))
		}
	}
}
