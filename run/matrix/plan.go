package matrix

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"

	toml "github.com/pelletier/go-toml/v2"
)

// Plan is a plan file as written: a TOML document, decoded strictly
// (every key must be one of these). Plan.Config validates it into the
// Config a run reads. docs/matrix.md describes every field. A Plan
// encodes back to TOML (Encode) with the same meaning.
type Plan struct {
	// Title says in a line what the plan measures.
	Title string `toml:"title,omitempty"`
	// Repeats of each cell; default 3.
	Repeats int `toml:"repeats,omitempty"`
	// DurationS is the length of a sample in seconds (-T), Requests the
	// number of requests of a sample, shared by its connections; at most
	// one of them; default 5 seconds.
	DurationS float64 `toml:"duration_s,omitempty"`
	Requests  int64   `toml:"requests,omitempty"`
	// Threads (-j) of each sample; default 2.
	Threads int `toml:"threads,omitempty"`
	// WarmupS is the warm-up of each path in seconds; default 1, 0 for none.
	WarmupS *float64 `toml:"warmup_s,omitempty"`
	// Retries of a failed sample; default 2.
	Retries *int `toml:"retries,omitempty"`
	// IntervalS, when set, makes each sample record a series of intervals
	// of that many seconds.
	IntervalS float64 `toml:"interval_s,omitempty"`
	// Keys per request; empty for scripts that read no list of keys.
	Keys []int `toml:"keys,omitempty"`
	// Connections (-c) of the samples.
	Connections []int `toml:"connections,omitempty"`
	// Rates are target rates in requests per second (--rate), 0 for none.
	Rates []float64 `toml:"rates,omitempty"`
	// RandomKeys reads distinct random keys instead of the keys 1..N; from
	// 1..HotRows when HotRows is set.
	RandomKeys bool `toml:"random_keys,omitempty"`
	HotRows    int  `toml:"hot_rows,omitempty"`
	// Seed fixes the order of the samples; default from the clock.
	Seed *uint64 `toml:"seed,omitempty"`
	// Threshold is what every cell must meet, like "p99<=5ms,tps>=1000",
	// checked on the cell's medians; a breach makes gbench matrix exit 3.
	Threshold string `toml:"threshold,omitempty"`
	// Dataset is what is loaded (a sandbox, --load) or expected.
	Dataset PlanDataset `toml:"dataset,omitempty"`
	// Servers are the plan's servers; a sandbox when both are empty.
	Servers PlanServers `toml:"servers,omitempty"`
	// Mixes are weighted mixes of each path's scripts.
	Mixes []PlanMix `toml:"mixes,omitempty"`
	// Paths are what is compared.
	Paths []PlanPath `toml:"paths"`
}

// PlanDataset is the dataset of a plan.
type PlanDataset struct {
	Items     int `toml:"items,omitempty"`
	ValueSize int `toml:"value_size,omitempty"`
	KVKeys    int `toml:"kv_keys,omitempty"`
	// Sessions is the article's UUID keyspace (workloads.Options.Sessions).
	Sessions int `toml:"sessions,omitempty"`
}

// PlanServers are a plan's servers: a PostgreSQL conninfo or URI, and a
// RESP URL.
type PlanServers struct {
	Postgres string `toml:"postgres,omitempty"`
	RESP     string `toml:"resp,omitempty"`
	// Durability is a sandbox's: "on" (the default: fsync,
	// synchronous_commit and full_page_writes on) or "off" (all three
	// off). A server of the plan's own keeps its settings.
	Durability string `toml:"durability,omitempty"`
}

// PlanMix is a mix: each path runs the scripts named, chosen per request
// by weight (pgbench's -f file@weight).
type PlanMix struct {
	Name    string         `toml:"name"`
	Weights map[string]int `toml:"weights,omitempty"`
}

// PlanPath is one path of a plan file.
type PlanPath struct {
	Name string `toml:"name"`
	// Mode is "simple", "extended" or "prepared"; default prepared, or
	// simple for a path without SQL.
	Mode string `toml:"mode,omitempty"`
	// Script (inline text), File (a file, relative to the plan's
	// directory) or Workload (a bundled workload file) is the path's
	// script named "read"; Scripts holds others by name.
	PlanSource
	Scripts map[string]PlanSource `toml:"scripts,omitempty"`
	// Contract says how the contract check reads the values back: "rows",
	// "json", "column", "array" or "none".
	Contract string `toml:"contract"`
	// ContractScript, when set, is the command the contract check runs.
	ContractScript string `toml:"contract_script,omitempty"`
	// Reset runs before each sample; Cached counts the cache's entries.
	Reset  string `toml:"reset,omitempty"`
	Cached string `toml:"cached,omitempty"`
	// Cost names the server whose cost comes first: "postgres" or "redis".
	Cost string `toml:"cost,omitempty"`
	// Postgres and RESP are the path's own servers.
	Postgres string `toml:"postgres,omitempty"`
	RESP     string `toml:"resp,omitempty"`
	// Threshold is what the path's cells must meet besides the plan's.
	Threshold string `toml:"threshold,omitempty"`
}

// PlanSource is where a script's text is: exactly one of its fields.
type PlanSource struct {
	Script   string `toml:"script,omitempty"`
	File     string `toml:"file,omitempty"`
	Workload string `toml:"workload,omitempty"`
}

// empty reports whether no field is set.
func (s PlanSource) empty() bool { return s == PlanSource{} }

// ParsePlan decodes a plan file. name is what errors call it; they read
// "name:line:col: message" and refuse any key the format does not have.
// The plan still needs Config to be checked.
func ParsePlan(name string, data []byte) (*Plan, error) {
	var p Plan
	dec := toml.NewDecoder(bytes.NewReader(data)).DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, planError(name, err)
	}
	return &p, nil
}

// Encode writes p as a TOML document that ParsePlan reads back as p.
func (p *Plan) Encode() ([]byte, error) {
	var b bytes.Buffer
	enc := toml.NewEncoder(&b)
	enc.SetArraysMultiline(false)
	if err := enc.Encode(p); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// planError rewrites go-toml's errors as "name:line:col: message".
func planError(name string, err error) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		var msgs []string
		for i := range strict.Errors {
			e := &strict.Errors[i]
			line, col := e.Position()
			msgs = append(msgs, fmt.Sprintf("%s:%d:%d: unknown key %q: %s", name, line, col, strings.Join(e.Key(), "."), knownKeys(e.Key())))
		}
		return errors.New(strings.Join(msgs, "\n"))
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		msg := strings.TrimPrefix(de.Error(), "toml: ")
		if m := typeError.FindStringSubmatch(msg); m != nil {
			msg = fmt.Sprintf("%s: expected %s, not %s %s", strings.Join(de.Key(), "."), goTypeWords(m[2]), article(m[1]), m[1])
		} else if k := de.Key(); len(k) > 0 {
			msg = strings.Join(k, ".") + ": " + msg
		}
		return fmt.Errorf("%s:%d:%d: %s", name, line, col, msg)
	}
	return fmt.Errorf("%s: %v", name, err)
}

// typeError matches go-toml's type mismatch message.
var typeError = regexp.MustCompile(`^cannot decode TOML (\w+) into .* of type (.+)$`)

// goTypeWords says a Go type of the plan's fields in a user's words.
func goTypeWords(t string) string {
	switch {
	case t == "string":
		return "a string"
	case t == "bool":
		return "true or false"
	case t == "float64" || t == "*float64":
		return "a number"
	case strings.HasPrefix(t, "[]float"):
		return "a list of numbers, like [0, 1000]"
	case strings.HasPrefix(t, "[]int"):
		return "a list of integers, like [1, 16, 64]"
	case strings.HasPrefix(t, "map[string]int"):
		return "a table of weights, like { read = 95, write = 5 }"
	case strings.HasPrefix(t, "map["):
		return "a table"
	case strings.HasPrefix(t, "[]"):
		return "an array of tables ([[...]])"
	case strings.Contains(t, "int"):
		return "an integer"
	}
	return "a table"
}

func article(kind string) string {
	if strings.ContainsRune("aeiou", rune(kind[0])) {
		return "an"
	}
	return "a"
}

// knownKeys lists the keys the table of an unknown key may hold.
func knownKeys(key []string) string {
	var keys string
	switch {
	case len(key) == 1:
		keys = "title, repeats, duration_s, requests, threads, warmup_s, retries, interval_s, keys, connections, rates, random_keys, hot_rows, seed, [dataset], [servers], [[mixes]], [[paths]]"
	case key[0] == "dataset":
		keys = "items, value_size, kv_keys, sessions"
	case key[0] == "servers":
		keys = "postgres, resp"
	case key[0] == "mixes":
		keys = "name, weights"
	case key[0] == "paths" && len(key) > 2 && key[1] == "scripts":
		keys = "script, file, workload"
	case key[0] == "paths":
		keys = "name, mode, script, file, workload, [paths.scripts.NAME], contract, contract_script, reset, cached, cost, postgres, resp"
	default:
		return "not a key of a plan"
	}
	return "expected one of " + keys
}
