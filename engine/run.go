package engine

import (
	"context"
	"fmt"
	"github.com/gbench/gbench/engine/internal/netpoll"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// Result is what a run measured.
type Result struct {
	Stats *stats.Block
	// Threads is the number of threads used (at most one per client; the
	// shard's under a Shard); Clients the number of clients they ran (-c,
	// or the shard's).
	Threads, Clients int
	// Transport is the transport the run used (never TransportAuto).
	Transport Transport
	// Start is the wall-clock time the benchmark started (after connecting),
	// on the run's timeline (StartPlan.Wall).
	Start time.Time
	// Bench is the benchmarking time, from the start to the last client's
	// end (pgbench's total_duration).
	Bench time.Duration
	// ConnElapsed is the time spent opening the initial connections.
	ConnElapsed time.Duration
	// Late is how long after the planned start (Config.Start) the threads
	// began; 0 without a plan.
	Late time.Duration
	// Aborted counts clients that aborted; the run then exits with 2.
	Aborted int
	// Unstarted counts the --rate schedule's slots due by the -T end that
	// no transaction started: a client was still busy, or the client fell
	// behind and woke only after the end (pgbench drops these too, and
	// counts them nowhere). Completed transactions plus skipped ones plus
	// Unstarted are the schedule's slots up to the end. 0 without --rate
	// and -T, or when the run was interrupted.
	Unstarted int64
	// Interrupted is set when the run was stopped early (Ctrl-C).
	Interrupted bool
	// CPU is the client process's user and system CPU time during the
	// benchmark.
	UserCPU, SysCPU time.Duration
	// Errs holds problems that are not client aborts (log write errors).
	Errs []error
	// Outages are the windows of unavailability under --reconnect, in
	// order; nil without it.
	Outages []Outage
}

// run is the shared state of one Run call.
type run struct {
	ctx       context.Context
	cfg       *Config
	net       netpoll.Network
	transport Transport // the one net is
	protos    []protocol
	// stride is the number of connection slots of a client: one per
	// protocol, and in a cluster one more per node beyond the first
	// (engine/cluster.go).
	stride  int
	threads []*thread
	stop    atomic.Bool
	hard    atomic.Bool
	outMu   sync.Mutex
	out     io.Writer

	// origin is the start of the benchmark clock, wall its time on the
	// run's timeline.
	origin, wall time.Time
	// total accumulates the threads' statistics handed over at progress
	// ticks (progress.go); the threads keep what came after.
	total *stats.Block

	// outages, dialers and the rest serve --reconnect (reconnect.go):
	// reconnections in flight are cancelled through dialCtx when the run
	// ends, and at most maxDialers dial at once.
	outages    outages
	dialers    sync.WaitGroup
	dialSem    chan struct{}
	dialCtx    context.Context
	dialCancel context.CancelFunc
}

func (r *run) stopping() bool { return r.stop.Load() }

// protoFor returns the index of the protocol that serves commands of kind
// k, or -1 for meta-commands.
func (r *run) protoFor(k script.CmdKind) int {
	for i := range r.protos {
		if r.protos[i].kind == k {
			return i
		}
	}
	return -1
}

// abort stops the run after --exit-on-abort or a hard stop.
func (r *run) abort() {
	if !r.stop.Swap(true) {
		r.wakeAll()
	}
}

func (r *run) wakeAll() {
	for _, t := range r.threads {
		t.poll.Wake()
	}
}

// printf writes a message to Stderr; threads share it.
func (r *run) printf(format string, args ...any) {
	r.outMu.Lock()
	fmt.Fprintf(r.out, format, args...)
	r.outMu.Unlock()
}

// Run executes the benchmark described by cfg. Cancelling ctx stops clients
// from starting new transactions; running ones finish. It returns an error
// only when the run could not start (exit status 1); clients that abort
// during the run are counted in Result.Aborted (exit status 2).
func Run(ctx context.Context, cfg *Config) (*Result, error) {
	r := &run{ctx: ctx, cfg: cfg, out: cfg.Stderr}
	if r.out == nil {
		r.out = io.Discard
	}
	if err := r.setup(); err != nil {
		return nil, err
	}
	defer r.closePollers()
	startConn := time.Now()
	if !cfg.Connect {
		if err := r.connectAll(ctx); err != nil {
			r.closeAll()
			return nil, err
		}
	}
	if err := r.openLogs(); err != nil {
		r.closeAll()
		return nil, err
	}
	res := &Result{Threads: len(r.threads), Clients: r.clientCount(), ConnElapsed: time.Since(startConn), Transport: r.transport}
	var plan StartPlan
	if cfg.Start != nil {
		var err error
		if plan, err = cfg.Start(ctx); err != nil {
			r.closeAll()
			r.closeLogs()
			return nil, err
		}
	}
	r.bench(ctx, res, plan)
	return res, nil
}

// bench runs the threads and collects their results.
func (r *run) bench(ctx context.Context, res *Result, plan StartPlan) {
	lock := r.net.LockThread()
	if prev := runtime.GOMAXPROCS(0); lock && len(r.threads)+1 > prev {
		// Every loop keeps a P while it runs; others (signals, progress,
		// the garbage collector) get one of their own.
		runtime.GOMAXPROCS(len(r.threads) + 1)
		defer runtime.GOMAXPROCS(prev)
	}
	stopWatch := context.AfterFunc(ctx, r.abort)
	defer stopWatch()
	if cfg := r.cfg; cfg.HardStop != nil {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-cfg.HardStop:
				r.hard.Store(true)
				r.abort()
				r.wakeAll()
			case <-done:
			}
		}()
	}
	r.awaitStart(ctx, plan, res)
	r.dialCtx, r.dialCancel = context.WithCancel(context.WithoutCancel(ctx))
	r.dialSem = make(chan struct{}, maxDialers)
	defer r.awaitDialers()
	u0, s0 := cpuTimes()
	origin := r.origin
	res.Start = r.wall
	r.total = r.newBlock()
	for _, t := range r.threads {
		if l, ok := t.log.(StartLog); ok {
			l.Start(r.wall)
		}
	}
	var wg sync.WaitGroup
	for _, t := range r.threads {
		t.start(origin, r.wall)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if lock {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			t.loop()
			t.countUnstarted()
			t.closeLog()
		}()
	}
	progressDone := r.startProgress()
	wg.Wait()
	res.Bench = time.Since(origin)
	u1, s1 := cpuTimes()
	res.UserCPU, res.SysCPU = u1-u0, s1-s0
	progressDone(res.Bench)
	res.Interrupted = ctx.Err() != nil
	res.Stats = r.merge(res)
	if r.cfg.Reconnect.Enabled {
		res.Outages = r.outages.windows(res.Bench)
	}
}

// awaitStart sets the run's origin: now, or the plan's start once it
// comes (at once when the run is stopped meanwhile).
func (r *run) awaitStart(ctx context.Context, plan StartPlan, res *Result) {
	if plan.At.IsZero() {
		r.origin = time.Now()
		r.wall = r.origin.Round(0)
		return
	}
	if d := time.Until(plan.At); d > 0 {
		timer := time.NewTimer(d)
		select {
		case <-timer.C:
		case <-ctx.Done():
		case <-r.cfg.HardStop:
		}
		timer.Stop()
	}
	r.origin, r.wall = plan.At, plan.Wall
	if r.wall.IsZero() {
		r.wall = plan.At.Round(0)
	}
	res.Late = max(time.Since(plan.At), 0)
}

// merge adds up the statistics: what the progress ticks collected and
// what each thread recorded after its last tick.
func (r *run) merge(res *Result) *stats.Block {
	total := r.total
	for _, t := range r.threads {
		if t.cur != nil {
			total.Merge(t.cur)
			t.cur = nil
		}
		res.Aborted += t.aborted
		if !r.stopping() {
			res.Unstarted += t.unstarted
		}
		if t.err != nil {
			res.Errs = append(res.Errs, t.err)
		}
	}
	if len(total.Scripts) == 1 {
		// One script: its figures are the total's, recorded once.
		total.Scripts[0].Merge(total.Total)
	}
	return total
}

// setup builds threads and clients: clients split over threads as pgbench
// splits them, random sequences derived from the seed in pgbench's order.
// Under a Shard every sequence of the whole run is drawn, in that order,
// and only the shard's threads and their clients are built, so they get
// the sequences they would have in one process.
func (r *run) setup() error {
	cfg := r.cfg
	if err := cfg.Validate(); err != nil {
		return err
	}
	nthreads := cfg.threads()
	var err error
	if r.net, r.transport, err = networkFor(cfg.Transport); err != nil {
		return err
	}
	if r.protos, err = r.protocols(); err != nil {
		return err
	}
	if err = r.setStride(); err != nil {
		return err
	}
	var base script.PRNG
	base.Seed(cfg.Seed)
	seeds := make([]uint64, cfg.Clients)
	for i := range seeds {
		seeds[i] = base.Uint64()
	}
	defaultSeed := int64(base.Uint64())
	counts := threadClients(cfg.Clients, nthreads)
	from, to := cfg.Shard.Threads(nthreads)
	var mine []*client
	first := 0
	for i := 0; i < nthreads; i++ {
		var ts [3]uint64 // script choice, throttle, sampling
		for j := range ts {
			ts[j] = base.Uint64()
		}
		// The reconnection backoff's jitter is drawn from the sampling
		// seed, so that the sequences above stay pgbench's.
		if i >= from && i < to {
			clients := r.newClients(first, seeds[first:first+counts[i]])
			t, err := r.newThread(i, clients, ts)
			if err != nil {
				r.closePollers()
				return err
			}
			r.threads = append(r.threads, t)
			mine = append(mine, clients...)
		}
		first += counts[i]
	}
	if err := r.setVars(mine, defaultSeed); err != nil {
		r.closePollers()
		return err
	}
	return nil
}

// newClients creates the clients with ids first, first+1, ..., each with
// its random sequence seeded from seeds.
func (r *run) newClients(first int, seeds []uint64) []*client {
	cfg := r.cfg
	maxCmds := 0
	for _, s := range cfg.Program.Scripts {
		maxCmds = max(maxCmds, len(s.Commands))
	}
	clients := make([]*client, len(seeds))
	for i := range clients {
		c := &client{id: first + i, timer: -1, downIn: -1, conns: make([]*conn, r.stride), sent: make([]int64, maxCmds), limit: cfg.Transactions}
		if n := int64(cfg.Clients); c.limit == 0 && cfg.TotalTransactions > 0 {
			// Shared by every client of the run, each shard's included.
			c.limit = cfg.TotalTransactions / n
			if int64(c.id) < cfg.TotalTransactions%n {
				c.limit++
			}
		}
		c.env.Vars = script.NewVars(cfg.Program.Syms)
		r.setRouter(c)
		c.env.Rand.Seed(seeds[i])
		c.env.Debug = debugWriter{r}
		clients[i] = c
	}
	return clients
}

// setVars defines -D variables and pgbench's predefined ones, which -D may
// override.
func (r *run) setVars(clients []*client, defaultSeed int64) error {
	p := r.cfg.Program
	defined := map[string]bool{}
	for _, d := range r.cfg.Defines {
		slot := p.Syms.Slot(d.Name)
		if slot < 0 {
			return fmt.Errorf("variable %q of -D is not known to the program", d.Name)
		}
		defined[d.Name] = true
		for _, c := range clients {
			c.env.Vars.SetText(slot, []byte(d.Value))
		}
	}
	for _, c := range clients {
		if !defined["scale"] {
			c.env.Vars.SetInt(p.Scale, int64(r.cfg.Scale))
		}
		if !defined["client_id"] {
			c.env.Vars.SetInt(p.ClientID, int64(c.id))
		}
		if !defined["default_seed"] {
			c.env.Vars.SetInt(p.DefaultSeed, defaultSeed)
		}
		if !defined["random_seed"] {
			c.env.Vars.SetInt(p.RandomSeed, int64(r.cfg.Seed))
		}
	}
	return nil
}

// newThread creates a thread for a block of clients; seeds are its script
// choice, throttle and sampling sequences.
func (r *run) newThread(id int, clients []*client, seeds [3]uint64) (*thread, error) {
	cfg := r.cfg
	poll, err := r.net.NewPoller(r.stride * len(clients))
	if err != nil {
		return nil, fmt.Errorf("creating the event loop: %w", err)
	}
	t := &thread{id: id, run: r, cfg: cfg, prog: cfg.Program, clients: clients, poll: poll}
	t.chooseRand.Seed(seeds[0])
	t.throttleRand.Seed(seeds[1])
	t.sampleRand.Seed(seeds[2])
	t.backoffRand.Seed(seeds[2] ^ 0x9e3779b97f4a7c15)
	if cfg.Reconnect.Enabled {
		t.reconns = make(chan reconnResult, len(clients))
	}
	if cfg.Rate > 0 {
		// pgbench's rate is per thread: the union of the threads' Poisson
		// schedules is one at the whole rate, on one machine or many.
		t.throttleDelay = 1e6 / cfg.Rate * float64(min(max(cfg.Threads, 1), cfg.Clients))
		if cfg.RateEnd > 0 && cfg.RateEnd != cfg.Rate {
			t.ramp = newRamp(cfg.Rate, cfg.RateEnd, cfg.Duration, min(max(cfg.Threads, 1), cfg.Clients))
		}
	}
	t.cur = r.newBlock()
	t.snap.ch = make(chan *stats.Block, 1)
	t.snap.spare = make(chan *stats.Block, 1)
	for i, c := range clients {
		c.th, c.index = t, i
	}
	t.remaining = len(clients)
	return t, nil
}

// newBlock returns empty statistics for the run's scripts.
func (r *run) newBlock() *stats.Block {
	var counts []int
	for _, s := range r.cfg.Program.Scripts {
		counts = append(counts, len(s.Commands))
	}
	return stats.NewBlock(counts, r.cfg.PerCommand)
}

// start sets the thread's clock and schedule; clients begin by choosing a
// script.
func (t *thread) start(origin, wall time.Time) {
	t.origin, t.wall = origin, wall
	if t.cfg.Duration > 0 {
		t.endTime = int64(t.cfg.Duration)
	}
	t.throttleTrigger = 0
	if t.ramp != nil {
		t.ramp.v = 0
	}
	t.armWatch()
	for _, c := range t.clients {
		c.state = stChooseScript
		t.requeue(c)
	}
}

// connectAll opens every client's connections in parallel before the clock
// starts.
func (r *run) connectAll(ctx context.Context) error {
	var all []*client
	for _, t := range r.threads {
		all = append(all, t.clients...)
	}
	errs := make([]error, len(all))
	sem := make(chan struct{}, 64)
	var wg sync.WaitGroup
	for i, c := range all {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			conns, err := r.openConns(ctx, c)
			if err == nil {
				err = c.th.install(c, conns)
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("could not create connection for client %d: %w", all[i].id, err)
		}
	}
	return nil
}

// clientCount is the number of clients the run's threads run.
func (r *run) clientCount() int {
	n := 0
	for _, t := range r.threads {
		n += len(t.clients)
	}
	return n
}

// closeAll closes every open connection, after a failed start.
func (r *run) closeAll() {
	for _, t := range r.threads {
		for _, c := range t.clients {
			c.disconnect()
		}
	}
}

func (r *run) closePollers() {
	for _, t := range r.threads {
		if t.poll != nil {
			t.poll.Close()
		}
	}
}

// debugWriter sends debug() output to Stderr under the run's lock.
type debugWriter struct{ r *run }

func (w debugWriter) Write(p []byte) (int, error) {
	w.r.outMu.Lock()
	defer w.r.outMu.Unlock()
	return w.r.out.Write(p)
}
