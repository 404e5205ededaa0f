package main

import (
	"maps"
	"slices"
)

// sortedKeys returns m's keys in order, for a stable output.
func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
