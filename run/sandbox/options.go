package sandbox

import (
	"fmt"
	"io"
	"net/netip"
	"os"
	"regexp"
	"strings"
	"time"
)

// Defaults used when the matching Options field is zero.
const (
	DefaultMaxConnections = 300
	DefaultSharedBuffers  = "128MB"
	DefaultDatabase       = "gbench"
	DefaultUser           = "postgres"
	DefaultStartTimeout   = 60 * time.Second
)

// stopTimeout bounds each polite shutdown before the sandbox sends SIGKILL.
const stopTimeout = 10 * time.Second

// minShmFree is the free space /dev/shm must have to be the default base
// directory; container runtimes often mount a 64MB /dev/shm, too small for a
// cluster with data in it.
const minShmFree = 1 << 30

// Options says what Start starts and how. The zero value of every field but
// Postgres and Redis selects a documented default.
type Options struct {
	// Postgres and Redis select the servers to start; at least one must be set.
	Postgres bool
	Redis    bool

	// MaxConnections is PostgreSQL's max_connections. Size it for the run,
	// e.g. clients+20. Default DefaultMaxConnections.
	MaxConnections int
	// SharedBuffers is PostgreSQL's shared_buffers in server syntax ("1GB").
	// Default DefaultSharedBuffers.
	SharedBuffers string
	// Settings are extra PostgreSQL settings, passed as "-c name=value". They
	// override the durability settings (see DurabilitySettings). The sandbox owns
	// port, listen_addresses, unix_socket_directories and data_directory;
	// max_connections and shared_buffers have their own fields.
	Settings map[string]string
	// RedisSettings are extra redis-server directives, passed as
	// "--name value"; a value with several words ("900 1 300 10" for save)
	// is one directive. The sandbox owns port, bind, dir and daemonize.
	RedisSettings map[string]string
	// Listen are more addresses for the servers to listen on, each with
	// its network (10.231.7.1/30): PostgreSQL listens on each address and
	// trusts connections from its network, Redis binds it and leaves
	// protected mode (which refuses all but loopback clients without a
	// password). For tests whose clients are in network namespaces of
	// their own; without it the servers listen on 127.0.0.1 only.
	Listen []netip.Prefix
	// Database is created for the run. Default DefaultDatabase.
	Database string
	// DurabilityOff turns PostgreSQL's fsync, synchronous_commit and
	// full_page_writes off: a commit waits for no WAL flush and a
	// checkpoint writes no full-page images, so writes get faster and a
	// crash may lose or corrupt the data. The default keeps all three on,
	// as the reference cache benchmark runs (its data and WAL on tmpfs,
	// durability on); see DurabilitySettings.
	DurabilityOff bool

	// BaseDir holds the sandbox directory. Default: /dev/shm when it is a
	// writable tmpfs with at least 1GiB free, else os.TempDir().
	BaseDir string
	// User is the OS account that runs initdb and postgres when gbench runs
	// as root (PostgreSQL refuses to run as root). Default: the Getenv value
	// of GBENCH_SANDBOX_USER, else DefaultUser. Ignored when not root.
	User string
	// StartTimeout bounds the wait for each server to accept connections.
	// Default DefaultStartTimeout.
	StartTimeout time.Duration
	// Log receives one line per step (initdb, start, stop). Nil discards.
	Log io.Writer
	// Getenv reads the environment (PATH, GBENCH_SANDBOX_USER). Default
	// os.Getenv.
	Getenv func(string) string
}

// DurabilitySettings returns the PostgreSQL settings a sandbox passes for
// its durability unless Options.Settings overrides them: fsync,
// synchronous_commit and full_page_writes, all on (PostgreSQL's defaults,
// passed explicitly so that the server reports them as set on the command
// line) or, with on false, all off (Options.DurabilityOff). The map is new
// on each call.
func DurabilitySettings(on bool) map[string]string {
	v := "on"
	if !on {
		v = "off"
	}
	return map[string]string{"fsync": v, "synchronous_commit": v, "full_page_writes": v}
}

// ParseDurability reads a --durability value: "on" or "off".
func ParseDurability(s string) (off bool, err error) {
	switch strings.ToLower(s) {
	case "on":
		return false, nil
	case "off":
		return true, nil
	}
	return false, fmt.Errorf("invalid durability %q: expected on (fsync, synchronous_commit and full_page_writes on, the default) or off (all three off: faster writes, a crash may lose the data)", s)
}

// Setting names as each server spells them; anything else could be read
// as a second option on the command line.
var (
	pgName    = regexp.MustCompile(`^[a-z_][a-z0-9_.]*$`)
	redisName = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)
)

var reservedPG = map[string]string{
	"port":                    "the sandbox picks a free port",
	"listen_addresses":        "the sandbox listens on 127.0.0.1 and Options.Listen",
	"unix_socket_directories": "the sandbox puts the socket in its directory",
	"data_directory":          "the sandbox owns the data directory",
	"max_connections":         "use Options.MaxConnections",
	"shared_buffers":          "use Options.SharedBuffers",
}

var reservedRedis = map[string]string{
	"port":      "the sandbox picks a free port",
	"bind":      "the sandbox binds 127.0.0.1 and Options.Listen",
	"dir":       "the sandbox owns the directory",
	"daemonize": "the sandbox runs redis-server as a child",
}

// withDefaults validates o and returns a copy with defaults filled in.
func (o Options) withDefaults() (Options, error) {
	if !o.Postgres && !o.Redis {
		return o, fmt.Errorf("sandbox: nothing to start; set Options.Postgres or Options.Redis")
	}
	if o.MaxConnections < 0 {
		return o, fmt.Errorf("sandbox: invalid max_connections %d; must be positive", o.MaxConnections)
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	o.MaxConnections = or(o.MaxConnections, DefaultMaxConnections)
	o.SharedBuffers = or(o.SharedBuffers, DefaultSharedBuffers)
	o.Database = or(o.Database, DefaultDatabase)
	o.StartTimeout = or(o.StartTimeout, DefaultStartTimeout)
	o.User = or(or(o.User, o.Getenv("GBENCH_SANDBOX_USER")), DefaultUser)
	if strings.ContainsRune(o.Database, 0) {
		return o, fmt.Errorf("sandbox: invalid database name %q", o.Database)
	}
	for _, p := range o.Listen {
		if !p.IsValid() || p.Addr().Zone() != "" {
			return o, fmt.Errorf("sandbox: invalid address to listen on %q", p)
		}
	}
	var err error
	if o.Settings, err = checkSettings(o.Settings, pgName, reservedPG, "PostgreSQL"); err != nil {
		return o, err
	}
	o.RedisSettings, err = checkSettings(o.RedisSettings, redisName, reservedRedis, "Redis")
	return o, err
}

// checkSettings returns a copy of m with lower-case names, rejecting names
// that are malformed or that the sandbox controls.
func checkSettings(m map[string]string, valid *regexp.Regexp, reserved map[string]string, server string) (map[string]string, error) {
	out := make(map[string]string, len(m))
	for name, value := range m {
		key := strings.ToLower(name)
		if !valid.MatchString(key) {
			return nil, fmt.Errorf("sandbox: invalid %s setting name %q", server, name)
		}
		if why, ok := reserved[key]; ok {
			return nil, fmt.Errorf("sandbox: %s setting %q cannot be set: %s", server, name, why)
		}
		if strings.ContainsAny(value, "\x00\n") {
			return nil, fmt.Errorf("sandbox: invalid value %q for %s setting %q", value, server, name)
		}
		out[key] = value
	}
	return out, nil
}

// or returns v, or def when v is the zero value.
func or[T comparable](v, def T) T {
	var zero T
	if v == zero {
		return def
	}
	return v
}
