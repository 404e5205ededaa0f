//go:build !linux

package sandbox

import (
	"errors"
	"io"
	"syscall"
)

// cgroup is Linux's; elsewhere newCgroup says so and the servers' CPU time
// is read from their processes.
type cgroup struct{}

func newCgroup(string) (*cgroup, error) {
	return nil, errors.New("control groups are a Linux feature")
}

func (c *cgroup) apply(*syscall.SysProcAttr) {}
func (c *cgroup) Path() string               { return "" }
func (c *cgroup) remove() error              { return nil }
func sweepCgroups(string, io.Writer)         {}

// v1Cgroups are Linux's.
type v1Cgroups struct{}

func newV1Cgroups(string) (*v1Cgroups, error) {
	return nil, errors.New("control groups are a Linux feature")
}

func (c *v1Cgroups) join(int) error    { return nil }
func (c *v1Cgroups) dir(string) string { return "" }
func (c *v1Cgroups) remove() error     { return nil }
func sweepCgroups1(string, io.Writer)  {}
