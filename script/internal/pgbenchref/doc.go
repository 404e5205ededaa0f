// Package pgbenchref runs the real pgbench 15 binary so that tests can
// compare gbench's script language with the reference, value for value.
//
// It is used only by tests. Every function needs pgbench on PATH and a
// PostgreSQL server; call Available first and skip when it reports false.
// The server is named by the GBENCH_TEST_PG conninfo (see Conninfo).
//
// Run executes one script and returns what pgbench printed with --debug:
// the SQL texts it sent, the debug() lines and the error lines. EvalExprs
// evaluates many \set expressions, batching them into few pgbench runs.
// Sequences records the values of expressions per client and transaction
// for a given --random-seed.
//
// At most two pgbench processes run at a time, whatever the number of
// callers, so that golden tests stay well behaved on small machines.
//
// The corpora and golden files that pin pgbench's behaviour live in
// script/testdata/pgbench; golden_test.go regenerates them with
//
//	go test ./script/internal/pgbenchref -run Golden -update
//
// and, without -update, re-runs pgbench and compares.
package pgbenchref
