package pgsql

import (
	"context"
	"fmt"
	"net"
)

// withSockOpts wraps dial so that every TCP socket it opens carries o
// before the startup exchange begins, as libpq sets its options right
// after connect(). Unix-domain sockets are left alone, as libpq leaves
// them.
func withSockOpts(dial DialFunc, o sockOpts) DialFunc {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if err := o.apply(c); err != nil {
			c.Close()
			return nil, err
		}
		return c, nil
	}
}

// apply sets o on the TCP socket under c.
func (o sockOpts) apply(c net.Conn) error {
	tc, err := tcpConn(c)
	if err != nil || tc == nil {
		return err
	}
	if o.keepSet {
		if err := tc.SetKeepAliveConfig(o.keepAliveConfig()); err != nil {
			return fmt.Errorf("setting TCP keepalives: %w", err)
		}
	}
	if o.userTimeout > 0 {
		if err := setUserTimeout(tc, o.userTimeout); err != nil {
			return fmt.Errorf("setsockopt(TCP_USER_TIMEOUT) failed: %w", err)
		}
	}
	return nil
}

// keepAliveConfig maps libpq's keepalives options on net's: an option not
// given (or 0) is -1, which leaves the socket's setting as it is.
func (o sockOpts) keepAliveConfig() net.KeepAliveConfig {
	cfg := net.KeepAliveConfig{Enable: !o.noKeepalive, Idle: -1, Interval: -1, Count: -1}
	if o.idle > 0 {
		cfg.Idle = o.idle
	}
	if o.interval > 0 {
		cfg.Interval = o.interval
	}
	if o.count > 0 {
		cfg.Count = o.count
	}
	return cfg
}

// tcpConn finds the *net.TCPConn under c through NetConn methods, which
// tls.Conn, keptConn and the engine's own connections have. It returns nil
// for a Unix-domain socket, and an error for a connection whose socket it
// cannot find.
func tcpConn(c net.Conn) (*net.TCPConn, error) {
	for range 8 {
		switch v := c.(type) {
		case *net.TCPConn:
			return v, nil
		case *net.UnixConn:
			return nil, nil
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
			continue
		}
		break
	}
	return nil, fmt.Errorf("cannot set socket options: %w (a %T)", errNoSocket, c)
}
