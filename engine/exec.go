package engine

import (
	"fmt"
	"os/exec"

	"github.com/gbench/gbench/engine/resp"
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
	switch cmd.Kind {
	case script.CmdSQL:
		return c.sendSQL(cmd, *now)
	case script.CmdRESP:
		return c.sendRESP(cmd, *now)
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

// sendSQL sends an SQL command; outside a pipeline the client then waits.
func (c *client) sendSQL(cmd *script.Command, now int64) bool {
	if c.pipeline && cmd.GSet != script.NoGSet {
		c.th.errorf("client %d aborted in command %d (%s) of script %d; \\%s is not allowed in pipeline mode",
			c.id, c.cmd, cmd.GSetName(), c.script, cmd.GSetName())
		c.state = stAborted
		return false
	}
	if c.th.cfg.Debug {
		c.debugSQL(cmd)
	}
	c.pg.out = c.pg.s.Query(c.pg.out, cmd, c.env.Vars)
	if c.pipeline {
		c.state = stEndCommand
		return false
	}
	if _, err := c.pg.flush(); err != nil {
		c.th.errorf("client %d aborted in command %d (SQL) of script %d; SQL command send failed", c.id, c.cmd, c.script)
		c.state = stAborted
		return false
	}
	c.state, c.wait = stWaitResult, waitSQL
	c.th.watchWrite(&c.pg.sconn)
	return true
}

func (c *client) debugSQL(cmd *script.Command) {
	switch c.th.prog.Mode {
	case script.Simple:
		c.debugf("client %d sending %s", c.id, cmd.SQL.AppendSimple(nil, c.env.Vars))
	case script.Extended:
		c.debugf("client %d sending %s", c.id, cmd.SQL.Query)
	default:
		c.debugf("client %d sending %s", c.id, cmd.SQL.PrepName)
	}
}

// sendRESP sends a \resp command; outside a pipeline the client then waits.
func (c *client) sendRESP(cmd *script.Command, now int64) bool {
	r := c.rs
	var err error
	r.args, r.ends, err = cmd.RESP.AppendArgs(c.env.Vars, r.args[:0], r.ends[:0])
	if err != nil {
		c.metaFailed(cmd, err, "building the \\resp command failed")
		return false
	}
	r.out = resp.AppendArrayHeader(r.out, len(r.ends))
	start := 0
	for _, end := range r.ends {
		r.out = resp.AppendBulk(r.out, r.args[start:end])
		start = end
	}
	r.inflight = append(r.inflight, respPending{cmd: c.cmd, sent: now})
	if c.pipeline {
		// Its latency is recorded when its reply arrives.
		c.state, c.skipRecord = stEndCommand, true
		return false
	}
	if _, err := r.flush(); err != nil {
		c.th.errorf("client %d aborted in command %d (resp) of script %d; %s", c.id, c.cmd, c.script, r.lost())
		c.state = stAborted
		return false
	}
	c.state, c.wait = stWaitResult, waitRESP
	c.th.watchWrite(&r.sconn)
	return true
}
