// Package fleet starts the workers of one run over several machines
// (gbench --worker I/N) together, without a coordinator of its own.
//
// Each worker connects its clients first, then either meets the others
// through the server under test (Meet, over a Server: engine/pgsql and
// engine/resp provide one each), or is given a wall-clock time (At). A
// meeting gives every worker the same start on the server's clock: the
// latest arrival plus Margin, rounded up to a whole second, so that each
// worker can reach it and per-second boundaries (-P, --aggregate-interval)
// fall on the same instants everywhere. Each worker measures its clock
// against the server's during the meeting, so the machines' own clocks
// need not agree.
//
// Nothing here measures transactions; the engine starts its clock at the
// plan's instant (engine.StartPlan) and says how late it began.
package fleet
