package workloads

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed plans/*.toml
var plans embed.FS

// Plans returns the names of the bundled matrix plans ("read", "mixed",
// ...), read first (the default), then in alphabetical order. The slice is
// new on each call.
func Plans() []string {
	entries, _ := fs.ReadDir(plans, "plans")
	out := []string{"read"}
	for _, e := range entries {
		if name := strings.TrimSuffix(e.Name(), ".toml"); name != "read" {
			out = append(out, name)
		}
	}
	return out
}

// PlanText returns a bundled plan file, e.g. PlanText("mixed"). A name may
// end in ".toml".
func PlanText(name string) ([]byte, error) {
	b, err := plans.ReadFile("plans/" + strings.TrimSuffix(name, ".toml") + ".toml")
	if err != nil || strings.ContainsAny(name, "/\\") {
		return nil, fmt.Errorf("workloads: no bundled plan %q (bundled: %s)", name, strings.Join(Plans(), ", "))
	}
	return b, nil
}
