package crew

import (
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/storage"
)

// ReadOnly lists the fields a crew member may never write.
var ReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at"}

var (
	nameRule  = rest.Rule{MinLen: 1, MaxLen: 100}
	emailRule = rest.Rule{Nullable: true, Email: true, MaxLen: 254}
	shortRule = rest.Rule{Nullable: true, MaxLen: 100}
	notesRule = rest.Rule{Nullable: true, MaxLen: rest.LongTextMaxLen}
)

// decodeFields reads every writable field into column assignments. The same
// decoder serves POST (create: required fields enforced) and PATCH.
func decodeFields(in *rest.Input, create bool) storage.Changes {
	var ch storage.Changes
	for _, col := range []string{"first_name", "last_name"} {
		r := nameRule
		r.Required = create
		v := in.String(col, r)
		ch.SetIf(v.Set, col, v.Value)
	}
	email := in.String("email", emailRule)
	ch.SetIf(email.Set, "email", email.Ptr())
	for _, col := range []string{"phone", "role"} {
		v := in.String(col, shortRule)
		ch.SetIf(v.Set, col, v.Ptr())
	}
	notes := in.String("notes", notesRule)
	ch.SetIf(notes.Set, "notes", notes.Ptr())
	active := in.Bool("is_active", rest.Rule{})
	ch.SetIf(active.Set, "is_active", active.Value)
	in.ReadOnly(ReadOnly...)
	return ch
}
