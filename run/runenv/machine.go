package runenv

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"

	"github.com/gbench/gbench/result/schema"
)

// procRoot is where the proc file system is mounted.
const procRoot = "/proc"

// Machine describes the client machine.
type Machine struct {
	// CPUModel is the first "model name" of /proc/cpuinfo; "" where there
	// is none.
	CPUModel string `json:"cpu_model"`
	// Cores is the number of logical CPUs gbench may use.
	Cores int `json:"cores"`
	OS    OS  `json:"os"`
	// Load is the 1, 5 and 15 minute load averages when the context was
	// taken.
	Load []float64 `json:"load"`
}

// OS is uname's answer: the kernel's name, release, version and machine.
// The result schema owns the type, so that reading a result needs neither
// runenv nor the drivers runenv asks.
type OS = schema.OS

// ThisMachine describes the machine gbench runs on.
func ThisMachine() Machine {
	return Machine{CPUModel: CPUModel(), Cores: runtime.NumCPU(), OS: Uname(), Load: LoadAverage()}
}

// CPUModel is the first "model name" of /proc/cpuinfo, or "" elsewhere.
func CPUModel() string {
	f, err := os.Open(procRoot + "/cpuinfo")
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// LoadAverage returns the 1, 5 and 15 minute load averages; zeros when
// /proc/loadavg is unreadable.
func LoadAverage() []float64 {
	out := []float64{0, 0, 0}
	b, err := os.ReadFile(procRoot + "/loadavg")
	if err != nil {
		return out
	}
	for i, f := range strings.Fields(string(b)) {
		if i < 3 {
			out[i], _ = strconv.ParseFloat(f, 64)
		}
	}
	return out
}
