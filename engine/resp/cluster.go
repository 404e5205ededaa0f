package resp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gbench/gbench/engine/driver"
	"github.com/gbench/gbench/script"
)

// MaxClusterNodes bounds the nodes, masters and replicas, one run talks
// to in a cluster: the engine gives each client a connection slot per
// node.
const MaxClusterNodes = 48

// clusterState is a run's view of a cluster, shared by its clients: the
// nodes (numbered in the order they became known; node 0 is the first
// master discovered), the master of each slot, and each slot's shard for
// replica reads. A MOVED reply sets its slot's master at once and starts
// one refresh of the whole map, unless one is under way: a storm of
// MOVEDs during a resharding costs one CLUSTER SHARDS at a time, not one
// per client. Reads of the routing tables are atomic loads.
type clusterState struct {
	o Options // DialFunc nil: discovery and refreshes use their own sockets

	mu         sync.Mutex
	discovered bool
	err        error
	nodes      atomic.Pointer[[]string] // node addresses; append-only under mu

	master [SlotCount]atomic.Uint32 // node+1 of each slot's master; 0: no node
	shards atomic.Pointer[shardTable]

	refreshing atomic.Bool
	// Refreshes counts the finished refreshes (the map's epoch).
	refreshes atomic.Int64
}

// shardTable says, for replica reads, which nodes serve each slot.
type shardTable struct {
	bySlot [SlotCount]uint16 // shard+1; 0: none
	nodes  [][]uint32        // per shard: the master, then the replicas
}

func newClusterState(o Options) *clusterState {
	o.DialFunc, o.Cluster = nil, false
	st := &clusterState{o: o}
	st.nodes.Store(&[]string{})
	return st
}

// discover builds the map once, from the first seed that answers.
func (st *clusterState) discover(ctx context.Context) error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.discovered {
		return st.err
	}
	m, err := st.fetch(ctx)
	if err == nil {
		err = st.apply(m)
	}
	st.discovered, st.err = err == nil, err
	return err
}

// fetch asks the seeds, then the nodes known, for the slot map.
func (st *clusterState) fetch(ctx context.Context) (SlotMap, error) {
	addrs := append(append([]string{}, *st.nodes.Load()...), st.o.Seeds...)
	var errs []error
	for _, addr := range addrs {
		m, err := fetchSlotMap(ctx, st.o, addr)
		if err == nil {
			return m, nil
		}
		errs = append(errs, err)
	}
	return SlotMap{}, fmt.Errorf("redis cluster: no node gave the slot map: %w", errors.Join(errs...))
}

// fetchSlotMap asks one node: CLUSTER SHARDS, or CLUSTER SLOTS on a server
// older than Redis 7.
func fetchSlotMap(ctx context.Context, o Options, addr string) (SlotMap, error) {
	o.Addr = addr
	conn, err := Dial(ctx, o)
	if err != nil {
		return SlotMap{}, err
	}
	defer conn.Close()
	rc := NewClient(conn)
	defer rc.Bind(ctx)()
	if o.ReadTimeout > 0 {
		rc.SetTimeout(4 * o.ReadTimeout)
	}
	_, _, err = rc.Call("CLUSTER", "SHARDS")
	var m SlotMap
	if err == nil {
		m, err = ParseClusterShards(rc.Reader())
	} else if bytes.Contains([]byte(err.Error()), []byte("ERR")) {
		if _, _, err = rc.Call("CLUSTER", "SLOTS"); err == nil {
			m, err = ParseClusterSlots(rc.Reader())
		}
	}
	if err != nil {
		return SlotMap{}, fmt.Errorf("%s: %w", addr, err)
	}
	if len(m.Ranges) == 0 {
		return SlotMap{}, fmt.Errorf("%s: the cluster serves no slot", addr)
	}
	host, _, _ := net.SplitHostPort(addr)
	for i := range m.Ranges {
		fillHost(&m.Ranges[i].Master, host)
		for j := range m.Ranges[i].Replicas {
			fillHost(&m.Ranges[i].Replicas[j], host)
		}
	}
	return m, nil
}

// fillHost gives a node without a known host the host of the node that
// answered, as the cluster specification says.
func fillHost(n *Node, host string) {
	if h, port, err := net.SplitHostPort(n.Addr); err == nil && h == "" {
		n.Addr = net.JoinHostPort(host, port)
	}
}

// apply installs a slot map: masters first, so that node 0 is a master.
// Called with mu held.
func (st *clusterState) apply(m SlotMap) error {
	tab := &shardTable{}
	shardOf := map[string]int{}
	for _, r := range m.Ranges {
		mi, err := st.nodeLocked(r.Master.Addr)
		if err != nil {
			return err
		}
		sh, ok := shardOf[r.Master.Addr]
		if !ok {
			sh = len(tab.nodes)
			shardOf[r.Master.Addr] = sh
			tab.nodes = append(tab.nodes, []uint32{uint32(mi)})
		}
		for s := int(r.Start); s <= int(r.End); s++ {
			st.master[s].Store(uint32(mi) + 1)
			tab.bySlot[s] = uint16(sh) + 1
		}
	}
	for _, r := range m.Ranges {
		sh := shardOf[r.Master.Addr]
		for _, rep := range r.Replicas {
			if rep.Health != "" && rep.Health != "online" {
				continue
			}
			ri, err := st.nodeLocked(rep.Addr)
			if err != nil {
				return err
			}
			if !containsNode(tab.nodes[sh], uint32(ri)) {
				tab.nodes[sh] = append(tab.nodes[sh], uint32(ri))
			}
		}
	}
	st.shards.Store(tab)
	return nil
}

func containsNode(ns []uint32, n uint32) bool {
	for _, x := range ns {
		if x == n {
			return true
		}
	}
	return false
}

// node returns the number of the node at addr, adding it when new.
func (st *clusterState) node(addr string) (int, error) {
	for i, a := range *st.nodes.Load() {
		if a == addr {
			return i, nil
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.nodeLocked(addr)
}

func (st *clusterState) nodeLocked(addr string) (int, error) {
	nodes := *st.nodes.Load()
	for i, a := range nodes {
		if a == addr {
			return i, nil
		}
	}
	if len(nodes) == MaxClusterNodes {
		return 0, fmt.Errorf("redis cluster: more than %d nodes (a new one at %s)", MaxClusterNodes, addr)
	}
	grown := append(nodes[:len(nodes):len(nodes)], addr)
	st.nodes.Store(&grown)
	return len(grown) - 1, nil
}

// addr returns node n's address.
func (st *clusterState) addr(n int) string { return (*st.nodes.Load())[n] }

// moved records that slot is now served by node and starts a refresh of
// the map unless one is under way.
func (st *clusterState) moved(slot uint16, node int) {
	st.master[slot].Store(uint32(node) + 1)
	if !st.refreshing.CompareAndSwap(false, true) {
		return
	}
	go func() {
		defer st.refreshing.Store(false)
		ctx, cancel := context.WithTimeout(context.Background(), st.o.DialTimeout+4*st.o.ReadTimeout+time.Second)
		defer cancel()
		m, err := st.fetch(ctx)
		if err != nil {
			return // the next MOVED tries again; MOVED targets keep the run going
		}
		st.mu.Lock()
		_ = st.apply(m)
		st.mu.Unlock()
		st.refreshes.Add(1)
	}()
}

// clusterConnector is the engine's driver.Cluster for a cluster URL.
type clusterConnector struct{ st *clusterState }

var _ driver.Cluster = clusterConnector{}

// Connect opens a connection to node 0 with a Session that routes
// nothing; the engine opens cluster connections through NewRouter.
func (c clusterConnector) Connect(ctx context.Context, dial driver.Dial, _ *script.Program, _ func(string, string)) (net.Conn, driver.Driver, error) {
	rt := c.NewRouter()
	return rt.Connect(ctx, dial, 0)
}

func (c clusterConnector) NewRouter() driver.Router { return &router{st: c.st} }

// router is one client's driver.Router: it substitutes a command's
// arguments once, finds the slot of its keys and the node that serves it,
// and hands the arguments to that node's Session for Encode.
type router struct {
	st     *clusterState
	args   []byte
	ends   []int
	argv   [][]byte
	keys   []int
	routed bool // args hold the command Route routed; the next Encode sends it
	turn   uint32

	// The request of the last redirected reply, for Resend.
	resend    []byte
	resendReq request
	ask       bool

	sp splitState // split=slot (split.go)
}

var (
	_ driver.Router   = (*router)(nil)
	_ driver.Splitter = (*router)(nil)
)

func (rt *router) MaxServers() int { return MaxClusterNodes }

// Connect opens a connection to node n: READONLY is sent on a replica's.
func (rt *router) Connect(ctx context.Context, dial driver.Dial, n int) (net.Conn, driver.Driver, error) {
	if err := rt.st.discover(ctx); err != nil {
		return nil, nil, err
	}
	if n == 0 {
		rt.resetMerges()
	}
	o := rt.st.o
	o.Addr, o.DialFunc = rt.st.addr(n), dial
	o.readOnly = o.ReadFrom != ReadMasters && !rt.isMaster(n)
	conn, err := Dial(ctx, o)
	if err != nil {
		return nil, nil, err
	}
	return conn, &Session{rt: rt, addr: o.Addr}, nil
}

// isMaster reports whether node n masters a shard.
func (rt *router) isMaster(n int) bool {
	tab := rt.st.shards.Load()
	for _, ns := range tab.nodes {
		if ns[0] == uint32(n) {
			return true
		}
	}
	return false
}

// Route substitutes cmd's arguments and returns the node of its keys'
// slot: see driver.Router.
func (rt *router) Route(cmd *script.Command, vars *script.Vars) (int, error) {
	var err error
	rt.args, rt.ends, err = cmd.RESP.AppendArgs(vars, rt.args[:0], rt.ends[:0])
	if err != nil {
		return 0, &driver.CommandError{What: cmd.Name, Msg: "building the \\resp command failed", Err: err}
	}
	rt.argv = rt.argv[:0]
	start := 0
	for _, end := range rt.ends {
		rt.argv = append(rt.argv, rt.args[start:end])
		start = end
	}
	rt.routed = true
	if len(rt.argv) == 0 {
		return 0, nil
	}
	if rt.keys, err = Keys(rt.keys[:0], rt.argv); err != nil {
		rt.routed = false
		return 0, &driver.CommandError{What: cmd.Name, Msg: "cluster routing: " + err.Error()}
	}
	if rt.st.o.Split {
		if split, err := rt.splitRoute(cmd); split {
			return driver.Split, err
		}
	}
	slot, err := SameSlot(rt.argv, rt.keys)
	if err != nil {
		rt.routed = false
		return 0, &driver.CommandError{What: cmd.Name, Msg: err.Error()}
	}
	if slot < 0 {
		return 0, nil // keyless: any node answers
	}
	m := rt.st.master[slot].Load()
	if m == 0 {
		rt.routed = false
		return 0, &driver.CommandError{What: cmd.Name, Msg: fmt.Sprintf("cluster routing: no node serves slot %d", slot)}
	}
	if rt.st.o.ReadFrom != ReadMasters && isRead(rt.argv[0]) {
		return rt.replica(uint16(slot), int(m-1)), nil
	}
	return int(m - 1), nil
}

// replica picks the node of a read: the slot's replicas in turn (rfr=yes,
// the master when there is none), or its master and replicas in turn
// (rfr=all).
func (rt *router) replica(slot uint16, master int) int {
	tab := rt.st.shards.Load()
	sh := tab.bySlot[slot]
	if sh == 0 {
		return master
	}
	ns := tab.nodes[sh-1]
	if int(ns[0]) != master {
		return master // the slot moved since the last refresh
	}
	rt.turn++
	if rt.st.o.ReadFrom == ReadReplicas {
		if len(ns) == 1 {
			return master
		}
		return int(ns[1+int(rt.turn)%(len(ns)-1)])
	}
	return int(ns[int(rt.turn)%len(ns)])
}

// redirected handles a MOVED or ASK reply to req, whose bytes were raw:
// it keeps the request for Resend and returns the node to send it to.
func (rt *router) redirected(rd Redirect, req request, raw []byte, from string) (int, error) {
	addr := rd.Addr
	if h, port, err := net.SplitHostPort(addr); err == nil && h == "" {
		fh, _, _ := net.SplitHostPort(from)
		addr = net.JoinHostPort(fh, port)
	}
	n, err := rt.st.node(addr)
	if err != nil {
		return 0, err
	}
	if !rd.Ask {
		rt.st.moved(rd.Slot, n)
	}
	rt.resend = append(rt.resend[:0], raw...)
	rt.resendReq, rt.ask = req, rd.Ask
	return n, nil
}

var askingCmd = AppendCommand(nil, "ASKING")

// Resend appends the redirected request to out for d: ASKING first after
// an ASK.
func (rt *router) Resend(d driver.Driver, out []byte) []byte {
	s := d.(*Session)
	if s.Pending() == 0 {
		s.queue, s.head, s.raw = s.queue[:0], 0, s.raw[:0]
	}
	if rt.ask {
		out = append(out, askingCmd...)
		s.queue = append(s.queue, request{asking: true, sent: int64(len(askingCmd))})
	}
	req := rt.resendReq
	req.sent = int64(len(rt.resend))
	req.rawStart = len(s.raw)
	s.raw = append(s.raw, rt.resend...)
	req.rawEnd = len(s.raw)
	s.queue = append(s.queue, req)
	return append(out, rt.resend...)
}

// readCommands are the commands rfr sends to replicas.
var readCommands = map[string]bool{
	"GET": true, "MGET": true, "STRLEN": true, "GETRANGE": true, "GETBIT": true, "BITCOUNT": true,
	"EXISTS": true, "TTL": true, "PTTL": true, "TYPE": true,
	"HGET": true, "HMGET": true, "HGETALL": true, "HLEN": true, "HEXISTS": true, "HKEYS": true,
	"HVALS": true, "HSTRLEN": true,
	"LLEN": true, "LRANGE": true, "LINDEX": true,
	"SMEMBERS": true, "SISMEMBER": true, "SCARD": true, "SRANDMEMBER": true, "SINTER": true,
	"SUNION": true, "SDIFF": true,
	"ZSCORE": true, "ZCARD": true, "ZCOUNT": true, "ZRANK": true, "ZREVRANK": true, "ZRANGE": true,
	"ZREVRANGE": true, "ZRANGEBYSCORE": true, "ZREVRANGEBYSCORE": true,
	"XLEN": true, "XRANGE": true, "XREVRANGE": true, "PFCOUNT": true,
	"EVAL_RO": true, "EVALSHA_RO": true, "FCALL_RO": true,
}

// isRead reports whether a command name, in any case, is a read.
func isRead(name []byte) bool {
	if len(name) > maxCommandName {
		return false
	}
	var up [maxCommandName]byte
	for i, c := range name {
		if c >= 'a' && c <= 'z' {
			c -= 'a' - 'A'
		}
		up[i] = c
	}
	return readCommands[string(up[:len(name)])]
}

// Check refuses, before the run, the \resp commands a cluster cannot run
// whatever the variables: a command whose name is written out and is not
// in the key table, and a multi-key command whose keys are all written
// out and span slots, unless split=slot splits it. The error names the
// script and line.
func (c clusterConnector) Check(p *script.Program) error {
	for _, s := range p.Scripts {
		for _, cmd := range s.Commands {
			if cmd.RESP == nil || len(cmd.RESP.Args) == 0 {
				continue
			}
			if err := checkCommand(cmd.RESP.Args, c.st.o.Split); err != nil {
				return fmt.Errorf("%s:%d: %s: %w", s.Name, cmd.Line, cmd.FirstLine, err)
			}
		}
	}
	return nil
}

func checkCommand(args []script.RESPArg, split bool) error {
	if !args[0].Literal() {
		return nil
	}
	argv := make([][]byte, len(args))
	literal := true
	for i := range args {
		argv[i] = []byte(args[i].Text)
		literal = literal && args[i].Literal()
	}
	if _, ok := lookupSpec(argv[0]); !ok {
		_, err := Keys(nil, argv)
		return err
	}
	if !literal {
		return nil
	}
	keys, err := Keys(nil, argv)
	if err != nil {
		return err
	}
	if split && splittable(argv[0]) {
		return nil
	}
	_, err = SameSlot(argv, keys)
	return err
}
