package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"math/big"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
	"github.com/gbench/gbench/run/sandbox"
)

// host is a load machine of its own: a network namespace joined to this
// one by a veth pair, addressed in a /30 of its own. From it, the servers
// are reachable at server only.
type host struct {
	ns             string
	server, client netip.Addr
	net            netip.Prefix // the host side's address, with the /30
}

// ipCmd runs ip(8), returning its output in the error.
func ipCmd(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// newHosts makes n namespaces, or skips the test where this process may
// not (not root, namespaces refused): namespaces are a permission, not a
// service, so GBENCH_REQUIRE_SERVICES does not make their absence fail.
// The ip command is a tool CI installs: without it the test skips, or
// fails under GBENCH_REQUIRE_SERVICES=1. Everything is removed when the test ends. Names
// carry the process id, and the addresses are in a 10.231.R.0/24 no
// interface of this machine has, so that test processes side by side do
// not collide; nothing leaves the veths: the namespaces have no route
// but their /30.
func newHosts(t *testing.T, n int) []host {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("skipped: network namespaces (ip netns add) need root; this test runs as uid " + strconv.Itoa(os.Geteuid()))
	}
	testsrv.NeedCommand(t, "ip", "Debian's iproute2; .ci/test.sh installs it")
	tag := strconv.FormatInt(int64(os.Getpid()), 36)
	probe := "gbench-" + tag + "-probe"
	ipCmd("netns", "del", probe) // left by a killed process with this id
	if err := ipCmd("netns", "add", probe); err != nil {
		t.Skipf("skipped: this machine refuses network namespaces: %v", err)
	}
	ipCmd("netns", "del", probe)
	third := freeSubnet(t)
	var hosts []host
	for k := range n {
		h := host{ns: fmt.Sprintf("gbench-%s-%d", tag, k),
			server: netip.AddrFrom4([4]byte{10, 231, third, byte(4*k + 1)}),
			client: netip.AddrFrom4([4]byte{10, 231, third, byte(4*k + 2)})}
		h.net = netip.PrefixFrom(h.server, 30)
		outer, inner := fmt.Sprintf("g%sh%d", tag, k), fmt.Sprintf("g%sn%d", tag, k)
		if err := ipCmd("netns", "add", h.ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			ipCmd("link", "del", outer) // gone already when the namespace took its peer with it
			if err := ipCmd("netns", "del", h.ns); err != nil {
				t.Error(err)
			}
		})
		for _, args := range [][]string{
			{"link", "add", outer, "type", "veth", "peer", "name", inner},
			{"link", "set", inner, "netns", h.ns},
			{"addr", "add", h.net.String(), "dev", outer},
			{"link", "set", outer, "up"},
			{"-n", h.ns, "addr", "add", netip.PrefixFrom(h.client, 30).String(), "dev", inner},
			{"-n", h.ns, "link", "set", inner, "up"},
			{"-n", h.ns, "link", "set", "lo", "up"},
		} {
			if err := ipCmd(args...); err != nil {
				t.Fatal(err)
			}
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// freeSubnet picks R of a 10.231.R.0/24 that no address of this machine
// is in.
func freeSubnet(t *testing.T) byte {
	t.Helper()
	out, err := exec.Command("ip", "-o", "-4", "addr", "show").Output()
	if err != nil {
		t.Fatalf("ip addr show: %v", err)
	}
	for range 100 {
		r, err := rand.Int(rand.Reader, big.NewInt(256))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(out), fmt.Sprintf(" 10.231.%d.", r.Int64())) {
			return byte(r.Int64())
		}
	}
	t.Fatal("no free 10.231.R.0/24")
	return 0
}

// pod is a worker started in its host's namespace as a pod of the Indexed
// Job in deploy/kubernetes/base starts: the same arguments for all, the
// environment the manifest sets (GBENCH_WORKERS, GBENCH_WORKER_INDEX and
// Kubernetes's JOB_COMPLETION_INDEX, GBENCH_RUN_ID, the Secret's PG*
// variables and GBENCH_RESP), both output streams into one log, as
// kubectl logs reads them.
type pod struct {
	cmd  *exec.Cmd
	log  string
	done chan error
}

func startPod(t *testing.T, g *installedGbench, h host, index, count int, runID, pgPort, redisPort string, args ...string) *pod {
	t.Helper()
	p := &pod{log: filepath.Join(g.dir, fmt.Sprintf("gbench-%s-%d.log", runID[:8], index)), done: make(chan error, 1)}
	f, err := os.Create(p.log)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close() // the child has its own descriptor
	p.cmd = exec.Command("ip", append([]string{"netns", "exec", h.ns, g.bin}, args...)...)
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = g.dir, f, f
	p.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + g.dir,
		"GBENCH_WORKERS=" + strconv.Itoa(count), "GBENCH_WORKER_INDEX=" + strconv.Itoa(index),
		"JOB_COMPLETION_INDEX=" + strconv.Itoa(index), "GBENCH_RUN_ID=" + runID,
		"PGHOST=" + h.server.String(), "PGPORT=" + pgPort, "PGUSER=postgres", "PGDATABASE=" + sandbox.DefaultDatabase,
		"PGSSLMODE=disable", "GBENCH_RESP=redis://" + h.server.String() + ":" + redisPort + "/0"}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			p.cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

// wait waits for the pod, at most two minutes, and returns its exit
// status.
func (p *pod) wait(t *testing.T) int {
	t.Helper()
	select {
	case err := <-p.done:
		p.done <- err
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		} else if err != nil {
			t.Fatalf("%s: %v", p.log, err)
		}
		return 0
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s: the worker did not finish\n%s", p.log, p.text(t))
		return -1
	}
}

func (p *pod) text(t *testing.T) string {
	b, err := os.ReadFile(p.log)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newRunID is a Job's uid, which the manifest makes the run id.
func newRunID(t *testing.T) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// TestFleetNamespaces runs the path from the Job to the merged summary
// across machines: three workers, each in a network namespace of its own
// with its own address, reach a throwaway PostgreSQL and Redis through
// the host side, are started as the Job starts its pods (no seed; the
// manifest gives none), write their results into their logs (--json -),
// and are merged from the logs as README.md says. The merge is exact,
// for SQL (the workers meet through PostgreSQL) and for a \resp script
// (through Redis); and a worker killed during the run is named missing,
// with exit status 2.
func TestFleetNamespaces(t *testing.T) {
	hosts := newHosts(t, 3)
	var listen []netip.Prefix
	for _, h := range hosts {
		listen = append(listen, h.net)
	}
	sb, err := sandbox.Start(context.Background(), sandbox.Options{Postgres: true, Redis: true, MaxConnections: 40,
		Listen: listen, Settings: map[string]string{"log_connections": "on"}})
	if err != nil {
		if errors.Is(err, sandbox.ErrNotFound) {
			testsrv.Need(t, "no server binaries for the sandbox: %v", err)
		}
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := sb.Close(); err != nil {
			t.Error(err)
		}
	})
	g := buildGbench(t)
	g.ok("-i", "-s", "1", "-q", sb.PostgresConnString())
	resp := filepath.Join(g.dir, "set.sql")
	if err := os.WriteFile(resp, []byte("\\set k random(1, 1000)\n\\resp SET gbench:ns::k :client_id\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	pgPort, redisPort := strconv.Itoa(sb.PostgresPort()), strconv.Itoa(sb.RedisPort())
	run := func(args ...string) []*pod {
		runID := newRunID(t)
		var pods []*pod
		for k, h := range hosts {
			pods = append(pods, startPod(t, g, h, k, len(hosts), runID, pgPort, redisPort, args...))
		}
		return pods
	}
	merge := func(pods []*pod) outcome {
		var logs []string
		for _, p := range pods {
			logs = append(logs, p.log)
		}
		return g.run(append([]string{"merge", "-o", filepath.Join(g.dir, "merged.json")}, logs...)...)
	}
	exact := func(t *testing.T, pods []*pod, want int) {
		for k, p := range pods {
			if code := p.wait(t); code != 0 {
				t.Fatalf("worker %d: status %d\n%s", k, code, p.text(t))
			}
		}
		o := merge(pods)
		for _, line := range []string{
			fmt.Sprintf("number of transactions actually processed: %d/%d\n", want, want),
			"number of failed transactions: 0 (0.000%)\n", "workers merged: 3 of 3 (0, 1, 2)\n",
		} {
			if o.code != 0 || !strings.Contains(o.stdout, line) {
				t.Errorf("merge: status %d, no %q in\n%s%s", o.code, line, o.stdout, o.stderr)
			}
		}
		if m := readJSON(t, filepath.Join(g.dir, "merged.json")); m.Counters.Processed != int64(want) || m.Fleet == nil || len(m.Fleet.Missing) != 0 {
			t.Errorf("merged JSON: %d processed, fleet %+v", m.Counters.Processed, m.Fleet)
		}
	}

	t.Run("README's worker example, no seed: the merge is exact", func(t *testing.T) {
		exact(t, run("-n", "-S", "-M", "prepared", "-c", "6", "-j", "3", "-t", "200", "--json", "-"), 1200)
		log, err := os.ReadFile(filepath.Join(sb.Dir(), "postgres.log"))
		if err != nil {
			t.Fatal(err)
		}
		for k, h := range hosts {
			if !strings.Contains(string(log), "connection received: host="+h.client.String()+" ") {
				t.Errorf("the server saw no connection from worker %d's address %s", k, h.client)
			}
		}
	})
	t.Run("a \\resp script: the workers meet through Redis", func(t *testing.T) {
		exact(t, run("-n", "-f", resp, "-c", "3", "-j", "3", "-t", "100", "--json", "-"), 300)
	})
	t.Run("a worker killed during the run is missing from the merge", func(t *testing.T) {
		pods := run("-n", "-S", "-c", "3", "-j", "3", "-T", "4", "-P", "1", "--json", "-")
		deadline := time.Now().Add(time.Minute)
		for !strings.Contains(pods[1].text(t), "progress: ") {
			if time.Now().After(deadline) {
				t.Fatalf("worker 1 reported no progress in a minute\n%s", pods[1].text(t))
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := pods[1].cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{0, 2} {
			if code := pods[k].wait(t); code != 0 {
				t.Fatalf("worker %d: status %d\n%s", k, code, pods[k].text(t))
			}
		}
		pods[1].wait(t)
		o := merge(pods)
		if want := "workers missing: 1: "; o.code != exitRun || !strings.Contains(o.stdout, want) ||
			!strings.Contains(o.stderr, "workers are missing (1)") || !strings.Contains(o.stderr, filepath.Base(pods[1].log)+" holds no gbench result") {
			t.Errorf("merge: status %d, want %d and %q\n%s%s", o.code, exitRun, want, o.stdout, o.stderr)
		}
	})
}
