package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is the program: 0 when it printed the comparison, 1 on an error.
func run(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("refcompare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ref := fs.String("ref", "bench/refcompare/reference.json", "the reference's figures")
	tol := fs.Float64("tolerance", 25, "two ratios within this percentage of each other agree")
	if err := fs.Parse(args); err != nil {
		return 1
	}
	if fs.NArg() != 1 {
		fmt.Fprintln(stderr, "usage: refcompare [-ref FILE] [-tolerance PERCENT] MATRIX.json")
		return 1
	}
	r, err := readReference(*ref)
	if err != nil {
		fmt.Fprintf(stderr, "refcompare: %v\n", err)
		return 1
	}
	m, err := readMatrix(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "refcompare: %v\n", err)
		return 1
	}
	if err := write(stdout, r, m, fs.Arg(0), *tol/100); err != nil {
		fmt.Fprintf(stderr, "refcompare: %v\n", err)
		return 1
	}
	return 0
}
