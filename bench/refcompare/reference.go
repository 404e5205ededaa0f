package main

import (
	"encoding/json"
	"fmt"
	"os"
)

// Reference is reference.json: the reference benchmark's published
// figures, where they were read, and the ratios to compare.
type Reference struct {
	Reference   string            `json:"reference"`
	RESP        string            `json:"resp"`
	Sources     map[string]Source `json:"sources"`
	Comparisons []Comparison      `json:"comparisons"`
}

// Source is a file the figures were read from, pinned to a commit.
type Source struct {
	Repo   string `json:"repo"`
	Path   string `json:"path"`
	Commit string `json:"commit"`
	Note   string `json:"note"`
}

// Comparison is one ratio: the reference's num/den and the gbench cells
// that make the same ratio (nil when gbench measures no counterpart).
type Comparison struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Num    Figure `json:"num"`
	Den    Figure `json:"den"`
	Gbench *Ratio `json:"gbench,omitempty"`
	Note   string `json:"note"`
}

// Figure is one published figure.
type Figure struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// Ratio names two gbench cells, numerator and denominator.
type Ratio struct {
	Num Cell `json:"num"`
	Den Cell `json:"den"`
}

// Cell selects a matrix cell by path, keys per request and connections.
type Cell struct {
	Path        string `json:"path"`
	Keys        int    `json:"keys"`
	Connections int    `json:"connections"`
}

// String names the cell: "sql-any, 1 key, 256 connections".
func (c Cell) String() string {
	keys := "keys"
	if c.Keys == 1 {
		keys = "key"
	}
	return fmt.Sprintf("%s, %d %s, %d connections", c.Path, c.Keys, keys, c.Connections)
}

// readReference reads and checks reference.json.
func readReference(name string) (*Reference, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var r Reference
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	for _, c := range r.Comparisons {
		if _, ok := r.Sources[c.Source]; !ok {
			return nil, fmt.Errorf("%s: comparison %q names source %q, which sources does not list", name, c.Name, c.Source)
		}
		if c.Num.Value <= 0 || c.Den.Value <= 0 {
			return nil, fmt.Errorf("%s: comparison %q: figures must be positive", name, c.Name)
		}
	}
	return &r, nil
}
