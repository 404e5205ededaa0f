// Package gate is the grammar of gbench's gates and their verdicts: the
// terms an SLO search's objective (gbench slo --slo) and a run's
// thresholds (--threshold) are written in, such as "p99<=5ms",
// "failures<=0.1%" and "tps>=1000", and the check of a run's figures
// against them.
//
// A term names a figure, a comparison and a bound:
//
//	pN OP DURATION   a latency percentile, N in (0, 100], units us, ms or s
//	max OP DURATION  the largest latency (p100)
//	failures OP N%   failed and skipped transactions over all scheduled ones
//	tps OP N         transactions per second (pgbench's tps)
//
// OP is one of <, <=, > and >=. A threshold is a term, optionally
// prefixed with the script it applies to, "NAME:" (see MatchScript).
//
// The package is a leaf: it knows nothing of the engine, so a result
// read from JSON can be checked without it. Its values are immutable
// once parsed and safe for concurrent use.
package gate
