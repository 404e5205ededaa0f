package resp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// DefaultSentinelPort is the port of a Sentinel given without one.
const DefaultSentinelPort = 26379

// dialSentinel finds the master o.MasterName through o.Sentinels, in order,
// and connects to it. A Sentinel that cannot be reached or does not know
// the master, and a master that does not say it is one (ROLE), are passed
// over for the next Sentinel; the error says what each answered.
func dialSentinel(ctx context.Context, o Options) (net.Conn, error) {
	var errs []string
	for _, s := range o.Sentinels {
		addr, err := askSentinel(ctx, o, s)
		if err == nil {
			mo := o
			mo.Sentinels, mo.MasterName, mo.Addr = nil, "", addr
			var conn net.Conn
			if conn, err = dialMaster(ctx, mo); err == nil {
				return conn, nil
			}
			err = fmt.Errorf("master at %s: %w", addr, err)
		}
		errs = append(errs, fmt.Sprintf("sentinel %s: %v", s, err))
		if ctx.Err() != nil {
			break
		}
	}
	return nil, fmt.Errorf("redis sentinel: no master %q found: %s", o.MasterName, strings.Join(errs, "; "))
}

// askSentinel asks the Sentinel at addr where the master o.MasterName is,
// authenticating first with o.SentinelUsername and o.SentinelPassword when
// either is set.
func askSentinel(ctx context.Context, o Options, addr string) (string, error) {
	d := net.Dialer{Timeout: o.DialTimeout}
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	var cmds []byte
	auth := o.SentinelPassword != "" || o.SentinelUsername != ""
	if auth {
		args := []string{"AUTH", o.SentinelPassword}
		if o.SentinelUsername != "" {
			args = []string{"AUTH", o.SentinelUsername, o.SentinelPassword}
		}
		cmds = AppendCommand(cmds, args...)
	}
	cmds = AppendCommand(cmds, "SENTINEL", "get-master-addr-by-name", o.MasterName)
	var reply []string
	err = withDeadline(ctx, conn, o.ReadTimeout, func() error {
		if _, err := conn.Write(cmds); err != nil {
			return err
		}
		rr := replyReader{conn: conn}
		if auth {
			v, err := rr.next()
			if err != nil {
				return err
			}
			if v.IsError() {
				return fmt.Errorf("AUTH failed: %s", hide(string(v.Bytes), o.SentinelPassword))
			}
		}
		reply, err = rr.strings()
		return err
	})
	switch {
	case err != nil:
		return "", err
	case reply == nil:
		return "", fmt.Errorf("does not know a master named %q", o.MasterName)
	case len(reply) != 2:
		return "", fmt.Errorf("unexpected reply %q to SENTINEL get-master-addr-by-name", reply)
	}
	return net.JoinHostPort(reply[0], reply[1]), nil
}

// dialMaster connects to the server a Sentinel named and checks, after
// the handshake, that it says it is a master: right after a failover a
// Sentinel may still name the old master, which then runs as a replica.
func dialMaster(ctx context.Context, o Options) (net.Conn, error) {
	conn, err := dialServer(ctx, o)
	if err != nil {
		return nil, err
	}
	var role []string
	err = withDeadline(ctx, conn, o.ReadTimeout, func() error {
		if _, err := conn.Write(AppendCommand(nil, "ROLE")); err != nil {
			return err
		}
		rr := replyReader{conn: conn}
		if role, err = rr.strings(); err != nil {
			return err
		}
		if len(rr.buf) > rr.off {
			return errors.New("unexpected data after the ROLE reply")
		}
		return nil
	})
	if err == nil && (len(role) == 0 || role[0] != "master") {
		err = fmt.Errorf("the server is not a master (ROLE: %q)", role)
	}
	if err != nil {
		conn.Close()
		return nil, fmt.Errorf("redis ROLE: %w", err)
	}
	return conn, nil
}

// withDeadline runs fn, an exchange on conn, within timeout (0: none) and
// ctx, then clears conn's deadline.
func withDeadline(ctx context.Context, conn net.Conn, timeout time.Duration, fn func() error) error {
	stop := context.AfterFunc(ctx, func() { conn.SetDeadline(time.Unix(1, 0)) })
	if timeout > 0 {
		conn.SetDeadline(time.Now().Add(timeout))
	}
	err := fn()
	if !stop() || ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	return conn.SetDeadline(time.Time{})
}

// strings reads a reply that is an array of strings (nil for a null
// reply), or an error.
func (rr *replyReader) strings() ([]string, error) {
	v, err := rr.next()
	if err != nil {
		return nil, err
	}
	switch {
	case v.Kind == KindNull:
		return nil, nil
	case v.IsError():
		return nil, errors.New(string(v.Bytes))
	case !v.IsAggregate():
		return nil, fmt.Errorf("unexpected %s reply", v.Kind)
	}
	out := []string{}
	vals := rr.r.Values()
	for i := rr.r.First(rr.r.Top()); i >= 0; i = rr.r.Next(i) {
		switch e := vals[i]; e.Kind {
		case KindInt:
			out = append(out, strconv.FormatInt(e.Int, 10))
		case KindBulk, KindSimple, KindVerbatim:
			out = append(out, string(e.Bytes))
		default:
			out = append(out, e.Kind.String())
		}
	}
	return out, nil
}
