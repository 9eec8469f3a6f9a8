package events

import (
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage"
	"github.com/eventapi/eventapi/api/storage/events"
	"github.com/eventapi/eventapi/api/storage/related"
)

// ReadOnly lists the fields an event may never write, its expanded
// equipment_reservations among them.
var ReadOnly = rest.ReadOnlyFields(expansions)

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// description and notes are free text, the other strings one line.
var createRules, updateRules = openapi.Rules("EventCreate").MultiLine("description", "notes"),
	openapi.Rules("EventUpdate").MultiLine("description", "notes")

// decodeFields reads every writable field. The same decoder serves POST
// (create: required fields enforced) and PATCH.
func decodeFields(in *rest.Input, create bool) events.Fields {
	var f events.Fields
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

	// Both dates in the body: the window is checked here, so its issue is
	// named with the body's others, on PATCH too. A PATCH of one date is
	// checked against the stored other (events.Update).
	f.Start, f.End = start.Ptr(), end.Ptr()
	if !create && (f.Start != nil || f.End != nil) {
		f.Before = &events.Dates{} // events.Update fills it; warnOutside reads it
	}
	if f.Start != nil && f.End != nil && !storage.WindowOK(*f.Start, *f.End) {
		in.Issue("end_date", storage.WindowIssue)
	}
	return f
}
