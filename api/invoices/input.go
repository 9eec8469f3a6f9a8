package invoices

import (
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/rest"
	docstore "github.com/eventapi/eventapi/storage/documents"
	"github.com/eventapi/eventapi/storage/invoices"
	"github.com/eventapi/eventapi/storage/related"
)

// ReadOnly lists the fields an invoice may never be written with.
var ReadOnly = []string{"id", "organization_id", "total_amount", "demo", "created_at", "updated_at", "client", "event"}

var notesRule = rest.Rule{Nullable: true, MaxLen: rest.LongTextMaxLen}

// decodeFields reads every writable field into a docstore.Write. The same
// decoder serves POST (create: due_date required) and PATCH.
func decodeFields(in *rest.Input, create bool) docstore.Write {
	var w docstore.Write
	title := in.String("title", rest.Rule{MaxLen: 200})
	w.Changes.SetIf(title.Set, "title", title.Value)
	number := in.String("invoice_number", rest.Rule{MaxLen: 50, MinLen: 1})
	w.Changes.SetIf(number.Set, "invoice_number", number.Value)
	w.Number = number.Value
	status := in.String("status", rest.Rule{OneOf: invoices.Statuses})
	w.Changes.SetIf(status.Set, "status", status.Value)
	w.Status = status.Value
	client := in.UUID("client_id", rest.Rule{Nullable: true})
	w.Changes.SetIf(client.Set, "client_id", client.Ptr())
	event := in.UUID("event_id", rest.Rule{Nullable: true})
	w.Changes.SetIf(event.Set, "event_id", event.Ptr())
	w.Refs = []related.Ref{
		{Field: "client_id", Table: related.TableClients, ID: client.Ptr()},
		{Field: "event_id", Table: related.TableEvents, ID: event.Ptr()},
	}
	issue := in.Date("issue_date", rest.Rule{Nullable: true})
	w.Changes.SetIf(issue.Set, "issue_date", issue.Ptr())
	due := in.Date("due_date", rest.Rule{Required: create})
	w.Changes.SetIf(due.Set, "due_date", due.Value)
	notes := in.String("notes", notesRule)
	w.Changes.SetIf(notes.Set, "notes", notes.Ptr())
	if lines := documents.DecodeLines(in); lines.Set {
		w.Lines = &lines.Value
	}
	in.ReadOnly(ReadOnly...)
	return w
}
