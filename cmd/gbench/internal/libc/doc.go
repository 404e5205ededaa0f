// Package libc calls the C library's number parsers (strtol, strtod, atoi,
// sscanf) that pgbench reads its options with, so that gbench's tests and
// fuzz targets can check gbench's Go versions against the real thing. It
// needs cgo; without it the package is empty and those tests are left out.
// Only tests import it.
package libc
