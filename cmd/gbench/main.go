// Command gbench is pgbench rebuilt in Go, and more: the same scripts,
// flags, output and exit codes, plus \resp for Redis-protocol servers,
// latency percentiles and JSON results. Run "gbench --help".
package main

import (
	"os"
	"os/signal"
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
	os.Exit(Run(env, os.Args[1:]))
}
