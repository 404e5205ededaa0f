package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// deadPID returns the id of a process that has exited.
func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skip("no true(1):", err)
	}
	return cmd.Process.Pid
}

func TestSweep(t *testing.T) {
	base := t.TempDir()
	dead, live := deadPID(t), os.Getpid()
	dirs := []struct {
		name string
		pids map[string]int
		kept bool
	}{
		// Owner and servers gone: removed.
		{"gone", map[string]int{ownerPIDFile: dead, postgresPIDFile: dead, redisPIDFile: dead}, false},
		// Owner alive: kept.
		{"owned", map[string]int{ownerPIDFile: live}, true},
		// Owner gone but a server still runs (no death signal on this OS): kept.
		{"serving", map[string]int{ownerPIDFile: dead, redisPIDFile: live}, true},
		// No owner file yet: possibly being created, kept.
		{"new", nil, true},
	}
	for _, d := range dirs {
		dir := filepath.Join(base, dirPrefix+d.name)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		for file, pid := range d.pids {
			if err := writePID(dir, file, pid); err != nil {
				t.Fatal(err)
			}
		}
	}
	var log strings.Builder
	sweep(base, &log)
	for _, d := range dirs {
		_, err := os.Stat(filepath.Join(base, dirPrefix+d.name))
		if kept := err == nil; kept != d.kept {
			t.Errorf("%s: kept %v, want %v", d.name, kept, d.kept)
		}
	}
	if want := "sandbox: removed abandoned " + filepath.Join(base, dirPrefix+"gone") + "\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
}

// helperEnv names the base directory for TestHelperSandbox when it runs as
// the child of TestParentKilled.
const helperEnv = "GBENCH_SANDBOX_TEST_HELPER"

// TestHelperSandbox is not a test: TestParentKilled runs the test binary
// with it as a gbench stand-in that starts a sandbox, reports on stdout
// and waits to be killed.
func TestHelperSandbox(t *testing.T) {
	base := os.Getenv(helperEnv)
	if base == "" {
		t.Skip("run by TestParentKilled")
	}
	s, err := Start(context.Background(), Options{Postgres: true, Redis: true, BaseDir: base, MaxConnections: 20})
	if err != nil {
		fmt.Println("error", err)
		return
	}
	fmt.Println("ready", s.PostgresPID(), s.RedisPID(), s.Dir())
	time.Sleep(time.Minute)
}

func TestParentKilled(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("servers outlive a killed parent where there is no Pdeathsig")
	}
	o := Options{Postgres: true, Redis: true}
	needServers(t, o)
	base := baseDir(t)
	child := exec.Command(os.Args[0], "-test.run=^TestHelperSandbox$", "-test.count=1")
	child.Env = append(os.Environ(), helperEnv+"="+base)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	var pgPID, redisPID int
	var dir string
	line := readReady(t, out)
	if _, err := fmt.Sscan(line, &pgPID, &redisPID, &dir); err != nil {
		t.Fatalf("helper said %q: %v", line, err)
	}
	_ = child.Process.Kill() // SIGKILL: no chance to clean up
	_ = child.Wait()
	waitDead(t, pgPID, redisPID)
	sweep(base, io.Discard)
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("sweep left %s (%v)", dir, err)
	}
}

// readReady returns what follows "ready " in the helper's output.
func readReady(t *testing.T, out io.Reader) string {
	t.Helper()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
			go io.Copy(io.Discard, out) // keep the helper from blocking on a full pipe
			return rest
		}
		t.Log("helper:", sc.Text())
	}
	t.Fatal("helper exited without starting a sandbox")
	return ""
}

// waitDead waits up to 15s for the processes to go; the kernel's death
// signal is delivered at once, but PostgreSQL's shutdown takes a moment.
func waitDead(t *testing.T, pids ...int) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for _, pid := range pids {
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("pid %d outlived its parent", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}
