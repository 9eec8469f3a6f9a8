package rest

import "strings"

// ListElements splits the value of a query parameter that takes a
// comma-separated list (listParams) into its elements, each trimmed. An
// empty element (`a,,b`, or a list built with a trailing comma) names
// nothing and is left out, so a list of commas alone has no elements
// (docs/decisions.md). Whether an empty list is allowed, and what an element
// must be, is the caller's.
func ListElements(raw string) []string {
	var out []string
	for _, part := range strings.Split(raw, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}
