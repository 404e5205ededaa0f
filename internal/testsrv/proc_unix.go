//go:build unix

package testsrv

import "syscall"

// credential is the user a server runs as.
type credential = syscall.Credential

// sysProcAttr runs a command as cred (nil: as ourselves).
func sysProcAttr(cred *credential) *syscall.SysProcAttr {
	if cred == nil {
		return nil
	}
	return &syscall.SysProcAttr{Credential: cred}
}
