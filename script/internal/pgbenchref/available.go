package pgbenchref

import (
	"context"
	"os"
	"os/exec"
	"sync"
	"time"
)

// DefaultConninfo is the server used when GBENCH_TEST_PG is unset.
const DefaultConninfo = "host=127.0.0.1 port=5432 user=postgres dbname=test"

// Conninfo returns the libpq conninfo string pgbench connects with:
// GBENCH_TEST_PG when set, DefaultConninfo otherwise.
func Conninfo() string {
	if s := os.Getenv("GBENCH_TEST_PG"); s != "" {
		return s
	}
	return DefaultConninfo
}

var available struct {
	once sync.Once
	ok   bool
}

// Available reports whether pgbench is on PATH and can run a trivial
// script against the server. The answer is computed once per process;
// Available is safe for concurrent use.
func Available() bool {
	available.once.Do(func() {
		if _, err := exec.LookPath("pgbench"); err != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		out, err := Run(ctx, "SELECT 1;\n")
		available.ok = err == nil && out.ExitCode == 0
	})
	return available.ok
}
