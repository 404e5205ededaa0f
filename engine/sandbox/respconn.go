package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// redisTimeout bounds one exchange with a starting server.
const redisTimeout = 2 * time.Second

// redisConn is the least RESP2 the sandbox needs to check on its own server:
// commands out, and flat replies (simple, bulk, error, array of bulk) in.
// engine/resp is the real client; this keeps the sandbox free of it.
type redisConn struct {
	c net.Conn
	r *bufio.Reader
}

// dialRedis connects to addr.
func dialRedis(ctx context.Context, addr string) (*redisConn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, err
	}
	return &redisConn{c: c, r: bufio.NewReader(c)}, nil
}

// close closes the connection.
func (rc *redisConn) close() { _ = rc.c.Close() } // nothing was buffered for writing

// call sends a command and returns its reply: one element for a simple or
// bulk string, the elements of an array.
func (rc *redisConn) call(args ...string) ([]string, error) {
	if err := rc.c.SetDeadline(time.Now().Add(redisTimeout)); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	if _, err := io.WriteString(rc.c, b.String()); err != nil {
		return nil, err
	}
	return rc.reply()
}

// info returns INFO server as a map.
func (rc *redisConn) info() (map[string]string, error) {
	reply, err := rc.call("INFO", "server")
	if err != nil {
		return nil, err
	}
	return parseInfo(reply[0]), nil
}

// reply reads one flat reply.
func (rc *redisConn) reply() ([]string, error) {
	kind, line, err := rc.line()
	if err != nil {
		return nil, err
	}
	switch kind {
	case '+':
		return []string{line}, nil
	case '-':
		return nil, errors.New(line)
	case '$':
		s, err := rc.bulk(line)
		return []string{s}, err
	case '*':
		return rc.array(line)
	}
	return nil, fmt.Errorf("unexpected RESP reply %q", string(kind)+line)
}

// array reads n bulk strings, n given as text.
func (rc *redisConn) array(count string) ([]string, error) {
	n, err := strconv.Atoi(count)
	if err != nil || n < 0 {
		return nil, fmt.Errorf("bad RESP array length %q", count)
	}
	out := make([]string, n)
	for i := range out {
		kind, line, err := rc.line()
		if err != nil {
			return nil, err
		}
		if kind != '$' {
			return nil, fmt.Errorf("unexpected RESP array element %q", string(kind)+line)
		}
		if out[i], err = rc.bulk(line); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// bulk reads a bulk string body of the given length; -1 is nil, read as "".
func (rc *redisConn) bulk(length string) (string, error) {
	n, err := strconv.Atoi(length)
	if err != nil || n < -1 {
		return "", fmt.Errorf("bad RESP bulk length %q", length)
	}
	if n == -1 {
		return "", nil
	}
	buf := make([]byte, n+2)
	if _, err := io.ReadFull(rc.r, buf); err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// line reads one CRLF-terminated line and splits off its type byte.
func (rc *redisConn) line() (byte, string, error) {
	s, err := rc.r.ReadString('\n')
	if err != nil {
		return 0, "", err
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	if s == "" {
		return 0, "", errors.New("empty RESP line")
	}
	return s[0], s[1:], nil
}
