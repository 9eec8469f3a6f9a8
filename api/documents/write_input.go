package documents

import (
	"github.com/eventapi/eventapi/api/rest"
	"github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/related"
)

// Body is what tells a quote's body from an invoice's: the rules of its
// fields (POST's or PATCH's, from the OpenAPI document), the name of its
// number field, the fields it may never be written with, and a decoder of
// the fields only that type has.
type Body struct {
	Rules       rest.Rules
	NumberField string
	ReadOnly    []string
	Own         func(in *rest.Input, rules rest.Rules, w *documents.Write)
}

// DecodeWrite reads a document's body into a documents.Write: the fields
// quotes and invoices share (title, the number, status, client_id and
// event_id, whose records are checked as references), then the type's own,
// then line_items, and refuses the read-only fields. The same decoder
// serves POST and PATCH; b.Rules says which fields are required.
func DecodeWrite(in *rest.Input, b Body) documents.Write {
	var w documents.Write
	title := in.String("title", b.Rules.Get("title"))
	w.Changes.SetIf(title.Set, "title", title.Value)
	number := in.String(b.NumberField, b.Rules.Get(b.NumberField))
	w.Changes.SetIf(number.Set, b.NumberField, number.Value)
	w.Number = number.Value
	status := in.String("status", b.Rules.Get("status"))
	w.Changes.SetIf(status.Set, "status", status.Value)
	w.Status = status.Value
	client := in.UUID("client_id", b.Rules.Get("client_id"))
	w.Changes.SetIf(client.Set, "client_id", client.Ptr())
	event := in.UUID("event_id", b.Rules.Get("event_id"))
	w.Changes.SetIf(event.Set, "event_id", event.Ptr())
	w.Refs = []related.Ref{
		{Field: "client_id", Table: related.TableClients, ID: client.Ptr()},
		{Field: "event_id", Table: related.TableEvents, ID: event.Ptr()},
	}
	b.Own(in, b.Rules, &w)
	if lines := DecodeLines(in); lines.Set {
		w.Lines = &lines.Value
	}
	in.ReadOnly(b.ReadOnly...)
	return w
}
