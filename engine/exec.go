package engine

import (
	"errors"
	"fmt"
	"os/exec"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// startCommand starts the current command. It reports true when the client
// must wait (for a reply, a timer or its turn).
func (c *client) startCommand(now *int64) bool {
	cmds := c.commands()
	if c.cmd >= len(cmds) {
		if c.pipeline {
			c.th.errorf("client %d aborted: end of script reached with pipeline open", c.id)
			c.state = stAborted
			return false
		}
		c.state = stEndTx
		return false
	}
	cmd := cmds[c.cmd]
	jumped := c.jumped
	c.jumped = false
	if jumped && (cmd.Kind == script.CmdElse || cmd.Kind == script.CmdEndif) {
		// Reached from a false condition: pass over it without executing
		// it, as pgbench's conditional stack does.
		c.cmd++
		return false
	}
	if c.th.cfg.PerCommand {
		c.stmtBegin = *now
	}
	c.next, c.jumpNext = c.cmd+1, false
	if k := c.th.run.protoFor(cmd.Kind); k >= 0 {
		return c.send(k, cmd, *now)
	}
	return c.meta(cmd, now, jumped)
}

// meta executes a meta-command; it reports true when the client waits.
// jumped is set when a false condition jumped to this \elif: it is then
// evaluated, while an \elif reached after an executed branch ends the \if.
func (c *client) meta(cmd *script.Command, now *int64, jumped bool) bool {
	if c.th.cfg.Debug {
		c.debugf("client %d executing \\%s", c.id, cmd.FirstLine[1:])
	}
	c.env.Script, c.env.Command = c.script, c.cmd
	c.state = stEndCommand
	switch cmd.Kind {
	case script.CmdSet:
		if err := c.env.ExecSet(cmd.Set); err != nil {
			c.metaFailed(cmd, err, "evaluation of meta-command failed")
		}
	case script.CmdIf:
		c.cond(cmd, cmd.Next)
	case script.CmdElif:
		if jumped {
			c.cond(cmd, cmd.Next)
		} else {
			c.next = cmd.EndIf + 1
		}
	case script.CmdElse:
		c.next = cmd.EndIf + 1
	case script.CmdEndif:
	case script.CmdSleep:
		usec, err := c.env.SleepUsec(cmd.Sleep)
		if err != nil {
			c.metaFailed(cmd, err, "execution of meta-command failed")
			return false
		}
		c.sleepUntil = *now + usec*1000
		c.state = stSleep
		return false
	case script.CmdShell, script.CmdSetShell:
		c.shell(cmd)
		*now = c.th.clock()
	case script.CmdStartPipeline:
		return c.startPipeline(cmd, *now)
	case script.CmdSyncPipeline:
		c.syncPipeline(cmd)
	case script.CmdEndPipeline:
		return c.endPipeline(cmd, *now)
	}
	if c.th.cfg.PerCommand {
		// Evaluating took time, which -r reports: read the clock again, as
		// pgbench does after a meta-command.
		*now = c.th.clock()
	}
	return false
}

// cond evaluates an \if or \elif and jumps to alt when it is false.
func (c *client) cond(cmd *script.Command, alt int) {
	ok, err := c.env.Cond(cmd.Cond)
	if err != nil {
		c.metaFailed(cmd, err, "evaluation of meta-command failed")
		return
	}
	if !ok {
		c.next, c.jumpNext = alt, true
	}
}

// metaFailed aborts the client after a meta-command error, with pgbench's
// messages.
func (c *client) metaFailed(cmd *script.Command, err error, what string) {
	c.th.errorf("%v", err)
	c.th.errorf("client %d aborted in command %d (%s) of script %d; %s", c.id, c.cmd, cmd.Name, c.script, what)
	c.estatus = esMeta
	c.state = stAborted
}

// shell runs \shell or \setshell through /bin/sh, blocking the thread as
// pgbench's system() and popen() do.
func (c *client) shell(cmd *script.Command) {
	name := cmd.Shell.Program() // pgbench's messages name the program
	var err error
	c.shellBuf, err = c.env.ShellCommand(cmd.Shell, c.shellBuf[:0])
	if err != nil {
		c.metaFailed(cmd, err, "execution of meta-command failed")
		return
	}
	sh := exec.Command("/bin/sh", "-c", string(c.shellBuf))
	if cmd.Kind == script.CmdShell {
		sh.Stdout, sh.Stderr = c.th.cfg.Stdout, c.th.cfg.Stderr
		if err := sh.Run(); err != nil {
			c.metaFailed(cmd, fmt.Errorf("%s: could not launch shell command", name), "execution of meta-command failed")
		}
		return
	}
	sh.Stderr = c.th.cfg.Stderr
	out, err := sh.Output()
	if err != nil && len(out) == 0 {
		c.metaFailed(cmd, fmt.Errorf("%s: could not read result of shell command", name), "execution of meta-command failed")
		return
	}
	if err := c.env.SetShellResult(cmd.Shell, out); err != nil {
		c.metaFailed(cmd, err, "execution of meta-command failed")
	}
}

// send sends a command on connection k; outside a pipeline the client
// then waits for its reply.
func (c *client) send(k int, cmd *script.Command, now int64) bool {
	if c.route != nil && k == c.routeK {
		var ok bool
		if k, ok = c.routeCommand(cmd); !ok {
			return false
		}
		if k < 0 {
			return c.sendSplit(cmd, now)
		}
	}
	cn := c.conns[k]
	if c.th.cfg.Debug && cn.desc != nil {
		c.debugf("client %d sending %s", c.id, cn.desc.Describe(nil, cmd, c.env.Vars))
	}
	out, err := cn.d.Encode(cn.out, cmd, c.cmd, c.env.Vars)
	if err != nil {
		c.encodeFailed(cn, cmd, err)
		return false
	}
	cn.out = out
	if c.pipeline {
		if cn.pipe == nil {
			// Answered on its own: its latency is recorded at its reply.
			c.sent[c.cmd], c.skipRecord = now, true
		}
		c.state = stEndCommand
		return false
	}
	if _, err := cn.flush(); err != nil {
		c.sendFailed(cn)
		return false
	}
	c.state, c.wait, c.waitSince = stWaitResult, waitOn(k), now
	c.th.watchWrite(&cn.sconn)
	return !cn.inputReady()
}

// encodeFailed aborts the client when a command cannot be built, with
// pgbench's commandFailed message.
func (c *client) encodeFailed(cn *conn, cmd *script.Command, err error) {
	what, msg := cn.d.Name(), err.Error()
	var ce *driver.CommandError
	if errors.As(err, &ce) {
		if ce.Err != nil {
			c.th.errorf("%v", ce.Err)
		}
		what, msg = ce.What, ce.Msg
	}
	c.th.errorf("client %d aborted in command %d (%s) of script %d; %s", c.id, c.cmd, what, c.script, msg)
	c.estatus = esMeta
	c.state = stAborted
}

// sendFailed aborts the client when its request cannot be written, or
// under --reconnect fails the transaction and reconnects.
func (c *client) sendFailed(cn *conn) {
	c.connLost(cn, cn.d.Name()+" command send failed")
}
