package clients

import (
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/storage"
)

// ReadOnly lists the fields a client may never write.
var ReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at"}

var (
	emailRule = rest.Rule{Nullable: true, Email: true, MaxLen: 254}
	shortRule = rest.Rule{Nullable: true, MaxLen: 200}
	notesRule = rest.Rule{Nullable: true, MaxLen: rest.LongTextMaxLen}
)

// decodeFields reads every writable field into column assignments. The same
// decoder serves POST (create: required fields enforced) and PATCH.
func decodeFields(in *rest.Input, create bool) storage.Changes {
	var ch storage.Changes
	name := in.String("name", rest.Rule{Required: create, MinLen: 1, MaxLen: 200})
	ch.SetIf(name.Set, "name", name.Value)
	email := in.String("email", emailRule)
	ch.SetIf(email.Set, "email", email.Ptr())
	for _, f := range []string{"phone", "address", "city", "state", "zip"} {
		v := in.String(f, shortRule)
		ch.SetIf(v.Set, f, v.Ptr())
	}
	notes := in.String("notes", notesRule)
	ch.SetIf(notes.Set, "notes", notes.Ptr())
	in.ReadOnly(ReadOnly...)
	return ch
}
