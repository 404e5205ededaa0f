package workloads

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
)

// contractCase is one request the contract check makes on every path.
type contractCase struct {
	name string
	keys []int64
}

// contractCases are the requests of Contract for a dataset of n items:
// ids 1..n hold values, -1 and -2 NULL values, 0 and n+1 no row.
func contractCases(n int64) []contractCase {
	var first64 []int64
	for id := int64(1); id <= min(64, n); id++ {
		first64 = append(first64, id)
	}
	return []contractCase{
		{"in order", []int64{1, 2, 3, 4, 5, 6, 7, 8}},
		{"reversed", []int64{8, 7, 6, 5, 4, 3, 2, 1}},
		{"duplicates", []int64{3, 1, 3, 3, 2, 1}},
		{"null value", []int64{1, -1, 2}},
		{"missing key", []int64{1, 0, 2}},
		{"empty", []int64{}},
		{"all null", []int64{-1, 0, -2, -1}},
		{"64 keys", first64},
		{"ends of the range", []int64{n, 1, n - 1}},
		{"past the end", []int64{n + 1, n}},
	}
}

// readPath is one read path as the contract check runs it: the keys in,
// the values out in request order, nil for null.
type readPath struct {
	name string
	read func(ctx context.Context, keys []int64) ([]*string, error)
}

// Contract checks that the three read paths of Paths give the same answer,
// decoded into the values in request order with nil for null, for the
// same keys: in order, reversed, with duplicates, with a key whose value is
// NULL, with a missing key, an empty list, a list of nothing but nulls, 64
// keys, the ends of the loaded range and past its end. It also checks each
// answer against the dataset Load leaves: a value for ids 1..Items, null
// for anything else.
//
// sql-any's rows come back in any order, once per id; the check puts them
// in request order as an application would. resp-mget answers an empty list
// without a round trip (MGET needs a key). Errors name the case, its keys,
// the path and the first difference; every failing case is reported. The
// caller keeps ownership of both connections; redis gets its deadline
// cleared when Contract returns. After ctx ends during the check, close
// both (see Load).
func Contract(ctx context.Context, pg *pgsql.Client, redis net.Conn) error {
	if pg == nil || redis == nil {
		return errors.New("workloads: contract: needs both a PostgreSQL and a Redis connection")
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("workloads: contract: %w", err)
	}
	n, err := checkDataset(ctx, pg)
	if err != nil {
		return err
	}
	rc := resp.NewClient(redis)
	defer rc.Bind(ctx)()
	paths := []readPath{
		{"sql-any", func(ctx context.Context, keys []int64) ([]*string, error) { return readAny(ctx, pg, keys) }},
		{"sql-mget", func(ctx context.Context, keys []int64) ([]*string, error) { return readMget(ctx, pg, keys) }},
		{"resp-mget", func(_ context.Context, keys []int64) ([]*string, error) { return mget(rc, itemPrefix, keys) }},
	}
	var errs []error
	for _, c := range contractCases(n) {
		if err := checkCase(ctx, c, n, paths); err != nil {
			errs = append(errs, fmt.Errorf("workloads: contract: case %q (keys %s): %w", c.name, showKeys(c.keys), err))
			if !isMismatch(err) {
				break // a failing query fails every case the same way
			}
		}
	}
	return errors.Join(errs...)
}

// checkDataset makes sure items is loaded as Load leaves it and returns the
// number of items.
func checkDataset(ctx context.Context, pg *pgsql.Client) (int64, error) {
	const sql = `SELECT count(*) FILTER (WHERE id >= 1 AND v IS NOT NULL), max(id),
       count(*) FILTER (WHERE id IN (-1, -2) AND v IS NULL), count(*) FILTER (WHERE id = 0)
FROM ` + ItemsTable
	rows, err := pg.SimpleQuery(ctx, sql)
	if err != nil {
		return 0, fmt.Errorf("workloads: contract: the dataset is not loaded (gbench workloads load loads it): %w", ctxErr(ctx, err))
	}
	row := rows[0]
	var v [4]int64
	for i := range v {
		v[i], _ = strconv.ParseInt(string(row[i]), 10, 64) // NULL max(id) reads as 0
	}
	if v[0] < MinItems || v[0] != v[1] || v[2] != 2 || v[3] != 0 {
		return 0, fmt.Errorf("workloads: contract: items is not as Load leaves it (%d values for ids 1..%d, %d of the NULL rows -1 and -2, %d rows with id 0); load it again (gbench workloads load)", v[0], v[1], v[2], v[3])
	}
	return v[0], nil
}

// mismatch is a wrong answer, as opposed to a failed query.
type mismatch struct{ msg string }

func (m *mismatch) Error() string { return m.msg }

func mismatchf(format string, args ...any) error {
	return &mismatch{msg: fmt.Sprintf(format, args...)}
}

func isMismatch(err error) bool {
	var m *mismatch
	return errors.As(err, &m)
}

// checkCase runs one case on every path, checks each answer against the
// dataset, then against the first path's.
func checkCase(ctx context.Context, c contractCase, n int64, paths []readPath) error {
	got := make([][]*string, len(paths))
	for i, p := range paths {
		vals, err := p.read(ctx, c.keys)
		if err != nil {
			return fmt.Errorf("%s: %w", p.name, ctxErr(ctx, err))
		}
		if err := checkShape(c.keys, n, vals); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		got[i] = vals
	}
	for i := 1; i < len(paths); i++ {
		for j := range c.keys {
			if !sameValue(got[i][j], got[0][j]) {
				return mismatchf("%s differs from %s at position %d (key %d): got %s, want %s",
					paths[i].name, paths[0].name, j+1, c.keys[j], show(got[i][j]), show(got[0][j]))
			}
		}
	}
	return nil
}

// checkShape checks that vals has one value per key, a value where the
// dataset has one (ids 1..n) and null elsewhere.
func checkShape(keys []int64, n int64, vals []*string) error {
	if len(vals) != len(keys) {
		return mismatchf("%d values for %d keys", len(vals), len(keys))
	}
	for i, k := range keys {
		present := k >= 1 && k <= n
		if present && vals[i] == nil {
			return mismatchf("null at position %d (key %d), want its value", i+1, k)
		}
		if !present && vals[i] != nil {
			return mismatchf("%s at position %d (key %d), want null", show(vals[i]), i+1, k)
		}
	}
	return nil
}

func sameValue(a, b *string) bool {
	return (a == nil && b == nil) || (a != nil && b != nil && *a == *b)
}

// readAny runs sql-any's query and puts its rows in request order.
func readAny(ctx context.Context, pg *pgsql.Client, keys []int64) ([]*string, error) {
	rows, err := pg.Query(ctx, fmt.Sprintf(anyQuery, "$1::bigint[]"), string(arrayText(keys)))
	if err != nil {
		return nil, err
	}
	byID := make(map[int64]*string, len(rows))
	for _, row := range rows {
		id, err := strconv.ParseInt(string(row[0]), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("id %q: %w", row[0], err)
		}
		if _, dup := byID[id]; dup {
			return nil, mismatchf("row %d came back twice", id)
		}
		var v *string
		if row[1] != nil {
			s := string(row[1])
			v = &s
		}
		byID[id] = v
	}
	out := make([]*string, len(keys))
	for i, k := range keys {
		out[i] = byID[k]
	}
	return out, nil
}

// readMget runs sql-mget's query and decodes its JSON array.
func readMget(ctx context.Context, pg *pgsql.Client, keys []int64) ([]*string, error) {
	rows, err := pg.Query(ctx, fmt.Sprintf(mgetQuery, "$1::bigint[]"), string(arrayText(keys)))
	if err != nil {
		return nil, err
	}
	return jsonArray(rows)
}

// arrayText is the text form of an int8[]: {1,2,3}.
func arrayText(keys []int64) []byte {
	b := []byte{'{'}
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendInt(b, k, 10)
	}
	return append(b, '}')
}

// show quotes the start of a value for an error message.
func show(v *string) string {
	switch {
	case v == nil:
		return "null"
	case len(*v) > 16:
		return strconv.Quote((*v)[:16]) + "..."
	}
	return strconv.Quote(*v)
}

// showKeys prints a key list, eliding the middle of a long one.
func showKeys(keys []int64) string {
	if len(keys) > 10 {
		return fmt.Sprintf("[%s ... %s] (%d keys)", joinKeys(keys[:3]), joinKeys(keys[len(keys)-2:]), len(keys))
	}
	return "[" + joinKeys(keys) + "]"
}

func joinKeys(keys []int64) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = strconv.FormatInt(k, 10)
	}
	return strings.Join(s, " ")
}
