package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gbench/gbench/script"
)

// optionError is a Set error that already carries pgbench's full message.
type optionError struct{ msg string }

func (e *optionError) Error() string { return e.msg }

func optErrf(format string, args ...any) error {
	return &optionError{msg: fmt.Sprintf(format, args...)}
}

// intValue is pgbench's option_parse_int: an integer within a range.
type intValue struct {
	p        *int
	name     string
	min, max int
}

func (v *intValue) Set(s string) error {
	t := strings.TrimSpace(s)
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil {
		var ne *strconv.NumError
		if ok := asNumError(err, &ne); ok && ne.Err == strconv.ErrRange {
			return optErrf("%s must be in range %d..%d", v.name, v.min, v.max)
		}
		return optErrf("invalid value \"%s\" for option %s", s, v.name)
	}
	if n < int64(v.min) || n > int64(v.max) {
		return optErrf("%s must be in range %d..%d", v.name, v.min, v.max)
	}
	*v.p = int(n)
	return nil
}

func asNumError(err error, ne **strconv.NumError) bool {
	e, ok := err.(*strconv.NumError)
	*ne = e
	return ok
}

func (v *intValue) String() string { return strconv.Itoa(*v.p) }
func (v *intValue) Type() string   { return "NUM" }

// scriptValue appends -f FILE[@W] or -b NAME[@W] to the script list.
type scriptValue struct {
	list    *[]scriptSpec
	builtin bool
}

func (v *scriptValue) Set(s string) error {
	name, weight, err := parseWeight(s)
	if err != nil {
		return err
	}
	*v.list = append(*v.list, scriptSpec{builtin: v.builtin, name: name, weight: weight})
	return nil
}

// parseWeight splits NAME@W at the last '@', as pgbench does.
func parseWeight(s string) (string, int, error) {
	i := strings.LastIndexByte(s, '@')
	if i < 0 {
		return s, 1, nil
	}
	w := s[i+1:]
	n, err := strconv.ParseInt(w, 10, 64)
	if err != nil && (w == "" || !isAllDigits(strings.TrimLeft(w, "+-"))) {
		return "", 0, optErrf("invalid weight specification: %s", s[i:])
	}
	if err != nil || n < 0 || n > maxInt {
		return "", 0, optErrf("weight specification out of range (0 .. %d): %s", maxInt, w)
	}
	return s[:i], int(n), nil
}

func isAllDigits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
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
	list *[]scriptSpec
	name string
}

func (v *fixedScriptValue) Set(string) error {
	*v.list = append(*v.list, scriptSpec{builtin: true, name: v.name, weight: 1})
	return nil
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

// rateValue is -R: a positive number read like C's atof.
type rateValue struct{ p *float64 }

func (v *rateValue) Set(s string) error {
	r := atof(s)
	if r <= 0 {
		return optErrf("invalid rate limit: \"%s\"", s)
	}
	*v.p = r
	return nil
}
func (v *rateValue) String() string { return "" }
func (v *rateValue) Type() string   { return "NUM" }

// limitValue is -L in milliseconds.
type limitValue struct{ p *float64 }

func (v *limitValue) Set(s string) error {
	r := atof(s)
	if r <= 0 {
		return optErrf("invalid latency limit: \"%s\"", s)
	}
	*v.p = r
	return nil
}
func (v *limitValue) String() string { return "" }
func (v *limitValue) Type() string   { return "NUM" }

// samplingValue is --sampling-rate in (0, 1].
type samplingValue struct{ p *float64 }

func (v *samplingValue) Set(s string) error {
	r := atof(s)
	if r <= 0 || r > 1 {
		return optErrf("invalid sampling rate: \"%s\"", s)
	}
	*v.p = r
	return nil
}
func (v *samplingValue) String() string { return "" }
func (v *samplingValue) Type() string   { return "NUM" }

// triesValue is --max-tries, read like atoi; 0 means unlimited.
type triesValue struct{ p *int }

func (v *triesValue) Set(s string) error {
	n := int(atofInt(s))
	if n < 0 {
		return optErrf("invalid number of maximum tries: \"%s\"", s)
	}
	*v.p = n
	return nil
}
func (v *triesValue) String() string { return "" }
func (v *triesValue) Type() string   { return "NUM" }

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

// atof reads the longest number at the start of s, like C's atof; text
// that is not a number gives 0.
func atof(s string) float64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	best := 0.0
	for i := len(s); i > 0; i-- {
		if f, err := strconv.ParseFloat(s[:i], 64); err == nil {
			best = f
			break
		}
	}
	return best
}

// atofInt reads an integer prefix like C's atoi.
func atofInt(s string) int64 {
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	end := 0
	if end < len(s) && (s[end] == '+' || s[end] == '-') {
		end++
	}
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	n, _ := strconv.ParseInt(s[:end], 10, 64)
	return n
}
