package testsrv

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SentinelMaster is the master name StartSentinel monitors.
const SentinelMaster = "gbench"

// Sentinel is a throwaway Redis Sentinel (redis-server --sentinel)
// monitoring one master under the name SentinelMaster, with a quorum of 1
// and short timeouts (down after 1 s, failover timeout 10 s).
type Sentinel struct {
	*Redis
	masterPassword string // the master's --requirepass, which its replicas share
}

// StartSentinel starts a Sentinel monitoring master and returns once it
// answers with master's address and has found master's replicas (if any).
// args are extra sentinel.conf lines: "sentinel auth-pass gbench <pw>" for a
// master with a password (its replicas must have the same), "requirepass
// <pw>" for a Sentinel that asks for one.
func StartSentinel(t testing.TB, master *Redis, args ...string) *Sentinel {
	t.Helper()
	dir := newDir(t, nil)
	conf := filepath.Join(dir, "sentinel.conf") // Sentinel rewrites it
	lines := []string{
		"sentinel monitor " + SentinelMaster + " 127.0.0.1 " + strconv.Itoa(master.Port) + " 1",
		"sentinel down-after-milliseconds " + SentinelMaster + " 1000",
		"sentinel failover-timeout " + SentinelMaster + " 10000",
		"sentinel parallel-syncs " + SentinelMaster + " 1",
	}
	lines = append(lines, args...)
	if err := os.WriteFile(conf, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := &Redis{t: t, bin: redisBin(t), Port: freePort(t), Log: filepath.Join(dir, "sentinel.log")}
	for _, a := range args {
		if pw, ok := strings.CutPrefix(a, "requirepass "); ok {
			r.password = pw
		}
	}
	r.args = []string{conf, "--sentinel", "--port", strconv.Itoa(r.Port), "--bind", "127.0.0.1",
		"--dir", dir, "--logfile", r.Log}
	t.Cleanup(r.kill)
	r.Start()
	s := &Sentinel{Redis: r, masterPassword: master.password}
	if got := s.Master(); got != master.Addr() {
		t.Fatalf("sentinel reports master %q, want %s", got, master.Addr())
	}
	return s
}

// Master is the master's address as the Sentinel reports it
// (SENTINEL get-master-addr-by-name), "" when it cannot say.
func (s *Sentinel) Master() string {
	reply, err := s.Do("SENTINEL", "get-master-addr-by-name", SentinelMaster)
	host, port, ok := strings.Cut(reply, "\n")
	if err != nil || !ok {
		return ""
	}
	return host + ":" + port
}

// WaitReplicas waits until the Sentinel knows n replicas of the master:
// a failover needs one.
func (s *Sentinel) WaitReplicas(n int) {
	s.t.Helper()
	if !waitFor(20*time.Second, func() bool {
		reply, err := s.Do("SENTINEL", "replicas", SentinelMaster)
		return err == nil && strings.Count(reply, "master-link-status\nok") >= n
	}) {
		s.t.Fatalf("sentinel %s never saw %d replicas in a good state\n%s", s.Addr(), n, tail(s.Log))
	}
}

// Failover forces a failover (SENTINEL failover) and waits until the
// Sentinel reports a master other than the old one and that server says
// it is a master (ROLE). It returns the new master's address.
func (s *Sentinel) Failover() string {
	s.t.Helper()
	old := s.Master()
	var err error
	// Right after start the Sentinel may not yet have the replica's
	// details and refuses ("NOGOODSLAVE"): try again for a while.
	ok := waitFor(20*time.Second, func() bool {
		_, err = s.Do("SENTINEL", "failover", SentinelMaster)
		return err == nil
	})
	if !ok {
		s.t.Fatalf("SENTINEL failover %s: %v\n%s", SentinelMaster, err, tail(s.Log))
	}
	var now string
	if !waitFor(30*time.Second, func() bool {
		now = s.Master()
		role, _ := command(now, s.masterPassword, nil, "ROLE")
		return now != "" && now != old && strings.HasPrefix(role, "master")
	}) {
		s.t.Fatalf("no new master after SENTINEL failover (still %s)\n%s", now, tail(s.Log))
	}
	return now
}

// String names the Sentinel for messages.
func (s *Sentinel) String() string { return fmt.Sprintf("sentinel %s", s.Addr()) }
