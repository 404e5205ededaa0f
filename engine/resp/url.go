package resp

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defaults ParseURL fills in.
const (
	DefaultHost        = "127.0.0.1"
	DefaultPort        = 6379
	DefaultDialTimeout = 5 * time.Second
	DefaultReadTimeout = 3 * time.Second
)

// Options says how to reach and set up a Redis connection. ParseURL builds
// one; Dial uses it. Options is a plain value, safe to copy and to share
// between goroutines as long as TLS is not modified.
type Options struct {
	Network     string        // "tcp" or "unix"
	Addr        string        // "host:port" for tcp, the socket path for unix
	TLS         *tls.Config   // when not nil, the TCP connection uses TLS (rediss://)
	Username    string        // ACL user; empty means the default user
	Password    string        // Dial authenticates when Username or Password is set
	DB          int           // when not 0, Dial selects this database
	Protocol    int           // 3 makes Dial send HELLO 3 (RESP3); 0 or 2 keep RESP2
	DialTimeout time.Duration // limit on connecting, TLS handshake included; 0 means none
	ReadTimeout time.Duration // limit on Dial's AUTH/HELLO/SELECT exchange; 0 means none
	// DialFunc, when set, opens the network connection instead of a
	// net.Dialer (the engine uses it to take sockets over after setup).
	DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

	// MasterName, when set, makes Dial ask Sentinels for the master of
	// that name instead of connecting to Addr (redis-sentinel:// URLs).
	MasterName string
	// Sentinels are the Sentinels' "host:port" addresses, asked in order.
	Sentinels []string
	// SentinelUsername and SentinelPassword authenticate to the Sentinels
	// (Username and Password are the master's).
	SentinelUsername, SentinelPassword string

	// Cluster makes Connector route every command to the node of a Redis
	// Cluster that serves its key's slot (redis+cluster:// URLs, or
	// cluster=yes). The nodes are discovered from Seeds, asked in order;
	// Addr is the first.
	Cluster bool
	Seeds   []string
	// ReadFrom says where a cluster's read commands go (rfr=).
	ReadFrom ReadFrom
	// Split sends a multi-key command whose keys span slots (MGET,
	// EXISTS, DEL, TOUCH, UNLINK, MSET) as one part per slot, merging the
	// replies into one (split=slot); without it such a command is refused.
	Split bool

	// readOnly makes Dial send READONLY: a cluster replica's connection
	// that serves reads.
	readOnly bool
}

// ReadFrom says which nodes of a cluster serve read commands, as
// valkey-benchmark's --rfr.
type ReadFrom uint8

const (
	ReadMasters  ReadFrom = iota // rfr=no: every command goes to the slot's master
	ReadReplicas                 // rfr=yes: reads go to the slot's replicas (its master when it has none)
	ReadAll                      // rfr=all: reads go to the slot's master and replicas in turn
)

func (r ReadFrom) String() string {
	switch r {
	case ReadReplicas:
		return "yes"
	case ReadAll:
		return "all"
	}
	return "no"
}

// ParseURL parses a Redis connection URL:
//
//	redis://[[user]:password@]host[:port][/db][?param=value&...]
//	rediss://...                      the same over TLS
//	unix://[[user]:password@]/path/to/redis.sock[?param=value&...]
//	/path/to/redis.sock[?param=value&...]
//	redis-sentinel://[[user]:password@]host[:port][,host[:port]...]/master[/db][?param=value&...]
//	redis+cluster://[[user]:password@]host[:port][,host[:port]...][?param=value&...]
//	rediss+cluster://...              the same over TLS
//
// A redis+cluster URL lists seed nodes of a Redis Cluster (as does
// redis:// or rediss:// with cluster=yes): the run discovers the cluster's
// slots from the first seed that answers (CLUSTER SHARDS, else CLUSTER
// SLOTS) and sends each command to the node that serves its key's slot.
// A cluster has only database 0.
//
// A redis-sentinel URL lists Sentinels (port 26379 by default) and the
// name of the master they monitor; Dial asks them where the master is on
// every call. Its user and password are the master's; the Sentinels'
// come from the sentinel_user and sentinel_password parameters.
//
// The host defaults to 127.0.0.1, the port to 6379 and db to 0. As with
// redis-cli, userinfo without a colon ("redis://secret@host") is a password.
// Characters such as '@', '?', '/' or '%' in a user name or password must be
// percent-encoded. Parameters, valid with every form:
//
//	db=N                      database to SELECT (not together with a /db path)
//	user=NAME, password=PW    ACL user and password (each given once, here or in userinfo)
//	protocol=2|3              3 switches the connection to RESP3 with HELLO 3
//	dial_timeout=D            connect timeout, a Go duration such as 2s or a number
//	read_timeout=D            of seconds; 0 means none (defaults 5s and 3s)
//	connect_timeout=D         dial_timeout under libpq's name (not both)
//	insecure_skip_verify=true rediss only: do not verify the server certificate
//	tls_ca_cert=FILE          rediss only: trust the CAs of this PEM file (redis-cli --cacert)
//	tls_ca_cert_dir=DIR       rediss only: trust the CAs of the PEM files in DIR (--cacertdir)
//	tls_cert=FILE             rediss only: client certificate, PEM (--cert); needs tls_key
//	tls_key=FILE              rediss only: its private key, PEM (--key)
//	tls_sni=NAME              rediss only: server name sent and verified (--sni)
//	tls_ciphers=A:B           rediss only: TLS 1.2 suites, OpenSSL or IANA names (--tls-ciphers)
//	tls_min_version=1.2|1.3   rediss only: lowest TLS version (default 1.2)
//	tls_max_version=1.2|1.3   rediss only: highest TLS version (default 1.3)
//	cluster=yes|no            redis and rediss: the server is a cluster's seed node
//	rfr=no|yes|all            cluster only: reads go to masters (no), replicas (yes)
//	                          or both (all), as valkey-benchmark --rfr
//	split=slot|no             cluster only: split a multi-key command whose keys
//	                          span slots into one part per slot (memtier's way)
//	sentinel_user=NAME        redis-sentinel only: ACL user and password for the
//	sentinel_password=PW      Sentinels (AUTH before SENTINEL get-master-addr-by-name)
//
// ParseURL reads the TLS files the parameters name; a file that is missing
// or holds no certificate is an error naming the parameter and the file.
// The CAs given replace the system's.
//
// Errors read `invalid redis URL "<url>": <problem>` with the password
// replaced by "xxxxx", as are the values of unknown parameters. (A password
// holding a bare '?' cannot be told apart from a query and may show.)
func ParseURL(s string) (Options, error) {
	p := urlParser{o: Options{DialTimeout: DefaultDialTimeout, ReadTimeout: DefaultReadTimeout}}
	if err := p.parse(splitURL(s)); err != nil {
		return Options{}, fmt.Errorf("invalid redis URL %q: %w", redact(s), err)
	}
	return p.o, nil
}

// urlParts are the pieces of a URL, split without interpreting them so that
// a password can be found and hidden even in a URL that is not valid.
type urlParts struct {
	scheme   string // lower case; "" for a bare path
	raw      string // the scheme as given
	bare     bool   // an absolute socket path without a scheme
	noScheme bool   // neither "://" nor a leading '/'
	hasUser  bool
	userinfo string
	rest     string // host, port and path, or the socket path
	hasQuery bool
	query    string
}

func splitURL(s string) urlParts {
	var u urlParts
	s, u.query, u.hasQuery = strings.Cut(s, "?")
	if strings.HasPrefix(s, "/") {
		u.bare, u.rest = true, s
		return u
	}
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok {
		u.noScheme, rest = true, s
	}
	u.raw, u.scheme = scheme, strings.ToLower(scheme)
	if u.scheme == "unix" && strings.HasPrefix(rest, "/") {
		u.rest = rest // a socket path may contain '@'
		return u
	}
	if at := strings.LastIndexByte(rest, '@'); at >= 0 {
		u.hasUser, u.userinfo, rest = true, rest[:at], rest[at+1:]
	}
	u.rest = rest
	return u
}

type urlParser struct {
	o                     Options
	dbSet, userSet, pwSet bool
	dialSet, connectSet   bool // dial_timeout, connect_timeout given
	clusterScheme         bool // redis+cluster:// or rediss+cluster://
	clusterSet, rfrSet    bool // cluster=, rfr= given
	splitSet              bool // split= given
	tls                   tlsFiles
}

func (p *urlParser) parse(u urlParts) error {
	var err error
	switch {
	case u.noScheme:
		return errors.New("want redis://, rediss://, redis+cluster://, unix:// or an absolute socket path")
	case u.bare:
		err = p.unixPath(u.rest, false)
	case u.scheme == "unix":
		err = p.unixPath(u.rest, true)
	case u.scheme == "redis" || u.scheme == "rediss":
		err = p.tcp(u)
	case u.scheme == "redis-sentinel":
		err = p.sentinel(u)
	case u.scheme == "redis+cluster" || u.scheme == "rediss+cluster":
		err = p.cluster(u)
	default:
		return fmt.Errorf("unsupported scheme %q (want redis, rediss, redis+cluster, rediss+cluster, redis-sentinel or unix)", u.scheme)
	}
	if err != nil {
		return err
	}
	if err := p.userinfo(u); err != nil {
		return err
	}
	if err := p.params(u.query); err != nil {
		return err
	}
	if err := p.checkCluster(); err != nil {
		return err
	}
	return p.loadTLS()
}

func (p *urlParser) tcp(u urlParts) error {
	hostport, path, _ := strings.Cut(u.rest, "/")
	host, port, err := splitHostPort(hostport, DefaultPort)
	if err != nil {
		return err
	}
	p.o.Network, p.o.Addr = "tcp", net.JoinHostPort(host, port)
	if u.scheme == "rediss" {
		p.o.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	if path == "" {
		return nil
	}
	return p.db(path)
}

// splitHostPort splits "host", "host:port", "[v6]" or "[v6]:port", filling
// in the defaults.
func splitHostPort(hp string, defaultPort int) (host, port string, err error) {
	host, port = hp, ""
	if strings.HasPrefix(hp, "[") {
		end := strings.IndexByte(hp, ']')
		if end < 0 {
			return "", "", errors.New("missing ']' after an IPv6 address")
		}
		host, port = hp[1:end], hp[end+1:]
		if port != "" && port[0] != ':' {
			return "", "", fmt.Errorf("unexpected %q after an IPv6 address", port)
		}
		port = strings.TrimPrefix(port, ":")
	} else if i := strings.IndexByte(hp, ':'); i >= 0 {
		host, port = hp[:i], hp[i+1:]
		if strings.Contains(port, ":") {
			return "", "", errors.New("IPv6 addresses must be in brackets, as in [::1]:6379")
		}
	}
	if host == "" {
		host = DefaultHost
	}
	if port == "" {
		return host, strconv.Itoa(defaultPort), nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("invalid port %q", port)
	}
	return host, port, nil
}

// sentinel parses "host[:port][,host[:port]...]/master[/db]".
func (p *urlParser) sentinel(u urlParts) error {
	hosts, path, _ := strings.Cut(u.rest, "/")
	for hp := range strings.SplitSeq(hosts, ",") {
		host, port, err := splitHostPort(hp, DefaultSentinelPort)
		if err != nil {
			return err
		}
		p.o.Sentinels = append(p.o.Sentinels, net.JoinHostPort(host, port))
	}
	name, db, hasDB := strings.Cut(path, "/")
	name, err := url.PathUnescape(name)
	if err != nil {
		return errors.New("invalid percent-encoding in the master name")
	}
	if name == "" {
		return errors.New("a redis-sentinel URL needs the master name, as in redis-sentinel://host:26379/mymaster")
	}
	p.o.Network, p.o.MasterName = "tcp", name
	if !hasDB {
		return nil
	}
	return p.db(db)
}

func (p *urlParser) unixPath(path string, escaped bool) error {
	if !strings.HasPrefix(path, "/") {
		return errors.New("a unix socket needs an absolute path, as in unix:///run/redis.sock")
	}
	if escaped {
		var err error
		if path, err = url.PathUnescape(path); err != nil {
			return errors.New("invalid percent-encoding in the socket path")
		}
	}
	p.o.Network, p.o.Addr = "unix", path
	return nil
}

func (p *urlParser) userinfo(u urlParts) error {
	if !u.hasUser {
		return nil
	}
	user, pw, ok := strings.Cut(u.userinfo, ":")
	if !ok {
		user, pw = "", user
	}
	var err error
	if p.o.Username, err = url.PathUnescape(user); err != nil {
		return errors.New("invalid percent-encoding in the user name")
	}
	if p.o.Password, err = url.PathUnescape(pw); err != nil {
		return errors.New("invalid percent-encoding in the password")
	}
	p.userSet, p.pwSet = user != "", pw != ""
	return nil
}

func (p *urlParser) db(s string) error {
	if p.dbSet {
		return errors.New("database given twice")
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return fmt.Errorf("invalid database %q: want a number from 0", s)
	}
	p.o.DB, p.dbSet = n, true
	return nil
}
