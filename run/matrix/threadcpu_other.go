//go:build !linux

package matrix

import "time"

// threadCPU returns 0: only Linux reports a thread's CPU time.
func threadCPU() time.Duration { return 0 }
