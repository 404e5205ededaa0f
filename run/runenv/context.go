package runenv

import (
	"runtime"

	"github.com/gbench/gbench/result/schema"
	"slices"
	"time"
)

// Context is the context of one result: who measured, on what, against
// which servers. It is filled in by the caller, part by part.
type Context struct {
	Gbench Gbench  `json:"gbench"`
	Client Machine `json:"client"`
	// Postgres and Redis describe the servers the run used; absent for a
	// server it did not use.
	Postgres *Postgres `json:"postgres,omitempty"`
	Redis    *Redis    `json:"redis,omitempty"`
	// Notes say what could not be recorded, and why.
	Notes []string `json:"notes,omitempty"`
}

// Gbench is the program that measured.
type Gbench struct {
	Version string `json:"version"`
	Go      string `json:"go"`
	// Command is the command line, program name first, passwords hidden.
	Command []string `json:"command"`
}

// New returns a context holding gbench and this machine.
func New(version string, command []string) *Context {
	return &Context{
		Gbench: Gbench{Version: version, Go: runtime.Version(), Command: command},
		Client: ThisMachine(),
	}
}

// Activity is what the servers did during one measured window.
type Activity struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Postgres and Redis are absent for a server the run did not use or
	// could not read (Notes says why).
	Postgres *PostgresActivity `json:"postgres,omitempty"`
	Redis    *RedisActivity    `json:"redis,omitempty"`
	// WaitEvents is PostgreSQL's wait-state profile over the window, when
	// asked for (--wait-events); WaitEventsNote says why it is absent.
	WaitEvents     *schema.WaitEvents `json:"wait_events,omitempty"`
	WaitEventsNote string             `json:"wait_events_note,omitempty"`
	Notes          []string           `json:"notes,omitempty"`
}

// Warnings say what could have disturbed the measurement: checkpoints,
// autovacuum, Redis forks and evictions inside the window.
func (a *Activity) Warnings() []string {
	if a == nil {
		return nil
	}
	var out []string
	if a.Postgres != nil {
		out = append(out, a.Postgres.Warnings()...)
	}
	if a.Redis != nil {
		out = append(out, a.Redis.Warnings()...)
	}
	return out
}

func sortStrings(s []string) { slices.Sort(s) }

func contains(s []string, v string) bool { return slices.Contains(s, v) }
