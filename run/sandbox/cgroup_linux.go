//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// cgroup is a cgroup v2 directory that holds one server's processes: the
// server is forked straight into it (CLONE_INTO_CGROUP), and every process
// it forks later stays there, so the directory's cpu.stat counts the CPU
// time of the whole server, backends that came and went included, to the
// microsecond. Removing it needs it empty: remove runs after the server
// has stopped.
type cgroup struct {
	path string
	dir  *os.File // opened for CLONE_INTO_CGROUP
}

// cgroupPrefix starts the name of every cgroup a sandbox creates; the rest
// is the sandbox directory's name and the server's.
const cgroupPrefix = dirPrefix

// newCgroup creates the cgroup named name under the cgroup v2 hierarchy:
// at its root when gbench may write there (root), else under gbench's own
// cgroup (a delegated subtree). It says why when neither works.
func newCgroup(name string) (*cgroup, error) {
	mount, err := cgroup2Mount()
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, parent := range cgroupParents(mount) {
		path := filepath.Join(parent, name)
		if err := os.Mkdir(path, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		dir, err := os.Open(path)
		if err != nil {
			_ = os.Remove(path)
			return nil, err
		}
		return &cgroup{path: path, dir: dir}, nil
	}
	return nil, fmt.Errorf("cannot create a cgroup: %w", errors.Join(errs...))
}

// cgroupParents are the directories a sandbox may create its cgroups in:
// the hierarchy's root, then the cgroup gbench runs in.
func cgroupParents(mount string) []string {
	out := []string{mount}
	if own, err := ownCgroup(); err == nil && own != "/" {
		out = append(out, filepath.Join(mount, own))
	}
	return out
}

// ownCgroup returns this process's cgroup v2 path ("0::/path").
func ownCgroup() (string, error) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "0::"); ok {
			return rest, nil
		}
	}
	return "", errors.New("no cgroup v2 entry in /proc/self/cgroup")
}

// cgroup2Mount finds where the cgroup v2 hierarchy is mounted: at
// /sys/fs/cgroup on a unified system, /sys/fs/cgroup/unified on a hybrid
// one.
func cgroup2Mount() (string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return "", err
	}
	defer f.Close()
	return findCgroup2(f)
}

// findCgroup2 reads mountinfo lines ("... mountpoint ... - fstype source
// options") and returns the first cgroup2 mount point.
func findCgroup2(r io.Reader) (string, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		if fs := strings.Fields(post); len(fs) == 0 || fs[0] != "cgroup2" {
			continue
		}
		if f := strings.Fields(pre); len(f) >= 5 {
			return unescapeMount(f[4]), nil
		}
	}
	if err := sc.Err(); err != nil {
		return "", err
	}
	return "", errors.New("no cgroup v2 hierarchy is mounted")
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) && isOctal(s[i+1]) && isOctal(s[i+2]) && isOctal(s[i+3]) {
			b.WriteByte((s[i+1]-'0')<<6 | (s[i+2]-'0')<<3 | (s[i+3] - '0'))
			i += 3
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func isOctal(c byte) bool { return c >= '0' && c <= '7' }

// apply makes a child start inside the cgroup.
func (c *cgroup) apply(a *syscall.SysProcAttr) {
	a.UseCgroupFD = true
	a.CgroupFD = int(c.dir.Fd())
}

// Path is the cgroup's directory; "" for a nil cgroup.
func (c *cgroup) Path() string {
	if c == nil {
		return ""
	}
	return c.path
}

// remove deletes the cgroup once its last process is gone (a process that
// exited but is not yet reaped still holds it for a moment).
func (c *cgroup) remove() error {
	if c == nil {
		return nil
	}
	c.dir.Close()
	deadline := time.Now().Add(drainTimeout)
	for {
		err := syscall.Rmdir(c.path)
		if err == nil || errors.Is(err, syscall.ENOENT) {
			return nil
		}
		if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
			return fmt.Errorf("sandbox: cannot remove cgroup %s: %w", c.path, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// sweepCgroups removes the empty cgroups of sandboxes whose directory under
// base is gone (a gbench killed with SIGKILL leaves them behind).
func sweepCgroups(base string, log io.Writer) {
	mount, err := cgroup2Mount()
	if err != nil {
		return
	}
	for _, parent := range cgroupParents(mount) {
		dirs, _ := filepath.Glob(filepath.Join(parent, cgroupPrefix+"*")) // fixed pattern: no error
		for _, dir := range dirs {
			sb, _, _ := strings.Cut(filepath.Base(dir), ".")
			if _, err := os.Stat(filepath.Join(base, sb)); err == nil {
				continue // its sandbox may still run
			}
			if syscall.Rmdir(dir) == nil {
				fmt.Fprintf(log, "sandbox: removed abandoned cgroup %s\n", dir)
			}
		}
	}
}
