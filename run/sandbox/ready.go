package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// pollInterval is the pause between readiness probes.
const pollInterval = 50 * time.Millisecond

// portAttempts bounds the retries when another process takes the free port
// between our probe and the server's bind.
const portAttempts = 3

// errPortInUse marks a server that exited because its port was taken.
var errPortInUse = errors.New("port already in use")

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago. It is
// never 5432 or 6379, where the machine's own servers listen.
func freePort() (int, error) {
	for range 10 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, fmt.Errorf("sandbox: cannot find a free port: %w", err)
		}
		port := l.Addr().(*net.TCPAddr).Port
		_ = l.Close() // a listener that was never accepted on has nothing to flush
		if port != 5432 && port != 6379 {
			return port, nil
		}
	}
	return 0, errors.New("sandbox: cannot find a free port")
}

// waitReady calls probe until it succeeds, p exits, ctx ends or timeout
// passes. The error names the server and carries the tail of its log.
func waitReady(ctx context.Context, p *proc, timeout time.Duration, logPath string, probe func(context.Context) error) error {
	wctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		last := probe(wctx)
		if last == nil {
			return nil
		}
		select {
		case <-p.exited:
			return exitError(p, logPath)
		case <-wctx.Done():
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("sandbox: starting %s: %w", p.name, err)
			}
			return fmt.Errorf("sandbox: %s did not accept connections within %s: %v%s", p.name, timeout, last, tail(logPath))
		case <-tick.C:
		}
	}
}

// exitError describes a server that exited during startup, wrapping
// errPortInUse when its log says so.
func exitError(p *proc, logPath string) error {
	log := tail(logPath)
	if strings.Contains(log, "Address already in use") {
		return fmt.Errorf("sandbox: %s exited during startup: %w%s", p.name, errPortInUse, log)
	}
	return fmt.Errorf("sandbox: %s exited during startup (%v)%s", p.name, p.err, log)
}

// tailBytes is how much of a log an error quotes.
const tailBytes = 2048

// tail returns the end of the log at path, indented under a heading, or ""
// when it is empty or unreadable.
func tail(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.Size() > tailBytes {
		_, _ = f.Seek(-tailBytes, io.SeekEnd) // on failure we quote from the start
	}
	b, _ := io.ReadAll(io.LimitReader(f, tailBytes))
	text := strings.TrimSpace(string(b))
	if text == "" {
		return ""
	}
	// The base name only: the file goes with the sandbox.
	return "\n" + filepath.Base(path) + ":\n    " + strings.ReplaceAll(text, "\n", "\n    ")
}
