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

// TestOtherTransport runs this package's tests again over each transport
// the run did not use: on Linux the default is io_uring (where the kernel
// allows it), so epoll and the portable one are tested too and cannot rot.
// Elsewhere only the portable one exists.
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
	def, _, err := engine.ResolveTransport(engine.TransportAuto)
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range []engine.Transport{engine.TransportUring, engine.TransportEpoll, engine.TransportPortable} {
		if tr == def {
			continue
		}
		t.Run(tr.String(), func(t *testing.T) {
			if _, _, err := engine.ResolveTransport(tr); err != nil {
				t.Skipf("not here: %v", err)
			}
			args := []string{"-test.count=1", "-test.skip=^TestOtherTransport$", "-test.v"}
			if f := flag.Lookup("test.run").Value.String(); f != "" {
				args = append(args, "-test.run="+f)
			}
			cmd := osexec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), "GBENCH_TRANSPORT="+tr.String())
			out, err := cmd.CombinedOutput()
			passed := regexp.MustCompile(`(?m)^--- PASS`).FindAll(out, -1)
			if err != nil {
				t.Fatalf("over the %s transport: %v\n%s", tr, err, out)
			}
			t.Logf("over the %s transport: %d tests passed", tr, len(passed))
			for _, line := range strings.Split(string(out), "\n") {
				if strings.HasPrefix(line, "--- SKIP") {
					t.Log(line)
				}
			}
		})
	}
}
