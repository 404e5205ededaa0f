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
	writeHeapProfile(os.Getenv("GBENCH_MEMPROFILE"))
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

// writeHeapProfile writes a heap profile to path when it is set, at the
// end of the run (a developer aid like GBENCH_CPUPROFILE: what each
// connection costs shows in its alloc_space).
func writeHeapProfile(path string) {
	if path == "" {
		return
	}
	if f, err := os.Create(path); err == nil {
		_ = pprof.Lookup("heap").WriteTo(f, 0)
		f.Close()
	}
}
