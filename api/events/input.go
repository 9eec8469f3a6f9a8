package events

import (
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/storage/events"
	"github.com/eventapi/eventapi/storage/related"
)

// ReadOnly lists the fields an event may never write.
var ReadOnly = []string{"id", "organization_id", "demo", "created_at", "updated_at"}

var (
	nameRule  = rest.Rule{MinLen: 1, MaxLen: 200}
	venueRule = rest.Rule{MinLen: 1, MaxLen: 300}
	textRule  = rest.Rule{Nullable: true, MaxLen: rest.LongTextMaxLen}
)

// decodeFields reads every writable field. The same decoder serves POST
// (create: required fields enforced, the window checked) and PATCH.
func decodeFields(in *rest.Input, create bool) events.Fields {
	var f events.Fields
	ch := &f.Changes
	req := func(r rest.Rule) rest.Rule { r.Required = create; return r }

	name := in.String("name", req(nameRule))
	ch.SetIf(name.Set, "name", name.Value)
	status := in.String("status", rest.Rule{OneOf: events.Statuses})
	ch.SetIf(status.Set, "status", status.Value)
	start := in.DateTime("start_date", req(rest.Rule{}))
	ch.SetIf(start.Set, "start_date", start.Value)
	end := in.DateTime("end_date", req(rest.Rule{}))
	ch.SetIf(end.Set, "end_date", end.Value)
	venue := in.String("venue", req(venueRule))
	ch.SetIf(venue.Set, "venue", venue.Value)
	client := in.UUID("client_id", rest.Rule{Nullable: true})
	ch.SetIf(client.Set, "client_id", client.Ptr())
	f.Refs = []related.Ref{{Field: "client_id", Table: related.TableClients, ID: client.Ptr()}}
	for _, col := range []string{"description", "notes"} {
		v := in.String(col, textRule)
		ch.SetIf(v.Set, col, v.Ptr())
	}
	in.ReadOnly(ReadOnly...)

	f.Start, f.End = start.Ptr(), end.Ptr()
	if create && f.Start != nil && f.End != nil {
		if err := events.CheckWindow(*f.Start, *f.End); err != nil {
			in.Issue("end_date", events.WindowIssue)
		}
	}
	return f
}
