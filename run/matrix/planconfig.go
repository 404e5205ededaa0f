package matrix

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
	"github.com/gbench/gbench/result/schema"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/script"
	"github.com/gbench/gbench/workloads"
)

// PlanSource says where a plan came from, for Plan.Config.
type PlanOptions struct {
	// Name is the plan's name in the result: a bundled plan's name or the
	// plan file.
	Name string
	// File is what messages call the plan file; Data is its text, in which
	// inline scripts are found to give their errors the file's lines.
	File string
	Data []byte
	// ReadFile reads a script file named by a path's file, relative to the
	// plan's directory; nil refuses files (a bundled plan reads only
	// bundled workloads).
	ReadFile func(name string) ([]byte, error)
}

// Limits of a plan file, far above any real plan.
const (
	maxPaths       = 32
	maxDimension   = 100
	maxScriptBytes = 1 << 20
)

// Config validates p into the configuration of a run, with every default
// filled in. Errors name the plan file and the field, as
// "plan.toml: paths[1] (my-mget): contract: ...", or, for a script, the
// file, line and column of the problem. The servers of p.Servers, when
// set, become Config.PG and Config.RESP.
func (p *Plan) Config(o PlanOptions) (*Config, error) {
	v := &planChecker{o: o}
	c := &Config{Name: o.Name, Title: p.Title, Repeats: p.Repeats, Threads: p.Threads, Requests: p.Requests,
		RandomKeys: p.RandomKeys || p.HotRows > 0, HotRows: p.HotRows,
		Data: workloads.Options{Items: p.Dataset.Items, ValueSize: p.Dataset.ValueSize, Keys: p.Dataset.KVKeys, Sessions: p.Dataset.Sessions}}
	v.dimensions(p, c)
	v.times(p, c)
	if p.Seed != nil {
		c.Seed = *p.Seed
	}
	c.Threshold = v.threshold("threshold", p.Threshold)
	if p.Servers.Postgres != "" {
		c.PG = v.pg("servers.postgres", p.Servers.Postgres)
	}
	if p.Servers.RESP != "" {
		c.RESP = v.resp("servers.resp", p.Servers.RESP)
	}
	if d := p.Servers.Durability; d != "" {
		off, err := sandbox.ParseDurability(d)
		switch {
		case err != nil:
			v.failf("servers.durability", "%v", err)
		case p.Servers.Postgres != "" || p.Servers.RESP != "":
			v.failf("servers.durability", "applies to a sandbox; a plan that names its servers uses them with their own settings")
		}
		c.DurabilityOff = off
	}
	v.mixes(p, c)
	v.paths(p, c)
	if v.err != nil {
		return nil, v.err
	}
	cfg, err := c.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("%s: %s", o.File, strings.TrimPrefix(err.Error(), "matrix: "))
	}
	return &cfg, nil
}

// planChecker keeps the first problem of a plan.
type planChecker struct {
	o   PlanOptions
	err error
}

func (v *planChecker) failf(field, format string, args ...any) {
	if v.err == nil {
		v.err = fmt.Errorf("%s: %s: %s", v.o.File, field, fmt.Sprintf(format, args...))
	}
}

// dimensions checks keys, connections and rates.
func (v *planChecker) dimensions(p *Plan, c *Config) {
	c.Keys, c.NoKeys = v.counts("keys", p.Keys, false), len(p.Keys) == 0
	c.Connections = v.counts("connections", p.Connections, true)
	for i, r := range p.Rates {
		if !(r >= 0 && r <= 1e9) || slices.Contains(p.Rates[:i], r) {
			v.failf(fmt.Sprintf("rates[%d]", i), "%v is not a rate from 0 (unthrottled) to 1e9 requests per second, each once", r)
		}
	}
	if len(p.Rates) > maxDimension {
		v.failf("rates", "lists %d rates, more than %d", len(p.Rates), maxDimension)
	}
	if len(p.Rates) > 0 && !(len(p.Rates) == 1 && p.Rates[0] == 0) {
		c.Rates = slices.Clone(p.Rates)
	}
	if p.HotRows < 0 || p.HotRows > math.MaxInt32 {
		v.failf("hot_rows", "%d is not a number of rows", p.HotRows)
	}
	if p.Repeats < 0 || p.Repeats > 10000 {
		v.failf("repeats", "%d is not from 1 to 10000", p.Repeats)
	}
	if p.Threads < 0 || p.Threads > 10000 {
		v.failf("threads", "%d is not from 1 to 10000", p.Threads)
	}
	d := p.Dataset
	if d.Items != 0 && d.Items < workloads.MinItems || d.Items < 0 || d.ValueSize < 0 || d.ValueSize > workloads.MaxValueSize || d.KVKeys < 0 || d.Sessions < 0 {
		v.failf("dataset", "items must be at least %d, value_size from 1 to %d, kv_keys and sessions from 1", workloads.MinItems, workloads.MaxValueSize)
	}
}

// threshold checks a threshold list and returns it with its blanks
// trimmed.
func (v *planChecker) threshold(field, s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if _, err := schema.ParseCellThresholds(s); err != nil {
		v.failf(field, "%v", err)
	}
	return s
}

// counts checks a list of distinct counts from 1 and returns it sorted.
func (v *planChecker) counts(field string, xs []int, required bool) []int {
	if required && len(xs) == 0 {
		v.failf(field, "missing: give a list, like %s = [4, 64, 256]", field)
	}
	if len(xs) > maxDimension {
		v.failf(field, "lists %d values, more than %d", len(xs), maxDimension)
	}
	for i, x := range xs {
		if x < 1 || x > 1e6 || slices.Contains(xs[:i], x) {
			v.failf(fmt.Sprintf("%s[%d]", field, i), "%d: the counts must be from 1 to 1000000, each once", x)
		}
	}
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// times checks the duration, the request count, the warm-up, the
// retries and the interval.
func (v *planChecker) times(p *Plan, c *Config) {
	switch {
	case p.DurationS != 0 && p.Requests != 0:
		v.failf("duration_s", "give duration_s or requests, not both")
	case p.DurationS != 0 && !(p.DurationS >= 0.1 && p.DurationS <= 86400):
		v.failf("duration_s", "%v is not from 0.1 to 86400 seconds", p.DurationS)
	case p.Requests < 0 || p.Requests > 1e12:
		v.failf("requests", "%d is not a count from 1", p.Requests)
	}
	c.Duration = secondsOf(p.DurationS)
	if p.WarmupS != nil {
		if w := *p.WarmupS; !(w >= 0 && w <= 86400) {
			v.failf("warmup_s", "%v is not from 0 (none) to 86400 seconds", w)
		} else if c.Warmup = secondsOf(w); w == 0 {
			c.Warmup = -1
		}
	}
	if p.Retries != nil {
		if n := *p.Retries; n < 0 || n > 100 {
			v.failf("retries", "%d is not from 0 to 100", n)
		} else if c.Retries = n; n == 0 {
			c.Retries = -1
		}
	}
	if p.IntervalS != 0 && !(p.IntervalS >= minInterval.Seconds() && p.IntervalS <= 3600) {
		v.failf("interval_s", "%v is not from %v to 3600 seconds", p.IntervalS, minInterval.Seconds())
	}
	c.Interval = secondsOf(p.IntervalS)
}

func secondsOf(s float64) time.Duration { return time.Duration(math.Round(s * float64(time.Second))) }

// mixes checks the mixes.
func (v *planChecker) mixes(p *Plan, c *Config) {
	if len(p.Mixes) > maxPaths {
		v.failf("mixes", "lists %d mixes, more than %d", len(p.Mixes), maxPaths)
	}
	for i, m := range p.Mixes {
		field := fmt.Sprintf("mixes[%d]", i)
		switch {
		case m.Name == "" || len(m.Name) > 64:
			v.failf(field+".name", "%q: a mix needs a name of 1 to 64 bytes", m.Name)
		case slices.ContainsFunc(c.Mixes, func(x Mix) bool { return x.Name == m.Name }):
			v.failf(field+".name", "%q is listed twice", m.Name)
		case len(m.Weights) == 0:
			v.failf(field+".weights", "missing: give each script's weight, like weights = { read = 95, write = 5 }")
		}
		mix := Mix{Name: m.Name}
		for _, name := range sortedNames(m.Weights) {
			w := m.Weights[name]
			if w < 0 || w > 1e6 {
				v.failf(field+".weights."+name, "%d is not a weight from 0 to 1000000", w)
			}
			mix.Weights = append(mix.Weights, Weight{Script: name, Weight: w})
		}
		c.Mixes = append(c.Mixes, mix)
	}
}

func sortedNames[T any](m map[string]T) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// paths checks the paths and reads their scripts.
func (v *planChecker) paths(p *Plan, c *Config) {
	if len(p.Paths) == 0 {
		v.failf("paths", "missing: a plan measures at least one path ([[paths]])")
	}
	if len(p.Paths) > maxPaths {
		v.failf("paths", "lists %d paths, more than %d", len(p.Paths), maxPaths)
	}
	for i := range p.Paths {
		pp := &p.Paths[i]
		field := fmt.Sprintf("paths[%d]", i)
		if pp.Name != "" {
			field += fmt.Sprintf(" (%s)", pp.Name)
		}
		path := v.path(field, pp, c)
		if v.err != nil {
			return
		}
		c.Paths = append(c.Paths, path)
	}
}

// path checks one path.
func (v *planChecker) path(field string, pp *PlanPath, c *Config) Path {
	path := Path{Name: pp.Name, Cost: pp.Cost, Threshold: v.threshold(field+".threshold", pp.Threshold)}
	switch {
	case pp.Name == "" || len(pp.Name) > 64 || strings.ContainsAny(pp.Name, " \t\n\r/"):
		v.failf(field+".name", "%q: a path needs a name of 1 to 64 bytes without blanks or slashes", pp.Name)
	case slices.ContainsFunc(c.Paths, func(x Path) bool { return x.Name == pp.Name }):
		v.failf(field+".name", "%q is listed twice", pp.Name)
	case pp.Cost != "" && pp.Cost != "postgres" && pp.Cost != "redis":
		v.failf(field+".cost", "%q: expected postgres or redis", pp.Cost)
	}
	if !pp.PlanSource.empty() {
		path.Scripts = append(path.Scripts, v.source(field, ReadScript, pp.PlanSource))
	}
	for _, name := range sortedNames(pp.Scripts) {
		if name == ReadScript && !pp.PlanSource.empty() {
			v.failf(field+".scripts.read", "the path's script, file or workload is its read script already")
		}
		path.Scripts = append(path.Scripts, v.source(field+".scripts."+name, name, pp.Scripts[name]))
	}
	if len(path.Scripts) == 0 {
		v.failf(field, "no script: give script = '''...''', file = \"my.sql\" or workload = \"mget16.sql\"")
	}
	if len(c.Mixes) == 0 && len(path.Scripts) > 1 {
		v.failf(field+".scripts", "a plan without mixes runs one script per path; this one has %d (add [[mixes]])", len(path.Scripts))
	}
	v.mode(field, pp, &path)
	v.contract(field, pp, &path)
	if pp.Reset != "" {
		s := v.inline(field+".reset", "reset", pp.Reset)
		path.Reset = &s
	}
	if pp.Cached != "" {
		s := v.inline(field+".cached", "cached", pp.Cached)
		v.oneCommand(field+".cached", &s)
		path.Cached = &s
	}
	if pp.Postgres != "" {
		path.PG, path.PGText = v.pg(field+".postgres", pp.Postgres), pgsql.RedactConninfo(pp.Postgres)
	}
	if pp.RESP != "" {
		path.RESP, path.RESPText = v.resp(field+".resp", pp.RESP), resp.RedactURL(pp.RESP)
	}
	for _, m := range c.Mixes {
		for _, w := range m.Weights {
			if w.Weight > 0 && path.script(w.Script) == nil {
				v.failf(field, "no script %q, which mix %q runs (add [paths.scripts.%s])", w.Script, m.Name, w.Script)
			}
		}
	}
	return path
}

// mode checks the query mode and compiles the scripts in it.
func (v *planChecker) mode(field string, pp *PlanPath, path *Path) {
	path.Mode = script.Prepared
	if pp.Mode != "" {
		m, ok := script.ParseMode(pp.Mode)
		if !ok {
			v.failf(field+".mode", "%q: expected simple, extended or prepared", pp.Mode)
		}
		path.Mode = m
	} else if !path.hasSQL() {
		path.Mode = script.Simple
	}
	for i := range path.Scripts {
		if _, err := compileScript(&path.Scripts[i], path.Mode); err != nil {
			v.scriptError(field+".scripts."+path.Scripts[i].Name, err)
		}
	}
}

// contract checks how the path's values are read back.
func (v *planChecker) contract(field string, pp *PlanPath, path *Path) {
	var names []string
	for _, rb := range workloads.ReadBacks() {
		names = append(names, string(rb))
	}
	if pp.Contract == "" {
		v.failf(field+".contract", "missing: say how the contract check reads the values back (%s), or none", strings.Join(names[:4], ", "))
		return
	}
	if !slices.Contains(names, pp.Contract) {
		v.failf(field+".contract", "%q: expected %s", pp.Contract, strings.Join(names, ", "))
		return
	}
	path.Contract = workloads.ReadBack(pp.Contract)
	if pp.ContractScript != "" {
		s := v.inline(field+".contract_script", "contract", pp.ContractScript)
		v.oneCommand(field+".contract_script", &s)
		path.ContractScript = &s
	}
	if path.Contract == workloads.ReadNone || v.err != nil {
		return
	}
	if _, err := contractCommand(path); err != nil {
		v.failf(field+".contract", "%v", err)
	}
}

// source reads a script from the one place ps names.
func (v *planChecker) source(field, name string, ps PlanSource) Script {
	n := 0
	for _, s := range []string{ps.Script, ps.File, ps.Workload} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		v.failf(field, "give one of script, file and workload")
		return Script{Name: name}
	}
	switch {
	case ps.Script != "":
		return v.inline(field+".script", name, ps.Script)
	case ps.Workload != "":
		text, err := workloads.Text(ps.Workload)
		if err != nil || !strings.HasSuffix(ps.Workload, ".sql") || ps.Workload == workloads.DatasetFile || ps.Workload == workloads.TPCCFile {
			v.failf(field+".workload", "%q is not a bundled workload (gbench workloads list)", ps.Workload)
		}
		return Script{Name: name, Source: "bundled:" + ps.Workload, Text: text, File: ps.Workload}
	}
	if v.o.ReadFile == nil {
		v.failf(field+".file", "%q: a bundled plan reads bundled workloads only (workload = ...)", ps.File)
		return Script{Name: name}
	}
	b, err := v.o.ReadFile(ps.File)
	switch {
	case err != nil:
		v.failf(field+".file", "%v", err)
	case len(b) > maxScriptBytes:
		v.failf(field+".file", "%q is larger than %d bytes", ps.File, maxScriptBytes)
	}
	return Script{Name: name, Source: ps.File, Text: string(b), File: ps.File}
}

// inline is a script written in the plan file, placed at its text there
// when it can be found as written (a literal string, ”'...”').
func (v *planChecker) inline(field, name, text string) Script {
	s := Script{Name: name, Source: "inline", Text: text, File: v.o.File + " (" + field + ")"}
	if len(text) > maxScriptBytes {
		v.failf(field, "longer than %d bytes", maxScriptBytes)
	}
	if i := bytes.Index(v.o.Data, []byte(text)); i >= 0 && text != "" {
		s.File = v.o.File
		s.Line = 1 + bytes.Count(v.o.Data[:i], []byte("\n"))
		s.Col = i - bytes.LastIndexByte(v.o.Data[:i], '\n')
	}
	if _, err := compileScript(&s, script.Prepared); err != nil {
		v.scriptError(field, err)
	}
	return s
}

// scriptError keeps a script's error; one that is not at a line of the
// file (an empty script) is given the field's name.
func (v *planChecker) scriptError(field string, err error) {
	var se *script.Error
	switch {
	case v.err != nil:
	case errors.As(err, &se) && se.Line > 0:
		v.err = err
	default:
		v.failf(field, "%v", err)
	}
}

// oneCommand checks that s is one SQL or \resp command.
func (v *planChecker) oneCommand(field string, s *Script) {
	sc, err := parseScript(s)
	if err != nil {
		return
	}
	if len(sc.Commands) != 1 || sc.Commands[0].Kind != script.CmdSQL && sc.Commands[0].Kind != script.CmdRESP {
		v.failf(field, "must be one SQL statement or one \\resp command")
	}
}

func (v *planChecker) pg(field, conninfo string) *pgsql.Config {
	cfg, err := pgsql.ParseConfig(conninfo)
	if err != nil {
		v.failf(field, "%s", pgsql.ParseConfigError(conninfo, err))
		return nil
	}
	return cfg
}

func (v *planChecker) resp(field, url string) *resp.Options {
	o, err := resp.ParseURL(url)
	if err != nil {
		v.failf(field, "%v", err)
		return nil
	}
	return &o
}
