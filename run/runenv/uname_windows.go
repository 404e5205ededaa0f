package runenv

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/windows"
)

// Uname returns Windows' version, in uname's fields.
func Uname() OS {
	v := windows.RtlGetVersion()
	return OS{Sysname: "Windows", Release: fmt.Sprintf("%d.%d", v.MajorVersion, v.MinorVersion),
		Version: fmt.Sprintf("build %d", v.BuildNumber), Machine: runtime.GOARCH}
}
