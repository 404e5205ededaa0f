package workloads

import (
	"fmt"
	"strconv"

	"github.com/gbench/gbench/engine/resp"
)

// msetWindow and msetPairs size the pipelined fill: up to msetWindow MSET
// commands of msetPairs keys each are in flight at once.
const (
	msetWindow = 16
	msetPairs  = 512
)

// mset sets prefix+id to Value(id, size) for ids first..last, pipelined,
// and calls done with the number of keys set after each window of replies.
func mset(rc *resp.Client, prefix string, first, last int64, size int, done func(n int64) error) error {
	return msetWith(rc, first, last, func(id int64) (string, string) {
		return prefix + strconv.FormatInt(id, 10), Value(id, size)
	}, done)
}

// msetWith sets the pairs kv(id) for ids first..last, pipelined as mset.
func msetWith(rc *resp.Client, first, last int64, kv func(id int64) (string, string), done func(n int64) error) error {
	inFlight, set := 0, int64(0)
	for lo := first; lo <= last; lo += msetPairs {
		hi := min(lo+msetPairs-1, last)
		rc.SendWith(func(out []byte) []byte {
			out = resp.AppendArrayHeader(out, 1+2*int(hi-lo+1))
			out = resp.AppendBulkString(out, "MSET")
			for id := lo; id <= hi; id++ {
				k, v := kv(id)
				out = resp.AppendBulkString(out, k)
				out = resp.AppendBulkString(out, v)
			}
			return out
		})
		set += hi - lo + 1
		if inFlight++; inFlight == msetWindow || hi == last {
			if err := drain(rc, inFlight, "MSET"); err != nil {
				return err
			}
			if err := done(set); err != nil {
				return err
			}
			inFlight, set = 0, 0
		}
	}
	return nil
}

// drain flushes the queued commands and checks their n replies.
func drain(rc *resp.Client, n int, cmd string) error {
	if err := rc.Flush(); err != nil {
		return err
	}
	for range n {
		if _, _, err := rc.ReplyOK(cmd); err != nil {
			return err
		}
	}
	return nil
}

// unlinkMatching removes the keys matching pattern for which drop returns
// true, walking the key space with SCAN.
func unlinkMatching(rc *resp.Client, pattern string, drop func(key string) bool) error {
	return scanPages(rc, pattern, func(keys []string) error {
		var doomed []string
		for _, k := range keys {
			if drop(k) {
				doomed = append(doomed, k)
			}
		}
		if len(doomed) == 0 {
			return nil
		}
		_, _, err := rc.Call(append([]string{"UNLINK"}, doomed...)...)
		return err
	})
}

// scanKeys calls fn for each key matching pattern, walking the key space
// with SCAN (a key may be seen twice if the key space changes meanwhile).
func scanKeys(rc *resp.Client, pattern string, fn func(key string)) error {
	return scanPages(rc, pattern, func(keys []string) error {
		for _, k := range keys {
			fn(k)
		}
		return nil
	})
}

// scanPages walks the keys matching pattern with SCAN and hands each page
// to page.
func scanPages(rc *resp.Client, pattern string, page func(keys []string) error) error {
	cursor := "0"
	for {
		vals, top, err := rc.Call("SCAN", cursor, "MATCH", pattern, "COUNT", "1000")
		if err != nil {
			return err
		}
		next, keys, err := scanPage(rc.Reader(), vals, top)
		if err != nil {
			return err
		}
		if err := page(keys); err != nil {
			return err
		}
		if cursor = next; cursor == "0" {
			return nil
		}
	}
}

// scanPage decodes a SCAN reply: the next cursor and the keys, copied.
func scanPage(r *resp.Reader, vals []resp.Value, top int) (string, []string, error) {
	c := r.First(top)
	if vals[top].Kind != resp.KindArray || c < 0 || vals[c].Kind != resp.KindBulk {
		return "", nil, fmt.Errorf("redis SCAN: unexpected reply of kind %s", vals[top].Kind)
	}
	list := r.Next(c)
	if list < 0 || vals[list].Kind != resp.KindArray {
		return "", nil, fmt.Errorf("redis SCAN: unexpected reply without a key list")
	}
	var keys []string
	for i := r.First(list); i >= 0; i = r.Next(i) {
		keys = append(keys, string(vals[i].Bytes))
	}
	return string(vals[c].Bytes), keys, nil
}

// mget returns the values of the keys prefix+id in order, nil for a
// missing key, as one MGET. An empty list is answered without a round trip:
// MGET needs at least one key, so a client never sends an empty one.
func mget(rc *resp.Client, prefix string, ids []int64) ([]*string, error) {
	if len(ids) == 0 {
		return []*string{}, nil
	}
	args := []string{"MGET"}
	for _, id := range ids {
		args = append(args, prefix+strconv.FormatInt(id, 10))
	}
	vals, top, err := rc.Call(args...)
	if err != nil {
		return nil, err
	}
	if vals[top].Kind != resp.KindArray {
		return nil, fmt.Errorf("redis MGET: reply of kind %s, want an array", vals[top].Kind)
	}
	out := []*string{}
	for i := rc.Reader().First(top); i >= 0; i = rc.Reader().Next(i) {
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
