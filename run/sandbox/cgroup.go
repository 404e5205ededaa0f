package sandbox

import (
	"errors"
	"os/exec"
	"path/filepath"
	"syscall"
)

// spawnServer starts a server like spawn, inside a cgroup of its own when
// the system allows one (see cgroup), so that its CPU time can be read
// whole; otherwise it starts it without and keeps the reason, which
// CgroupNote reports. newCmd builds the command: a failed start cannot be
// retried with the same exec.Cmd.
func (s *Sandbox) spawnServer(name string, newCmd func() *exec.Cmd, logPath string, acct account, deathSig syscall.Signal) (*proc, *cgroup, error) {
	cg, err := newCgroup(filepath.Base(s.dir) + "." + name)
	if err == nil {
		p, err := s.spawn(name, newCmd(), logPath, acct, deathSig, cg)
		if err == nil {
			return p, cg, nil
		}
		// The kernel may refuse CLONE_INTO_CGROUP (before 5.7, or a
		// cgroup it will not fork into): start the server without.
		err = errors.Join(err, cg.remove())
		s.noteCgroup(name, err)
	} else {
		s.noteCgroup(name, err)
	}
	p, err := s.spawn(name, newCmd(), logPath, acct, deathSig, nil)
	return p, nil, err
}

// noteCgroup records why a server has no cgroup.
func (s *Sandbox) noteCgroup(name string, err error) {
	if s.cgroupNote == "" {
		s.cgroupNote = name + ": " + err.Error()
		s.logf("no cgroup for %s, its CPU time will be read from its processes: %v", name, err)
	}
}

// PostgresCgroup is the cgroup v2 directory holding every process of the
// PostgreSQL server, whose cpu.stat counts their CPU time; "" when the
// server runs without one (CgroupNote says why) or there is no server.
func (s *Sandbox) PostgresCgroup() string { return s.pgCgroup.Path() }

// RedisCgroup is PostgresCgroup for the Redis server.
func (s *Sandbox) RedisCgroup() string { return s.redisCgroup.Path() }

// CgroupNote says why a server runs without a cgroup of its own; "" when
// each has one.
func (s *Sandbox) CgroupNote() string { return s.cgroupNote }
