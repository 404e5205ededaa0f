package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

// proc is a child process the sandbox started. Its process group is its own
// (Setpgid), so the terminal's Ctrl-C reaches gbench alone and gbench decides
// when the servers stop.
type proc struct {
	name   string
	cmd    *exec.Cmd
	exited chan struct{} // closed once Wait has returned
	err    error         // Wait's result; read only after exited is closed
}

// start starts cmd on a goroutine that locks its OS thread and keeps it
// until the child has exited. Linux sends Pdeathsig when the forking thread
// ends, not the process, and Go ends a thread only when a goroutine exits
// while locked to it; holding the thread means no other goroutine can end it
// under our child (go.dev/issue/27505).
func start(name string, cmd *exec.Cmd) (*proc, error) {
	p := &proc{name: name, cmd: cmd, exited: make(chan struct{})}
	started := make(chan error, 1)
	go func() {
		runtime.LockOSThread() // never unlocked: the thread ends with this goroutine
		if err := cmd.Start(); err != nil {
			started <- err
			return
		}
		started <- nil
		p.err = cmd.Wait()
		close(p.exited)
	}()
	if err := <-started; err != nil {
		return nil, fmt.Errorf("sandbox: cannot start %s: %w", name, err)
	}
	return p, nil
}

// pid is the child's process id.
func (p *proc) pid() int { return p.cmd.Process.Pid }

// done reports whether the child has exited.
func (p *proc) done() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// wait waits for the child to exit, stopping it with SIGTERM if ctx ends
// first.
func (p *proc) wait(ctx context.Context) error {
	select {
	case <-p.exited:
		return p.err
	case <-ctx.Done():
		_ = p.stop(stopTimeout, syscall.SIGTERM) // the caller needs ctx.Err(), not how the stop went
		return ctx.Err()
	}
}

// signal sends sig to the child while it is alive; once it is reaped its id
// may belong to someone else.
func (p *proc) signal(sig syscall.Signal) error {
	if p.done() {
		return nil
	}
	err := signalProcess(p.cmd.Process, sig)
	if err != nil && !errors.Is(err, os.ErrProcessDone) {
		return fmt.Errorf("sandbox: cannot signal %s (pid %d): %w", p.name, p.pid(), err)
	}
	return nil
}

// stop sends each signal in turn, waiting up to timeout after each, then
// kills the process group. It returns once the whole group is gone (or after
// a bounded wait), so that no straggler writes into a directory being
// removed. It is a no-op on a nil proc. Needing SIGKILL is an error.
func (p *proc) stop(timeout time.Duration, sigs ...syscall.Signal) error {
	if p == nil {
		return nil
	}
	defer p.drain(drainTimeout)
	for _, sig := range sigs {
		if err := p.signal(sig); err != nil {
			return err
		}
		if p.waitFor(timeout) {
			return nil
		}
	}
	p.kill()
	if p.waitFor(timeout) {
		return fmt.Errorf("sandbox: %s (pid %d) ignored %v for %s and was killed", p.name, p.pid(), sigs, timeout)
	}
	return fmt.Errorf("sandbox: %s (pid %d) survived SIGKILL", p.name, p.pid())
}

// kill sends SIGKILL to the child's process group while the child is alive.
func (p *proc) kill() {
	if !p.done() {
		killGroup(p.pid())
	}
}

// waitFor reports whether the child exits within d.
func (p *proc) waitFor(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-p.exited:
		return true
	case <-t.C:
		return false
	}
}

// drainTimeout bounds the wait for a process group to empty; zombies that
// nobody reaps (a container without an init) would otherwise hold it forever.
const drainTimeout = 3 * time.Second

// drain waits up to d for the rest of the exited child's process group
// (PostgreSQL backends, initdb's postgres) to go. The group id cannot be
// reused while any member lives, so probing it is safe.
func (p *proc) drain(d time.Duration) {
	if !p.done() {
		return
	}
	deadline := time.Now().Add(d)
	for groupAlive(p.pid()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
}
