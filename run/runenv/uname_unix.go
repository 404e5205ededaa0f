//go:build unix

package runenv

import (
	"runtime"

	"golang.org/x/sys/unix"
)

// Uname returns the kernel's name, release, version and machine.
func Uname() OS {
	var u unix.Utsname
	if err := unix.Uname(&u); err != nil {
		return OS{Sysname: runtime.GOOS, Machine: runtime.GOARCH}
	}
	return OS{Sysname: utsString(u.Sysname[:]), Release: utsString(u.Release[:]),
		Version: utsString(u.Version[:]), Machine: utsString(u.Machine[:])}
}

// utsString converts a NUL-terminated utsname field.
func utsString(f []byte) string {
	for i, c := range f {
		if c == 0 {
			return string(f[:i])
		}
	}
	return string(f)
}
