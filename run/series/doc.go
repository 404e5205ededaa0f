// Package series runs and analyses series of benchmark runs: curves over
// client counts or target rates, searches for the highest rate meeting a
// service-level objective, and A/B comparisons. docs/methodology.md
// explains the method; this package implements it.
//
// # Use
//
//	r := &series.Runner{Engine: build, Probe: probe, Duration: 5 * time.Second, Warmup: 2 * time.Second}
//	res := &series.Result{Schema: series.Schema, Kind: series.KindCurve, Plan: plan}
//	r.WarmUp(ctx, plan.Loads[len(plan.Loads)-1], plan.Seed)
//	err := r.Each(ctx, res, series.Order(len(plan.Loads), plan.Repeats, plan.Seed), save)
//	res.Curve = series.NewCurve(res.Runs, plan.Loads, series.DefaultPlateau)
//
// Each run is an in-process engine.Run of the configuration that
// Runner.Engine returns for a Load (a client count, a target rate, a
// variant), with the servers' counters read around it (runenv.Probe), so
// that every run records the WAL it wrote and the checkpoints and
// autovacuum runs that fell inside it.
//
//   - Order shuffles repeated points (the matrix uses it too), Interleave
//     alternates the two sides of an A/B series round by round;
//   - Point and Stat sum up repeats as medians and ranges;
//   - FindKnee finds where closed-loop throughput stops growing;
//   - Searcher finds the highest --rate meeting an Objective and keeps
//     every probe as evidence;
//   - NewAB compares two sides and refuses to call a difference smaller
//     than the noise.
//
// Result is the JSON document of all three (schema "gbench-series/1").
package series
