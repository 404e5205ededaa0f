package testsrv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Need skips the test because something it needs (a server, pgbench 15,
// a tool) is missing, saying what with format and args, or fails it when
// GBENCH_REQUIRE_SERVICES=1 says everything must be there (as .ci/test.sh
// sets), so that an integration or side-by-side test never silently turns
// into no test. It is the one place that decides; call it from the test's
// goroutine.
func Need(t testing.TB, format string, args ...any) {
	t.Helper()
	if Required() {
		t.Fatalf(format+" (GBENCH_REQUIRE_SERVICES=1)", args...)
	}
	t.Skipf(format, args...)
}

// Required reports whether GBENCH_REQUIRE_SERVICES=1 asks that every
// service the tests use be there.
func Required() bool { return os.Getenv("GBENCH_REQUIRE_SERVICES") == "1" }

func need(t testing.TB, format string, args ...any) {
	t.Helper()
	Need(t, format, args...)
}

// freePort returns a TCP port of 127.0.0.1 that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// account is who runs PostgreSQL: the postgres user when we are root (or
// $GBENCH_SANDBOX_USER), else ourselves (nil).
func account(t testing.TB) *credential {
	t.Helper()
	if os.Geteuid() != 0 {
		return nil
	}
	name := os.Getenv("GBENCH_SANDBOX_USER")
	if name == "" {
		name = "postgres"
	}
	u, err := user.Lookup(name)
	if err != nil {
		need(t, "PostgreSQL cannot run as root and there is no user %s to run it: %v", name, err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &credential{Uid: uint32(uid), Gid: uint32(gid)}
}

// newDir creates a directory under /tmp that cred can use, removed when
// the test ends.
func newDir(t testing.TB, cred *credential) string {
	t.Helper()
	dir, err := os.MkdirTemp("/tmp", "gbench-testsrv-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if cred != nil {
		if err := os.Chown(dir, int(cred.Uid), int(cred.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// run runs a command as cred in dir and fails the test, with its output,
// when it fails.
func run(t testing.TB, cred *credential, dir, bin string, args ...string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = sysProcAttr(cred)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(bin), strings.Join(args, " "), err, out)
	}
}

// tail is the end of a log file, for an error message.
func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// waitFor polls cond every 50 ms until it holds or d passes.
func waitFor(d time.Duration, cond func() bool) bool {
	for end := time.Now().Add(d); ; {
		if cond() {
			return true
		}
		if time.Now().After(end) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// addr is 127.0.0.1:port.
func addr(port int) string { return fmt.Sprintf("127.0.0.1:%d", port) }
