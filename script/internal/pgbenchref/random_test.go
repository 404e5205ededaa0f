package pgbenchref

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// randomSeeds are the --random-seed values random.golden records.
var randomSeeds = []string{"0", "1", "12345", "18446744073709551615"}

// randomFuncs draw from the client's random state.
var randomFuncs = []string{
	"random(1, 1000)",
	"random(-5, 5)",
	"random_exponential(1, 1000, 2.5)",
	"random_gaussian(1, 1000, 2.5)",
	"random_zipfian(1, 1000, 1.07)",
}

// mixedExprs is everything random.golden records, in the order one
// transaction evaluates it in the "mixed" section.
func mixedExprs() []string {
	exprs := append([]string{}, randomFuncs...)
	for _, f := range []string{"permute(%d, 100)", "permute(%d, 100, 7)", "hash(%d)", "hash_fnv1a(%d, 5)", "hash_murmur2(%d)"} {
		for i := range 10 {
			exprs = append(exprs, fmt.Sprintf(f, i))
		}
	}
	return append(exprs, ":default_seed", ":random_seed", ":client_id", ":scale")
}

// tpcbExprs are the \set lines of pgbench's built-in tpcb-like script
// (simple-update and select-only start with the same first line).
var tpcbExprs = []string{
	"random(1, 100000 * :scale)",
	"random(1, 1 * :scale)",
	"random(1, 10 * :scale)",
	"random(-5000, 5000)",
}

const randomHeader = `# Generated from pgbench 15 by: go test ./script/internal/pgbenchref -run Golden -update
# Values pgbench substitutes, per client and transaction, for a --random-seed:
#   SECTION <TAB> SEED <TAB> CLIENTS <TAB> EXPR <TAB> CLIENT <TAB> V1 V2 ... (one per transaction)
# Every run uses -t 5 and the given number of clients (-j 1). Within a run,
# each transaction evaluates the run's expressions in order with
# "\set seqK EXPR" (all of them) and then substitutes them into SQL, so
# the random draws interleave in the listed order:
#   mixed   all of: the random functions, permute/hash of 0..9, :default_seed,
#           :random_seed, :client_id, :scale -- one run per seed (2 clients)
#   alone   one random function per run, nothing else drawing (2 clients)
#   c1      as mixed with 1 client (:default_seed depends on the client count)
#   tpcb    the \set lines of the built-in tpcb-like script with -s 1
#           (select-only's first \set aid is the same as tpcb's)
`

type randomRun struct {
	section string
	seed    string
	clients int
	exprs   []string
	args    []string
}

func randomRuns() []randomRun {
	var runs []randomRun
	for _, seed := range randomSeeds {
		runs = append(runs, randomRun{"mixed", seed, 2, mixedExprs(), nil})
		for _, f := range randomFuncs {
			runs = append(runs, randomRun{"alone", seed, 2, []string{f}, nil})
		}
		runs = append(runs, randomRun{"c1", seed, 1, mixedExprs(), nil})
		runs = append(runs, randomRun{"tpcb", seed, 2, tpcbExprs, []string{"-s", "1"}})
	}
	return runs
}

func TestGoldenRandom(t *testing.T) {
	t.Parallel()
	needPgbench(t)
	ctx := testContext(t)
	runs := randomRuns()
	blocks := make([][]string, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		wg.Go(func() {
			values, err := Sequences(ctx, r.exprs, r.seed, r.clients, 5, r.args...)
			if err != nil {
				t.Errorf("%s seed %s: %v", r.section, r.seed, err)
				return
			}
			for k, e := range r.exprs {
				for c := range r.clients {
					var seq []string
					for _, txn := range values[c] {
						seq = append(seq, txn[k])
					}
					blocks[i] = append(blocks[i], fmt.Sprintf("%s\t%s\t%d\t%s\t%d\t%s",
						r.section, r.seed, r.clients, e, c, strings.Join(seq, " ")))
				}
			}
		})
	}
	wg.Wait()
	var lines []string
	for _, b := range blocks {
		lines = append(lines, b...)
	}
	checkGolden(t, "random.golden", randomHeader, lines)
}
