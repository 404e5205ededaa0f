//go:build unix && !linux

package sandbox

import "syscall"

// sysProcAttr puts the child in its own process group and runs it as cred
// (nil: as gbench's user). This system has no parent-death signal, so a
// server outlives a gbench killed with SIGKILL; the next Start's sweep
// leaves its directory alone while it runs.
func sysProcAttr(cred *syscall.Credential, _ syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred}
}
