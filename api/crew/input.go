package crew

import (
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
)

// ReadOnly lists the fields a crew member may never write.
var ReadOnly = rest.ReadOnlyFields(nil)

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// notes are free text, the other strings one line.
var createRules, updateRules = openapi.Rules("CrewMemberCreate").MultiLine("notes"),
	openapi.Rules("CrewMemberUpdate").MultiLine("notes")

// decodeFields reads every writable field into column assignments. The same
// decoder serves POST (create: required fields enforced) and PATCH.
func decodeFields(in *rest.Input, create bool) storage.Changes {
	var ch storage.Changes
	rules := updateRules
	if create {
		rules = createRules
	}
	for _, col := range []string{"first_name", "last_name"} {
		v := in.String(col, rules.Get(col))
		ch.SetIf(v.Set, col, v.Value)
	}
	email := in.String("email", rules.Get("email"))
	ch.SetIf(email.Set, "email", email.Ptr())
	for _, col := range []string{"phone", "role"} {
		v := in.String(col, rules.Get(col))
		ch.SetIf(v.Set, col, v.Ptr())
	}
	notes := in.String("notes", rules.Get("notes"))
	ch.SetIf(notes.Set, "notes", notes.Ptr())
	active := in.Bool("is_active", rules.Get("is_active"))
	ch.SetIf(active.Set, "is_active", active.Value)
	in.ReadOnly(ReadOnly...)
	return ch
}
