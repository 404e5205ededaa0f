package resp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// Dial connects to the server o describes and prepares the connection:
// with o.Protocol 3 it sends HELLO 3 (with AUTH when o.Username or
// o.Password is set), otherwise AUTH [user] password when either is set,
// then SELECT o.DB when it is not 0. The commands go out in one write and every reply is
// checked; a refusal reads like `redis AUTH failed: WRONGPASS ...`.
//
// With o.MasterName set (a redis-sentinel:// URL), Dial first asks the
// Sentinels, in order, where that master is (SENTINEL
// get-master-addr-by-name), connects there and checks with ROLE that the
// server is a master; a Sentinel that is down, does not know the master or
// names a server that is no longer one is passed over for the next. Each
// call asks again, so a client that connects again after a failover finds
// the new master. Only the master's socket is opened by o.DialFunc.
//
// The returned connection has no deadline, nothing of it is buffered and the
// caller must close it. Errors never contain the password. Dial is safe for
// concurrent use; o.TLS is only read.
func Dial(ctx context.Context, o Options) (net.Conn, error) {
	if o.MasterName != "" {
		return dialSentinel(ctx, o)
	}
	return dialServer(ctx, o)
}

// dialServer connects to o.Addr and runs the handshake.
func dialServer(ctx context.Context, o Options) (net.Conn, error) {
	conn, err := dialTransport(ctx, o)
	if err != nil {
		return nil, fmt.Errorf("redis connect to %s: %w", o.Redacted(), err)
	}
	if err := handshake(ctx, conn, o); err != nil {
		conn.Close()
		return nil, tlsRefusal(o, err)
	}
	return conn, nil
}

func dialTransport(ctx context.Context, o Options) (net.Conn, error) {
	if o.Network != "tcp" && o.Network != "unix" {
		return nil, fmt.Errorf("unsupported network %q (want tcp or unix)", o.Network)
	}
	if o.DialFunc != nil {
		return dialWith(ctx, o)
	}
	d := &net.Dialer{Timeout: o.DialTimeout}
	if o.TLS == nil || o.Network != "tcp" {
		return d.DialContext(ctx, o.Network, o.Addr)
	}
	td := &tls.Dialer{NetDialer: d, Config: o.TLS}
	return td.DialContext(ctx, "tcp", o.Addr)
}

// dialWith opens the connection with o.DialFunc, then TLS on top of it.
func dialWith(ctx context.Context, o Options) (net.Conn, error) {
	if o.DialTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.DialTimeout)
		defer cancel()
	}
	c, err := o.DialFunc(ctx, o.Network, o.Addr)
	if err != nil || o.TLS == nil || o.Network != "tcp" {
		return c, err
	}
	cfg := o.TLS.Clone()
	if cfg.ServerName == "" {
		host, _, _ := net.SplitHostPort(o.Addr)
		cfg.ServerName = host
	}
	tc := tls.Client(c, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return tc, nil
}

// exchangeIOError marks a failure to write the setup commands or read
// their replies, as opposed to a refusal in a reply.
type exchangeIOError struct{ err error }

func (e exchangeIOError) Error() string { return e.err.Error() }
func (e exchangeIOError) Unwrap() error { return e.err }

// tlsRefusal words an I/O failure of the first exchange over TLS: with
// TLS 1.3 it is how a server refuses the client's certificate, or its
// absence, after the client has finished its part of the handshake.
func tlsRefusal(o Options, err error) error {
	var ioe exchangeIOError
	if o.TLS == nil || !errors.As(err, &ioe) {
		return err
	}
	hint := ""
	if len(o.TLS.Certificates) == 0 {
		hint = " (a server with tls-auth-clients wants tls_cert and tls_key)"
	}
	return fmt.Errorf("redis TLS handshake with %s: the server refused the connection: %w%s", o.Redacted(), err, hint)
}

// handshakeCommands returns the setup commands for o, pipelined, and their
// names for error messages.
func handshakeCommands(o Options) ([]byte, []string) {
	var b []byte
	var names []string
	auth := o.Password != "" || o.Username != ""
	switch {
	case o.Protocol == 3 && auth:
		user := o.Username
		if user == "" {
			user = "default"
		}
		b, names = AppendCommand(b, "HELLO", "3", "AUTH", user, o.Password), append(names, "HELLO")
	case o.Protocol == 3:
		b, names = AppendCommand(b, "HELLO", "3"), append(names, "HELLO")
	case o.Username != "":
		b, names = AppendCommand(b, "AUTH", o.Username, o.Password), append(names, "AUTH")
	case auth:
		b, names = AppendCommand(b, "AUTH", o.Password), append(names, "AUTH")
	}
	if o.DB != 0 {
		b, names = AppendCommand(b, "SELECT", strconv.Itoa(o.DB)), append(names, "SELECT")
	}
	if o.readOnly {
		b, names = AppendCommand(b, "READONLY"), append(names, "READONLY")
	}
	if len(names) == 0 && o.TLS != nil && o.Network == "tcp" {
		// With TLS 1.3 a server refuses the client's certificate (or its
		// absence) after the client has finished the handshake: one
		// exchange makes Dial, not the run's first read, see the refusal.
		b, names = AppendCommand(b, "PING"), append(names, "PING")
	}
	return b, names
}

// handshake sends the setup commands and checks their replies, within
// o.ReadTimeout and ctx.
func handshake(ctx context.Context, conn net.Conn, o Options) error {
	cmds, names := handshakeCommands(o)
	if len(names) == 0 {
		return nil
	}
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	if o.ReadTimeout > 0 {
		conn.SetDeadline(time.Now().Add(o.ReadTimeout))
	}
	err := exchange(conn, cmds, names, o.Password)
	if !stop() || ctx.Err() != nil {
		// The deadline was (or is being) moved to interrupt us.
		return fmt.Errorf("redis %s: %w", names[0], ctx.Err())
	}
	if err != nil {
		return err
	}
	return conn.SetDeadline(time.Time{})
}

func exchange(conn net.Conn, cmds []byte, names []string, password string) error {
	if _, err := conn.Write(cmds); err != nil {
		return fmt.Errorf("redis %s: %w", names[0], exchangeIOError{err})
	}
	rr := replyReader{conn: conn}
	for _, name := range names {
		v, err := rr.next()
		if err != nil {
			return fmt.Errorf("redis %s: %w", name, exchangeIOError{err})
		}
		if v.IsError() {
			return fmt.Errorf("redis %s failed: %s", name, hide(string(v.Bytes), password))
		}
	}
	if len(rr.buf) > rr.off {
		return fmt.Errorf("redis %s: unexpected data after the replies", names[len(names)-1])
	}
	return nil
}

// hide replaces the password in server-supplied text, in case a server
// echoes it. Passwords shorter than 4 bytes are left alone: hiding every
// "a" in a message would garble it and protect nothing.
func hide(s, password string) string {
	if len(password) < 4 {
		return s
	}
	return strings.ReplaceAll(s, password, redacted)
}

// maxHandshakeReply bounds the buffer replyReader grows for one reply.
const maxHandshakeReply = 1 << 20

// replyReader reads whole replies from a blocking connection. It serves
// Dial's few setup replies; the engine parses from its own buffers.
type replyReader struct {
	conn net.Conn
	buf  []byte // received bytes; buf[off:] are not consumed yet
	off  int
	r    Reader
}

// next returns the next reply's top value, valid until the next call.
func (rr *replyReader) next() (*Value, error) {
	for {
		n, err := rr.r.Parse(rr.buf[rr.off:])
		if err != nil {
			return nil, err
		}
		if n > 0 {
			rr.off += n
			return &rr.r.Values()[rr.r.Top()], nil
		}
		if err := rr.fill(); err != nil {
			return nil, err
		}
	}
}

// fill reads more bytes, growing the buffer to what the parser needs.
func (rr *replyReader) fill() error {
	n := copy(rr.buf, rr.buf[rr.off:])
	rr.buf, rr.off = rr.buf[:n], 0
	need := max(rr.r.Need(), n+4096)
	if need > maxHandshakeReply {
		return fmt.Errorf("reply longer than %d bytes", maxHandshakeReply)
	}
	if need > cap(rr.buf) {
		rr.buf = append(make([]byte, 0, need), rr.buf...)
	}
	m, err := rr.conn.Read(rr.buf[n:cap(rr.buf)])
	rr.buf = rr.buf[:n+m]
	switch {
	case m > 0:
		return nil
	case errors.Is(err, io.EOF):
		return errors.New("connection closed by the server")
	case err == nil:
		return io.ErrNoProgress
	}
	return err
}
