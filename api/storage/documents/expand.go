package documents

import (
	"context"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"github.com/eventapi/eventapi/api/storage/related"
	"github.com/eventapi/eventapi/tenancy"
)

// Expansions are the relations ?expand accepts on quotes and invoices.
var Expansions = []string{"client", "event"}

// Party is implemented by documents that name a client and an event.
type Party interface {
	// PartyIDs returns the document's client_id and event_id.
	PartyIDs() (client, event *uuid.UUID)
	// SetParty sets the expansions (a zero One is left out of the JSON).
	SetParty(client related.One[related.Client], event related.One[related.Event])
}

// Expand inlines the requested client and event into docs, one query per
// relation for the whole slice.
func Expand[T any, PT interface {
	*T
	Party
}](ctx context.Context, db bun.IDB, org tenancy.OrganizationID, docs []T, want map[string]bool) error {
	if !want["client"] && !want["event"] {
		return nil
	}
	var clients map[uuid.UUID]*related.Client
	var events map[uuid.UUID]*related.Event
	var err error
	if want["client"] {
		ids := related.IDs(docs, func(d *T) *uuid.UUID { c, _ := PT(d).PartyIDs(); return c })
		if clients, err = related.Clients(ctx, db, org, ids); err != nil {
			return err
		}
	}
	if want["event"] {
		ids := related.IDs(docs, func(d *T) *uuid.UUID { _, e := PT(d).PartyIDs(); return e })
		if events, err = related.Events(ctx, db, org, ids); err != nil {
			return err
		}
	}
	for i := range docs {
		d := PT(&docs[i])
		c, e := d.PartyIDs()
		var oc related.One[related.Client]
		var oe related.One[related.Event]
		if want["client"] {
			oc = related.Pick(clients, c)
		}
		if want["event"] {
			oe = related.Pick(events, e)
		}
		d.SetParty(oc, oe)
	}
	return nil
}
