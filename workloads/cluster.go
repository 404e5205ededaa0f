package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/resp"
)

// redisStore is where the Redis part of the dataset goes: one Redis
// (singleRedis) or a cluster's masters (RedisCluster).
type redisStore interface {
	inspect(ctx context.Context) (Existing, error)
	load(ctx context.Context, o Options, lg *loadLog) (string, error)
	drop(ctx context.Context) error
}

// singleRedis is one Redis, on a connection the caller owns.
type singleRedis struct{ conn net.Conn }

// redisOf returns the store of a connection, nil for none.
func redisOf(conn net.Conn) redisStore {
	if conn == nil {
		return nil
	}
	return singleRedis{conn}
}

func (r singleRedis) inspect(ctx context.Context) (Existing, error) {
	rc := resp.NewClient(r.conn)
	defer rc.Bind(ctx)()
	return inspectRedis(rc)
}

func (r singleRedis) load(ctx context.Context, o Options, lg *loadLog) (string, error) {
	return loadRedis(ctx, resp.NewClient(r.conn), o, lg)
}

func (r singleRedis) drop(ctx context.Context) error { return dropRedis(ctx, resp.NewClient(r.conn)) }

// clusterWindow is how many commands are in flight to one master during
// a cluster load.
const clusterWindow = 512

// RedisCluster is a Redis Cluster's masters, one connection each, for
// LoadClusterLog, InspectCluster and DropCluster: every key goes to the
// master of its slot, in pipelined windows per master (a cluster refuses
// the single-node load's MSETs, whose keys span slots). The slot map is
// read once, by DialCluster: the cluster must not be resharded meanwhile
// (a MOVED fails the load).
type RedisCluster struct {
	addrs  []string
	conns  []net.Conn
	rcs    []*resp.Client
	queued []int                  // commands sent to each master, replies not yet read
	slots  [resp.SlotCount]uint16 // master of each slot
}

// DialCluster discovers the masters of the cluster o names (a
// redis+cluster:// URL or cluster=yes) and connects to each.
func DialCluster(ctx context.Context, o resp.Options) (*RedisCluster, error) {
	m, err := resp.FetchSlotMap(ctx, o)
	if err != nil {
		return nil, err
	}
	c := &RedisCluster{}
	var covered [resp.SlotCount]bool
	for _, r := range m.Ranges {
		i := slices.Index(c.addrs, r.Master.Addr)
		if i < 0 {
			conn, err := resp.Dial(ctx, o.OnNode(r.Master.Addr))
			if err != nil {
				c.Close()
				return nil, fmt.Errorf("redis cluster master %s: %w", r.Master.Addr, err)
			}
			i = len(c.addrs)
			c.addrs, c.conns = append(c.addrs, r.Master.Addr), append(c.conns, conn)
			c.rcs, c.queued = append(c.rcs, resp.NewClient(conn)), append(c.queued, 0)
		}
		for s := int(r.Start); s <= int(r.End); s++ {
			c.slots[s], covered[s] = uint16(i), true
		}
	}
	if s := slices.Index(covered[:], false); s >= 0 {
		c.Close()
		return nil, fmt.Errorf("redis cluster: no master serves slot %d: the cluster is not ready for a load", s)
	}
	return c, nil
}

// Masters returns the masters' addresses.
func (c *RedisCluster) Masters() []string { return slices.Clone(c.addrs) }

// Close closes the connections.
func (c *RedisCluster) Close() {
	for _, conn := range c.conns {
		conn.Close()
	}
}

// bind binds every connection to ctx; the function returned unbinds.
func (c *RedisCluster) bind(ctx context.Context) func() {
	var unbind []func()
	for _, rc := range c.rcs {
		unbind = append(unbind, rc.Bind(ctx))
	}
	return func() {
		for _, u := range unbind {
			u()
		}
	}
}

// node returns the master of key's slot.
func (c *RedisCluster) node(key string) int { return int(c.slots[resp.Slot([]byte(key))]) }

// send queues a command about key on its master, reading the replies of
// a full window first.
func (c *RedisCluster) send(key string, args ...string) error {
	n := c.node(key)
	c.rcs[n].SendWith(func(out []byte) []byte {
		out = resp.AppendArrayHeader(out, len(args))
		for _, a := range args {
			out = resp.AppendBulkString(out, a)
		}
		return out
	})
	if c.queued[n]++; c.queued[n] == clusterWindow {
		return c.drainNode(n, args[0])
	}
	return nil
}

func (c *RedisCluster) drainNode(n int, cmd string) error {
	q := c.queued[n]
	c.queued[n] = 0
	if err := drain(c.rcs[n], q, cmd); err != nil {
		return fmt.Errorf("%s: %w", c.addrs[n], err)
	}
	return nil
}

// flush reads every reply owed, the masters' commands all written first.
func (c *RedisCluster) flush(cmd string) error {
	var errs []error
	for n, rc := range c.rcs {
		if c.queued[n] > 0 {
			if err := rc.Flush(); err != nil {
				return fmt.Errorf("%s: %w", c.addrs[n], err)
			}
		}
	}
	for n := range c.rcs {
		if c.queued[n] > 0 {
			errs = append(errs, c.drainNode(n, cmd))
		}
	}
	return errors.Join(errs...)
}

// unlinkMatching removes, on every master, the keys matching pattern for
// which drop returns true, one UNLINK per key (the keys of a page span
// slots).
func (c *RedisCluster) unlinkMatching(pattern string, drop func(string) bool) error {
	for _, rc := range c.rcs {
		err := scanPages(rc, pattern, func(keys []string) error {
			for _, k := range keys {
				if drop(k) {
					if err := c.send(k, "UNLINK", k); err != nil {
						return err
					}
				}
			}
			return c.flush("UNLINK") // before the next SCAN on a connection
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *RedisCluster) inspect(ctx context.Context) (Existing, error) {
	defer c.bind(ctx)()
	return inspectNodes(c.rcs[c.node(MarkerKey)], c.rcs)
}

func (c *RedisCluster) drop(ctx context.Context) error {
	defer c.bind(ctx)()
	err := c.unlinkMatching(KeyPrefix+"*", func(key string) bool {
		return slices.ContainsFunc(dataPrefixes, func(p string) bool { return strings.HasPrefix(key, p) })
	})
	if err == nil {
		_, _, err = c.rcs[c.node(MarkerKey)].Call("UNLINK", MarkerKey)
	}
	if err != nil {
		return fmt.Errorf("workloads: dropping from the Redis cluster: %w", ctxErr(ctx, err))
	}
	return nil
}

// load is loadRedis over the masters: the same keys and values, SET and
// HSET one key a command.
func (c *RedisCluster) load(ctx context.Context, o Options, lg *loadLog) (string, error) {
	defer c.bind(ctx)()
	const server = "Redis cluster"
	marker := c.rcs[c.node(MarkerKey)]
	var took []string
	err := lg.step(server, fmt.Sprintf("removing old keys on %d masters...", len(c.rcs)), "remove", &took, func() error {
		if err := setMarker(marker, o); err != nil {
			return err
		}
		return c.unlinkMatching(KeyPrefix+"*", stale(o))
	})
	if err == nil {
		err = lg.step(server, "setting keys...", "set", &took, func() error { return c.setKeys(o, lg) })
	}
	if err == nil {
		err = lg.step(server, fmt.Sprintf("setting %d YCSB records...", o.YCSBRecords), "ycsb", &took, func() error { return c.setYCSB(o) })
	}
	if err == nil {
		err = lg.step(server, fmt.Sprintf("setting %d sessions...", o.Sessions), "sessions", &took, func() error {
			for n := int64(1); n <= int64(o.Sessions); n++ {
				k := sessionPrefix + UUID(n)
				if err := c.send(k, "SET", k, SessionValue(n)); err != nil {
					return err
				}
			}
			return c.flush("SET")
		})
	}
	if err == nil {
		_, _, err = marker.Call("HSET", MarkerKey, markerLoaded, time.Now().Format("2006-01-02 15:04:05 -07:00"))
	}
	if err != nil {
		return "", fmt.Errorf("workloads: loading the Redis cluster: %w", ctxErr(ctx, err))
	}
	return "Redis cluster: " + strings.Join(took, ", "), nil
}

// setKeys sets the items (and their tagged copies) and the kv keys,
// with a progress line every progressEvery keys and at the end.
func (c *RedisCluster) setKeys(o Options, lg *loadLog) error {
	total := int64(o.Items) + int64(o.Keys)
	if o.Tagged {
		total += int64(o.Items)
	}
	start, set := time.Now(), int64(0)
	put := func(k, v string) error {
		if err := c.send(k, "SET", k, v); err != nil {
			return err
		}
		if set++; set%progressEvery == 0 || set == total {
			if err := c.flush("SET"); err != nil {
				return err
			}
			elapsed := time.Since(start).Seconds()
			lg.printf("Redis cluster: %d of %d keys (%d%%) done (elapsed %.2f s, remaining %.2f s)",
				set, total, set*100/total, elapsed, float64(total-set)*elapsed/float64(set))
		}
		return nil
	}
	for id := int64(1); id <= int64(o.Items); id++ {
		v := Value(id, o.ValueSize)
		if err := put(itemPrefix+strconv.FormatInt(id, 10), v); err != nil {
			return err
		}
		if o.Tagged {
			if err := put(TaggedItemKey(id), v); err != nil {
				return err
			}
		}
	}
	for id := int64(1); id <= int64(o.Keys); id++ {
		if err := put(kvPrefix+strconv.FormatInt(id, 10), Value(id, o.ValueSize)); err != nil {
			return err
		}
	}
	return c.flush("SET")
}

// setYCSB is setYCSB over the masters.
func (c *RedisCluster) setYCSB(o Options) error {
	last := int64(o.YCSBRecords)
	args := make([]string, 0, 2+2*YCSBFields)
	for lo := int64(1); lo <= last; lo += ycsbBatch {
		hi := min(lo+ycsbBatch-1, last)
		index := []string{"ZADD", ycsbIndexKey}
		for n := lo; n <= hi; n++ {
			k := ycsbRecordPrefix + strconv.FormatInt(n, 10)
			args = append(args[:0], "HSET", k)
			for f := range YCSBFields {
				args = append(args, "field"+strconv.Itoa(f), YCSBValue(n, f, o.YCSBFieldLength))
			}
			if err := c.send(k, args...); err != nil {
				return err
			}
			index = append(index, "0", "user"+strconv.FormatInt(n, 10))
		}
		if err := c.send(ycsbIndexKey, index...); err != nil {
			return err
		}
	}
	if err := c.send(ycsbCountKey, "SET", ycsbCountKey, strconv.FormatInt(last, 10)); err != nil {
		return err
	}
	return c.flush("HSET")
}
