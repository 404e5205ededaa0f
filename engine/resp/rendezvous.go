package resp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// FleetPrefix starts the key of each run's rendezvous: the hash
// gbench:fleet:KEY, whose fields are the workers' indexes and values their
// arrival times in microseconds on the server's clock (TIME).
const FleetPrefix = "gbench:fleet:"

// fleetTTL bounds how long a rendezvous hash outlives a run whose workers
// died before they could withdraw.
const fleetTTL = time.Hour

// Rendezvous is where the workers of a run over several machines meet on
// a Redis-protocol server (it implements fleet.Server): each posts its
// arrival into the run's hash with HSETNX, stamped with TIME, and removes
// it when it closes, so that the hash is gone after the run.
type Rendezvous struct {
	o     Options
	conn  net.Conn
	rc    *Client
	key   string
	index int
}

// NewRendezvous returns a meeting place on the server o describes.
func NewRendezvous(o Options) *Rendezvous { return &Rendezvous{o: o} }

// Arrive connects and posts the worker's arrival; fresh is false when the
// hash holds that worker already.
func (r *Rendezvous) Arrive(ctx context.Context, key string, index int) (bool, error) {
	if r.conn != nil {
		return false, errors.New("arrived already")
	}
	hash := FleetPrefix + key
	o, err := ForKey(ctx, r.o, hash) // on a cluster, the hash's master
	if err != nil {
		return false, err
	}
	conn, err := Dial(ctx, o)
	if err != nil {
		return false, err
	}
	rc := NewClient(conn)
	defer rc.Bind(ctx)()
	now, err := serverTime(rc)
	if err == nil {
		var fresh string
		if fresh, err = rc.Text("HSETNX", hash, strconv.Itoa(index), strconv.FormatInt(now.UnixMicro(), 10)); err == nil && fresh == "1" {
			_, _, err = rc.Call("EXPIRE", hash, strconv.Itoa(int(fleetTTL.Seconds())))
			if err == nil {
				r.conn, r.rc, r.key, r.index = conn, rc, hash, index
				return true, nil
			}
		}
	}
	conn.Close()
	return false, err
}

// Arrivals reads the run's hash and the server's clock in one round trip.
func (r *Rendezvous) Arrivals(ctx context.Context, key string) (map[int]time.Time, time.Time, error) {
	if r.conn == nil {
		return nil, time.Time{}, errors.New("not arrived")
	}
	defer r.rc.Bind(ctx)()
	r.rc.Send("HGETALL", FleetPrefix+key)
	r.rc.Send("TIME")
	if err := r.rc.Flush(); err != nil {
		return nil, time.Time{}, err
	}
	fields, err := r.replyWords("HGETALL")
	if err != nil {
		return nil, time.Time{}, err
	}
	arr := map[int]time.Time{}
	for i := 0; i+1 < len(fields); i += 2 {
		k, err1 := strconv.Atoi(fields[i])
		us, err2 := strconv.ParseInt(fields[i+1], 10, 64)
		if err1 != nil || err2 != nil {
			return nil, time.Time{}, fmt.Errorf("the rendezvous hash %s%s holds %q: %q, not a worker's arrival", FleetPrefix, key, fields[i], fields[i+1])
		}
		arr[k] = time.UnixMicro(us).UTC()
	}
	words, err := r.replyWords("TIME")
	if err != nil {
		return nil, time.Time{}, err
	}
	now, err := parseTime(words)
	return arr, now, err
}

// replyWords reads a reply as its elements' texts.
func (r *Rendezvous) replyWords(cmd string) ([]string, error) {
	vals, top, err := r.rc.ReplyOK(cmd)
	if err != nil {
		return nil, err
	}
	var out []string
	for i := r.rc.Reader().First(top); i >= 0; i = r.rc.Reader().Next(i) {
		out = append(out, string(vals[i].Bytes))
	}
	return out, nil
}

// serverTime reads TIME.
func serverTime(rc *Client) (time.Time, error) {
	text, err := rc.Text("TIME")
	if err != nil {
		return time.Time{}, err
	}
	return parseTime(strings.Split(text, "\n"))
}

// parseTime reads TIME's seconds and microseconds.
func parseTime(words []string) (time.Time, error) {
	if len(words) == 2 {
		s, err1 := strconv.ParseInt(words[0], 10, 64)
		us, err2 := strconv.ParseInt(words[1], 10, 64)
		if err1 == nil && err2 == nil {
			return time.Unix(s, us*1000).UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("redis TIME: unexpected reply %q", words)
}

// Close withdraws the worker's arrival and closes the connection.
func (r *Rendezvous) Close() error {
	if r.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	unbind := r.rc.Bind(ctx)
	_, _, err := r.rc.Call("HDEL", r.key, strconv.Itoa(r.index))
	unbind()
	if cerr := r.conn.Close(); err == nil {
		err = cerr
	}
	r.conn = nil
	return err
}
