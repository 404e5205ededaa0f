package resp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Client is a small synchronous client on a connection the caller owns, for
// setup, checks and probes (the benchmark's clients run in the engine's
// event loops instead). Commands are queued by Send and written by Flush;
// replies are read in order by Reply. Call does both for one command.
// A Client is not safe for concurrent use.
type Client struct {
	c          net.Conn
	r          Reader
	in         []byte // in[start:end] is received but not yet parsed
	start, end int
	out        []byte
	timeout    time.Duration
}

// NewClient returns a client on c.
func NewClient(c net.Conn) *Client {
	return &Client{c: c, in: make([]byte, 16<<10)}
}

// SetTimeout makes every later Call fail when its round trip takes longer
// than d; 0 (the default) waits as long as the connection's deadline allows.
func (rc *Client) SetTimeout(d time.Duration) { rc.timeout = d }

// Bind makes the connection's reads and writes fail when ctx ends or its
// deadline passes. The returned function undoes that; call it before giving
// the connection back.
func (rc *Client) Bind(ctx context.Context) func() {
	if d, ok := ctx.Deadline(); ok {
		_ = rc.c.SetDeadline(d) // a connection that refuses deadlines just waits
	}
	if ctx.Err() != nil {
		_ = rc.c.SetDeadline(time.Unix(1, 0)) // AfterFunc would do it too late, in a goroutine
	}
	stop := context.AfterFunc(ctx, func() { _ = rc.c.SetDeadline(time.Unix(1, 0)) })
	return func() {
		stop()
		_ = rc.c.SetDeadline(time.Time{})
	}
}

// Send queues one command.
func (rc *Client) Send(args ...string) { rc.out = AppendCommand(rc.out, args...) }

// SendWith queues what appendCmd appends to the output buffer: a command
// built with AppendArrayHeader and AppendBulkString without a []string.
func (rc *Client) SendWith(appendCmd func(out []byte) []byte) { rc.out = appendCmd(rc.out) }

// Flush writes the queued commands.
func (rc *Client) Flush() error {
	_, err := rc.c.Write(rc.out)
	rc.out = rc.out[:0]
	return err
}

// Reply reads the next reply and returns its values and the index of the
// reply proper in them; walk an aggregate with Reader().First and Next.
// They stay valid until the next call. An error reply is returned as a
// value, not as an error.
func (rc *Client) Reply() ([]Value, int, error) {
	for {
		n, err := rc.r.Parse(rc.in[rc.start:rc.end])
		if err != nil {
			return nil, 0, err
		}
		if n > 0 {
			rc.start += n
			return rc.r.Values(), rc.r.Top(), nil
		}
		if err := rc.fill(); err != nil {
			return nil, 0, err
		}
	}
}

// Reader is the reader of the last reply, to walk its elements.
func (rc *Client) Reader() *Reader { return &rc.r }

// fill reads more input, first moving what is unparsed to the front and
// growing the buffer to what the reader says the reply needs.
func (rc *Client) fill() error {
	rc.end = copy(rc.in, rc.in[rc.start:rc.end])
	rc.start = 0
	if need := max(rc.r.Need(), rc.end+1); need > len(rc.in) {
		rc.in = append(rc.in, make([]byte, max(need, 2*len(rc.in))-len(rc.in))...)
	}
	n, err := rc.c.Read(rc.in[rc.end:])
	rc.end += n
	switch {
	case n > 0:
		return nil
	case errors.Is(err, io.EOF):
		return io.ErrUnexpectedEOF
	}
	return err
}

// Call sends one command and returns its reply; an error reply is an error
// naming the command, like `redis CONFIG: ERR unknown command`.
func (rc *Client) Call(args ...string) ([]Value, int, error) {
	if rc.timeout > 0 {
		if err := rc.c.SetDeadline(time.Now().Add(rc.timeout)); err != nil {
			return nil, 0, err
		}
	}
	rc.Send(args...)
	if err := rc.Flush(); err != nil {
		return nil, 0, err
	}
	return rc.ReplyOK(args[0])
}

// ReplyOK is Reply with an error reply turned into an error naming cmd.
func (rc *Client) ReplyOK(cmd string) ([]Value, int, error) {
	vals, top, err := rc.Reply()
	if err != nil {
		return nil, 0, err
	}
	if vals[top].IsError() {
		return nil, 0, fmt.Errorf("redis %s: %s", cmd, vals[top].Bytes)
	}
	return vals, top, nil
}

// Text runs one command and returns its reply as text: a string's content,
// an integer's digits, or the elements of an aggregate joined by newlines
// (CONFIG GET name gives "name\nvalue").
func (rc *Client) Text(args ...string) (string, error) {
	vals, top, err := rc.Call(args...)
	if err != nil {
		return "", err
	}
	v := vals[top]
	switch {
	case v.Kind == KindInt:
		return strconv.FormatInt(v.Int, 10), nil
	case v.IsAggregate():
		var parts []string
		for i := rc.r.First(top); i >= 0; i = rc.r.Next(i) {
			parts = append(parts, string(vals[i].Bytes))
		}
		return strings.Join(parts, "\n"), nil
	}
	return string(v.Bytes), nil
}

// Info runs INFO with the given sections and returns its fields by name.
func (rc *Client) Info(sections ...string) (map[string]string, error) {
	text, err := rc.Text(append([]string{"INFO"}, sections...)...)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.HasPrefix(k, "#") {
			m[k] = v
		}
	}
	return m, nil
}
