// Refcompare prints the side-by-side of a gbench matrix result with the
// reference benchmark's published figures (github.com/profundium/pg_local_cache),
// as ratios between paths: the reference ran on other hardware, so only
// the shapes compare.
//
// Usage:
//
//	go run ./bench/refcompare [-ref FILE] [-tolerance PERCENT] MATRIX.json >comparison.md
//
// FILE (default bench/refcompare/reference.json) holds the reference's
// figures, each with the file and commit it was read from, and for each
// ratio the two gbench cells (path, keys, connections) that make the same
// ratio. For each one the output says whether gbench's ratio agrees:
// "agrees" when both are on the same side of 1 and within PERCENT
// (default 25) of each other, "same direction, size differs" when only
// the side agrees, "reversed" when not; a cell the run lacks is "not in
// this run". bench/results.sh writes docs/results/DATE/comparison.md with it.
package main
