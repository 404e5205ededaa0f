package engine

import (
	"context"
	"errors"
	"fmt"
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
	// Threads is the number of threads used (at most one per client).
	Threads int
	// Start is the wall-clock time the benchmark started (after connecting).
	Start time.Time
	// Bench is the benchmarking time, from the start to the last client's
	// end (pgbench's total_duration).
	Bench time.Duration
	// ConnElapsed is the time spent opening the initial connections.
	ConnElapsed time.Duration
	// Aborted counts clients that aborted; the run then exits with 2.
	Aborted int
	// Interrupted is set when the run was stopped early (Ctrl-C).
	Interrupted bool
	// CPU is the client process's user and system CPU time during the
	// benchmark.
	UserCPU, SysCPU time.Duration
	// Errs holds problems that are not client aborts (log write errors).
	Errs []error
}

// run is the shared state of one Run call.
type run struct {
	ctx     context.Context
	cfg     *Config
	net     network
	protos  []protocol
	threads []*thread
	stop    atomic.Bool
	hard    atomic.Bool
	outMu   sync.Mutex
	out     io.Writer
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
		t.poll.wake()
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
	res := &Result{Threads: len(r.threads), ConnElapsed: time.Since(startConn)}
	r.bench(ctx, res)
	return res, nil
}

// bench runs the threads and collects their results.
func (r *run) bench(ctx context.Context, res *Result) {
	lock := r.net.lockThread()
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
	u0, s0 := cpuTimes()
	origin := time.Now()
	res.Start = origin
	var wg sync.WaitGroup
	for _, t := range r.threads {
		t.start(origin)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if lock {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
			}
			t.loop()
			t.closeLog()
		}()
	}
	progressDone := r.startProgress(origin)
	wg.Wait()
	res.Bench = time.Since(origin)
	u1, s1 := cpuTimes()
	res.UserCPU, res.SysCPU = u1-u0, s1-s0
	progressDone()
	res.Interrupted = ctx.Err() != nil
	res.Stats = r.merge(res)
}

// merge adds up the threads' statistics.
func (r *run) merge(res *Result) *stats.Block {
	var total *stats.Block
	for _, t := range r.threads {
		if len(t.block.Scripts) == 1 {
			t.block.Scripts[0].Merge(t.block.Total)
		}
		if total == nil {
			total = t.block
		} else {
			total.Merge(t.block)
		}
		res.Aborted += t.aborted
		if t.err != nil {
			res.Errs = append(res.Errs, t.err)
		}
	}
	return total
}

// setup builds threads and clients: clients split over threads as pgbench
// splits them, random sequences derived from the seed in pgbench's order.
func (r *run) setup() error {
	cfg := r.cfg
	if cfg.Clients < 1 {
		return errors.New("no clients")
	}
	var err error
	if r.net, err = networkFor(cfg.Transport); err != nil {
		return err
	}
	if r.protos, err = r.protocols(); err != nil {
		return err
	}
	maxCmds := 0
	for _, s := range cfg.Program.Scripts {
		maxCmds = max(maxCmds, len(s.Commands))
	}
	nthreads := min(max(cfg.Threads, 1), cfg.Clients)
	var base script.PRNG
	base.Seed(cfg.Seed)
	clients := make([]*client, cfg.Clients)
	for i := range clients {
		c := &client{id: i, timer: -1, conns: make([]*conn, len(r.protos)), sent: make([]int64, maxCmds)}
		c.env.Vars = script.NewVars(cfg.Program.Syms)
		c.env.Rand.Seed(base.Uint64())
		c.env.Debug = debugWriter{r}
		clients[i] = c
	}
	defaultSeed := int64(base.Uint64())
	if err := r.setVars(clients, defaultSeed); err != nil {
		return err
	}
	dealt := 0
	for i := 0; i < nthreads; i++ {
		n := (cfg.Clients - dealt + nthreads - i - 1) / (nthreads - i)
		t, err := r.newThread(i, clients[dealt:dealt+n], &base)
		if err != nil {
			r.closePollers()
			return err
		}
		r.threads = append(r.threads, t)
		dealt += n
	}
	return nil
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

// newThread creates a thread for a block of clients.
func (r *run) newThread(id int, clients []*client, base *script.PRNG) (*thread, error) {
	cfg := r.cfg
	poll, err := r.net.newPoller(len(r.protos) * len(clients))
	if err != nil {
		return nil, fmt.Errorf("creating the event loop: %w", err)
	}
	t := &thread{id: id, run: r, cfg: cfg, prog: cfg.Program, clients: clients, poll: poll}
	t.chooseRand.Seed(base.Uint64())
	t.throttleRand.Seed(base.Uint64())
	t.sampleRand.Seed(base.Uint64())
	if cfg.Rate > 0 {
		t.throttleDelay = 1e6 / cfg.Rate * float64(min(max(cfg.Threads, 1), cfg.Clients))
	}
	var counts []int
	for _, s := range cfg.Program.Scripts {
		counts = append(counts, len(s.Commands))
	}
	t.block = stats.NewBlock(counts, cfg.PerCommand)
	t.interval = stats.NewTxn()
	t.snap.ch = make(chan *stats.Txn, 1)
	for i, c := range clients {
		c.th, c.index = t, i
	}
	t.remaining = len(clients)
	return t, nil
}

// start sets the thread's clock and schedule; clients begin by choosing a
// script.
func (t *thread) start(origin time.Time) {
	t.origin = origin
	if t.cfg.Duration > 0 {
		t.endTime = int64(t.cfg.Duration)
	}
	t.throttleTrigger = 0
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
			conns, err := r.openConns(ctx)
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
			t.poll.close()
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
