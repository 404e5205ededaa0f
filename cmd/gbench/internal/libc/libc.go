//go:build cgo

package libc

/*
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

static long gb_strtol(const char *s, long *end, int *erange) {
	char *e;
	errno = 0;
	long v = strtol(s, &e, 10);
	*end = e - s;
	*erange = errno == ERANGE;
	return v;
}

static double gb_strtod(const char *s, long *end) {
	char *e;
	double v = strtod(s, &e);
	*end = e - s;
	return v;
}

static int gb_sscanf_lu(const char *s, unsigned long *v) {
	char c;
	return sscanf(s, "%lu%c", v, &c);
}
*/
import "C"

import (
	"strings"
	"unsafe"
)

// cstring converts s for C; ok is false when s holds a NUL byte, which no
// C string (and no command-line argument) can.
func cstring(s string) (*C.char, bool) {
	if strings.IndexByte(s, 0) >= 0 {
		return nil, false
	}
	return C.CString(s), true
}

// Strtol is strtol(s, &end, 10): the value, the number of bytes read
// (0 when there is no number) and whether errno was ERANGE. ok is false
// when s holds a NUL byte.
func Strtol(s string) (v int64, end int, erange, ok bool) {
	cs, ok := cstring(s)
	if !ok {
		return 0, 0, false, false
	}
	defer C.free(unsafe.Pointer(cs))
	var e C.long
	var r C.int
	v = int64(C.gb_strtol(cs, &e, &r))
	return v, int(e), r != 0, true
}

// Strtod is strtod(s, &end): the value and the number of bytes read.
func Strtod(s string) (v float64, end int, ok bool) {
	cs, ok := cstring(s)
	if !ok {
		return 0, 0, false
	}
	defer C.free(unsafe.Pointer(cs))
	var e C.long
	v = float64(C.gb_strtod(cs, &e))
	return v, int(e), true
}

// Atoi is atoi(s).
func Atoi(s string) (v int32, ok bool) {
	cs, ok := cstring(s)
	if !ok {
		return 0, false
	}
	defer C.free(unsafe.Pointer(cs))
	return int32(C.atoi(cs)), true
}

// SscanfLu is sscanf(s, "%lu%c", &v, &c): the value and sscanf's result
// (1 when exactly a number was read, 2 when something followed it).
func SscanfLu(s string) (v uint64, n int, ok bool) {
	cs, ok := cstring(s)
	if !ok {
		return 0, 0, false
	}
	defer C.free(unsafe.Pointer(cs))
	var u C.ulong
	n = int(C.gb_sscanf_lu(cs, &u))
	return uint64(u), n, true
}
