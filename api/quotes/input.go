package quotes

import (
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	docstore "github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/related"
)

// ReadOnly lists the fields a quote may never be written with.
var ReadOnly = []string{"id", "organization_id", "total_amount", "demo", "created_at", "updated_at", "client", "event"}

// The field rules of POST and PATCH bodies, from the OpenAPI document.
var createRules, updateRules = openapi.Rules("QuoteCreate"), openapi.Rules("QuoteUpdate")

// decodeFields reads every writable field into a docstore.Write. The same decoder
// serves POST (create: title required) and PATCH.
func decodeFields(in *rest.Input, create bool) docstore.Write {
	var w docstore.Write
	rules := updateRules
	if create {
		rules = createRules
	}
	title := in.String("title", rules.Get("title"))
	w.Changes.SetIf(title.Set, "title", title.Value)
	number := in.String("quote_number", rules.Get("quote_number"))
	w.Changes.SetIf(number.Set, "quote_number", number.Value)
	w.Number = number.Value
	status := in.String("status", rules.Get("status"))
	w.Changes.SetIf(status.Set, "status", status.Value)
	w.Status = status.Value
	client := in.UUID("client_id", rules.Get("client_id"))
	w.Changes.SetIf(client.Set, "client_id", client.Ptr())
	event := in.UUID("event_id", rules.Get("event_id"))
	w.Changes.SetIf(event.Set, "event_id", event.Ptr())
	w.Refs = []related.Ref{
		{Field: "client_id", Table: related.TableClients, ID: client.Ptr()},
		{Field: "event_id", Table: related.TableEvents, ID: event.Ptr()},
	}
	for _, f := range []string{"notes", "internal_notes"} {
		v := in.String(f, rules.Get(f))
		w.Changes.SetIf(v.Set, f, v.Ptr())
	}
	qt := in.String("quote_type", rules.Get("quote_type"))
	w.Changes.SetIf(qt.Set, "quote_type", qt.Value)
	if lines := documents.DecodeLines(in); lines.Set {
		w.Lines = &lines.Value
	}
	in.ReadOnly(ReadOnly...)
	return w
}
