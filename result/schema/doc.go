// Package schema is the JSON result of a matrix run ("gbench-matrix/2",
// read back from "gbench-matrix/1" too): Result with its Plan, the
// environment (Machine, OS, the servers), the contract check, the warm-up
// and every Sample in the order it ran. docs/matrix.md describes every
// field; field names carry their unit (_us, _s, _bytes, req_s).
//
// Read decodes a result with errors that say where a file is broken;
// Cells groups samples into the cells a report shows, with medians and
// ranges (Median); SamePlan says whether two results can be compared.
//
// It is a leaf: reading or rendering a result needs neither the engine,
// the runners nor pgx (layers_test.go keeps it so), so a report can read a
// file written on another machine by another version.
package schema
