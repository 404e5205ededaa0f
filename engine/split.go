package engine

import (
	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// This file is what a cluster's split=slot adds to the client: a
// multi-key command whose keys span slots is sent as one part per slot,
// each on the connection of its slot's node, all before the client
// waits; the driver merges the parts' replies, and the last part's reply
// is the command's (earlier ones are driver.Partial). The command's
// latency runs from the first part's send to the last part's reply.

// sendSplit encodes the parts of the command the router split, sends
// them, and, outside a pipeline, waits for all their replies.
func (c *client) sendSplit(cmd *script.Command, now int64) bool {
	parts := c.route.(driver.Splitter).Parts()
	if c.th.cfg.Debug {
		c.debugf("client %d sending command %d split by slot in %d parts", c.id, c.cmd, len(parts))
	}
	var w waitSet
	for _, n := range parts {
		k, ok := c.nodeConn(n)
		if !ok {
			return false
		}
		cn := c.conns[k]
		out, err := cn.d.Encode(cn.out, cmd, c.cmd, c.env.Vars)
		if err != nil {
			c.encodeFailed(cn, cmd, err)
			return false
		}
		cn.out = out
		w |= waitOn(k)
	}
	if c.pipeline {
		c.sent[c.cmd], c.skipRecord = now, true
		c.state = stEndCommand
		return false
	}
	for k, cn := range c.conns {
		if w&waitOn(k) == 0 {
			continue
		}
		if _, err := cn.flush(); err != nil {
			c.sendFailed(cn)
			return false
		}
		c.th.watchWrite(&cn.sconn)
	}
	c.state, c.wait, c.waitSince = stWaitResult, w, now
	return !c.anyInputReady()
}

// receiveParts decodes the replies of a command whose parts (or whose
// redirected request) the client waits for on several connections. It
// reports true when the state machine can go on.
func (c *client) receiveParts() bool {
	for k, cn := range c.conns {
		if c.wait&waitOn(k) == 0 {
			continue
		}
		for cn != nil && cn.d.Pending() > 0 {
			if !c.nextReply(k) {
				if c.broken() {
					return true
				}
				break
			}
			if c.outcome(cn) {
				return true
			}
		}
	}
	if c.pendingSet()&c.wait != 0 {
		return false
	}
	c.commandDone()
	return true
}
