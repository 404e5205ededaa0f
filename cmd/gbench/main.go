// Command gbench is pgbench rebuilt in Go, and more: the same scripts,
// flags, output and exit codes, plus \resp for Redis-protocol servers,
// latency percentiles and JSON results. Run "gbench --help".
package main

import (
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

func main() {
	env := &Env{
		Stdin:  os.Stdin,
		Stdout: os.Stdout,
		Stderr: os.Stderr,
		Getenv: os.Getenv,
		Now:    time.Now,
		Signals: func(c chan<- os.Signal) {
			signal.Notify(c, os.Interrupt, syscall.SIGTERM)
		},
	}
	stop := startProfile(os.Getenv("GBENCH_CPUPROFILE"))
	code := Run(env, os.Args[1:])
	stop()
	os.Exit(code)
}

// startProfile writes a CPU profile to path when it is set (a developer
// aid: GBENCH_CPUPROFILE=cpu.prof gbench ...).
func startProfile(path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
