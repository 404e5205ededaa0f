package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/gbench/gbench/engine"
	"github.com/gbench/gbench/engine/stats"
	"github.com/gbench/gbench/script"
)

// Buckets are the upper bounds of the latency histograms' buckets, in
// seconds: 50 us to 10 s, about three per decade.
var Buckets = []float64{
	0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
	0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
}

// Run describes the run an Exporter serves.
type Run struct {
	RunID   string
	Worker  int // the worker's index; 0 for a run of its own
	Workers int // the number of workers; 1 for a run of its own
	Version string
	Config  *engine.Config
	// Clients and Threads are this process's (a worker's share).
	Clients, Threads int
	// Rate is this process's share of --rate; 0 without.
	Rate float64
}

// Exporter holds a run's figures for Prometheus. Update, Start, Finish and
// scrapes may come from different goroutines.
type Exporter struct {
	run     Run
	scripts []*script.Script

	mu          sync.Mutex
	total       *stats.Block
	started     time.Time // on the run's timeline; zero until the first tick
	ended       time.Time
	scrapes     int // scrapes since the last update
	everScraped bool
	down        int // clients without a connection at the last tick
}

// New returns an exporter of run's figures, all zero.
func New(run Run) *Exporter {
	var counts []int
	for _, s := range run.Config.Program.Scripts {
		counts = append(counts, len(s.Commands))
	}
	return &Exporter{run: run, scripts: run.Config.Program.Scripts, total: stats.NewBlock(counts, run.Config.PerCommand)}
}

// Update adds one progress interval; call it from the engine's
// OnProgress. It copies what it needs: p's statistics stay the engine's.
func (e *Exporter) Update(p engine.Progress) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.started.IsZero() {
		e.started = p.Wall.Add(-p.Elapsed)
	}
	e.total.Merge(p.Block)
	e.down = p.Down
	e.scrapes = 0
}

// Finish replaces the figures with the run's final ones (the ticks miss
// the end of the run); total is the run's, which the exporter copies.
func (e *Exporter) Finish(res *engine.Result) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.total.Reset()
	e.total.Merge(res.Stats)
	if len(e.total.Scripts) == 1 {
		e.total.Scripts[0].Reset() // one script: the engine copied the total there
	}
	e.started, e.ended = res.Start, res.Start.Add(res.Bench)
	e.down = 0
	e.scrapes = 0
}

// WaitsForScrape reports whether something scrapes the exporter and has
// not read its figures since they changed.
func (e *Exporter) WaitsForScrape() bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.everScraped && e.scrapes == 0
}

// Server serves an exporter's metrics over HTTP at /metrics, with the Go
// runtime's and the process's.
type Server struct {
	es     []*Exporter
	srv    *http.Server
	ln     net.Listener
	served chan error
}

// Serve starts serving e at addr (HOST:PORT; port 0 picks one). Close the
// server after the run.
func Serve(addr string, e *Exporter) (*Server, error) {
	return ServeGroups(addr, []*Exporter{e}, nil)
}

// ServeGroups serves the exporters of the client groups of one run
// (gbench --group) at addr, each group's metrics with the label
// group="NAME" (names[i] for es[i]) besides run_id and worker; nil names
// serve one exporter without the label, as Serve does.
func ServeGroups(addr string, es []*Exporter, names []string) (*Server, error) {
	reg := prometheus.NewRegistry()
	for i, e := range es {
		labels := prometheus.Labels{"run_id": e.run.RunID, "worker": strconv.Itoa(e.run.Worker)}
		if names != nil {
			labels["group"] = names[i]
		}
		if err := prometheus.WrapRegistererWith(labels, reg).Register((*collector)(e)); err != nil {
			return nil, err
		}
	}
	labels := prometheus.Labels{"run_id": es[0].run.RunID, "worker": strconv.Itoa(es[0].run.Worker)}
	wrapped := prometheus.WrapRegistererWith(labels, reg)
	for _, c := range []prometheus.Collector{collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{})} {
		if err := wrapped.Register(c); err != nil {
			return nil, err
		}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("--metrics-addr: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: nil}))
	s := &Server{es: es, ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}, served: make(chan error, 1)}
	go func() { s.served <- s.srv.Serve(ln) }()
	return s, nil
}

// waits reports whether any exporter waits for a scrape.
func (s *Server) waits() bool {
	for _, e := range s.es {
		if e.WaitsForScrape() {
			return true
		}
	}
	return false
}

// Addr is the address the server listens on.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server. When something has scraped it and has not read
// the figures since the last Update or Finish, it first waits for one more
// scrape, at most linger, so that a Prometheus scraping the run gets its
// final figures.
func (s *Server) Close(linger time.Duration) error {
	deadline := time.Now().Add(linger)
	for s.waits() && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if serr := <-s.served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	return err
}
