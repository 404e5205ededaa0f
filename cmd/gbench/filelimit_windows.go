package main

// checkFileLimit has nothing to check: Windows sets no per-process limit
// on sockets that a program would raise.
func checkFileLimit(int) error { return nil }
