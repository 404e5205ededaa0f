package main

import (
	"strings"

	"github.com/gbench/gbench/engine/pgsql"
	"github.com/gbench/gbench/engine/resp"
)

// redactArg hides the passwords of one command-line argument: a
// PostgreSQL connection string or URI, a Redis URL, or an option with one
// of those as its value (--pg=..., --redis=...).
func redactArg(a string) string {
	if name, value, ok := strings.Cut(a, "="); ok && isOptionName(name) {
		return name + "=" + redactValue(value)
	}
	return redactValue(a)
}

// isOptionName reports whether s is spelled like a long option: "--"
// and letters, digits and dashes. A value such as "- password=x" is not.
func isOptionName(s string) bool {
	name, ok := strings.CutPrefix(s, "--")
	if !ok || name == "" {
		return false
	}
	for _, c := range name {
		if !(c == '-' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// redactValue hides the passwords of a connection string or URL.
func redactValue(a string) string {
	for _, scheme := range []string{"redis://", "rediss://", "unix://"} {
		if hasFoldPrefix(a, scheme) {
			return resp.RedactURL(a)
		}
	}
	if pgsql.IsURI(a) || strings.Contains(a, "=") {
		return pgsql.RedactConninfo(a)
	}
	return a
}

// hasFoldPrefix reports whether s starts with prefix, ignoring ASCII case.
func hasFoldPrefix(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
