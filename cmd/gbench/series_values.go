package main

import (
	"slices"
	"strconv"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
)

// rateList is a list of positive rates in tps (--rates).
type rateList struct {
	p    *[]float64
	name string
}

func (v *rateList) Set(s string) error {
	var out []float64
	for _, f := range splitMatrixList(s) {
		r, err := strconv.ParseFloat(f, 64)
		if err != nil || !(r > 0) || r > 1e9 {
			return optErrf("invalid value \"%s\" for option %s: expected positive rates in tps separated by commas, like 100,200,400", s, v.name)
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return optErrf("invalid value \"%s\" for option %s: expected positive rates in tps separated by commas, like 100,200,400", s, v.name)
	}
	slices.Sort(out)
	*v.p = out
	return nil
}

func (v *rateList) String() string {
	var parts []string
	for _, r := range *v.p {
		parts = append(parts, strconv.FormatFloat(r, 'f', -1, 64))
	}
	return strings.Join(parts, ",")
}
func (v *rateList) Type() string { return "LIST" }

// percentValue is a percentage ("5" or "5%"), stored as a fraction.
type percentValue struct {
	p    *float64
	name string
}

func (v *percentValue) Set(s string) error {
	f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "%"), 64)
	// NaN is refused too, and a percentage so small that its fraction is
	// 0 in floating point ("1e-323").
	if err != nil || !(f > 0 && f < 100) || f/100 == 0 {
		return optErrf("invalid value \"%s\" for option %s: expected a percentage above 0 and below 100, like 5", s, v.name)
	}
	*v.p = f / 100
	return nil
}

func (v *percentValue) String() string { return strconv.FormatFloat(*v.p*100, 'f', -1, 64) }
func (v *percentValue) Type() string   { return "PERCENT" }

// oneRate is one positive rate in tps.
type oneRate struct {
	p    *float64
	name string
}

func (v *oneRate) Set(s string) error {
	r, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || !(r > 0) || r > 1e9 {
		return optErrf("invalid value \"%s\" for option %s: expected a rate in tps above 0", s, v.name)
	}
	*v.p = r
	return nil
}

func (v *oneRate) String() string { return strconv.FormatFloat(*v.p, 'f', -1, 64) }
func (v *oneRate) Type() string   { return "TPS" }

// settingList collects server settings given as NAME=VALUE.
type settingList struct {
	p    *[]pgsql.Setting
	name string
}

func (v *settingList) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" || strings.ContainsAny(name, " \t'\";") {
		return optErrf("invalid value \"%s\" for option %s: expected a server setting as NAME=VALUE, like work_mem=64MB", s, v.name)
	}
	*v.p = append(*v.p, pgsql.Setting{Name: strings.ToLower(name), Value: value})
	return nil
}

func (v *settingList) String() string {
	var parts []string
	for _, s := range *v.p {
		parts = append(parts, s.Name+"="+s.Value)
	}
	return strings.Join(parts, ",")
}
func (v *settingList) Type() string { return "NAME=VALUE" }

// unsetPercent is a percentValue that is unset (negative) until given.
type unsetPercent struct{ percentValue }

func (v *unsetPercent) String() string {
	if *v.p < 0 {
		return ""
	}
	return v.percentValue.String()
}
