//go:build !unix

package testsrv

import "syscall"

// credential is the user a server runs as; only Unix systems switch.
type credential struct{ Uid, Gid uint32 }

// sysProcAttr runs every command as ourselves.
func sysProcAttr(*credential) *syscall.SysProcAttr { return nil }
