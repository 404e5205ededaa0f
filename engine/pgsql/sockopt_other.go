//go:build !linux

package pgsql

import (
	"net"
	"time"
)

// setUserTimeout does nothing: TCP_USER_TIMEOUT is Linux's, and libpq
// ignores tcp_user_timeout where the system lacks it.
func setUserTimeout(*net.TCPConn, time.Duration) error { return nil }
