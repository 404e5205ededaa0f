package engine

import (
	"time"

	"golang.org/x/sys/windows"
)

// cpuTimes returns the process's user and system CPU time.
func cpuTimes() (user, sys time.Duration) {
	var creation, exit, kernel, usr windows.Filetime
	if err := windows.GetProcessTimes(windows.CurrentProcess(), &creation, &exit, &kernel, &usr); err != nil {
		return 0, 0
	}
	// Filetimes count 100 ns intervals.
	ticks := func(f windows.Filetime) time.Duration {
		return time.Duration(int64(f.HighDateTime)<<32|int64(f.LowDateTime)) * 100
	}
	return ticks(usr), ticks(kernel)
}
