package matrix

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// clockTicks is USER_HZ, the unit of the times in /proc/<pid>/stat. Linux
// fixes it at 100 for user space whatever the kernel's HZ (sysconf's
// _SC_CLK_TCK answers 100), so reading it needs no cgo.
const clockTicks = 100

// procRoot is where the proc file system is mounted.
const procRoot = "/proc"

// seconds converts clock ticks to seconds.
func seconds(ticks int64) float64 { return float64(ticks) / clockTicks }

// procStat holds the fields of /proc/<pid>/stat we use.
type procStat struct {
	comm                        string
	ppid                        int
	utime, stime, cutime, cstim int64
}

// readStat reads /proc/<pid>/stat. The command name is in parentheses and
// may hold spaces and parentheses itself, so the fields are counted from
// the last ')'.
func readStat(pid int) (procStat, error) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/stat", procRoot, pid))
	if err != nil {
		return procStat{}, err
	}
	open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
	if open < 0 || end < open {
		return procStat{}, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[end+1:])) // f[0] is field 3, state
	if len(f) < 15 {
		return procStat{}, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f)+2)
	}
	var n [5]int64
	for i, idx := range []int{1, 11, 12, 13, 14} { // ppid, utime, stime, cutime, cstime
		if n[i], err = strconv.ParseInt(f[idx], 10, 64); err != nil {
			return procStat{}, fmt.Errorf("/proc/%d/stat: %w", pid, err)
		}
	}
	return procStat{comm: string(b[open+1 : end]), ppid: int(n[0]), utime: n[1], stime: n[2], cutime: n[3], cstim: n[4]}, nil
}

// children returns the process ids of pid's children, from the children
// file of each of its threads (a process's children are spread over the
// threads that forked them; PostgreSQL has one), or by scanning /proc when
// the kernel lacks those files.
func children(pid int) ([]int, error) {
	dir := fmt.Sprintf("%s/%d/task", procRoot, pid)
	tasks, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(dir + "/" + t.Name() + "/children")
		if errors.Is(err, fs.ErrNotExist) && len(out) == 0 {
			if _, serr := os.Stat(dir + "/" + t.Name()); serr == nil {
				return scanChildren(pid) // no CONFIG_PROC_CHILDREN
			}
		}
		if err != nil {
			continue // the thread ended
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out, nil
}

// scanChildren finds pid's children by reading every process's stat.
func scanChildren(pid int) ([]int, error) {
	entries, err := os.ReadDir(procRoot)
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, err := readStat(n); err == nil && st.ppid == pid {
			out = append(out, n)
		}
	}
	return out, nil
}

// treeCPU is the CPU time of a process tree: ns is the scheduler's run
// time of the live processes (/proc/<pid>/schedstat, nanoseconds, user and
// system together) plus the times of the children they reaped, which only
// clock ticks record (reapedTicks); user and sys are every process's clock
// ticks, reaped children's included, which split ns between user and
// system. fuzzy counts the tick values that carry rounding: the
// postmaster's cutime and cstime, and those of any child that reaped
// children of its own (a PostgreSQL backend forks none).
type treeCPU struct {
	user, sys   int64
	ns          int64
	reapedTicks int64
	fuzzy       int
}

// readSchedstat returns the first field of /proc/<pid>/schedstat: the
// nanoseconds the process's main thread has spent on a CPU. PostgreSQL's
// processes have one thread each.
func readSchedstat(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("%s/%d/schedstat", procRoot, pid))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("/proc/%d/schedstat: empty", pid)
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/%d/schedstat: %w", pid, err)
	}
	return n, nil
}

// readTreeCPU returns the CPU time of a postmaster and its children: each
// live child's run time from schedstat and the times of its reaped
// children from stat, then the postmaster's own. The postmaster is read
// last: a child reaped in between has its time moved to the postmaster's
// cutime/cstime, where it is still found (a child reaped between its own
// read and the postmaster's would count twice, a window of microseconds).
// It also returns the live children.
func readTreeCPU(pm int) (treeCPU, []int, error) {
	kids, err := children(pm)
	if err != nil {
		return treeCPU{}, nil, err
	}
	var t treeCPU
	live := kids[:0]
	for _, k := range kids {
		st, err := readStat(k)
		if err != nil {
			continue // gone: reaped, its time is now the postmaster's
		}
		ns, err := readSchedstat(k)
		if err != nil {
			continue // gone between the two reads
		}
		t.add(st, ns)
		if st.cutime+st.cstim > 0 {
			t.fuzzy += 2
		}
		live = append(live, k)
	}
	st, err := readStat(pm)
	if err != nil {
		return treeCPU{}, nil, err
	}
	ns, err := readSchedstat(pm)
	if err != nil {
		return treeCPU{}, nil, err
	}
	t.add(st, ns)
	t.fuzzy += 2
	return t, live, nil
}

func (t *treeCPU) add(st procStat, ns int64) {
	t.user += st.utime + st.cutime
	t.sys += st.stime + st.cstim
	t.ns += ns
	t.reapedTicks += st.cutime + st.cstim
}

// total is the tree's CPU time, in seconds: the run time of the live processes and
// the reaped children's ticks.
func (t treeCPU) total() float64 { return float64(t.ns)/1e9 + seconds(t.reapedTicks) }

// treeMemory is the memory of a process tree, in bytes.
type treeMemory struct {
	rss, anon, pss int64
	pssOK          bool // every live process's smaps_rollup was readable
	processes      int
}

// readTreeMemory sums the memory of a postmaster and its children: VmRSS
// and RssAnon from status, Pss from smaps_rollup (which needs the right to
// trace the processes: root or the server's own user).
func readTreeMemory(pm int) (treeMemory, error) {
	kids, err := children(pm)
	if err != nil {
		return treeMemory{}, err
	}
	m := treeMemory{pssOK: true}
	for _, pid := range append([]int{pm}, kids...) {
		st, err := readKB(pid, "status", "VmRSS:", "RssAnon:")
		if err != nil {
			continue // gone
		}
		m.processes++
		m.rss += st[0]
		m.anon += st[1]
		pss, err := readKB(pid, "smaps_rollup", "Pss:")
		switch {
		case err == nil:
			m.pss += pss[0]
		case errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH):
			// Gone, or exiting: a process whose memory is already released
			// answers "no such process".
		default:
			m.pssOK = false
		}
	}
	if m.processes == 0 {
		return m, fmt.Errorf("no process of PostgreSQL %d found", pm)
	}
	return m, nil
}

// readKB reads the "Name: N kB" lines of /proc/<pid>/<file> named by keys,
// in bytes; a missing line reads as 0 (a zombie has no memory lines).
func readKB(pid int, file string, keys ...string) ([]int64, error) {
	f, err := os.Open(fmt.Sprintf("%s/%d/%s", procRoot, pid, file))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([]int64, len(keys))
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		for i, k := range keys {
			if rest, ok := strings.CutPrefix(line, k); ok {
				v, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				out[i] = v << 10
			}
		}
	}
	return out, sc.Err()
}
