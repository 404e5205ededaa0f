package resp

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// params applies the query parameters of a URL.
func (p *urlParser) params(query string) error {
	for part := range strings.SplitSeq(query, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return errors.New("invalid percent-encoding in a parameter name")
		}
		val, err := url.QueryUnescape(v)
		if err != nil {
			return fmt.Errorf("invalid percent-encoding in parameter %q", key)
		}
		if err := p.param(key, val); err != nil {
			return err
		}
	}
	return nil
}

func (p *urlParser) param(key, val string) error {
	if ok, err := p.tlsParam(key, val); ok {
		return err
	}
	switch key {
	case "db":
		return p.db(val)
	case "user":
		return p.user(val)
	case "password":
		return p.password(val)
	case "protocol":
		return p.protocol(val)
	case "dial_timeout", "connect_timeout":
		return p.dialTimeout(key, val)
	case "read_timeout":
		return timeout(&p.o.ReadTimeout, key, val)
	case "insecure_skip_verify":
		return p.skipVerify(val)
	case "sentinel_user", "sentinel_password":
		return p.sentinelAuth(key, val)
	case "cluster":
		return p.clusterParam(val)
	case "rfr":
		return p.rfr(val)
	case "split":
		return p.split(val)
	}
	return fmt.Errorf("unknown parameter %q (want db, user, password, protocol, "+
		"dial_timeout, connect_timeout, read_timeout, insecure_skip_verify, "+
		"tls_ca_cert, tls_ca_cert_dir, tls_cert, tls_key, tls_sni, tls_ciphers, "+
		"tls_min_version, tls_max_version, cluster, rfr, split, sentinel_user or sentinel_password)", key)
}

// dialTimeout sets the connect timeout from dial_timeout or from
// connect_timeout, its name in libpq; giving both is refused rather than
// one silently winning.
func (p *urlParser) dialTimeout(key, val string) error {
	set := &p.dialSet
	if key == "connect_timeout" {
		set = &p.connectSet
	}
	if *set {
		return fmt.Errorf("%s given twice", key)
	}
	*set = true
	if p.dialSet && p.connectSet {
		return errors.New("connect_timeout and dial_timeout are the same setting: give one of them")
	}
	return timeout(&p.o.DialTimeout, key, val)
}

func (p *urlParser) sentinelAuth(key, val string) error {
	if p.o.MasterName == "" {
		return fmt.Errorf("%s needs a redis-sentinel:// URL", key)
	}
	dst := &p.o.SentinelUsername
	if key == "sentinel_password" {
		dst = &p.o.SentinelPassword
	}
	*dst = val
	return nil
}

func (p *urlParser) user(val string) error {
	if p.userSet {
		return errors.New("user name given twice")
	}
	p.o.Username, p.userSet = val, true
	return nil
}

func (p *urlParser) password(val string) error {
	if p.pwSet {
		return errors.New("password given twice")
	}
	p.o.Password, p.pwSet = val, true
	return nil
}

func (p *urlParser) protocol(val string) error {
	switch val {
	case "2", "3":
		p.o.Protocol = int(val[0] - '0')
		return nil
	}
	return fmt.Errorf("invalid protocol %q: want 2 or 3", val)
}

func (p *urlParser) skipVerify(val string) error {
	if p.o.TLS == nil {
		return errors.New("insecure_skip_verify needs a rediss:// URL")
	}
	b, err := strconv.ParseBool(val)
	if err != nil {
		return fmt.Errorf("invalid insecure_skip_verify %q: want true or false", val)
	}
	p.o.TLS.InsecureSkipVerify = b
	return nil
}

// timeout parses a Go duration ("1.5s", "200ms") or a number of seconds.
func timeout(d *time.Duration, key, val string) error {
	v, err := time.ParseDuration(val)
	if err != nil {
		secs, ferr := strconv.ParseFloat(val, 64)
		if ferr != nil || !(secs <= 1<<31) { // also rejects NaN and inf
			return fmt.Errorf("invalid %s %q: want a duration such as 5s", key, val)
		}
		v = time.Duration(secs * float64(time.Second))
	}
	if v < 0 {
		return fmt.Errorf("invalid %s %q: must not be negative", key, val)
	}
	*d = v
	return nil
}
