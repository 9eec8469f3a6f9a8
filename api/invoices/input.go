package invoices

import (
	"github.com/eventapi/eventapi/api/documents"
	"github.com/eventapi/eventapi/api/openapi"
	"github.com/eventapi/eventapi/api/rest"
	docstore "github.com/eventapi/eventapi/api/storage/documents"
)

// ReadOnly lists the fields an invoice may never be written with: its
// total_amount and its expansions among them.
var ReadOnly = rest.ReadOnlyFields(documents.Expansions, "total_amount")

// The field rules of POST and PATCH bodies, from the OpenAPI document;
// notes are free text, the other strings one line.
var createRules, updateRules = openapi.Rules("InvoiceCreate").MultiLine("notes"),
	openapi.Rules("InvoiceUpdate").MultiLine("notes")

// decodeFields reads every writable field into a docstore.Write. The same
// decoder serves POST (create: due_date required) and PATCH.
func decodeFields(in *rest.Input, create bool) docstore.Write {
	rules := updateRules
	if create {
		rules = createRules
	}
	return documents.DecodeWrite(in, documents.Body{Rules: rules, NumberField: "invoice_number", ReadOnly: ReadOnly, Own: decodeOwn})
}

// decodeOwn reads the fields only an invoice has.
func decodeOwn(in *rest.Input, rules rest.Rules, w *docstore.Write) {
	issue := in.Date("issue_date", rules.Get("issue_date"))
	w.Changes.SetIf(issue.Set, "issue_date", issue.Ptr())
	due := in.Date("due_date", rules.Get("due_date"))
	w.Changes.SetIf(due.Set, "due_date", due.Value)
	notes := in.String("notes", rules.Get("notes"))
	w.Changes.SetIf(notes.Set, "notes", notes.Ptr())
}
