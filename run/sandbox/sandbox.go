package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"syscall"
)

// Sandbox is a set of running throwaway servers and the directory holding
// their files. Its methods are safe for concurrent use; the accessors return
// values fixed by Start (zero values for a server that was not asked for).
// Close must be called, or the ctx given to Start must end.
type Sandbox struct {
	dir  string
	opts Options

	pg         *proc
	pgCgroup   *cgroup
	pgPort     int
	pgVersion  string
	pgSettings []Setting

	redis         *proc
	redisCgroup   *cgroup
	redisPort     int
	redisVersion  string
	redisSettings []Setting

	// cgroupNote says why a server runs without a cgroup of its own,
	// cgroupV1Note why without cgroup v1 directories.
	cgroupNote, cgroupV1Note string
	pgV1, redisV1            *v1Cgroups

	stopWatch func() bool // stops the ctx watcher set up by Start
	closeOnce sync.Once
	closeErr  error
	done      chan struct{}
}

// Setting is one effective server setting, as the server reports it
// (PostgreSQL SHOW syntax, e.g. "128MB"; Redis CONFIG GET syntax).
type Setting struct {
	Name, Value string
}

// Start starts the servers o asks for in a new directory under o.BaseDir and
// returns when each accepts connections and the PostgreSQL database exists.
// On error nothing is left running and the directory is gone; when ctx ended
// first, the error wraps ctx.Err().
//
// The sandbox lives until Close or until ctx ends, whichever comes first, so
// pass a ctx that outlives the run. Its servers run in their own process
// groups (the terminal's Ctrl-C reaches only gbench) and, on Linux, die with
// the gbench process even when it is killed with SIGKILL. Directories left by
// such a gbench are removed by the next Start with the same base directory.
func Start(ctx context.Context, o Options) (*Sandbox, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, err
	}
	bins, err := newFinder(o.Getenv).find(o)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	var acct account
	if o.Postgres {
		if acct, err = lookupAccount(o.User); err != nil {
			return nil, err
		}
	}
	s, err := newSandbox(o)
	if err != nil {
		return nil, err
	}
	if err := s.setup(ctx, bins, acct); err != nil {
		if ctx.Err() != nil && !errors.Is(err, ctx.Err()) {
			err = fmt.Errorf("%w (%w)", ctx.Err(), err)
		}
		return nil, errors.Join(err, s.Close())
	}
	s.stopWatch = context.AfterFunc(ctx, func() { _ = s.Close() }) // the error is Close's to report
	return s, nil
}

// newSandbox creates the sandbox directory, sweeping abandoned ones first.
func newSandbox(o Options) (*Sandbox, error) {
	base := or(o.BaseDir, defaultBaseDir())
	sweep(base, o.Log)
	sweepCgroups(base, o.Log)
	sweepCgroups1(base, o.Log)
	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("sandbox: cannot create a directory in %s: %w", base, err)
	}
	s := &Sandbox{dir: dir, opts: o, done: make(chan struct{})}
	if err := writePID(dir, ownerPIDFile, os.Getpid()); err != nil {
		return nil, errors.Join(fmt.Errorf("sandbox: %w", err), os.RemoveAll(dir))
	}
	return s, nil
}

// setup starts the servers; the caller closes s on error.
func (s *Sandbox) setup(ctx context.Context, bins binaries, acct account) error {
	s.logf("directory %s", s.dir)
	if s.opts.Postgres {
		if err := acct.reach(s.dir); err != nil {
			return err
		}
		if err := acct.chown(s.dir); err != nil {
			return err
		}
		if err := s.startPostgres(ctx, bins, acct); err != nil {
			return err
		}
	}
	if s.opts.Redis {
		return s.startRedis(ctx, bins.redis)
	}
	return nil
}

// Close stops the servers (PostgreSQL with a fast shutdown, Redis with
// SIGTERM, each killed if it takes longer than 10s) and removes the sandbox
// directory. It is idempotent and safe to call concurrently; every call
// returns the first call's result once teardown is complete.
func (s *Sandbox) Close() error {
	s.closeOnce.Do(func() {
		if s.stopWatch != nil {
			s.stopWatch()
		}
		s.closeErr = s.teardown()
		close(s.done)
	})
	return s.closeErr
}

// teardown stops both servers, then removes the directory.
func (s *Sandbox) teardown() error {
	errRedis := s.redis.stop(stopTimeout, syscall.SIGTERM)
	errPG := s.pg.stop(stopTimeout, syscall.SIGINT, syscall.SIGQUIT) // fast, then immediate shutdown
	errCg := errors.Join(s.redisCgroup.remove(), s.pgCgroup.remove(), s.redisV1.remove(), s.pgV1.remove())
	errRm := os.RemoveAll(s.dir)
	if errRm != nil {
		errRm = fmt.Errorf("sandbox: %w", errRm)
	} else {
		s.logf("removed %s", s.dir)
	}
	return errors.Join(errRedis, errPG, errCg, errRm)
}

// Done returns a channel closed once the sandbox is closed, by Close or by
// the end of Start's ctx, and its directory removed.
func (s *Sandbox) Done() <-chan struct{} { return s.done }

// Dir is the sandbox directory; it no longer exists after Close.
func (s *Sandbox) Dir() string { return s.dir }

// logf writes one progress line to the Log writer. Progress messages are a
// courtesy: a failing writer must not fail the run, so errors are dropped.
func (s *Sandbox) logf(format string, args ...any) {
	_, _ = fmt.Fprintf(s.opts.Log, "sandbox: "+format+"\n", args...)
}

// openLog creates or truncates a log file in the sandbox directory; a
// retried start must not find the previous attempt's complaints in it.
func (s *Sandbox) openLog(name string) (*os.File, error) {
	f, err := os.OpenFile(filepath.Join(s.dir, name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	return f, nil
}
