package pgsql

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// libpqOpts are the libpq connection options that pgx does not know.
// pgconn.ParseConfig files every key it does not know under
// RuntimeParams, which go to the server in the startup message, and the
// server refuses the connection (FATAL: unrecognized configuration
// parameter "tcp_user_timeout"). takeLibpqOpts removes them from there.
type libpqOpts struct {
	sock    sockOpts
	balance bool // load_balance_hosts=random
	sockSet bool // any socket option was given
}

// sockOpts are the socket options of a TCP connection, as libpq's
// tcp_user_timeout and keepalives* set them. A zero duration or count
// leaves the setting as the dialer made it.
type sockOpts struct {
	userTimeout time.Duration // TCP_USER_TIMEOUT; 0: not set
	noKeepalive bool          // keepalives=0
	idle        time.Duration // TCP_KEEPIDLE
	interval    time.Duration // TCP_KEEPINTVL
	count       int           // TCP_KEEPCNT
	keepSet     bool          // a keepalives* option was given
}

// takeLibpqOpts removes the options from params and parses them, with
// libpq's rules: integers as strtol reads them (surrounding spaces
// allowed), negative values taken as 0, which leaves the system's (here:
// the dialer's) setting.
func takeLibpqOpts(params map[string]string) (libpqOpts, error) {
	var o libpqOpts
	ints := []struct {
		key  string
		unit time.Duration
		dst  *time.Duration
	}{
		{"tcp_user_timeout", time.Millisecond, &o.sock.userTimeout},
		{"keepalives_idle", time.Second, &o.sock.idle},
		{"keepalives_interval", time.Second, &o.sock.interval},
	}
	for _, f := range ints {
		v, ok, err := takeInt(params, f.key)
		if err != nil {
			return o, err
		}
		*f.dst = time.Duration(v) * f.unit
		o.sockSet = o.sockSet || ok
		o.sock.keepSet = o.sock.keepSet || ok && f.key != "tcp_user_timeout"
	}
	for _, key := range []string{"keepalives", "keepalives_count"} {
		v, ok, err := takeInt(params, key)
		if err != nil {
			return o, err
		}
		if key == "keepalives" {
			o.sock.noKeepalive = ok && v == 0
		} else {
			o.sock.count = v
		}
		o.sockSet = o.sockSet || ok
		o.sock.keepSet = o.sock.keepSet || ok
	}
	var err error
	o.balance, err = takeBalance(params)
	return o, err
}

// takeInt removes key from params and parses its value as libpq's
// parse_int_param does; negative values become 0, as libpq's setters
// make them.
func takeInt(params map[string]string, key string) (int, bool, error) {
	s, ok := params[key]
	if !ok {
		return 0, false, nil
	}
	delete(params, key)
	v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
	if err != nil {
		return 0, false, &optionError{fmt.Sprintf(`invalid integer value "%s" for connection option "%s"`, s, key)}
	}
	return max(int(v), 0), true, nil
}

// takeBalance removes load_balance_hosts from params (or reads
// PGLOADBALANCEHOSTS, which pgx does not know either) and reports whether
// it asks for random.
func takeBalance(params map[string]string) (bool, error) {
	s, ok := params["load_balance_hosts"]
	delete(params, "load_balance_hosts")
	if !ok {
		s = os.Getenv("PGLOADBALANCEHOSTS")
	}
	switch s {
	case "", "disable":
		return false, nil
	case "random":
		return true, nil
	}
	return false, &optionError{fmt.Sprintf(`invalid load_balance_hosts value: "%s"`, s)}
}

// optionError is an invalid value of an option ParseConfig reads itself,
// worded as libpq words it. ConfigErrorReason returns its text.
type optionError struct{ msg string }

func (e *optionError) Error() string { return e.msg }

// errNoSocket says that a dial function returned a connection whose socket
// cannot be reached to set options on.
var errNoSocket = errors.New("the connection's socket cannot be reached")
