package main

import (
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gbench/gbench/workloads"
)

// bundledDir is the directory the bundled workloads are named under on
// the command line, as in a checkout: -f workloads/mget64.sql.
const bundledDir = "workloads/"

// bundledScript returns the embedded copy of the workload a -f argument
// names as workloads/NAME.sql, for when no such file exists on disk.
func bundledScript(arg string) (string, bool) {
	name, ok := strings.CutPrefix(path.Clean(filepath.ToSlash(arg)), bundledDir)
	if !ok || !isWorkload(name) {
		return "", false
	}
	text, err := workloads.Text(name)
	return text, err == nil
}

// isWorkload reports whether name (such as "mget64.sql") is a bundled
// workload; dataset.sql is not one.
func isWorkload(name string) bool {
	return slices.ContainsFunc(workloads.Workloads(), func(w workloads.Workload) bool { return w.Name == name })
}

// bundledName turns what a user may type for a bundled file, "mget64",
// "mget64.sql" or "workloads/mget64.sql", into its name, "mget64.sql",
// or "" when there is no such bundled file (dataset.sql is one).
func bundledName(s string) string {
	name := strings.TrimPrefix(path.Clean(filepath.ToSlash(s)), bundledDir)
	if !strings.HasSuffix(name, ".sql") {
		name += ".sql"
	}
	if name == workloads.DatasetFile || isWorkload(name) {
		return name
	}
	return ""
}

// workloadHint points a user who typed a bundled workload's name where a
// builtin's goes (-b, --show-script) to -f, or returns "".
func workloadHint(s string) string {
	name := bundledName(s)
	if name == "" || name == workloads.DatasetFile {
		return ""
	}
	return "\ngbench: hint: " + name + " is a bundled workload, not a builtin: run it with -f " + bundledDir + name + `, print it with "gbench workloads show ` + name + `"`
}
