package pgsql

import (
	"context"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Client is a synchronous connection for the work around a benchmark:
// initialization, pgbench's pre-run statements, loading and checking a
// dataset, reading a server's settings and counters. The measured path
// never uses it (the engine drives a Conn through a Session). A Client is
// used by one goroutine at a time; Close it when done.
//
// Rows come back as text, one []byte per column, nil for NULL; they stay
// valid after the call.
type Client struct{ pc *pgconn.PgConn }

// Open connects a Client.
func (c *Config) Open(ctx context.Context) (*Client, error) {
	pc, err := pgconn.ConnectConfig(ctx, c.connectConfig(nil))
	if err != nil {
		return nil, err
	}
	return &Client{pc: pc}, nil
}

// OpenNotices is Open with the server's notices written to w the way
// libpq's default notice processor prints them ("NOTICE:  ..."), as
// pgbench shows them during -i and its pre-run vacuum. Notices are
// written on the goroutine using the Client; write errors are dropped.
func (c *Config) OpenNotices(ctx context.Context, w io.Writer) (*Client, error) {
	cfg := c.connectConfig(nil)
	cfg.OnNotice = noticeWriter(w)
	pc, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Client{pc: pc}, nil
}

// Open parses conninfo and connects a Client.
func Open(ctx context.Context, conninfo string) (*Client, error) {
	cfg, err := ParseConfig(conninfo)
	if err != nil {
		return nil, err
	}
	return cfg.Open(ctx)
}

// closeTimeout bounds the goodbye of Close: a server that does not answer
// does not hold the caller.
const closeTimeout = 5 * time.Second

// Close says goodbye to the server and closes the connection.
func (c *Client) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	return c.pc.Close(ctx)
}

// Exec runs sql, one or more statements, with the simple query protocol
// (as libpq's PQexec does) and discards their rows. The first statement
// that fails ends it, with a *ServerError (see AsServerError).
func (c *Client) Exec(ctx context.Context, sql string) error {
	_, err := c.pc.Exec(ctx, sql).ReadAll()
	return err
}

// SimpleQuery is Exec returning the rows of the last statement.
func (c *Client) SimpleQuery(ctx context.Context, sql string) ([][][]byte, error) {
	res, err := c.pc.Exec(ctx, sql).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) == 0 {
		return nil, nil
	}
	return res[len(res)-1].Rows, nil
}

// Query runs one statement with the extended protocol, params in text form
// bound to $1, $2, ... (their types as the server infers them: write
// $1::bigint[] where the context does not say), and returns its rows.
func (c *Client) Query(ctx context.Context, sql string, params ...string) ([][][]byte, error) {
	values := make([][]byte, len(params))
	for i, p := range params {
		values[i] = []byte(p)
	}
	res := c.pc.ExecParams(ctx, sql, values, nil, nil, nil).Read()
	return res.Rows, res.Err
}

// QueryText is Query with the values as strings, NULL as "".
func (c *Client) QueryText(ctx context.Context, sql string, params ...string) ([][]string, error) {
	rows, err := c.Query(ctx, sql, params...)
	if err != nil {
		return nil, err
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		out[i] = make([]string, len(r))
		for j, v := range r {
			out[i][j] = string(v)
		}
	}
	return out, nil
}

// Parameter returns a parameter the server reported (server_version,
// application_name, ...), "" when it reported none of that name.
func (c *Client) Parameter(name string) string { return c.pc.ParameterStatus(name) }

// PID is the server process serving the connection.
func (c *Client) PID() uint32 { return c.pc.PID() }

// copyFrom runs a COPY ... FROM STDIN statement with r's bytes as its data
// and returns the rows copied.
func (c *Client) copyFrom(ctx context.Context, r io.Reader, sql string) (int64, error) {
	tag, err := c.pc.CopyFrom(ctx, r, sql)
	return tag.RowsAffected(), err
}

// Ping checks that the server still answers on the connection.
func (c *Client) Ping(ctx context.Context) error { return c.pc.Ping(ctx) }

// WithDatabase returns a copy of c that connects to the database db.
func (c *Config) WithDatabase(db string) *Config {
	cfg := c.pg.Copy()
	cfg.Database = db
	return &Config{pg: cfg, opts: c.opts, conninfo: c.conninfo}
}

// Password returns the password the configuration connects with ("" when
// none): for checks that it is never printed.
func (c *Config) Password() string { return c.pg.Password }
