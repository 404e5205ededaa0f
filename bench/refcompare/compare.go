package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/gbench/gbench/result/schema"
)

// matrix is a result's cells by (path, keys, connections), and its environment.
type matrix struct {
	cells map[Cell]schema.Cell
	env   schema.Environment
	plan  string
}

// readMatrix reads a gbench matrix JSON and sums up its cells.
func readMatrix(name string) (*matrix, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := schema.Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	m := &matrix{cells: map[Cell]schema.Cell{}, env: r.Environment, plan: r.Plan.Name}
	for _, c := range r.Cells() {
		if c.Samples > 0 && c.Mix == "" && c.Rate == 0 {
			m.cells[Cell{c.Path, c.Keys, c.Connections}] = c
		}
	}
	return m, nil
}

// verdict compares gbench's ratio g with the reference's ref: tol is the
// relative gap under which two ratios on the same side of 1 agree.
func verdict(ref, g, tol float64) string {
	if (ref-1)*(g-1) < 0 {
		return "reversed"
	}
	if math.Abs(math.Log(g/ref)) <= math.Log(1+tol) {
		return "agrees"
	}
	return "same direction, size differs"
}

// write prints comparison.md.
func write(w io.Writer, r *Reference, m *matrix, name string, tol float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# gbench and the reference, side by side\n\n")
	fmt.Fprintf(&b, "The reference is %s; its hardware differs, so only ratios between paths compare. ", r.Reference)
	fmt.Fprintf(&b, "gbench: `%s` (plan %s), the median req/s of each cell's repeats; PostgreSQL %s, durability %s; Redis %s; %s, %d CPUs.\n\n",
		name, m.plan, m.env.Postgres.Version, orDash(m.env.Postgres.Durability), m.env.Redis.Version, m.env.CPU.Model, m.env.CPU.Count)
	fmt.Fprintf(&b, "Two ratios agree when they are on the same side of 1 and within %.0f%% of each other.\n\n", tol*100)
	b.WriteString("| ratio | reference | ratio | gbench | ratio | verdict |\n|---|---|---:|---|---:|---|\n")
	for _, c := range r.Comparisons {
		refRatio := c.Num.Value / c.Den.Value
		gb, gr, v := "not measured by gbench", "", "no counterpart"
		if c.Gbench != nil {
			gb, gr, v = gbenchSide(m, c.Gbench, refRatio, tol)
		}
		fmt.Fprintf(&b, "| %s | %s / %s = %s / %s | **%.2f×** | %s | %s | %s |\n",
			c.Name, c.Num.Label, c.Den.Label, thousands(c.Num.Value), thousands(c.Den.Value), refRatio, gb, gr, v)
	}
	b.WriteString("\n## Notes\n\n")
	for _, c := range r.Comparisons {
		fmt.Fprintf(&b, "- **%s** (%s): %s.\n", c.Name, c.Source, c.Note)
	}
	fmt.Fprintf(&b, "\n## What the reference's RESP is\n\n%s\n\n## Sources\n\n", r.RESP)
	for _, k := range sortedKeys(r.Sources) {
		s := r.Sources[k]
		fmt.Fprintf(&b, "- `%s`: %s `%s` at %s: %s.\n", k, s.Repo, s.Path, s.Commit, s.Note)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// gbenchSide returns the gbench column, its ratio and the verdict.
func gbenchSide(m *matrix, g *Ratio, refRatio, tol float64) (string, string, string) {
	num, okN := m.cells[g.Num]
	den, okD := m.cells[g.Den]
	if !okN || !okD {
		return fmt.Sprintf("%s / %s", g.Num, g.Den), "", "not in this run"
	}
	ratio := num.ReqS / den.ReqS
	text := fmt.Sprintf("%s / %s = %s / %s", g.Num.Path, g.Den.Path, thousands(num.ReqS), thousands(den.ReqS))
	return text, fmt.Sprintf("**%.2f×**", ratio), verdict(refRatio, ratio, tol)
}

func orDash(s string) string {
	if s == "" {
		return "not recorded"
	}
	return s
}

// thousands formats x rounded, with thousands separators: 253790 -> "253,790".
func thousands(x float64) string {
	s := fmt.Sprintf("%.0f", x)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
