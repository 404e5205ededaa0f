package workloads

import (
	"fmt"
	"strings"
)

// TPCCFile is the psql file that creates the TPC-C-like workload's tables
// and functions; Load runs it after DatasetFile when Options.Warehouses is
// set. It is not a workload.
const TPCCFile = "tpcc.sql"

// tpccLoadOrder is the order of tpcc_load's steps: order_line reads orders.
var tpccLoadOrder = []string{"item", "warehouse", "district", "customer", "history", "orders", "order_line", "new_order", "stock"}

// tpccTables returns the TPC-C-like tables, schema-qualified.
func tpccTables() []string {
	out := make([]string, len(tpccLoadOrder))
	for i, t := range tpccLoadOrder {
		out[i] = Schema + ".tpcc_" + t
	}
	return out
}

// tpccSteps returns the load steps of the TPC-C-like data at nw
// warehouses: the schema, then one table a step, in the manner of pgbench
// -i's progress.
func tpccSteps(nw int) []struct{ line, name, sql string } {
	text, _ := Text(TPCCFile)
	steps := []struct{ line, name, sql string }{
		{"creating the TPC-C-like tables and functions...", "tpcc create", text},
	}
	for _, t := range tpccLoadOrder {
		steps = append(steps, struct{ line, name, sql string }{
			fmt.Sprintf("generating tpcc_%s for %d %s (server-side)...", t, nw, plural(nw, "warehouse", "warehouses")),
			"tpcc " + strings.ReplaceAll(t, "_", " "),
			fmt.Sprintf("CALL %s.tpcc_load('%s', %d)", Schema, t, nw)})
	}
	return steps
}

// TPCCScript is one transaction of the TPC-C-like mix.
type TPCCScript struct {
	// Name is the bundled file, e.g. "tpcc-new-order.sql".
	Name string
	// Weight is its share of the mix in percent: 45, 43, 4, 4, 4.
	Weight int
}

// TPCC returns the five TPC-C-like transactions with TPC-C's minimum mix,
// new order first. The slice is new on each call.
func TPCC() []TPCCScript {
	return []TPCCScript{
		{"tpcc-new-order.sql", 45}, {"tpcc-payment.sql", 43}, {"tpcc-order-status.sql", 4},
		{"tpcc-delivery.sql", 4}, {"tpcc-stock-level.sql", 4},
	}
}
