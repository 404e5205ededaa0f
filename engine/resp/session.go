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
}

// request is a command whose reply is awaited.
type request struct {
	cmd  *script.Command
	tag  int
	sent int64    // bytes of the request
	kind readKind // how the reply counts in driver.Cache
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
// expanded.
func (s *Session) Encode(out []byte, cmd *script.Command, tag int, vars *script.Vars) ([]byte, error) {
	var err error
	s.args, s.ends, err = cmd.RESP.AppendArgs(vars, s.args[:0], s.ends[:0])
	if err != nil {
		return out, &driver.CommandError{What: cmd.Name, Msg: "building the \\resp command failed", Err: err}
	}
	before := len(out)
	out = AppendArrayHeader(out, len(s.ends))
	start := 0
	for _, end := range s.ends {
		out = AppendBulk(out, s.args[start:end])
		start = end
	}
	if s.head == len(s.queue) {
		s.queue, s.head = s.queue[:0], 0
	}
	kind := readOther
	if len(s.ends) > 0 {
		kind = classify(s.args[:s.ends[0]])
	}
	s.queue = append(s.queue, request{cmd: cmd, tag: tag, sent: int64(len(out) - before), kind: kind})
	return out, nil
}

// Decode decodes the next reply: see driver.Driver. The Err of a Failed
// reply is valid until the next call.
func (s *Session) Decode(in []byte, vars *script.Vars, rep *driver.Reply) (int, bool, error) {
	n, err := s.r.Parse(in)
	if err != nil || n == 0 {
		return 0, false, err
	}
	if s.Pending() == 0 {
		return n, false, &ProtocolError{Reason: "reply with no command pending"}
	}
	req := s.queue[s.head]
	s.queue[s.head] = request{}
	s.head++
	*rep = driver.Reply{Tag: req.tag}
	vals := s.r.Values()
	top := s.r.Top()
	rep.Cache.Sent, rep.Cache.Received = req.sent, int64(n)
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
