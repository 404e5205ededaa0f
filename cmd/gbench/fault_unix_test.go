//go:build unix

package main

import (
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gbench/gbench/internal/testsrv"
)

// A frozen server (SIGSTOP) answers nothing. --io-timeout fails the
// waiting requests; without it, the bound after -T ends the run.
func TestFrozenServer(t *testing.T) {
	rd := testsrv.StartRedis(t)
	script := writeScript(t, "\\resp GET k\n")
	t.Run("io-timeout", func(t *testing.T) {
		run := startFaultRun(t, "-f", script, "-c", "2", "-T", "30", "--io-timeout", "300ms", "--resp", rd.URL())
		time.Sleep(500 * time.Millisecond)
		rd.Signal(syscall.SIGSTOP)
		defer rd.Signal(syscall.SIGCONT)
		// Each client aborts within the timeout and an eighth of it (the
		// watchdog's period) of freezing; the run ends with them.
		o, _ := run.wait(t, 30*time.Second)
		if o.code != 2 || strings.Count(o.stderr, "no reply within 0.300 s (--io-timeout)") != 2 {
			t.Fatalf("exit %d\n%s", o.code, o.stderr)
		}
	})
	t.Run("end of -T", func(t *testing.T) {
		run := startFaultRun(t, "-f", script, "-c", "2", "-T", "2", "--resp", rd.URL())
		time.Sleep(500 * time.Millisecond)
		rd.Signal(syscall.SIGSTOP)
		defer rd.Signal(syscall.SIGCONT)
		// -T 2, the bound of 10 s after it, the watchdog's 100 ms, and a
		// margin for the test's own scheduling.
		o, res := run.wait(t, 2*time.Second+10*time.Second+5*time.Second)
		if o.code != 2 || res.Aborted != 2 || !strings.Contains(o.stderr, "no reply 10.000 s after the end of the run (-T)") {
			t.Fatalf("exit %d, %d aborted\n%s", o.code, res.Aborted, o.stderr)
		}
	})
}
