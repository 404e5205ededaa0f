package workloads

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"

	"github.com/gbench/gbench/engine/resp"
)

// redisConn is a small synchronous RESP client on a connection the caller
// owns: commands are appended to out and written by flush, replies are read
// in order by reply. It is not safe for concurrent use.
type redisConn struct {
	c          net.Conn
	r          resp.Reader
	in         []byte // in[start:end] is received but not yet parsed
	start, end int
	out        []byte
}

func newRedisConn(c net.Conn) *redisConn {
	return &redisConn{c: c, in: make([]byte, 64<<10)}
}

// bind makes the connection's reads and writes fail when ctx ends or its
// deadline passes. The returned function undoes that; call it before giving
// the connection back.
func (rc *redisConn) bind(ctx context.Context) func() {
	if d, ok := ctx.Deadline(); ok {
		_ = rc.c.SetDeadline(d) // a connection that refuses deadlines just waits
	}
	if ctx.Err() != nil {
		_ = rc.c.SetDeadline(time.Unix(1, 0)) // AfterFunc would do it too late, in a goroutine
	}
	stop := context.AfterFunc(ctx, func() { _ = rc.c.SetDeadline(time.Unix(1, 0)) })
	return func() {
		stop()
		_ = rc.c.SetDeadline(time.Time{})
	}
}

// send queues one command.
func (rc *redisConn) send(args ...string) { rc.out = resp.AppendCommand(rc.out, args...) }

// flush writes the queued commands.
func (rc *redisConn) flush() error {
	_, err := rc.c.Write(rc.out)
	rc.out = rc.out[:0]
	return err
}

// reply reads the next reply and returns its values and the index of the
// reply proper in them. They stay valid until the next call. An error reply
// is returned as a value, not as an error.
func (rc *redisConn) reply() ([]resp.Value, int, error) {
	for {
		n, err := rc.r.Parse(rc.in[rc.start:rc.end])
		if err != nil {
			return nil, 0, err
		}
		if n > 0 {
			rc.start += n
			return rc.r.Values(), rc.r.Top(), nil
		}
		if err := rc.fill(); err != nil {
			return nil, 0, err
		}
	}
}

// fill reads more input, first moving what is unparsed to the front and
// growing the buffer to what the reader says the reply needs.
func (rc *redisConn) fill() error {
	rc.end = copy(rc.in, rc.in[rc.start:rc.end])
	rc.start = 0
	if need := max(rc.r.Need(), rc.end+1); need > len(rc.in) {
		rc.in = append(rc.in, make([]byte, max(need, 2*len(rc.in))-len(rc.in))...)
	}
	n, err := rc.c.Read(rc.in[rc.end:])
	rc.end += n
	switch {
	case n > 0:
		return nil
	case errors.Is(err, io.EOF):
		return io.ErrUnexpectedEOF
	}
	return err
}

// call sends one command and returns its reply; an error reply is an error.
func (rc *redisConn) call(args ...string) ([]resp.Value, int, error) {
	rc.send(args...)
	if err := rc.flush(); err != nil {
		return nil, 0, err
	}
	return rc.replyOK(args[0])
}

// replyOK is reply with an error reply turned into an error naming cmd.
func (rc *redisConn) replyOK(cmd string) ([]resp.Value, int, error) {
	vals, top, err := rc.reply()
	if err != nil {
		return nil, 0, err
	}
	if vals[top].IsError() {
		return nil, 0, fmt.Errorf("redis %s: %s", cmd, vals[top].Bytes)
	}
	return vals, top, nil
}

// msetWindow and msetPairs size the pipelined fill: up to msetWindow MSET
// commands of msetPairs keys each are in flight at once.
const (
	msetWindow = 16
	msetPairs  = 512
)

// mset sets prefix+id to Value(id, size) for ids first..last, pipelined.
func (rc *redisConn) mset(prefix string, first, last int64, size int) error {
	inFlight := 0
	for lo := first; lo <= last; lo += msetPairs {
		hi := min(lo+msetPairs-1, last)
		rc.out = resp.AppendArrayHeader(rc.out, 1+2*int(hi-lo+1))
		rc.out = resp.AppendBulkString(rc.out, "MSET")
		for id := lo; id <= hi; id++ {
			rc.out = resp.AppendBulkString(rc.out, prefix+strconv.FormatInt(id, 10))
			rc.out = resp.AppendBulkString(rc.out, Value(id, size))
		}
		if inFlight++; inFlight == msetWindow || hi == last {
			if err := rc.drain(inFlight, "MSET"); err != nil {
				return err
			}
			inFlight = 0
		}
	}
	return nil
}

// drain flushes the queued commands and checks their n replies.
func (rc *redisConn) drain(n int, cmd string) error {
	if err := rc.flush(); err != nil {
		return err
	}
	for range n {
		if _, _, err := rc.replyOK(cmd); err != nil {
			return err
		}
	}
	return nil
}

// unlinkMatching removes the keys matching pattern for which drop returns
// true, walking the key space with SCAN.
func (rc *redisConn) unlinkMatching(pattern string, drop func(key string) bool) error {
	cursor := "0"
	for {
		vals, top, err := rc.call("SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
		if err != nil {
			return err
		}
		next, keys, err := rc.scanPage(vals, top)
		if err != nil {
			return err
		}
		var doomed []string
		for _, k := range keys {
			if drop(k) {
				doomed = append(doomed, k)
			}
		}
		if len(doomed) > 0 {
			if _, _, err := rc.call(append([]string{"UNLINK"}, doomed...)...); err != nil {
				return err
			}
		}
		if cursor = next; cursor == "0" {
			return nil
		}
	}
}

// scanPage decodes a SCAN reply: the next cursor and the keys, copied.
func (rc *redisConn) scanPage(vals []resp.Value, top int) (string, []string, error) {
	c := rc.r.First(top)
	if vals[top].Kind != resp.KindArray || c < 0 || vals[c].Kind != resp.KindBulk {
		return "", nil, fmt.Errorf("redis SCAN: unexpected reply of kind %s", vals[top].Kind)
	}
	list := rc.r.Next(c)
	if list < 0 || vals[list].Kind != resp.KindArray {
		return "", nil, fmt.Errorf("redis SCAN: unexpected reply without a key list")
	}
	var keys []string
	for i := rc.r.First(list); i >= 0; i = rc.r.Next(i) {
		keys = append(keys, string(vals[i].Bytes))
	}
	return string(vals[c].Bytes), keys, nil
}

// mget returns the values of the keys prefix+id in order, nil for a
// missing key, as one MGET. An empty list is answered without a round trip:
// MGET needs at least one key, so a client never sends an empty one.
func (rc *redisConn) mget(prefix string, ids []int64) ([]*string, error) {
	if len(ids) == 0 {
		return []*string{}, nil
	}
	args := []string{"MGET"}
	for _, id := range ids {
		args = append(args, prefix+strconv.FormatInt(id, 10))
	}
	vals, top, err := rc.call(args...)
	if err != nil {
		return nil, err
	}
	if vals[top].Kind != resp.KindArray {
		return nil, fmt.Errorf("redis MGET: reply of kind %s, want an array", vals[top].Kind)
	}
	out := []*string{}
	for i := rc.r.First(top); i >= 0; i = rc.r.Next(i) {
		switch vals[i].Kind {
		case resp.KindNull:
			out = append(out, nil)
		case resp.KindBulk:
			s := string(vals[i].Bytes)
			out = append(out, &s)
		default:
			return nil, fmt.Errorf("redis MGET: element of kind %s, want a bulk string or nil", vals[i].Kind)
		}
	}
	return out, nil
}
