package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gbench/gbench/internal/cnum"
	"github.com/gbench/gbench/run/sandbox"
	"github.com/gbench/gbench/script"
	"github.com/spf13/pflag"
)

// optionError is a Set error that already carries pgbench's full message.
type optionError struct{ msg string }

func (e *optionError) Error() string { return e.msg }

func optErrf(format string, args ...any) error {
	return &optionError{msg: fmt.Sprintf(format, args...)}
}

// intValue is pgbench's option_parse_int: strtol, then only blanks may
// follow. Nothing to convert reads as 0, so "" is out of range rather than
// invalid, as in pgbench.
type intValue struct {
	p        *int
	name     string
	min, max int
}

func (v *intValue) Set(s string) error {
	n, end, overflow := cnum.Strtol(s)
	if strings.TrimLeft(s[end:], cnum.Space) != "" {
		return optErrf("invalid value \"%s\" for option %s", s, v.name)
	}
	if overflow || n < int64(v.min) || n > int64(v.max) {
		return optErrf("%s must be in range %d..%d", v.name, v.min, v.max)
	}
	*v.p = int(n)
	return nil
}

func (v *intValue) String() string { return strconv.Itoa(*v.p) }
func (v *intValue) Type() string   { return "NUM" }

// scriptValue is -f FILE[@W] or -b NAME[@W]: the script is read and
// parsed at once, as pgbench does while it reads its options, so that its
// errors come in command-line order. "-b list" lists the builtins and
// exits.
type scriptValue struct {
	o       *options
	builtin bool
}

func (v *scriptValue) Set(s string) error {
	if v.builtin && s == "list" {
		return &earlyExit{text: script.ListBuiltins()}
	}
	name, weight, err := parseWeight(s)
	if err != nil {
		return err
	}
	return v.o.addScript(scriptSpec{builtin: v.builtin, name: name, weight: weight})
}

// parseWeight splits NAME@W at the last '@' and reads W with strtol, as
// pgbench's parseScriptWeight does.
func parseWeight(s string) (string, int, error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return s, 1, nil
	}
	n, end, overflow := cnum.Strtol(s[i+1:])
	if end == 0 || overflow || end != len(s)-i-1 {
		return "", 0, optErrf("invalid weight specification: %s", s[i:])
	}
	if n < 0 || n > maxInt {
		return "", 0, optErrf("weight specification out of range (0 .. %d): %d", maxInt, n)
	}
	return s[:i], int(n), nil
}

func (v *scriptValue) String() string { return "" }
func (v *scriptValue) Type() string {
	if v.builtin {
		return "NAME[@W]"
	}
	return "FILENAME[@W]"
}

// fixedScriptValue is -N or -S: a builtin script added in order.
type fixedScriptValue struct {
	o    *options
	name string
}

func (v *fixedScriptValue) Set(string) error {
	return v.o.addScript(scriptSpec{builtin: true, name: v.name, weight: 1})
}
func (v *fixedScriptValue) String() string   { return "" }
func (v *fixedScriptValue) Type() string     { return "" }
func (v *fixedScriptValue) IsBoolFlag() bool { return true }

// defineValue is -D NAME=VALUE.
type defineValue struct{ list *[]define }

func (v *defineValue) Set(s string) error {
	i := strings.IndexByte(s, '=')
	if i <= 0 || i == len(s)-1 {
		return optErrf("invalid variable definition: \"%s\"", s)
	}
	name := s[:i]
	if !script.ValidVarName([]byte(name)) {
		return optErrf("option: invalid variable name: \"%s\"", name)
	}
	*v.list = append(*v.list, define{name: name, value: s[i+1:]})
	return nil
}
func (v *defineValue) String() string { return "" }
func (v *defineValue) Type() string   { return "VARNAME=VALUE" }

// modeValue is -M simple|extended|prepared.
type modeValue struct{ p *string }

func (v *modeValue) Set(s string) error {
	if _, ok := script.ParseMode(s); !ok {
		return optErrf("invalid query mode (-M): \"%s\"", s)
	}
	*v.p = s
	return nil
}
func (v *modeValue) String() string { return *v.p }
func (v *modeValue) Type() string   { return "MODE" }

// rateValue is -R: a positive number read like C's atof. Unlike pgbench,
// NaN and infinities are refused (pgbench runs on with a broken schedule).
type rateValue struct{ p *float64 }

func (v *rateValue) Set(s string) error {
	r := cnum.Atof(s)
	if !(r > 0) || math.IsInf(r, 0) {
		return optErrf("invalid rate limit: \"%s\"", s)
	}
	*v.p = r
	return nil
}
func (v *rateValue) String() string { return "" }
func (v *rateValue) Type() string   { return "NUM" }

// limitValue is -L in milliseconds; NaN and infinities are refused.
type limitValue struct{ p *float64 }

func (v *limitValue) Set(s string) error {
	r := cnum.Atof(s)
	if !(r > 0) || math.IsInf(r, 0) {
		return optErrf("invalid latency limit: \"%s\"", s)
	}
	*v.p = r
	return nil
}
func (v *limitValue) String() string { return "" }
func (v *limitValue) Type() string   { return "NUM" }

// samplingValue is --sampling-rate in (0, 1]; NaN is refused.
type samplingValue struct{ p *float64 }

func (v *samplingValue) Set(s string) error {
	r := cnum.Atof(s)
	if !(r > 0 && r <= 1) {
		return optErrf("invalid sampling rate: \"%s\"", s)
	}
	*v.p = r
	return nil
}
func (v *samplingValue) String() string { return "" }
func (v *samplingValue) Type() string   { return "NUM" }

// triesValue is --max-tries, read with atoi into an int as pgbench does;
// 0 means unlimited.
type triesValue struct{ p *int }

func (v *triesValue) Set(s string) error {
	n := int(cnum.Atoi(s))
	if n < 0 {
		return optErrf("invalid number of maximum tries: \"%s\"", s)
	}
	*v.p = n
	return nil
}
func (v *triesValue) String() string { return "" }
func (v *triesValue) Type() string   { return "NUM" }

// earlyExit is returned by an option that answers at once, as pgbench's
// "-b list" and "--show-script" do: text goes to stderr, the exit status
// is 0.
type earlyExit struct{ text string }

func (e *earlyExit) Error() string { return "exit after printing" }

// showScriptValue is --show-script NAME.
type showScriptValue struct{}

func (showScriptValue) Set(s string) error {
	b, err := script.FindBuiltin(s)
	if err != nil {
		return optErrf("%v\n%s%s", err, strings.TrimSuffix(script.ListBuiltins(), "\n"), workloadHint(s))
	}
	return &earlyExit{text: b.ShowScript()}
}
func (showScriptValue) String() string { return "" }
func (showScriptValue) Type() string   { return "NAME" }

// seedValue is --random-seed, applied (and announced) where it appears,
// as pgbench does.
type seedValue struct{ o *options }

func (v *seedValue) Set(s string) error {
	return v.o.setSeed(s, "--random-seed option")
}
func (v *seedValue) String() string { return "" }
func (v *seedValue) Type() string   { return "SEED" }

// stepsValue is -I: initialization steps.
type stepsValue struct{ p *string }

func (v *stepsValue) Set(s string) error {
	if s == "" {
		return optErrf("no initialization steps specified")
	}
	for _, c := range s {
		if !strings.ContainsRune("dtgGvpf ", c) {
			return optErrf("unrecognized initialization step \"%c\"\ngbench: detail: Allowed step characters are: \"dtgGvpf\".", c)
		}
	}
	*v.p = s
	return nil
}
func (v *stepsValue) String() string { return *v.p }
func (v *stepsValue) Type() string   { return "STEPS" }

// partMethodValue is --partition-method range|hash.
type partMethodValue struct{ p *string }

func (v *partMethodValue) Set(s string) error {
	switch strings.ToLower(s) {
	case "range", "hash":
		*v.p = strings.ToLower(s)
		return nil
	}
	return optErrf("invalid partition method, expecting \"range\" or \"hash\", got: \"%s\"", s)
}
func (v *partMethodValue) String() string { return *v.p }
func (v *partMethodValue) Type() string   { return "METHOD" }

// timeoutValue is a positive duration: Go's syntax ("250ms", "1m30s") or
// a plain number of seconds, as libpq's connect_timeout.
type timeoutValue struct {
	p    *time.Duration
	name string
}

func (v *timeoutValue) Set(s string) error {
	d, err := parseSeconds(s)
	if err != nil || d <= 0 {
		return optErrf("invalid value \"%s\" for option %s (want a duration such as 5s or 250ms)", s, v.name)
	}
	*v.p = d
	return nil
}
func (v *timeoutValue) String() string { return "" }
func (v *timeoutValue) Type() string   { return "DURATION" }

// parseSeconds reads a Go duration, or a plain number as seconds.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || f > 1e9 {
			return 0, fmt.Errorf("out of range")
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	return time.ParseDuration(s)
}

// backoffValue is --reconnect-delay: the first wait, then optionally
// ",MAX", the cap of its doubling (at least the first wait).
type backoffValue struct{ p *[2]time.Duration }

func (v *backoffValue) Set(s string) error {
	first, capText, hasCap := strings.Cut(s, ",")
	d, err := parseSeconds(first)
	if err != nil || d < 0 {
		return optErrf("invalid value \"%s\" for option --reconnect-delay (want DELAY[,MAX], such as 50ms,1s)", s)
	}
	c := max(d, defaultReconnectCap)
	if hasCap {
		if c, err = parseSeconds(capText); err != nil || c < d {
			return optErrf("invalid value \"%s\" for option --reconnect-delay (MAX must be a duration no shorter than DELAY)", s)
		}
	}
	*v.p = [2]time.Duration{d, c}
	return nil
}
func (v *backoffValue) String() string { return "" }
func (v *backoffValue) Type() string   { return "DELAY[,MAX]" }

// itoa formats n in base 10.
func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// durabilityValue is --durability=on|off: a sandbox's fsync,
// synchronous_commit and full_page_writes.
// set, when not nil, records that the option was given.
type durabilityValue struct{ off, set *bool }

func (v durabilityValue) Set(s string) error {
	off, err := sandbox.ParseDurability(s)
	if err != nil {
		return optErrf("--durability: %v", err)
	}
	*v.off = off
	if v.set != nil {
		*v.set = true
	}
	return nil
}

func (v durabilityValue) String() string {
	if v.off != nil && *v.off {
		return "off"
	}
	return "on"
}

func (v durabilityValue) Type() string { return "on|off" }

// durabilityUsage is the help of every --durability.
const durabilityUsage = "the throwaway PostgreSQL's fsync, synchronous_commit and full_page_writes: on (as the reference benchmark runs) or off (faster writes; a crash may lose or corrupt the data)"

// oldSpellings are the options renamed in issue 25, by command (the flag
// set's name): old name -> new name. "--keys" meant the kv keyspace's size
// in sandbox and workloads load, and keys per request in matrix; each old
// spelling keeps its command's meaning for one release, with a warning.
var oldSpellings = map[string]map[string]string{
	"gbench matrix":         {"keys": "keys-per-request"},
	"gbench sandbox":        {"keys": "keyspace"},
	"gbench workloads load": {"keys": "keyspace"},
}

// addOldSpellings registers fs's old spellings as hidden second names of
// their new flags (defined before).
func addOldSpellings(fs *pflag.FlagSet) {
	for old, now := range oldSpellings[fs.Name()] {
		f := fs.Lookup(now)
		fs.Var(f.Value, old, f.Usage)
		_ = fs.MarkHidden(old)
	}
}

// warnOldSpellings writes a warning on w for each old spelling given.
func warnOldSpellings(w io.Writer, fs *pflag.FlagSet) {
	for old, now := range oldSpellings[fs.Name()] {
		if fs.Changed(old) {
			fmt.Fprintf(w, "%s: warning: --%s is deprecated and will be removed in the next release: use --%s (the same meaning here)\n", fs.Name(), old, now)
		}
	}
}
