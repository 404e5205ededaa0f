package engine

import "fmt"

// Shard is one process's part of a run split over Count processes
// ("workers"), Index from 0. The run's threads (-j) are dealt to the
// workers in contiguous blocks, as pgbench deals clients to threads, and
// each worker runs the clients of its threads: together the workers run
// exactly the threads and clients one process would, with the same client
// ids, thread ids, random sequences and --rate schedules.
type Shard struct {
	Index, Count int
}

// Whole reports whether the shard is the whole run.
func (s Shard) Whole() bool { return s.Count <= 1 }

// Check returns an error when the shard cannot be a part of a run with
// threads threads: an index out of range, or fewer threads than workers
// (a worker would have nothing to run).
func (s Shard) Check(threads int) error {
	switch {
	case s.Whole():
		return nil
	case s.Index < 0 || s.Index >= s.Count:
		return fmt.Errorf("worker index %d is not in 0..%d", s.Index, s.Count-1)
	case threads < s.Count:
		return fmt.Errorf("%d workers need at least %d threads (-j), one per worker, to split the run exactly; got %d", s.Count, s.Count, threads)
	}
	return nil
}

// Threads returns the global ids [from, to) of the shard's threads out of
// threads: worker k of n gets (threads - dealt + n - k - 1) / (n - k) of
// them after the dealt ones of workers 0..k-1, so the first workers get
// one more when they do not divide evenly. The whole run has all.
func (s Shard) Threads(threads int) (from, to int) {
	if s.Whole() {
		return 0, threads
	}
	dealt := 0
	for k := 0; k < s.Count; k++ {
		n := (threads - dealt + s.Count - k - 1) / (s.Count - k)
		if k == s.Index {
			return dealt, dealt + n
		}
		dealt += n
	}
	return threads, threads
}

// threadClients returns the number of clients of each of threads threads
// out of clients, dealt as pgbench deals them: thread i gets
// (clients - dealt + threads - i - 1) / (threads - i).
func threadClients(clients, threads int) []int {
	out := make([]int, threads)
	dealt := 0
	for i := range out {
		out[i] = (clients - dealt + threads - i - 1) / (threads - i)
		dealt += out[i]
	}
	return out
}

// Clients returns the global ids [from, to) of the shard's clients out of
// clients dealt to threads threads.
func (s Shard) Clients(clients, threads int) (from, to int) {
	first, last := s.Threads(threads)
	counts := threadClients(clients, threads)
	for i := range last {
		if i < first {
			from += counts[i]
		}
		to += counts[i]
	}
	return from, to
}
