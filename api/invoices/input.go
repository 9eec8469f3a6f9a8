package invoices

import (
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	docstore "github.com/eventapi/eventapi/api/storage/documents"
	"github.com/eventapi/eventapi/api/storage/related"
)

// ReadOnly lists the fields an invoice may never be written with.
var ReadOnly = []string{"id", "organization_id", "total_amount", "demo", "created_at", "updated_at", "client", "event"}

// The field rules of POST and PATCH bodies, from the OpenAPI document.
var createRules, updateRules = openapi.Rules("InvoiceCreate"), openapi.Rules("InvoiceUpdate")

// decodeFields reads every writable field into a docstore.Write. The same
// decoder serves POST (create: due_date required) and PATCH.
func decodeFields(in *rest.Input, create bool) docstore.Write {
	var w docstore.Write
	rules := updateRules
	if create {
		rules = createRules
	}
	title := in.String("title", rules.Get("title"))
	w.Changes.SetIf(title.Set, "title", title.Value)
	number := in.String("invoice_number", rules.Get("invoice_number"))
	w.Changes.SetIf(number.Set, "invoice_number", number.Value)
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
	issue := in.Date("issue_date", rules.Get("issue_date"))
	w.Changes.SetIf(issue.Set, "issue_date", issue.Ptr())
	due := in.Date("due_date", rules.Get("due_date"))
	w.Changes.SetIf(due.Set, "due_date", due.Value)
	notes := in.String("notes", rules.Get("notes"))
	w.Changes.SetIf(notes.Set, "notes", notes.Ptr())
	if lines := documents.DecodeLines(in); lines.Set {
		w.Lines = &lines.Value
	}
	in.ReadOnly(ReadOnly...)
	return w
}
