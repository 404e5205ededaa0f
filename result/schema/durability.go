package schema

import "strings"

// DurabilityOf names the durability of a PostgreSQL server from its
// settings by name (Endpoint.Durability): "on" when fsync, synchronous_commit and
// full_page_writes are all on (synchronous_commit's remote_write,
// remote_apply and local count as on: each waits for the local flush), "off" when all three are off,
// else the three as given.
func DurabilityOf(settings map[string]string) string {
	names := []string{"fsync", "synchronous_commit", "full_page_writes"}
	on, off := 0, 0
	var parts []string
	for _, n := range names {
		v, ok := settings[n]
		if !ok {
			return ""
		}
		switch v {
		case "on", "local", "remote_write", "remote_apply":
			on++
		case "off":
			off++
		}
		parts = append(parts, n+"="+v)
	}
	switch {
	case on == len(names):
		return "on"
	case off == len(names):
		return "off"
	}
	return strings.Join(parts, " ")
}
