package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestExitError(t *testing.T) {
	p, err := start("false", exec.Command("false"))
	if err != nil {
		t.Skip("no false(1):", err)
	}
	<-p.exited
	tests := []struct {
		name   string
		log    string
		inUse  bool
		suffix string
	}{
		// PostgreSQL losing the race for its port: retried with another.
		{"postgres bind", `FATAL:  could not bind IPv4 address "127.0.0.1": Address already in use`, true,
			"\nx.log:\n    FATAL:  could not bind IPv4 address \"127.0.0.1\": Address already in use"},
		// Any other failure: reported with the log.
		{"other", "line 1\nline 2\n", false, "\nx.log:\n    line 1\n    line 2"},
		// An empty log adds nothing.
		{"empty", "", false, "(exit status 1)"},
		// A long log is cut to its end.
		{"long", strings.Repeat("a", 5000) + "\nlast", false, "\n    last"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.log")
			if err := os.WriteFile(path, []byte(tt.log), 0o644); err != nil {
				t.Fatal(err)
			}
			err := exitError(p, path)
			if errors.Is(err, errPortInUse) != tt.inUse || !strings.HasSuffix(err.Error(), tt.suffix) {
				t.Errorf("exitError = %q; want suffix %q, port in use %v", err, tt.suffix, tt.inUse)
			}
			if len(err.Error()) > tailBytes+200 {
				t.Errorf("exitError is %d bytes long", len(err.Error()))
			}
		})
	}
}
