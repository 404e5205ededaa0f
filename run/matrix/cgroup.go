package matrix

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// readCgroupCPU reads the CPU time of every process that ever ran in a
// cgroup v2 directory, from its cpu.stat (microseconds, processes that
// exited included).
func readCgroupCPU(dir string) (cpuTime, error) {
	b, err := os.ReadFile(filepath.Join(dir, "cpu.stat"))
	if err != nil {
		return cpuTime{}, err
	}
	return parseCgroupCPU(string(b))
}

// parseCgroupCPU reads user_usec and system_usec from a cpu.stat.
func parseCgroupCPU(text string) (cpuTime, error) {
	var user, sys int64 = -1, -1
	for _, line := range strings.Split(text, "\n") {
		name, val, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil {
			continue
		}
		switch name {
		case "user_usec":
			user = n
		case "system_usec":
			sys = n
		}
	}
	if user < 0 || sys < 0 {
		return cpuTime{}, fmt.Errorf("cpu.stat has no user_usec and system_usec")
	}
	// Whole microseconds: two values rounded down by up to 1 µs each.
	return cpuTime{user: float64(user) / 1e6, sys: float64(sys) / 1e6, source: "cgroup", sigma: math.Sqrt(2.0/12) * 1e-6}, nil
}
