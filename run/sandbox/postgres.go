package sandbox

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/result/schema"
)

// pgSuperuser is the superuser initdb creates; clients connect as it.
const pgSuperuser = "postgres"

// startPostgres runs initdb, starts the postmaster and creates the database.
func (s *Sandbox) startPostgres(ctx context.Context, bins binaries, acct account) error {
	if err := s.initdb(ctx, bins.initdb, acct); err != nil {
		return err
	}
	if err := s.trustListen(); err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		err := s.launchPostgres(ctx, bins.postgres, acct)
		if !errors.Is(err, errPortInUse) || attempt == portAttempts {
			return err
		}
		s.logf("port %d was taken; trying another", s.pgPort)
	}
}

// initdb creates the cluster: trust authentication (the server listens on
// 127.0.0.1 and a private socket only), C locale so that no OS locale needs
// to be installed, and --no-sync because the files are thrown away.
func (s *Sandbox) initdb(ctx context.Context, bin string, acct account) error {
	s.logf("initdb %s (%s, %s)", s.pgData(), bin, acct)
	logPath := filepath.Join(s.dir, "initdb.log")
	cmd := exec.Command(bin, "-D", s.pgData(), "-A", "trust", "-U", pgSuperuser,
		"-E", "UTF8", "--locale=C", "--no-sync")
	p, err := s.spawn("initdb", cmd, logPath, acct, syscall.SIGKILL, nil)
	if err != nil {
		return err
	}
	// On cancel, wait sends initdb SIGTERM, which it acts on between steps:
	// slower than killing it, but its postgres then exits cleanly and takes
	// its shared memory out of /dev/shm, which a SIGKILL would leave there.
	if err := p.wait(ctx); err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("sandbox: initdb: %w", err)
		}
		return fmt.Errorf("sandbox: initdb failed (%v)%s", err, tail(logPath))
	}
	return nil
}

// launchPostgres starts the postmaster as a direct child (not through
// pg_ctl, which would detach it) and waits until it accepts connections.
// SIGQUIT as the death signal is PostgreSQL's immediate shutdown: the
// postmaster stops its backends and releases shared memory before exiting.
func (s *Sandbox) launchPostgres(ctx context.Context, bin string, acct account) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	s.pgPort = port
	logPath := filepath.Join(s.dir, "postgres.log")
	p, cg, v1, err := s.spawnServer("postgres", func() *exec.Cmd { return exec.Command(bin, s.postgresArgs()...) }, logPath, acct, syscall.SIGQUIT)
	if err != nil {
		return err
	}
	var conn *pgsql.Client
	err = waitReady(ctx, p, s.opts.StartTimeout, logPath, func(ctx context.Context) (err error) {
		conn, err = pgsql.Open(ctx, s.socketConnString("postgres"))
		return err
	})
	if err == nil {
		err = s.prepareDatabase(ctx, conn)
		err = errors.Join(err, conn.Close())
	}
	if err != nil {
		// SIGQUIT, not SIGKILL: the postmaster then removes its shared
		// memory segments, which live outside the sandbox in /dev/shm.
		return errors.Join(err, p.stop(stopTimeout, syscall.SIGQUIT), cg.remove(), v1.remove())
	}
	s.pg, s.pgCgroup, s.pgV1 = p, cg, v1
	s.logf("postgres %s (pid %d) on 127.0.0.1:%d, database %q", s.pgVersion, p.pid(), port, s.opts.Database)
	return writePID(s.dir, postgresPIDFile, p.pid())
}

// spawn starts cmd in the sandbox directory as acct, output written to a
// fresh logPath, with deathSig sent to it if gbench dies.
func (s *Sandbox) spawn(name string, cmd *exec.Cmd, logPath string, acct account, deathSig syscall.Signal, cg *cgroup) (*proc, error) {
	logf, err := s.openLog(filepath.Base(logPath))
	if err != nil {
		return nil, err
	}
	defer logf.Close() // the child holds its own copy of the descriptor
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr(acct.cred, deathSig)
	if cg != nil {
		cg.apply(cmd.SysProcAttr)
	}
	return start(name, cmd)
}

// pgData is the cluster's data directory.
func (s *Sandbox) pgData() string { return filepath.Join(s.dir, "pgdata") }

// pgConfig is every setting passed on the postgres command line, by name.
func (s *Sandbox) pgConfig() map[string]string {
	m := DurabilitySettings(!s.opts.DurabilityOff)
	for k, v := range s.opts.Settings {
		m[k] = v
	}
	m["listen_addresses"] = strings.Join(s.listenAddrs(), ",")
	m["unix_socket_directories"] = s.dir
	m["max_connections"] = strconv.Itoa(s.opts.MaxConnections)
	m["shared_buffers"] = s.opts.SharedBuffers
	return m
}

// listenAddrs are the addresses the servers listen on: 127.0.0.1 and
// Options.Listen's.
func (s *Sandbox) listenAddrs() []string {
	out := []string{"127.0.0.1"}
	for _, p := range s.opts.Listen {
		out = append(out, p.Addr().String())
	}
	return out
}

// trustListen adds to pg_hba.conf, which initdb wrote with trust for
// local and loopback connections, trust for the networks of
// Options.Listen.
func (s *Sandbox) trustListen() error {
	if len(s.opts.Listen) == 0 {
		return nil
	}
	var b strings.Builder
	for _, p := range s.opts.Listen {
		fmt.Fprintf(&b, "host all all %s trust\n", p.Masked())
	}
	f, err := os.OpenFile(filepath.Join(s.pgData(), "pg_hba.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(b.String())
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		return fmt.Errorf("sandbox: cannot trust the networks to listen on: %w", err)
	}
	return nil
}

// postgresArgs is the postmaster's command line, settings in name order.
func (s *Sandbox) postgresArgs() []string {
	args := []string{"-D", s.pgData(), "-p", strconv.Itoa(s.pgPort)}
	cfg := s.pgConfig()
	for _, name := range sortedKeys(cfg) {
		args = append(args, "-c", name+"="+cfg[name])
	}
	return args
}

// prepareDatabase creates the run's database and records the server's
// version and effective settings.
func (s *Sandbox) prepareDatabase(ctx context.Context, conn *pgsql.Client) error {
	db := s.opts.Database
	rows, err := conn.QueryText(ctx, "SELECT 1 FROM pg_database WHERE datname = $1", db)
	if err == nil && len(rows) == 0 {
		err = conn.Exec(ctx, "CREATE DATABASE "+quoteIdent(db))
	}
	if err != nil {
		return fmt.Errorf("sandbox: cannot create database %q: %w", db, err)
	}
	if rows, err = conn.QueryText(ctx, "SELECT current_setting('server_version')"); err != nil {
		return fmt.Errorf("sandbox: cannot read server_version: %w", err)
	}
	s.pgVersion = rows[0][0]
	rows, err = conn.QueryText(ctx, "SELECT n, current_setting(n) FROM unnest($1::text[]) AS n ORDER BY n", s.reportedNames())
	if err != nil {
		return fmt.Errorf("sandbox: cannot read settings: %w", err)
	}
	for _, r := range rows {
		s.pgSettings = append(s.pgSettings, Setting{Name: r[0], Value: r[1]})
	}
	return nil
}

// reportedNames is a text[] literal of the settings worth a report: those
// passed on the command line except the socket path, plus the collation.
func (s *Sandbox) reportedNames() string {
	cfg := s.pgConfig()
	delete(cfg, "unix_socket_directories")
	cfg["lc_collate"] = ""
	// Names match pgName, so quoting each in double quotes is safe.
	return `{"` + strings.Join(sortedKeys(cfg), `","`) + `"}`
}

// socketConnString reaches the server through the socket in the sandbox
// directory, which no other server can answer on.
func (s *Sandbox) socketConnString(db string) string {
	return connString(s.dir, s.pgPort, db)
}

// PostgresConnString is a keyword/value conninfo for the run's database over
// TCP, e.g. "host=127.0.0.1 port=41234 user=postgres dbname=gbench
// sslmode=disable"; "" without PostgreSQL. No password is needed.
func (s *Sandbox) PostgresConnString() string {
	if s.pg == nil {
		return ""
	}
	return connString("127.0.0.1", s.pgPort, s.opts.Database)
}

// PostgresURL is PostgresConnString as a URL, e.g.
// "postgres://postgres@127.0.0.1:41234/gbench?sslmode=disable".
func (s *Sandbox) PostgresURL() string {
	if s.pg == nil {
		return ""
	}
	u := url.URL{Scheme: "postgres", User: url.User(pgSuperuser),
		Host: "127.0.0.1:" + strconv.Itoa(s.pgPort), Path: "/" + s.opts.Database, RawQuery: "sslmode=disable"}
	return u.String()
}

// PostgresSocketDir is the directory of the server's unix socket, usable as
// host in a conninfo; "" without PostgreSQL.
func (s *Sandbox) PostgresSocketDir() string {
	if s.pg == nil {
		return ""
	}
	return s.dir
}

// PostgresPort is the server's TCP port on 127.0.0.1; 0 without PostgreSQL.
func (s *Sandbox) PostgresPort() int {
	if s.pg == nil {
		return 0
	}
	return s.pgPort
}

// PostgresPID is the postmaster's process id, the parent of every backend;
// 0 without PostgreSQL.
func (s *Sandbox) PostgresPID() int {
	if s.pg == nil {
		return 0
	}
	return s.pg.pid()
}

// Durability is "on" when the sandbox's PostgreSQL keeps fsync,
// synchronous_commit and full_page_writes on, "off" when all three are
// off, and otherwise the three as the server reports them
// ("fsync=on synchronous_commit=off full_page_writes=on"); "" without
// PostgreSQL.
func (s *Sandbox) Durability() string {
	if s.pg == nil {
		return ""
	}
	m := map[string]string{}
	for _, st := range s.pgSettings {
		m[st.Name] = st.Value
	}
	return schema.DurabilityOf(m)
}

// PostgresVersion is the server's server_version, e.g. "15.14 (Debian
// 15.14-0+deb12u1)"; "" without PostgreSQL.
func (s *Sandbox) PostgresVersion() string { return s.pgVersion }

// PostgresSettings returns the effective values, read back from the server,
// of every setting the sandbox passed (DurabilitySettings, Options.Settings,
// max_connections, shared_buffers, listen_addresses) and lc_collate, sorted
// by name. The slice is new on each call.
func (s *Sandbox) PostgresSettings() []Setting { return append([]Setting(nil), s.pgSettings...) }

// connString builds a keyword/value conninfo, quoting values as libpq does.
func connString(host string, port int, db string) string {
	return "host=" + quoteConnValue(host) + " port=" + strconv.Itoa(port) +
		" user=" + pgSuperuser + " dbname=" + quoteConnValue(db) + " sslmode=disable"
}

// quoteConnValue quotes v for a conninfo when it is empty or has spaces,
// quotes or backslashes.
func quoteConnValue(v string) string {
	if v != "" && !strings.ContainsAny(v, ` '\`+"\t\n") {
		return v
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(name string) string {
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
