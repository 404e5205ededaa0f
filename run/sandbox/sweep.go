package sandbox

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// dirPrefix starts the name of every sandbox directory.
const dirPrefix = "gbench-sandbox-"

// Files in a sandbox directory holding process ids, so that a later Start
// can tell a directory left behind by a killed gbench from a live one.
const (
	ownerPIDFile    = "gbench.pid"
	postgresPIDFile = "postgres.pid"
	redisPIDFile    = "redis.pid"
)

// writePID records pid in dir/name.
func writePID(dir, name string, pid int) error {
	return os.WriteFile(filepath.Join(dir, name), []byte(strconv.Itoa(pid)+"\n"), 0o644)
}

// sweep removes the sandbox directories under base whose gbench and servers
// are all gone. A gbench killed with SIGKILL cannot clean up, and under
// /dev/shm its files would hold memory until reboot. Errors are only logged:
// a leftover must not stop a new run.
func sweep(base string, log io.Writer) {
	dirs, _ := filepath.Glob(filepath.Join(base, dirPrefix+"*")) // fixed pattern: no error
	for _, dir := range dirs {
		if !abandoned(dir) {
			continue
		}
		if err := os.RemoveAll(dir); err != nil {
			fmt.Fprintf(log, "sandbox: cannot remove abandoned %s: %v\n", dir, err)
			continue
		}
		fmt.Fprintf(log, "sandbox: removed abandoned %s\n", dir)
	}
}

// abandoned reports whether dir has an owner file and no process it names
// is alive. A directory without an owner file may be one being created.
func abandoned(dir string) bool {
	owner, ok := readPID(filepath.Join(dir, ownerPIDFile))
	if !ok || alive(owner) {
		return false
	}
	for _, name := range []string{postgresPIDFile, redisPIDFile} {
		if pid, ok := readPID(filepath.Join(dir, name)); ok && alive(pid) {
			return false
		}
	}
	return true
}

// readPID reads a decimal process id from the first line of path.
func readPID(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	return pid, err == nil && pid > 0
}

// alive reports whether a process with this id runs. EPERM means it exists
// but belongs to someone else; a zombie (Linux /proc state Z) has finished
// and only waits for a parent that may never reap it.
func alive(pid int) bool {
	if !processExists(pid) {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true // no /proc: trust kill
	}
	// The state follows the parenthesised command name, which may hold spaces.
	_, rest, _ := strings.Cut(string(b[bytes.LastIndexByte(b, ')')+1:]), " ")
	return !strings.HasPrefix(rest, "Z")
}
