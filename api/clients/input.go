package clients

import (
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
)

// ReadOnly lists the fields a client may never write.
var ReadOnly = rest.ReadOnlyFields(nil)

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// address (street lines) and notes are free text, the other strings one line.
var createRules, updateRules = openapi.Rules("ClientCreate").MultiLine("address", "notes"),
	openapi.Rules("ClientUpdate").MultiLine("address", "notes")

// decodeFields reads every writable field into column assignments. The same
// decoder serves POST (create: required fields enforced) and PATCH.
func decodeFields(in *rest.Input, create bool) storage.Changes {
	var ch storage.Changes
	rules := updateRules
	if create {
		rules = createRules
	}
	name := in.String("name", rules.Get("name"))
	ch.SetIf(name.Set, "name", name.Value)
	email := in.String("email", rules.Get("email"))
	ch.SetIf(email.Set, "email", email.Ptr())
	for _, f := range []string{"phone", "address", "city", "state", "zip"} {
		v := in.String(f, rules.Get(f))
		ch.SetIf(v.Set, f, v.Ptr())
	}
	notes := in.String("notes", rules.Get("notes"))
	ch.SetIf(notes.Set, "notes", notes.Ptr())
	in.ReadOnly(ReadOnly...)
	return ch
}
