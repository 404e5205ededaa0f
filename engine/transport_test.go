package engine_test

import (
	"flag"
	"os"
	osexec "os/exec"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine"
)

// testTransport is the transport the tests run over: the one
// GBENCH_TRANSPORT names, or the platform's default.
func testTransport(t testing.TB) engine.Transport {
	tr, err := engine.TransportFromEnv(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// TestOtherTransport runs this package's tests again over the transport
// the run did not use: on Linux the default is epoll, so the portable one
// is tested too and cannot rot. Elsewhere only the portable one exists.
func TestOtherTransport(t *testing.T) {
	if os.Getenv("GBENCH_TRANSPORT") != "" {
		t.Skip("this run already chose its transport")
	}
	if testing.Short() {
		t.Skip("runs the package's tests again")
	}
	if runtime.GOOS != "linux" {
		t.Skip("only the portable transport exists here")
	}
	args := []string{"-test.count=1", "-test.skip=^TestOtherTransport$", "-test.v"}
	if f := flag.Lookup("test.run").Value.String(); f != "" {
		args = append(args, "-test.run="+f)
	}
	cmd := osexec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "GBENCH_TRANSPORT=portable")
	out, err := cmd.CombinedOutput()
	passed := regexp.MustCompile(`(?m)^--- PASS`).FindAll(out, -1)
	if err != nil {
		t.Fatalf("over the portable transport: %v\n%s", err, out)
	}
	t.Logf("over the portable transport: %d tests passed", len(passed))
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "--- SKIP") {
			t.Log(line)
		}
	}
}
