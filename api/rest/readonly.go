package rest

import "slices"

// CommonReadOnly are the fields of every v2 record that no request body
// writes: a POST naming one is 422 "is read-only", a PATCH ignores it and
// names it in its ignored_fields warning (Input.ReadOnly; docs/decisions.md,
// "POST refuses unknown fields").
var CommonReadOnly = slices.Concat(leadingReadOnly, trailingReadOnly)

// The common read-only fields that open a record (its ids) and those that
// close its own fields.
var (
	leadingReadOnly  = []string{"id", "organization_id"}
	trailingReadOnly = []string{"demo", "created_at", "updated_at"}
)

// ReadOnlyFields returns the fields of a resource's records that no body
// writes: CommonReadOnly, extras (fields the server computes, such as
// total_amount), and the names of the expansions of xs that inline a record
// into it, those not Within another (one nested in another is a field of
// that one's records). A record read with ?expand and sent back whole thus
// meets the same rule for its expansions as for its id. They come in the
// order a record shows them, which is the order of a 422's issues: the ids,
// extras, demo and the timestamps, then the expansions.
func ReadOnlyFields(xs []Expansion, extras ...string) []string {
	out := slices.Concat(leadingReadOnly, extras, trailingReadOnly)
	for _, x := range xs {
		if x.Within == "" {
			out = append(out, x.Name)
		}
	}
	return out
}

// ExpansionsWithin returns the expansions of xs nested directly in the one
// named parent, as expansions of parent's records (Within cleared): the
// equipment of a pick list's items is an expansion of an item.
func ExpansionsWithin(xs []Expansion, parent string) []Expansion {
	var out []Expansion
	for _, x := range xs {
		if x.Within == parent {
			x.Within = ""
			out = append(out, x)
		}
	}
	return out
}
