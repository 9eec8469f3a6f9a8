package events

import (
	"time"

	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/related"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/scoped"
	"github.com/eventapi/eventapi/platform/errs"
)

// ReadOnly lists the fields an event may never write.
var ReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at"}

// The field rules of POST and PATCH bodies, from the OpenAPI document.
var createRules, updateRules = openapi.Rules("EventCreate"), openapi.Rules("EventUpdate")

// Fields is a decoded create or patch body: the column assignments, plus the
// dates it sets so the window can be checked against the stored one.
type Fields struct {
	Changes scoped.Changes
	// Start and End are the new dates, nil when the body leaves them alone.
	Start, End *time.Time
	// Refs are the records the body names (client_id), checked against the
	// organization before the write.
	Refs []related.Ref
}

// decodeFields reads every writable field. The same decoder serves POST
// (create: required fields enforced, the window checked) and PATCH.
func decodeFields(in *rest.Input, create bool) Fields {
	var f Fields
	ch := &f.Changes
	rules := updateRules
	if create {
		rules = createRules
	}

	name := in.String("name", rules.Get("name"))
	ch.SetIf(name.Set, "name", name.Value)
	status := in.String("status", rules.Get("status"))
	ch.SetIf(status.Set, "status", status.Value)
	start := in.DateTime("start_date", rules.Get("start_date"))
	ch.SetIf(start.Set, "start_date", start.Value)
	end := in.DateTime("end_date", rules.Get("end_date"))
	ch.SetIf(end.Set, "end_date", end.Value)
	venue := in.String("venue", rules.Get("venue"))
	ch.SetIf(venue.Set, "venue", venue.Value)
	client := in.UUID("client_id", rules.Get("client_id"))
	ch.SetIf(client.Set, "client_id", client.Ptr())
	f.Refs = []related.Ref{{Field: "client_id", Table: related.TableClients, ID: client.Ptr()}}
	for _, col := range []string{"description", "notes"} {
		v := in.String(col, rules.Get(col))
		ch.SetIf(v.Set, col, v.Ptr())
	}
	in.ReadOnly(ReadOnly...)

	f.Start, f.End = start.Ptr(), end.Ptr()
	if create && f.Start != nil && f.End != nil {
		if err := CheckWindow(*f.Start, *f.End); err != nil {
			in.Issue("end_date", windowIssue)
		}
	}
	return f
}

const windowIssue = "must be after start_date"

// CheckWindow reports a validation_error on end_date unless end is after start.
func CheckWindow(start, end time.Time) error {
	if !end.After(start) {
		return errs.InvalidField("end_date", windowIssue)
	}
	return nil
}
