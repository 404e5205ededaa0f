//go:build race

package engine_test

// raceEnabled is set when the race detector runs: it slows the hot path
// down tenfold, so speed and allocation tests run without it.
const raceEnabled = true
