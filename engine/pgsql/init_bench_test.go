package pgsql

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"testing"
)

// BenchmarkAccountRows measures generating pgbench_accounts COPY text into
// pgconn's 64 KiB CopyData buffer, without a server. It allocates nothing.
func BenchmarkInitAccountRows(b *testing.B) {
	const rows = 1000000
	buf := make([]byte, 65531)
	var size int64
	r := newInitRowReader(context.Background(), initAccountRow, rows, nil)
	for n, err := r.Read(buf); err != io.EOF; n, err = r.Read(buf) {
		size += int64(n)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		r := newInitRowReader(context.Background(), initAccountRow, rows, nil)
		for _, err := r.Read(buf); err != io.EOF; _, err = r.Read(buf) {
		}
	}
	b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
}

// BenchmarkGenerateScale10 compares step 'g' (truncate, then COPY of 1M
// accounts in one transaction) of Init with real pgbench's at scale 10, on
// the same server: run with -bench GenerateScale10 -benchtime 3x.
func BenchmarkInitGenerateScale10(b *testing.B) {
	const scale = 10
	cfg := initTestConfig(b)
	db := initTestScratchDB(b, cfg, "bench")
	var log bytes.Buffer
	conn := initTestConnect(b, cfg, db, &log)
	ctx := context.Background()
	if err := Init(ctx, &Client{pc: conn}, InitOptions{Steps: "dt", Scale: scale, FillFactor: 100}, &log, false); err != nil {
		b.Fatal(err)
	}
	rows := float64(initAccountRows(scale))
	b.Run("gbench", func(b *testing.B) {
		for b.Loop() {
			if err := Init(ctx, &Client{pc: conn}, InitOptions{Steps: "g", Scale: scale, FillFactor: 100}, io.Discard, false); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
	b.Run("pgbench", func(b *testing.B) {
		pgbench := initTestPgbench(b)
		for b.Loop() {
			cmd := initTestPgbenchCmd(pgbench, cfg, db, "-I", "g", "-s", fmt.Sprint(scale))
			if out, ok, err := initTestRunPgbench(cmd); err != nil || !ok {
				b.Fatalf("pgbench: %v\n%s", err, out)
			}
		}
		b.ReportMetric(rows*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
	})
}
