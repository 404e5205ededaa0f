package engine

import (
	"errors"
	"fmt"

	"github.com/gbench/gbench/engine/driver"
)

// Validate checks that cfg describes a run the engine can start: a program,
// at least one client, a shard that fits the threads, -t totals the
// clients can share, a connector for every protocol the program speaks,
// -D variables the program knows and, when the RESP connector is a
// driver.Cluster, no command the cluster refuses whatever the variables
// (its Check). It is the one place a Config is checked: Run calls it
// first, and the callers that build configs (cmd, the matrix) call it to
// report a bad one before they open anything. It does not modify cfg and
// may be called concurrently.
func (cfg *Config) Validate() error {
	p := cfg.Program
	switch {
	case p == nil:
		return errors.New("no program")
	case cfg.Clients < 1:
		return errors.New("no clients")
	}
	if err := cfg.Shard.Check(cfg.threads()); err != nil {
		return err
	}
	if cfg.Transactions == 0 && cfg.TotalTransactions > 0 && cfg.TotalTransactions < int64(cfg.Clients) {
		return fmt.Errorf("%d transactions cannot be shared by %d clients: each needs at least one", cfg.TotalTransactions, cfg.Clients)
	}
	if cfg.RateEnd != 0 && (cfg.Rate <= 0 || cfg.RateEnd < 0 || cfg.Duration <= 0) {
		return fmt.Errorf("a rate ramp needs a start rate and an end rate above 0 and a duration (-T)")
	}
	if p.HasSQL && cfg.SQL == nil {
		return fmt.Errorf("the script has SQL commands but no PostgreSQL connection is configured")
	}
	if p.HasRESP && cfg.RESP == nil {
		return fmt.Errorf("the script has \\resp commands but no Redis connection is configured")
	}
	if c, ok := cfg.RESP.(driver.Cluster); ok && p.HasRESP {
		if err := c.Check(p); err != nil {
			return err
		}
	}
	for _, d := range cfg.Defines {
		if p.Syms.Slot(d.Name) < 0 {
			return fmt.Errorf("variable %q of -D is not known to the program", d.Name)
		}
	}
	return nil
}

// threads is the number of threads the run has: -j, at least one and at
// most one per client.
func (cfg *Config) threads() int { return min(max(cfg.Threads, 1), cfg.Clients) }
