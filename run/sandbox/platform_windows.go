package sandbox

import (
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// Windows has no signals and no process groups: the sandbox's servers run
// as the user who starts gbench, in a new process group of their own, and
// are stopped by terminating them.

// account is gbench's own user: there is no root to step down from.
type account struct {
	name string
	cred *credential
}

type credential struct{}

func lookupAccount(string) (account, error) { return account{}, nil }

func (a account) reach(string) error { return nil }

func (a account) chown(string) error { return nil }

func (a account) String() string { return "current user" }

func sysProcAttr(*credential, syscall.Signal) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// defaultBaseDir is the temporary directory.
func defaultBaseDir() string { return os.TempDir() }

// signalProcess terminates the process, whatever sig asks.
func signalProcess(p *os.Process, _ syscall.Signal) error { return p.Kill() }

// killGroup terminates the process.
func killGroup(pid int) {
	if p, err := os.FindProcess(pid); err == nil {
		_ = p.Kill()
	}
}

// groupAlive cannot be told without process groups: the caller has
// already seen the process itself exit.
func groupAlive(int) bool { return false }

// processExists reports whether a process with this id still runs.
func processExists(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return false
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code == 259 // STILL_ACTIVE
}
