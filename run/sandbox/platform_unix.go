//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// defaultBaseDir picks /dev/shm when it is usable, else os.TempDir().
func defaultBaseDir() string {
	const shm = "/dev/shm"
	var st syscall.Statfs_t
	if syscall.Access(shm, 2|1) != nil || syscall.Statfs(shm, &st) != nil {
		return os.TempDir()
	}
	if uint64(st.Bavail)*uint64(st.Bsize) < minShmFree {
		return os.TempDir()
	}
	return shm
}

// signalProcess sends sig to one process.
func signalProcess(p *os.Process, sig syscall.Signal) error { return p.Signal(sig) }

// killGroup sends SIGKILL to a process group; ESRCH only means it is gone.
func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }

// groupAlive reports whether a process group still has members. The group
// id cannot be reused while any member lives, so probing it is safe.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }

// processExists reports whether a process with this id exists; EPERM
// means it belongs to someone else.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || err == syscall.EPERM
}
