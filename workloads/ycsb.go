package workloads

import (
	"strconv"

	"github.com/gbench/gbench/engine/resp"
)

// YCSB's data in Redis: a hash per record, the records' order (a sorted
// set, as YCSB's Redis binding keeps one for scans) and the insert counter.
const (
	ycsbRecordPrefix = ycsbPrefix + "user"  // + n: the hash of record n
	ycsbIndexKey     = ycsbPrefix + "index" // member "user<n>", score 0: in key order, as SQL's COLLATE "C"
	ycsbCountKey     = ycsbPrefix + "count" // the last record number
)

// YCSBFields is the number of fields of a YCSB record, YCSB's default
// fieldcount: field0..field9, the columns of gbench.usertable.
const YCSBFields = 10

// YCSBValue is the value Load stores in field f of YCSB record n at
// length bytes, in PostgreSQL (gbench.item_value(10 * n + f, length)) and
// in Redis.
func YCSBValue(n int64, f, length int) string { return Value(10*n+int64(f), length) }

// ycsbBatch is how many records go in one pipelined window.
const ycsbBatch = 256

// setYCSB sets the hashes of records 1..YCSBRecords, the index and the
// counter, pipelined. The caller has removed the old YCSB keys.
func setYCSB(rc *resp.Client, o Options) error {
	last := int64(o.YCSBRecords)
	for lo := int64(1); lo <= last; lo += ycsbBatch {
		hi := min(lo+ycsbBatch-1, last)
		for n := lo; n <= hi; n++ {
			rc.SendWith(func(out []byte) []byte {
				out = resp.AppendArrayHeader(out, 2+2*YCSBFields)
				out = resp.AppendBulkString(out, "HSET")
				out = resp.AppendBulkString(out, ycsbRecordPrefix+strconv.FormatInt(n, 10))
				for f := range YCSBFields {
					out = resp.AppendBulkString(out, "field"+strconv.Itoa(f))
					out = resp.AppendBulkString(out, YCSBValue(n, f, o.YCSBFieldLength))
				}
				return out
			})
		}
		rc.SendWith(func(out []byte) []byte {
			out = resp.AppendArrayHeader(out, 2+2*int(hi-lo+1))
			out = resp.AppendBulkString(out, "ZADD")
			out = resp.AppendBulkString(out, ycsbIndexKey)
			for n := lo; n <= hi; n++ {
				out = resp.AppendBulkString(out, "0")
				out = resp.AppendBulkString(out, "user"+strconv.FormatInt(n, 10))
			}
			return out
		})
		if err := drain(rc, int(hi-lo+2), "HSET"); err != nil {
			return err
		}
	}
	_, _, err := rc.Call("SET", ycsbCountKey, strconv.FormatInt(last, 10))
	return err
}
