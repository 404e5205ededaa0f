package main

import (
	"context"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/workloads"
)

// tpccArgs returns the command line of the five TPC-C-like transactions
// with their weights, as the scripts' headers give it, for n transactions
// per client of 2 clients.
func tpccArgs(mode string, n int) []string {
	args := []string{"-n", "-M", mode, "-D", "warehouses=1", "-c", "2", "-t", fmt.Sprint(n)}
	for _, s := range workloads.TPCC() {
		args = append(args, "-f", fmt.Sprintf("%s%s@%d", workloadDir, s.Name, s.Weight))
	}
	return args
}

// TestTPCCLike loads the TPC-C-like data at scale 1 with the workload's
// own init, runs the weighted mix in every query mode and checks that the
// summary reports NOPM beside tps with per-transaction percentiles, that
// the transactions changed what they should, and that real pgbench 15 runs
// the same scripts.
func TestTPCCLike(t *testing.T) {
	cfg := needServer(t)
	conninfo := scratchDB(t, cfg, "tpcc")
	out := runGbench("workloads", "load", "--tpcc-warehouses", "1", "--keyspace", "1000", conninfo)
	if out.code != exitOK {
		t.Fatalf("load: status %d\n%s", out.code, out.stderr)
	}
	for _, want := range []string{
		"TPC-C-like data for 1 warehouse into PostgreSQL",
		"PostgreSQL: creating the TPC-C-like tables and functions...",
		"PostgreSQL: generating tpcc_order_line for 1 warehouse (server-side)...",
		"PostgreSQL: generating tpcc_stock for 1 warehouse (server-side)...",
		"-D warehouses=1",
	} {
		if !strings.Contains(out.stderr, want) {
			t.Errorf("load: no %q in\n%s", want, out.stderr)
		}
	}
	ctx := context.Background()
	pg, err := pgsql.Open(ctx, conninfo)
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	count := func(sql string) string {
		t.Helper()
		rows, err := pg.SimpleQuery(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		return string(rows[0][0])
	}
	// The initial state at scale 1.
	for sql, want := range map[string]string{
		"SELECT count(*) FROM gbench.tpcc_warehouse":                                                            "1",
		"SELECT count(*) FROM gbench.tpcc_district":                                                             "10",
		"SELECT count(*) FROM gbench.tpcc_customer":                                                             "30000",
		"SELECT count(DISTINCT (o_d_id, o_c_id)) FROM gbench.tpcc_orders":                                       "30000",
		"SELECT count(*) FROM gbench.tpcc_new_order":                                                            "9000",
		"SELECT count(*) FROM gbench.tpcc_item":                                                                 "100000",
		"SELECT count(*) FROM gbench.tpcc_stock":                                                                "100000",
		"SELECT (SELECT count(*) FROM gbench.tpcc_order_line) = (SELECT sum(o_ol_cnt) FROM gbench.tpcc_orders)": "t",
		"SELECT min(c) FROM (SELECT count(*) AS c FROM gbench.tpcc_customer GROUP BY c_d_id, c_last) AS n":      "3",
	} {
		if got := count(sql); got != want {
			t.Errorf("%s = %s, want %s", sql, got, want)
		}
	}
	orders := count("SELECT sum(d_next_o_id) FROM gbench.tpcc_district")
	for _, mode := range []string{"prepared", "simple", "extended"} {
		out := runGbench(append(tpccArgs(mode, 100), "-r", conninfo)...)
		if out.code != exitOK || out.stderr != "" {
			t.Fatalf("-M %s: status %d\n%s\n%s", mode, out.code, out.stdout, out.stderr)
		}
		for _, want := range []*regexp.Regexp{
			regexp.MustCompile(`(?m)^number of transactions actually processed: 200/200$`),
			regexp.MustCompile(`(?m)^number of failed transactions: 0 `),
			regexp.MustCompile(`(?m)^tps = \d+\.\d+ `),
			regexp.MustCompile(`(?m)^SQL script 1: \S*tpcc-new-order\.sql\n - weight: 45 `),
			regexp.MustCompile(`(?m)^SQL script 5: \S*tpcc-stock-level\.sql\n`),
			regexp.MustCompile(`(?m)^ - latency percentiles \(ms\): p50 = `),
			regexp.MustCompile(`(?m)^ - statement latency percentiles in milliseconds`),
			regexp.MustCompile(`(?m)^TPC-C-like: NOPM = \d+ \(new-order transactions per minute\), TPM = \d+ \(all transactions per minute\); not a TPC-C result$`),
		} {
			if !want.MatchString(out.stdout) {
				t.Errorf("-M %s: no line matching %s in\n%s", mode, want, out.stdout)
			}
		}
	}
	// Every new order took an order number, and the deliveries delivered.
	if after := count("SELECT sum(d_next_o_id) FROM gbench.tpcc_district"); after == orders {
		t.Errorf("d_next_o_id did not move (%s)", after)
	}
	if got := count("SELECT count(*) FROM gbench.tpcc_orders WHERE o_id BETWEEN 2101 AND 3000 AND o_carrier_id IS NOT NULL"); got == "0" {
		t.Error("no delivery delivered an order")
	}
	if n := count("SELECT count(*) FROM gbench.tpcc_new_order"); n == "9000" {
		t.Errorf("tpcc_new_order still holds %s rows after the deliveries and new orders", n)
	}
	defer func() {
		// Last: drop removes the TPC-C-like objects with the rest.
		if out := runGbench("workloads", "drop", conninfo); out.code != exitOK {
			t.Errorf("drop: status %d\n%s", out.code, out.stderr)
		}
		if n := count("SELECT count(*) FROM pg_catalog.pg_namespace WHERE nspname = 'gbench'"); n != "0" {
			t.Errorf("the schema gbench is still there after drop")
		}
	}()

	t.Run("pgbench 15 runs the same scripts", func(t *testing.T) {
		pgbench := needPgbench(t)
		args := append(tpccArgs("prepared", 50), "-r", conninfo)
		for i, a := range args {
			args[i] = strings.Replace(a, workloadDir, "../../workloads/", 1)
		}
		b, err := exec.Command(pgbench, args...).CombinedOutput()
		if err != nil || !strings.Contains(string(b), "number of transactions actually processed: 100/100") ||
			!strings.Contains(string(b), "number of failed transactions: 0 ") {
			t.Errorf("pgbench %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		t.Logf("pgbench 15:\n%s", b)
	})
}
