//go:build linux

package sandbox

import "syscall"

// sysProcAttr puts the child in its own process group, runs it as cred
// (nil: as gbench's user) and has the kernel send it deathSig when gbench
// dies. Go sets the death signal after changing credentials, which would
// otherwise clear it.
func sysProcAttr(cred *syscall.Credential, deathSig syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Credential: cred, Pdeathsig: deathSig}
}
