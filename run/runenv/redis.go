package runenv

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/resp"
)

// RedisSettings are the directives a context records: those that change
// what a request costs (persistence, memory policy, threads, timers).
var RedisSettings = []string{
	"appendonly", "appendfsync", "save", "maxmemory", "maxmemory-policy", "io-threads",
	"io-threads-do-reads", "hz", "maxclients", "activedefrag", "lazyfree-lazy-eviction",
}

// Redis describes a Redis-protocol server.
type Redis struct {
	Version string `json:"version"`
	// Mode is INFO's redis_mode (standalone, cluster, sentinel).
	Mode string `json:"mode,omitempty"`
	// Settings are the RedisSettings the server answered CONFIG GET for.
	Settings []Setting `json:"settings"`
	// Note says why settings are missing (CONFIG is disabled or renamed on
	// many managed services).
	Note string `json:"note,omitempty"`
}

// DescribeRedis reads the server's version and the settings of
// RedisSettings.
func DescribeRedis(rc *resp.Client) (*Redis, error) {
	info, err := rc.Info("server")
	if err != nil {
		return nil, fmt.Errorf("reading INFO server: %w", err)
	}
	r := &Redis{Version: info["redis_version"], Mode: info["redis_mode"], Settings: []Setting{}}
	var missing []string
	for _, name := range RedisSettings {
		text, err := rc.Text("CONFIG", "GET", name)
		if err != nil {
			r.Note = "CONFIG GET failed: " + err.Error()
			break
		}
		k, v, ok := strings.Cut(text, "\n")
		if !ok || k != name {
			missing = append(missing, name)
			continue
		}
		r.Settings = append(r.Settings, Setting{Name: name, Value: v})
	}
	if len(missing) > 0 && r.Note == "" {
		r.Note = "the server does not know " + strings.Join(missing, ", ")
	}
	return r, nil
}

// RedisCounters are Redis's cumulative counters at one moment.
type RedisCounters struct {
	At time.Time
	// Forks counts fork()s (background saves and AOF rewrites):
	// total_forks of INFO stats.
	Forks int64
	// Evicted and Expired are evicted_keys and expired_keys.
	Evicted, Expired int64
	// Saving is set when a background save or rewrite was in progress.
	Saving bool
}

// ReadRedis reads the counters.
func ReadRedis(rc *resp.Client) (*RedisCounters, error) {
	info, err := rc.Info("stats", "persistence")
	if err != nil {
		return nil, fmt.Errorf("reading INFO stats: %w", err)
	}
	c := &RedisCounters{At: time.Now()}
	c.Forks, _ = strconv.ParseInt(info["total_forks"], 10, 64)
	c.Evicted, _ = strconv.ParseInt(info["evicted_keys"], 10, 64)
	c.Expired, _ = strconv.ParseInt(info["expired_keys"], 10, 64)
	c.Saving = info["rdb_bgsave_in_progress"] == "1" || info["aof_rewrite_in_progress"] == "1"
	return c, nil
}

// RedisActivity is what Redis did between two readings.
type RedisActivity struct {
	// Forks are background saves or AOF rewrites started in between.
	Forks int64 `json:"forks"`
	// Saving: a background save or rewrite was running at either reading.
	Saving  bool  `json:"saving"`
	Evicted int64 `json:"evicted_keys"`
	Expired int64 `json:"expired_keys"`
}

// Since returns what happened between before and c.
func (c *RedisCounters) Since(before *RedisCounters) *RedisActivity {
	return &RedisActivity{
		Forks: c.Forks - before.Forks, Saving: c.Saving || before.Saving,
		Evicted: c.Evicted - before.Evicted, Expired: c.Expired - before.Expired,
	}
}

// Warnings say what in a could have disturbed the measurement.
func (a *RedisActivity) Warnings() []string {
	var out []string
	switch {
	case a.Forks > 0:
		out = append(out, fmt.Sprintf("Redis forked %s (background save or AOF rewrite) inside the measured window", plural(a.Forks, "time")))
	case a.Saving:
		out = append(out, "a Redis background save or AOF rewrite was running during the measured window")
	}
	if a.Evicted > 0 {
		out = append(out, fmt.Sprintf("Redis evicted %d keys inside the measured window (maxmemory)", a.Evicted))
	}
	return out
}
