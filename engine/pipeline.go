package engine

import "github.com/gbench/gbench/script"

// startPipeline runs \startpipeline. In prepared mode the pipeline's
// statements are prepared first, outside the pipeline, as pgbench does. It
// reports true when the client waits.
func (c *client) startPipeline(cmd *script.Command, now int64) bool {
	if c.pipeline {
		c.pipelineFailed("startpipeline", "already in pipeline mode")
		return false
	}
	block := c.pipelineBlock()
	if c.pg == nil {
		c.enterPipeline()
		return false
	}
	if c.th.prog.Mode == script.Simple && hasSQL(block) {
		c.pipelineFailed("startpipeline", "cannot use pipeline mode with the simple query protocol")
		return false
	}
	var sent bool
	c.pg.out, sent = c.pg.s.Prepare(c.pg.out, block, c.env.Vars)
	if !sent {
		c.enterPipeline()
		return false
	}
	if _, err := c.pg.flush(); err != nil {
		c.abortSQL(c.pg.lost())
		return false
	}
	c.state, c.wait = stWaitPrepare, waitSQL
	c.th.watchWrite(&c.pg.sconn)
	return true
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

func hasSQL(cmds []*script.Command) bool {
	for _, c := range cmds {
		if c.Kind == script.CmdSQL {
			return true
		}
	}
	return false
}

func (c *client) enterPipeline() {
	c.pipeline = true
	c.syncs = 0
	if c.pg != nil {
		c.pg.s.SetPipeline(true)
	}
}

func (c *client) pipelineFailed(name, msg string) {
	c.th.errorf("client %d aborted in command %d (%s) of script %d; %s", c.id, c.cmd, name, c.script, msg)
	c.state = stAborted
}

// syncPipeline runs \syncpipeline: a Sync that ends a group of the
// pipeline's SQL commands.
func (c *client) syncPipeline(cmd *script.Command) {
	if !c.pipeline {
		c.pipelineFailed("syncpipeline", "not in pipeline mode")
		return
	}
	if c.pg != nil {
		c.pg.out = c.pg.s.Sync(c.pg.out)
		c.syncs++
	}
}

// endPipeline runs \endpipeline: it sends everything queued and waits for
// all the replies. It reports true when the client waits.
func (c *client) endPipeline(cmd *script.Command, now int64) bool {
	if !c.pipeline {
		c.pipelineFailed("endpipeline", "not in pipeline mode")
		return false
	}
	c.wait = waitNone
	if c.pg != nil {
		c.pg.out = c.pg.s.Sync(c.pg.out)
		c.syncs++
		if _, err := c.pg.flush(); err != nil {
			c.abortSQL(c.pg.lost())
			return false
		}
		c.th.watchWrite(&c.pg.sconn)
		c.wait = waitSQL
	}
	if c.rs != nil && len(c.rs.inflight) > 0 {
		if _, err := c.rs.flush(); err != nil {
			c.abortRESP(c.rs.lost())
			return false
		}
		c.th.watchWrite(&c.rs.sconn)
		if c.wait == waitSQL {
			c.wait = waitBoth
		} else {
			c.wait = waitRESP
		}
	}
	c.state = stWaitResult
	return c.wait != waitNone
}
