package workloads

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"strconv"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
)

// ReadBack says how a path's answer to a read of keys decodes into the
// values in request order, for the contract check.
type ReadBack string

// The ways of reading values back.
const (
	// ReadRows: rows of (id, value) in any order, one per id found, as
	// SELECT id, v ... WHERE id = ANY(:keys) answers; put in request order
	// by id, as an application must.
	ReadRows ReadBack = "rows"
	// ReadJSON: one row of one column, a JSON array of strings and nulls in
	// request order, as SELECT gbench.mget(:keys) answers.
	ReadJSON ReadBack = "json"
	// ReadColumn: one row per key in request order, the value (or NULL) in
	// the first column.
	ReadColumn ReadBack = "column"
	// ReadArray: a RESP array of bulk strings and nulls in request order,
	// as MGET answers.
	ReadArray ReadBack = "array"
	// ReadNone: the path is not checked (writes, cold caches, other data).
	ReadNone ReadBack = "none"
)

// ReadBacks lists the ways of reading values back, ReadNone last.
func ReadBacks() []ReadBack { return []ReadBack{ReadRows, ReadJSON, ReadColumn, ReadArray, ReadNone} }

// SQL reports whether r decodes an SQL answer (rows, json, column), as
// opposed to a RESP one (array) or none.
func (r ReadBack) SQL() bool { return r == ReadRows || r == ReadJSON || r == ReadColumn }

// Reader is one path as the contract check runs it: the keys in, the
// values out in request order, nil for null.
type Reader struct {
	Name string
	Read func(ctx context.Context, keys []int64) ([]*string, error)
}

// SQLReader returns a Reader that runs the statement query(keys) on pg
// with the simple protocol (its keys written into the text, as pgbench's
// simple mode does) and decodes the answer as rb says (ReadRows, ReadJSON
// or ReadColumn).
func SQLReader(name string, pg *pgsql.Client, query func(keys []int64) string, rb ReadBack) Reader {
	return Reader{Name: name, Read: func(ctx context.Context, keys []int64) ([]*string, error) {
		rows, err := pg.SimpleQuery(ctx, query(keys))
		if err != nil {
			return nil, err
		}
		return decodeRows(rows, keys, rb)
	}}
}

// RESPReader returns a Reader that sends the command args(keys) on redis
// and decodes an array reply (ReadArray). An empty list is answered
// without a round trip, since a command like MGET needs a key. The caller
// keeps ownership of redis; its deadline is cleared after each read.
func RESPReader(name string, redis net.Conn, args func(keys []int64) []string) Reader {
	rc := resp.NewClient(redis)
	return Reader{Name: name, Read: func(ctx context.Context, keys []int64) ([]*string, error) {
		if len(keys) == 0 {
			return []*string{}, nil
		}
		defer rc.Bind(ctx)()
		a := args(keys)
		vals, top, err := rc.Call(a...)
		if err != nil {
			return nil, err
		}
		return decodeArray(rc, vals, top, a[0])
	}}
}

// decodeRows decodes an SQL answer.
func decodeRows(rows [][][]byte, keys []int64, rb ReadBack) ([]*string, error) {
	switch rb {
	case ReadRows:
		return rowsInOrder(rows, keys)
	case ReadJSON:
		return jsonArray(rows)
	case ReadColumn:
		out := make([]*string, len(rows))
		for i, row := range rows {
			if len(row) == 0 {
				return nil, mismatchf("row %d has no column", i+1)
			}
			out[i] = text(row[0])
		}
		return out, nil
	}
	return nil, fmt.Errorf("workloads: %q does not read back an SQL answer", rb)
}

// rowsInOrder puts rows of (id, value) in request order by id.
func rowsInOrder(rows [][][]byte, keys []int64) ([]*string, error) {
	byID := make(map[int64]*string, len(rows))
	for _, row := range rows {
		if len(row) < 2 {
			return nil, mismatchf("a row of %d columns, want (id, value)", len(row))
		}
		id, err := strconv.ParseInt(string(row[0]), 10, 64)
		if err != nil {
			return nil, mismatchf("id %q is not an integer", row[0])
		}
		if _, dup := byID[id]; dup {
			return nil, mismatchf("row %d came back twice", id)
		}
		byID[id] = text(row[1])
	}
	out := make([]*string, len(keys))
	for i, k := range keys {
		out[i] = byID[k]
	}
	return out, nil
}

// jsonArray decodes one row of one column holding a JSON array.
func jsonArray(rows [][][]byte) ([]*string, error) {
	if len(rows) != 1 || len(rows[0]) != 1 {
		return nil, mismatchf("%d rows, want one row of one column", len(rows))
	}
	if rows[0][0] == nil {
		return nil, mismatchf("NULL, want a JSON array")
	}
	var out []*string
	if err := json.Unmarshal(rows[0][0], &out); err != nil || out == nil {
		return nil, mismatchf("%.40q is not a JSON array of strings and nulls", rows[0][0])
	}
	return out, nil
}

// decodeArray decodes an array reply of bulk strings and nulls.
func decodeArray(rc *resp.Client, vals []resp.Value, top int, cmd string) ([]*string, error) {
	if vals[top].Kind != resp.KindArray {
		return nil, mismatchf("redis %s: reply of kind %s, want an array", cmd, vals[top].Kind)
	}
	out := []*string{}
	for i := rc.Reader().First(top); i >= 0; i = rc.Reader().Next(i) {
		switch vals[i].Kind {
		case resp.KindNull:
			out = append(out, nil)
		case resp.KindBulk, resp.KindSimple:
			s := string(vals[i].Bytes)
			out = append(out, &s)
		default:
			return nil, mismatchf("redis %s: element of kind %s, want a bulk string or nil", cmd, vals[i].Kind)
		}
	}
	return out, nil
}

// text returns a column's value, nil for NULL.
func text(b []byte) *string {
	if b == nil {
		return nil
	}
	s := string(b)
	return &s
}

// DatasetReader returns the Reader of the dataset as stored: the rows of
// gbench.items when pg is not nil, else the keys gbench:item:* of redis.
// The contract check of a plan compares every path with it.
func DatasetReader(pg *pgsql.Client, redis net.Conn) Reader {
	if pg != nil {
		return SQLReader("the dataset ("+ItemsTable+")", pg, func(keys []int64) string {
			return fmt.Sprintf(anyQuery, "'"+string(arrayText(keys))+"'::bigint[]")
		}, ReadRows)
	}
	return RESPReader("the dataset ("+itemPrefix+"*)", redis, func(keys []int64) []string {
		args := []string{"MGET"}
		for _, k := range keys {
			args = append(args, itemPrefix+strconv.FormatInt(k, 10))
		}
		return args
	})
}

// Dataset is what a loaded dataset holds, as Load left it.
type Dataset struct {
	// Items is the number of items (ids 1..Items), ValueSize the length of
	// their values, KVKeys the number of keys of the kv table.
	Items, ValueSize, KVKeys int
	// Sessions is the number of sessions loaded (uuid(1..Sessions); sets
	// since then not counted), 0 when the servers do not say.
	Sessions int
	// YCSBRecords is the number of YCSB records loaded (inserts since
	// then not counted), 0 when the servers do not say.
	YCSBRecords int
}

// ReadDataset checks that the dataset is loaded as Load leaves it and
// returns its sizes: from PostgreSQL when pg is not nil, else from the
// marker Load writes in Redis.
func ReadDataset(ctx context.Context, pg *pgsql.Client, redis net.Conn) (Dataset, error) {
	if pg != nil {
		n, err := checkDataset(ctx, pg)
		if err != nil {
			return Dataset{}, err
		}
		// load_ycsb writes the loaded record count into usertable's comment.
		rows, err := pg.SimpleQuery(ctx, "SELECT max(length(v)), (SELECT coalesce(max(k), 0) FROM "+Schema+".kv WHERE k < 1000000000000), "+
			"coalesce(substring(pg_catalog.obj_description(to_regclass('"+Schema+".usertable'), 'pg_class') FROM ', (\\d+) records'), '0'), "+
			"coalesce(substring(pg_catalog.obj_description(to_regclass('"+Schema+".sessions'), 'pg_class') FROM ', (\\d+) sessions'), '0') FROM "+ItemsTable+" WHERE id >= 1")
		if err != nil {
			return Dataset{}, fmt.Errorf("workloads: reading the dataset: %w", ctxErr(ctx, err))
		}
		size, _ := strconv.Atoi(string(rows[0][0]))
		kv, _ := strconv.Atoi(string(rows[0][1]))
		records, _ := strconv.Atoi(string(rows[0][2]))
		sessions, _ := strconv.Atoi(string(rows[0][3]))
		return Dataset{Items: int(n), ValueSize: size, KVKeys: kv, YCSBRecords: records, Sessions: sessions}, nil
	}
	if redis == nil {
		return Dataset{}, errors.New("workloads: no server to read the dataset from")
	}
	rc := resp.NewClient(redis)
	defer rc.Bind(ctx)()
	m, err := readMarker(rc)
	if err != nil {
		return Dataset{}, err
	}
	d := Dataset{}
	d.Items, _ = strconv.Atoi(m[markerItems])
	d.ValueSize, _ = strconv.Atoi(m[markerSize])
	d.KVKeys, _ = strconv.Atoi(m[markerKeys])
	d.YCSBRecords, _ = strconv.Atoi(m[markerYCSB])
	d.Sessions, _ = strconv.Atoi(m[markerSess])
	if m == nil || m[markerLoaded] == "" || d.Items < MinItems {
		return Dataset{}, errors.New("workloads: contract: the dataset is not loaded in Redis (gbench workloads load --resp URL loads it)")
	}
	return d, nil
}

// Check runs the contract's cases (see Contract) on readers against a
// dataset of items items: each answer must have one value per key, a
// value for ids 1..items and null for anything else, and every reader
// must answer as the first one does. Errors name the case, its keys, the
// reader and the first difference; every failing case is reported.
func Check(ctx context.Context, items int, readers []Reader) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("workloads: contract: %w", err)
	}
	paths := make([]readPath, len(readers))
	for i, r := range readers {
		paths[i] = readPath{r.Name, r.Read}
	}
	n := int64(items)
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
