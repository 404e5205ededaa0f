package resp

import (
	"fmt"
	"strconv"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// Session is the engine's driver.Driver for \resp commands on one
// connection: it appends commands to an output buffer and decodes replies
// from an input buffer, and does no I/O. Every command is a request with a
// reply of its own, so pipelined commands are answered one by one.
//
// An error reply fails the command (driver.Failed, classed by ErrorClass);
// \gset and \aset store a reply into variables, read as a one-row result:
// a scalar reply is a column named "reply", so \gset sets :reply and
// \gset p_ sets :p_reply; an array reply has one column per element named
// 1, 2, ..., so \gset v sets :v1, :v2, ... (an array needs a prefix, since
// names cannot start with a digit). Integers and doubles keep their type,
// bulk and simple strings are text (read later like pgbench text: "42" is
// an integer), nil is NULL, RESP3 booleans are booleans.
//
// Each reply carries its driver.Cache counters: the bytes of its request
// and of itself on the wire, and hits and misses of GET, GETEX, GETDEL
// (the reply) and MGET (each element; nil is a miss), which agree with the
// server's keyspace_hits and keyspace_misses for string keys, and field
// hits and misses of HGET and HMGET, whose nil replies and elements are
// missing fields (or a missing hash), not keyspace misses. Error replies
// count neither. The command is told by its name after substitution.
//
// A Session belongs to one client; it is not safe for concurrent use. It
// allocates nothing in steady state.
type Session struct {
	r     Reader
	queue []request // requests sent, replies not yet read
	head  int
	args  []byte
	ends  []int
	key   []byte
	err   replyError

	// In a cluster: the client's router, the node's address, and the bytes
	// of the requests pending (raw[rawStart:rawEnd] of each), to resend
	// one that a MOVED or ASK redirects.
	rt   *router
	addr string
	raw  []byte
}

// request is a command whose reply is awaited.
type request struct {
	cmd  *script.Command
	tag  int
	sent int64    // bytes of the request
	kind readKind // how the reply counts in driver.Cache
	// asking: the ASKING sent before a request an ASK redirected; its
	// reply is read and dropped.
	asking           bool
	rawStart, rawEnd int
	// merge (its index + 1) and part: a part of a split command
	// (split.go); merge 0 for any other request.
	merge, part int32
}

var _ driver.Driver = (*Session)(nil)

// NewSession returns the driver of a connection set up by Dial.
func NewSession() *Session { return &Session{} }

// Name is "resp", as the engine's messages name \resp commands.
func (s *Session) Name() string { return "resp" }

// Pending returns the number of commands whose reply is not decoded.
func (s *Session) Pending() int { return len(s.queue) - s.head }

// Need returns how long the input must be, at least, to hold the reply the
// last Decode stopped in.
func (s *Session) Need() int { return s.r.Need() }

// Encode appends a \resp command with its arguments substituted and lists
// expanded. A list argument ("gbench:item::keys") is written element by
// element straight into out, what surrounds the reference substituted
// once and each bulk string's length known before its text; other
// arguments are substituted into a scratch buffer first.
func (s *Session) Encode(out []byte, cmd *script.Command, tag int, vars *script.Vars) ([]byte, error) {
	before := len(out)
	kind := readOther
	var req request
	if s.rt != nil && s.rt.sp.active {
		// A part of the command the router split.
		out, req = s.rt.encodePart(out, cmd, tag)
	} else if s.rt != nil && s.rt.routed {
		// The router substituted the arguments to route the command.
		args, ends := s.rt.args, s.rt.ends
		s.rt.routed = false
		out = AppendArrayHeader(out, len(ends))
		start := 0
		for _, end := range ends {
			out = AppendBulk(out, args[start:end])
			start = end
		}
		if len(ends) > 0 {
			kind = classify(args[:ends[0]])
		}
	} else {
		var err error
		if out, kind, err = s.encodeArgs(out, cmd, vars); err != nil {
			return out, err
		}
	}
	if s.head == len(s.queue) {
		s.queue, s.head, s.raw = s.queue[:0], 0, s.raw[:0]
	}
	if req.merge == 0 {
		req = request{cmd: cmd, tag: tag, sent: int64(len(out) - before), kind: kind}
	}
	if s.rt != nil {
		req.rawStart = len(s.raw)
		s.raw = append(s.raw, out[before:]...)
		req.rawEnd = len(s.raw)
	}
	s.queue = append(s.queue, req)
	return out, nil
}

// encodeArgs appends cmd's arguments substituted, list arguments element
// by element, and returns the command's kind of read.
func (s *Session) encodeArgs(out []byte, cmd *script.Command, vars *script.Vars) ([]byte, readKind, error) {
	args := cmd.RESP.Args
	s.ends = s.ends[:0] // each argument's list length, or -1
	total := 0
	for i := range args {
		n, err := args[i].ListLen(vars)
		if err != nil {
			return out, readOther, &driver.CommandError{What: cmd.Name, Msg: "building the \\resp command failed", Err: err}
		}
		s.ends = append(s.ends, n)
		if n < 0 {
			n = 1
		}
		total += n
	}
	out = AppendArrayHeader(out, total)
	name, nameEnd := -1, -1 // the command name's bytes in out
	for i := range args {
		a := &args[i]
		if s.ends[i] >= 0 {
			var at int
			var list []int64
			s.args, at, list, _ = a.AppendAffixes(s.args[:0], vars)
			prefix, suffix := s.args[:at], s.args[at:]
			fixed := len(s.args)
			for _, x := range list {
				out = appendPrefix(out, '$', fixed+script.DecimalLen(x))
				if name < 0 {
					name = len(out)
				}
				out = append(out, prefix...)
				out = script.AppendInt(out, x)
				out = append(out, suffix...)
				if nameEnd < 0 {
					nameEnd = len(out)
				}
				out = append(out, '\r', '\n')
			}
			continue
		}
		s.args = a.AppendText(s.args[:0], vars)
		if name < 0 {
			name = len(out) + prefixLen(len(s.args))
			nameEnd = name + len(s.args)
		}
		out = AppendBulk(out, s.args)
	}
	kind := readOther
	if name >= 0 {
		kind = classify(out[name:nameEnd])
	}
	return out, kind, nil
}

// Decode decodes the next reply: see driver.Driver. The Err of a Failed
// reply is valid until the next call.
func (s *Session) Decode(in []byte, vars *script.Vars, rep *driver.Reply) (int, bool, error) {
	skipped := 0
	var asked int64
again:
	n, err := s.r.Parse(in[skipped:])
	if err != nil || n == 0 {
		return skipped, false, err
	}
	if s.Pending() == 0 {
		return skipped + n, false, &ProtocolError{Reason: "reply with no command pending"}
	}
	req := s.queue[s.head]
	s.queue[s.head] = request{}
	s.head++
	if req.asking {
		// ASKING's +OK: the request after it is the one answered. (An
		// error here shows as that request's reply, ASK again or
		// MOVED.)
		skipped += n
		asked += req.sent + int64(n)
		goto again
	}
	*rep = driver.Reply{Tag: req.tag}
	vals := s.r.Values()
	top := s.r.Top()
	rep.Cache.Sent, rep.Cache.Received = req.sent+asked, int64(n)+asked
	n += skipped
	if s.rt != nil && vals[top].IsError() {
		if rd, ok := ParseRedirect(vals[top].Bytes); ok {
			return n, true, s.redirect(rep, rd, req)
		}
	}
	if req.merge != 0 {
		return n, true, s.mergePart(rep, &req, vars, vals, top)
	}
	s.countReply(&rep.Cache, req.kind, vals, top)
	switch {
	case vals[top].IsError():
		s.err.msg = append(s.err.msg[:0], vals[top].Bytes...)
		rep.Status, rep.Err, rep.Class = driver.Failed, &s.err, ErrorClass(vals[top].Bytes)
		// A server that stopped being the master (a failover demoted it)
		// or lost it: the engine, under --reconnect, connects again,
		// which through Sentinel finds the new master.
		rep.Lost = rep.Class == "READONLY" || rep.Class == "MASTERDOWN"
	case req.cmd.GSet != script.NoGSet:
		if err := s.store(req.cmd, vars, vals, top); err != nil {
			rep.Status, rep.Err = driver.Unstored, err
		}
	}
	return n, true, nil
}

// redirect makes rep the Redirected reply of a MOVED or ASK to req.
// Only a cluster node too many is an error: the client cannot go on.
func (s *Session) redirect(rep *driver.Reply, rd Redirect, req request) error {
	node, err := s.rt.redirected(rd, req, s.raw[req.rawStart:req.rawEnd], s.addr)
	if err != nil {
		return err
	}
	rep.Status, rep.Node = driver.Redirected, node
	if rd.Ask {
		rep.Cache.Asked = 1
	} else {
		rep.Cache.Moved = 1
	}
	return nil
}

// replyError is the text of an error reply, reused from reply to reply.
type replyError struct{ msg []byte }

func (e *replyError) Error() string { return string(e.msg) }

// store stores a reply into variables for \gset or \aset.
func (s *Session) store(cmd *script.Command, vars *script.Vars, vals []Value, top int) error {
	v := &vals[top]
	if !v.IsAggregate() {
		return s.storeValue(cmd, vars, v, []byte("reply"))
	}
	if v.Kind == KindMap || v.Kind == KindAttribute {
		return fmt.Errorf("\\%s cannot store a map reply", cmd.GSetName())
	}
	var name [20]byte
	n := 0
	for i := s.r.First(top); i >= 0; i = s.r.Next(i) {
		n++
		e := &vals[i]
		if e.IsAggregate() {
			return fmt.Errorf("\\%s cannot store a nested array reply", cmd.GSetName())
		}
		if err := s.storeValue(cmd, vars, e, strconv.AppendInt(name[:0], int64(n), 10)); err != nil {
			return err
		}
	}
	return nil
}

// storeValue stores one value under prefix + column.
func (s *Session) storeValue(cmd *script.Command, vars *script.Vars, v *Value, column []byte) error {
	s.key = append(append(s.key[:0], cmd.Prefix...), column...)
	if !script.ValidVarName(s.key) {
		return fmt.Errorf("%s: invalid variable name: \"%s\"", cmd.GSetName(), s.key)
	}
	slot, ok := vars.Symbols().Lookup(s.key)
	if !ok {
		return nil
	}
	switch v.Kind {
	case KindInt:
		vars.SetInt(slot, v.Int)
	case KindNull:
		vars.Set(slot, script.Null())
	case KindBool:
		vars.Set(slot, script.Bool(v.Int != 0))
	case KindDouble:
		vars.Set(slot, script.Double(v.Float))
	default:
		vars.SetReplyText(slot, v.Bytes)
	}
	return nil
}
