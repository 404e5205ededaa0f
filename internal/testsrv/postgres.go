package testsrv

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// PGOptions configures StartPostgres.
type PGOptions struct {
	// Settings are added to postgresql.conf (name to value, written as
	// name = 'value'); replicas copy them.
	Settings map[string]string
	// Files are written into the data directory after initdb, mode 0600
	// and owned by the server's user (name to contents), before the
	// server starts: certificates and keys for ssl_cert_file,
	// ssl_key_file and ssl_ca_file (relative paths are read from the data
	// directory), or a pg_hba.conf that replaces initdb's.
	Files map[string][]byte
}

// Postgres is a throwaway PostgreSQL server. Its methods fail the test on
// error; none is safe for concurrent use.
type Postgres struct {
	// Port is the TCP port on 127.0.0.1.
	Port int
	// Data is the data directory; Log is the server log.
	Data, Log string

	t    testing.TB
	bin  string // directory of pg_ctl, initdb, pg_basebackup
	dir  string // parent of Data, also the socket directory
	cred *credential
}

// pgBinDir finds the directory of initdb, pg_ctl and pg_basebackup: the
// one of initdb on PATH, else Debian's /usr/lib/postgresql/<version>/bin.
func pgBinDir(t testing.TB) string {
	t.Helper()
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			p = real
		}
		return filepath.Dir(p)
	}
	m, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	sort.Slice(m, func(i, j int) bool { return version(m[i]) > version(m[j]) })
	if len(m) == 0 {
		need(t, "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH nor in /usr/lib/postgresql/*/bin")
	}
	return filepath.Dir(m[0])
}

func version(path string) int {
	v, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return v
}

// StartPostgres creates a cluster with initdb (trust authentication, user
// postgres, wal_level=replica, fsync off) and starts it on a free port. It
// returns once the server accepts connections; the server is stopped and
// its files removed when the test ends.
func StartPostgres(t testing.TB, o PGOptions) *Postgres {
	t.Helper()
	p := newPostgres(t, pgBinDir(t), account(t))
	run(t, p.cred, p.dir, filepath.Join(p.bin, "initdb"), "-D", p.Data, "-A", "trust", "-U", "postgres",
		"-E", "UTF8", "--locale=C", "--no-sync")
	settings := map[string]string{"wal_level": "replica", "fsync": "off", "max_wal_senders": "5",
		"listen_addresses": "127.0.0.1", "max_connections": "50"}
	for k, v := range o.Settings {
		settings[k] = v
	}
	p.configure(settings)
	p.writeFiles(o.Files)
	p.Start()
	return p
}

// writeFiles writes files into the data directory for the server's user.
func (p *Postgres) writeFiles(files map[string][]byte) {
	p.t.Helper()
	for name, data := range files {
		path := WriteFile(p.t, p.Data, name, data)
		if p.cred != nil {
			if err := os.Chown(path, int(p.cred.Uid), int(p.cred.Gid)); err != nil {
				p.t.Fatal(err)
			}
		}
	}
}

func newPostgres(t testing.TB, bin string, cred *credential) *Postgres {
	dir := newDir(t, cred)
	p := &Postgres{t: t, bin: bin, cred: cred, dir: dir, Port: freePort(t),
		Data: filepath.Join(dir, "data"), Log: filepath.Join(dir, "postgres.log")}
	t.Cleanup(func() { p.pgctl("stop", "-m", "immediate") })
	return p
}

// configure appends settings, and this server's port and socket
// directory, to postgresql.conf: later lines win over a copied primary's.
func (p *Postgres) configure(settings map[string]string) {
	p.t.Helper()
	settings["port"] = strconv.Itoa(p.Port)
	settings["unix_socket_directories"] = p.dir
	names := make([]string, 0, len(settings))
	for k := range settings {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, k := range names {
		b.WriteString(k + " = '" + strings.ReplaceAll(settings[k], "'", "''") + "'\n")
	}
	f, err := os.OpenFile(filepath.Join(p.Data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString(b.String())
		err = errors.Join(err, f.Close())
	}
	if err != nil {
		p.t.Fatal(err)
	}
}

// pgctl runs pg_ctl on the data directory; it reports whether it worked.
func (p *Postgres) pgctl(args ...string) ([]byte, bool) {
	cmd := exec.Command(filepath.Join(p.bin, "pg_ctl"), append(args, "-D", p.Data)...)
	cmd.Dir = p.dir
	cmd.SysProcAttr = sysProcAttr(p.cred)
	out, err := cmd.CombinedOutput()
	return out, err == nil
}

func (p *Postgres) mustPgctl(args ...string) {
	p.t.Helper()
	if out, ok := p.pgctl(args...); !ok {
		p.t.Fatalf("pg_ctl %s: %s\nserver log:\n%s", strings.Join(args, " "), out, tail(p.Log))
	}
}

// ConnString is a keyword/value conninfo for database postgres over TCP:
// "host=127.0.0.1 port=<Port> user=postgres dbname=postgres sslmode=disable".
func (p *Postgres) ConnString() string {
	return "host=127.0.0.1 port=" + strconv.Itoa(p.Port) + " user=postgres dbname=postgres sslmode=disable"
}

// Start starts the stopped server and waits until it accepts connections
// (a standby: until it is consistent and accepts read-only ones).
func (p *Postgres) Start() {
	p.t.Helper()
	p.mustPgctl("start", "-w", "-t", "60", "-l", p.Log)
}

// Stop stops the server with a fast shutdown (pg_ctl stop -m fast): open
// sessions are ended, a primary's standbys receive the last WAL.
func (p *Postgres) Stop() {
	p.t.Helper()
	p.mustPgctl("stop", "-w", "-m", "fast")
}

// Restart stops the server with mode ("smart", "fast" or "immediate", the
// last a crash as far as clients see) and starts it again on the same port.
func (p *Postgres) Restart(mode string) {
	p.t.Helper()
	p.mustPgctl("restart", "-w", "-t", "60", "-m", mode, "-l", p.Log)
}

// Promote turns a standby into a primary and waits until it accepts
// writes (pg_ctl promote -w).
func (p *Postgres) Promote() {
	p.t.Helper()
	p.mustPgctl("promote", "-w", "-t", "60")
}

// Replica creates a streaming standby of p with pg_basebackup -R (slot-less
// replication as user postgres) and starts it on a free port. p must be
// running. The standby is stopped and removed when t ends.
func (p *Postgres) Replica(t testing.TB) *Postgres {
	t.Helper()
	r := newPostgres(t, p.bin, p.cred)
	run(t, r.cred, r.dir, filepath.Join(r.bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", strconv.Itoa(p.Port),
		"-U", "postgres", "-D", r.Data, "-R", "-X", "stream", "--no-sync", "-c", "fast")
	r.configure(map[string]string{"hot_standby": "on"})
	r.Start()
	return r
}
