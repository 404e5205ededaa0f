package engine

import "github.com/gbench/gbench/script"

// startPipeline runs \startpipeline. Drivers that prepare statements
// prepare the pipeline's first, outside the pipeline, as pgbench does in
// prepared mode; the client then waits. It reports true when the client
// waits.
func (c *client) startPipeline(cmd *script.Command, now int64) bool {
	if c.pipeline {
		c.pipelineFailed("startpipeline", "already in pipeline mode")
		return false
	}
	block := c.pipelineBlock()
	for _, cn := range c.conns {
		if cn == nil || cn.pipe == nil {
			continue
		}
		if err := cn.pipe.StartPipeline(block); err != nil {
			c.pipelineFailed("startpipeline", err.Error())
			return false
		}
	}
	c.wait = 0
	for k, cn := range c.conns {
		if cn == nil || cn.prep == nil {
			continue
		}
		var sent bool
		if cn.out, sent = cn.prep.Prepare(cn.out, block, c.env.Vars); !sent {
			continue
		}
		if _, err := cn.flush(); err != nil {
			c.sendFailed(cn)
			return false
		}
		c.th.watchWrite(&cn.sconn)
		c.wait |= waitOn(k)
	}
	if c.wait != 0 {
		c.state, c.waitSince = stWaitPrepare, now
		return !c.anyInputReady()
	}
	c.enterPipeline()
	return false
}

// pipelineBlock returns the commands between this \startpipeline and the
// next \endpipeline.
func (c *client) pipelineBlock() []*script.Command {
	cmds := c.commands()
	end := c.cmd + 1
	for end < len(cmds) && cmds[end].Kind != script.CmdEndPipeline {
		end++
	}
	return cmds[c.cmd+1 : end]
}

func (c *client) enterPipeline() { c.pipeline = true }

// exitPipeline leaves pipeline mode once every reply is in.
func (c *client) exitPipeline() {
	c.pipeline = false
	for _, cn := range c.conns {
		if cn != nil && cn.pipe != nil {
			cn.pipe.EndPipeline()
		}
	}
}

func (c *client) pipelineFailed(name, msg string) {
	c.th.errorf("client %d aborted in command %d (%s) of script %d; %s", c.id, c.cmd, name, c.script, msg)
	c.state = stAborted
}

// syncPipeline runs \syncpipeline: it ends a group of the pipeline's
// commands on the connections whose drivers group them.
func (c *client) syncPipeline(cmd *script.Command) {
	if !c.pipeline {
		c.pipelineFailed("syncpipeline", "not in pipeline mode")
		return
	}
	for _, cn := range c.conns {
		if cn != nil && cn.pipe != nil {
			cn.out = cn.pipe.Sync(cn.out)
		}
	}
}

// endPipeline runs \endpipeline: it sends everything queued and waits for
// all the replies. It reports true when the client waits.
func (c *client) endPipeline(cmd *script.Command, now int64) bool {
	if !c.pipeline {
		c.pipelineFailed("endpipeline", "not in pipeline mode")
		return false
	}
	for _, cn := range c.conns {
		if cn != nil && cn.pipe != nil {
			cn.out = cn.pipe.Sync(cn.out)
		}
	}
	c.wait = c.pendingSet()
	for k, cn := range c.conns {
		if c.wait&waitOn(k) == 0 {
			continue
		}
		if _, err := cn.flush(); err != nil {
			c.sendFailed(cn)
			return false
		}
		c.th.watchWrite(&cn.sconn)
	}
	c.state, c.waitSince = stWaitResult, now
	return c.wait != 0 && !c.anyInputReady()
}

// anyInputReady reports whether a connection the client now waits on has
// input the loop will not announce (see sconn.inputReady).
func (c *client) anyInputReady() bool {
	for k, cn := range c.conns {
		if c.wait&waitOn(k) != 0 && cn.inputReady() {
			return true
		}
	}
	return false
}
