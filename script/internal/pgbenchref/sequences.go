package pgbenchref

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// Sequences runs a script that, in every transaction, evaluates each of
// exprs in order ("\set seqK EXPR") and then substitutes the values into
// SQL, with --random-seed=seed, -c clients, -t txns and any extra args
// (e.g. "-s", "10" to set :scale). It returns values[client][txn][k], the
// text pgbench substituted for exprs[k]. Any pgbench failure is an error.
// Sequences is safe for concurrent use.
func Sequences(ctx context.Context, exprs []string, seed string, clients, txns int, args ...string) ([][][]string, error) {
	var b strings.Builder
	for k, e := range exprs {
		fmt.Fprintf(&b, "\\set seq%d %s\n", k, e)
	}
	for k := range exprs {
		fmt.Fprintf(&b, "SELECT ':seq%d';\n", k)
	}
	args = append([]string{"--random-seed=" + seed, "-c", strconv.Itoa(clients), "-t", strconv.Itoa(txns)}, args...)
	out, err := Run(ctx, b.String(), args...)
	if err != nil {
		return nil, err
	}
	if out.ExitCode != 0 {
		return nil, fmt.Errorf("pgbench exited with %d: %s", out.ExitCode, out.FirstError())
	}
	values := make([][][]string, clients)
	for c := range values {
		values[c] = make([][]string, txns)
	}
	for _, s := range out.Sent {
		if s.Client >= clients || s.Txn < 0 || s.Txn >= txns {
			return nil, fmt.Errorf("unexpected SQL from client %d transaction %d: %q", s.Client, s.Txn, s.SQL)
		}
		values[s.Client][s.Txn] = append(values[s.Client][s.Txn], selectedValue(s.SQL))
	}
	for c := range values {
		for t, v := range values[c] {
			if len(v) != len(exprs) {
				return nil, fmt.Errorf("client %d transaction %d: %d values, want %d", c, t, len(v), len(exprs))
			}
		}
	}
	return values, nil
}
