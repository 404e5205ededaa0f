//go:build unix

package main

import "golang.org/x/sys/unix"

// checkFileLimit makes sure enough file descriptors are allowed, raising
// the soft limit when needed, as pgbench does.
func checkFileLimit(conns int) error {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		return usagef("getrlimit failed: %v", err)
	}
	need := uint64(conns + 16)
	if uint64(lim.Max) < need {
		return usagef("need at least %d open files, but system limit is %d\ngbench: hint: Reduce number of clients, or use limit/ulimit to increase the system limit.", need, lim.Max)
	}
	if uint64(lim.Cur) < need {
		setTo(&lim.Cur, need)
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
			return usagef("need at least %d open files, but couldn't raise the limit: %v", need, err)
		}
	}
	return nil
}

// setTo sets a limit field, uint64 on Linux and int64 on the BSDs.
func setTo[T int64 | uint64](f *T, v uint64) { *f = T(v) }
