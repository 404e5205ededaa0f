//go:build linux

package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// v1Controllers are the cgroup v1 controllers in which a server gets a
// directory of its own, whose files make its resource record: memory
// (usage, peak, failcnt) and blkio (bytes and operations). Neither changes
// how the server runs: no limit is set. The cpu controller is left out: in
// a v1 cpu group of its own the kernel would weigh all of the server's
// processes together as one task against each of the client's threads,
// and the server would get less of the CPU than it does outside; its
// throttling is read from the cpu group it shares with gbench (sharedCPU).
var v1Controllers = []string{"memory", "blkio"}

// v1Cgroups are the cgroup v1 directories of one server, by controller, on
// a system (hybrid or legacy) whose memory, blkio and cpu controllers are
// mounted as cgroup v1 hierarchies. CLONE_INTO_CGROUP works for cgroup v2
// only, so the server is moved into them right after it starts (join).
type v1Cgroups struct {
	dirs map[string]string
	// sharedCPU is the v1 cpu directory the server runs in, gbench's own.
	sharedCPU string
}

// newV1Cgroups creates the directory name in the hierarchy of each v1
// controller that is mounted: at its root when gbench may write there,
// else under gbench's own cgroup. It returns nil and the reason when
// none is mounted or none can be created.
func newV1Cgroups(name string) (*v1Cgroups, error) {
	mounts, err := cgroup1Mounts()
	if err != nil {
		return nil, err
	}
	own := ownCgroups1()
	c := &v1Cgroups{dirs: map[string]string{}}
	var errs []error
	for _, ctl := range v1Controllers {
		mount, ok := mounts[ctl]
		if !ok {
			continue
		}
		parents := []string{mount}
		if p := own[ctl]; p != "" && p != "/" {
			parents = append(parents, filepath.Join(mount, p))
		}
		for _, parent := range parents {
			dir := filepath.Join(parent, name)
			if err := os.Mkdir(dir, 0o755); err != nil {
				errs = append(errs, err)
				continue
			}
			c.dirs[ctl] = dir
			break
		}
	}
	if mount, ok := mounts["cpu"]; ok {
		c.sharedCPU = filepath.Join(mount, own["cpu"])
	}
	if len(c.dirs) == 0 {
		if len(errs) == 0 {
			return nil, errors.New("no cgroup v1 memory, blkio or cpu controller is mounted")
		}
		return nil, fmt.Errorf("cannot create a cgroup v1 directory: %w", errors.Join(errs...))
	}
	return c, nil
}

// join moves pid into every directory, then each of its children: a
// server that forked before its own move (the window is the microseconds
// between its exec and the write, while the postmaster is still reading
// its configuration) has its children moved too; a child forked after
// the move starts inside. Memory charged before the move (initdb's files
// on tmpfs, which gbench's own cgroup holds) stays where it was charged.
func (c *v1Cgroups) join(pid int) error {
	if c == nil {
		return nil
	}
	var errs []error
	for _, ctl := range v1Controllers {
		dir, ok := c.dirs[ctl]
		if !ok {
			continue
		}
		pids := append([]int{pid}, childrenOf(pid)...)
		for _, p := range pids {
			if err := os.WriteFile(filepath.Join(dir, "cgroup.procs"), []byte(strconv.Itoa(p)), 0); err != nil && p == pid {
				errs = append(errs, fmt.Errorf("%s: %w", ctl, err))
			}
		}
	}
	return errors.Join(errs...)
}

// childrenOf reads the children of pid's main thread (PostgreSQL and Redis
// fork from it); nil when the kernel lacks the file.
func childrenOf(pid int) []int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		return nil
	}
	var out []int
	for _, f := range strings.Fields(string(b)) {
		if n, err := strconv.Atoi(f); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// dir is the directory of a controller; "" when there is none.
func (c *v1Cgroups) dir(ctl string) string {
	if c == nil {
		return ""
	}
	if ctl == "cpu" {
		return c.sharedCPU
	}
	return c.dirs[ctl]
}

// remove deletes the directories once the server is gone.
func (c *v1Cgroups) remove() error {
	if c == nil {
		return nil
	}
	var errs []error
	for _, dir := range c.dirs {
		deadline := time.Now().Add(drainTimeout)
		for {
			err := syscall.Rmdir(dir)
			if err == nil || errors.Is(err, syscall.ENOENT) {
				break
			}
			if !errors.Is(err, syscall.EBUSY) || time.Now().After(deadline) {
				errs = append(errs, fmt.Errorf("sandbox: cannot remove cgroup %s: %w", dir, err))
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return errors.Join(errs...)
}

// cgroup1Mounts finds the mount point of each cgroup v1 controller.
func cgroup1Mounts() (map[string]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return findCgroup1(f)
}

// findCgroup1 reads mountinfo lines ("... mountpoint ... - cgroup source
// super-options") and returns, for each of v1Controllers named in a
// cgroup mount's super options, its mount point.
func findCgroup1(r io.Reader) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		pre, post, ok := strings.Cut(sc.Text(), " - ")
		if !ok {
			continue
		}
		fs := strings.Fields(post)
		if len(fs) < 3 || fs[0] != "cgroup" {
			continue
		}
		f := strings.Fields(pre)
		if len(f) < 5 {
			continue
		}
		for _, opt := range strings.Split(fs[2], ",") {
			for _, ctl := range append(v1Controllers, "cpu") {
				if opt == ctl {
					if _, seen := out[ctl]; !seen {
						out[ctl] = unescapeMount(f[4])
					}
				}
			}
		}
	}
	return out, sc.Err()
}

// ownCgroups1 returns this process's cgroup v1 path per controller
// ("4:memory:/path" in /proc/self/cgroup).
func ownCgroups1() map[string]string {
	out := map[string]string{}
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return out
	}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.SplitN(line, ":", 3)
		if len(f) != 3 || f[1] == "" {
			continue
		}
		for _, ctl := range strings.Split(f[1], ",") {
			out[ctl] = f[2]
		}
	}
	return out
}

// sweepCgroups1 removes the empty v1 directories of sandboxes whose
// directory under base is gone.
func sweepCgroups1(base string, log io.Writer) {
	mounts, err := cgroup1Mounts()
	if err != nil {
		return
	}
	own := ownCgroups1()
	for ctl, mount := range mounts {
		parents := []string{mount}
		if p := own[ctl]; p != "" && p != "/" {
			parents = append(parents, filepath.Join(mount, p))
		}
		for _, parent := range parents {
			dirs, _ := filepath.Glob(filepath.Join(parent, cgroupPrefix+"*")) // fixed pattern: no error
			for _, dir := range dirs {
				sb, _, _ := strings.Cut(filepath.Base(dir), ".")
				if _, err := os.Stat(filepath.Join(base, sb)); err == nil {
					continue
				}
				if syscall.Rmdir(dir) == nil {
					fmt.Fprintf(log, "sandbox: removed abandoned cgroup %s\n", dir)
				}
			}
		}
	}
}
