package sandbox

import (
	"errors"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// spawnServer starts a server like spawn, inside a cgroup v2 of its own
// when the system allows one (see cgroup), so that its CPU time can be
// read whole, and in cgroup v1 directories of its own for the controllers
// a hybrid or legacy system mounts as v1 (memory, blkio, cpu), so that
// its memory, block I/O and throttling can be read; what it cannot have,
// it starts without, keeping the reason, which CgroupNote reports. newCmd
// builds the command: a failed start cannot be retried with the same
// exec.Cmd.
func (s *Sandbox) spawnServer(name string, newCmd func() *exec.Cmd, logPath string, acct account, deathSig syscall.Signal) (*proc, *cgroup, *v1Cgroups, error) {
	p, cg, err := s.spawnInV2(name, newCmd, logPath, acct, deathSig)
	if err != nil {
		return nil, nil, nil, err
	}
	v1, err := newV1Cgroups(filepath.Base(s.dir) + "." + name)
	if err == nil {
		if err = v1.join(p.pid()); err != nil {
			err = errors.Join(err, v1.remove())
			v1 = nil
		}
	}
	if err != nil {
		s.noteCgroupV1(name, err)
	}
	return p, cg, v1, nil
}

func (s *Sandbox) spawnInV2(name string, newCmd func() *exec.Cmd, logPath string, acct account, deathSig syscall.Signal) (*proc, *cgroup, error) {
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

// noteCgroupV1 records why a server has no cgroup v1 directories; on a
// unified system the v2 cgroup has the files, and there is nothing to say.
func (s *Sandbox) noteCgroupV1(name string, err error) {
	if s.cgroupV1Note == "" {
		s.cgroupV1Note = name + ": " + err.Error()
		s.logf("no cgroup v1 directories for %s: %v", name, err)
	}
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

// Cgroups are the cgroup directories holding every process of one server:
// V2 a cgroup v2 (its cpu.stat counts the CPU time; memory.current,
// io.stat and memory.events are there when the v2 hierarchy enables those
// controllers), and Memory and Blkio the cgroup v1 directories of its own
// of those controllers on a system that mounts them as v1; CPU is the v1
// cpu directory it runs in, gbench's own (a group of its own would change
// its share of the CPU), whose cpu.stat counts throttling. Each is ""
// when there is none; Note says why when some are missing.
type Cgroups struct {
	V2                 string
	Memory, Blkio, CPU string
	Note               string
}

// PostgresCgroups are the PostgreSQL server's cgroups.
func (s *Sandbox) PostgresCgroups() Cgroups {
	return s.cgroups(s.pgCgroup, s.pgV1)
}

// RedisCgroups are the Redis server's cgroups.
func (s *Sandbox) RedisCgroups() Cgroups {
	return s.cgroups(s.redisCgroup, s.redisV1)
}

func (s *Sandbox) cgroups(v2 *cgroup, v1 *v1Cgroups) Cgroups {
	c := Cgroups{V2: v2.Path(), Memory: v1.dir("memory"), Blkio: v1.dir("blkio"), CPU: v1.dir("cpu")}
	c.Note = strings.TrimPrefix(strings.Join([]string{s.cgroupNote, s.cgroupV1Note}, "; "), "; ")
	c.Note = strings.TrimSuffix(c.Note, "; ")
	return c
}
